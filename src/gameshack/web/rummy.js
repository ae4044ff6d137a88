// The Rummy table's controller: what this screen knows (one state object), what the player
// can do (actions), and which regions to redraw. The regions themselves are drawn in
// rummy-view.js; each redraws only when the data it shows has changed, so a tap on a card
// repaints that card's selection, not the board. What may be done comes only from the server's
// legal-action list; the client only compares card sets against it.
import { h, region } from './dom.js';
import { parseCard, cardLabel } from './cards.js';
import { settings, onSettings } from './settings.js';
import { play } from './sound.js';
import { drawScorebar, seatInfo } from './board.js';
import { createStory } from './story.js';
import { drawOpponents, drawPiles, drawMelds, drawHand, paintSelection, drawHandHeading, drawActions, drawFirstDeal, drawEnd } from './rummy-view.js';
import { say } from './words.js';

const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 };
const RANK_ORDER = { A: 1, J: 11, Q: 12, K: 13 };
const rankNo = (c) => RANK_ORDER[parseCard(c).rank] || Number(parseCard(c).rank);
const sortKey = (c) => SUIT_ORDER[parseCard(c).suit] * 20 + rankNo(c);
const cap = (t) => t.charAt(0).toUpperCase() + t.slice(1);
const sameSet = (a, b) => a.length === b.length && a.every((x) => b.includes(x));
// hints.js loads with the first hint asked for (the game page's weight budget).
let hints = null;
const loadHints = () => import('./hints.js').then((m) => { hints = m; return m; });
const SOUND = { discard: 'discard', meld: 'meld', layoff: 'meld' };
const cardPoints = (c) => { const r = parseCard(c).rank; return r === 'A' ? 15 : ['K', 'Q', 'J', '10'].includes(r) ? 10 : 5; };

// Parse the legal list once per view into lookups the UI can ask.
function legalIndex(legal) {
  const idx = { draw: false, take: new Set(), discard: new Set(), melds: [], layoffs: [], undo: false, next: false, deal: false };
  for (const a of legal || []) {
    const w = a.split(/\s+/);
    if (w[0] === 'draw') idx.draw = true;
    else if (w[0] === 'take') idx.take.add(w[1]);
    else if (w[0] === 'discard') idx.discard.add(w[1]);
    else if (w[0] === 'meld') idx.melds.push({ cards: w.slice(1), action: a });
    else if (w[0] === 'layoff') idx.layoffs.push({ cards: w.slice(1, -1), meld: Number(w[w.length - 1]), action: a });
    else if (w[0] === 'undo') idx.undo = true;
    else if (w[0] === 'next') idx.next = true;
    else if (w[0] === 'deal') idx.deal = true;
  }
  return idx;
}

// `scope`: this table's lifetime (a child of the game's); dispose() ends it.
export function createRummy(ctx, scope) {
  const s = {
    st: null, // this seat's view of the game (the view message's `state`)
    legal: legalIndex([]),
    order: [], // my hand in my arrangement
    selected: new Set(),
    target: null, // meld chosen for "Lay Off Selected" (prompt setting)
    hint: null, // {cards: Set, discard, take, melds: Set, text}
    busy: false,
    graceDeadline: 0, // when the Undo window of my pending discard closes (performance.now())
    firstDealSeen: sessionStorage.getItem(`gs.fd.${ctx.room.code}`) === '1',
    viewingTable: false, // the hand's result is put aside to look at the table
    mode: null, // what the board shows: 'deal' (first-deal draw) or 'table'
    fanned: false, // the discard pile is spread out so each card can be tapped (phones)
  };
  const shown = { hand: new Set(), top: null }; // what the last draw showed: new cards animate in
  let stopGrace = () => {};
  let stopFirstDeal = null;

  // ---- the board's elements, one per region ----
  const el = h('div', { class: 'board rummy' });
  const opponentsEl = h('div', { class: 'opponents', role: 'group', 'aria-label': 'Opponents' });
  const pilesEl = h('div', { class: 'piles' });
  const meldsEl = h('div', { class: 'melds', id: 'melds', 'data-drop': 'table', role: 'group', 'aria-label': 'Table: melds' });
  const statusEl = h('div', { class: 'status-line', role: 'status' });
  const hintEl = h('div', { class: 'hint-text', id: 'hint-text', role: 'status' });
  const headingEl = h('h2', { id: 'my-hand-h' });
  const handEl = h('div', { class: 'hand', id: 'hand', 'data-drop': 'hand', role: 'group', 'aria-label': 'My hand' });
  const mineEl = h('section', { class: 'me seat-box', 'aria-labelledby': 'my-hand-h' }, headingEl, handEl);
  const actionsEl = h('div', { class: 'actions' });
  const endEl = h('div', { style: { display: 'contents' } });
  const dealEl = h('div', { class: 'center-screen' });
  const story = createStory('rummy', ctx, scope, el, { drawPile: () => document.getElementById('draw-pile') });
  const tableEls = [opponentsEl, story.el, pilesEl, meldsEl, statusEl, hintEl, mineEl, actionsEl, endEl];

  const me = () => s.st.seat;
  const name = (seat) => ctx.player(seat).name;
  const you = (seat) => (seat === me() ? 'You' : name(seat));
  const selection = () => s.order.filter((c) => s.selected.has(c));
  const meldAction = (cards) => s.legal.melds.find((m) => sameSet(m.cards, cards));
  const layoffAction = (cards, meldId) => s.legal.layoffs.find((m) => m.meld === meldId && sameSet(m.cards, cards));

  // ---- actions ----
  async function send(action) {
    if (s.busy) return;
    s.busy = true;
    try {
      await ctx.act(action);
      const verb = action.split(' ')[0];
      play(SOUND[verb] || 'draw');
      if (verb === 'meld' || verb === 'layoff' || verb === 'discard') { s.selected.clear(); s.target = null; }
      s.hint = null;
      render();
    } catch { /* shown by ctx */ } finally { s.busy = false; }
  }
  // An action not in the legal list still goes to the server, which explains why not.
  const tryAct = (action) => ctx.act(action).catch(() => {});
  const meld = (cards) => { const m = meldAction(cards); if (m) send(m.action); else tryAct(`meld ${cards.join(' ')}`); };
  const layoff = (cards, id) => { const m = layoffAction(cards, id); if (m) send(m.action); else tryAct(`layoff ${cards.join(' ')} ${id}`); };
  const discard = (card) => { if (s.legal.discard.has(card)) send(`discard ${card}`); else tryAct(`discard ${card}`); };

  function reorder(card, x) {
    const cards = [...handEl.querySelectorAll('.card')].filter((c) => c.dataset.card !== card);
    let at = cards.length;
    for (let i = 0; i < cards.length; i++) {
      const r = cards[i].getBoundingClientRect();
      if (x < r.left + r.width / 2) { at = i; break; }
    }
    const rest = s.order.filter((c) => c !== card);
    rest.splice(at, 0, card);
    s.order = rest;
    render();
  }

  const act = {
    draw: () => send('draw'),
    take: (card) => send(`take ${card}`),
    deal: () => send('deal'),
    undo: () => send('undo'),
    next: () => send('next'),
    askHint: () => ctx.request({ type: 'hint' }).catch(() => {}),
    newGame: () => ctx.navigate('/'),
    toggle(card) {
      if (s.selected.has(card)) s.selected.delete(card); else s.selected.add(card);
      render();
    },
    shift(card, dir) {
      const i = s.order.indexOf(card);
      const j = i + dir;
      if (j < 0 || j >= s.order.length) return;
      [s.order[i], s.order[j]] = [s.order[j], s.order[i]];
      render();
      handEl.querySelector(`[data-card="${card}"]`).focus();
    },
    sort() { s.order = [...s.order].sort((a, b) => sortKey(a) - sortKey(b)); render(); },
    clearSelection() { s.selected.clear(); s.target = null; render(); },
    // Which cards a drag of `card` carries: the whole selection if the card is in it.
    carried: (card) => (s.selected.has(card) ? selection() : [card]),
    dropCard(card, drop, x) {
      const kind = drop.dataset.drop;
      if (kind === 'discard') discard(card);
      else if (kind === 'meld') layoff(act.carried(card), Number(drop.dataset.meld));
      else if (kind === 'table') meld(act.carried(card));
      else if (kind === 'hand' || kind === 'hand-card') reorder(card, x);
    },
    meldTapped(id) {
      const sel = selection();
      if (!sel.length) return;
      if (settings().meldPrompt) { s.target = s.target === id ? null : id; render(); } else layoff(sel, id);
    },
    meldSelection: () => meld(selection()),
    layoffSelection: () => layoff(selection(), s.target),
    discardTheSelected() { const sel = selection(); if (sel.length === 1) discard(sel[0]); },
    dismissFirstDeal() {
      if (stopFirstDeal) stopFirstDeal();
      s.firstDealSeen = true;
      sessionStorage.setItem(`gs.fd.${ctx.room.code}`, '1');
      render();
    },
    viewTable() { s.viewingTable = true; render(); },
    showScores() { s.viewingTable = false; render(); },
  };

  // A tap on a card the pile covers too much to hit reliably (under 44 px showing) first fans
  // the pile out; the next tap takes. Capture phase: it runs before the card's own handler.
  pilesEl.addEventListener('click', (e) => {
    const card = e.target.closest('#discard-pile button.card');
    // (e.detail 0: Enter or Space on the focused card, which needs no fanning to aim at.)
    if (!card || card.disabled || s.fanned || !card.nextElementSibling || e.detail === 0) return;
    const showing = card.nextElementSibling.getBoundingClientRect().left - card.getBoundingClientRect().left;
    if (showing >= 44) return;
    e.stopPropagation();
    s.fanned = true;
    render();
  }, true);

  // ---- regions ----
  const show = {
    scorebar: region(ctx.scorebar, drawScorebar),
    opponents: region(opponentsEl, drawOpponents),
    piles: region(pilesEl, (d) => {
      const out = drawPiles(d, act, (c) => c !== shown.top);
      shown.top = d.discard.length ? d.discard[d.discard.length - 1].card : null;
      return out;
    }),
    melds: region(meldsEl, (d) => drawMelds(d, act)),
    status: region(statusEl, (text) => text),
    hint: region(hintEl, (d) => hints && hints.drawHint(d, act)),
    heading: region(headingEl, drawHandHeading),
    hand: region(handEl, (d, e) => {
      const out = drawHand(d, act, (c) => shown.hand.size > 0 && !shown.hand.has(c), e);
      shown.hand = new Set(d.cards);
      return out;
    }),
    actions: region(actionsEl, (d) => drawActions(d, act)),
    end: region(endEl, (d) => drawEnd(d, act)),
    firstDeal: region(dealEl, (d) => drawFirstDeal(d, act)),
  };

  function mount(mode) {
    if (s.mode === mode) return;
    s.mode = mode;
    el.replaceChildren(...(mode === 'deal' ? [dealEl] : tableEls));
  }

  // The first-deal result stays up until "Play" or a few seconds, once per match and device.
  function firstDealDone() {
    const st = s.st;
    return !s.firstDealSeen && st.hand_no === 1 && st.first_winner !== null && st.first_draw.every(Boolean)
      && st.phase === 'playing' && !(st.log || []).some((e) => e.kind !== 'deal');
  }

  function render() {
    const st = s.st;
    if (!st) return;
    const turnSeat = (ctx.room.to_act || [])[0];
    show.scorebar({
      race: st.target ? `Race to ${st.target}` : null,
      label: st.hand_no ? `Hand ${st.hand_no}` : null,
      seats: Array.from({ length: st.seats }, (_, seat) => ({ ...seatInfo(ctx, seat, me()), total: st.totals[seat] ?? 0 })),
      turn: st.phase === 'playing' && turnSeat !== undefined ? (turnSeat === me() ? 'Your turn' : `${name(turnSeat)}'s turn`) : null,
    });
    const dealt = st.phase !== 'deal_draw' && firstDealDone();
    if (st.phase === 'deal_draw' || dealt) {
      mount('deal');
      show.firstDeal(firstDealData(dealt));
      if (dealt && !stopFirstDeal) stopFirstDeal = scope.after(act.dismissFirstDeal, 6000);
      return;
    }
    mount('table');
    renderTable();
  }

  function firstDealData(done) {
    const w = s.st.first_winner;
    return {
      canDeal: s.legal.deal,
      done,
      seats: Array.from({ length: s.st.seats }, (_, seat) => ({
        seat, card: s.st.first_draw[seat] || null, winner: w === seat, label: `${ctx.player(seat).emoji} ${you(seat)}`,
      })),
      announce: w !== null && w !== undefined ? `${w === me() ? 'You win' : `${name(w)} wins`} the draw and ${w === me() ? 'go' : 'goes'} first!` : '',
    };
  }

  function renderTable() {
    const { st, legal, hint } = s;
    const toAct = new Set(ctx.room.to_act || []);
    const inTurn = st.phase === 'playing';
    const sel = selection();
    const prompt = settings().meldPrompt;

    const opponents = [];
    for (let k = 1; k < st.seats; k++) {
      const seat = (me() + k) % st.seats;
      opponents.push({ ...seatInfo(ctx, seat, me()), cards: st.counts[seat] ?? 0, played: st.hand_points[seat] ?? 0, toAct: toAct.has(seat), turn: toAct.has(seat) && inTurn });
    }
    show.opponents(opponents);

    show.piles({
      canDraw: legal.draw,
      stock: st.stock,
      discard: st.discard.map((card) => ({ card, canTake: legal.take.has(card), hint: !!hint && hint.take === card, pending: st.pending === card })),
      pending: st.pending || null,
    });

    show.melds(meldsData(sel, prompt));
    show.status(statusText());
    show.hint(hint ? { steps: hint.steps.map((x) => ({ text: x.text, kind: x.kind })), note: hint.steps.length ? '' : hint.text } : null);

    mineEl.classList.toggle('turn', toAct.has(me()) && inTurn);
    // My own counter includes this turn's private melds and lay-offs (values as in the rules).
    const pendingPts = st.melds.flatMap((m) => m.uncommitted || []).reduce((n, c) => n + cardPoints(c), 0);
    show.heading({ cards: s.order.length, played: (st.hand_points[me()] ?? 0) + pendingPts });
    show.hand({ cards: s.order, hint: hint ? [...hint.cards] : [], hintDiscard: hint ? hint.discard : null, mustPlay: st.must_play || null });
    paintSelection(handEl, s.selected);

    const playing = st.stage === 'play';
    show.actions({
      undo: legal.undo ? { grace: st.stage === 'pending', title: st.undo || '' } : null,
      prompt: prompt && sel.length && playing
        ? (s.target === null ? { layoff: false, enabled: !!meldAction(sel) } : { layoff: true, enabled: !!layoffAction(sel, s.target) })
        : null,
      discard: sel.length === 1 && playing ? { card: sel[0], enabled: legal.discard.has(sel[0]) } : null,
      hint: st.stage === 'draw' || playing,
      clear: s.selected.size > 0,
    });
    updateGrace();

    if (hints) hints.paintHint(el, hint ? hintMarks(hint.steps) : []);
    const row = pilesEl.querySelector('#discard-pile');
    if (row) row.classList.toggle('fanned', s.fanned);
    const end = endData();
    if (show.end(end) && end && !end.viewing && end.won) play('win');
    story.after(st);
  }

  function meldsData(sel, prompt) {
    const { st, hint } = s;
    const creators = new Map();
    for (const e of st.log || []) if (e.kind === 'meld' && e.meld !== undefined) creators.set(e.meld, e.seat);
    const groups = new Map();
    for (const m of st.melds) {
      const owner = creators.has(m.id) ? creators.get(m.id) : (m.uncommitted && m.uncommitted.length === m.cards.length ? me() : m.owners[0]);
      if (!groups.has(owner)) groups.set(owner, []);
      groups.get(owner).push(m);
    }
    const fromMe = (seat) => (seat - me() + st.seats) % st.seats;
    return {
      groups: [...groups.keys()].sort((a, b) => fromMe(a) - fromMe(b)).map((owner) => ({
        owner,
        title: owner === me() ? 'Your melds' : `${ctx.player(owner).emoji} ${name(owner)}`,
        melds: groups.get(owner).map((m) => ({
          id: m.id,
          cards: m.cards.map((card, i) => ({ card, by: you(m.owners[i]) })),
          pending: !!(m.uncommitted && m.uncommitted.length),
          target: s.target === m.id,
          hint: !!hint && hint.melds.has(m.id),
        })),
      })),
      laying: sel.length > 0,
      emptyText: st.melds.length ? null : sel.length >= 3 ? 'Drop here to meld the selected cards' : 'Melds go here',
      newMeld: !prompt && sel.length >= 3 && st.stage === 'play' ? { enabled: !!meldAction(sel) } : null,
    };
  }

  function statusText() {
    const st = s.st;
    const turnSeat = (ctx.room.to_act || [])[0];
    if (st.phase !== 'playing') return '';
    if (st.stage === 'draw') return 'Your turn — draw from the draw pile or the discard pile.';
    if (st.stage === 'play') return st.must_play ? `Your turn — you must meld or lay off ${cardLabel(st.must_play)} this turn, then discard.` : 'Meld or lay off if you can, then discard.';
    if (st.stage === 'pending') return 'Discarded — the others see your turn when the Undo window closes.';
    return turnSeat !== undefined ? `${name(turnSeat)} is playing…` : '';
  }

  function endData() {
    const st = s.st;
    if (st.phase !== 'hand_over' && st.phase !== 'match_over') return null;
    const r = st.result;
    const over = st.phase === 'match_over';
    const handNo = r ? r.hand_no : st.hand_no;
    const headline = r && r.winner !== null
      ? `${you(r.winner)} went out${r.one_turn_out ? ' in one turn — score doubled!' : '!'}`
      : 'The draw pile ran out — no winner this hand.';
    const winners = st.match_winners || [];
    const names = winners.map(you);
    const champions = over ? winners : r && r.winner !== null ? [r.winner] : [];
    return {
      over,
      title: over ? 'Game Over' : `Hand ${handNo} over`,
      announce: over ? (winners.length > 1 ? `It's a tie between ${names.join(' and ')}!` : winners[0] === me() ? 'You win the match!' : `${names[0]} wins the match!`) : headline,
      sub: over ? `Hand ${handNo}: ${headline}` : null,
      rows: r ? Array.from({ length: st.seats }, (_, seat) => ({
        label: `${ctx.player(seat).emoji} ${you(seat)}`, crown: champions.includes(seat),
        played: r.played[seat], inHand: r.in_hand[seat], score: r.scores[seat], total: r.totals[seat],
      })) : null,
      totalsLabel: 'Total',
      history: over && st.history && st.history.length > 1
        ? { names: Array.from({ length: st.seats }, (_, seat) => name(seat)), hands: st.history.map((x) => ({ hand_no: x.hand_no, scores: x.scores })) }
        : null,
      next: s.legal.next,
      viewing: s.viewingTable,
      won: !!r && r.winner === me(),
    };
  }

  // The seconds left to undo my discard, written straight into the Undo button's counter.
  function updateGrace() {
    const span = actionsEl.querySelector('.grace-left');
    if (!span || !s.graceDeadline) return;
    span.textContent = ` ${Math.max(0, Math.ceil((s.graceDeadline - performance.now()) / 1000))}s`;
  }

  // ---- the server's messages ----
  function update(m) {
    const before = s.st;
    const st = m.state;
    const fresh = st !== before; // a room message brings the same state with a new room
    s.st = st;
    s.legal = legalIndex(m.legal && m.legal.length ? m.legal : st.legal);
    // Keep my arrangement: cards still held stay where I put them; new ones go at the end.
    const hand = st.hand || [];
    const sameHand = before && before.hand_no === st.hand_no;
    const keep = s.order.filter((c) => hand.includes(c));
    s.order = sameHand ? [...keep, ...hand.filter((c) => !keep.includes(c))] : [...hand];
    if (!sameHand) shown.hand = new Set(s.order);
    for (const c of [...s.selected]) if (!hand.includes(c)) s.selected.delete(c);
    if (s.target !== null && !st.melds.some((x) => x.id === s.target)) s.target = null;
    if (before && (before.stage !== st.stage || before.turn !== st.turn)) { s.hint = null; s.fanned = false; }
    if (before && (before.phase !== st.phase || before.hand_no !== st.hand_no)) s.viewingTable = false;
    if (fresh) {
      stopGrace();
      s.graceDeadline = 0;
      if (m.grace && st.stage === 'pending') {
        s.graceDeadline = performance.now() + m.grace.remaining_ms;
        stopGrace = scope.every(updateGrace, 250);
      }
      story.before(before, st);
    }
    render();
  }

  // The server's hint (gameshack.bots.hint) as numbered steps in words (hints.js), each with its
  // own outline colour on the cards and melds it names.
  function showHint(hn) {
    if (!hn) return;
    if (!hints) { loadHints().then(() => { if (scope.alive) showHint(hn); }); return; }
    const st = s.st;
    const creators = new Map();
    for (const e of st.log || []) if (e.kind === 'meld' && e.meld !== undefined) creators.set(e.meld, e.seat);
    const ownerName = (id) => {
      const m = st.melds.find((x) => x.id === id);
      const seat = creators.has(id) ? creators.get(id) : m ? m.owners[0] : null;
      return seat === null || seat === undefined ? 'the' : seat === me() ? 'your' : `${name(seat)}'s`;
    };
    const steps = hints.rummySteps(hn, { discard: st.discard, melds: st.melds, ownerName });
    s.hint = { cards: new Set(hn.highlight || []), melds: new Set((hn.layoffs || []).map((l) => l.meld)), take: hn.take || null, discard: hn.discard || null, text: say(hn.reason || '', 'rummy'), steps };
    render();
  }
  // [selector, step number, extra class] for paintHint: each meld/lay-off in its own colour; the
  // pickup marked on every card it takes; the discard keeps its own orange mark (drawHand).
  function hintMarks(steps) {
    const marks = [];
    steps.forEach((x, i) => {
      if (x.kind === 'meld' || x.kind === 'layoff') for (const c of x.cards) marks.push([`#hand [data-card="${c}"]`, i + 1]);
      if (x.kind === 'layoff') marks.push([`#melds [data-meld="${x.meld}"]`, i + 1]);
      if (x.kind === 'take') for (const c of x.cards) marks.push([`#discard-pile [data-card="${c}"]`, i + 1, 'hint-take']);
      if (x.kind === 'draw') marks.push(['#draw-pile', i + 1, 'hint-take']);
    });
    return marks;
  }

  scope.add(onSettings(render));
  return { el, update, showHint, dispose: () => scope.dispose() };
}
