// The keyboard shortcuts as the Rules dialog lists them (keys.js does them). Loaded with the
// Rules dialog, which itself loads when first opened.
import { h } from './dom.js';

const COMMON = [
  ['Tab / Shift+Tab', 'Move between controls: every card, tile, pile, meld, set and button can be reached'],
  ['Enter or Space', 'Press the focused control: select a card, pick up a tile, take from the pile, place in a gap'],
  ['← → ↑ ↓', 'Move within a row: your hand or rack, the discard pile, the melds, the table\'s tiles and gaps'],
  ['?', 'Open these rules and shortcuts'],
];
const RUMMY = [
  ['Y', 'Go to your hand'],
  ['Shift+← / Shift+→', 'Move the focused card left or right in your hand'],
  ['D', 'Draw from the draw pile (at the first deal: draw your card)'],
  ['T', 'Go to the discard pile\'s top card; ← goes deeper, Enter takes that card and every card above it'],
  ['M', 'Meld the selected cards'],
  ['L', 'Go to the melds to lay off the selected cards (Enter on a meld lays them off there)'],
  ['X', 'Discard the one selected card'],
  ['U', 'Undo'],
  ['S', 'Sort your hand'],
  ['H', 'Hint'],
  ['Esc', 'Clear the selection'],
  ['Enter', 'Next hand, when the hand is over'],
];
const TILES = [
  ['Y', 'Go to your rack'],
  ['G', 'Go to the table: its gaps while a tile is picked up (Enter places it in the focused gap), else its tiles'],
  ['N', 'Put the picked-up tile in a new set'],
  ['C', 'Confirm play'],
  ['R', 'Reset turn'],
  ['D', 'Draw from the pool (ends your turn)'],
  ['S / Shift+S', 'Sort your rack by colour / by number'],
  ['H', 'Hint'],
  ['Esc', 'Put the picked-up tile back (return to rack)'],
  ['Enter', 'Next round, when the round is over'],
];

export function shortcutsSection(kind) {
  const rows = [...(kind === 'tiles' ? TILES : RUMMY), ...COMMON];
  return h('section', { id: 'shortcuts' }, h('h3', {}, 'Keyboard shortcuts'),
    h('dl', { class: 'shortcuts' }, rows.map(([k, what]) => [h('dt', {}, h('kbd', {}, k)), h('dd', {}, what)])));
}
