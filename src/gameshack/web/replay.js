// The replay of a finished match (/g/CODE/replay), loaded on demand by the router: step from
// the deal to the last action with the slider, the buttons or ← → (Home / End). Each step
// shows what everyone saw then (the public view); "Show every hand" shows every hand or rack
// and the turn in progress too, since the match is over and nothing is secret any more.
// The server replays the match (GET /api/replay/CODE) and sends its views in pages.
import { h, clear, region } from './dom.js';
import { api } from './net.js';
import { createScope } from './scope.js';
import { cardEl, tileEl } from './cards.js';
import { signed, cardsText } from './words.js';

const GAME_NAMES = { rummy: 'Rummy', tiles: 'Tile Rummy' };
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

let cssLoaded = false;
function ensureCss() {
  if (cssLoaded) return;
  cssLoaded = true;
  document.head.append(h('link', { rel: 'stylesheet', href: new URL('./replay.css', import.meta.url).href }));
}

// ---- what one step shows ----

function seatsOf(meta, v, full) {
  const turn = v.phase === 'playing' ? v.turn : null;
  return meta.players.map((p, i) => {
    let hand = null;
    if (full && meta.game === 'rummy' && v.hands) hand = v.hands[i].map((c) => cardEl(c, { cls: 'small' }));
    if (full && meta.game === 'tiles' && v.racks) hand = v.racks[i].map((t) => tileEl(t.face, { id: t.tile }));
    // Shown, a hand's own length (a turn in progress included); else the public count.
    const n = hand ? hand.length : ((meta.game === 'rummy' ? v.counts : v.rack_sizes) || [])[i] || 0;
    const count = plural(n, meta.game === 'rummy' ? 'card' : 'tile');
    return h('div', { class: `rp-seat${turn === i ? ' turn' : ''}`, 'data-seat': i },
      h('div', { class: 'rp-who' },
        h('span', { class: 'rp-name' }, `${p.emoji} ${p.name}${p.bot ? ' (bot)' : ''}`),
        h('span', { class: 'rp-count' }, count),
        h('b', { class: 'rp-total', 'aria-label': `${p.name}'s total ${signed((v.totals || [])[i] || 0)}` }, signed((v.totals || [])[i] || 0))),
      hand ? h('div', { class: 'rp-hand', 'data-hand': i, 'aria-label': `${p.name}'s ${meta.game === 'rummy' ? 'hand' : 'rack'}` }, hand) : null);
  });
}

function rummyBoard(v, full) {
  const melds = v.melds || []; // the full view's include the turn in progress (uncommitted)
  return [
    h('div', { class: 'rp-piles' },
      h('span', { class: 'rp-pile', id: 'rp-stock' }, `Stock: ${v.stock}`),
      h('span', { class: 'rp-discard', 'aria-label': 'Discard pile' }, h('span', { class: 'rp-label' }, 'Discard'), (v.discard || []).slice(-8).map((c) => cardEl(c, { cls: 'small' }))),
      full && v.pending ? h('span', { class: 'rp-pending' }, 'Discarding ', cardEl(v.pending, { cls: 'small' })) : null),
    h('div', { class: 'rp-melds', 'aria-label': 'Melds' },
      h('span', { class: 'rp-label' }, 'Melds'),
      melds.length ? melds.map((m) => h('div', { class: 'rp-meld' }, m.cards.map((c) => cardEl(c, { cls: (m.uncommitted || []).includes(c) ? 'small rp-new' : 'small' }))))
        : h('p', { class: 'muted' }, 'No melds yet.')),
  ];
}

function tilesBoard(v, full) {
  const sets = full && v.work ? v.work : v.table || [];
  return [
    h('div', { class: 'rp-piles' }, h('span', { class: 'rp-pile', id: 'rp-pool' }, `Pool: ${v.pool_size}`),
      full && v.work ? h('span', { class: 'muted' }, 'The table as the player on turn arranges it') : null),
    h('div', { class: 'rp-melds', 'aria-label': 'Table' },
      sets.length ? sets.map((s) => h('div', { class: `rp-meld${s.valid ? '' : ' invalid'}` }, s.faces.map((f, i) => tileEl(f, { jokerAs: s.meanings ? s.meanings[i] : null, cls: s.new && s.new[i] ? 'rp-new' : '' }))))
        : h('p', { class: 'muted' }, 'The table is empty.')),
  ];
}

function stageText(meta, v) {
  const names = meta.players.map((p) => p.name);
  if (v.phase === 'match_over') return 'Match over';
  if (v.phase === 'hand_over' || v.phase === 'round_over') return `${meta.game === 'rummy' ? 'Hand' : 'Round'} over`;
  const no = meta.game === 'rummy' ? v.hand_no : v.round;
  if (!no) return 'drawing for who starts';
  const part = meta.game === 'rummy' ? `Hand ${no}` : `Round ${no}`;
  return v.phase === 'playing' && v.turn !== null && v.turn !== undefined ? `${part} · ${names[v.turn]} to play` : part;
}

// An action in the words a player reads ('discard 7H' -> 'discards 7♥').
const RUMMY_WORDS = { deal: 'taps the deck', draw: 'draws from the stock', undo: 'takes the move back', commit: 'lets the discard stand', next: 'deals the next hand' };
const TILES_WORDS = { draw: 'draws a tile', confirm: 'ends the turn', reset: 'takes the turn back', next: 'deals the next round', move: 'moves a tile', arrange: 'arranges the table' };
function actionText(game, action) {
  const [verb, ...rest] = action.split(/\s+/);
  if (game === 'tiles') return TILES_WORDS[verb] || action;
  if (RUMMY_WORDS[verb]) return RUMMY_WORDS[verb];
  if (verb === 'layoff') return `lays off ${cardsText(rest.slice(0, -1))}`;
  const did = { take: 'takes', discard: 'discards', meld: 'melds' }[verb];
  return did ? `${did} ${cardsText(rest)}` : action;
}

// ---- the screen ----

export function openReplay(root, code, { navigate, setKind }) {
  ensureCss();
  clear(root);
  const scope = createScope();
  const pages = new Map(); // 'full:page' -> Promise of views
  const s = { meta: null, step: 0, full: false };

  const title = h('h1', { id: 'replay-h' }, `Replay · ${code}`);
  const err = h('p', { class: 'error-text', role: 'alert' });
  const seatsEl = h('div', { class: 'rp-seats', id: 'replay-seats' });
  const boardEl = h('div', { class: 'rp-board', id: 'replay-board' });
  const caption = h('p', { class: 'rp-caption', id: 'replay-step', 'aria-live': 'polite' });
  const slider = h('input', { type: 'range', id: 'replay-slider', min: 0, max: 0, value: 0, step: 1, 'aria-label': 'Step' });
  const btn = (id, label, text) => h('button', { type: 'button', class: 'btn small ghost', id, 'aria-label': label, title: label }, text);
  const first = btn('replay-first', 'First step', '⏮');
  const prev = btn('replay-prev', 'Previous step (←)', '◀');
  const next = btn('replay-next', 'Next step (→)', '▶');
  const last = btn('replay-last', 'Last step', '⏭');
  const fullBox = h('input', { type: 'checkbox', id: 'replay-full', disabled: true });
  const fullLabel = h('label', { class: 'rp-full', for: 'replay-full' }, fullBox, ' Show every hand');
  const screen = h('section', { class: 'replay-screen', id: 'replay', 'data-code': code, 'aria-labelledby': 'replay-h' },
    h('div', { class: 'rp-head' },
      h('p', { class: 'back-link' }, h('a', { href: '/stats', 'data-link': true }, '← Your Games'), ' · ', h('a', { href: '/', 'data-link': true }, 'Lobby')),
      title, err),
    seatsEl, boardEl,
    h('div', { class: 'rp-controls panel' },
      caption,
      h('div', { class: 'rp-row' }, first, prev, slider, next, last),
      h('div', { class: 'rp-row' }, fullLabel, h('span', { class: 'muted small' }, '← → to step'))));
  root.append(screen);
  const showSeats = region(seatsEl, (d) => seatsOf(s.meta, d.v, d.full));
  const showBoard = region(boardEl, (d) => (s.meta.game === 'rummy' ? rummyBoard(d.v, d.full) : tilesBoard(d.v, d.full)));

  const views = (page, full) => {
    const key = `${full ? 1 : 0}:${page}`;
    if (!pages.has(key)) {
      const p = api(`/api/replay/${encodeURIComponent(code)}/views?page=${page}&full=${full ? 1 : 0}`);
      p.catch(() => pages.delete(key)); // asked again next time
      pages.set(key, p);
    }
    return pages.get(key);
  };

  function captionText(step) {
    if (step === 0) return `Step 0 of ${s.meta.count - 1} · the deal`;
    const a = s.meta.steps[step - 1];
    const p = s.meta.players[a.seat] || { name: `Seat ${a.seat + 1}`, emoji: '' };
    return `Step ${step} of ${s.meta.count - 1} · ${p.emoji} ${p.name} ${actionText(s.meta.game, a.action)}`;
  }

  async function show(step) {
    const { meta } = s;
    step = Math.max(0, Math.min(meta.count - 1, step));
    s.step = step;
    slider.value = String(step);
    slider.setAttribute('aria-valuetext', `Step ${step} of ${meta.count - 1}`);
    caption.textContent = captionText(step);
    first.disabled = prev.disabled = step === 0;
    next.disabled = last.disabled = step === meta.count - 1;
    const full = s.full;
    try {
      const page = Math.floor(step / meta.chunk);
      const list = await views(page, full);
      if (!scope.alive || s.step !== step || s.full !== full) return; // moved on meanwhile
      const v = list[step - page * meta.chunk];
      screen.dataset.step = String(step);
      screen.dataset.full = String(full);
      showSeats({ v, full });
      showBoard({ v, full });
      const stage = stageText(meta, v);
      caption.textContent = `${captionText(step)}${stage.startsWith('drawing') ? ' · ' : ' — '}${stage}`;
      // The neighbouring page, ahead of the player.
      const ahead = Math.floor(Math.min(meta.count - 1, step + meta.chunk / 2) / meta.chunk);
      if (ahead !== page) views(ahead, full).catch(() => {});
      err.textContent = '';
    } catch (ex) {
      if (scope.alive) err.textContent = ex.message;
    }
  }

  first.addEventListener('click', () => show(0));
  prev.addEventListener('click', () => show(s.step - 1));
  next.addEventListener('click', () => show(s.step + 1));
  last.addEventListener('click', () => show(s.meta.count - 1));
  slider.addEventListener('input', () => show(Number(slider.value)));
  fullBox.addEventListener('change', () => { s.full = fullBox.checked; show(s.step); });
  scope.listen(document, 'keydown', (e) => {
    if (!s.meta || e.altKey || e.ctrlKey || e.metaKey) return;
    const t = e.target;
    if (t === slider || (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable) && t !== fullBox)) return; // the slider steps itself
    const to = { ArrowLeft: s.step - 1, ArrowRight: s.step + 1, Home: 0, End: s.meta.count - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    show(to);
  });

  (async () => {
    try {
      const meta = await api(`/api/replay/${encodeURIComponent(code)}`);
      if (!scope.alive) return;
      s.meta = meta;
      setKind(meta.game);
      document.title = `Replay · ${GAME_NAMES[meta.game]} · ${meta.code} · GameShack`;
      title.textContent = `Replay · ${GAME_NAMES[meta.game]} · ${meta.code}`;
      slider.max = String(meta.count - 1);
      fullBox.disabled = !meta.full;
      screen.classList.add('ready');
      show(0);
    } catch (ex) {
      if (!scope.alive) return;
      err.textContent = ex.status === 404 ? 'There is no game with that code.' : ex.message;
      for (const b of [first, prev, next, last, slider]) b.disabled = true;
      const back = h('button', { type: 'button', class: 'btn primary', id: 'replay-back' }, 'Back to lobby');
      back.addEventListener('click', () => navigate('/'));
      err.after(back);
    }
  })();
  return { dispose: () => scope.dispose() };
}
