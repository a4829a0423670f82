// Agent Markdown, safely and without freezing the page (loaded on first use: lib/markdown.js imports this module
// dynamically, and hub/web/static_app.py preloads only static imports). Everything here is agent-controlled and
// treated as hostile.
//
// marked and highlight.js run in a Web Worker (lib/markdown-worker.js), one message at a time, the newest asked first,
// each within a time budget: past it the worker is ended and the message is shown as plain text (a 256K-character
// `a_a_a_…` message took 38.8 s on the page's thread; thousands of nested `>` overflowed marked's stack). The page
// keeps only the sanitising: DOMPurify with a strict allow-list, block by block, each block small enough to go into
// the page within a frame (lib/markdown.js paints them a few per frame). The CSP allows this worker as it is
// (script-src 'self', no worker-src: a same-origin module worker).

import DOMPurify from '../vendor/dompurify/purify.es.js';

/** How long the worker may take over one message before it is ended and the message shown as text. */
export const FORMAT_BUDGET_MS = 1500;
/** How long a new worker may take to load its code (marked, highlight.js) before it is taken as broken. The budget
 * above runs only once it has: on a slow phone or a busy machine loading alone can take longer than 1.5 s, and the
 * first message would have been shown as "too complex to format" for it. */
const LOAD_LIMIT_MS = 20000;

const TAGS = ['a', 'p', 'br', 'hr', 'strong', 'em', 'del', 's', 'code', 'pre', 'span', 'blockquote', 'ul', 'ol', 'li',
  'table', 'thead', 'tbody', 'tr', 'th', 'td', 'div', 'input'];
const ATTRS = ['href', 'title', 'class', 'align', 'start', 'type', 'checked', 'disabled'];
const CLASS = /^(hljs(-[a-z_-]+)?|language-[a-z]+|md-[a-z0-9-]+|[a-z_]+_)$/; // ours, highlight.js's (incl. `function_`)
const LINK_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/** The address a link of agent text may open, judged on the URL the browser would follow (never on how the text
 * starts: `java\tscript:`, ` javascript:` and `/\t/host` read differently to a prefix check than to the browser), or
 * null. http(s) and mailto only. */
export function safeLinkHref(value) {
  let parsed;
  try { parsed = new URL(String(value ?? ''), window.location.href); } catch { return null; }
  return LINK_PROTOCOLS.has(parsed.protocol) ? parsed.href : null;
}

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.hasAttribute('class')) {
    const kept = node.getAttribute('class').split(/\s+/).filter((c) => CLASS.test(c));
    if (kept.length) node.setAttribute('class', kept.join(' ')); else node.removeAttribute('class');
  }
  if (node.nodeName === 'A') {
    const href = node.hasAttribute('href') ? safeLinkHref(node.getAttribute('href')) : null;
    if (!href) node.removeAttribute('href');
    else {
      node.setAttribute('href', href); // what was judged is what opens
      node.setAttribute('target', '_blank'); // another site, never in place of the app
      node.setAttribute('rel', 'noopener noreferrer');
      node.classList.add('md-link');
    }
  }
  if (node.nodeName === 'PRE' || (node.nodeName === 'DIV' && node.classList.contains('md-table'))) {
    node.setAttribute('tabindex', '0'); // it may scroll sideways: reachable by keyboard (axe scrollable-region-focusable)
  }
  if (node.nodeName === 'INPUT') { // GFM task lists only: a checkbox nobody can tick
    if (node.getAttribute('type') !== 'checkbox') node.remove();
    else node.setAttribute('disabled', '');
  }
});

const CONFIG = {
  ALLOWED_TAGS: TAGS, ALLOWED_ATTR: ATTRS, ALLOW_DATA_ATTR: false, ALLOW_ARIA_ATTR: false,
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|\/\/)/i, RETURN_DOM_FRAGMENT: true,
};

/** One block's HTML from the worker as a DocumentFragment holding only allow-listed, inert elements. */
export function sanitizeBlock(html) {
  return DOMPurify.sanitize(String(html ?? ''), CONFIG);
}

// ---- the worker -------------------------------------------------------------------------------------------------

const WORKER_URL = new URL('./markdown-worker.js', import.meta.url);
const PIPELINE = 8; // jobs sent ahead, so the worker does not wait for the page between two messages
const waiting = []; // jobs not yet sent, in the order they were asked for
const sent = []; // jobs the worker has, in the order it answers them
let worker = null;
let workerReady = false; // it has said its code is loaded
let timer = 0;
let timed = null; // the job the timer runs for
let nextId = 1;
let pumpSoon = false;

// Answers already made, so a conversation opened again costs nothing: at most CACHE_CHARS characters of sources, the
// least recently used forgotten first; and which sources could not be formatted (ran out of time), so they are not
// tried again. A long source is keyed by a sample of it (V8 hashes a string over 16K characters by its length alone:
// 199 messages of one length made every lookup compare them all, a 1 s task) and checked whole on a hit.
const CACHE_CHARS = 4 * 1024 * 1024;
const FAILURES = 4096;
const cache = new Map(); // key → { source, answer }
const failures = new Map(); // key → answer
let cachedChars = 0;

function keyOf(text) {
  if (text.length <= 4096) return text;
  let hash = 0x811c9dc5;
  const step = Math.ceil(text.length / 2048);
  for (let i = 0; i < text.length; i += step) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  for (let i = text.length - 256; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  return `#${text.length}:${hash >>> 0}`;
}

function remember(key, source, answer) {
  if (answer.failed === 'load') return; // the worker's fault, not the message's: asked again when shown again
  if (answer.failed) {
    failures.delete(key);
    failures.set(key, answer);
    if (failures.size > FAILURES) failures.delete(failures.keys().next().value);
    return;
  }
  if (source.length > CACHE_CHARS / 4) return;
  const old = cache.get(key);
  if (old) { cache.delete(key); cachedChars -= old.source.length; }
  cache.set(key, { source, answer });
  cachedChars += source.length;
  for (const [oldest, entry] of cache) {
    if (cachedChars <= CACHE_CHARS) break;
    cache.delete(oldest);
    cachedChars -= entry.source.length;
  }
}

function known(key, source) {
  const entry = cache.get(key);
  if (entry && entry.source === source) {
    cache.delete(key);
    cache.set(key, entry); // the most recently used
    return entry.answer;
  }
  return failures.get(key); // a sample's collision shows text as text: the safe way round
}

function startWorker() {
  try {
    workerReady = false;
    worker = new Worker(WORKER_URL, { type: 'module', name: 'lineup-markdown' });
  } catch {
    worker = null;
    return;
  }
  const started = worker; // events of a worker ended since are not this one's
  worker.addEventListener('message', (event) => {
    if (started !== worker) return;
    if (event.data?.ready) {
      workerReady = true;
      timed = null; // the job at the head gets its whole budget from now
      armTimer();
      return;
    }
    if (event.data?.id !== sent[0]?.id) return;
    finish(sent.shift(), event.data.error ? { failed: 'error' } : { blocks: event.data.blocks });
    pump();
  });
  worker.addEventListener('error', (event) => {
    event.preventDefault?.();
    if (started === worker && sent.length) fail({ failed: workerReady ? 'error' : 'load' });
  });
}

/** The worker's current job failed (ran past its budget, or the worker broke): end the worker (the only way to stop a
 * runaway regular expression), and give the jobs sent after it to a new one. */
function fail(answer) {
  worker?.terminate();
  worker = null;
  if (answer.failed === 'load') {
    // The worker failed, not a message: every message waiting for it is told now, not each by a new worker of its
    // own (one at a time, up to the load limit apart). Not remembered: the next one asked starts a new worker.
    for (const job of sent.splice(0).concat(waiting.splice(0))) finish(job, answer);
    armTimer();
    return;
  }
  const job = sent.shift();
  waiting.unshift(...sent.splice(0)); // next, in their order
  if (job) finish(job, answer);
  pump();
}

function finish(job, answer) {
  remember(job.key, job.source, answer);
  job.resolve(answer);
}

function pump() {
  while (sent.length < PIPELINE && waiting.length) {
    if (!worker) startWorker();
    const job = waiting.shift();
    if (!worker) { finish(job, { failed: 'error' }); continue; }
    sent.push(job);
    worker.postMessage({ id: job.id, source: job.source });
  }
  armTimer();
}

/** The budget of the job at the head: from when the one before it was answered (or it was sent), once the worker has
 * loaded its code; before that, the limit on loading. */
function armTimer() {
  const head = sent[0] || null;
  if (head === timed) return;
  clearTimeout(timer);
  timed = head;
  if (!head) return;
  timer = workerReady ? setTimeout(() => fail({ failed: 'timeout' }), FORMAT_BUDGET_MS)
    : setTimeout(() => fail({ failed: 'load' }), LOAD_LIMIT_MS);
}

/**
 * Ask for `source` formatted: `{ answer, promise, cancel }`. `answer` is there at once when it was made before;
 * otherwise the promise resolves with `{ blocks }` (see lib/markdown-worker.js) or `{ failed: 'timeout' | 'error' |
 * 'load' }` ('load': the worker did not load its code; not remembered, so the message is asked again later).
 * `cancel()` drops a request not yet sent (one the worker has finishes within its budget; its answer is kept).
 * Requests are sent in the order they are made (lib/markdown.js asks for the newest message first).
 */
export function formatMarkdown(source) {
  const text = String(source ?? '');
  const key = keyOf(text);
  const answer = known(key, text);
  if (answer) return { answer, promise: Promise.resolve(answer), cancel() {} };
  let job;
  const promise = new Promise((resolve) => { job = { id: nextId++, key, source: text, resolve }; });
  waiting.push(job);
  if (!pumpSoon) { // sent after the current task, a batch at a time
    pumpSoon = true;
    queueMicrotask(() => { pumpSoon = false; pump(); });
  }
  return {
    answer: null,
    promise,
    cancel() {
      const at = waiting.indexOf(job);
      if (at !== -1) waiting.splice(at, 1);
    },
  };
}

/** `source` as one sanitised DocumentFragment (blocks too big for the page as plain text), or null when it could
 * not be formatted within the budget. lib/markdown.js paints the same blocks a few per frame instead. */
export async function renderMarkdown(source) {
  const answer = await formatMarkdown(source).promise;
  if (!answer.blocks) return null;
  const fragment = document.createDocumentFragment();
  for (const block of answer.blocks) {
    if (block.html !== undefined) fragment.append(sanitizeBlock(block.html));
    else {
      const text = document.createElement('div');
      text.className = block.code ? 'prewrap mono' : 'prewrap';
      text.textContent = block.text;
      fragment.append(text);
    }
  }
  return fragment;
}
