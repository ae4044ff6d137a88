// One open game: the socket, the frame (score/turn bar, board, toolbar, chat), and the
// table for the room's state — waiting room, Rummy or Tile Rummy. openGame returns the
// screen's dispose(): the socket, the table and everything they added to the page go with it.
import { h, clear, modal, toast, region } from './dom.js';
import { api, GameSocket } from './net.js';
import { settings, setSetting, distractionFree, setDistractionFree, EMOJIS } from './settings.js';
import { createScope } from './scope.js';
import { createChat } from './chat.js';
// The rules dialog loads when first opened: the game page stays under its weight budget.
const showRules = (...a) => import('./rules.js').then((m) => m.showRules(...a));
import { play } from './sound.js';
import { notice, setTitle } from './alerts.js';
import { say } from './words.js';

const GAME_NAMES = { rummy: 'Rummy', tiles: 'Tile Rummy' };
// Each table loads only when a game calls for it (issue 31): a Rummy page never fetches Tile
// Rummy's modules, nor a Tile Rummy page Rummy's, nor a game in play the waiting room. mountGame
// starts loading what the game will show (the API says its kind and status) while its socket
// connects, so the first view rarely waits.
const TABLES = {
  waiting: () => import('./waiting.js').then((m) => m.createWaiting),
  rummy: () => import('./rummy.js').then((m) => m.createRummy),
  tiles: () => import('./tiles.js').then((m) => m.createTiles),
};
const tables = {}; // key -> its table's create function, once its module has loaded
const loading = {}; // key -> the promise of that
function loadTable(key) {
  loading[key] ||= TABLES[key]().then((create) => { tables[key] = create; }, (e) => { delete loading[key]; throw e; });
  return loading[key];
}

export function openGame(root, code, { navigate, setKind }) {
  const scope = createScope();
  clear(root);
  const holder = h('div', { class: 'game-holder', style: { display: 'contents' } });
  root.append(holder);
  let soon = []; // the tables the game will show, from the API: they load with the socket
  const open = () => { if (scope.alive) mountGame(holder, code, scope, { navigate, setKind, soon }); };

  (async () => {
    let info;
    try {
      info = await api(`/api/games/${encodeURIComponent(code)}`);
    } catch (ex) {
      if (scope.alive) notFound(holder, ex.status === 404 ? 'There is no game with that code.' : ex.message, navigate);
      return;
    }
    if (!scope.alive) return;
    setKind(info.game);
    soon = info.status === 'waiting' ? ['waiting', info.game] : [info.game];
    if (info.you !== null && info.you !== undefined) open();
    else if (info.joinable) joinPrompt(holder, info, open, navigate);
    else if (info.status === 'finished') notFound(holder, 'This game has finished. To play, start a new one from the lobby.', navigate, 'Game Over', code);
    else if (info.status === 'ended') notFound(holder, 'Someone left, so this game is frozen. To play again, start a new one.', navigate, 'Game Ended');
    else notFound(holder, 'This game has already started or is full.', navigate);
  })();

  return { dispose: () => scope.dispose() };
}

function notFound(holder, text, navigate, title = "Can't open this game", replayOf = null) {
  clear(holder);
  const back = h('button', { type: 'button', class: 'btn primary' }, 'Back to lobby');
  back.addEventListener('click', () => navigate('/'));
  // issue 33: a finished match's replay is open to anyone with its code.
  const replay = replayOf ? h('a', { class: 'btn ghost', id: 'open-replay', href: `/g/${replayOf}/replay`, 'data-link': true, style: { textDecoration: 'none', display: 'inline-flex', alignItems: 'center' } }, 'Watch the replay') : null;
  holder.append(h('div', { class: 'center-screen' }, h('div', { class: 'panel center-card' }, h('h2', {}, title), h('p', {}, text), replay ? h('div', { class: 'row' }, back, replay) : back)));
}

function joinPrompt(holder, info, onJoined, navigate) {
  clear(holder);
  const s = settings();
  const name = h('input', { type: 'text', maxlength: 24, value: s.name, placeholder: 'Your name', 'aria-label': 'Your name', id: 'join-name' });
  const emoji = h('select', { 'aria-label': 'Your emoji', class: 'emoji-select' }, EMOJIS.map((e) => h('option', { value: e, selected: e === s.emoji }, e)));
  const err = h('p', { class: 'error-text', role: 'alert' });
  const btn = h('button', { type: 'submit', class: 'btn primary', id: 'join-this' }, 'Join Game');
  const back = h('button', { type: 'button', class: 'btn ghost' }, 'Back to lobby');
  back.addEventListener('click', () => navigate('/'));
  const form = h('form', { class: 'panel center-card' },
    h('h2', {}, `Join ${GAME_NAMES[info.game]} · ${info.code}`),
    h('p', { class: 'muted' }, (info.players || []).map((p) => `${p.emoji} ${p.name}`).join(' · ') || 'No one has joined yet.'),
    h('div', { class: 'row' }, emoji, name), err, h('div', { class: 'row' }, btn, back));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const n = name.value.trim();
    if (!n) { err.textContent = 'Pick a name first.'; return; }
    setSetting('name', n);
    setSetting('emoji', emoji.value);
    btn.disabled = true;
    try {
      await api(`/api/games/${encodeURIComponent(info.code)}/join`, { method: 'POST', body: { name: n, emoji: emoji.value } });
      onJoined();
    } catch (ex) { err.textContent = ex.message; btn.disabled = false; }
  });
  holder.append(h('div', { class: 'center-screen' }, form));
}

// The game's controller: the latest view and room, the table they call for, and the frame.
function mountGame(holder, code, scope, { navigate, setKind, soon }) {
  clear(holder);
  for (const key of soon) if (TABLES[key]) loadTable(key).catch(() => {}); // render() says
  const sock = new GameSocket(code);
  const reconnecting = document.getElementById('reconnecting');
  scope.add(() => { sock.close(); reconnecting.hidden = true; delete window.__gsView; });
  const s = {
    last: null, // the latest view message
    room: null,
    wasMyTurn: false,
    tableKey: '', // 'waiting', 'rummy' or 'tiles'
    table: null,
    skew: 0, // the server's clock minus this one (ms), from `hello`
    timer: null, // the turn timer's countdown (turntimer.js), once the room has a clock
  };

  // ---- the frame ----
  const scorebar = h('div', { class: 'scorebar', id: 'scorebar', 'aria-label': 'Scores and turn' });
  const board = h('div', { class: 'board-holder', style: { display: 'contents' } });
  const focusBtn = h('button', { type: 'button', class: 'icon-btn', id: 'btn-focus', 'aria-label': 'Distraction-free view', title: 'Distraction-free view', 'aria-pressed': String(distractionFree()) }, '⤢');
  focusBtn.addEventListener('click', () => {
    setDistractionFree(!distractionFree());
    focusBtn.setAttribute('aria-pressed', String(distractionFree()));
  });
  const chat = createChat(sock, () => (s.room ? s.room.you : null));
  const rulesBtn = h('button', { type: 'button', class: 'icon-btn frame-dup', 'aria-label': 'Rules', title: 'Rules' }, '?');
  rulesBtn.addEventListener('click', () => showRules(s.room ? s.room.game : 'rummy'));
  const settingsBtn = h('button', { type: 'button', class: 'icon-btn frame-dup', 'aria-label': 'Settings', title: 'Settings' }, '⚙');
  settingsBtn.addEventListener('click', () => document.getElementById('btn-settings').click());
  const leaveBtn = h('button', { type: 'button', class: 'btn small ghost', id: 'leave-game' }, 'Leave Game');
  leaveBtn.addEventListener('click', () => leave(false));
  // A finished match is not left: it offers the lobby instead (its result offers New Game).
  const lobbyBtn = h('button', { type: 'button', class: 'btn small ghost', id: 'back-to-lobby', hidden: true }, 'Back to lobby');
  lobbyBtn.addEventListener('click', () => navigate('/'));
  // Issue 33: how many spectators watch; the control (the host's watch link) loads on a tap.
  const watchBtn = h('button', { type: 'button', class: 'icon-btn watchers-btn', id: 'btn-watchers', 'aria-label': 'Spectators: 0', title: 'Spectators' }, '👁 0');
  watchBtn.addEventListener('click', () => { if (s.room) import('./spectators.js').then((m) => m.openWatchControl(code, s.room)); });
  // issue 33: a match that is over can be stepped through again (web/replay.js).
  const replayBtn = h('button', { type: 'button', class: 'btn small ghost', id: 'watch-replay', hidden: true }, 'Replay');
  replayBtn.addEventListener('click', () => navigate(`/g/${code}/replay`));
  const toolbar = h('nav', { class: 'toolbar', 'aria-label': 'Game' }, focusBtn, chat.button, watchBtn, rulesBtn, settingsBtn, h('span', { class: 'spacer' }), leaveBtn, replayBtn, lobbyBtn);
  // ...from the game-over panel too, whichever table draws it (and however often), and from
  // the banner of a match someone left.
  const replayLink = (id) => h('a', { class: 'btn ghost', id, href: `/g/${code}/replay`, 'data-link': true, style: { textDecoration: 'none', display: 'inline-flex', alignItems: 'center' } }, 'Replay');
  const offerReplay = new MutationObserver(() => {
    const row = board.querySelector('#game-over > .row');
    if (row && !row.querySelector('#game-over-replay')) row.append(replayLink('game-over-replay'));
    const lobby = frozenEl.querySelector('#frozen-lobby');
    if (lobby && s.last && s.last.state && !frozenEl.querySelector('#frozen-replay')) lobby.after(' ', replayLink('frozen-replay'));
  });
  const frozenEl = h('div', { class: 'frozen-banner', hidden: true, role: 'alertdialog', 'aria-labelledby': 'frozen-h' });
  const gameEl = h('section', { class: 'game', id: 'game', 'data-code': code }, scorebar, board, toolbar, frozenEl, chat.panel);
  holder.append(gameEl);
  offerReplay.observe(gameEl, { childList: true, subtree: true });
  scope.add(() => offerReplay.disconnect());
  const showFrozen = region(frozenEl, (text) => {
    const back = h('button', { type: 'button', class: 'btn primary', id: 'frozen-lobby' }, 'Back to lobby');
    back.addEventListener('click', () => navigate('/'));
    return h('div', { class: 'panel' }, h('h2', { id: 'frozen-h' }, 'Game Ended'), h('p', {}, text), back);
  });

  // ---- actions ----
  const showError = (e) => {
    if (!e) return;
    if (e.code === 'stale') return; // the server sends the fresh view right after
    toast(say(e.message || 'That did not work.', s.room ? s.room.game : 'rummy'));
    play('error');
  };
  async function leave(cancel) {
    const r = await modal(cancel ? 'Cancel this game?' : 'Leave Game?',
      h('p', {}, 'Everyone else\'s screen will freeze — the game doesn\'t quietly continue without you. This can\'t be undone from inside the game.'),
      [{ label: cancel ? 'Keep waiting' : 'Stay', value: 'stay', class: 'btn ghost' }, { label: cancel ? 'Cancel game' : 'Leave Game', value: 'leave', class: 'btn danger' }]);
    if (r !== 'leave' || !scope.alive) return;
    try { await sock.request({ type: 'leave' }); } catch (e) {
      if (!e || e.code !== 'ended') { showError(e); return; }
    }
    navigate('/');
  }
  // What a table may use of the game around it.
  const ctx = {
    scorebar,
    get room() { return s.room; },
    act: (action) => sock.act(action).catch((e) => { showError(e); throw e; }),
    request: (msg) => sock.request(msg).catch((e) => { showError(e); throw e; }),
    leave,
    navigate,
    player: (seat) => (s.room && s.room.players.find((p) => p.seat === seat)) || { seat, name: `Seat ${seat + 1}`, emoji: '🙂', online: false },
  };

  // issue 33: the rematch offer at a match's end (web/rematch.js, loaded when first needed).
  let rematch = null;
  const useRematch = () => rematch || (rematch = import('./rematch.js').then((m) => m.createRematch({ sock, gameEl, scope, navigate, room: () => s.room })));
  sock.on('rematch', (msg) => useRematch().then((r) => r.offer(msg)));
  sock.on('rematch_started', (msg) => useRematch().then((r) => r.started(msg)));

  function render() {
    const { last, room } = s;
    if (!last || !room) return;
    const key = room.status === 'waiting' || !last.state ? 'waiting' : room.game;
    if (!tables[key]) {
      // Until the table's module is here the board stays as it is (empty, or the waiting
      // room), and so does the frame: one render draws both from the latest view.
      loadTable(key).then(() => { if (scope.alive) render(); }, () => { if (scope.alive) toast('Could not load the game. Check your connection and reload the page.'); });
      return;
    }
    setKind(room.game);
    const myTurn = (room.to_act || []).includes(room.you) && room.status === 'active';
    setTitle(`${myTurn ? '● ' : ''}${GAME_NAMES[room.game]} · ${room.code} · GameShack`);
    if (myTurn && !s.wasMyTurn) notice('turn', 'Your turn', `${GAME_NAMES[room.game]} · ${room.code}`);
    s.wasMyTurn = myTurn;
    chat.syncUnread(room.chat_unread || 0);
    watchBtn.textContent = `👁 ${room.watchers || 0}`;
    watchBtn.setAttribute('aria-label', `Spectators: ${room.watchers || 0}`);
    if (key !== s.tableKey) {
      if (s.table) s.table.dispose();
      s.table = tables[key](ctx, scope.child());
      s.tableKey = key;
      board.replaceChildren(s.table.el);
    }
    scorebar.hidden = key === 'waiting';
    leaveBtn.hidden = key === 'waiting' || room.status === 'ended' || room.status === 'finished';
    lobbyBtn.hidden = room.status !== 'finished';
    replayBtn.hidden = !(room.status === 'finished' || (room.status === 'ended' && last.state));
    s.table.update(key === 'waiting' ? room : last);
    if (room.status === 'finished') useRematch().then((r) => r.update());
    if (room.clock && !s.timer) {
      // The turn timer's countdown loads only for a game that has one (issue 33).
      s.timer = import('./turntimer.js').then((m) => {
        if (!scope.alive) return;
        s.timer = m.createTurnTimer(scope, { player: ctx.player, skew: () => s.skew });
        gameEl.append(s.timer.el);
        s.timer.update(s.room);
      });
    } else if (s.timer && s.timer.update) s.timer.update(room);
    if (room.status === 'ended') {
      const mine = room.ended && room.ended.seat === room.you;
      const who = room.ended && room.ended.name ? room.ended.name : 'A player';
      showFrozen(mine ? 'You left this game.' : `${who} ${last.state ? 'left' : 'cancelled'} the game, so it is frozen. To play again, start a new one.`);
      frozenEl.hidden = false;
      gameEl.classList.add('frozen');
      leaveBtn.hidden = true;
    }
  }

  // ---- the server's messages ----
  sock.on('view', (msg) => {
    s.last = msg;
    s.room = msg.room;
    window.__gsView = msg; // the browser tests' window on this seat's view (tests/browser)
    render();
  });
  sock.on('room', (msg) => {
    s.room = msg.room;
    if (s.last) s.last = { ...s.last, room: msg.room };
    render();
  });
  sock.on('error', (msg) => { if (!msg.id) showError(msg); });
  sock.on('hello', (msg) => { s.skew = msg.server_time - Date.now(); });
  sock.on('hint', (msg) => { if (s.table && s.table.showHint) s.table.showHint(msg.hint); });
  sock.onStatus((st) => {
    reconnecting.hidden = st !== 'reconnecting';
    if (st === 'missing' || st === 'forbidden') notFound(holder, st === 'missing' ? 'There is no game with that code.' : 'You are not seated in this game.', navigate);
  });
}
