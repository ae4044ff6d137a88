// Rematch (issue 33): at a finished match's end, one tap asks the same players for a new match
// (same seats, options and bots); it starts when every human has accepted. The server says
// where the offer stands (`rematch` frames) and when it started (`rematch_started`, the new
// code: every seat goes there). game.js loads this module only once a match is over.
import { h, toast } from './dom.js';

const MARK = { accepted: '✓', declined: '✗', left: '↩', waiting: '…' };
const WORD = { accepted: 'accepted', declined: 'declined', left: 'left', waiting: 'waiting' };

export function createRematch({ sock, gameEl, scope, navigate, room }) {
  let offer = null; // the latest `rematch` frame
  let busy = false;
  let gone = false;
  let shown = ''; // what the box shows (redrawn only when it changes: a click is never lost)
  const box = h('div', { class: 'rematch', id: 'rematch', style: { margin: '12px 0 4px', padding: '10px 12px', borderRadius: '12px', background: 'rgba(255,255,255,.06)', textAlign: 'center' } });

  const player = (seat) => (room() && room().players.find((p) => p.seat === seat)) || { seat, name: `Seat ${seat + 1}`, emoji: '🙂', bot: false };
  const names = (seats) => seats.map((s) => player(s).name).join(', ');
  const where = (o, seat) => (o.accepted.includes(seat) ? 'accepted' : o.declined.includes(seat) ? 'declined' : o.left.includes(seat) ? 'left' : 'waiting');

  async function answer(accept) {
    if (busy) return;
    busy = true;
    draw();
    try { await sock.request({ type: 'rematch', accept }); } catch (e) {
      if (e && e.code !== 'disconnected') toast(e.message || 'That did not work.');
    }
    busy = false;
    draw();
  }

  function draw() {
    const r = room();
    if (!r) return;
    const o = offer || { status: 'open', accepted: [], declined: [], left: [], code: null };
    const me = r.you;
    const key = JSON.stringify([o, busy, me, r.players.map((p) => [p.name, p.emoji, p.bot])]);
    if (key === shown) { place(); return; }
    shown = key;
    const kids = [];
    const line = (text) => kids.push(h('p', { class: 'rematch-line', style: { margin: '6px 0' } }, text));
    if (o.status !== 'open' || o.accepted.length) {
      kids.push(h('ul', { class: 'rematch-seats', 'aria-label': 'Rematch answers', style: { listStyle: 'none', display: 'flex', flexWrap: 'wrap', gap: '6px 12px', justifyContent: 'center', padding: 0, margin: '0 0 6px' } },
        r.players.map((p) => {
          const w = where(o, p.seat);
          return h('li', { dataset: { seat: p.seat, answer: w }, title: WORD[w] }, `${p.emoji} ${p.seat === me ? 'You' : p.name} ${MARK[w]}`, h('span', { class: 'sr-only', style: { position: 'absolute', width: '1px', height: '1px', overflow: 'hidden', clip: 'rect(0 0 0 0)' } }, ` ${WORD[w]}`));
        })));
    }
    const btns = h('div', { class: 'row', style: { justifyContent: 'center' } });
    if (o.status === 'started') {
      line('The rematch has started.');
      const go = h('button', { type: 'button', class: 'btn primary', id: 'rematch-go' }, 'Go to the rematch');
      go.addEventListener('click', () => navigate(`/g/${o.code}`));
      btns.append(go);
    } else if (o.status === 'closed') {
      const no = o.declined.filter((s) => s !== me);
      const left = o.left.filter((s) => s !== me);
      if (o.declined.includes(me)) line('You declined the rematch.');
      if (o.left.includes(me)) line('You left, so there is no rematch.');
      if (no.length) line(`${names(no)} declined the rematch.`);
      if (left.length) line(`${names(left)} left, so there is no rematch.`);
    } else if (o.accepted.includes(me)) {
      const waiting = r.players.filter((p) => !o.accepted.includes(p.seat)).map((p) => p.seat);
      line(`Waiting for ${names(waiting)} to accept…`);
    } else {
      const asked = o.accepted.filter((s) => !player(s).bot);
      line(asked.length ? `${names(asked)} ${asked.length > 1 ? 'want' : 'wants'} a rematch.` : 'Play again with the same players?');
      const yes = h('button', { type: 'button', class: 'btn primary', id: 'rematch-accept', disabled: busy }, asked.length ? 'Accept rematch' : 'Rematch');
      yes.addEventListener('click', () => answer(true));
      btns.append(yes);
      if (asked.length) {
        const no = h('button', { type: 'button', class: 'btn ghost', id: 'rematch-decline', disabled: busy }, 'No thanks');
        no.addEventListener('click', () => answer(false));
        btns.append(no);
      }
    }
    if (btns.childNodes.length) kids.push(btns);
    box.replaceChildren(...kids);
    box.dataset.status = o.status;
    place();
  }

  // The box sits in the Game Over panel, above its buttons; the panel is redrawn as the
  // table likes, so it is put back whenever it is gone.
  function place() {
    const panel = gameEl.querySelector('#game-over');
    if (!panel || box.parentNode === panel) return;
    const rows = panel.querySelectorAll(':scope > .row');
    panel.insertBefore(box, rows.length ? rows[rows.length - 1] : null);
  }
  const watch = new MutationObserver(place);
  watch.observe(gameEl, { childList: true, subtree: true });
  scope.add(() => watch.disconnect());
  draw();

  return {
    offer(msg) { offer = msg; draw(); },
    started(msg) {
      if (gone || !scope.alive) return;
      gone = true;
      offer = { ...(offer || { accepted: [], declined: [], left: [] }), status: 'started', code: msg.code };
      draw();
      toast('The rematch is on!');
      navigate(`/g/${msg.code}`);
    },
    update: draw,
  };
}
