// GameShack's service worker, served as /sw.js (scope: the whole site) with the client's
// version written in by the server (server/static.py), so each deploy is a new worker.
// It keeps this version's static files, whose URLs carry the version (a deploy never gets an
// old module from here), and a copy of the page, asked of the network first, to start with
// when offline. It answers nothing else: /api/, /ws/ and all game state come from the server.
const VERSION = '__GS_VERSION__';
const CACHE = `gameshack-${VERSION}`;
const STATIC = `/static/${VERSION}/`;
const PAGE = '/'; // the one page: every client-side route (/g/CODE, /stats, …) is it
const NOT_PAGES = /^\/(api|ws|static)(\/|$)|\./; // as the server's own routes (server/app.py)

self.addEventListener('install', () => self.skipWaiting());

self.addEventListener('activate', (e) => {
  e.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith('gameshack-') && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

async function staticFile(req) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(req);
  if (hit) return hit;
  const res = await fetch(req);
  if (res.ok && res.type === 'basic') await cache.put(req, res.clone());
  return res;
}

async function page(req) {
  const cache = await caches.open(CACHE);
  try {
    const res = await fetch(req);
    const type = res.headers.get('content-type') || '';
    if (res.ok && res.type === 'basic' && type.startsWith('text/html')) await cache.put(PAGE, res.clone());
    return res;
  } catch (err) {
    const kept = await cache.match(PAGE);
    if (kept) return kept;
    throw err;
  }
}

self.addEventListener('fetch', (e) => {
  const req = e.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith(STATIC)) e.respondWith(staticFile(req));
  else if (req.mode === 'navigate' && !NOT_PAGES.test(url.pathname)) e.respondWith(page(req));
  // Anything else (the API, sockets, another version's files) is left to the network.
});

// A tap on a "your turn" notification (web/notify.js) brings back the game's tab.
self.addEventListener('notificationclick', (e) => {
  e.notification.close();
  const path = (e.notification.data && e.notification.data.path) || '/';
  e.waitUntil((async () => {
    const wins = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const win = wins.find((w) => new URL(w.url).pathname === path) || wins[0];
    if (win) return win.focus();
    return self.clients.openWindow(path);
  })());
});
