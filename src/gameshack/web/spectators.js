// The players' spectator control (issue 33), loaded when the 👁 button is first tapped: how
// many watch, and for the host the game's watch link — copy it, turn it on, or revoke it.
import { h, clear, modal, copyText, toast } from './dom.js';
import { api } from './net.js';

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
let cssLoaded = false;

export async function openWatchControl(code, room) {
  if (!cssLoaded) {
    cssLoaded = true;
    document.head.append(h('link', { rel: 'stylesheet', href: new URL('./watch.css', import.meta.url).href }));
  }
  const watching = h('p', { id: 'watchers-line' }, `${plural(room.watchers || 0, 'spectator')} watching now.`);
  if (room.you !== room.host) {
    await modal('Spectators', [watching, h('p', { class: 'muted' }, 'Only the host can share or stop the watch link.')]);
    return;
  }
  const path = `/api/games/${encodeURIComponent(code)}/watch`;
  let link;
  try { link = await api(path); } catch (e) { toast(e.message); return; }
  const box = h('div', { class: 'watch-link-box', id: 'watch-link-box' });
  const draw = () => {
    clear(box);
    if (!link.on) {
      const on = h('button', { type: 'button', class: 'btn primary', id: 'watch-on' }, 'Share a watch link');
      on.addEventListener('click', async () => {
        try { link = await api(path, { method: 'POST' }); draw(); } catch (e) { toast(e.message); }
      });
      box.append(h('p', {}, 'Watching is off. Turn it on to get a link for spectators.'), on);
      return;
    }
    const url = `${location.origin}${link.url}`;
    const input = h('input', { type: 'text', readonly: true, value: url, id: 'watch-url', 'aria-label': 'Watch link' });
    const copy = h('button', { type: 'button', class: 'btn primary', id: 'watch-copy' }, 'Copy link');
    copy.addEventListener('click', async () => { toast((await copyText(url)) ? 'Watch link copied.' : 'Select the link and copy it.'); });
    const off = h('button', { type: 'button', class: 'btn danger', id: 'watch-off' }, 'Stop sharing');
    off.addEventListener('click', async () => {
      try { link = await api(path, { method: 'DELETE' }); draw(); toast('The watch link no longer works; spectators were sent away.'); } catch (e) { toast(e.message); }
    });
    box.append(
      h('p', {}, 'Anyone with this link can watch: they see the table, the piles, the scores and the chat — never a hand or a rack.'),
      input, h('div', { class: 'row' }, copy, off));
  };
  draw();
  await modal('Spectators', [watching, box], [{ label: 'Done', value: 'close', class: 'btn' }], { class: 'watch-modal' });
}
