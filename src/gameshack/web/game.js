// One open game: the socket, the frame (score/turn bar, board, toolbar, chat), and the
// screen for the room's state — waiting room, first-deal draw, Rummy or Tile Rummy table.
import { h, clear, modal, toast } from './dom.js';
import { api, GameSocket } from './net.js';
import { settings, setSetting, distractionFree, setDistractionFree, EMOJIS } from './settings.js';
import { createChat } from './chat.js';
import { createWaiting } from './waiting.js';
import { createRummy } from './rummy.js';
import { createTiles } from './tiles.js';
import { showRules } from './rules.js';
import { play } from './sound.js';

const GAME_NAMES = { rummy: 'Rummy', tiles: 'Tile Rummy' };

export function openGame(root, code, { navigate, setKind }) {
  clear(root);
  let sock = null;
  let alive = true;
  const holder = h('div', { class: 'game-holder', style: { display: 'contents' } });
  root.append(holder);

  (async () => {
    let info;
    try {
      info = await api(`/api/games/${encodeURIComponent(code)}`);
    } catch (ex) {
      if (alive) notFound(holder, ex.status === 404 ? 'There is no game with that code.' : ex.message, navigate);
      return;
    }
    if (!alive) return;
    setKind(info.game);
    if (info.you === null || info.you === undefined) {
      if (info.joinable) joinPrompt(holder, info, () => { if (alive) { sock = start(); } }, navigate);
      else if (info.status === 'ended') notFound(holder, 'Someone left, so this game is frozen. To play again, start a new one.', navigate, 'Game Ended');
      else notFound(holder, 'This game has already started or is full.', navigate);
      return;
    }
    sock = start();
  })();

  function start() {
    clear(holder);
    const s = new GameSocket(code);
    mountFrame(holder, s, code, navigate, setKind);
    return s;
  }

  return () => { alive = false; if (sock) sock.close(); document.getElementById("reconnecting").hidden = true; };
}

function notFound(holder, text, navigate, title = "Can't open this game") {
  clear(holder);
  const back = h('button', { type: 'button', class: 'btn primary' }, 'Back to lobby');
  back.addEventListener('click', () => navigate('/'));
  holder.append(h('div', { class: 'center-screen' }, h('div', { class: 'panel center-card' }, h('h2', {}, title), h('p', {}, text), back)));
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

function mountFrame(holder, sock, code, navigate, setKind) {
  let last = null; // latest view message
  let room = null;
  let table = null;
  let tableKey = '';
  let wasMyTurn = false;
  const reconnecting = document.getElementById('reconnecting');

  const scorebar = h('div', { class: 'scorebar', id: 'scorebar', 'aria-label': 'Scores and turn' });
  const board = h('div', { class: 'board-holder', style: { display: 'contents' } });
  const focusBtn = h('button', { type: 'button', class: 'icon-btn', id: 'btn-focus', 'aria-label': 'Distraction-free view', title: 'Distraction-free view', 'aria-pressed': String(distractionFree()) }, '⤢');
  focusBtn.addEventListener('click', () => {
    setDistractionFree(!distractionFree());
    focusBtn.setAttribute('aria-pressed', String(distractionFree()));
  });
  const chat = createChat(sock, () => (room ? room.you : null));
  const rulesBtn = h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Rules', title: 'Rules' }, '?');
  rulesBtn.addEventListener('click', () => showRules(room ? room.game : 'rummy'));
  const settingsBtn = h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Settings', title: 'Settings' }, '⚙');
  settingsBtn.addEventListener('click', () => document.getElementById('btn-settings').click());
  const leaveBtn = h('button', { type: 'button', class: 'btn small ghost', id: 'leave-game' }, 'Leave Game');
  const toolbar = h('nav', { class: 'toolbar', 'aria-label': 'Game' }, focusBtn, chat.button, rulesBtn, settingsBtn, h('span', { class: 'spacer' }), leaveBtn);
  const frozen = h('div', { class: 'frozen-banner', hidden: true, role: 'alertdialog', 'aria-labelledby': 'frozen-h' });
  const gameEl = h('section', { class: 'game', id: 'game', 'data-code': code }, scorebar, board, toolbar, frozen, chat.panel);
  holder.append(gameEl);

  const showError = (e) => {
    if (!e) return;
    if (e.code === 'stale') return; // the server sends the fresh view right after
    toast(e.message || 'That did not work.');
    play('error');
  };
  const ctx = {
    sock,
    scorebar,
    get room() { return room; },
    act: (action) => sock.act(action).catch((e) => { showError(e); throw e; }),
    request: (msg) => sock.request(msg).catch((e) => { showError(e); throw e; }),
    leave: (cancel) => leave(cancel),
    player: (seat) => (room && room.players.find((p) => p.seat === seat)) || { seat, name: `Seat ${seat + 1}`, emoji: '🙂', online: false },
  };

  async function leave(cancel) {
    const r = await modal(cancel ? 'Cancel this game?' : 'Leave Game?',
      h('p', {}, 'Everyone else\'s screen will freeze — the game doesn\'t quietly continue without you. This can\'t be undone from inside the game.'),
      [{ label: cancel ? 'Keep waiting' : 'Stay', value: 'stay', class: 'btn ghost' }, { label: cancel ? 'Cancel game' : 'Leave Game', value: 'leave', class: 'btn danger' }]);
    if (r !== 'leave') return;
    try { await sock.request({ type: 'leave' }); } catch (e) {
      if (!e || e.code !== 'ended') { showError(e); return; }
    }
    navigate('/');
  }
  leaveBtn.addEventListener('click', () => leave(false));

  function showFrozen() {
    const who = room.ended && room.ended.name ? room.ended.name : 'A player';
    const mine = room.ended && room.ended.seat === room.you;
    clear(frozen);
    const back = h('button', { type: 'button', class: 'btn primary', id: 'frozen-lobby' }, 'Back to lobby');
    back.addEventListener('click', () => navigate('/'));
    frozen.append(h('div', { class: 'panel' }, h('h2', { id: 'frozen-h' }, 'Game Ended'),
      h('p', {}, mine ? 'You left this game.' : `${who} ${last && last.state ? 'left' : 'cancelled'} the game, so it is frozen. To play again, start a new one.`), back));
    frozen.hidden = false;
    gameEl.classList.add('frozen');
    leaveBtn.hidden = true;
  }

  function render() {
    if (!last || !room) return;
    setKind(room.game);
    const myTurn = (room.to_act || []).includes(room.you) && room.status === 'active';
    document.title = `${myTurn ? '● ' : ''}${GAME_NAMES[room.game]} · ${room.code} · GameShack`;
    if (myTurn && !wasMyTurn) play('turn');
    wasMyTurn = myTurn;
    chat.syncUnread(room.chat_unread || 0);
    const key = room.status === 'waiting' || !last.state ? 'waiting' : room.game;
    if (key !== tableKey) {
      if (table && table.destroy) table.destroy();
      clear(board);
      table = key === 'waiting' ? createWaiting(ctx) : key === 'rummy' ? createRummy(ctx) : createTiles(ctx);
      tableKey = key;
      board.append(table.el);
    }
    scorebar.hidden = key === 'waiting';
    leaveBtn.hidden = key === 'waiting' || room.status === 'ended';
    if (key === 'waiting') table.update(room); else table.update(last);
    if (room.status === 'ended') showFrozen();
  }

  sock.on('view', (msg) => {
    last = msg;
    room = msg.room;
    window.__gsView = msg; // this seat's own view, exposed for tests and debugging
    render();
  });
  sock.on('room', (msg) => {
    room = msg.room;
    if (last) last = { ...last, room };
    render();
  });
  sock.on('ended', () => { /* the view/room with status "ended" follows and freezes the screen */ });
  sock.on('error', (msg) => { if (!msg.id) showError(msg); });
  sock.on('hint', (msg) => { if (table && table.showHint) table.showHint(msg.hint); });
  sock.onStatus((s) => {
    reconnecting.hidden = s !== 'reconnecting';
    if (s === 'missing' || s === 'forbidden') notFound(holder, s === 'missing' ? 'There is no game with that code.' : 'You are not seated in this game.', navigate);
  });
}
