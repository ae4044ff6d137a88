// Cards, tiles and numbers in the words a player reads: "K♥", "red 7", "−15". Server text
// that names cards or tiles in notation ("KH", "R7") goes through say() before it is shown.
import { parseCard } from './cards.js';

const GLYPH = { S: '♠', H: '♥', D: '♦', C: '♣' };
const COLOUR = { R: 'red', B: 'blue', Y: 'yellow', K: 'black' };
export const MINUS = '\u2212';

export const cap = (t) => (t ? t.charAt(0).toUpperCase() + t.slice(1) : t);

// 'KH' -> 'K♥', '10S' -> '10♠'.
export function cardName(code) {
  const { rank, suit } = parseCard(code);
  return `${rank}${GLYPH[suit] || suit}`;
}
export const cardsText = (cards) => cards.map(cardName).join(' ');

// 'R7' -> 'red 7', 'JK' -> 'joker'.
export function tileName(face) {
  const f = String(face).toUpperCase();
  if (f === 'JK') return 'joker';
  return `${COLOUR[f[0]] || f[0]} ${f.slice(1)}`;
}
export const tilesText = (faces) => faces.map(tileName).join(', ');

// One minus sign style for every score: U+2212, as in "−15".
export const signed = (n) => (typeof n === 'number' && n < 0 ? `${MINUS}${-n}` : String(n));

const CARD_RE = /\b(10|[2-9AJQK])([SHDC])\b/g;
const TILE_RE = /\b([RBYK])(1[0-3]|[1-9])\b|\bJK\b/g;

// A server sentence as a player should read it: notation named, a capital first, one minus.
export function say(text, game) {
  if (!text) return '';
  let t = String(text);
  if (game === 'tiles') t = t.replace(TILE_RE, (m) => tileName(m));
  else t = t.replace(CARD_RE, (m, r, s) => `${r}${GLYPH[s]}`);
  t = t.replace(/(^|[\s(])-(\d)/g, `$1${MINUS}$2`);
  return cap(t);
}
