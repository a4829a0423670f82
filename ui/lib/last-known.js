// The last state the app showed, kept per signed-in device in IndexedDB: the installed app opens to it when the hub
// is out of reach, marked with its age (lineup-last-known.js), until the hub answers again.
//
// Kept: who is signed in and the lists the first screens show (inbox, conversations, tasks, agents, questions), as
// of a moment the app was live, with the log position they cover. Under the SHA-256 of the device token, never the
// token itself; one device's state at a time (another sign-in's is cleared when this one is saved), and none after
// the hub refused the token. Nothing kept answers as if live: an answer given meanwhile waits in the outbox, as any
// answer given offline does, and is sent when the hub answers.

const DB_NAME = 'lineup-last-known';
const STORE = 'states';
const SAVE_AFTER_MS = 1500; // a burst of changes is saved once, after it
const KEPT = ['me', 'agents', 'conversations', 'tasks', 'interactions', 'inbox', 'previews'];

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

let opened = null;
function database() {
  if (!globalThis.indexedDB) return Promise.resolve(null);
  opened ??= new Promise((resolve) => {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => resolve(null); // private mode, storage refused: the app works without it
  });
  return opened;
}

/** The key a device's state is kept under: the SHA-256 of its token (crypto.subtle exists in a secure context
 * only, as the service worker does; without either there is nothing to open offline anyway). */
async function deviceKey(token) {
  if (!token || !globalThis.crypto?.subtle) return null;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** What this device last showed: `{savedAt, epoch, sequence, state}`, or null. */
export async function loadLastKnown(token) {
  try {
    const [db, key] = await Promise.all([database(), deviceKey(token)]);
    if (!db || !key) return null;
    const record = await request(db.transaction(STORE).objectStore(STORE).get(key));
    return record?.state?.me ? record : null;
  } catch {
    return null;
  }
}

async function save(token, record) {
  const [db, key] = await Promise.all([database(), deviceKey(token)]);
  if (!db || !key) return;
  const tx = db.transaction(STORE, 'readwrite');
  tx.objectStore(STORE).clear(); // another account's state never outlives this one's sign-in
  tx.objectStore(STORE).put(record, key);
  await new Promise((resolve, reject) => { tx.oncomplete = resolve; tx.onerror = () => reject(tx.error); });
}

/** Forget every kept state (sign-out, a refused token). */
export async function forgetLastKnown() {
  try {
    const db = await database();
    if (db) await request(db.transaction(STORE, 'readwrite').objectStore(STORE).clear());
  } catch { /* nothing was kept */ }
}

/** Keep `workspace`'s state while it is live and loaded: saved a moment after each burst of changes. */
export function keepLastKnown(workspace) {
  let timer = null;
  const run = () => {
    timer = null;
    const { state, live } = workspace;
    if (workspace._stopped || state.lastKnown || state.connection.status !== 'live' || !state.inboxLoaded) return;
    const kept = Object.fromEntries(KEPT.map((name) => [name, state[name]]));
    save(workspace.token, { savedAt: new Date().toISOString(), epoch: live?.epoch ?? null,
      sequence: Math.max(workspace.covered ?? 0, 0), state: kept }).catch(() => {});
  };
  return workspace.subscribe((state) => {
    if (state.connection.status !== 'live' || state.lastKnown || timer) return;
    timer = setTimeout(run, SAVE_AFTER_MS);
  });
}
