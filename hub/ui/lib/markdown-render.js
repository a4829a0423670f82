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
const waiting = []; // jobs not yet sent, the newest last (sent first: the newest message is the one in view)
const sent = []; // jobs the worker has, in the order it answers them
let worker = null;
let timer = 0;
let timed = null; // the job the timer runs for
let nextId = 1;
let pumpSoon = false;

// Answers already made, so a conversation opened again costs nothing (and a message that ran out of time is not
// tried again): at most CACHE_CHARS characters of sources, the least recently used forgotten first.
const CACHE_CHARS = 4 * 1024 * 1024;
const cache = new Map();
let cachedChars = 0;

function remember(source, answer) {
  if (source.length > CACHE_CHARS / 4) return;
  cache.delete(source);
  cache.set(source, answer);
  cachedChars += source.length;
  for (const key of cache.keys()) {
    if (cachedChars <= CACHE_CHARS) break;
    cache.delete(key);
    cachedChars -= key.length;
  }
}

/** The answer for `source` if it was formatted (or failed) before, else undefined. */
export function cachedFormat(source) {
  const answer = cache.get(source);
  if (answer) { cache.delete(source); cache.set(source, answer); } // most recently used
  return answer;
}

function startWorker() {
  try {
    worker = new Worker(WORKER_URL, { type: 'module', name: 'lineup-markdown' });
  } catch {
    worker = null;
    return;
  }
  worker.addEventListener('message', (event) => {
    if (event.data?.id !== sent[0]?.id) return;
    finish(sent.shift(), event.data.error ? { failed: 'error' } : { blocks: event.data.blocks });
    pump();
  });
  worker.addEventListener('error', (event) => {
    event.preventDefault?.();
    if (sent.length) fail({ failed: 'error' });
  });
}

/** The worker's current job failed (ran past its budget, or the worker broke): end the worker (the only way to stop a
 * runaway regular expression), and give the jobs sent after it to a new one. */
function fail(answer) {
  worker?.terminate();
  worker = null;
  const job = sent.shift();
  waiting.push(...sent.splice(0).reverse());
  if (job) finish(job, answer);
  pump();
}

function finish(job, answer) {
  remember(job.source, answer);
  job.resolve(answer);
}

function pump() {
  while (sent.length < PIPELINE && waiting.length) {
    if (!worker) startWorker();
    const job = waiting.pop();
    if (!worker) { finish(job, { failed: 'error' }); continue; }
    sent.push(job);
    worker.postMessage({ id: job.id, source: job.source });
  }
  // The budget of the job at the head: from when the one before it was answered (or it was sent).
  const head = sent[0] || null;
  if (head === timed) return;
  clearTimeout(timer);
  timed = head;
  if (head) timer = setTimeout(() => fail({ failed: 'timeout' }), FORMAT_BUDGET_MS);
}

/**
 * Ask for `source` formatted: `{ promise, cancel }`. The promise resolves with `{ blocks }` (see lib/markdown-worker.js)
 * or `{ failed: 'timeout' | 'error' }`; `cancel()` drops a request not yet started (one already running finishes
 * within its budget and its answer is kept for next time).
 */
export function formatMarkdown(source) {
  const text = String(source ?? '');
  const known = cachedFormat(text);
  if (known) return { promise: Promise.resolve(known), cancel() {} };
  let job;
  const promise = new Promise((resolve) => { job = { id: nextId++, source: text, resolve }; });
  waiting.push(job);
  // Sent after the current task: the messages of one render are all asked for first, and the newest is sent first.
  if (!pumpSoon) {
    pumpSoon = true;
    queueMicrotask(() => { pumpSoon = false; pump(); });
  }
  return {
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
