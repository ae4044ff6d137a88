// Playing from the keyboard (loaded by a11y.js on the first key press). Every control on the
// tables is already a button, so Tab and Enter/Space reach everything; this adds:
// - shortcuts (listed in shortcuts.js, shown in the Rules dialog), each pressing the same
//   button a tap would, so the keyboard can do exactly what the screen offers and no more;
// - arrow keys to move within a row (hand, discard pile, melds, rack, the table's tiles and gaps);
// - focus kept in place when the region holding it is redrawn (after a move, a new view).

const BOARD = '#app .board';
const enabled = (b) => b && !b.disabled && b.getClientRects().length > 0;
const all = (sel) => [...document.querySelectorAll(sel)].filter(enabled);
const press = (...sels) => {
  for (const s of sels) { const b = document.querySelector(s); if (enabled(b)) { b.click(); return true; } }
  return false;
};
const focus = (b) => { if (b) { b.focus(); b.scrollIntoView({ block: 'nearest', inline: 'nearest' }); } return !!b; };
const first = (sel) => focus(all(sel)[0]);
const last = (sel) => { const l = all(sel); return focus(l[l.length - 1]); };
const kind = () => { const b = document.querySelector(BOARD); return b ? (b.classList.contains('tiles') ? 'tiles' : 'rummy') : null; };

// The rows arrow keys move within: [container, the controls in it].
const ROWS = [
  ['#hand', 'button.card'],
  ['#discard-pile', 'button.card'],
  ['#melds', '.meld, #new-meld'],
  ['#rack', 'button.tile'],
  ['#table-sets', 'button.tile, button.gap, #new-set'],
  ['.end-overlay, .center-card, .actions', 'button'],
];

// Key -> what it does, per table. Letters are case-insensitive; `shift` marks Shift+letter.
const RUMMY = {
  d: () => press('#draw-pile', '#deal-deck'),
  t: () => last('#discard-pile button.card'),
  m: () => press('#meld-selected', '#new-meld'),
  l: () => press('#layoff-selected') || first('#melds .meld'),
  x: () => press('#discard-selected'),
  u: () => press('#undo'),
  h: () => press('#hint'),
  s: () => press('#sort'),
  y: () => first('#hand button.card'),
  escape: () => press('#clear-selection'),
};
const TILES = {
  d: () => press('#draw', '#pool'),
  g: () => first('#table-sets .gap') || first('#table-sets button.tile'),
  n: () => press('#new-set'),
  c: () => press('#confirm'),
  r: () => press('#reset'),
  h: () => press('#hint'),
  s: () => press('#sort-colour'),
  'shift+s': () => press('#sort-number'),
  y: () => first('#rack button.tile'),
  escape: () => press('#return-rack') || press('#rack button.tile.picked'),
};
const BOTH = {
  enter: () => press('#next-hand', '#next-round', '#first-deal-continue'),
};

const typing = (t) => t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));

function arrow(e) {
  const dir = e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? -1 : e.key === 'ArrowRight' || e.key === 'ArrowDown' ? 1 : 0;
  if (!dir || !document.activeElement) return false;
  for (const [box, items] of ROWS) {
    const row = document.activeElement.closest(box);
    if (!row) continue;
    const list = [...row.querySelectorAll(items)].filter(enabled);
    const i = list.indexOf(document.activeElement);
    if (i < 0) continue;
    return focus(list[Math.min(list.length - 1, Math.max(0, i + dir))]);
  }
  return false;
}

// `late`: the key that loaded this module; its default (if any) has already happened.
export function onKey(e, late = false) {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
  if (document.querySelector('dialog[open]')) return; // a dialog has its own keys
  if (e.key === '?') { e.preventDefault(); document.getElementById('btn-rules').click(); return; }
  const k = kind();
  if (!k) return;
  if (arrow(e)) { e.preventDefault(); return; }
  const name = (e.shiftKey && e.key.length === 1 ? 'shift+' : '') + e.key.toLowerCase();
  // Enter on a focused control is that control's own; only Enter elsewhere goes to BOTH.
  if (name === 'enter' && (late || (document.activeElement && document.activeElement.closest('button, [role=button], a')))) return;
  const fn = (k === 'tiles' ? TILES : RUMMY)[name] || BOTH[name];
  if (fn && fn() !== undefined) e.preventDefault();
}

// Focus kept across redraws: a region's redraw replaces its elements, and the focused one goes
// with them. Put focus on its successor (same card, tile, meld, gap or button), else on the
// first control of the same row, else on the hand or rack.
let was = null; // the element that last had focus, and selectors to find its successor
const keyOf = (el) => {
  for (const a of ['id', 'data-card', 'data-tile', 'data-meld']) {
    const v = el.getAttribute(a);
    if (v !== null && v !== '') return a === 'id' ? `#${CSS.escape(v)}` : `[${a}="${CSS.escape(v)}"]`;
  }
  if (el.classList.contains('gap')) return `.gap[data-set="${el.dataset.set}"][data-pos="${el.dataset.pos}"]`;
  return null;
};
function remember(e) {
  const el = e.target;
  if (!(el instanceof Element) || !el.closest(BOARD)) { was = null; return; }
  const row = ROWS.find(([box]) => el.closest(box));
  const box = row && el.closest(row[0]);
  // The row by its id (#hand, #rack, …), so its controls can be found again after a redraw.
  const inRow = box && box.id ? row[1].split(',').map((x) => `#${box.id} ${x.trim()}`).join(', ') : null;
  was = { el, key: keyOf(el), inRow, sameInRow: box && box.id && keyOf(el) ? `#${box.id} ${keyOf(el)}` : null };
}
const focusable = (b) => enabled(b) && b.matches('button, [tabindex]');
function restore() {
  if (!was || was.el.isConnected) return;
  const a = document.activeElement;
  if (a && a !== document.body && a.id !== 'app') return;
  for (const sel of [was.sameInRow, was.key, was.inRow, '#hand button.card, #rack button.tile, #first-deal-continue, #deal-deck']) {
    const b = sel && [...document.querySelectorAll(sel)].find(focusable);
    if (b) { focus(b); return; }
  }
}
// A hand's or round's end panel takes focus when it opens, as a dialog does.
let panel = null;
function endPanel() {
  const p = document.querySelector('.end-overlay [role=dialog]');
  if (p && p !== panel && !p.contains(document.activeElement)) first('.end-overlay [role=dialog] button');
  panel = p;
}

export function start() {
  document.addEventListener('focusin', remember);
  new MutationObserver(() => queueMicrotask(() => { endPanel(); restore(); })).observe(document.getElementById('app'), { childList: true, subtree: true });
}
