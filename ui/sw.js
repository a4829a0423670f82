// The service worker: keeps the app shell (this version's modules and styles) so the app opens without the
// network, and from the cache on every visit. The hub fills in VERSION and ASSETS when it serves this file
// (hub/web/static_app.py). Browsers run it only in a secure context: localhost, or the hub over TLS.

const VERSION = '%VERSION%';
const ASSETS = '%ASSETS%';
const CACHE = `lineup-${VERSION}`;

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(['/', ...ASSETS])).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  // Caches of older versions go: their files are never asked for again.
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith('lineup-') && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/v/')) {
    // Versioned files never change: the cache answers, the network only for what it lacks.
    event.respondWith(caches.match(request).then((hit) => hit || fetch(request)));
  } else if (request.mode === 'navigate') {
    // The page itself: the hub's current one when it answers (it names the current version), else the kept one.
    event.respondWith(fetch(request).catch(() => caches.match('/')));
  }
  // Everything else (/api, /ws, plugins' files) goes to the hub as usual.
});
