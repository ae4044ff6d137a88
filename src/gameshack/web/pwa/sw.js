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
    // The page's request starts while the worker starts up: the network first costs nothing.
    if (self.registration.navigationPreload) await self.registration.navigationPreload.enable();
    await self.clients.claim();
  })());
});

// Cache first: a versioned URL's file never changes. Kept after it is answered.
async function staticFile(e) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(e.request);
  if (hit) return hit;
  const res = await fetch(e.request);
  if (res.ok && res.type === 'basic') e.waitUntil(cache.put(e.request, res.clone()));
  return res;
}

// Network first: the page names the current version's files; its copy is for offline only.
async function page(e) {
  const cache = await caches.open(CACHE);
  try {
    const res = (await e.preloadResponse) || (await fetch(e.request));
    const type = res.headers.get('content-type') || '';
    if (res.ok && res.type === 'basic' && type.startsWith('text/html')) e.waitUntil(cache.put(PAGE, res.clone()));
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
  if (url.pathname.startsWith(STATIC)) e.respondWith(staticFile(e));
  else if (req.mode === 'navigate' && !NOT_PAGES.test(url.pathname)) e.respondWith(page(e));
  else if (req.mode === 'navigate') e.waitUntil(e.preloadResponse.catch(() => null)); // unused
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
