// Every move visible: the move log, the marks on what the last turn put down, and the
// movement of cards and tiles. One per table; the table calls `before(prev, st)` when a view
// arrives (before it redraws) and `after(st)` at the end of each redraw. It reads only the
// view the server sent this seat, so it shows nothing the seat may not see: an opponent's
// draw flies as a card back, and only committed events are played back.
import { h } from './dom.js';
import { cardBackEl } from './cards.js';
import { createMoveLog, rummyLines, tilesLines } from './movelog.js';
import { createMotion } from './motion.js';

const rectOf = (el) => (el ? el.getBoundingClientRect() : null);
// A box of `w`×`hgt` centred on `el` (a tile-sized stand-in at the pool's label).
function around(el, w, hgt) {
  const r = rectOf(el);
  return r && { left: r.left + r.width / 2 - w / 2, top: r.top + r.height / 2 - hgt / 2, width: w, height: hgt };
}

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

export function createStory(game, ctx, scope, root, { drawPile }) {
  const log = createMoveLog();
  const motion = createMotion(root, scope);
  let shot = new Map();
  let pending = null; // (st) => plan, built after the redraw
  let changedSets = new Set(); // Tile Rummy: sets (tile ids joined) the last play changed

  const seatRect = (seat) => rectOf(root.querySelector(`.opponents .seat-box[data-seat="${seat}"]`));
  const glideAll = () => [...shot.keys()].map((k) => ({ glide: k }));

  // ---- Rummy ----
  function rummyPlan(prev, st) {
    const fresh = newEvents(prev, st, prev && prev.hand_no === st.hand_no && prev.phase !== 'deal_draw');
    if (fresh === null) return null;
    const me = st.seat;
    const theirs = fresh.filter((e) => e.seat !== me || e.kind === 'reshuffle');
    if (theirs.some((e) => e.seat !== me && e.seat !== null)) {
      return () => theirs.map((e) => {
        const cards = e.cards || [];
        const seat = seatRect(e.seat);
        if (e.kind === 'draw') return [{ ghost: cardBackEl(), from: rectOf(drawPile()), to: seat }];
        if (e.kind === 'take') return cards.map((c) => ({ leave: `c:${c}`, to: seat }));
        if (e.kind === 'meld' || e.kind === 'layoff' || e.kind === 'discard') return cards.map((c) => ({ arrive: `c:${c}`, from: seat }));
        if (e.kind === 'reshuffle') return [{ ghost: cardBackEl(), from: rectOf(root.querySelector('#discard-pile')), to: rectOf(drawPile()) }];
        return [];
      });
    }
    // My own move (or nothing): what moved slides; the card I drew comes from the draw pile.
    return () => {
      const step = glideAll();
      if (st.drawn && !shot.has(`c:${st.drawn}`)) step.push({ arrive: `c:${st.drawn}`, from: rectOf(drawPile()), area: false });
      return [step];
    };
  }

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
  const poolSpot = () => {
    const t = rectOf(root.querySelector('#rack .tile'));
    return around(drawPile(), t ? t.width : 40, t ? t.height : 54);
  };

  // The sets a play by another seat changed: those not on the table before it.
  function tilesChanged(prev, st) {
    const fresh = newEvents(prev, st, prev && prev.round === st.round);
    if (fresh === null) { changedSets = new Set(); return; }
    if (fresh.some((e) => e.kind === 'play' && e.seat !== st.seat)) {
      const was = new Set((prev.table || []).map((s) => setKey(s.tiles)));
      changedSets = new Set(st.table.map((s) => setKey(s.tiles)).filter((k) => !was.has(k)));
    }
  }

  function tilesPlan(prev, st) {
    const fresh = newEvents(prev, st, prev && prev.round === st.round);
    if (fresh === null) return null;
    const me = st.seat;
    if (fresh.some((e) => e.seat !== me)) {
      return () => fresh.filter((e) => e.seat !== me).flatMap((e) => {
        const seat = seatRect(e.seat);
        if (e.kind === 'draw') return [[{ ghost: h('div', { class: 'tile back' }), from: poolSpot(), to: seat }]];
        if (e.kind !== 'play') return [];
        const placed = new Set(e.tiles.map((t) => `t:${t}`));
        // The sets that changed glide into place, then the tiles from the rack fly in.
        return [[...shot.keys()].filter((k) => !placed.has(k)).map((k) => ({ glide: k })), e.tiles.map((t) => ({ arrive: `t:${t}`, from: seat }))];
      });
    }
    return () => {
      const step = glideAll();
      for (const r of st.rack) if (!shot.has(`t:${r.tile}`)) step.push({ arrive: `t:${r.tile}`, from: poolSpot(), area: false });
      return [step];
    };
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

  // What the board draws cards or tiles from: when it is unchanged, nothing moves.
  const shown = game === 'rummy'
    ? (st) => [st.hand_no, st.hand, st.discard, st.melds, st.pending, (st.log || []).length]
    : (st) => [st.round, st.rack, st.table, st.work, (st.log || []).length];
  const plan = game === 'rummy' ? rummyPlan : tilesPlan;
  const marks = game === 'rummy' ? rummyMarks : tilesMarks;
  const lines = game === 'rummy' ? rummyLines : tilesLines;

  return {
    el: log.el,
    // A view arrived (the board has not redrawn yet): remember where everything is.
    before(prev, st) {
      if (game === 'tiles') tilesChanged(prev, st);
      const pile = drawPile();
      if (!pile || !pile.isConnected) { shot = new Map(); pending = null; return; } // not on the table
      // A view that moves nothing (another seat's private step) lets a playback run on.
      if (prev && JSON.stringify(shown(prev)) === JSON.stringify(shown(st))) { pending = null; return; }
      shot = motion.snapshot();
      pending = plan(prev, st);
    },
    // The board has been drawn (after a view, or a local change such as a selection).
    after(st) {
      log.update(lines(st, ctx));
      marks(st);
      if (pending) {
        const build = pending;
        pending = null;
        motion.play(shot, build());
      }
      shot = new Map();
    },
  };
}
