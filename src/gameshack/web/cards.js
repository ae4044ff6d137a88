// Cards and tiles drawn with CSS and text glyphs: they scale with font-size, so they stay
// crisp at any size and need no image downloads.
import { h } from './dom.js';

const SUITS = { S: ['♠', 'spades', 'black'], H: ['♥', 'hearts', 'red'], D: ['♦', 'diamonds', 'red'], C: ['♣', 'clubs', 'black'] };
const RANK_NAMES = { A: 'Ace', K: 'King', Q: 'Queen', J: 'Jack' };

export function parseCard(code) {
  const c = String(code).toUpperCase();
  return { rank: c.slice(0, -1), suit: c.slice(-1) };
}

export function cardLabel(code) {
  const { rank, suit } = parseCard(code);
  return `${RANK_NAMES[rank] || rank} of ${SUITS[suit] ? SUITS[suit][1] : suit}`;
}

// A face-up card. `tag` is 'button' for cards the player can act on.
export function cardEl(code, { tag = 'div', cls = '', attrs = {} } = {}) {
  const { rank, suit } = parseCard(code);
  const [glyph, , colour] = SUITS[suit] || ['?', '', 'black'];
  return h(tag, { class: `card face ${colour} ${cls}`, 'data-card': code, 'aria-label': cardLabel(code), ...(tag === 'button' ? { type: 'button' } : { role: 'img' }), ...attrs },
    // The corners are drawn by CSS (the face is a picture whose name is "7 of hearts"), so a
    // speech user's "Jack of spades" matches the whole name (WCAG 2.5.3, label in name).
    h('span', { class: 'corner tl', 'aria-hidden': 'true' }, h('b', { 'data-t': rank }), h('i', { 'data-t': glyph })),
    h('span', { class: 'pip', 'aria-hidden': 'true' }, glyph),
    h('span', { class: 'corner br', 'aria-hidden': 'true' }, h('b', { 'data-t': rank }), h('i', { 'data-t': glyph })));
}

export function cardBackEl({ tag = 'div', cls = '', attrs = {} } = {}) {
  return h(tag, { class: `card back ${cls}`, ...(tag === 'button' ? { type: 'button' } : {}), ...attrs });
}

// ---- tiles ----
const TILE_COLOURS = { R: 'red', B: 'blue', Y: 'yellow', K: 'black' };

export function parseTile(text) {
  const t = String(text).toUpperCase();
  if (t === 'JK') return { joker: true, colour: null, number: 0 };
  return { joker: false, colour: TILE_COLOURS[t[0]] || 'black', number: Number(t.slice(1)) };
}

export function tileLabel(text, jokerAs) {
  const p = parseTile(text);
  if (p.joker) return jokerAs ? `Joker as ${tileLabel(jokerAs)}` : 'Joker';
  return `${p.colour} ${p.number}`;
}

export function tileEl(text, { id = null, tag = 'div', cls = '', attrs = {}, jokerAs = null } = {}) {
  const p = parseTile(text);
  const a = { class: `tile ${p.joker ? 'joker' : p.colour} ${cls}`, 'data-face': text, 'aria-label': tileLabel(text, jokerAs), ...(tag === 'button' ? { type: 'button' } : { role: 'img' }), ...attrs };
  if (id !== null && id !== undefined) a['data-tile'] = id;
  return h(tag, a,
    p.joker
      ? h('span', { class: 'num', 'aria-hidden': 'true' }, '☺')
      : h('span', { class: 'num', 'aria-hidden': 'true' }, p.number),
    // A table joker shows the tile it stands for; every colour has its own shape (fit.css).
    p.joker && jokerAs ? h('span', { class: `as ${parseTile(jokerAs).colour}`, 'aria-hidden': 'true' }, parseTile(jokerAs).number) : null,
    h('span', { class: 'dot', 'aria-hidden': 'true' }));
}
