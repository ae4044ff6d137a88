// Screen readers and keyboards, the part that loads with the page (kept small): one polite live
// region that reads out whose turn it is and each new line of the move log, and the loader of
// keys.js (shortcuts, arrow keys, focus kept across redraws) on the first key press.
const live = document.createElement('div');
live.id = 'announcer';
live.className = 'sr-only';
live.setAttribute('role', 'status');
live.setAttribute('aria-live', 'polite');
document.body.append(live);

let said = '';
// Read `text` out politely; the same text twice is still read (a trailing space differs).
export function announce(text) {
  if (!text) return;
  said = said === text ? `${text} ` : text;
  live.textContent = said;
}

// The newest move and the turn, as the table shows them: read when either changes.
let lastMove = null;
let lastTurn = null;
// Text as spoken: a card or tile chip (movelog.js) by its name ("7 of hearts"), not "7♥".
const spoken = (n) => (n.nodeType === 3 ? n.data : n.title || n.getAttribute('aria-label') || [...n.childNodes].map(spoken).join(''));
const text = (sel) => { const e = document.querySelector(sel); return e ? spoken(e).trim() : ''; };
function watch() {
  const move = text('#move-log-last');
  const turn = text('#scorebar .turn-text');
  const parts = [];
  if (move !== lastMove && lastMove !== null && move && move !== 'No moves yet') parts.push(move);
  if (turn !== lastTurn && turn) parts.push(turn);
  lastMove = move;
  lastTurn = turn;
  if (parts.length) announce(parts.join('. '));
}
new MutationObserver(watch).observe(document.getElementById('app'), { childList: true, subtree: true, characterData: true });

// keys.js loads with the first key press; that key is handled once it has loaded.
let keys = null;
document.addEventListener('keydown', (e) => {
  if (keys) { keys.onKey(e); return; }
  import('./keys.js').then((m) => { if (!keys) { keys = m; m.start(); } m.onKey(e, true); });
});
