// System notifications for "your turn" and new messages while the tab is in the background.
// The browser asks the player for permission only when they turn this on in Settings, never
// before. Shown through the service worker when there is one (Android allows no other way).
export const supported = () => 'Notification' in window;

// Ask (only if not answered before); true when notifications may be shown.
export async function allow() {
  if (!supported()) return false;
  if (Notification.permission === 'default') await Notification.requestPermission();
  return Notification.permission === 'granted';
}

export async function show(title, body, tag, path) {
  if (!supported() || Notification.permission !== 'granted') return;
  const icon = document.querySelector('link[rel=apple-touch-icon]');
  const opts = { body, tag, renotify: true, icon: icon ? icon.href : undefined, data: { path } };
  try {
    const reg = navigator.serviceWorker && await navigator.serviceWorker.getRegistration();
    if (reg && reg.active) { await reg.showNotification(title, opts); return; }
    const n = new Notification(title, opts);
    n.onclick = () => { window.focus(); n.close(); };
  } catch { /* a notification is a nicety; never let it break play */ }
}
