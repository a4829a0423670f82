// <lineup-markdown>: an agent's text as Markdown, without ever holding the page. The renderer (lib/markdown-render.js:
// DOMPurify here, marked and highlight.js in a worker) is fetched the first time a text needs it, so the app's cold
// load stays small.
//
// Whatever an agent sends (256 Ki characters, an 8,000-row table, quotes nested thousands deep, hundreds of such
// messages), no task on the page's thread is long: everything that costs in proportion to the text (looking at it,
// cutting it into pieces, putting them into the page) is done a little per frame, the newest message first;
// formatting runs in the worker within a time budget, and a message (or a block of it) that cannot be formatted in
// time or is too big to be is shown as plain text, with a note saying so. While folded (`preview`), only the first
// part is put into the page; the rest when it is opened. `plain`: always shown as text (a task's description).

import { t } from './i18n.js';

/** Whether `text` holds anything Markdown would change (otherwise it is shown as plain text, renderer unloaded).
 * Linear in the text: `[ \t]*`, never `\s*`, after a line start (`^\s*` re-scanned every following blank line: 100,000
 * new lines took 23 s). */
export function needsMarkdown(text) {
  return /[*_`#|~[\]<>&\\]|^[ \t]*([-+]|\d+[.)])\s|https?:\/\//m.test(String(text || ''));
}

// ---- plain text in pieces ---------------------------------------------------------------------------------------

// One piece of text is one block element: laying out a piece appended at the end does not lay out the ones before
// it again (85,000 short lines took 420 ms as one text node; as pieces, a few milliseconds per frame).
const PIECE_CHARS = 4000;
const PIECE_LINES = 100;

/** `text` cut into pieces of at most PIECE_CHARS characters and PIECE_LINES lines, at a line break where there is
 * one (that line break is dropped: the end of a block is one). Linear: each piece looks at its own window only. */
export function textPieces(text) {
  const pieces = [];
  let start = 0;
  while (start < text.length || !pieces.length) {
    const window = text.slice(start, start + PIECE_CHARS);
    let end = window.length;
    let lines = 1;
    for (let at = window.indexOf('\n'); at !== -1; at = window.indexOf('\n', at + 1)) {
      lines += 1;
      if (lines > PIECE_LINES) { end = at; break; }
    }
    let next = start + end;
    if (start + end < text.length) {
      const breakAt = window.lastIndexOf('\n', end);
      if (breakAt > 0) { end = breakAt; next = start + breakAt + 1; }
    }
    const piece = window.slice(0, end);
    pieces.push({ text: piece, chars: piece.length, lines: Math.min(lines, PIECE_LINES) });
    start = next;
  }
  return pieces;
}

// ---- a little per frame ------------------------------------------------------------------------------------------

// What one frame does, across all messages: measured in Chromium, 600 sanitised elements or 16,000 characters are
// sanitised, inserted and laid out in about 15–30 ms. A single item may be bigger (a block of up to
// lib/markdown-worker.js BLOCK_LIMITS), and is then the frame's only one.
const FRAME_CHARS = 16000;
const FRAME_ELEMENTS = 600;
const LINE_COST = 4; // a line costs more to lay out than a character (in characters)
const LOOK_COST = 1 / 64; // looking at a text (does it need Markdown, its pieces): per character, about 1/64 of a
// character laid out (2–3 ms for 256 Ki characters)
// Folded, a message shows about 22em: its first part is put into the page, the rest when it is opened.
const PREVIEW_CHARS = 3000;
const PREVIEW_LINES = 40;
// A message that needs Markdown is left empty this long for the worker's answer before it is shown as text meanwhile.
const PLAIN_AFTER_MS = 150;

const pending = []; // elements with something to do, the newest last (done first: it is the one in view)
let charsLeft = FRAME_CHARS;
let elementsLeft = FRAME_ELEMENTS;
let frameAsked = false;

function work() {
  while (pending.length && charsLeft > 0 && elementsLeft > 0) {
    const element = pending[pending.length - 1];
    const cost = element._step();
    if (!cost) {
      pending.pop();
      element._done();
      continue;
    }
    charsLeft -= cost.chars;
    elementsLeft -= cost.elements;
  }
  if (pending.length && !frameAsked) {
    frameAsked = true;
    requestAnimationFrame(() => {
      frameAsked = false;
      charsLeft = FRAME_CHARS;
      elementsLeft = FRAME_ELEMENTS;
      work();
    });
  }
}

let workSoon = false;

function wantWork(element) {
  const at = pending.indexOf(element);
  if (at !== -1) pending.splice(at, 1);
  pending.push(element);
  // After the current script (still in this task): every message of one render is queued first, the newest done first.
  if (!workSoon) {
    workSoon = true;
    queueMicrotask(() => { workSoon = false; work(); });
  }
}

function stopWork(element) {
  const at = pending.indexOf(element);
  if (at !== -1) pending.splice(at, 1);
}

// ---- the renderer, loaded on first use -----------------------------------------------------------------------------

let renderer = null; // lib/markdown-render.js once loaded
let loading = null;

function load() {
  loading ??= import('./markdown-render.js').then((module) => { renderer = module; return module; },
    (error) => { loading = null; throw error; }); // a failed load is tried again by the next message that needs it
  return loading;
}

/** What to paint for text shown as text. */
function textItems(text) {
  return textPieces(text).map((piece) => ({ kind: 'text', key: `t:${piece.text}`, ...piece }));
}

/** What to paint for the worker's blocks: sanitised HTML, or text where a block is too big for the page. */
function markdownItems(blocks) {
  const items = [];
  for (const block of blocks) {
    if (block.html !== undefined) {
      items.push({ kind: 'html', key: `h:${block.html}`, html: block.html, chars: block.chars, lines: block.lines,
        elements: block.elements });
      continue;
    }
    const className = block.code ? 'prewrap mono' : 'prewrap';
    for (const piece of textPieces(block.text)) items.push({ kind: 'text', key: `b:${className}:${piece.text}`, className, ...piece });
  }
  return items;
}

class LineupMarkdown extends HTMLElement {
  constructor() {
    super();
    this._source = undefined;
    this._preview = false;
    this._plain = false;
    this._looked = true; // whether the current source was looked at (what to show decided)
    this._looking = false;
    this._mode = 'text';
    this._items = []; // what should be shown
    this._itemsOf = null; // the source _items show (an older one while its new formatting is awaited)
    this._painted = []; // [{ key, nodes }]: the items in the page, a prefix of _items
    this._note = null; // why it is shown as text, if it could not all be formatted: a string key
    this._noteElement = null;
    this._request = null; // the worker's answer being waited for
    this._interim = 0;
    this._stale = false;
  }

  get source() { return this._source; }

  set source(value) {
    const text = String(value ?? '');
    if (text === this._source) return;
    this._source = text;
    this._update();
  }

  /** Shown as text, never formatted (a task's description). */
  get plain() { return this._plain; }

  set plain(value) {
    if (Boolean(value) === this._plain) return;
    this._plain = Boolean(value);
    if (this._source !== undefined) this._update();
  }

  /** Folded: put only the first part into the page. */
  get preview() { return this._preview; }

  set preview(value) {
    if (Boolean(value) === this._preview) return;
    this._preview = Boolean(value);
    if (this._source === undefined) return;
    if (!this._looked || this._hasMore()) wantWork(this);
    else this._done();
  }

  connectedCallback() {
    if (this._source === undefined) return;
    if (this._stale) this._update();
    else if (!this._looked || this._hasMore()) wantWork(this);
  }

  disconnectedCallback() {
    stopWork(this);
    clearTimeout(this._interim);
    if (this._request && !this._request.done) {
      this._request.cancel();
      this._stale = true; // asked again if it comes back
    }
    this._request = null;
  }

  /** A new source (or `plain`): looked at in the next slice of work, not now (a render sets hundreds at once). */
  _update() {
    this._stale = false;
    this._request?.cancel();
    this._request = null;
    clearTimeout(this._interim);
    this._looked = false;
    delete this.dataset.rendered;
    wantWork(this);
  }

  /** Decide what to show for the source: text, the worker's answer if known, or ask the worker. */
  _look() {
    this._looked = true;
    this._looking = true;
    try {
      this._decide(this._source);
    } finally {
      this._looking = false;
    }
  }

  _decide(text) {
    if (this._plain || !needsMarkdown(text)) {
      this._setItems('text', textItems(text), null, text);
      return;
    }
    const request = { done: false, handle: null, cancel() { this.done = true; this.handle?.cancel(); } };
    this._request = request;
    const finish = (answer) => {
      if (request.done) return;
      request.done = true;
      clearTimeout(this._interim);
      this._answer(text, answer);
    };
    const ask = (module) => {
      if (request.done) return;
      request.handle = module.formatMarkdown(text);
      if (request.handle.answer) finish(request.handle.answer);
      else request.handle.promise.then(finish);
    };
    if (renderer) ask(renderer);
    else {
      load().then(ask).catch(() => {
        if (request.done) return;
        request.done = true;
        this._show('text', textItems(text), 'markdown.notLoaded', text);
      });
    }
    if (request.done) return; // known already
    if (this._mode === 'markdown' && this._painted.length) return; // the formatted text stays until the new answer
    if (this._painted.length) this._setItems('text', textItems(text), null, text); // text stays text, growing (streamed)
    else this._interim = setTimeout(() => { if (!request.done) this._show('text', textItems(text), null, text); }, PLAIN_AFTER_MS);
  }

  _answer(text, answer) {
    if (text !== this._source) return;
    const show = this._looking ? this._setItems : this._show; // inside _step (its work goes on), or from an answer
    // 'load': the worker could not load its code, which says nothing of this message (and is asked again later).
    if (!answer.blocks) {
      show.call(this, 'text', textItems(text), answer.failed === 'load' ? 'markdown.notLoaded' : 'markdown.asText', text);
    } else {
      const items = markdownItems(answer.blocks);
      show.call(this, 'markdown', items, items.some((item) => item.kind === 'text') ? 'markdown.partlyText' : null, text);
    }
  }

  /** Show these items from a task of its own (an answer, a timer): the work is scheduled. */
  _show(mode, items, note, text) {
    this._setItems(mode, items, note, text);
    wantWork(this);
  }

  /** Keep what is in the page and still wanted, take away the rest; what is missing is painted by _step. */
  _setItems(mode, items, note, text) {
    this._mode = mode;
    this._items = items;
    this._note = note;
    this._itemsOf = text;
    let same = 0;
    while (same < this._painted.length && same < items.length && this._painted[same].key === items[same].key) same += 1;
    for (const gone of this._painted.splice(same)) for (const node of gone.nodes) node.remove();
    this.classList.toggle('prewrap', mode === 'text');
    if (note) {
      // Said first, where it is seen even while the message is folded.
      if (!this._noteElement) {
        this._noteElement = document.createElement('p');
        this._noteElement.className = 'md-note muted small';
        this._noteElement.setAttribute('role', 'note');
      }
      this._noteElement.textContent = t(note);
      if (this.firstChild !== this._noteElement) this.prepend(this._noteElement);
    } else this._noteElement?.remove();
    // Both said again by _done once these items are in: a text shown first and replaced by its formatted form (or
    // growing) kept "all" from before while the new items were still going in, and a reader took it for done.
    delete this.dataset.rendered;
    delete this.dataset.painted;
  }

  _hasMore() {
    if (this._painted.length >= this._items.length) return false;
    if (!this._preview) return true;
    let chars = 0;
    let lines = 0;
    for (let i = 0; i < this._painted.length; i += 1) { chars += this._items[i].chars; lines += this._items[i].lines; }
    return chars < PREVIEW_CHARS && lines < PREVIEW_LINES;
  }

  /** One slice of work: look at the source, or paint the next item. Returns what it cost, or null when there is
   * nothing more to do now. */
  _step() {
    if (!this._looked) {
      this._look();
      return { chars: Math.ceil(this._source.length * LOOK_COST) + 1, elements: 0 };
    }
    if (!this._hasMore()) return null;
    const item = this._items[this._painted.length];
    let nodes;
    if (item.kind === 'html') {
      const fragment = renderer.sanitizeBlock(item.html);
      nodes = [...fragment.childNodes];
      this.append(fragment);
    } else {
      const node = document.createElement('div');
      if (item.className) node.className = item.className;
      node.textContent = item.text;
      nodes = [node];
      this.append(node);
    }
    this._painted.push({ key: item.key, nodes });
    return { chars: Math.max(item.chars, item.html?.length || 0, 1) + LINE_COST * item.lines, elements: item.elements || 1 };
  }

  /** Nothing more to do for now: say what is shown, once it is the current source (`data-rendered`: markdown or
   * text; `data-painted`: all, or preview while folded; `data-fallback`: why it is text, if it could not all be
   * formatted). */
  _done() {
    if (!this._looked || this._itemsOf !== this._source || this._hasMore()) return;
    this.dataset.rendered = this._mode;
    this.dataset.painted = this._painted.length >= this._items.length ? 'all' : 'preview';
    if (this._note) this.dataset.fallback = this._note; else delete this.dataset.fallback;
  }
}

if (!customElements.get('lineup-markdown')) customElements.define('lineup-markdown', LineupMarkdown);
