// A unified diff (git diff, diff -u) as files, hunks and +/- lines, and its view: text only, never HTML.

import { html, render } from '../vendor/lit-html/lit-html.js';
import { t } from './i18n.js';

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;

function cleanPath(path) {
  const name = path.replace(/\t.*$/, '').trim(); // `--- a/x.py\t2024-01-01 …` (diff -u puts a date after a tab)
  if (name === '/dev/null') return null;
  return name.replace(/^[ab]\//, '');
}

/**
 * The files of a unified diff, or null when `text` is not one. Each file: {oldPath, newPath, added, removed,
 * hunks: [{header, lines: [{kind: 'add'|'del'|'context'|'note', text, oldLine, newLine}]}]}.
 */
export function parseUnifiedDiff(text) {
  const lines = String(text ?? '').replace(/\r\n/g, '\n').split('\n');
  const files = [];
  let file = null;
  let hunk = null;
  let oldLine = 0;
  let newLine = 0;
  let oldLeft = 0;
  let newLeft = 0;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    if (hunk && (oldLeft > 0 || newLeft > 0)) {
      if (line === '' && i === lines.length - 1) break; // the text's last newline, not a blank context line
      const mark = line[0];
      if (mark === '+') { hunk.lines.push({ kind: 'add', text: line.slice(1), oldLine: null, newLine }); newLine += 1; newLeft -= 1; file.added += 1; continue; }
      if (mark === '-') { hunk.lines.push({ kind: 'del', text: line.slice(1), oldLine, newLine: null }); oldLine += 1; oldLeft -= 1; file.removed += 1; continue; }
      if (mark === ' ' || line === '') {
        hunk.lines.push({ kind: 'context', text: line.slice(1), oldLine, newLine });
        oldLine += 1; newLine += 1; oldLeft -= 1; newLeft -= 1;
        continue;
      }
      if (mark === '\\') { hunk.lines.push({ kind: 'note', text: line.slice(1).trim(), oldLine: null, newLine: null }); continue; }
      return null; // a hunk shorter than its header says: not a diff we can show faithfully
    }
    if (hunk && line.startsWith('\\')) { hunk.lines.push({ kind: 'note', text: line.slice(1).trim(), oldLine: null, newLine: null }); continue; }
    if (line.startsWith('diff --git ')) {
      const m = /^diff --git a\/(.+) b\/(.+)$/.exec(line);
      file = { oldPath: m ? m[1] : null, newPath: m ? m[2] : null, added: 0, removed: 0, hunks: [] };
      files.push(file);
      hunk = null;
      continue;
    }
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      const oldPath = cleanPath(line.slice(4));
      const newPath = cleanPath(lines[i + 1].slice(4));
      if (!file || file.hunks.length) {
        file = { oldPath, newPath, added: 0, removed: 0, hunks: [] };
        files.push(file);
      } else {
        file.oldPath = oldPath;
        file.newPath = newPath;
      }
      hunk = null;
      i += 1;
      continue;
    }
    const m = HUNK.exec(line);
    if (m) {
      if (!file) return null; // hunks need a file header first
      oldLine = Number(m[1]);
      newLine = Number(m[3]);
      oldLeft = m[2] === undefined ? 1 : Number(m[2]);
      newLeft = m[4] === undefined ? 1 : Number(m[4]);
      hunk = { header: line, lines: [] };
      file.hunks.push(hunk);
      continue;
    }
    if (hunk || !file) {
      // Text before the first file (a commit message) is allowed; after a hunk, only another file may start.
      if (hunk && line.trim() === '' && i === lines.length - 1) continue;
      if (hunk) hunk = null;
      continue;
    }
    // `index …`, `new file mode …`, `similarity index …`: git's lines between the headers.
  }
  if (hunk && (oldLeft > 0 || newLeft > 0)) return null; // cut short
  const shown = files.filter((f) => f.hunks.length);
  return shown.length ? shown : null;
}

function fileName(file) {
  if (file.oldPath && file.newPath && file.oldPath !== file.newPath) return `${file.oldPath} → ${file.newPath}`;
  return file.newPath || file.oldPath || '?';
}

const SIGN = { add: '+', del: '−', context: ' ', note: '' };
// Past this many lines a file's rows go into the page a block per frame (DiffLines below): a 2,000-line file change
// on an approval card drawn as one template was one long task on a phone, while the card waits to be answered.
const LINES_PER_BLOCK = 300;

function lineView(line) {
  return html`<div class="diff-line diff-${line.kind} mono" data-kind=${line.kind}><span
    class="diff-num" aria-hidden="true">${line.oldLine ?? ''}</span><span class="diff-num" aria-hidden="true">${line.newLine ?? ''}</span><span
    class="diff-sign">${line.kind === 'add' ? html`<span class="visually-hidden">${t('diff.added')}</span>` : ''}${line.kind === 'del'
      ? html`<span class="visually-hidden">${t('diff.removed')}</span>` : ''}<span aria-hidden="true">${SIGN[line.kind]}</span></span><span
    class="diff-text">${line.text}</span></div>`;
}

function rowView(row) {
  return row.hunk !== undefined ? html`<div class="diff-hunk-head mono">${row.hunk}</div>` : lineView(row);
}

function rowsOf(file) {
  const rows = [];
  for (const hunk of file.hunks) {
    rows.push({ hunk: hunk.header });
    rows.push(...hunk.lines);
  }
  return rows;
}

/** A long file's rows, LINES_PER_BLOCK of them a frame, each block rendered once into an element of its own (the
 * app re-renders the card on every event: the blocks already in the page cost nothing then). `data-complete` once
 * every row is in. */
class DiffLines extends HTMLElement {
  set rows(rows) {
    if (rows === this._rows) return;
    this._rows = rows;
    this._painted = 0;
    this.replaceChildren();
    this.removeAttribute('data-complete');
    if (this.isConnected) this._schedule();
  }

  connectedCallback() {
    if (this._rows && this._painted < this._rows.length) this._schedule();
  }

  disconnectedCallback() {
    cancelAnimationFrame(this._frame);
    this._frame = null;
  }

  _schedule() {
    if (this._frame) return;
    const step = () => {
      this._frame = null;
      if (!this.isConnected) return;
      const block = document.createElement('div');
      block.className = 'diff-block';
      render(html`${this._rows.slice(this._painted, this._painted + LINES_PER_BLOCK).map(rowView)}`, block);
      this.append(block);
      this._painted = Math.min(this._rows.length, this._painted + LINES_PER_BLOCK);
      if (this._painted < this._rows.length) this._frame = requestAnimationFrame(step);
      else this.setAttribute('data-complete', '');
    };
    step();  // the first block at once: a short diff looks no different, a long one starts where it should
  }
}
if (!customElements.get('lineup-diff-lines')) customElements.define('lineup-diff-lines', DiffLines);

// Rows are kept per file object, so a re-render of the same card hands the element the same array (no repaint).
const rowsByFile = new WeakMap();

function bodyView(file) {
  const count = file.hunks.reduce((sum, hunk) => sum + hunk.lines.length, 0);
  if (count <= LINES_PER_BLOCK) return file.hunks.map((hunk) => html`<div class="diff-hunk-head mono">${hunk.header}</div>
    ${hunk.lines.map(lineView)}`);
  if (!rowsByFile.has(file)) rowsByFile.set(file, rowsOf(file));
  return html`<lineup-diff-lines .rows=${rowsByFile.get(file)}></lineup-diff-lines>`;
}

/** The diff view of parsed files (parseUnifiedDiff). */
export function diffView(files) {
  return html`<div class="diff" data-files=${files.length}>${files.map((file) => html`<section class="diff-file"
      aria-label=${t('diff.file', { name: fileName(file) })}>
    <header class="diff-file-head"><span class="diff-file-name mono">${fileName(file)}</span>
      <span class="diff-stat"><span class="diff-stat-add">+${file.added}</span> <span class="diff-stat-del">−${file.removed}</span></span></header>
    <div class="diff-body" tabindex="0" role="group" aria-label=${t('diff.changes', { name: fileName(file) })}>
      ${bodyView(file)}
    </div></section>`)}</div>`;
}
