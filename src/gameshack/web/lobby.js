// The lobby: New Game, Join Game, Resume Game / Your Active Games.
import { h, clear, toast } from './dom.js';
import { api } from './net.js';
import { settings, setSetting, onSettings, EMOJIS } from './settings.js';
import { createScope } from './scope.js';
import { accountBar } from './account.js'; // issue 8: sign-in link and Stats

const GAME_NAMES = { rummy: 'Rummy', tiles: 'Tile Rummy' };

function seg(label, options, value, onPick) {
  const wrap = h('div', { class: 'seg', role: 'group', 'aria-label': label });
  const render = (v) => {
    for (const b of wrap.children) b.setAttribute('aria-pressed', String(b.dataset.value === String(v)));
  };
  for (const [v, text] of options) {
    const b = h('button', { type: 'button', 'data-value': String(v) }, text);
    b.addEventListener('click', () => { render(v); onPick(v); });
    wrap.append(b);
  }
  render(value);
  return wrap;
}

function identity(scope) {
  const s = settings();
  const name = h('input', { type: 'text', id: 'lobby-name', maxlength: 24, value: s.name, placeholder: 'Your name', autocomplete: 'nickname', 'aria-label': 'Your name' });
  name.addEventListener('change', () => setSetting('name', name.value.trim()));
  const emoji = h('select', { id: 'lobby-emoji', 'aria-label': 'Your emoji', class: 'emoji-select' }, EMOJIS.map((e) => h('option', { value: e, selected: e === s.emoji }, e)));
  emoji.addEventListener('change', () => setSetting('emoji', emoji.value));
  // Settings changed in another tab (or the dialog) show here at once.
  scope.add(onSettings((now) => {
    if (document.activeElement !== name) name.value = now.name;
    emoji.value = now.emoji;
  }));
  return { el: h('div', { class: 'row id-row' }, emoji, name), name, emoji };
}

function who(players) {
  return players.map((p) => `${p.emoji} ${p.name}`).join(' · ');
}

function gameListItem(g, onOpen) {
  const turn = g.your_turn ? h('span', { class: 'pill turn' }, 'Your turn')
    : g.status === 'waiting' ? h('span', { class: 'pill' }, 'Waiting for players…')
      : g.turn_names && g.turn_names.length ? h('span', { class: 'pill' }, `${g.turn_names.join(', ')}'s turn`) : null;
  const b = h('button', { type: 'button', 'data-code': g.code, 'aria-label': `Open ${GAME_NAMES[g.game]} game ${g.code}` },
    h('span', {}, h('b', {}, `${GAME_NAMES[g.game] || g.game} · ${g.code}`), h('br'), h('span', { class: 'sub' }, who(g.players || []))),
    turn);
  b.addEventListener('click', () => onOpen(g.code));
  return h('li', {}, b);
}

// The lobby screen; returns its dispose().
export function openLobby(root, navigate) {
  const scope = createScope();
  clear(root);
  const opts = { game: 'rummy', seats: 2, target: null, practice: false, difficulty: 'medium', turn: null };
  const err = h('p', { class: 'error-text', role: 'alert' });
  const id = identity(scope);

  const targetRow = h('div', { class: 'field' }, h('span', {}, 'Target score'),
    seg('Target score', [[null, 'No limit'], [100, '100'], [200, '200'], [300, '300'], [500, '500']], null, (v) => { opts.target = v; }));
  const seatsSeg = seg('Seats', [[2, '2'], [3, '3'], [4, '4']], 2, (v) => { opts.seats = v; });
  const seatsLabel = h('span', {}, 'Players');
  const diff = h('div', { class: 'field', hidden: true }, h('span', {}, 'Bot difficulty'),
    seg('Bot difficulty', [['easy', 'Easy'], ['medium', 'Medium'], ['hard', 'Hard']], 'medium', (v) => { opts.difficulty = v; }));
  const practice = h('input', { type: 'checkbox', id: 'practice' });
  practice.addEventListener('change', () => { opts.practice = practice.checked; diff.hidden = !practice.checked; });
  const createBtn = h('button', { type: 'submit', class: 'btn primary', id: 'create-game' }, 'New Game');

  const newGame = h('form', { class: 'panel', id: 'new-game', 'aria-labelledby': 'new-game-h' },
    h('h2', { id: 'new-game-h' }, 'New Game'),
    h('div', { class: 'field' }, h('span', {}, 'You'), id.el),
    h('div', { class: 'field' }, h('span', {}, 'Game'),
      seg('Game', [['rummy', 'Rummy'], ['tiles', 'Tile Rummy']], 'rummy', (v) => {
        opts.game = v;
        targetRow.hidden = v !== 'rummy';
        seatsLabel.textContent = v === 'rummy' ? 'Players' : 'Room size (up to)';
      })),
    h('div', { class: 'field' }, seatsLabel, seatsSeg),
    targetRow,
    h('div', { class: 'field' }, h('span', {}, 'Turn timer'),
      seg('Turn timer', [[null, 'Off'], [30, '30 s'], [60, '1 min'], [120, '2 min']], null, (v) => { opts.turn = v; })),
    h('label', { class: 'check' }, practice, ' Practice mode (play against the computer)'),
    diff,
    h('div', { class: 'row' }, createBtn),
    err);
  newGame.addEventListener('submit', async (e) => {
    e.preventDefault();
    const name = id.name.value.trim();
    if (!name) { err.textContent = 'Pick a name first.'; id.name.focus(); return; }
    setSetting('name', name);
    err.textContent = '';
    createBtn.disabled = true;
    try {
      const body = { game: opts.game, seats: opts.seats, target: opts.game === 'rummy' ? opts.target : null, practice: opts.practice, difficulty: opts.difficulty, name, emoji: id.emoji.value, turn_seconds: opts.turn };
      const seed = new URLSearchParams(location.search).get('seed');
      if (seed && /^\d+$/.test(seed)) body.seed = Number(seed);
      const r = await api('/api/games', { method: 'POST', body });
      navigate(`/g/${r.code}`);
    } catch (ex) {
      err.textContent = ex.message;
      createBtn.disabled = false;
    }
  });

  const code = h('input', { type: 'text', id: 'join-code', class: 'code-input', maxlength: 5, placeholder: 'CODE', autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false', 'aria-label': 'Game code' });
  const joinErr = h('p', { class: 'error-text', role: 'alert' });
  const joinBtn = h('button', { type: 'submit', class: 'btn primary', id: 'join-game' }, 'Join Game');
  const join = h('form', { class: 'panel', id: 'join', 'aria-labelledby': 'join-h' },
    h('h2', { id: 'join-h' }, 'Join Game'),
    h('p', { class: 'muted' }, 'Enter the code another player shared with you.'),
    h('div', { class: 'row' }, code, joinBtn), joinErr);
  join.addEventListener('submit', async (e) => {
    e.preventDefault();
    const c = code.value.trim().toUpperCase();
    const name = id.name.value.trim();
    if (!c) { joinErr.textContent = 'Enter a game code.'; code.focus(); return; }
    if (!name) { joinErr.textContent = 'Pick a name first (under New Game).'; id.name.focus(); return; }
    setSetting('name', name);
    joinErr.textContent = '';
    joinBtn.disabled = true;
    try {
      const r = await api(`/api/games/${encodeURIComponent(c)}/join`, { method: 'POST', body: { name, emoji: id.emoji.value } });
      navigate(`/g/${r.code}`);
    } catch (ex) {
      joinErr.textContent = ex.message;
      joinBtn.disabled = false;
    }
  });

  const list = h('ul', { class: 'game-list', id: 'active-games' });
  const prompt = h('p', { class: 'in-progress-text', hidden: true }, 'You have games in progress. Pick one to open in this tab:');
  const none = h('p', { class: 'muted' }, 'No games in progress.');
  const resume = h('section', { class: 'panel wide', id: 'resume', 'aria-labelledby': 'resume-h' },
    h('h2', { id: 'resume-h' }, 'Resume Game'),
    h('h3', {}, 'Your Active Games'),
    h('p', { class: 'muted' }, 'Games you\'re seated in, from any device.'),
    prompt, list, none);

  root.append(h('div', { class: 'lobby' },
    h('div', { class: 'hero wide' }, h('h1', {}, 'GameShack'), h('p', {}, 'Rummy and Tile Rummy with friends — or practise against the computer.')),
    accountBar(scope),
    resume, newGame, h('div', { class: 'or wide', 'aria-hidden': 'true' }, 'or'), join));

  const refresh = async () => {
    if (!scope.alive) return;
    try {
      const r = await api('/api/games');
      if (!scope.alive) return;
      const games = (r && r.games) || [];
      clear(list);
      for (const g of games) list.append(gameListItem(g, (c) => navigate(`/g/${c}`)));
      prompt.hidden = games.length === 0;
      none.hidden = games.length > 0;
      resume.classList.toggle('in-progress', games.length > 0);
    } catch (ex) {
      if (ex.status) toast(ex.message);
    }
  };
  refresh();
  // The list follows games opened or finished in other tabs and on other devices.
  scope.every(refresh, 5000);
  scope.listen(document, 'visibilitychange', () => { if (!document.hidden) refresh(); });
  return { dispose: () => scope.dispose() };
}
