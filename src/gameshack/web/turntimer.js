// The turn timer's countdown (issue 33), loaded by game.js only for a game that has one. It
// shows the room's `clock` (the same for every seat): the seat to move and its deadline in the
// server's epoch ms, or, while that seat is offline, the time it has left and how long the
// server waits for it. The server alone decides when the time is up.
import { h } from './dom.js';

const CSS = `.turn-timer{display:inline-flex;align-items:center;gap:4px;padding:3px 10px;border-radius:999px;background:rgba(0,0,0,.45);color:#fff;font-weight:700;font-variant-numeric:tabular-nums;white-space:nowrap;font-size:.9rem}
.turn-timer[hidden]{display:none}
.turn-timer.mine{box-shadow:0 0 0 2px var(--gold,#f5c542) inset}
.turn-timer.low{background:#b3261e}
.turn-timer.paused{background:rgba(0,0,0,.3);font-weight:600}
.turn-timer .who{max-width:7em;overflow:hidden;text-overflow:ellipsis;font-weight:600}`;

const mmss = (ms) => {
  const t = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, '0')}`;
};

// `player(seat)` names a seat; `skew()` is the server's clock minus this one (ms).
export function createTurnTimer(scope, { player, skew }) {
  if (!document.getElementById('turn-timer-css')) {
    document.head.append(h('style', { id: 'turn-timer-css' }, CSS));
  }
  const time = h('span', { class: 'time' });
  const who = h('span', { class: 'who' });
  const el = h('div', { class: 'turn-timer', id: 'turn-timer', role: 'timer', hidden: true }, '⏱', time, who);
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
      text = mmss(c.left_ms);
      label = `${name} ${mine ? 'are' : 'is'} offline: the turn timer is paused at ${text}; the turn ends in ${mmss(c.until - now)} unless ${mine ? 'you come' : 'they come'} back`;
      who.textContent = `${name} · away ${mmss(c.until - now)}`;
    } else {
      const left = c.deadline - now;
      text = mmss(left);
      label = `${mine ? 'Your' : `${name}'s`} turn: ${text} left`;
      who.textContent = name;
      el.classList.toggle('low', left <= 10_000);
    }
    if (c.paused) el.classList.remove('low');
    el.classList.toggle('paused', !!c.paused);
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
      clock = room.status === 'active' ? room.clock : null;
      you = room.you;
      draw();
    },
  };
}
