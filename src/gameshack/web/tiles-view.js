// The Tile Rummy table's regions. Each draw function turns the plain data the controller
// (tiles.js) derives for one region into elements, and wires them to the controller's
// actions (`act`); none of them keeps state of its own.
import { h } from './dom.js';
import { tileEl, tileLabel } from './cards.js';
import { draggable } from './drag.js';
import { seatHead } from './board.js';
import { signed } from './words.js';

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

// Data: [{seat, name, emoji, online, tiles, melded, turn}].
export function drawOpponents(seats) {
  return seats.map((p) => h('div', { class: `seat-box${p.turn ? ' turn' : ''}`, 'data-seat': p.seat, role: 'group', 'aria-label': `${p.name}: ${p.tiles} tiles${p.turn ? ', their turn' : ''}` },
    seatHead(p),
    h('div', { class: 'count' }, `${plural(p.tiles, 'tile')}${p.melded ? '' : ' · not on the table yet'}`)));
}

// A tile the player may pick up (`where`: 'table' or 'rack'). Whether it is picked is painted
// on by paintPicked, so picking a tile redraws nothing.
function tileButton(t, act, where) {
  const b = tileEl(t.face, { id: t.id, tag: 'button', jokerAs: t.as || null, cls: `${t.new ? 'new' : ''} ${t.hint ? 'hint' : ''}`, attrs: { 'aria-pressed': 'false', disabled: !t.movable && where === 'table' ? true : null, 'data-drop': where === 'rack' ? 'rack' : null } });
  b.addEventListener('click', (e) => {
    e.stopPropagation();
    if (t.movable) act.pick(t.id);
  });
  draggable(b, {
    enabled: () => t.movable,
    onStart: () => act.dragStart(t.id),
    onDrop: (d) => act.dropTile(t.id, d),
    onCancel: act.dragCancel,
  });
  return b;
}

function gapButton(si, gi, label, act) {
  const g = h('button', { type: 'button', class: 'gap', 'data-drop': 'gap', 'data-set': si, 'data-pos': gi, 'aria-label': label, disabled: true });
  g.addEventListener('click', (e) => { e.stopPropagation(); act.gap(si, gi); });
  return g;
}

// The sets on the table (the turn's working copy while I arrange it).
// Data: {sets: [{tiles: [{id, face, new, movable, hint}], valid, changed, reason}], newSet}.
export function drawTable(d, act) {
  const out = d.sets.map((s, si) => {
    const row = h('div', { class: `tset${s.valid ? '' : ' invalid'}${s.changed ? ' changed' : ''}`, 'data-set': si, role: 'group', 'aria-label': `Set ${si + 1}${s.valid ? '' : ' (invalid)'}: ${s.tiles.map((t) => tileLabel(t.face, t.as)).join(', ')}` });
    s.tiles.forEach((t, i) => row.append(gapButton(si, i, `Put here: set ${si + 1}, position ${i + 1}`, act), tileButton(t, act, 'table')));
    row.append(gapButton(si, s.tiles.length, `Put at the end of set ${si + 1}`, act));
    return h('div', { class: 'tset-wrap' }, row, s.reason ? h('div', { class: 'set-reason', role: 'note' }, s.reason) : null);
  });
  if (!d.sets.length) out.push(h('p', { class: 'empty-hint muted' }, 'The table is empty.'));
  if (d.newSet) {
    const ns = h('button', { type: 'button', class: 'new-set', id: 'new-set', 'data-drop': 'new-set', disabled: true }, '+ New Set');
    ns.addEventListener('click', act.newSet);
    out.push(ns);
  }
  return out;
}

// Data: [{id, face, movable, hint}] in my arrangement.
export function drawRack(tiles, act) {
  return tiles.map((t) => tileButton(t, act, 'rack'));
}

// Picked or not, on every tile, gap and drop target already drawn.
export function paintPicked(board, picked, returnable) {
  const on = picked !== null;
  board.classList.toggle('picking', on);
  for (const b of board.querySelectorAll('[data-tile]')) {
    const mine = on && b.dataset.tile === String(picked);
    b.classList.toggle('picked', mine);
    b.setAttribute('aria-pressed', String(mine));
  }
  for (const g of board.querySelectorAll('.gap, #new-set')) g.disabled = !on;
  const rack = board.querySelector('#rack');
  if (rack) rack.classList.toggle('drop-ready', on && returnable);
}

// Data: {text, meld: null | {progress, needed}}.
export function drawStatus(d) {
  return [d.text, d.meld ? [' ', h('span', { class: `meld-progress${d.meld.progress >= d.meld.needed ? ' done' : ''}`, id: 'meld-progress', title: 'Initial meld: your new sets must total 30 or more' }, `Initial meld ${d.meld.progress} / ${d.meld.needed}`)] : null];
}

// Data: {returnRack, turn: null | {confirm, armed, reset, draw, pool}, hint}.
export function drawActions(d, act) {
  const out = [];
  if (d.returnRack) {
    const back = h('button', { type: 'button', class: 'btn', id: 'return-rack' }, 'Return to rack');
    back.addEventListener('click', act.returnPicked);
    out.push(back);
  }
  if (d.turn) {
    const t = d.turn;
    const confirm = h('button', { type: 'button', class: `btn${t.confirm ? ' primary' : ''}`, id: 'confirm', disabled: !t.armed, 'aria-describedby': 'problems' }, 'Confirm Play');
    confirm.addEventListener('click', act.confirm);
    const reset = h('button', { type: 'button', class: 'btn', id: 'reset', disabled: !t.reset }, 'Reset Turn');
    reset.addEventListener('click', act.reset);
    const draw = h('button', { type: 'button', class: 'btn pool-btn', id: 'draw', disabled: !t.draw }, t.pool ? `Draw (pool ${t.pool})` : 'Pass (pool empty)');
    draw.addEventListener('click', act.draw);
    out.push(confirm, reset, draw);
  }
  const hintBtn = h('button', { type: 'button', class: 'btn small ghost', id: 'hint', disabled: !d.hint }, '💡 Hint');
  hintBtn.addEventListener('click', act.askHint);
  const sortC = h('button', { type: 'button', class: 'btn small ghost', id: 'sort-colour' }, 'Sort Rack: colour');
  sortC.addEventListener('click', act.sortByColour);
  const sortN = h('button', { type: 'button', class: 'btn small ghost', id: 'sort-number' }, 'Sort Rack: number');
  sortN.addEventListener('click', act.sortByNumber);
  out.push(hintBtn, sortC, sortN);
  return out;
}

// Round Complete / Game Over. Data: null, or {over, announces: [text], rows: [{label, winner,
// faces, score, total}], next, waiting}.
export function drawEnd(d, act) {
  if (!d) return null;
  if (d.viewing) {
    const back = h('button', { type: 'button', class: 'btn primary', id: 'show-scores' }, d.over ? 'Game Over — scores' : 'Scores');
    back.addEventListener('click', act.showScores);
    return h('div', { class: 'actions' }, back);
  }
  const panel = h('div', { class: 'panel', id: d.over ? 'game-over' : 'round-complete', role: 'dialog', 'aria-labelledby': 'end-h' },
    h('h2', { id: 'end-h' }, d.over ? 'Game Over' : 'Round Complete'),
    d.announces.map((text) => h('p', { class: 'announce' }, text)));
  if (d.rows) {
    panel.append(h('table', { class: 'score-table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Player'), h('th', {}, 'Left on rack'), h('th', {}, 'Round'), h('th', {}, 'Total'))),
      h('tbody', {}, d.rows.map((r) => h('tr', { class: r.winner ? 'winner' : '' },
        h('td', {}, r.label),
        h('td', {}, r.faces.length ? h('span', { style: { display: 'inline-flex', gap: '2px', flexWrap: 'wrap', justifyContent: 'flex-end', '--tw': '20px' } }, r.faces.map((f) => tileEl(f))) : '—'),
        h('td', {}, h('b', {}, signed(r.score))), h('td', {}, signed(r.total)))))));
  }
  const btns = h('div', { class: 'row', style: { justifyContent: 'center' } });
  if (d.next) {
    const nb = h('button', { type: 'button', class: 'btn primary', id: 'next-round' }, 'Next Round');
    nb.addEventListener('click', act.next);
    btns.append(nb);
  } else if (!d.over) btns.append(h('span', { class: 'muted' }, 'Waiting for the next round…'));
  if (d.over) {
    const ng = h('button', { type: 'button', class: 'btn primary', id: 'new-game' }, 'New Game');
    ng.addEventListener('click', act.newGame);
    btns.append(ng);
  }
  const look = h('button', { type: 'button', class: 'btn ghost', id: 'view-table' }, 'View table');
  look.addEventListener('click', act.viewTable);
  btns.append(look);
  panel.append(btns);
  return h('div', { class: 'end-overlay' }, panel);
}
