// System notifications for "your turn" and new messages while the tab is in the background,
// and their rows in Settings. The browser asks the player for permission only when they tick
// "Show a notification", never before. Shown through the service worker when there is one
// (Android allows no other way).
import { h } from './dom.js';
export const supported = () => 'Notification' in window;

// Ask (only if not answered before); true when notifications may be shown.
export async function allow() {
  if (!supported()) return false;
  if (Notification.permission === 'default') await Notification.requestPermission();
  return Notification.permission === 'granted';
}

// The page's service worker once it is active (one installing or updating right now is waited
// for: Android shows no notification but through it); null when the page has none.
async function worker() {
  const sw = navigator.serviceWorker;
  if (!sw || !(await sw.getRegistration())) return null;
  const late = new Promise((resolve) => { setTimeout(() => resolve(null), 5000); });
  return Promise.race([sw.ready, late]);
}

export async function show(title, body, tag, path) {
  if (!supported() || Notification.permission !== 'granted') return;
  const icon = document.querySelector('link[rel=apple-touch-icon]');
  const opts = { body, tag, renotify: true, icon: icon ? icon.href : undefined, data: { path } };
  try {
    const reg = await worker();
    if (reg) { await reg.showNotification(title, opts); return; }
    const n = new Notification(title, opts);
    n.onclick = () => { window.focus(); n.close(); };
  } catch (err) { console.warn('notification not shown:', err); } // a nicety: never breaks play
}

// Settings' rows for a tab in the background (settings.js passes its checkbox maker, the
// settings and their setter: this module imports nothing of settings.js, which loads it).
export function settingRows(check, current, setSetting) {
  const can = supported() && window.isSecureContext; // browsers allow no other
  const on = can && current.notify && Notification.permission === 'granted';
  const box = h('input', { type: 'checkbox', id: 'set-notify', checked: on, disabled: !can });
  const why = supported() ? 'Notifications need a secure (https://) address.' : 'This browser cannot show notifications.';
  const note = h('p', { class: 'muted', id: 'notify-note', role: 'status' }, can ? '' : why);
  box.addEventListener('change', async () => {
    if (!box.checked) { setSetting('notify', false); note.textContent = ''; return; }
    const allowed = await allow().catch(() => false);
    box.checked = allowed;
    setSetting('notify', allowed);
    note.textContent = allowed ? '' : 'Notifications are blocked for this site in your browser\'s settings.';
  });
  return [
    h('div', { class: 'field-label' }, 'Your turn or a new message while this tab is in the background'),
    check('alertSound', 'Play a sound'),
    h('label', { class: 'check' }, box, ' ', 'Show a notification'), note,
  ];
}
