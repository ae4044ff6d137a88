// Who is signed in (issue 8), the lobby's account bar, and keeping the account's name in step
// with Settings' default name. Small on purpose: every page loads it; the Sign In and Stats
// screens (signin.js, stats.js, which import this module) and their stylesheet load only when
// the router opens them.
import { h, clear, toast } from './dom.js';
import { api } from './net.js';
import { settings, setSetting, onSettings } from './settings.js';

let account = null; // {signed_in, email, name, needs_name} once known
const watchers = new Set();

export function setAccount(a) {
  account = a;
  for (const fn of watchers) fn(a);
}

export async function loadAccount() {
  try { setAccount(await api('/api/account')); } catch { /* offline: keep what we had */ }
  return account;
}

export function currentAccount() { return account; }

export function onAccount(fn) {
  watchers.add(fn);
  return () => watchers.delete(fn);
}

// The account's name follows Settings' default name ("you can change it later in Settings"),
// and a name chosen at sign-in becomes the default name used to create and join games.
let nameTimer = 0;
onSettings((s) => {
  if (!account || !account.signed_in || !s.name || s.name === account.name) return;
  clearTimeout(nameTimer);
  nameTimer = setTimeout(async () => {
    if (!account || !account.signed_in || settings().name === account.name) return;
    try { setAccount(await api('/api/account/name', { method: 'POST', body: { name: settings().name } })); } catch { /* invalid name: Settings keeps it locally */ }
  }, 700);
});

export function adoptName(a) {
  if (a && a.signed_in && a.name && settings().name !== a.name) setSetting('name', a.name);
}

// The strip under the lobby's title: a sign-in link, or who is signed in; and the Stats link.
let cssLoaded = false;
export function ensureAccountsCss() {
  if (cssLoaded) return;
  cssLoaded = true;
  // Beside this module, under the same versioned path (server/static.py).
  document.head.append(h('link', { rel: 'stylesheet', href: new URL('./accounts.css', import.meta.url).href }));
}

// `scope`: the lobby's lifetime; the bar stops listening with it.
export function accountBar(scope) {
  ensureAccountsCss();
  const bar = h('nav', { class: 'account-bar wide', 'aria-label': 'Account' });
  const render = (a) => {
    clear(bar);
    const stats = h('a', { href: '/stats', 'data-link': true, class: 'account-link', id: 'stats-link' }, '📊 Your Games');
    if (a && a.signed_in) {
      const out = h('button', { type: 'button', class: 'btn ghost small', id: 'sign-out' }, 'Sign out');
      out.addEventListener('click', async () => {
        out.disabled = true;
        try { setAccount(await api('/api/account/sign-out', { method: 'POST', body: {} })); toast('Signed out. Games on this device stay here.'); } catch (ex) { toast(ex.message); out.disabled = false; }
      });
      bar.append(h('span', { class: 'account-who', id: 'signed-in-as' }, 'Signed in as ', h('b', {}, a.name || a.email), a.name ? h('span', { class: 'muted' }, ` (${a.email})`) : null), stats, out);
    } else {
      bar.append(h('a', { href: '/signin', 'data-link': true, class: 'account-link', id: 'signin-link' }, '🔑 Sign in to sync games & stats'), stats);
    }
  };
  render(account);
  scope.add(onAccount(render));
  loadAccount();
  return bar;
}
