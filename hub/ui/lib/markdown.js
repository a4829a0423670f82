// <lineup-markdown>: an agent's text as Markdown. Plain text first; the renderer (marked, DOMPurify, highlight.js:
// lib/markdown-render.js) is fetched the first time a text needs it, so the app's cold load stays small.

let renderer = null; // the loaded module's renderMarkdown
let loading = null;

/** Whether `text` holds anything Markdown would change (otherwise it is shown as plain text, renderer unloaded). */
export function needsMarkdown(text) {
  return /[*_`#|~[\]<>&\\]|^\s*([-+]|\d+[.)])\s|https?:\/\/|^\s*>/m.test(String(text || ''));
}

function load() {
  loading ??= import('./markdown-render.js').then((module) => { renderer = module.renderMarkdown; return renderer; });
  return loading;
}

class LineupMarkdown extends HTMLElement {
  get source() { return this._source; }

  set source(value) {
    const text = String(value ?? '');
    if (text === this._source) return;
    this._source = text;
    this._paint();
  }

  _paint() {
    const text = this._source;
    if (!needsMarkdown(text)) {
      this.classList.add('prewrap');
      this.textContent = text;
      return;
    }
    if (renderer) {
      this.classList.remove('prewrap');
      this.replaceChildren(renderer(text));
      this.dataset.rendered = 'markdown';
      return;
    }
    // Until the renderer arrives the text is readable as it is.
    this.classList.add('prewrap');
    this.textContent = text;
    load().then(() => { if (this._source === text) this._paint(); }, () => {});
  }
}

if (!customElements.get('lineup-markdown')) customElements.define('lineup-markdown', LineupMarkdown);
