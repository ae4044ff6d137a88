// Card and tile movement, played back in steps of STEP_MS over a board that is already drawn
// in its final state: the board takes input at once, the animation only paints over it. Off
// under prefers-reduced-motion or the "Animate moves" setting (instant updates).
//
// A plan is a list of steps; each step a list of moves, played together:
//   {glide: key}            an element present before and after slides from its old place
//   {arrive: key, from}     an element new here flies in from `from` (a seat's rect; with
//                           area: false, the box of a card it was, e.g. the draw pile's)
//   {leave: key, to}        an element gone now (e.g. into a hidden hand) flies off to `to`
//   {ghost: el, from, to}   a stand-in (a card back) flies from `from` to `to`
// Keys name what is shown: 'c:7H' for a face-up card, 't:42' for a tile id.
import { h, reducedMotion } from './dom.js';
import { settings } from './settings.js';

export const STEP_MS = 250;
const MAX_STEPS = 12; // a longer backlog (a reconnect) is shown at once
const ZONES = '#hand, #rack, #discard-pile, #melds, #table-sets';

export const motionOn = () => settings().animations !== false && !reducedMotion();

export function keyOf(el) {
  if (el.dataset.tile !== undefined) return `t:${el.dataset.tile}`;
  return `c:${el.dataset.card}`;
}

const center = (r) => ({ x: r.left + r.width / 2, y: r.top + r.height / 2 });

export function createMotion(root, scope) {
  const layer = h('div', { class: 'motion-layer', 'aria-hidden': 'true' });
  document.body.append(layer);
  let running = []; // Animation objects of the playback now on screen
  let endTimer = () => {};
  let runs = 0;
  root.dataset.motion = 'idle';
  root.dataset.motionRuns = '0';
  root.dataset.motionSteps = '0';

  // Ends the playback now on screen: everything jumps to where it is.
  function stop() {
    for (const a of running) a.cancel();
    running = [];
    endTimer();
    layer.replaceChildren();
    root.dataset.motion = 'idle';
  }
  scope.add(() => { stop(); layer.remove(); });

  // The region a card or tile lies in, and where that region is: a glide leaves out what only
  // moved with its region (a line of text above it wrapped), so the page does not bounce.
  const zoneAt = (el) => {
    const z = el.closest(ZONES);
    return z ? { id: z.id, rect: z.getBoundingClientRect() } : null;
  };

  // Where every card and tile is now (call just before the board redraws).
  function snapshot() {
    stop();
    const shot = new Map();
    if (!motionOn() || !root.isConnected) return shot;
    for (const el of root.querySelectorAll('.card.face[data-card], .tile[data-tile]')) {
      const r = el.getBoundingClientRect();
      if (r.width) shot.set(keyOf(el), { el, rect: r, zone: zoneAt(el) });
    }
    return shot;
  }

  function current() {
    const now = new Map();
    for (const el of root.querySelectorAll('.card.face[data-card], .tile[data-tile]')) now.set(keyOf(el), el);
    return now;
  }

  // A copy of `el` fixed over the page at `rect`, in the layer.
  function float(el, rect) {
    const c = el.cloneNode(true);
    c.removeAttribute('id');
    c.classList.remove('selected', 'enter', 'hint', 'just-played');
    Object.assign(c.style, { position: 'fixed', left: `${rect.left}px`, top: `${rect.top}px`, width: `${rect.width}px`, height: `${rect.height}px`, margin: '0' });
    c.style.setProperty('--cw', `${rect.width}px`);
    c.style.setProperty('--tw', `${rect.width}px`);
    layer.append(c);
    return c;
  }

  // From `from` to where `el` is drawn, starting after `delay`; hidden until it starts.
  // `area`: `from` is a region (a seat), not a card's own box: start small from its middle.
  function flyIn(el, from, delay, area = false) {
    const to = el.getBoundingClientRect();
    if (!to.width) return;
    const a = center(from);
    const b = center(to);
    const scale = area ? 0.6 : Math.min(2, Math.max(0.5, from.width / to.width));
    running.push(el.animate([
      { transform: `translate(${a.x - b.x}px, ${a.y - b.y}px) scale(${scale})`, opacity: delay ? 0 : 1, zIndex: 30, offset: 0 },
      { transform: `translate(${a.x - b.x}px, ${a.y - b.y}px) scale(${scale})`, opacity: 1, zIndex: 30, offset: 0.01 },
      { transform: 'none', opacity: 1, zIndex: 30 },
    ], { duration: STEP_MS, delay, easing: 'ease-out', fill: 'backwards' }));
  }

  // A floating copy from `from` to `to`, fading as it lands; shown in place until it starts.
  function flyOff(el, from, to, delay, fadeIn = false) {
    const c = float(el, from);
    const a = center(from);
    const b = center(to);
    const scale = from.width ? Math.max(0.5, Math.min(1, to.width / from.width)) : 1;
    const anim = c.animate([
      { transform: 'none', opacity: fadeIn ? 0 : 1 },
      { transform: 'none', opacity: 1, offset: 0.01 },
      { transform: `translate(${b.x - a.x}px, ${b.y - a.y}px) scale(${scale})`, opacity: 0.15 },
    ], { duration: STEP_MS, delay, easing: 'ease-in', fill: 'both' });
    anim.onfinish = () => c.remove();
    running.push(anim);
  }

  // Play `plan` over the freshly drawn board; `before` is snapshot()'s map. Returns the number
  // of steps played (0: nothing to show, or motion is off).
  function play(before, plan) {
    if (!motionOn() || !root.isConnected) return 0;
    const now = current();
    // Each move that shows something becomes a thunk of its step's delay; empty steps go.
    const steps = plan.map((step) => step.map((m) => {
      if (m.glide !== undefined) {
        const was = before.get(m.glide);
        const el = now.get(m.glide);
        if (!was || !el) return null;
        const r = el.getBoundingClientRect();
        const zone = zoneAt(el);
        let from = was.rect;
        if (zone && was.zone && zone.id === was.zone.id) {
          const dx = zone.rect.left - was.zone.rect.left;
          const dy = zone.rect.top - was.zone.rect.top;
          from = { left: from.left + dx, top: from.top + dy, width: from.width, height: from.height };
        }
        if (Math.abs(r.left - from.left) < 3 && Math.abs(r.top - from.top) < 3) return null;
        return (delay) => flyIn(el, from, delay);
      }
      if (m.arrive !== undefined) {
        const el = now.get(m.arrive);
        return el && m.from ? (delay) => flyIn(el, m.from, delay, m.area !== false) : null;
      }
      if (m.leave !== undefined) {
        const was = before.get(m.leave);
        return was && m.to ? (delay) => flyOff(was.el, was.rect, m.to, delay) : null;
      }
      return m.ghost && m.from && m.to ? (delay) => flyOff(m.ghost, m.from, m.to, delay, delay > 0) : null;
    }).filter(Boolean)).filter((step) => step.length);
    if (!steps.length || steps.length > MAX_STEPS) return 0;
    steps.forEach((step, i) => { for (const go of step) go(i * STEP_MS); });
    runs++;
    root.dataset.motion = 'playing';
    root.dataset.motionRuns = String(runs);
    root.dataset.motionSteps = String(steps.length);
    endTimer = scope.after(() => { running = []; layer.replaceChildren(); root.dataset.motion = 'idle'; }, steps.length * STEP_MS + 30);
    return steps.length;
  }

  return { snapshot, play, stop };
}
