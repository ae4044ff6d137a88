// What both tables draw the same way: the score/turn bar, a seat's head, and who a seat is.
import { h } from './dom.js';
import { signed } from './words.js';

// A seat as the regions show it; `you` marks this device's seat.
export function seatInfo(ctx, seat, me) {
  const p = ctx.player(seat);
  return { seat, name: p.name, emoji: p.emoji, online: !!p.online, you: seat === me };
}

// Data: {race, label, seats: [{seat, emoji, name, you, total}], turn}.
export function drawScorebar(d) {
  return [
    d.race ? h('span', { class: 'race' }, d.race) : null,
    d.label ? h('span', { class: 'muted' }, d.label) : null,
    d.seats.map((p) => h('span', { class: 'score', 'data-seat': p.seat }, `${p.emoji} ${p.you ? 'You' : p.name} `, h('b', {}, signed(p.total)))),
    d.turn ? h('span', { class: 'turn-text' }, d.turn) : null,
  ];
}

export function seatHead(p) {
  return h('div', { class: 'seat-head' },
    h('span', { class: `online-dot${p.online ? ' on' : ''}`, role: 'img', 'aria-label': p.online ? 'online' : 'offline' }),
    h('span', { class: 'emoji', 'aria-hidden': 'true' }, p.emoji),
    h('span', {}, p.name));
}
