// The turn timer's countdown (issue 33), loaded by game.js only for a game that has one. It
// shows the room's `clock` (the same for every seat): the seat to move and its deadline in the
// server's epoch ms, or, while that seat is offline, the time it has left and how long the
// server waits for it. The server alone decides when the time is up.
import { h, toast } from './dom.js';

const mmss = (ms) => {
  const t = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, '0')}`;
};

// `player(seat)` names a seat; `skew()` is the server's clock minus this one (ms).
export function createTurnTimer(scope, { player, skew }) {
  if (!document.getElementById('turn-timer-css')) {
    document.head.append(h('link', { rel: 'stylesheet', id: 'turn-timer-css', href: new URL('./turntimer.css', import.meta.url).href }));
  }
  const time = h('span', { class: 'time' });
  const who = h('span', { class: 'who' });
  const icon = h('span', { 'aria-hidden': 'true' });
  const el = h('div', { class: 'turn-timer', id: 'turn-timer', role: 'timer', hidden: true }, icon, time, who);
  let clock = null;
  let you = null;

  const draw = () => {
    const c = clock;
    el.hidden = !c || c.seat === null || c.seat === undefined;
    if (el.hidden) return;
    const mine = c.seat === you;
    const name = mine ? 'You' : player(c.seat).name;
    const now = Date.now() + skew();
    let text;
    let label;
    if (c.paused) {
      // Away: the pill counts down what is waited for; the turn's own time is in the label.
      text = mmss(c.until - now);
      label = `${name} ${mine ? 'are' : 'is'} offline: the turn timer is paused at ${mmss(c.left_ms)}; the turn ends in ${text} unless ${mine ? 'you come' : 'they come'} back`;
      who.textContent = name;
    } else {
      const left = c.deadline - now;
      text = mmss(left);
      label = `${mine ? 'Your' : `${name}'s`} turn: ${text} left`;
      who.textContent = name;
      el.classList.toggle('low', left <= 10_000);
    }
    if (c.paused) el.classList.remove('low');
    el.classList.toggle('paused', !!c.paused);
    icon.textContent = c.paused ? '⏸' : '⏱';
    el.classList.toggle('mine', mine);
    el.dataset.seat = String(c.seat);
    time.textContent = text;
    el.setAttribute('aria-label', label);
    el.title = label;
  };
  scope.every(draw, 250);

  return {
    el,
    update(room) {
      const was = clock;
      clock = room.status === 'active' ? room.clock : null;
      you = room.you;
      // My turn ended as my time ran out: say why the server played it.
      if (was && was.seat === you && was.deadline && (!clock || clock.seat !== you || clock.deadline !== was.deadline)
        && Date.now() + skew() >= was.deadline - 250) {
        toast(room.game === 'tiles' ? 'Time\'s up: your tiles went back and you drew one.' : 'Time\'s up: your turn was undone; you drew and discarded that card.', 5000);
      }
      draw();
    },
  };
}
