// The move log: every public, committed event of the hand (Rummy) or round (Tile Rummy) in
// words, with suit symbols and colours, from the `log` the server puts in every view. A
// collapsible panel; folded, it is a one-line "last move" strip that opens on a tap.
import { h, region } from './dom.js';
import { parseCard, cardLabel, parseTile, tileLabel } from './cards.js';
import { settings, setSetting } from './settings.js';

const SUIT = { S: ['♠', 'black'], H: ['♥', 'red'], D: ['♦', 'red'], C: ['♣', 'black'] };
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
const cap = (t) => t.charAt(0).toUpperCase() + t.slice(1);

// A line is a list of parts: text, or {card} / {tile} drawn as a coloured chip.
function cardPart(code) { return { card: code }; }
function cardsParts(codes) {
  const out = [];
  codes.forEach((c, i) => { if (i) out.push(' '); out.push(cardPart(c)); });
  return out;
}

// Who did it, as the reader knows them: "You" for this device's seat.
function namer(ctx, me) {
  return (seat) => (seat === me ? 'You' : ctx.player(seat).name);
}

// The card left on the discard pile when the draw pile was reshuffled: the event names it if it
// carries cards; otherwise the pile is replayed from the hand's events (deal, take, discard).
function keptTops(log) {
  const kept = new Map(); // event index -> card
  let pile = [];
  log.forEach((e, i) => {
    const cards = e.cards || [];
    if (e.kind === 'deal') pile = [...cards];
    else if (e.kind === 'take') pile = pile.slice(0, Math.max(0, pile.length - cards.length));
    else if (e.kind === 'discard') pile.push(...cards);
    else if (e.kind === 'reshuffle') {
      const top = cards.length ? cards[cards.length - 1] : pile[pile.length - 1];
      if (top) kept.set(i, top);
      pile = top ? [top] : [];
    }
  });
  return kept;
}

// Rummy: one line per event of st.log. `meldOwner(id)`: the seat whose meld it is.
export function rummyLines(st, ctx) {
  const me = st.seat;
  const who = namer(ctx, me);
  const log = st.log || [];
  const kept = keptTops(log);
  const kinds = new Map((st.melds || []).map((m) => [m.id, m.kind === 'set' ? 'set' : 'run']));
  const owners = new Map();
  for (const e of log) if (e.kind === 'meld' && e.meld !== undefined) owners.set(e.meld, e.seat);
  return log.map((e, i) => {
    const cards = e.cards || [];
    const by = who(e.seat);
    let parts;
    switch (e.kind) {
      case 'deal':
        parts = [`Hand ${st.hand_no}: ${by} ${e.seat === me ? 'start' : 'starts'}; `, ...cardsParts(cards), ' turned up'];
        break;
      case 'draw':
        parts = [`${by} drew from the draw pile`];
        break;
      case 'take':
        parts = cards.length === 1
          ? [`${by} took `, cardPart(cards[0]), ' from the discard pile']
          : [`${by} took ${plural(cards.length, 'card')} from the discard pile (`, ...cardsParts(cards), ')'];
        break;
      case 'meld':
        parts = [`${by} melded `, ...cardsParts(cards)];
        break;
      case 'layoff': {
        const owner = owners.get(e.meld);
        const kind = kinds.get(e.meld) || 'meld';
        const whose = owner === undefined ? 'a' : owner === me ? (e.seat === me ? 'your own' : 'your') : owner === e.seat ? 'their own' : `${ctx.player(owner).name}'s`;
        parts = [`${by} laid off `, ...cardsParts(cards), ` on ${whose} ${kind}`];
        break;
      }
      case 'discard':
        parts = [`${by} discarded `, ...cardsParts(cards)];
        break;
      case 'reshuffle':
        parts = kept.has(i)
          ? ['The draw pile was reshuffled (the ', cardPart(kept.get(i)), ' stays on top)']
          : ['The draw pile was reshuffled'];
        break;
      case 'out':
        parts = [`${by} went out!`];
        break;
      case 'stock_exhausted':
        parts = ['Nothing left to draw — no winner this hand'];
        break;
      case 'blocked':
        parts = ['A whole draw pile went by without a meld or lay-off — no winner this hand'];
        break;
      default:
        parts = [cap(e.kind)];
    }
    return { seat: e.seat, kind: e.kind, parts };
  });
}

// Tile Rummy: a line for who starts the round, then one per event.
export function tilesLines(st, ctx) {
  const me = st.seat;
  const who = namer(ctx, me);
  const out = [];
  if (st.starter !== null && st.starter !== undefined) {
    out.push({ seat: st.starter, kind: 'start', parts: [`Round ${st.round}: ${who(st.starter)} ${st.starter === me ? 'start' : 'starts'}`] });
  }
  for (const e of st.log || []) {
    const by = who(e.seat);
    const faces = e.faces || [];
    const tiles = [];
    faces.forEach((f, i) => { if (i) tiles.push(' '); tiles.push({ tile: f }); });
    let parts;
    if (e.kind === 'play') {
      parts = e.meld
        ? [`${by} made the initial meld: `, ...tiles]
        : [`${by} played ${plural(faces.length, 'tile')}: `, ...tiles];
    } else if (e.kind === 'draw') parts = [`${by} drew a tile`];
    else if (e.kind === 'pass') parts = [`${by} passed — the pool is empty`];
    else parts = [`${by}: ${e.kind}`];
    out.push({ seat: e.seat, kind: e.kind, parts });
  }
  return out;
}

function partEl(p) {
  if (typeof p === 'string') return p;
  if (p.card) {
    const { rank, suit } = parseCard(p.card);
    const [glyph, colour] = SUIT[suit] || ['?', 'black'];
    return h('span', { class: `lc ${colour}`, 'data-card': p.card, title: cardLabel(p.card) }, `${rank}${glyph}`);
  }
  const t = parseTile(p.tile);
  return h('span', { class: `lt ${t.joker ? 'joker' : t.colour}`, 'data-face': p.tile, title: tileLabel(p.tile) },
    t.joker ? '☺' : String(t.number), h('span', { class: 'sr-only' }, ` (${tileLabel(p.tile)})`));
}

const lineEl = (line) => h('li', { class: `log-line kind-${line.kind}`, 'data-seat': line.seat ?? '' }, line.parts.map(partEl));

// Open by default on a wide screen, folded to the strip on a phone; a tap remembers the choice
// on this device.
const wide = () => window.matchMedia('(min-width: 860px)').matches;
const isOpen = () => (typeof settings().logOpen === 'boolean' ? settings().logOpen : wide());

export function createMoveLog() {
  // The newest line; a11y.js reads it out as it arrives, with the turn, in one live region.
  const last = h('span', { class: 'log-last', id: 'move-log-last' });
  const toggle = h('button', { type: 'button', class: 'log-toggle', id: 'move-log-toggle', 'aria-controls': 'move-log-list' },
    h('span', { class: 'log-title' }, 'Moves'), last, h('span', { class: 'log-chevron', 'aria-hidden': 'true' }));
  // tabindex: a long list scrolls, and the keyboard must reach it to scroll it.
  const list = h('ol', { class: 'log-list', id: 'move-log-list', 'aria-label': 'Every move this hand', tabindex: 0 });
  const el = h('section', { class: 'movelog', id: 'move-log', 'aria-label': 'Move log' }, toggle, list);
  const paint = () => {
    const open = isOpen();
    el.classList.toggle('open', open);
    toggle.setAttribute('aria-expanded', String(open));
    list.hidden = !open;
    if (open) list.scrollTop = list.scrollHeight;
  };
  toggle.addEventListener('click', () => { setSetting('logOpen', !isOpen()); paint(); });
  const showLast = region(last, (line) => (line ? line.parts.map(partEl) : 'No moves yet'));
  const showList = region(list, (lines) => lines.map(lineEl));
  paint();
  return {
    el,
    update(lines) {
      showLast(lines.length ? lines[lines.length - 1] : null);
      if (showList(lines)) paint();
    },
    paint,
  };
}
