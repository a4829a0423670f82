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

// ---- Web Push (docs/notifications.md, "Web Push") --------------------------------------------------------------
// The hub encrypts each notification for this browser (RFC 8291); the push service wakes this worker with it, the
// phone locked or the app closed. What it shows was decided by the hub: the title and body it composed, at most one
// yes and a Deny for an approval (never a yes for one that carries a command, a file change or a tool's input, which
// the app shows whole), each answer a single-use token posted back in a body, never a URL.

const PUSH_ICON = '/icons/icon-192.png';
const ON_SCREEN_WAIT_MS = 800;

/** Whether an open, visible window of the app already shows what `note` announces: it answers itself (the toast's
 * rule, lib/notifications.js isOnScreen); a window that does not answer in time counts as not showing it. */
function shownInAWindow(windows, note) {
  const visible = windows.filter((w) => w.visibilityState === 'visible');
  return Promise.all(visible.map((client) => new Promise((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => resolve(false), ON_SCREEN_WAIT_MS);
    channel.port1.onmessage = (message) => { clearTimeout(timer); resolve(Boolean(message.data?.onScreen)); };
    client.postMessage({ type: 'lineup-push-on-screen', note }, [channel.port2]);
  }))).then((answers) => answers.some(Boolean));
}

async function showPush(note) {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  if (note.kind !== 'digest' && await shownInAWindow(windows, note)) return; // a card already on screen: no buzz
  const actions = Array.isArray(note.actions) ? note.actions : [];
  const tokens = {};
  for (const a of actions) if (a.token) tokens[a.action] = a.token;
  await self.registration.showNotification(String(note.title || 'LineUp'), {
    body: String(note.body || ''), tag: String(note.tag || note.id || 'lineup'), icon: PUSH_ICON, badge: PUSH_ICON,
    // A digest replaces the last one in silence; anything else is news, and says so again under the same tag.
    renotify: note.kind !== 'digest', silent: note.kind === 'digest', timestamp: Date.now(),
    actions: actions.map((a) => ({ action: String(a.action), title: String(a.title) })),
    data: { id: note.id, kind: note.kind, url: note.url || '/', tokens },
  });
}

self.addEventListener('push', (event) => {
  let note = null;
  try { note = event.data ? event.data.json() : null; } catch { note = null; }
  if (!note || typeof note !== 'object') return; // not the hub's: nothing of ours to show
  event.waitUntil(showPush(note));
});

/** Open the card the notification is about on this origin: an open window of the app is focused and told where to
 * go (its route changes, nothing reloads); with none, a new one opens there. */
async function openCard(path) {
  const url = new URL(path || '/', self.location.origin);
  if (url.origin !== self.location.origin) return null;
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((w) => new URL(w.url).origin === self.location.origin);
  if (open) {
    try { await open.focus(); } catch { /* focus needs the click's activation: the route changes all the same */ }
    open.postMessage({ type: 'lineup-open', url: url.href });
    return open;
  }
  return self.clients.openWindow(url.href);
}

/** A button's answer: its token posted to the hub (hub/notify/actions.py checks it once more). What the hub said
 * comes back as a quiet notification: done, or why not (answered elsewhere, expired, only in the app). */
async function answerFromNotification(token, data) {
  let words;
  try {
    const response = await fetch('/api/actions', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token }), credentials: 'omit' });
    const said = await response.json().catch(() => ({}));
    words = response.ok ? said.message : [said.error?.message, said.error?.hint].filter(Boolean).join(' ');
  } catch {
    words = 'The hub cannot be reached: nothing was answered. Open LineUp to answer.';
  }
  await self.registration.showNotification('LineUp', { body: String(words || ''), tag: String(data.id || 'lineup'),
    silent: true, icon: PUSH_ICON, data: { url: data.url || '/', tokens: {} } });
}

/** A tap on a notification (or one of its buttons); called by the listener below. */
function onNotificationClick(event) {
  const { notification, action } = event;
  const data = notification.data || {};
  notification.close();
  const token = action && data.tokens ? data.tokens[action] : null;
  return token ? answerFromNotification(token, data) : openCard(data.url);
}

self.addEventListener('notificationclick', (event) => event.waitUntil(onNotificationClick(event)));
