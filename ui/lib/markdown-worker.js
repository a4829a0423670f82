// Runs in a module Web Worker started by lib/markdown-render.js: agent Markdown to HTML, off the page's thread. marked
// and highlight.js take seconds on some inputs (a 256K-character `a_a_a_…` message took 38.8 s, thousands of
// nested `>` overflow marked's stack); here that blocks nothing, and the page ends this worker when it runs past its
// time budget. The HTML is not trusted because of where it was made: the page sanitises every block with DOMPurify
// before it reaches the document.
//
// It says `{ ready: true }` once loaded. Asked `{ id, source }`, it answers `{ id, blocks }` (one entry per top-level
// Markdown block, in order) or `{ id, error }`. A block is `{ html, chars, lines, elements }`, or
// `{ text, code, chars, lines }` when its HTML would be too big or too deep to put into the page in one go (a
// 2,000-row table, a list nested 500 deep): the page shows that block as plain text.

import { Marked, Renderer } from '../vendor/marked/marked.esm.js';
import hljs from '../vendor/highlight/core.min.js';
import bash from '../vendor/highlight/languages/bash.min.js';
import css from '../vendor/highlight/languages/css.min.js';
import diff from '../vendor/highlight/languages/diff.min.js';
import go from '../vendor/highlight/languages/go.min.js';
import javascript from '../vendor/highlight/languages/javascript.min.js';
import json from '../vendor/highlight/languages/json.min.js';
import python from '../vendor/highlight/languages/python.min.js';
import rust from '../vendor/highlight/languages/rust.min.js';
import shell from '../vendor/highlight/languages/shell.min.js';
import sql from '../vendor/highlight/languages/sql.min.js';
import typescript from '../vendor/highlight/languages/typescript.min.js';
import xml from '../vendor/highlight/languages/xml.min.js';
import yaml from '../vendor/highlight/languages/yaml.min.js';

for (const [name, grammar] of Object.entries({ bash, css, diff, go, javascript, json, python, rust, shell, sql, typescript, xml, yaml })) {
  hljs.registerLanguage(name, grammar);
}

// One block's HTML beyond any of these is shown as text: sanitising and laying it out would hold the page's thread
// for tens of milliseconds per thousand elements (measured in Chromium: a 100×5 table, ~600 elements, 15–27 ms).
export const BLOCK_LIMITS = { elements: 1200, html: 32 * 1024, depth: 32 };
const HIGHLIGHT_CHARS = 20000; // longer code is not highlighted (it would be shown as text anyway)

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

const markdown = new Marked({
  gfm: true,
  breaks: true, // chat text: a new line is a new line, as it was when messages were shown as plain text
  renderer: {
    // Raw HTML in a message is shown as the text it is, never parsed (block and inline).
    html({ text }) { return escapeHtml(text); },
    // Agent headings look like headings but stay out of the page's outline (its h1/h2/h3 are the app's).
    heading({ tokens, depth }) { return `<p class="md-heading md-h${depth}">${this.parser.parseInline(tokens)}</p>\n`; },
    code({ text, lang }) {
      const language = String(lang || '').trim().split(/\s+/)[0].toLowerCase();
      const known = Boolean(language && hljs.getLanguage(language)) && text.length <= HIGHLIGHT_CHARS;
      // Unknown languages are not guessed (auto-detection runs every grammar): plain, escaped text.
      const body = known ? hljs.highlight(text, { language, ignoreIllegals: true }).value : escapeHtml(text);
      return `<pre class="md-code"><code class="hljs${known ? ` language-${language}` : ''}">${body}</code></pre>\n`;
    },
    // No agent image is loaded (CSP allows only this hub and data:, and an image can track the reader): a link.
    image({ href, text }) { return `<a href="${escapeHtml(href || '')}">${escapeHtml(text || href || '')}</a>`; },
    // Wide tables scroll sideways inside the message instead of widening the page.
    table(token) { return `<div class="md-table">${Renderer.prototype.table.call(this, token)}</div>\n`; },
  },
});

const VOID = new Set(['br', 'hr', 'input', 'img', 'wbr']);
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*>/g;

/** How many elements `html` makes and how deep they nest (marked escapes text, so every `<` starts a tag). */
export function measure(html) {
  let elements = 0;
  let depth = 0;
  let deepest = 0;
  for (const [, closing, name] of html.matchAll(TAG)) {
    if (closing) { depth -= 1; continue; }
    elements += 1;
    if (VOID.has(name.toLowerCase())) continue;
    depth += 1;
    if (depth > deepest) deepest = depth;
  }
  return { elements, depth: deepest };
}

const countLines = (text) => {
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines += 1;
  return lines;
};

/** `source` as its top-level blocks: each one's HTML, or its text when that HTML is too big for the page. */
const trimEnd = (text) => {
  let end = text.length;
  while (end > 0 && text[end - 1] === '\n') end -= 1;
  return text.slice(0, end);
};

/** `source` as its top-level blocks: each one's HTML, or its text when that HTML is too big for the page. */
export function markdownBlocks(source) {
  const tokens = markdown.lexer(String(source ?? ''));
  const blocks = [];
  for (const token of tokens) {
    if (token.type === 'space' || token.type === 'def') continue; // nothing to show (a def's links are resolved)
    const raw = String(token.raw ?? '');
    const sizes = { chars: raw.length, lines: countLines(raw) };
    const html = raw.length > BLOCK_LIMITS.html ? null : markdown.parser([token]);
    if (html !== null && !html.trim()) continue;
    const fits = html !== null && html.length <= BLOCK_LIMITS.html;
    const { elements, depth } = fits ? measure(html) : { elements: 0, depth: 0 };
    if (fits && elements <= BLOCK_LIMITS.elements && depth <= BLOCK_LIMITS.depth) {
      blocks.push({ html, elements, ...sizes });
    } else {
      const code = token.type === 'code';
      blocks.push({ text: code ? String(token.text ?? raw) : trimEnd(raw), code, ...sizes });
    }
  }
  return blocks;
}

if (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope) {
  self.addEventListener('message', (event) => {
    const { id, source } = event.data || {};
    let answer;
    try {
      answer = { id, blocks: markdownBlocks(source) };
    } catch (error) { // thousands of nested quotes overflow marked's stack: RangeError
      answer = { id, error: String(error?.name || error) };
    }
    self.postMessage(answer);
  });
  // Said once its code (marked, highlight.js) has loaded: the page's time budget for a message runs from here.
  self.postMessage({ ready: true });
}
