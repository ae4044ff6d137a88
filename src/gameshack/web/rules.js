// The Rules dialogs: the seeds' own text, arranged as help for each game.
import { h, modal } from './dom.js';
import { shortcutsSection } from './shortcuts.js';

const RUMMY = [
  ['Match Start', [
    'Before the first hand of a match, each player (and bot) draws one card from a shuffled deck — tap the deck to reveal yours. No card is drawn twice.',
    'Once everyone has drawn, the highest card wins the draw and that player takes the first turn (suit breaks a tie in rank, high to low: Spades, Hearts, Diamonds, Clubs).',
    'This draw only happens once, at the start of a match — later hands within the same match start with whoever\'s turn comes next in rotation, not a fresh draw.',
    'Turn order then proceeds clockwise from the winner, in the order players joined the game.',
    'Top card of draw pile is flipped to start the discard pile.',
    'If the draw pile ever runs out, it\'s immediately reshuffled from the discard pile — the current top card of the discard pile stays put, and everything beneath it becomes the new (shuffled) draw pile.',
  ]],
  ['Controls', [
    'Draw: tap the draw pile or discard pile, or drag a card from either into your hand.',
    'Discard: drag a card from your hand onto the discard pile, or tap the card then tap the Discard button (if enabled).',
    'Select multiple cards (new meld, or laying several off at once): tap each card to select it, then either drag any one of the selected cards to the destination — a blank spot on the table for a new meld, or onto an existing meld (yours or an opponent\'s) to lay off — or, if the "Show meld/lay-off/discard prompt" setting is enabled, tap the meld you want to lay off onto (skip this step for a new meld) and then tap the "Meld Selected" / "Lay Off Selected" button that appears.',
    'Rearrange your hand: drag a card to a new position within your hand.',
  ]],
  ['Your Turn', [
    'Draw — one of: top of the draw pile, top of the discard pile, or multiple cards from the discard pile (the bottom card of the group taken must be immediately played this turn).',
    'Meld / Lay off (optional) — create a new meld (3+ card run or set), and/or lay off cards onto any meld already on the table (yours or any other player\'s).',
    'Discard (mandatory) — ends the turn, including when going out. You have a few seconds afterward to hit Undo and take the discard back if you change your mind; other players won\'t see it until that window passes.',
    'Melding/laying off cannot happen before a card is drawn.',
    'A gold box around a hand shows whose turn it currently is — yours or an opponent\'s. It only moves to the next player once the current player\'s turn is genuinely finished (their discard has landed), so it\'s a reliable indicator of who can act right now.',
    'Everything you meld or lay off during your turn stays private on your own screen only — other players see none of it until your discard\'s grace period actually elapses. At that point your hand, your melds, and your discard all become visible to everyone at once. This also means undoing a meld or lay-off before then is instant and free, since nothing was ever sent to anyone.',
  ]],
  ['Scoring', [
    'Card values: A = 15, K/Q/J/10 = 10, all others (2-9) = 5.',
    'Game ends the instant a player goes out.',
    'Winner\'s score = value of all cards they\'ve melded or laid off during the hand — not just this final turn\'s play, but everything they\'ve put down across every turn (doubled if one-turn out).',
    'Non-winner\'s score = (value of cards they had already played this game: melds + lay-offs) − (value of cards remaining in their hand). Can go negative.',
    'When creating a game, you can optionally set a target score (100 / 200 / 300 / 500), shown in the header as "Race to N" once the match is underway.',
    'The match ends the moment any player\'s running total reaches that target.',
    'The overall match winner is whoever has the highest total at that point — not necessarily the player who reached the target, since another player\'s total can also rise on a hand they didn\'t win. If two or more players are tied for the highest total, the match ends in a tie between them.',
    'Leave it on "No limit" to just keep playing hands indefinitely.',
  ]],
  ['Leaving', [
    '"Leave Game" (from the table) or "Cancel" (from the waiting screen) marks the game so everyone else\'s screen detects it and freezes — the game doesn\'t quietly continue without you.',
    'This can\'t be undone from inside the game — if you want back in, whoever\'s still there would need to start a new one.',
  ]],
  ['Buttons', [
    'The ⤢ button at the bottom of the table toggles a distraction-free view: it hides the GameShack menu above and the scores/turn bar at the top, leaving just the board, melds, and your hand. Tap it again to bring the header and menu back. This choice is remembered on this device, so the game reopens the same way you last left it.',
    'The 💬 button at the bottom of the table opens a chat panel where you and the other players can send messages during the game. When you receive a new message while the panel is closed, a small red number badge appears on the 💬 button showing how many unread messages are waiting.',
    'The ⚙ button — on the lobby screen and next to the rules button once you\'re in a game — opens Settings. There you can set your default name and emoji (used automatically the next time you create or join a game), your card back color, whether sounds play, whether chat opens automatically on a new message, and whether the meld/lay-off/discard prompt appears when cards are selected. Changes save automatically and apply on this device across every tab and game — there\'s nothing to confirm before closing the window.',
    '💡 Hint suggests a move — before drawing, whether the discard pile\'s top card looks worth taking; after drawing, any melds or lay-offs available (highlighted gold in your hand) and a suggested discard.',
    'Sort arranges your hand by suit, then rank.',
    '↺ Undo is one button that covers two different situations. Right after you discard (bright yellow): you have a few seconds to take it back before the other players ever see it — nothing is sent to them until that window passes. After it passes, the button disappears and the turn has genuinely moved on. After melding or laying off, earlier in your turn (normal color, no time limit): each click reverses one action, most recent first — meld twice, click twice to undo both, one at a time.',
    'Undo can never put back a card you drew blind from the draw pile — once you\'ve seen it, it stays in your hand. Only melding/laying off done afterward, or the discard itself, can be undone. (A card picked up from the discard pile is fair game either way, since everyone already saw it sitting there.)',
  ]],
  ['Practice mode', [
    'Checking "Practice mode" when creating a game fills every other seat with a computer opponent and starts the game immediately — no waiting for anyone else to join.',
    'Each bot gets a random name and emoji, and plays for real: it evaluates its own hand, decides when picking up off the discard pile (including multiple cards at once) is actually worth it, plays defensively against melds already on the table, and adjusts how it plays based on how the match score stands.',
    'Bot difficulty (Easy / Medium / Hard, chosen when you check Practice mode) scales that behavior: Easy only avoids the single most obvious mistake (handing an opponent a card that completes their meld) and otherwise plays straightforwardly; Medium adds a memory for which ranks other players have shown interest in and a bit of forward planning on pickups; Hard adds everything else described above — tracking specific opponents\' likely holdings, weighing whether a discard would hand someone a free meld out of the discard pile itself, and shifting its whole risk appetite based on how the match score stands.',
    'Bots always show as online — there\'s no connection to wait on or lose.',
  ]],
];

const TILES = [
  ['How To Play Tile Rummy Online', [
    'One player creates a room and shares the 5-letter room code with up to 3 friends. Once everyone has joined, the host starts the game. The goal is to be the first to play every tile from your rack. There are 106 tiles: the numbers 1-13 in four colors (red, blue, yellow, black), two of each, plus 2 jokers. Each player starts with a rack of 14 tiles; the rest form a shared face-down pool.',
  ]],
  ['Groups & Runs', [
    'Group: 3 or 4 tiles of the same number, each a different color.',
    'Run: 3 or more consecutive numbers, all the same color (Aces/1s are always low — no wrapping from 13 back to 1).',
    'Jokers: a joker can stand in for any tile in a group or run. Its value is whatever number/position it\'s filling in that set.',
  ]],
  ['Your Turn', [
    'Getting on the table (your first meld): The very first time you play, you may only add brand-new groups/runs built entirely from your own rack — you can\'t touch anything already on the table yet. Those new set(s) must total 30 points or more combined.',
    'After you\'ve made that first meld: You\'re free to rearrange anything on the table — not just your own tiles. Add rack tiles to existing sets, split a run in two, merge tiles into a new set, slide a joker out to reuse it elsewhere. The only rule is that when you confirm, every set on the table must still be a valid group or run of 3+ tiles, and every tile that was already down must still be somewhere on the table.',
    'Arranging tiles: Tap a tile (in your rack or on the table) to pick it up, then tap where you want it — a gap inside an existing set, "+ New Set", or (for a table tile) "Return to rack". Tap "Confirm Play" when ready, or "Reset Turn" to undo everything. "Sort Rack" just tidies your own tiles — it doesn\'t cost a turn.',
    'Drawing instead: If you can\'t or don\'t want to play, tap the pool to draw one tile — this discards any in-progress rearrangement and passes the turn to the next player.',
  ]],
  ['Ending a Round', [
    'Someone empties their rack: They win the round and score the combined value of every tile still left in everyone else\'s racks. The others score the negative of their own remaining tiles (a leftover joker costs 30 points).',
    'The pool runs out and nobody can play: The round is thrown in with no winner — everyone just scores the negative of their own remaining tiles.',
    'Rounds keep being dealt until someone\'s total score reaches 200 — highest score wins the game.',
  ]],
];

export async function showRules(kind, { switchable = false } = {}) {
  const tiles = kind === 'tiles';
  const sections = tiles ? TILES : RUMMY;
  const body = h('div', { class: 'rules' }, sections.map(([title, paras]) =>
    h('section', {}, h('h3', {}, title), paras.map((p) => h('p', {}, p)))), shortcutsSection(kind));
  // "Back to Game" only where there is a game to go back to (not from the lobby).
  const buttons = [{ label: tiles && !switchable ? 'Back to Game' : 'Close', value: 'close', class: 'btn primary' }];
  if (switchable) buttons.unshift({ label: tiles ? 'Rummy Rules' : 'Tile Rummy Rules', value: 'other', class: 'btn' });
  const shown = modal(tiles ? 'Tile Rummy Rules' : 'Rummy Rules', body, buttons, { class: 'rules-modal' });
  // The text scrolls: its box takes focus so the arrow keys can scroll it.
  body.parentElement.tabIndex = 0;
  const r = await shown;
  if (r === 'other') return showRules(tiles ? 'rummy' : 'tiles', { switchable });
  return r;
}
