// "Waiting for players…": the share code, who has joined, Cancel; the Tile Rummy host's Start.
import { h, copyText, toast, region } from './dom.js';

const SHOWN = ['code', 'seats', 'players', 'you', 'host', 'game'];

// `scope`: this screen's lifetime; it adds nothing to the page beyond its own elements.
export function createWaiting(ctx, scope) {
  const el = h('div', { class: 'center-screen waiting' });
  let level = 'medium'; // the difficulty the host picked for the next computer player
  const draw = region(el, (room) => {
    const link = `${location.origin}/g/${room.code}`;
    const joined = room.players.length;
    const list = h('ul', { class: 'seat-list', 'aria-label': 'Players' });
    for (let s = 0; s < room.seats; s++) {
      const p = room.players.find((x) => x.seat === s);
      list.append(p
        ? h('li', {}, h('span', { class: `online-dot${p.online ? ' on' : ''}`, role: 'img', 'aria-label': p.online ? 'online' : 'offline' }),
          h('span', { class: 'emoji' }, p.emoji), h('b', {}, p.name),
          p.seat === room.you ? h('span', { class: 'pill' }, 'you') : null,
          p.seat === room.host ? h('span', { class: 'pill' }, 'host') : null,
          p.bot ? h('span', { class: 'pill' }, typeof p.bot === 'string' && LEVELS[p.bot] ? `bot · ${LEVELS[p.bot]}` : 'bot') : null)
        : h('li', { class: 'empty' }, 'Open seat'));
    }
    const isHost = room.you === room.host;
    const tiles = room.game === 'tiles';
    const actions = h('div', { class: 'row', style: { justifyContent: 'center' } });
    let botRow = null;
    if (tiles && isHost) {
      const start = h('button', { type: 'button', class: 'btn primary', id: 'start-game', disabled: joined < 2 }, 'Start');
      start.addEventListener('click', () => ctx.request({ type: 'start' }));
      actions.append(start);
    }
    if (isHost && joined < room.seats) botRow = botPicker(() => level, (v) => { level = v; }, () => ctx.request({ type: 'add_bot', difficulty: level }));
    const cancel = h('button', { type: 'button', class: 'btn danger', id: 'cancel-game' }, 'Cancel');
    cancel.addEventListener('click', () => ctx.leave(true));
    actions.append(cancel);
    const copyCode = h('button', { type: 'button', class: 'btn small ghost', id: 'copy-code' }, 'Copy code');
    copyCode.addEventListener('click', async () => toast((await copyText(room.code)) ? 'Code copied' : room.code));
    const copyLink = h('button', { type: 'button', class: 'btn small ghost', id: 'copy-link' }, 'Copy link');
    copyLink.addEventListener('click', async () => toast((await copyText(link)) ? 'Link copied' : link));
    return h('div', { class: 'panel center-card' },
      h('h2', {}, 'Waiting for players…'),
      h('p', { class: 'muted' }, 'Share this code to invite them:'),
      h('div', { class: 'share-code', id: 'share-code', 'aria-label': `Game code ${room.code.split('').join(' ')}` }, room.code),
      h('div', { class: 'row', style: { justifyContent: 'center' } }, copyCode, copyLink),
      h('p', { class: 'muted' }, tiles
        ? (isHost ? `${joined} of up to ${room.seats} joined — start once everyone is here.` : `${joined} of up to ${room.seats} joined — the host starts the game.`)
        : `${joined} of ${room.seats} joined — the game starts when every seat is filled.`),
      list, botRow, actions);
  });
  // Only what the panel shows counts as a change (not, say, the chat's unread count).
  const update = (room) => draw(Object.fromEntries(SHOWN.map((k) => [k, room[k]])));
  return { el, update, dispose: () => scope.dispose() };
}

const LEVELS = { easy: 'Easy', medium: 'Medium', hard: 'Hard' };

// "+ Computer player" with the host's choice of Easy / Medium / Hard (a radio group).
function botPicker(get, set, add) {
  const btns = Object.entries(LEVELS).map(([value, label]) => {
    const b = h('button', { type: 'button', role: 'radio', 'aria-checked': String(get() === value), 'data-value': value }, label);
    b.addEventListener('click', () => {
      set(value);
      for (const x of btns) x.setAttribute('aria-checked', String(x === b));
      bot.textContent = `+ Computer player (${label})`;
    });
    return b;
  });
  const bot = h('button', { type: 'button', class: 'btn ghost', id: 'add-bot' }, `+ Computer player (${LEVELS[get()]})`);
  bot.addEventListener('click', add);
  return h('div', { class: 'row bot-pick', style: { justifyContent: 'center' } },
    h('div', { class: 'seg', role: 'radiogroup', 'aria-label': 'Computer player difficulty', id: 'bot-level' }, btns), bot);
}
