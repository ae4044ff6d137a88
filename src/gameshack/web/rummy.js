// The Rummy table: opponents, draw and discard piles, melds by owner, my hand, and the
// first-deal draw, hand-over and Game Over screens. What may be done comes only from the
// server's legal-action list; the client only compares card sets against it.
import { h, clear } from './dom.js';
import { cardEl, cardBackEl, cardLabel, parseCard } from './cards.js';
import { draggable } from './drag.js';
import { settings, onSettings } from './settings.js';
import { play } from './sound.js';

const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 };
const RANK_ORDER = { A: 1, J: 11, Q: 12, K: 13 };
const rankNo = (c) => RANK_ORDER[parseCard(c).rank] || Number(parseCard(c).rank);
const sortKey = (c) => SUIT_ORDER[parseCard(c).suit] * 20 + rankNo(c);
const cap = (t) => t.charAt(0).toUpperCase() + t.slice(1);
const sameSet = (a, b) => a.length === b.length && a.every((x) => b.includes(x));

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

export function createRummy(ctx) {
  const el = h('div', { class: 'board rummy' });
  let msg = null;
  let st = null;
  let legal = legalIndex([]);
  let handOrder = [];
  let prevHand = new Set();
  let prevDiscardTop = null;
  const selected = new Set();
  let target = null; // meld id chosen for "Lay Off Selected" (prompt setting)
  let hint = null; // {cards:Set, discard, melds:Set, text}
  let graceTimer = 0;
  let graceDeadline = 0;
  let firstDealSeen = sessionStorage.getItem(`gs.fd.${ctx.room.code}`) === '1';
  let busy = false;

  const me = () => st.seat;
  const send = async (action) => {
    if (busy) return;
    busy = true;
    try {
      await ctx.act(action);
      const verb = action.split(' ')[0];
      play(verb === 'discard' ? 'discard' : verb === 'meld' || verb === 'layoff' ? 'meld' : verb === 'draw' || verb === 'take' ? 'draw' : 'draw');
      if (verb === 'meld' || verb === 'layoff' || verb === 'discard') { selected.clear(); target = null; }
      hint = null;
    } catch { /* shown by ctx */ } finally { busy = false; }
  };

  const meldAction = (cards) => legal.melds.find((m) => sameSet(m.cards, cards));
  const layoffAction = (cards, meldId) => legal.layoffs.find((m) => m.meld === meldId && sameSet(m.cards, cards));

  function doMeld(cards) {
    const m = meldAction(cards);
    if (m) send(m.action);
    else ctx.act(`meld ${cards.join(' ')}`).catch(() => {}); // the server explains why not
  }
  function doLayoff(cards, meldId) {
    const m = layoffAction(cards, meldId);
    if (m) send(m.action);
    else ctx.act(`layoff ${cards.join(' ')} ${meldId}`).catch(() => {});
  }
  function doDiscard(card) {
    if (legal.discard.has(card)) send(`discard ${card}`);
    else ctx.act(`discard ${card}`).catch(() => {});
  }

  // Which cards a drag of `card` carries: the whole selection if the card is in it.
  const carried = (card) => (selected.has(card) ? handOrder.filter((c) => selected.has(c)) : [card]);

  function handCard(card) {
    const cls = [selected.has(card) ? 'selected' : '', hint && hint.cards.has(card) ? 'hint' : '', hint && hint.discard === card ? 'hint-discard' : '', !prevHand.has(card) && prevHand.size ? 'enter' : '', st.must_play === card ? 'hint' : ''].join(' ');
    const b = cardEl(card, { tag: 'button', cls, attrs: { 'aria-pressed': String(selected.has(card)), 'data-drop': 'hand-card' } });
    b.addEventListener('click', () => {
      if (selected.has(card)) selected.delete(card); else selected.add(card);
      renderTable();
      const again = el.querySelector(`.hand [data-card="${card}"]`);
      if (again) again.focus();
    });
    b.addEventListener('keydown', (e) => {
      if (!e.shiftKey || (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight')) return;
      e.preventDefault();
      const i = handOrder.indexOf(card);
      const j = e.key === 'ArrowLeft' ? i - 1 : i + 1;
      if (j < 0 || j >= handOrder.length) return;
      [handOrder[i], handOrder[j]] = [handOrder[j], handOrder[i]];
      renderTable();
      el.querySelector(`.hand [data-card="${card}"]`).focus();
    });
    draggable(b, {
      ghost: () => h('div', { style: { display: 'flex' } }, carried(card).map((c) => cardEl(c))),
      onDrop: (drop, e) => {
        const kind = drop.dataset.drop;
        const cards = carried(card);
        if (kind === 'discard') doDiscard(card);
        else if (kind === 'meld') doLayoff(cards, Number(drop.dataset.meld));
        else if (kind === 'table') doMeld(cards);
        else if (kind === 'hand' || kind === 'hand-card') reorder(card, e.clientX);
      },
    });
    return b;
  }

  function reorder(card, x) {
    const cards = [...el.querySelectorAll('.hand .card')].filter((c) => c.dataset.card !== card);
    let idx = cards.length;
    for (let i = 0; i < cards.length; i++) {
      const r = cards[i].getBoundingClientRect();
      if (x < r.left + r.width / 2) { idx = i; break; }
    }
    const rest = handOrder.filter((c) => c !== card);
    rest.splice(idx, 0, card);
    handOrder = rest;
    renderTable();
  }

  function seatName(seat) {
    const p = ctx.player(seat);
    return seat === me() ? 'You' : p.name;
  }

  function meldCreators() {
    const out = new Map();
    for (const e of st.log || []) if (e.kind === 'meld' && e.meld !== undefined) out.set(e.meld, e.seat);
    return out;
  }

  function renderScore() {
    const sb = ctx.scorebar;
    clear(sb);
    const turnSeat = (ctx.room.to_act || [])[0];
    if (st.target) sb.append(h('span', { class: 'race' }, `Race to ${st.target}`));
    if (st.hand_no) sb.append(h('span', { class: 'muted' }, `Hand ${st.hand_no}`));
    for (let s = 0; s < st.seats; s++) {
      const p = ctx.player(s);
      sb.append(h('span', { class: 'score', 'data-seat': s }, `${p.emoji} ${s === me() ? 'You' : p.name} `, h('b', {}, st.totals[s] ?? 0)));
    }
    if (st.phase === 'playing' && turnSeat !== undefined) {
      sb.append(h('span', { class: 'turn-text' }, turnSeat === me() ? 'Your turn' : `${ctx.player(turnSeat).name}'s turn`));
    }
  }

  function seatHead(seat) {
    const p = ctx.player(seat);
    return h('div', { class: 'seat-head' },
      h('span', { class: `online-dot${p.online ? ' on' : ''}`, role: 'img', 'aria-label': p.online ? 'online' : 'offline' }),
      h('span', { class: 'emoji', 'aria-hidden': 'true' }, p.emoji),
      h('span', {}, seat === me() ? `${p.name} (you)` : p.name));
  }

  function statusText() {
    const turnSeat = (ctx.room.to_act || [])[0];
    if (st.phase !== 'playing') return '';
    if (st.stage === 'draw') return 'Your turn — draw from the draw pile or the discard pile.';
    if (st.stage === 'play') return st.must_play ? `Your turn — you must meld or lay off ${cardLabel(st.must_play)} this turn, then discard.` : 'Meld or lay off if you can, then discard.';
    if (st.stage === 'pending') return 'Discarded — the others see your turn when the Undo window closes.';
    return turnSeat !== undefined ? `${ctx.player(turnSeat).name} is playing…` : '';
  }

  function renderTable() {
    clear(el);
    const toAct = new Set(ctx.room.to_act || []);
    const inTurn = st.phase === 'playing';
    // Opponents, starting with the seat after mine so the order reads clockwise.
    const opp = h('div', { class: 'opponents', 'aria-label': 'Opponents' });
    for (let k = 1; k < st.seats; k++) {
      const s = (me() + k) % st.seats;
      const n = st.counts[s] ?? 0;
      opp.append(h('div', { class: `seat-box${toAct.has(s) && inTurn ? ' turn' : ''}`, 'data-seat': s, 'aria-label': `${ctx.player(s).name}: ${n} cards${toAct.has(s) ? ', their turn' : ''}` },
        seatHead(s),
        h('div', { class: 'fan', 'aria-hidden': 'true' }, Array.from({ length: Math.min(n, 13) }, () => cardBackEl())),
        h('div', { class: 'count' }, `${n} card${n === 1 ? '' : 's'} · ${st.hand_points[s] ?? 0} played`)));
    }

    // Draw pile and the spread discard pile.
    const drawBtn = h('button', { type: 'button', class: 'draw-pile', id: 'draw-pile', disabled: !legal.draw, 'aria-label': `Draw pile, ${st.stock} cards` }, cardBackEl());
    drawBtn.addEventListener('click', () => { if (legal.draw) send('draw'); });
    draggable(drawBtn, { enabled: () => legal.draw, ghost: () => cardBackEl(), onDrop: (d) => { if (d.dataset.drop === 'hand' || d.dataset.drop === 'hand-card') send('draw'); } });
    const discardRow = h('div', { class: 'discard-row', id: 'discard-pile', 'data-drop': 'discard', 'aria-label': 'Discard pile' });
    const dn = st.discard.length;
    st.discard.forEach((c, i) => {
      const canTake = legal.take.has(c);
      const n = dn - i;
      const label = n === 1 ? `Take ${cardLabel(c)} from the discard pile` : `Take ${cardLabel(c)} and the ${n - 1} card${n > 2 ? 's' : ''} above it`;
      const isHint = hint && hint.take === c;
      const b = cardEl(c, { tag: 'button', cls: `${i === dn - 1 && c !== prevDiscardTop ? 'enter' : ''} ${isHint ? 'hint' : ''} ${st.pending === c ? 'hint-discard' : ''}`, attrs: { disabled: !canTake, 'aria-label': canTake ? label : cardLabel(c), title: canTake ? label : '' } });
      b.addEventListener('click', () => { if (canTake) send(`take ${c}`); });
      draggable(b, { enabled: () => canTake, ghost: () => h('div', { style: { display: 'flex' } }, st.discard.slice(i).map((x) => cardEl(x))), onDrop: (d) => { if (d.dataset.drop === 'hand' || d.dataset.drop === 'hand-card') send(`take ${c}`); } });
      discardRow.append(b);
    });
    if (st.pending) {
      // My pending discard: on the pile for me only until the grace window closes.
      discardRow.append(cardEl(st.pending, { cls: 'hint-discard enter', attrs: { 'aria-label': `${cardLabel(st.pending)} (discarded — Undo still possible)`, 'data-pending': 'true' } }));
    }
    discardRow.addEventListener('click', (e) => {
      // Tap on the pile (not on a card) with one selected card: discard it.
      if (e.target === discardRow && selected.size === 1) doDiscard([...selected][0]);
    });
    const piles = h('div', { class: 'piles' },
      h('div', { class: 'pile' }, drawBtn, h('span', { class: 'pile-label' }, `Draw · ${st.stock}`)),
      h('div', { class: 'pile' }, discardRow, h('span', { class: 'pile-label' }, 'Discard pile')));

    // Melds grouped by the seat that put them down.
    const creators = meldCreators();
    const groups = new Map();
    for (const m of st.melds) {
      const owner = creators.has(m.id) ? creators.get(m.id) : (m.uncommitted && m.uncommitted.length === m.cards.length ? me() : m.owners[0]);
      if (!groups.has(owner)) groups.set(owner, []);
      groups.get(owner).push(m);
    }
    const sel = handOrder.filter((c) => selected.has(c));
    const table = h('div', { class: 'melds', id: 'melds', 'data-drop': 'table', 'aria-label': 'Table: melds' });
    const order = [...groups.keys()].sort((a, b) => ((a - me() + st.seats) % st.seats) - ((b - me() + st.seats) % st.seats));
    for (const owner of order) {
      const row = h('div', { class: 'meld-row' });
      for (const m of groups.get(owner)) {
        const pendingCards = new Set(m.uncommitted || []);
        const isHint = hint && hint.melds.has(m.id);
        const mb = h('div', { class: `meld${pendingCards.size ? ' pending' : ''}${target === m.id ? ' target' : ''}${isHint ? ' hint' : ''}`, role: 'button', tabindex: 0, 'data-drop': 'meld', 'data-meld': m.id, 'aria-label': `Meld ${m.cards.map(cardLabel).join(', ')}${sel.length ? ' — lay off selected cards here' : ''}` },
          m.cards.map((c, i) => cardEl(c, { attrs: { title: `played by ${seatName(m.owners[i])}` } })));
        const activate = () => {
          if (!sel.length) return;
          if (settings().meldPrompt) { target = target === m.id ? null : m.id; renderTable(); } else doLayoff(sel, m.id);
        };
        mb.addEventListener('click', (e) => { e.stopPropagation(); activate(); });
        mb.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); activate(); } });
        row.append(mb);
      }
      table.append(h('div', { class: 'meld-group', 'data-owner': owner }, h('h3', {}, owner === me() ? 'Your melds' : `${ctx.player(owner).emoji} ${ctx.player(owner).name}`), row));
    }
    if (!st.melds.length) table.append(h('p', { class: 'empty-hint' }, sel.length >= 3 ? 'Drop here to meld the selected cards' : 'Melds go here'));
    if (!settings().meldPrompt && sel.length >= 3 && st.stage === 'play') {
      const nm = h('button', { type: 'button', class: 'new-set', id: 'new-meld', disabled: !meldAction(sel) }, '+ New meld');
      nm.addEventListener('click', (e) => { e.stopPropagation(); doMeld(sel); });
      table.append(nm);
    }

    const status = h('div', { class: 'status-line', role: 'status' }, statusText());
    const hintLine = h('div', { class: 'hint-text', id: 'hint-text', role: 'status' }, hint ? hint.text : '');

    // My hand.
    const myBox = h('section', { class: `me seat-box${toAct.has(me()) && inTurn ? ' turn' : ''}`, 'aria-labelledby': 'my-hand-h' },
      h('h2', { id: 'my-hand-h' }, 'My hand', h('span', { class: 'count' }, `${handOrder.length} card${handOrder.length === 1 ? '' : 's'} · ${st.hand_points[me()] ?? 0} played`)),
      h('div', { class: 'hand', id: 'hand', 'data-drop': 'hand', 'aria-label': 'My hand', style: { '--n': String(Math.max(handOrder.length, 2)) } }, handOrder.map(handCard)));

    // Buttons.
    const actions = h('div', { class: 'actions' });
    if (legal.undo) {
      const grace = st.stage === 'pending';
      const undo = h('button', { type: 'button', class: `btn${grace ? ' undo-grace' : ''}`, id: 'undo', title: st.undo || 'Undo', 'aria-label': st.undo ? `Undo: ${st.undo}` : 'Undo' }, '↺ Undo', grace ? h('span', { class: 'grace-left' }) : null);
      undo.addEventListener('click', () => send('undo'));
      actions.append(undo);
    }
    if (settings().meldPrompt && sel.length && st.stage === 'play') {
      if (target === null) {
        const mbtn = h('button', { type: 'button', class: 'btn primary', id: 'meld-selected', disabled: !meldAction(sel) }, 'Meld Selected');
        mbtn.addEventListener('click', () => doMeld(sel));
        actions.append(mbtn);
      } else {
        const lbtn = h('button', { type: 'button', class: 'btn primary', id: 'layoff-selected', disabled: !layoffAction(sel, target) }, 'Lay Off Selected');
        lbtn.addEventListener('click', () => doLayoff(sel, target));
        actions.append(lbtn);
      }
    }
    if (sel.length === 1 && st.stage === 'play') {
      const dbtn = h('button', { type: 'button', class: 'btn', id: 'discard-selected', disabled: !legal.discard.has(sel[0]) }, `Discard ${parseCard(sel[0]).rank}${({ S: '♠', H: '♥', D: '♦', C: '♣' })[parseCard(sel[0]).suit]}`);
      dbtn.addEventListener('click', () => doDiscard(sel[0]));
      actions.append(dbtn);
    }
    const hintBtn = h('button', { type: 'button', class: 'btn ghost', id: 'hint', disabled: !(st.stage === 'draw' || st.stage === 'play') }, '💡 Hint');
    hintBtn.addEventListener('click', () => ctx.request({ type: 'hint' }).catch(() => {}));
    const sortBtn = h('button', { type: 'button', class: 'btn ghost', id: 'sort' }, 'Sort');
    sortBtn.addEventListener('click', () => { handOrder = [...handOrder].sort((a, b) => sortKey(a) - sortKey(b)); renderTable(); });
    actions.append(hintBtn, sortBtn);
    if (selected.size) {
      const clearBtn = h('button', { type: 'button', class: 'btn ghost', id: 'clear-selection' }, 'Clear');
      clearBtn.addEventListener('click', () => { selected.clear(); target = null; renderTable(); });
      actions.append(clearBtn);
    }

    el.append(opp, piles, table, status, hintLine, myBox, actions);
    updateGrace();
    prevHand = new Set(handOrder);
    prevDiscardTop = st.discard[dn - 1] || null;
  }

  function updateGrace() {
    const span = el.querySelector('.grace-left');
    if (!span || !graceDeadline) return;
    const left = Math.max(0, Math.ceil((graceDeadline - performance.now()) / 1000));
    span.textContent = ` ${left}s`;
  }

  function renderFirstDeal(done) {
    clear(el);
    const deck = h('button', { type: 'button', class: 'deck-btn', id: 'deal-deck', disabled: !legal.deal, 'aria-label': legal.deal ? 'Tap the deck to draw your card' : 'Deck' }, cardBackEl());
    deck.addEventListener('click', () => { if (legal.deal) send('deal'); });
    const seats = h('div', { class: 'draw-grid' });
    for (let s = 0; s < st.seats; s++) {
      const c = st.first_draw[s];
      seats.append(h('div', { class: `draw-seat${st.first_winner === s ? ' winner' : ''}`, 'data-seat': s },
        c ? cardEl(c, { cls: 'enter' }) : cardBackEl({ cls: 'dim' }),
        h('span', {}, `${ctx.player(s).emoji} ${s === me() ? 'You' : ctx.player(s).name}`)));
    }
    const w = st.first_winner;
    const announce = h('div', { class: 'announce', role: 'status' }, w !== null && w !== undefined ? `${w === me() ? 'You win' : `${ctx.player(w).name} wins`} the draw and ${w === me() ? 'go' : 'goes'} first!` : '');
    const parts = [h('h2', {}, 'Drawing for First Deal'),
      h('p', {}, legal.deal ? 'Tap the deck to draw your card.' : done ? 'Everyone has drawn.' : 'Waiting for everyone to draw…'), deck, seats, announce];
    if (done) {
      const go = h('button', { type: 'button', class: 'btn primary', id: 'first-deal-continue' }, 'Play');
      go.addEventListener('click', dismissFirstDeal);
      parts.push(go);
    }
    el.append(h('div', { class: 'center-screen' }, h('div', { class: 'panel center-card' }, parts)));
  }

  let fdTimer = 0;
  function dismissFirstDeal() {
    firstDealSeen = true;
    sessionStorage.setItem(`gs.fd.${ctx.room.code}`, '1');
    clearTimeout(fdTimer);
    render();
  }

  // `champions`: the seats to crown — the hand's winner, or at Game Over the match winner(s).
  function scoreTable(result, champions, totalsLabel = 'Total') {
    const rows = [];
    for (let s = 0; s < st.seats; s++) {
      const crown = champions.includes(s);
      rows.push(h('tr', { class: crown ? 'winner' : '' },
        h('td', {}, `${ctx.player(s).emoji} ${s === me() ? 'You' : ctx.player(s).name}${crown ? ' 🏆' : ''}`),
        h('td', {}, result.played[s]), h('td', {}, result.in_hand[s] ? `−${result.in_hand[s]}` : '0'),
        h('td', {}, h('b', {}, result.scores[s])), h('td', {}, result.totals[s])));
    }
    return h('table', { class: 'score-table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Player'), h('th', {}, 'Played'), h('th', {}, 'In hand'), h('th', {}, 'Hand'), h('th', {}, totalsLabel))),
      h('tbody', {}, rows));
  }

  function renderEnd() {
    const r = st.result;
    const over = st.phase === 'match_over';
    const panel = h('div', { class: 'panel', id: over ? 'game-over' : 'hand-over', role: 'dialog', 'aria-labelledby': 'end-h' });
    let headline;
    if (r && r.winner !== null) headline = `${r.winner === me() ? 'You' : ctx.player(r.winner).name} went out${r.one_turn_out ? ' in one turn — score doubled!' : '!'}`;
    else headline = 'The draw pile ran out — no winner this hand.';
    if (over) {
      const ws = st.match_winners || [];
      const names = ws.map((s) => (s === me() ? 'You' : ctx.player(s).name));
      panel.append(h('h2', { id: 'end-h' }, 'Game Over'),
        h('p', { class: 'announce' }, ws.length > 1 ? `It's a tie between ${names.join(' and ')}!` : ws[0] === me() ? 'You win the match!' : `${names[0]} wins the match!`),
        h('p', { class: 'muted' }, `Hand ${r ? r.hand_no : st.hand_no}: ${headline}`));
    } else {
      panel.append(h('h2', { id: 'end-h' }, `Hand ${r ? r.hand_no : st.hand_no} over`), h('p', { class: 'announce' }, headline));
    }
    if (r) panel.append(scoreTable(r, over ? (st.match_winners || []) : r.winner !== null ? [r.winner] : []));
    if (over && st.history && st.history.length > 1) {
      panel.append(h('details', {}, h('summary', {}, 'Every hand'),
        h('table', { class: 'score-table' },
          h('thead', {}, h('tr', {}, h('th', {}, 'Hand'), Array.from({ length: st.seats }, (_, s) => h('th', {}, ctx.player(s).name)))),
          h('tbody', {}, st.history.map((x) => h('tr', {}, h('td', {}, x.hand_no), x.scores.map((v) => h('td', {}, v))))))));
    }
    const btns = h('div', { class: 'row', style: { justifyContent: 'center' } });
    if (legal.next) {
      const nb = h('button', { type: 'button', class: 'btn primary', id: 'next-hand' }, 'Next Hand');
      nb.addEventListener('click', () => send('next'));
      btns.append(nb);
    }
    if (over) {
      const ng = h('button', { type: 'button', class: 'btn primary', id: 'new-game' }, 'New Game');
      ng.addEventListener('click', () => { history.pushState(null, '', '/'); dispatchEvent(new PopStateEvent('popstate')); });
      btns.append(ng);
    }
    const look = h('button', { type: 'button', class: 'btn ghost', id: 'view-table' }, 'View table');
    look.addEventListener('click', () => {
      overlay.hidden = true;
      const back = h('button', { type: 'button', class: 'btn primary', id: 'show-scores' }, over ? 'Game Over — scores' : 'Scores');
      back.addEventListener('click', () => { overlay.hidden = false; back.remove(); });
      el.append(h('div', { class: 'actions' }, back));
    });
    btns.append(look);
    panel.append(btns);
    const overlay = h('div', { class: 'end-overlay' }, panel);
    el.append(overlay);
    if (r && r.winner === me()) play('win');
  }

  function render() {
    if (st.phase === 'deal_draw') { renderScore(); renderFirstDeal(false); return; }
    if (!firstDealSeen && st.hand_no === 1 && st.first_winner !== null && st.first_draw.every(Boolean) && st.phase === 'playing' && !(st.log || []).some((e) => e.kind !== 'deal')) {
      renderScore();
      renderFirstDeal(true);
      clearTimeout(fdTimer);
      fdTimer = setTimeout(dismissFirstDeal, 6000);
      return;
    }
    renderScore();
    renderTable();
    if (st.phase === 'hand_over' || st.phase === 'match_over') renderEnd();
  }

  function update(m) {
    msg = m;
    const before = st;
    st = m.state;
    legal = legalIndex(m.legal && m.legal.length ? m.legal : st.legal);
    // Keep my arrangement: cards still held stay where I put them; new ones go at the end.
    const hand = st.hand || [];
    const keep = handOrder.filter((c) => hand.includes(c));
    const added = hand.filter((c) => !keep.includes(c));
    handOrder = before && before.hand_no === st.hand_no ? [...keep, ...added] : [...hand];
    if (!before || before.hand_no !== st.hand_no) prevHand = new Set(handOrder);
    for (const c of [...selected]) if (!hand.includes(c)) selected.delete(c);
    if (target !== null && !st.melds.some((x) => x.id === target)) target = null;
    if (before && (before.stage !== st.stage || before.turn !== st.turn)) hint = null;
    clearInterval(graceTimer);
    graceDeadline = 0;
    if (m.grace && st.stage === 'pending') {
      graceDeadline = performance.now() + m.grace.remaining_ms;
      graceTimer = setInterval(updateGrace, 250);
    }
    render();
  }

  // The server's hint (gameshack.bots.hint): gold outlines on the cards and melds it names.
  function showHint(hn) {
    if (!hn) return;
    const melds = new Set((hn.layoffs || []).map((l) => l.meld));
    const cards = new Set(hn.highlight || []);
    hint = { cards, melds, take: hn.take || null, discard: hn.discard || null, text: cap(hn.reason || '') };
    renderTable();
  }

  const off = onSettings(() => { if (st) render(); });
  return { el, update, showHint, destroy() { clearInterval(graceTimer); clearTimeout(fdTimer); off(); }, get msg() { return msg; } };
}
