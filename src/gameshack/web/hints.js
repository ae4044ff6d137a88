// Hints that teach: the server's hint (gameshack.bots.hint) turned into numbered steps in
// words, each with its own highlight colour on the cards or tiles it names. Rummy: "Meld 7♥ 8♥
// 9♥", "Lay off Q♠ on Bob's J♠ Q♠ K♠", the discard marked apart, a pickup marked unlike the
// ordinary "you may take this" glow. Tile Rummy: the solver's play as steps on the table (which
// table tiles move where, which rack tiles go where) and a "Show me" that stages it.
import { h } from './dom.js';
import { tileEl } from './cards.js';
import { cap, cardName, cardsText, tileName, say } from './words.js';

const STEP_COLOURS = 4; // styles hint-1 .. hint-4 in fit.css; later steps reuse them

// ---- Rummy ----

// Steps for a Rummy hint. `melds`: the table's melds [{id, cards}]; `ownerName(id)`: "Bob's" /
// "your" for the meld's creator.
export function rummySteps(hn, { discard = [], melds = [], ownerName = () => 'the' } = {}) {
  const steps = [];
  if (hn.stage === 'draw') {
    if (hn.take) {
      const cards = hn.cards && hn.cards.length ? hn.cards : [hn.take];
      steps.push(cards.length === 1
        ? { kind: 'take', take: hn.take, cards, text: `Take ${cardName(hn.take)} from the discard pile — it fits your hand` }
        : { kind: 'take', take: hn.take, cards, text: `Take ${cards.length} cards from the discard pile, down to ${cardName(hn.take)} (${cardsText(cards)}) — then play ${cardName(hn.take)} this turn` });
    } else {
      const top = discard.length ? discard[discard.length - 1] : null;
      steps.push({ kind: 'draw', cards: [], text: top ? `Draw from the draw pile — ${cardName(top)} does not help you enough` : 'Draw from the draw pile' });
    }
    return steps;
  }
  if (hn.stage !== 'play') return hn.reason ? [{ kind: 'note', cards: [], text: say(hn.reason, 'rummy') }] : [];
  for (const m of hn.melds || []) steps.push({ kind: 'meld', cards: m, text: `Meld ${cardsText(m)}` });
  for (const l of hn.layoffs || []) {
    const on = melds.find((x) => x.id === l.meld);
    steps.push({ kind: 'layoff', cards: l.cards, meld: l.meld, text: `Lay off ${cardsText(l.cards)} on ${ownerName(l.meld)} ${on ? cardsText(on.cards) : 'meld'}` });
  }
  if (hn.discard) {
    const text = hn.goes_out ? `Discard ${cardName(hn.discard)} and go out` : steps.length ? `Then discard ${cardName(hn.discard)}` : `Nothing to meld yet — discard ${cardName(hn.discard)}, your least useful card`;
    steps.push({ kind: 'discard', cards: [hn.discard], text });
  }
  return steps;
}

// ---- Tile Rummy ----

// Steps from the committed table (`table`: [[ids]], shown as set 1, 2, …) to the solver's
// target arrangement (`hn.table`), with `hn.placed` the rack tiles it puts down; `face(id)`.
export function tileSteps(hn, table, face) {
  if (!hn || !hn.found) return [];
  const placed = new Set(hn.placed || []);
  const home = new Map(); // tile id -> index of its committed set
  table.forEach((s, i) => s.forEach((t) => home.set(t, i)));
  const same = (a, b) => a.length === b.length && a.every((t, i) => t === b[i]);
  const steps = [];
  for (const target of hn.table) {
    if (table.some((s) => same(s, target))) continue; // untouched
    const counts = new Map();
    for (const t of target) if (home.has(t)) counts.set(home.get(t), (counts.get(home.get(t)) || 0) + 1);
    const base = counts.size ? [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0][0] : null;
    const fromRack = target.filter((t) => placed.has(t));
    const moved = target.filter((t) => home.has(t) && home.get(t) !== base);
    const parts = [];
    if (fromRack.length) parts.push(`${fromRack.map((t) => tileName(face(t))).join(', ')} from your rack`);
    const bySet = new Map();
    for (const t of moved) { const k = home.get(t); if (!bySet.has(k)) bySet.set(k, []); bySet.get(k).push(t); }
    for (const [k, ts] of bySet) parts.push(`${ts.map((t) => tileName(face(t))).join(', ')} from set ${k + 1}`);
    let text;
    if (base === null && !moved.length) text = `New set from your rack: ${fromRack.map((t) => tileName(face(t))).join(', ')}`;
    else if (base === null) text = `New set: ${parts.join(' and ')}`;
    else if (!parts.length) text = `Set ${base + 1}: rearrange it`;
    else text = `Set ${base + 1}: add ${parts.join(' and ')}`;
    steps.push({ kind: base === null ? 'new' : 'change', tiles: [...fromRack, ...moved], target, text });
  }
  return steps;
}

// ---- drawing ----

// The hint panel. Data: null, or {steps: [{text, n}], note, tiles: null | [[faces of a
// target set]] (Tile Rummy: each step's resulting set), showMe: bool}.
export function drawHint(d, act) {
  if (!d) return null;
  const list = h('ol', { class: 'hint-steps' }, d.steps.map((s, i) => h('li', { class: `hint-step hint-${(i % STEP_COLOURS) + 1}${s.kind ? ` hint-kind-${s.kind}` : ''}`, 'data-step': i + 1 },
    h('span', { class: 'hint-n', 'aria-hidden': 'true' }, String(i + 1)),
    h('span', { class: 'hint-say' }, s.text),
    s.faces ? h('span', { class: 'hint-result', 'aria-label': `makes ${s.faces.map(tileName).join(', ')}` }, s.faces.map((f, j) => tileEl(f, { cls: s.marks[j] ? 'hint' : '', attrs: { 'aria-hidden': 'true' } }))) : null)));
  const parts = [d.note ? h('p', { class: 'hint-note' }, cap(d.note)) : null, d.steps.length ? list : null];
  if (d.showMe) {
    const b = h('button', { type: 'button', class: 'btn small primary', id: 'hint-show-me' }, 'Show me');
    b.addEventListener('click', act.showMe);
    parts.push(h('div', { class: 'hint-actions' }, b, h('span', { class: 'muted' }, 'Stages the play for you — still yours to Confirm or Reset.')));
  }
  return h('div', { class: 'hint-box' }, parts);
}

// Each step's own highlight, painted onto the cards/tiles/melds already drawn: `marks` is
// [[selector, step number]]. Every earlier mark is cleared first, so a redraw never keeps a
// stale colour.
export function paintHint(root, marks) {
  for (const e of root.querySelectorAll('[data-hint-step]')) { e.removeAttribute('data-hint-step'); e.classList.remove('hint-take'); }
  for (const [sel, n, cls] of marks) {
    for (const e of root.querySelectorAll(sel)) {
      e.setAttribute('data-hint-step', String(((n - 1) % STEP_COLOURS) + 1));
      if (cls) e.classList.add(cls);
    }
  }
}
