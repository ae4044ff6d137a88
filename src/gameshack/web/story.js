// Every move visible: the move log and the marks on what the last turn put down. One per
// table; the table calls `before(prev, st)` when a view arrives (before it redraws) and
// `after(st)` at the end of each redraw. It reads only the view the server sent this seat.
import { createMoveLog, rummyLines, tilesLines } from './movelog.js';

// The log's events that arrived since `prev` (same hand or round), or null if it restarted.
function newEvents(prev, st, sameDeal) {
  if (!prev || !sameDeal) return null;
  const a = prev.log || [];
  const b = st.log || [];
  return b.length >= a.length ? b.slice(a.length) : null;
}

// The events of the last committed turn when another seat played it; [] otherwise.
function lastTurnOfOthers(log, me) {
  let end = -1;
  for (let i = log.length - 1; i >= 0; i--) if (log[i].kind === 'discard') { end = i; break; }
  if (end < 0 || log[end].seat === me) return [];
  let start = end;
  while (start > 0 && log[start - 1].kind !== 'discard' && log[start - 1].kind !== 'deal') start--;
  return log.slice(start, end + 1);
}

export function createStory(game, ctx, scope, root) {
  const log = createMoveLog();
  let changedSets = new Set(); // Tile Rummy: sets (tile ids joined) the last play changed

  // ---- Rummy ----
  function rummyMarks(st) {
    const turn = st.phase === 'playing' && (st.stage === 'play' || st.stage === 'pending') ? [] : lastTurnOfOthers(st.log || [], st.seat);
    const melds = new Set();
    const cards = new Set();
    let top = null;
    for (const e of turn) {
      if (e.kind === 'meld') melds.add(e.meld);
      else if (e.kind === 'layoff') for (const c of e.cards || []) cards.add(c);
      else if (e.kind === 'discard') top = (e.cards || [])[0];
    }
    for (const el of root.querySelectorAll('.just-played')) el.classList.remove('just-played');
    for (const id of melds) root.querySelector(`#melds .meld[data-meld="${id}"]`)?.classList.add('just-played');
    for (const c of cards) root.querySelector(`#melds [data-card="${c}"]`)?.classList.add('just-played');
    const pile = root.querySelectorAll('#discard-pile [data-card]');
    const last = pile[pile.length - 1];
    if (top && last && last.dataset.card === top) last.classList.add('just-played');
  }

  // ---- Tile Rummy ----
  const setKey = (tiles) => tiles.join(',');

  // The sets a play by another seat changed: those not on the table before it.
  function tilesChanged(prev, st) {
    const fresh = newEvents(prev, st, prev && prev.round === st.round);
    if (fresh === null) { changedSets = new Set(); return; }
    if (fresh.some((e) => e.kind === 'play' && e.seat !== st.seat)) {
      const was = new Set((prev.table || []).map((s) => setKey(s.tiles)));
      changedSets = new Set(st.table.map((s) => setKey(s.tiles)).filter((k) => !was.has(k)));
    }
  }

  function tilesMarks(st) {
    const log = st.log || [];
    const e = log[log.length - 1];
    const on = e && e.kind === 'play' && e.seat !== st.seat && !st.work;
    const placed = new Set(on ? e.tiles.map(String) : []);
    for (const el of root.querySelectorAll('.just-played, .just-changed')) el.classList.remove('just-played', 'just-changed');
    if (!on) return;
    for (const set of root.querySelectorAll('#table-sets .tset')) {
      const ids = [...set.querySelectorAll('[data-tile]')].map((t) => t.dataset.tile);
      let changed = changedSets.has(ids.join(','));
      for (const t of set.querySelectorAll('[data-tile]')) {
        if (placed.has(t.dataset.tile)) { t.classList.add('just-played'); changed = true; }
      }
      set.classList.toggle('just-changed', changed);
    }
  }

  const marks = game === 'rummy' ? rummyMarks : tilesMarks;
  const lines = game === 'rummy' ? rummyLines : tilesLines;

  return {
    el: log.el,
    // A view arrived (the board has not redrawn yet).
    before(prev, st) {
      if (game === 'tiles') tilesChanged(prev, st);
    },
    // The board has been drawn (after a view, or a local change such as a selection).
    after(st) {
      log.update(lines(st, ctx));
      marks(st);
    },
  };
}
