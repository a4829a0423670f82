// Agent Markdown to a sanitised DOM fragment (loaded on first use: marked, DOMPurify and highlight.js stay off
// the cold load: lib/markdown.js imports this module dynamically, and hub/web/static_app.py preloads only static
// imports). Everything here is agent-controlled and treated as hostile.

import { Marked, Renderer } from '../vendor/marked/marked.esm.js';
import DOMPurify from '../vendor/dompurify/purify.es.js';
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
      const known = Boolean(language && hljs.getLanguage(language));
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

const TAGS = ['a', 'p', 'br', 'hr', 'strong', 'em', 'del', 's', 'code', 'pre', 'span', 'blockquote', 'ul', 'ol', 'li',
  'table', 'thead', 'tbody', 'tr', 'th', 'td', 'div', 'input'];
const ATTRS = ['href', 'title', 'class', 'align', 'start', 'type', 'checked', 'disabled'];
const CLASS = /^(hljs(-[a-z_-]+)?|language-[a-z]+|md-[a-z0-9-]+|[a-z_]+_)$/; // ours, highlight.js's (incl. `function_`)
const LINK = /^(https?:|mailto:)/i;

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.hasAttribute('class')) {
    const kept = node.getAttribute('class').split(/\s+/).filter((c) => CLASS.test(c));
    if (kept.length) node.setAttribute('class', kept.join(' ')); else node.removeAttribute('class');
  }
  if (node.nodeName === 'A') {
    const href = node.getAttribute('href') || '';
    let ok = false;
    try { ok = LINK.test(new URL(href, window.location.href).protocol) && (LINK.test(href.trim()) || /^\/\//.test(href.trim())); } catch { ok = false; }
    if (!ok) node.removeAttribute('href');
    else {
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

/** `source` (Markdown from an agent) as a DocumentFragment holding only allow-listed, inert elements. */
export function renderMarkdown(source) {
  const htmlText = markdown.parse(String(source ?? ''), { async: false });
  return DOMPurify.sanitize(htmlText, CONFIG);
}
