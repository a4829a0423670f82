// The first reads, started while the app's modules load: the inbox's data need not wait for the code.
// index.html runs this module first and alone; lib/api.js takes each early answer over once, for the same request.

const TOKEN_KEY = 'lineup.token';
const early = new Map(); // "METHOD path" -> { token, body, response: Promise<Response> }

/** A short, human name for this browser, shown in the devices list ("Chrome on Android"). */
export function deviceName() {
  const ua = navigator.userAgent || '';
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox'
    : /Chrom(e|ium)\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : 'Browser';
  const os = /Android/.test(ua) ? 'Android' : /iPhone|iPad|iPod/.test(ua) ? 'iOS' : /Mac OS X/.test(ua) ? 'macOS'
    : /Windows/.test(ua) ? 'Windows' : /Linux/.test(ua) ? 'Linux' : '';
  return os ? `${browser} on ${os}` : browser;
}

/** The options lib/api.js sends with every request, so an early answer is the one it would have had. */
export function requestInit(method, token, body) {
  const headers = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return { method, headers, cache: 'no-store', credentials: 'omit', body };
}

function start(method, path, token, body) {
  const response = fetch(path, requestInit(method, token, body));
  response.catch(() => {}); // whoever takes it over sees the failure
  early.set(`${method} ${path}`, { token, body, response });
  return response;
}

/** The early answer to exactly this request (same token, same body), once; null when there is none. */
export function takeEarly(method, path, token, body) {
  const key = `${method} ${path}`;
  const entry = early.get(key);
  if (!entry) return null;
  early.delete(key);
  return entry.token === token && entry.body === body ? entry.response : null;
}

/** Drop what was not taken: after the first load, every read is asked for when it is needed. */
export function forgetEarly() {
  early.clear();
}

/** Where each list is read (lib/workspace.js refresh() asks the same paths). */
export const READ_PATHS = {
  inbox: '/api/inbox', agents: '/api/agents', conversations: '/api/conversations', tasks: '/api/tasks?limit=500',
  interactions: '/api/interactions',
};

/** The lists the first screen shows: the inbox and the agents, and the list the address opens on. The others are
 * read once it is painted (lib/workspace.js reload()): on a phone's few connections they would come before it. */
export function firstScreenReads(hash = window.location.hash) {
  const view = hash.replace(/^#\/?/, '').split(/[/?]/)[0];
  return ['inbox', 'agents', ...({ tasks: ['tasks'], conversations: ['conversations', 'interactions'] }[view] || [])];
}

function startReads(token) {
  // The log position first and the reads after its answer, as lib/workspace.js reload() orders them.
  const position = start('GET', '/api/state', token);
  start('GET', '/api/me', token);
  position.then((response) => {
    if (!response.ok) return;
    for (const kind of firstScreenReads()) start('GET', READ_PATHS[kind], token);
  }, () => {});
}

/** ICU's date data loads with the first date formatter (15–60 ms here, four times that on a slow phone): a worker
 * (lib/warm-dates-worker.js) loads it on another thread while the modules download, and the main thread's first
 * formatter, inside the first render of the inbox's cards, then finds it loaded. */
function warmDates() {
  // The app formats in 'en' or 'zh-CN' (lib/i18n.js locale()); Chinese when chosen or the browser's language.
  let saved = null;
  try { saved = localStorage.getItem('lineup.language'); } catch { saved = null; }
  const chinese = saved ? saved === 'zh' : /^zh\b/i.test(navigator.language || '');
  const url = new URL('./warm-dates-worker.js', import.meta.url);
  url.searchParams.set('locales', JSON.stringify(chinese ? ['zh-CN', 'en'] : ['en']));
  try { new Worker(url); } catch { /* no workers: the first render loads the data itself */ }
}

function begin() {
  let token = null;
  try { token = localStorage.getItem(TOKEN_KEY); } catch { token = null; }
  const hash = window.location.hash;
  if (hash.startsWith('#signin=')) {
    if (token) return; // a signed-in browser is asked before a link replaces its session (lineup-app.js boot)
    const code = decodeURIComponent(hash.slice('#signin='.length));
    const redeemed = start('POST', '/api/sign-in-links/redeem', null, JSON.stringify({ code, deviceName: deviceName() }));
    redeemed.then((response) => (response.ok ? response.clone().json() : null))
      .then((answer) => { if (answer?.token) startReads(answer.token); }, () => {});
    return;
  }
  if (token) startReads(token);
}

begin();
warmDates();
