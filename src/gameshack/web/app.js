// Entry point: routes between the lobby (/), a game (/g/CODE) and the account screens
// (/signin, /stats), and wires the site menu. Every screen's open function returns
// {dispose}; the router disposes the screen it leaves, which removes everything it added.
import { modal } from './dom.js';
import { settingsPanel, distractionFree, onSettings } from './settings.js';
// The rules dialog loads when first opened: the game page stays under its weight budget.
const showRules = (...a) => import('./rules.js').then((m) => m.showRules(...a));
import { openGame } from './game.js';
import './sound.js';
import './a11y.js';

const root = document.getElementById('app');
let screen = null; // the open screen: {dispose}
let currentKind = null; // the open game's kind ('rummy' / 'tiles'), for the menu's Rules

function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path); else history.pushState(null, '', path);
  route();
}

function applyFocusMode() {
  // Distraction-free only applies on the table; the lobby always shows the menu.
  document.documentElement.classList.toggle('focus', !!currentKind && distractionFree());
}
onSettings(applyFocusMode);

// Every screen but the game's loads when first opened, so a game page fetches none of them
// (issue 31): the lobby, Sign In and Stats, a finished match's replay (issue 33) and the
// spectator's page. `open` is the screen's open function once its module is here; until then
// the page keeps what it shows.
function lazyScreen(module, open) {
  let opened = null;
  let left = false;
  module.then((m) => { if (!left) opened = open(m); });
  return { dispose() { left = true; if (opened) opened.dispose(); } };
}

function route() {
  if (screen) { screen.dispose(); screen = null; }
  currentKind = null;
  const replay = location.pathname.match(/^\/g\/([A-Za-z0-9]{1,12})\/replay\/?$/);
  const setKind = (k) => { currentKind = k; };
  if (replay) {
    screen = lazyScreen(import('./replay.js'), (mod) => mod.openReplay(root, replay[1].toUpperCase(), { navigate, setKind }));
    applyFocusMode();
    return;
  }
  const m = location.pathname.match(/^\/g\/([A-Za-z0-9]{1,12})\/?$/);
  const w = location.pathname.match(/^\/w\/([A-Za-z0-9_-]{1,64})\/?$/);
  if (w) {
    screen = lazyScreen(import('./watch.js'), (mod) => mod.openWatch(root, w[1], { navigate, setKind }));
  } else if (m) {
    screen = openGame(root, m[1].toUpperCase(), { navigate, setKind: (k) => { currentKind = k; applyFocusMode(); } });
  } else if (location.pathname === '/signin') {
    screen = lazyScreen(import('./signin.js'), (mod) => mod.openSignIn(root, navigate));
  } else if (location.pathname === '/stats') {
    screen = lazyScreen(import('./stats.js'), (mod) => mod.openStats(root, navigate));
  } else {
    if (location.pathname !== '/') history.replaceState(null, '', '/' + location.search);
    screen = lazyScreen(import('./lobby.js'), (mod) => mod.openLobby(root, navigate));
    document.title = 'GameShack';
  }
  applyFocusMode();
}

function openSettings() {
  return modal('Settings', settingsPanel(), [{ label: 'Done', value: 'close', class: 'btn primary' }], { class: 'settings-modal' });
}

function openRules() {
  return showRules(currentKind || 'rummy', { switchable: !currentKind });
}

document.getElementById('btn-settings').addEventListener('click', openSettings);
document.getElementById('btn-rules').addEventListener('click', openRules);
document.addEventListener('click', (e) => {
  const a = e.target.closest('a[data-link]');
  if (a && !e.metaKey && !e.ctrlKey && !e.shiftKey) { e.preventDefault(); navigate(a.getAttribute('href')); }
});
window.addEventListener('popstate', route);
route();
// Installable: the service worker (web/pwa/sw.js, served as /sw.js) keeps this version's
// static files; registered once the page has loaded, so it never slows the first view.
if ('serviceWorker' in navigator) {
  window.addEventListener('load', () => navigator.serviceWorker.register('/sw.js').catch(() => {}));
}
