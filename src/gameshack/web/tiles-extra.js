// Tile Rummy pieces beside the table: the pool as a face-down stack one taps to draw, and the
// line that says who starts the round and why.
import { h } from './dom.js';
import { tileName } from './words.js';

// Data: {n, canDraw}. "Tap the pool to draw one tile" (the seed): the stack is the control.
export function drawPool(d, act) {
  const label = d.canDraw
    ? (d.n ? `Pool, ${d.n} tiles: tap to draw one tile (ends your turn)` : 'Pool is empty: tap to pass')
    : `Pool, ${d.n} tiles`;
  const b = h('button', { type: 'button', class: `pool-stack${d.n ? '' : ' empty'}`, id: 'pool', disabled: !d.canDraw, 'aria-label': label, title: label },
    h('span', { class: 'pool-backs', 'aria-hidden': 'true' }, h('span', { class: 'tile-back' }), h('span', { class: 'tile-back' }), h('span', { class: 'tile-back' })),
    h('span', { class: 'pool-count', 'aria-hidden': 'true' }, String(d.n)));
  b.addEventListener('click', () => { if (d.canDraw) act.draw(); });
  return [b, h('span', { class: 'pile-label' }, d.canDraw ? (d.n ? 'Pool · tap to draw' : 'Pool empty · tap to pass') : 'Pool')];
}

// Who starts this round, and why. `st`: the view's state; `who(seat)`: "You" or a name.
export function starterText(st, who) {
  if (st.round > 1) return `${who(st.starter)} ${st.starter === st.seat ? 'start' : 'starts'} round ${st.round}: the next player after last round's starter.`;
  const sd = st.start_draw;
  if (!sd || !sd.rounds || !sd.rounds.length) return `${who(st.starter)} ${st.starter === st.seat ? 'start' : 'starts'}.`;
  const last = sd.rounds[sd.rounds.length - 1];
  const mine = last.find((x) => x.seat === sd.starter);
  const drew = last.map((x) => `${who(x.seat)} ${tileName(x.face)}`).join(', ');
  const again = sd.rounds.length > 1 ? ` (after ${sd.rounds.length - 1} redraw${sd.rounds.length > 2 ? 's' : ''}: a joker or a tie)` : '';
  return `${who(sd.starter)} ${sd.starter === st.seat ? 'start' : 'starts'}: ${mine ? tileName(mine.face) : 'their tile'} was the highest tile drawn${again} (${drew}).`;
}
