// The Rummy table's regions. Each draw function turns the plain data the controller
// (rummy.js) derives for one region into elements, and wires them to the controller's
// actions (`act`); none of them keeps state of its own.
import { h } from './dom.js';
import { cardEl, cardBackEl, cardLabel, parseCard } from './cards.js';
import { draggable } from './drag.js';
import { seatHead } from './board.js';
import { signed } from './words.js';

const SUIT_GLYPH = { S: '♠', H: '♥', D: '♦', C: '♣' };
const toHand = (d) => d.dataset.drop === 'hand' || d.dataset.drop === 'hand-card';
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

// Opponents, from the seat after mine so the order reads clockwise.
// Data: [{seat, name, emoji, online, cards, played, turn, toAct}].
export function drawOpponents(seats) {
  return seats.map((p) => h('div', { class: `seat-box${p.turn ? ' turn' : ''}`, 'data-seat': p.seat, role: 'group', 'aria-label': `${p.name}: ${p.cards} cards${p.toAct ? ', their turn' : ''}` },
    seatHead(p),
    h('div', { class: 'fan', 'aria-hidden': 'true' }, Array.from({ length: Math.min(p.cards, 13) }, () => cardBackEl())),
    h('div', { class: 'count' }, `${plural(p.cards, 'card')} · ${p.played} played`)));
}

// The draw pile and the spread discard pile (bottom first).
// Data: {canDraw, stock, discard: [{card, canTake, hint, pending}], pending}; `isNewTop(card)`: animate it in.
export function drawPiles(d, act, isNewTop) {
  const dn = d.discard.length;
  const drawBtn = h('button', { type: 'button', class: 'draw-pile', id: 'draw-pile', disabled: !d.canDraw, 'aria-label': `Draw pile, ${d.stock} cards` }, cardBackEl());
  drawBtn.addEventListener('click', () => { if (d.canDraw) act.draw(); });
  draggable(drawBtn, { enabled: () => d.canDraw, ghost: () => cardBackEl(), onDrop: (drop) => { if (toHand(drop)) act.draw(); } });
  const row = h('div', { class: 'discard-row', id: 'discard-pile', 'data-drop': 'discard', role: 'group', 'aria-label': `Discard pile, ${plural(dn, 'card')}` });
  d.discard.forEach(({ card, canTake, hint, pending }, i) => {
    const n = dn - i;
    const label = n === 1 ? `Take ${cardLabel(card)} from the discard pile` : `Take ${cardLabel(card)} and the ${n - 1} card${n > 2 ? 's' : ''} above it`;
    const b = cardEl(card, { tag: 'button', cls: `${i === dn - 1 && isNewTop(card) ? 'enter' : ''} ${hint ? 'hint' : ''} ${pending ? 'hint-discard' : ''}`, attrs: { disabled: !canTake, 'aria-label': canTake ? label : cardLabel(card), title: canTake ? label : '' } });
    b.addEventListener('click', () => { if (canTake) act.take(card); });
    draggable(b, { enabled: () => canTake, ghost: () => h('div', { style: { display: 'flex' } }, d.discard.slice(i).map((x) => cardEl(x.card))), onDrop: (drop) => { if (toHand(drop)) act.take(card); } });
    row.append(b);
  });
  if (d.pending) {
    // My pending discard: on the pile for me only until the grace window closes.
    row.append(cardEl(d.pending, { cls: 'hint-discard enter', attrs: { 'aria-label': `${cardLabel(d.pending)} (discarded — Undo still possible)`, 'data-pending': 'true' } }));
  }
  // A tap on the pile itself (not on a card) discards the one selected card.
  row.addEventListener('click', (e) => { if (e.target === row) act.discardTheSelected(); });
  return [
    h('div', { class: 'pile' }, drawBtn, h('span', { class: 'pile-label' }, `Draw · ${d.stock}`)),
    h('div', { class: 'pile' }, row, h('span', { class: 'pile-label' }, 'Discard pile')),
  ];
}

// Melds grouped by the seat that put them down.
// Data: {groups: [{owner, title, melds: [{id, cards: [{card, by}], pending, target, hint}]}],
//        laying, emptyText, newMeld: null | {enabled}}.
export function drawMelds(d, act) {
  const out = d.groups.map((g) => h('div', { class: 'meld-group', 'data-owner': g.owner }, h('h3', {}, g.title),
    h('div', { class: 'meld-row', role: 'group', 'aria-label': g.title }, g.melds.map((m) => {
      const mb = h('div', { class: `meld${m.pending ? ' pending' : ''}${m.target ? ' target' : ''}${m.hint ? ' hint' : ''}`, role: 'button', tabindex: 0, 'data-drop': 'meld', 'data-meld': m.id, 'aria-label': `Meld ${m.cards.map((c) => cardLabel(c.card)).join(', ')}${d.laying ? ' — lay off selected cards here' : ''}` },
        m.cards.map((c) => cardEl(c.card, { attrs: { title: `played by ${c.by}` } })));
      mb.addEventListener('click', (e) => { e.stopPropagation(); act.meldTapped(m.id); });
      mb.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); act.meldTapped(m.id); } });
      return mb;
    }))));
  if (d.emptyText) out.push(h('p', { class: 'empty-hint' }, d.emptyText));
  if (d.newMeld) {
    const nm = h('button', { type: 'button', class: 'new-set', id: 'new-meld', disabled: !d.newMeld.enabled }, '+ New meld');
    nm.addEventListener('click', (e) => { e.stopPropagation(); act.meldSelection(); });
    out.push(nm);
  }
  return out;
}

// My hand in my arrangement. Data: {cards, hint, hintDiscard, mustPlay}; `isNew(card)`: animate
// it in. The selection is not drawn here but painted on by paintSelection, so a tap on a card
// touches only that card's state.
export function drawHand(d, act, isNew, el) {
  el.style.setProperty('--n', String(Math.max(d.cards.length, 2)));
  const hint = new Set(d.hint);
  return d.cards.map((card) => {
    const cls = [hint.has(card) ? 'hint' : '', d.hintDiscard === card ? 'hint-discard' : '', isNew(card) ? 'enter' : '', d.mustPlay === card ? 'hint' : ''].join(' ');
    const b = cardEl(card, { tag: 'button', cls, attrs: { 'aria-pressed': 'false', 'data-drop': 'hand-card' } });
    b.addEventListener('click', () => act.toggle(card));
    b.addEventListener('keydown', (e) => {
      if (!e.shiftKey || (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight')) return;
      e.preventDefault();
      act.shift(card, e.key === 'ArrowLeft' ? -1 : 1);
    });
    draggable(b, {
      ghost: () => h('div', { style: { display: 'flex' } }, act.carried(card).map((c) => cardEl(c))),
      onDrop: (drop, e) => act.dropCard(card, drop, e.clientX),
    });
    return b;
  });
}

export function paintSelection(handEl, selected) {
  for (const b of handEl.children) {
    const on = selected.has(b.dataset.card);
    b.classList.toggle('selected', on);
    b.setAttribute('aria-pressed', String(on));
  }
}

export function drawHandHeading(d) {
  return ['My hand', h('span', { class: 'count' }, `${plural(d.cards, 'card')} · ${d.played} played`)];
}

// The buttons under the hand. Data: {undo: null | {grace, title}, prompt: null | {layoff,
// enabled}, discard: null | {card, enabled}, hint, clear}.
export function drawActions(d, act) {
  const out = [];
  if (d.undo) {
    const undo = h('button', { type: 'button', class: `btn${d.undo.grace ? ' undo-grace' : ''}`, id: 'undo', title: d.undo.title || 'Undo', 'aria-label': d.undo.title ? `Undo: ${d.undo.title}` : 'Undo' }, '↺ Undo', d.undo.grace ? h('span', { class: 'grace-left' }) : null);
    undo.addEventListener('click', act.undo);
    out.push(undo);
  }
  if (d.prompt) {
    const b = d.prompt.layoff
      ? h('button', { type: 'button', class: 'btn primary', id: 'layoff-selected', disabled: !d.prompt.enabled }, 'Lay Off Selected')
      : h('button', { type: 'button', class: 'btn primary', id: 'meld-selected', disabled: !d.prompt.enabled }, 'Meld Selected');
    b.addEventListener('click', d.prompt.layoff ? act.layoffSelection : act.meldSelection);
    out.push(b);
  }
  if (d.discard) {
    const { rank, suit } = parseCard(d.discard.card);
    const b = h('button', { type: 'button', class: 'btn', id: 'discard-selected', disabled: !d.discard.enabled }, `Discard ${rank}${SUIT_GLYPH[suit]}`);
    b.addEventListener('click', act.discardTheSelected);
    out.push(b);
  }
  const hintBtn = h('button', { type: 'button', class: 'btn ghost', id: 'hint', disabled: !d.hint }, '💡 Hint');
  hintBtn.addEventListener('click', act.askHint);
  const sortBtn = h('button', { type: 'button', class: 'btn ghost', id: 'sort' }, 'Sort');
  sortBtn.addEventListener('click', act.sort);
  out.push(hintBtn, sortBtn);
  if (d.clear) {
    const b = h('button', { type: 'button', class: 'btn ghost', id: 'clear-selection' }, 'Clear');
    b.addEventListener('click', act.clearSelection);
    out.push(b);
  }
  return out;
}

// Drawing for first deal. Data: {canDeal, done, seats: [{seat, card, winner, label}], announce}.
export function drawFirstDeal(d, act) {
  const deck = h('button', { type: 'button', class: 'deck-btn', id: 'deal-deck', disabled: !d.canDeal, 'aria-label': d.canDeal ? 'Tap the deck to draw your card' : 'Deck' }, cardBackEl());
  deck.addEventListener('click', () => { if (d.canDeal) act.deal(); });
  const seats = h('div', { class: 'draw-grid' }, d.seats.map((s) => h('div', { class: `draw-seat${s.winner ? ' winner' : ''}`, 'data-seat': s.seat },
    s.card ? cardEl(s.card, { cls: 'enter' }) : cardBackEl({ cls: 'dim' }), h('span', {}, s.label))));
  const parts = [h('h2', {}, 'Drawing for First Deal'),
    h('p', {}, d.canDeal ? 'Tap the deck to draw your card.' : d.done ? 'Everyone has drawn.' : 'Waiting for everyone to draw…'),
    deck, seats, h('div', { class: 'announce', role: 'status' }, d.announce)];
  if (d.done) {
    const go = h('button', { type: 'button', class: 'btn primary', id: 'first-deal-continue' }, 'Play');
    go.addEventListener('click', act.dismissFirstDeal);
    parts.push(go);
  }
  return h('div', { class: 'panel center-card' }, parts);
}

// Hand over / Game Over. Data: null, or {over, title, announce, sub, rows: [{label, crown,
// played, inHand, score, total}], totalsLabel, history: null | {names, hands: [{hand_no,
// scores}]}, next, viewing}; `viewing`: the panel is put aside to look at the table.
export function drawEnd(d, act) {
  if (!d) return null;
  if (d.viewing) {
    const back = h('button', { type: 'button', class: 'btn primary', id: 'show-scores' }, d.over ? 'Game Over — scores' : 'Scores');
    back.addEventListener('click', act.showScores);
    return h('div', { class: 'actions' }, back);
  }
  const panel = h('div', { class: 'panel', id: d.over ? 'game-over' : 'hand-over', role: 'dialog', 'aria-labelledby': 'end-h' },
    h('h2', { id: 'end-h' }, d.title), h('p', { class: 'announce' }, d.announce), d.sub ? h('p', { class: 'muted' }, d.sub) : null);
  if (d.rows) {
    panel.append(h('table', { class: 'score-table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Player'), h('th', {}, 'Played'), h('th', {}, 'In hand'), h('th', {}, 'Hand'), h('th', {}, d.totalsLabel))),
      h('tbody', {}, d.rows.map((r) => h('tr', { class: r.crown ? 'winner' : '' },
        h('td', {}, `${r.label}${r.crown ? ' 🏆' : ''}`),
        h('td', {}, r.played), h('td', {}, r.inHand ? `−${r.inHand}` : '0'),
        h('td', {}, h('b', {}, signed(r.score))), h('td', {}, signed(r.total)))))));
  }
  if (d.history) {
    panel.append(h('details', {}, h('summary', {}, 'Every hand'),
      h('table', { class: 'score-table' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Hand'), d.history.names.map((n) => h('th', {}, n)))),
        h('tbody', {}, d.history.hands.map((x) => h('tr', {}, h('td', {}, x.hand_no), x.scores.map((v) => h('td', {}, signed(v)))))))));
  }
  const btns = h('div', { class: 'row', style: { justifyContent: 'center' } });
  if (d.next) {
    const nb = h('button', { type: 'button', class: 'btn primary', id: 'next-hand' }, 'Next Hand');
    nb.addEventListener('click', act.next);
    btns.append(nb);
  }
  if (d.over) {
    const ng = h('button', { type: 'button', class: 'btn primary', id: 'new-game' }, 'New Game');
    ng.addEventListener('click', act.newGame);
    btns.append(ng);
  }
  const look = h('button', { type: 'button', class: 'btn ghost', id: 'view-table' }, 'View table');
  look.addEventListener('click', act.viewTable);
  btns.append(look);
  panel.append(btns);
  return h('div', { class: 'end-overlay' }, panel);
}
