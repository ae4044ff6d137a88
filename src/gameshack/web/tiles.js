// The Tile Rummy table's controller: what this screen knows (one state object), what the
// player can do (pick up and place by tap or drag, Confirm Play / Reset Turn / draw from the
// pool, sort the rack), and which regions to redraw (drawn in tiles-view.js, each only when
// its data changed). What is allowed comes from the server's view (`can`, movable tiles,
// problems), never from JS rules.
import { h, region } from './dom.js';
import { play } from './sound.js';
import { drawScorebar, seatInfo } from './board.js';
import { createStory } from './story.js';
import { drawOpponents, drawTable, drawRack, paintPicked, drawStatus, drawActions, drawEnd } from './tiles-view.js';
import { drawPool, starterText } from './tiles-extra.js';
import { say } from './words.js';

// hints.js loads with the first hint asked for (the game page's weight budget).
let hints = null;
const loadHints = () => import('./hints.js').then((m) => { hints = m; return m; });
const COLOUR_ORDER = { R: 0, B: 1, Y: 2, K: 3 };
const num = (f) => (f === 'JK' ? 99 : Number(f.slice(1)));
const col = (f) => (f === 'JK' ? 9 : COLOUR_ORDER[f[0]]);
const cap = (t) => t.charAt(0).toUpperCase() + t.slice(1);

// `scope`: this table's lifetime (a child of the game's); dispose() ends it.
export function createTiles(ctx, scope) {
  const s = {
    st: null, // this seat's view of the game (the view message's `state`)
    picked: null, // the tile id picked up
    rackOrder: [], // tile ids in my arrangement
    hint: null, // {tiles: Set, text, steps, arrange}
    viewingTable: false, // the round's result is put aside to look at the table
    busy: false,
  };
  const faceOf = new Map(); // tile id -> face, for sorting the rack

  // ---- the board's elements, one per region ----
  const opponentsEl = h('div', { class: 'opponents' });
  const poolEl = h('div', { class: 'pool' });
  const starterEl = h('p', { class: 'starter-line muted', id: 'starter-line', role: 'note' });
  const tableEl = h('div', { class: 'table-sets', id: 'table-sets', role: 'group', 'aria-label': 'Table' });
  const statusEl = h('div', { class: 'status-line', role: 'status' });
  const problemsEl = h('div', { class: 'hint-text problems', id: 'problems', hidden: true });
  const hintEl = h('div', { class: 'hint-text', id: 'hint-text', role: 'status' });
  const rackEl = h('div', { class: 'rack', id: 'rack', 'data-drop': 'rack', role: 'group', 'aria-label': 'My rack' });
  const countEl = h('span', { class: 'count' });
  const mineEl = h('section', { class: 'me seat-box', 'aria-labelledby': 'rack-h' }, h('h2', { id: 'rack-h' }, 'My rack', countEl), rackEl);
  const actionsEl = h('div', { class: 'actions' });
  // What the player is told, the rack and the buttons stay on screen while the table scrolls
  // (fit.css).
  const dockEl = h('div', { class: 'dock' }, statusEl, problemsEl, hintEl, mineEl, actionsEl);
  const endEl = h('div', { style: { display: 'contents' } });
  const el = h('div', { class: 'board tiles' }, opponentsEl, starterEl, poolEl, tableEl, dockEl, endEl);

  const story = createStory('tiles', ctx, scope, el, { drawPile: () => poolEl });
  opponentsEl.after(story.el);

  const me = () => s.st.seat;
  const myTurn = () => s.st.phase === 'playing' && s.st.turn === s.st.seat;
  const sets = () => (s.st.work ?? s.st.table);
  const returnable = () => s.picked !== null && s.st.can.returnable.includes(s.picked);

  // ---- actions ----
  async function send(action) {
    if (s.busy) return false;
    s.busy = true;
    try {
      await ctx.act(action);
      s.picked = null;
      render();
      return true;
    } catch { return false; } finally { s.busy = false; }
  }
  const sendThen = (action, sound) => send(action).then((ok) => ok && play(sound));

  // Positions count in the set after the tile has left its old place.
  function moveTo(tile, setIdx, gapIdx) {
    const from = sets()[setIdx].tiles.indexOf(tile);
    sendThen(`move ${tile} ${setIdx} ${from >= 0 && from < gapIdx ? gapIdx - 1 : gapIdx}`, 'meld');
  }
  const sortRack = (by) => { s.rackOrder.sort((a, b) => by(faceOf.get(a), faceOf.get(b))); render(); };

  const act = {
    pick(t) { s.picked = s.picked === t ? null : t; render(); },
    gap(si, gi) { if (s.picked !== null) moveTo(s.picked, si, gi); },
    newSet() { if (s.picked !== null) sendThen(`move ${s.picked} new`, 'meld'); },
    returnPicked() { if (returnable()) send(`move ${s.picked} rack`); },
    // A drag picks the tile up without redrawing anything under the finger.
    dragStart(t) { s.picked = t; el.classList.add('picking'); },
    dragCancel() { el.classList.remove('picking'); },
    dropTile(t, d) {
      el.classList.remove('picking');
      const kind = d.dataset.drop;
      if (kind === 'gap') moveTo(t, Number(d.dataset.set), Number(d.dataset.pos));
      else if (kind === 'new-set') send(`move ${t} new`);
      else if (kind === 'rack' && s.st.can.returnable.includes(t)) send(`move ${t} rack`);
      else { s.picked = null; render(); }
    },
    confirm: () => sendThen('confirm', 'meld'),
    reset: () => send('reset'),
    draw: () => sendThen('draw', 'draw'),
    next: () => send('next'),
    askHint: () => ctx.request({ type: 'hint' }).catch(() => {}),
    // Stage exactly the solver's arrangement in my work area: still mine to Confirm or Reset.
    showMe: () => { if (s.hint && s.hint.arrange) sendThen(s.hint.arrange, 'meld'); },
    viewTable() { s.viewingTable = true; render(); },
    showScores() { s.viewingTable = false; render(); },
    newGame: () => ctx.navigate('/'),
    sortByColour: () => sortRack((a, b) => col(a) - col(b) || num(a) - num(b)),
    sortByNumber: () => sortRack((a, b) => num(a) - num(b) || col(a) - col(b)),
  };
  rackEl.addEventListener('click', act.returnPicked);

  // ---- regions ----
  const show = {
    scorebar: region(ctx.scorebar, drawScorebar),
    opponents: region(opponentsEl, drawOpponents),
    pool: region(poolEl, (d) => drawPool(d, act)),
    starter: region(starterEl, (text, e) => { e.hidden = !text; return text; }),
    table: region(tableEl, (d) => drawTable(d, act)),
    status: region(statusEl, drawStatus),
    problems: region(problemsEl, (text, e) => { e.hidden = !text; return text; }),
    hint: region(hintEl, (d) => hints && hints.drawHint(d, act)),
    count: region(countEl, (n) => `${n} tiles`),
    rack: region(rackEl, (d) => drawRack(d, act)),
    actions: region(actionsEl, (d) => drawActions(d, act)),
    end: region(endEl, (d) => drawEnd(d, act)),
  };

  function render() {
    const st = s.st;
    if (!st) return;
    const hinted = (t) => !!s.hint && s.hint.tiles.has(t);
    const playing = st.phase === 'playing';
    show.scorebar({
      race: `Race to ${st.target}`,
      label: `Round ${st.round}`,
      seats: Array.from({ length: st.seats }, (_, seat) => ({ ...seatInfo(ctx, seat, me()), total: st.totals[seat] ?? 0 })),
      turn: playing && st.turn !== null ? (st.turn === me() ? 'Your turn' : `${ctx.player(st.turn).name}'s turn`) : null,
    });
    const opponents = [];
    for (let k = 1; k < st.seats; k++) {
      const seat = (me() + k) % st.seats;
      opponents.push({ ...seatInfo(ctx, seat, me()), tiles: st.rack_sizes[seat], melded: !!st.melded[seat], turn: playing && st.turn === seat });
    }
    show.opponents(opponents);
    show.pool({ n: st.pool_size, canDraw: myTurn() && !!st.can.draw });
    const who = (seat) => (seat === me() ? 'You' : ctx.player(seat).name);
    show.starter(playing && (st.log || []).length < st.seats ? starterText(st, who) : '');

    const problems = st.can.problems || [];
    const setProblem = new Map();
    for (const p of problems) if (p.set_index !== null && p.set_index !== undefined) setProblem.set(p.set_index, p.message);
    show.table({
      sets: sets().map((set, si) => ({
        tiles: set.tiles.map((id, i) => ({ id, face: set.faces[i], new: !!set.new[i], movable: st.can.movable.includes(id), hint: hinted(id), as: set.faces[i] === 'JK' && set.meanings && set.meanings[i] !== 'JK' ? set.meanings[i] : null })),
        valid: set.valid,
        changed: set.new.some(Boolean),
        reason: set.valid ? '' : say(setProblem.get(si) || set.reason || '', 'tiles'),
      })),
      newSet: myTurn(),
    });

    let text = '';
    if (playing) {
      if (myTurn()) text = s.picked !== null ? 'Now tap where it goes — a gap in a set, "+ New Set", or "Return to rack".' : 'Your turn — tap a tile to pick it up.';
      else text = `${ctx.player(st.turn).name} is playing…`;
    }
    show.status({ text, meld: st.meld && !st.meld.made && playing ? { progress: st.meld.progress ?? 0, needed: st.meld.needed } : null });
    // Problems not tied to one set (those show under their set), e.g. the initial meld total.
    const general = problems.filter((p) => p.set_index === null || p.set_index === undefined);
    show.problems(myTurn() && st.work && general.length ? general.map((p) => say(p.message, 'tiles')).join(' · ') : '');
    show.hint(s.hint ? { steps: s.hint.steps, note: s.hint.text, showMe: myTurn() && !!s.hint.arrange } : null);

    mineEl.classList.toggle('turn', myTurn());
    const ids = st.rack.map((r) => r.tile);
    show.count(ids.length);
    show.rack(s.rackOrder.filter((t) => ids.includes(t)).map((id) => ({ id, face: faceOf.get(id), movable: st.can.movable.includes(id), hint: hinted(id) })));

    show.actions({
      returnRack: returnable(),
      turn: myTurn() ? { confirm: !!st.can.confirm, armed: !!(st.can.confirm || st.can.reset), reset: !!st.can.reset, draw: !!st.can.draw, pool: st.pool_size } : null,
      hint: myTurn(),
    });
    show.end(endData());
    paintPicked(el, s.picked, returnable());
    if (hints) hints.paintHint(el, s.hint ? s.hint.steps.flatMap((x, i) => x.tiles.map((t) => [`[data-tile="${t}"]`, i + 1])) : []);
    story.after(st);
  }

  function endData() {
    const st = s.st;
    if (st.phase === 'playing') return null;
    const over = st.phase === 'match_over';
    const r = st.results[st.results.length - 1];
    const name = (seat) => ctx.player(seat).name;
    const announces = [];
    if (r) {
      announces.push(r.winner !== null && r.winner !== undefined
        ? `${r.winner === me() ? 'You' : name(r.winner)} emptied the rack!`
        : 'The pool ran out and nobody could play — no winner this round.');
    }
    if (over) {
      const best = Math.max(...st.totals);
      const ws = st.totals.map((v, seat) => (v === best ? seat : -1)).filter((seat) => seat >= 0);
      announces.push(ws.length > 1 ? `It's a tie between ${ws.map(name).join(' and ')}!` : ws[0] === me() ? 'You win the game!' : `${name(ws[0])} wins the game!`);
    }
    return {
      over,
      viewing: s.viewingTable,
      announces,
      rows: r ? Array.from({ length: st.seats }, (_, seat) => ({
        label: `${ctx.player(seat).emoji} ${seat === me() ? 'You' : name(seat)}`, winner: r.winner === seat,
        faces: r.remaining[seat].faces, score: r.scores[seat], total: st.totals[seat],
      })) : null,
      next: !!st.can.next,
    };
  }

  // ---- the server's messages ----
  function update(m) {
    const before = s.st;
    const st = m.state;
    s.st = st;
    for (const set of sets()) set.tiles.forEach((t, i) => faceOf.set(t, set.faces[i]));
    for (const r of st.rack) faceOf.set(r.tile, r.face);
    const ids = st.rack.map((r) => r.tile);
    if (!before || before.round !== st.round) s.rackOrder = [...ids];
    else s.rackOrder = [...s.rackOrder.filter((t) => ids.includes(t)), ...ids.filter((t) => !s.rackOrder.includes(t))];
    if (s.picked !== null && !st.can.movable.includes(s.picked)) s.picked = null;
    if (before && (before.turn !== st.turn || before.round !== st.round)) s.hint = null;
    if (before && (before.phase !== st.phase || before.round !== st.round)) s.viewingTable = false;
    story.before(before, st);
    render();
  }

  // The solver's play (gameshack.bots.hint) as steps on the table, each in its own colour, and
  // the `arrange` action that stages exactly that play ("Show me").
  function showHint(hn) {
    if (!hn) return;
    if (!hints) { loadHints().then(() => { if (scope.alive) showHint(hn); }); return; }
    const faces = new Map(faceOf);
    (hn.table || []).forEach((set, i) => set.forEach((t, j) => faces.set(t, hn.faces[i][j])));
    const steps = hints.tileSteps(hn, s.st.table.map((x) => x.tiles), (t) => faces.get(t)).map((x) => ({
      ...x, faces: x.target.map((t) => faces.get(t)), marks: x.target.map((t) => x.tiles.includes(t)),
    }));
    const found = hn.found && steps.length > 0;
    s.hint = {
      tiles: new Set(hn.placed || []),
      text: say(hn.reason || '', 'tiles') + (found ? '.' : ''),
      steps,
      arrange: found ? `arrange ${hn.table.map((x) => x.join(' ')).join(' | ')}` : null,
    };
    render();
  }

  return { el, update, showHint, dispose: () => scope.dispose() };
}
