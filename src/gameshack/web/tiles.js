// The Tile Rummy table: rack, sets on the table, pick-up-and-place by tap (or drag), Confirm
// Play / Reset Turn / draw from the pool, and the Round Complete / Game Over screens. What is
// allowed comes from the server's view (`can`, movable tiles, problems), never from JS rules.
import { h, clear } from './dom.js';
import { tileEl } from './cards.js';
import { draggable } from './drag.js';
import { play } from './sound.js';

const COLOUR_ORDER = { R: 0, B: 1, Y: 2, K: 3 };
const num = (f) => (f === 'JK' ? 99 : Number(f.slice(1)));
const col = (f) => (f === 'JK' ? 9 : COLOUR_ORDER[f[0]]);

export function createTiles(ctx) {
  const el = h('div', { class: 'board tiles' });
  let st = null;
  let picked = null; // tile id in hand
  let rackOrder = []; // tile ids, my arrangement
  let hint = null;
  let busy = false;
  const faceOf = new Map();

  const me = () => st.seat;
  const myTurn = () => st.phase === 'playing' && st.turn === st.seat;
  const sets = () => (st.work ?? st.table);

  async function send(action) {
    if (busy) return false;
    busy = true;
    try {
      await ctx.act(action);
      picked = null;
      return true;
    } catch { return false; } finally { busy = false; }
  }

  function moveTo(tile, setIdx, gapIdx) {
    // Positions count in the set after the tile has left its old place.
    const cur = sets()[setIdx].tiles;
    const from = cur.indexOf(tile);
    const pos = from >= 0 && from < gapIdx ? gapIdx - 1 : gapIdx;
    send(`move ${tile} ${setIdx} ${pos}`).then((ok) => ok && play('meld'));
  }

  function tileButton(t, face, where, extra = '') {
    const movable = st.can.movable.includes(t);
    const cls = `${picked === t ? 'picked' : ''} ${extra} ${hint && hint.tiles.has(t) ? 'hint' : ''}`;
    const b = tileEl(face, { id: t, tag: 'button', cls, attrs: { 'aria-pressed': String(picked === t), disabled: !movable && where === 'table' ? true : null, 'data-drop': where === 'rack' ? 'rack' : null } });
    b.addEventListener('click', (e) => {
      e.stopPropagation();
      if (!movable) return;
      picked = picked === t ? null : t;
      render();
      const again = el.querySelector(`[data-tile="${t}"]`);
      if (again) again.focus();
    });
    draggable(b, {
      enabled: () => movable,
      onStart: () => { picked = t; el.classList.add('picking'); },
      onDrop: (d) => drop(t, d),
      onCancel: () => { el.classList.remove('picking'); },
    });
    return b;
  }

  function drop(t, d) {
    el.classList.remove('picking');
    const kind = d.dataset.drop;
    if (kind === 'gap') moveTo(t, Number(d.dataset.set), Number(d.dataset.pos));
    else if (kind === 'new-set') send(`move ${t} new`);
    else if (kind === 'rack' && st.can.returnable.includes(t)) send(`move ${t} rack`);
    else { picked = null; render(); }
  }

  function gapButton(si, gi, label) {
    const g = h('button', { type: 'button', class: 'gap', 'data-drop': 'gap', 'data-set': si, 'data-pos': gi, 'aria-label': label, disabled: picked === null });
    g.addEventListener('click', (e) => { e.stopPropagation(); if (picked !== null) moveTo(picked, si, gi); });
    return g;
  }

  function renderScore() {
    const sb = ctx.scorebar;
    clear(sb);
    sb.append(h('span', { class: 'race' }, `Race to ${st.target}`), h('span', { class: 'muted' }, `Round ${st.round}`));
    for (let s = 0; s < st.seats; s++) {
      const p = ctx.player(s);
      sb.append(h('span', { class: 'score', 'data-seat': s }, `${p.emoji} ${s === me() ? 'You' : p.name} `, h('b', {}, st.totals[s] ?? 0)));
    }
    if (st.phase === 'playing' && st.turn !== null) sb.append(h('span', { class: 'turn-text' }, st.turn === me() ? 'Your turn' : `${ctx.player(st.turn).name}'s turn`));
  }

  function seatBox(s) {
    const p = ctx.player(s);
    const n = st.rack_sizes[s];
    return h('div', { class: `seat-box${st.phase === 'playing' && st.turn === s ? ' turn' : ''}`, 'data-seat': s, 'aria-label': `${p.name}: ${n} tiles` },
      h('div', { class: 'seat-head' }, h('span', { class: `online-dot${p.online ? ' on' : ''}`, role: 'img', 'aria-label': p.online ? 'online' : 'offline' }),
        h('span', { class: 'emoji', 'aria-hidden': 'true' }, p.emoji), h('span', {}, p.name)),
      h('div', { class: 'count' }, `${n} tile${n === 1 ? '' : 's'}${st.melded[s] ? '' : ' · not on the table yet'}`));
  }

  function render() {
    renderScore();
    clear(el);
    el.classList.toggle('picking', picked !== null);
    const opp = h('div', { class: 'opponents' });
    for (let k = 1; k < st.seats; k++) opp.append(seatBox((me() + k) % st.seats));

    const problems = new Map();
    for (const p of st.can.problems || []) if (p.set_index !== null && p.set_index !== undefined) problems.set(p.set_index, p.message);
    const table = h('div', { class: 'table-sets', id: 'table-sets', 'aria-label': 'Table' });
    sets().forEach((s, si) => {
      const row = h('div', { class: `tset${s.valid ? '' : ' invalid'}${s.new.some(Boolean) ? ' changed' : ''}`, 'data-set': si, 'aria-label': `Set ${si + 1}${s.valid ? '' : ' (invalid)'}` });
      s.tiles.forEach((t, i) => {
        faceOf.set(t, s.faces[i]);
        row.append(gapButton(si, i, `Put here: set ${si + 1}, position ${i + 1}`));
        row.append(tileButton(t, s.faces[i], 'table', s.new[i] ? 'new' : ''));
      });
      row.append(gapButton(si, s.tiles.length, `Put at the end of set ${si + 1}`));
      const reason = !s.valid ? (problems.get(si) || s.reason) : '';
      table.append(h('div', { class: 'tset-wrap' }, row, reason ? h('div', { class: 'set-reason', role: 'note' }, reason) : null));
    });
    if (!sets().length) table.append(h('p', { class: 'empty-hint muted' }, 'The table is empty.'));
    if (myTurn()) {
      const ns = h('button', { type: 'button', class: 'new-set', id: 'new-set', 'data-drop': 'new-set', disabled: picked === null }, '+ New Set');
      ns.addEventListener('click', () => { if (picked !== null) send(`move ${picked} new`).then((ok) => ok && play('meld')); });
      table.append(ns);
    }

    const info = h('div', { class: 'status-line', role: 'status' });
    if (st.phase === 'playing') {
      if (myTurn()) {
        info.append(picked !== null ? 'Now tap where it goes — a gap in a set, "+ New Set", or "Return to rack".' : 'Your turn — tap a tile to pick it up.');
      } else info.append(`${ctx.player(st.turn).name} is playing…`);
    }
    if (st.meld && !st.meld.made && st.phase === 'playing') {
      const prog = st.meld.progress ?? 0;
      info.append(' ', h('span', { class: `meld-progress${prog >= st.meld.needed ? ' done' : ''}`, id: 'meld-progress', title: 'Initial meld: your new sets must total 30 or more' }, `Initial meld ${prog} / ${st.meld.needed}`));
    }
    // Problems not tied to one set (those show under their set), e.g. the initial meld total.
    const general = (st.can.problems || []).filter((p) => p.set_index === null || p.set_index === undefined);
    const problemLine = myTurn() && st.work && general.length
      ? h('div', { class: 'hint-text problems', id: 'problems' }, general.map((p) => p.message.charAt(0).toUpperCase() + p.message.slice(1)).join(' · '))
      : null;
    const hintLine = h('div', { class: 'hint-text', id: 'hint-text', role: 'status' }, hint ? hint.text : '');

    // Rack.
    const ids = st.rack.map((r) => r.tile);
    for (const r of st.rack) faceOf.set(r.tile, r.face);
    const rack = h('div', { class: `rack${picked !== null && st.can.returnable.includes(picked) ? ' drop-ready' : ''}`, id: 'rack', 'data-drop': 'rack', 'aria-label': 'My rack' },
      rackOrder.filter((t) => ids.includes(t)).map((t) => tileButton(t, faceOf.get(t), 'rack')));
    rack.addEventListener('click', () => { if (picked !== null && st.can.returnable.includes(picked)) send(`move ${picked} rack`); });

    const actions = h('div', { class: 'actions' });
    if (picked !== null && st.can.returnable.includes(picked)) {
      const back = h('button', { type: 'button', class: 'btn', id: 'return-rack' }, 'Return to rack');
      back.addEventListener('click', () => send(`move ${picked} rack`));
      actions.append(back);
    }
    if (myTurn()) {
      const armed = st.can.confirm || st.can.reset;
      const confirm = h('button', { type: 'button', class: `btn${st.can.confirm ? ' primary' : ''}`, id: 'confirm', disabled: !armed, 'aria-describedby': 'problems' }, 'Confirm Play');
      confirm.addEventListener('click', () => send('confirm').then((ok) => ok && play('meld')));
      const reset = h('button', { type: 'button', class: 'btn', id: 'reset', disabled: !st.can.reset }, 'Reset Turn');
      reset.addEventListener('click', () => send('reset'));
      const draw = h('button', { type: 'button', class: 'btn pool-btn', id: 'draw', disabled: !st.can.draw }, st.pool_size ? `Draw (pool ${st.pool_size})` : 'Pass (pool empty)');
      draw.addEventListener('click', () => send('draw').then((ok) => ok && play('draw')));
      actions.append(confirm, reset, draw);
    }
    const sortC = h('button', { type: 'button', class: 'btn small ghost', id: 'sort-colour', 'aria-label': 'Sort Rack by colour' }, 'Sort Rack: colour');
    sortC.addEventListener('click', () => { rackOrder.sort((a, b) => col(faceOf.get(a)) - col(faceOf.get(b)) || num(faceOf.get(a)) - num(faceOf.get(b))); render(); });
    const sortN = h('button', { type: 'button', class: 'btn small ghost', id: 'sort-number', 'aria-label': 'Sort Rack by number' }, 'Sort Rack: number');
    sortN.addEventListener('click', () => { rackOrder.sort((a, b) => num(faceOf.get(a)) - num(faceOf.get(b)) || col(faceOf.get(a)) - col(faceOf.get(b))); render(); });
    const hintBtn = h('button', { type: 'button', class: 'btn small ghost', id: 'hint', disabled: !myTurn() }, '💡 Hint');
    hintBtn.addEventListener('click', () => ctx.request({ type: 'hint' }).catch(() => {}));
    actions.append(hintBtn, sortC, sortN);

    const pool = h('div', { class: 'pile-label', style: { textAlign: 'center' } }, `Pool: ${st.pool_size} tiles`);
    el.append(...[opp, pool, table, info, problemLine, hintLine].filter(Boolean),
      h('section', { class: `me seat-box${myTurn() ? ' turn' : ''}`, 'aria-labelledby': 'rack-h' },
        h('h2', { id: 'rack-h' }, 'My rack', h('span', { class: 'count' }, `${ids.length} tiles`)), rack),
      actions);
    if (st.phase !== 'playing') renderEnd();
  }

  function renderEnd() {
    const over = st.phase === 'match_over';
    const r = st.results[st.results.length - 1];
    const panel = h('div', { class: 'panel', id: over ? 'game-over' : 'round-complete', role: 'dialog', 'aria-labelledby': 'end-h' });
    panel.append(h('h2', { id: 'end-h' }, over ? 'Game Over' : 'Round Complete'));
    if (r) {
      panel.append(h('p', { class: 'announce' }, r.winner !== null && r.winner !== undefined
        ? `${r.winner === me() ? 'You' : ctx.player(r.winner).name} emptied the rack!`
        : 'The pool ran out and nobody could play — no winner this round.'));
    }
    if (over) {
      const best = Math.max(...st.totals);
      const ws = st.totals.map((v, s) => (v === best ? s : -1)).filter((s) => s >= 0);
      panel.append(h('p', { class: 'announce' }, ws.length > 1 ? `It's a tie between ${ws.map((s) => ctx.player(s).name).join(' and ')}!` : ws[0] === me() ? 'You win the game!' : `${ctx.player(ws[0]).name} wins the game!`));
    }
    if (r) {
      panel.append(h('table', { class: 'score-table' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Player'), h('th', {}, 'Left on rack'), h('th', {}, 'Round'), h('th', {}, 'Total'))),
        h('tbody', {}, Array.from({ length: st.seats }, (_, s) => h('tr', { class: r.winner === s ? 'winner' : '' },
          h('td', {}, `${ctx.player(s).emoji} ${s === me() ? 'You' : ctx.player(s).name}`),
          h('td', {}, r.remaining[s].faces.length ? h('span', { style: { display: 'inline-flex', gap: '2px', flexWrap: 'wrap', justifyContent: 'flex-end', '--tw': '20px' } }, r.remaining[s].faces.map((f) => tileEl(f))) : '—'),
          h('td', {}, h('b', {}, r.scores[s])), h('td', {}, st.totals[s]))))));
    }
    const btns = h('div', { class: 'row', style: { justifyContent: 'center' } });
    if (st.can.next) {
      const nb = h('button', { type: 'button', class: 'btn primary', id: 'next-round' }, 'Next Round');
      nb.addEventListener('click', () => send('next'));
      btns.append(nb);
    } else if (!over) btns.append(h('span', { class: 'muted' }, 'Waiting for the next round…'));
    if (over) {
      const ng = h('button', { type: 'button', class: 'btn primary', id: 'new-game' }, 'New Game');
      ng.addEventListener('click', () => { history.pushState(null, '', '/'); dispatchEvent(new PopStateEvent('popstate')); });
      btns.append(ng);
    }
    panel.append(btns);
    el.append(h('div', { class: 'end-overlay' }, panel));
  }

  function update(m) {
    const before = st;
    st = m.state;
    const ids = st.rack.map((r) => r.tile);
    if (!before || before.round !== st.round) rackOrder = [...ids];
    else rackOrder = [...rackOrder.filter((t) => ids.includes(t)), ...ids.filter((t) => !rackOrder.includes(t))];
    if (picked !== null && !st.can.movable.includes(picked)) picked = null;
    if (before && before.turn !== st.turn) hint = null;
    render();
  }

  function showHint(hn) {
    if (!hn) return;
    const text = hn.found && hn.faces && hn.faces.length
      ? `${hn.reason || ''} Table after: ${hn.faces.map((f) => f.join(' ')).join(' · ')}`
      : hn.reason || '';
    hint = { tiles: new Set(hn.placed || []), text: text.charAt(0).toUpperCase() + text.slice(1) };
    render();
  }

  return { el, update, showHint, destroy() {} };
}
