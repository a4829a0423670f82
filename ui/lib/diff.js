// A unified diff (git diff, diff -u) as files, hunks and +/- lines, and its view: text only, never HTML, every line
// wrapped and every character a person cannot see marked.

import { html, nothing } from '../vendor/lit-html/lit-html.js';
import { t } from './i18n.js';
import { paintedRows } from './rows.js';
import { foldLine, piecesView, tallyPieces } from './text-shape.js';
import { visible } from './visible.js';

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
  if (file.label) return file.label; // an approval's item names its file itself (lib/approves.js)
  if (file.oldPath && file.newPath && file.oldPath !== file.newPath) return `${file.oldPath} → ${file.newPath}`;
  return file.newPath || file.oldPath || '?';
}

const SIGN = { add: '+', del: '−', context: ' ', note: '' };

// Lines wrap, every character a person cannot see is a mark and long runs of spaces or repeats are folded and counted
// (lib/text-shape.js): `import os` + 300 spaces + `;os.system(…)` showed as `import os` in a box that scrolled
// sideways, with no sign of the rest (docs/security.md#what-an-approval-shows).
function lineView(row) {
  return html`<div class="diff-line diff-${row.kind} mono" data-kind=${row.kind}><span
    class="diff-num" aria-hidden="true">${row.oldLine ?? ''}</span><span class="diff-num" aria-hidden="true">${row.newLine ?? ''}</span><span
    class="diff-sign">${row.kind === 'add' ? html`<span class="visually-hidden">${t('diff.added')}</span>` : ''}${row.kind === 'del'
      ? html`<span class="visually-hidden">${t('diff.removed')}</span>` : ''}<span aria-hidden="true">${SIGN[row.kind]}</span></span><span
    class="diff-text">${piecesView(row.pieces)}</span></div>`;
}

function rowView(row) {
  return row.hunk !== undefined ? html`<div class="diff-hunk-head mono">${visible(row.hunk)}</div>` : lineView(row);
}

// Rows are kept per file object, so a re-render of the same card hands the same array over (no repaint).
const rowsByFile = new WeakMap();

/** A file's rows to show (hunk headers and lines, each line's pieces), what is folded and marked in them, and the
 * longest line. Computed once per file object. */
export function diffRows(file) {
  let made = rowsByFile.get(file);
  if (made) return made;
  const rows = [];
  const tally = { folds: 0, marks: 0 };
  let longest = 0;
  for (const hunk of file.hunks) {
    rows.push({ hunk: hunk.header, cost: hunk.header.length });
    for (const line of hunk.lines) {
      const pieces = foldLine(line.text, { content: true });
      tallyPieces(pieces, tally);
      longest = Math.max(longest, line.text.length);
      rows.push({ kind: line.kind, oldLine: line.oldLine, newLine: line.newLine, pieces, cost: line.text.length });
    }
  }
  made = { rows, tally, longest };
  rowsByFile.set(file, made);
  return made;
}

/** The diff view of parsed files (parseUnifiedDiff), their lines wrapped. Long files go into the page a block of
 * lines per frame (lib/rows.js: a 2,000-line change drawn as one template was one long task on a phone). `focusable`:
 * each file's lines are a stop for the keyboard (a review's diff, in a box of its own). */
export function diffView(files, { focusable = true } = {}) {
  return html`<div class="diff" data-files=${files.length}>${files.map((file) => html`<section class="diff-file"
      aria-label=${t('diff.file', { name: fileName(file) })}>
    <header class="diff-file-head"><span class="diff-file-name mono">${visible(fileName(file))}${file.note
      ? html` <span class="diff-file-note">${file.note}</span>` : ''}</span>
      <span class="diff-stat"><span class="diff-stat-add">+${file.added}</span> <span class="diff-stat-del">−${file.removed}</span></span></header>
    <div class="diff-body" tabindex=${focusable ? '0' : nothing} role="group" aria-label=${t('diff.changes', { name: fileName(file) })}>
      ${paintedRows(diffRows(file).rows, rowView, 'diff-block')}
    </div></section>`)}</div>`;
}
