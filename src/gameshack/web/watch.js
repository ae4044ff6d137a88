// The watch page (/w/TOKEN, issue 33): a spectator's read-only table. Loaded only on that
// route. The server sends `watching` frames (the game's public view: piles, melds or sets,
// hand and rack sizes, scores, the move log) and the chat; never a card or tile of a hand or
// rack, so there is nothing here to hide.
import { h, clear, region } from './dom.js';
import { cardEl, cardBackEl, tileEl } from './cards.js';
import { drawScorebar } from './board.js';
import { drawOpponents as rummySeats } from './rummy-view.js';
import { drawOpponents as tileSeats } from './tiles-view.js';
import { createMoveLog, rummyLines, tilesLines } from './movelog.js';

const GAME_NAMES = { rummy: 'Rummy', tiles: 'Tile Rummy' };
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

let cssLoaded = false;
function ensureCss() {
  if (cssLoaded) return;
  cssLoaded = true;
  document.head.append(h('link', { rel: 'stylesheet', href: new URL('./watch.css', import.meta.url).href }));
}

export function openWatch(root, token, { navigate, setKind }) {
  ensureCss();
  clear(root);
  let alive = true;
  let ws = null;
  let retry = 0;
  let retryTimer = 0;
  let room = null;
  let st = null;
  const chat = [];

  const banner = h('div', { class: 'watch-banner', id: 'watch-banner', role: 'status' });
  const scorebar = h('div', { class: 'scorebar', id: 'scorebar', 'aria-label': 'Scores and turn' });
  const seatsEl = h('div', { class: 'opponents', id: 'watch-seats', 'aria-label': 'Players' });
  const centerEl = h('div', { class: 'watch-center', id: 'watch-table', 'aria-label': 'Table' });
  const statusEl = h('div', { class: 'status-line', id: 'watch-status', role: 'status' });
  const log = createMoveLog();
  const chatList = h('ol', { class: 'watch-chat-list', id: 'watch-chat', 'aria-label': 'Chat (read-only)' });
  const chatEl = h('section', { class: 'watch-chat panel' }, h('h2', {}, 'Chat'), chatList);
  const closedEl = h('div', { class: 'frozen-banner', hidden: true });
  const el = h('section', { class: 'game watch', id: 'watch' }, banner, scorebar,
    h('div', { class: 'board watch-board' }, seatsEl, centerEl, statusEl, log.el), chatEl, closedEl);
  root.append(el);
  document.title = 'Watching · GameShack';

  const player = (seat) => (room && room.players.find((p) => p.seat === seat)) || { seat, name: `Seat ${seat + 1}`, emoji: '🙂', online: false };
  const name = (seat) => player(seat).name;
  const ctx = { player };

  const showBanner = region(banner, (d) => [
    h('span', { class: 'watch-eye', 'aria-hidden': 'true' }, '👁'),
    h('b', {}, `Watching ${GAME_NAMES[d.game] || ''}`),
    h('span', { class: 'watch-count', id: 'watch-count' }, plural(d.watchers, 'spectator')),
    h('span', { class: 'muted watch-note' }, 'You see what everyone at the table sees — never a hand.'),
  ]);
  const showScores = region(scorebar, drawScorebar);
  const showSeats = region(seatsEl, (d) => (d.game === 'rummy' ? rummySeats(d.seats) : tileSeats(d.seats)));
  const showCenter = region(centerEl, (d) => (d.game === 'rummy' ? rummyTable(d) : tilesTable(d)));
  const showStatus = region(statusEl, (text) => text);
  const showChat = region(chatList, (msgs) => (msgs.length
    ? msgs.map((m) => h('li', {}, h('b', {}, `${m.emoji} ${m.name}: `), m.text))
    : h('li', { class: 'muted' }, 'No messages yet.')));

  function render() {
    if (!room) return;
    setKind(room.game);
    showBanner({ game: room.game, watchers: room.watchers });
    const rummy = room.game === 'rummy';
    const turn = st && st.turn !== null && st.turn !== undefined && room.status === 'active' ? st.turn : null;
    const totals = (st && st.totals) || room.players.map(() => 0);
    showScores({
      race: room.target ? `Race to ${room.target}` : null,
      seats: room.players.map((p) => ({ seat: p.seat, emoji: p.emoji, name: p.name, total: totals[p.seat] || 0 })),
      turn: turn !== null ? `${name(turn)}'s turn` : null,
    });
    const seats = room.players.map((p) => ({
      seat: p.seat, name: p.name, emoji: p.emoji, online: p.online, turn: p.seat === turn, toAct: p.seat === turn,
      cards: st && st.counts ? st.counts[p.seat] || 0 : 0,
      played: st && st.melds ? st.melds.reduce((n, m) => n + (m.owners || []).filter((o) => o === p.seat).length, 0) : 0,
      tiles: st && st.rack_sizes ? st.rack_sizes[p.seat] || 0 : 0,
      melded: !!(st && st.melded && st.melded[p.seat]),
    }));
    showSeats({ game: room.game, seats });
    if (st) {
      showCenter(rummy
        ? { game: 'rummy', stock: st.stock || 0, discard: st.discard || [], melds: st.melds || [] }
        : { game: 'tiles', pool: st.pool_size || 0, sets: st.table || [] });
      log.update(rummy ? rummyLines(st, ctx) : tilesLines(st, ctx));
    } else showCenter(rummy ? { game: 'rummy', stock: 0, discard: [], melds: [] } : { game: 'tiles', pool: 0, sets: [] });
    showStatus(statusText());
  }

  function statusText() {
    if (room.status === 'waiting') return `Waiting for players (${room.players.length} of ${room.seats}).`;
    if (room.status === 'ended') return room.ended && room.ended.name ? `${room.ended.name} left, so the game is frozen.` : 'This game has ended.';
    if (!st) return '';
    const phase = st.phase;
    if (phase === 'deal_draw' || phase === 'first_deal') return 'The players draw for the first deal.';
    if (phase === 'match_over' || room.status === 'finished') {
      const w = (st.match_winners || []).map(name);
      return w.length ? `Game over: ${w.join(' and ')} won.` : 'Game over.';
    }
    if (phase === 'hand_over' || phase === 'round_over') return `${room.game === 'rummy' ? 'Hand' : 'Round'} over. Waiting for the next one…`;
    return st.turn !== null && st.turn !== undefined ? `${name(st.turn)} is playing.` : '';
  }

  function closed(text) {
    alive = false;
    clearTimeout(retryTimer);
    const back = h('button', { type: 'button', class: 'btn primary', id: 'watch-lobby' }, 'Go to the lobby');
    back.addEventListener('click', () => navigate('/'));
    clear(closedEl).append(h('div', { class: 'panel', id: 'watch-closed', role: 'alertdialog', 'aria-labelledby': 'watch-closed-h' },
      h('h2', { id: 'watch-closed-h' }, 'Not watching'), h('p', {}, text), back));
    closedEl.hidden = false;
    el.classList.add('frozen');
  }

  function connect() {
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    const sock = new WebSocket(`${proto}://${location.host}/ws/watch/${encodeURIComponent(token)}`);
    ws = sock;
    sock.addEventListener('open', () => { retry = 0; });
    sock.addEventListener('message', (e) => {
      if (!alive) return;
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      if (msg.type === 'watching') {
        room = msg.room;
        st = msg.state;
        window.__gsWatch = msg; // the browser tests' window on what this spectator was sent
        render();
      } else if (msg.type === 'chat_history') {
        chat.splice(0, chat.length, ...msg.messages);
        showChat(chat.slice(-50));
      } else if (msg.type === 'chat') {
        chat.push(msg.msg);
        showChat(chat.slice(-50));
      } else if (msg.type === 'watch_closed') {
        closed(msg.reason === 'revoked' ? 'The host stopped sharing this game.' : 'This game is gone.');
      }
    });
    sock.addEventListener('close', (e) => {
      if (!alive) return;
      if (e.code === 4404) { closed('This watch link does not work (any more).'); return; }
      if (e.code === 4429) { closed(e.reason || 'Too many spectators right now; try again later.'); return; }
      const delay = Math.min(5000, 300 * 2 ** retry++) + Math.random() * 200;
      retryTimer = setTimeout(() => { if (alive) connect(); }, delay);
    });
  }
  connect();
  const ping = setInterval(() => { if (ws && ws.readyState === WebSocket.OPEN) ws.send('{"type":"ping"}'); }, 25000);

  return {
    dispose() {
      alive = false;
      clearTimeout(retryTimer);
      clearInterval(ping);
      if (ws) ws.close();
      delete window.__gsWatch;
    },
  };
}

function rummyTable(d) {
  const pile = h('div', { class: 'piles' },
    h('div', { class: 'pile' }, h('div', { class: 'draw-pile', role: 'img', 'aria-label': `Draw pile, ${d.stock} cards` }, cardBackEl()), h('span', { class: 'pile-label' }, `Draw · ${d.stock}`)),
    h('div', { class: 'pile' }, h('div', { class: 'discard-row', id: 'discard-pile', 'aria-label': 'Discard pile' }, d.discard.map((c) => cardEl(c))), h('span', { class: 'pile-label' }, 'Discard pile')));
  const melds = h('div', { class: 'melds', id: 'melds', 'aria-label': 'Table: melds' },
    d.melds.length
      ? h('div', { class: 'meld-row' }, d.melds.map((m) => h('div', { class: 'meld', 'data-meld': m.id }, m.cards.map((c) => cardEl(c)))))
      : h('p', { class: 'empty-hint' }, 'No melds on the table yet.'));
  return [pile, melds];
}

function tilesTable(d) {
  return [
    h('p', { class: 'pile-label', id: 'pool-size' }, `Pool · ${d.pool} tiles`),
    h('div', { class: 'table-sets', id: 'table-sets', 'aria-label': 'Table' },
      d.sets.length
        ? d.sets.map((s, si) => h('div', { class: 'tset', 'data-set': si }, s.faces.map((f, i) => tileEl(f, { jokerAs: f === 'JK' ? (s.meanings || [])[i] || null : null }))))
        : h('p', { class: 'empty-hint muted' }, 'The table is empty.')),
  ];
}
