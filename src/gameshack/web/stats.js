// The Stats screen ("Your Games"): overall record, By Opponent and match history, looked up by
// the display name you play under — signed in or not. One-on-one matches only; practice games
// against bots are not included (the server leaves them out).
import { h, clear } from './dom.js';
import { api } from './net.js';
import { createScope } from './scope.js';
import { settings } from './settings.js';
import { ensureAccountsCss, loadAccount } from './account.js';

const GAME_NAMES = { rummy: 'Rummy', tiles: 'Tile Rummy' };
const RESULT = { won: 'Won', lost: 'Lost', tied: 'Tied' };

const pct = (r) => (r == null ? '—' : `${Math.round(r * 100)}%`);
const signed = (n) => (n < 0 ? `−${-n}` : String(n)); // a real minus sign, not a hyphen
const num = (n) => (n == null ? '—' : signed(n));

function streakText(s) {
  if (!s) return '—';
  const word = { won: ['win', 'wins'], lost: ['loss', 'losses'], tied: ['tie', 'ties'] }[s.result];
  return `${s.count} ${s.count === 1 ? word[0] : word[1]}`;
}

function statTile(label, value, id) {
  return h('div', { class: 'stat', 'data-stat': id }, h('span', { class: 'stat-value' }, value), h('span', { class: 'stat-label' }, label));
}

function overallBlock(o) {
  return h('div', { class: 'stat-grid', id: 'stats-overall' },
    statTile('Played', num(o.played), 'played'),
    statTile('Won', num(o.won), 'won'),
    statTile('Lost', num(o.lost), 'lost'),
    statTile('Tied', num(o.tied), 'tied'),
    statTile('Win rate', pct(o.win_rate), 'win_rate'),
    statTile('Avg hand', num(o.avg_hand), 'avg_hand'),
    statTile('Best hand', num(o.best_hand), 'best_hand'),
    statTile('Streak', streakText(o.streak), 'streak'));
}

function opponentsBlock(list) {
  if (!list.length) return h('p', { class: 'muted' }, 'No one-on-one matches yet.');
  return h('table', { class: 'stats-table', id: 'stats-opponents' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Opponent'), h('th', { scope: 'col' }, 'Played'),
      h('th', { scope: 'col' }, 'W–L–T'), h('th', { scope: 'col' }, 'Win rate'), h('th', { scope: 'col', class: 'wide-only' }, 'Best hand'), h('th', { scope: 'col', class: 'wide-only' }, 'Streak'))),
    h('tbody', {}, list.map((o) => h('tr', { 'data-opponent': o.opponent },
      h('th', { scope: 'row' }, o.opponent),
      h('td', {}, num(o.played)),
      h('td', {}, `${o.won}–${o.lost}–${o.tied}`),
      h('td', {}, pct(o.win_rate)),
      h('td', { class: 'wide-only' }, num(o.best_hand)),
      h('td', { class: 'wide-only' }, streakText(o.streak))))));
}

function dateText(epoch) {
  const d = new Date(epoch * 1000);
  const thisYear = d.getFullYear() === new Date().getFullYear();
  return d.toLocaleDateString(undefined, { year: thisYear ? undefined : 'numeric', month: 'short', day: 'numeric' });
}

function historyBlock(page, onPage) {
  if (!page.total) return h('p', { class: 'muted' }, 'Finished one-on-one matches will be listed here.');
  const prev = h('button', { type: 'button', class: 'btn ghost small', disabled: page.page <= 1, id: 'history-prev' }, '← Newer');
  const next = h('button', { type: 'button', class: 'btn ghost small', disabled: page.page >= page.pages, id: 'history-next' }, 'Older →');
  prev.addEventListener('click', () => onPage(page.page - 1));
  next.addEventListener('click', () => onPage(page.page + 1));
  return h('div', {},
    h('ol', { class: 'history', id: 'stats-history' }, page.matches.map((m) => h('li', { class: `match ${m.result}`, 'data-result': m.result },
      h('span', { class: `pill result ${m.result}` }, RESULT[m.result]),
      h('span', { class: 'match-main' },
        h('b', {}, `vs ${m.opponent}`),
        h('span', { class: 'sub' }, `${GAME_NAMES[m.game] || m.game} · ${dateText(m.finished_at)}`)),
      h('span', { class: 'match-score', 'aria-label': `Final score ${m.my_score} to ${m.opponent_score}` }, `${signed(m.my_score)} : ${signed(m.opponent_score)}`),
      // issue 33: step through the match again (web/replay.js)
      h('a', { class: 'btn ghost small replay-link', href: `/g/${encodeURIComponent(m.code)}/replay`, 'data-link': true, 'aria-label': `Replay the match against ${m.opponent}` }, 'Replay')))),
    h('div', { class: 'pager' }, prev, h('span', { class: 'muted', id: 'history-page' }, `Page ${page.page} of ${page.pages}`, h('br'), `${page.total} ${page.total === 1 ? 'match' : 'matches'}`), next));
}

// The screen; returns its dispose().
export function openStats(root) {
  ensureAccountsCss();
  clear(root);
  document.title = 'Your Games · GameShack';
  const scope = createScope();
  let game = 'all';
  let name = (settings().name || '').trim();
  let histPage = 1;

  const nameInput = h('input', { type: 'text', id: 'stats-name', maxlength: 24, value: name, placeholder: 'Display name', 'aria-label': 'Display name to show stats for' });
  const seg = h('div', { class: 'seg', role: 'group', 'aria-label': 'Game' });
  for (const [v, t] of [['all', 'Both'], ['rummy', 'Rummy'], ['tiles', 'Tile Rummy']]) {
    const b = h('button', { type: 'button', 'data-value': v, 'aria-pressed': String(v === game) }, t);
    b.addEventListener('click', () => {
      game = v;
      for (const o of seg.children) o.setAttribute('aria-pressed', String(o === b));
      histPage = 1;
      load();
    });
    seg.append(b);
  }
  const lookup = h('form', { class: 'row stats-lookup' }, nameInput, h('button', { type: 'submit', class: 'btn small' }, 'Show'));
  lookup.addEventListener('submit', (e) => { e.preventDefault(); name = nameInput.value.trim(); histPage = 1; load(); });

  const overall = h('section', { class: 'panel', 'aria-labelledby': 'overall-h' }, h('h2', { id: 'overall-h' }, 'Overall'));
  const opponents = h('section', { class: 'panel', 'aria-labelledby': 'opp-h' }, h('h2', { id: 'opp-h' }, 'By Opponent'));
  const history = h('section', { class: 'panel wide', id: 'history-panel', 'aria-labelledby': 'hist-h' }, h('h2', { id: 'hist-h' }, 'Match History'));
  const err = h('p', { class: 'error-text', role: 'alert' });

  root.append(h('div', { class: 'stats-screen' },
    h('div', { class: 'stats-head wide' },
      h('p', { class: 'back-link' }, h('a', { href: '/', 'data-link': true }, '← Lobby')),
      h('h1', {}, 'Your Games'),
      h('p', { class: 'muted small' }, 'One-on-one matches only, name-based — no login. Practice games against bots aren\'t included.'),
      lookup, seg, err),
    overall, opponents, history));

  const body = (panel, el) => {
    while (panel.children.length > 1) panel.lastChild.remove();
    panel.append(el);
  };

  const loadHistory = async (p) => {
    const q = `name=${encodeURIComponent(name)}&game=${game}`;
    const page = await api(`/api/stats/history?${q}&page=${p}`);
    if (!scope.alive) return;
    histPage = page.page;
    body(history, historyBlock(page, (n) => loadHistory(n).catch((ex) => { err.textContent = ex.message; })));
  };

  async function load() {
    err.textContent = '';
    if (!name) {
      for (const p of [overall, opponents, history]) body(p, h('p', { class: 'muted' }, 'Pick a display name (in Settings or above) to see its record.'));
      return;
    }
    try {
      const q = `name=${encodeURIComponent(name)}&game=${game}`;
      const s = await api(`/api/stats?${q}`);
      if (!scope.alive) return;
      body(overall, overallBlock(s.overall));
      body(opponents, opponentsBlock(s.by_opponent));
      await loadHistory(histPage);
    } catch (ex) {
      err.textContent = ex.message;
    }
  }

  // Signed in, the account's name is the one you play under.
  loadAccount().then((a) => {
    if (!scope.alive) return;
    if (a && a.signed_in && a.name && a.name !== name) { name = a.name; nameInput.value = name; }
    load();
  });
  return { dispose: () => scope.dispose() };
}
