// Entry point: routes between the lobby (/) and a game (/g/CODE), and wires the site menu.
import { modal } from './dom.js';
import { settingsPanel, distractionFree, onSettings } from './settings.js';
import { showRules } from './rules.js';
import { renderLobby } from './lobby.js';
import { openGame } from './game.js';
import './sound.js';

const root = document.getElementById('app');
let teardown = null;
let currentKind = null;

export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path); else history.pushState(null, '', path);
  route();
}

export function setGameKind(kind) { currentKind = kind; }

function applyFocusMode() {
  // Distraction-free only applies on the table; the lobby always shows the menu.
  document.documentElement.classList.toggle('focus', !!currentKind && distractionFree());
}
onSettings(applyFocusMode);

// Sign In and Stats (issue 8) load on demand so the game page stays light (≤ 150 KB).
function openAccountScreen(path) {
  let off = null;
  let left = false;
  const mod = path === '/signin' ? import('./signin.js') : import('./stats.js');
  mod.then((m) => { if (!left) off = (m.renderSignIn || m.renderStats)(root, navigate); });
  return () => { left = true; if (typeof off === 'function') off(); };
}

function route() {
  if (teardown) { teardown(); teardown = null; }
  currentKind = null;
  const m = location.pathname.match(/^\/g\/([A-Za-z0-9]{1,12})\/?$/);
  if (m) {
    teardown = openGame(root, m[1].toUpperCase(), { navigate, setKind: (k) => { currentKind = k; applyFocusMode(); } });
  } else if (location.pathname === '/signin' || location.pathname === '/stats') {
    teardown = openAccountScreen(location.pathname);
  } else {
    if (location.pathname !== '/') history.replaceState(null, '', '/' + location.search);
    teardown = renderLobby(root, navigate);
    document.title = 'GameShack';
  }
  applyFocusMode();
}

export function openSettings() {
  return modal('Settings', settingsPanel(), [{ label: 'Done', value: 'close', class: 'btn primary' }], { class: 'settings-modal' });
}

export function openRules() {
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
