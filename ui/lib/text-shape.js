// The shape of a text an approval approves, and the text as rows to show with its padding folded and counted.
//
// A payload hides behind filler: 700 `&& true ` before it, 2,500 no-break spaces, 300 spaces after `import os`
// (docs/security.md#what-an-approval-shows). So a long text says its shape ("1 line of 5,694 characters", "2 lines,
// the longest 5,680 characters"), a run of repeats is one counted mark that names exactly what repeats (`⟨"&& true " ×
// 700⟩`, `⟨300 spaces⟩`, `⟨U+00A0 × 2500⟩`), and what follows it is on screen in the first lines. Every character is
// accounted for: a fold says what it stands for and how many times. Everything here is linear in the text (no
// regular expression that can backtrack), so a 60 KiB command costs a few milliseconds.

import { html, nothing } from '../vendor/lit-html/lit-html.js';
import { t } from './i18n.js';
import { hiddenAt, visiblePieces, pieceView } from './visible.js';

const MAX_UNIT = 32;       // the longest repeating unit looked for
const MIN_FOLD = 64;       // characters a run of repeats covers before it is folded
const MIN_REPEATS = 4;     // and at least this many times
const SPACES_INSIDE = 16;  // a run of plain spaces inside a line folded from this long
const SPACES_LEADING = 40; // at a line's start (indentation) from this long
const MIN_BLANK_LINES = 3; // empty lines in a row folded from this many
const ROW_CHARS = 2000;    // a longer line is shown as several rows (one block each may be put in per frame)

const isSpace = (code) => code === 0x20 || code === 0x09;
const isLowSurrogate = (code) => code >= 0xdc00 && code <= 0xdfff;

/** Characters, lines and the longest line's length. */
export function shapeOf(text) {
  const value = String(text ?? '');
  let lines = 0;
  let longest = 0;
  let start = 0;
  if (value.length) {
    for (;;) {
      const end = value.indexOf('\n', start);
      const stop = end === -1 ? value.length : end;
      lines += 1;
      longest = Math.max(longest, stop - start);
      if (end === -1) break;
      start = end + 1;
    }
  }
  return { chars: value.length, lines, longest };
}

/** Whether a unit is one code point repeated that another rule folds (a space, a hidden character). */
function foldedElsewhere(unit) {
  const first = unit.codePointAt(0);
  const size = first > 0xffff ? 2 : 1;
  for (let i = size; i < unit.length; i += size) if (unit.codePointAt(i) !== first) return false;
  return first === 0x20 || hiddenAt(unit, 0, false);
}

/** The runs of repeats worth folding in `line`: [{start, unit, count}], not overlapping, in order. For each unit
 * length p, one pass finds the stretches where every character equals the one p before it; the longest coverage is
 * taken first. O(MAX_UNIT × length). */
function repeatsIn(line) {
  const n = line.length;
  if (n < MIN_FOLD) return [];
  const found = [];
  for (let p = 1; p <= MAX_UNIT && p * MIN_REPEATS <= n; p += 1) {
    let j = 0;
    while (j + p < n) {
      if (line.charCodeAt(j) !== line.charCodeAt(j + p)) { j += 1; continue; }
      const start = j;
      while (j + p < n && line.charCodeAt(j) === line.charCodeAt(j + p)) j += 1;
      const length = j - start + p; // [start, j + p) repeats with period p
      const count = Math.floor(length / p);
      const run = length >= MIN_FOLD && count >= MIN_REPEATS ? candidate(line, start, length, p) : null;
      if (run && !foldedElsewhere(run.unit)) found.push(run);
    }
  }
  found.sort((a, b) => b.count * b.unit.length - a.count * a.unit.length || a.unit.length - b.unit.length
    || a.start - b.start);
  const taken = new Uint8Array(n);
  const chosen = [];
  for (const run of found) {
    const end = run.start + run.count * run.unit.length;
    let free = true;
    for (let i = run.start; i < end && free; i += 1) free = !taken[i];
    if (!free) continue;
    taken.fill(1, run.start, end);
    chosen.push(run);
  }
  return chosen.sort((a, b) => a.start - b.start);
}

/** A run starting where a word starts when it can (`&& true ` rather than ` && true`), never inside a surrogate pair. */
function candidate(line, start, length, p) {
  const count = Math.floor(length / p);
  const spare = length - count * p;
  let shift = 0;
  for (let s = 0; s <= spare; s += 1) {
    const at = start + s;
    if (!isSpace(line.charCodeAt(at)) && (at === 0 || isSpace(line.charCodeAt(at - 1)))) { shift = s; break; }
  }
  if (isLowSurrogate(line.charCodeAt(start + shift))) {
    if (shift + 1 > spare) return null;
    shift += 1;
  }
  return { start: start + shift, unit: line.slice(start + shift, start + shift + p), count };
}

/** A stretch of a line without repeats: hidden characters as marks, long runs of spaces folded. */
function plainPieces(text, atLineStart, content, into) {
  for (const piece of visiblePieces(text, { content })) {
    if (piece.text === undefined) { into.push(piece); atLineStart = false; continue; }
    const value = piece.text;
    let from = 0;
    for (let i = 0; i < value.length;) {
      if (value.charCodeAt(i) !== 0x20) { i += 1; continue; }
      let end = i;
      while (end < value.length && value.charCodeAt(end) === 0x20) end += 1;
      const leading = atLineStart && i === 0;
      if (end - i >= (leading ? SPACES_LEADING : SPACES_INSIDE)) {
        if (i > from) into.push({ text: value.slice(from, i) });
        into.push({ spaces: end - i });
        from = end;
      }
      i = end;
    }
    if (from < value.length) into.push({ text: value.slice(from) });
    atLineStart = false;
  }
}

/** One line as pieces: text, marks (visible.js), `{spaces}` and `{unit, count}` folds. */
export function foldLine(line, { content = false } = {}) {
  const pieces = [];
  let at = 0;
  for (const run of repeatsIn(line)) {
    if (run.start > at) plainPieces(line.slice(at, run.start), at === 0, content, pieces);
    pieces.push({ unit: run.unit, count: run.count, unitPieces: visiblePieces(run.unit, { content }) });
    at = run.start + run.unit.length * run.count;
  }
  if (at < line.length || !pieces.length) plainPieces(line.slice(at), at === 0, content, pieces);
  return pieces;
}

/** The characters a piece stands for (a fold's too), so a long line is cut into rows of about ROW_CHARS. */
function pieceChars(piece) {
  if (piece.text !== undefined) return piece.text.length;
  return 12; // a mark or a fold is one short label
}

/** What the folds and marks of `pieces` add to `tally` ({folds, marks}). */
export function tallyPieces(pieces, tally) {
  for (const piece of pieces) {
    if (piece.unit !== undefined || piece.spaces !== undefined) tally.folds += 1;
    else if (piece.mark) { tally.marks += piece.count; if (piece.count > 1) tally.folds += 1; }
  }
  return tally;
}

/** The characters of the text a piece stands for (a mark's, a fold's: all it counts). */
export function pieceLength(piece) {
  if (piece.text !== undefined) return piece.text.length;
  if (piece.mark) return piece.count * (piece.code > 0xffff ? 2 : 1);
  if (piece.tab) return piece.count;
  if (piece.cr) return 1;
  if (piece.spaces !== undefined) return piece.spaces;
  return piece.unit.length * piece.count;
}

/** A line's pieces cut into rows of about ROW_CHARS characters; a text piece is cut, never inside a surrogate pair.
 * Each row knows where in the text it starts (`at`). */
function rowsOfLine(pieces, number, rows, start) {
  let at = start;
  let row = { n: number, pieces: [], cost: 0, at };
  const push = (piece, chars) => { row.pieces.push(piece); row.cost += chars; at += pieceLength(piece); };
  for (const piece of pieces) {
    if (piece.text === undefined) {
      push(piece, pieceChars(piece));
    } else {
      let text = piece.text;
      while (row.cost + text.length > ROW_CHARS) {
        let cut = Math.max(1, ROW_CHARS - row.cost);
        if (isLowSurrogate(text.charCodeAt(cut))) cut += 1;
        push({ text: text.slice(0, cut) }, cut);
        rows.push(row);
        row = { n: null, pieces: [], cost: 0, at };
        text = text.slice(cut);
      }
      if (text) push({ text }, text.length);
    }
    if (row.cost >= ROW_CHARS) { rows.push(row); row = { n: null, pieces: [], cost: 0, at }; }
  }
  if (row.pieces.length || row.n !== null) rows.push(row);
}

/**
 * `text` as rows to show: `{n, pieces, cost, at}` (n: the line's number, null on a long line's later rows; at: where
 * in the text the row starts) and `{blank, from, count}` for empty lines in a row; with its shape and how many folds
 * and marks it holds. `content`: a file's content (tabs and CRLF line ends are ordinary).
 */
export function textRows(text, { content = false } = {}) {
  const value = String(text ?? '');
  const shape = shapeOf(value);
  const tally = { folds: 0, marks: 0 };
  const rows = [];
  const lines = value.split('\n');
  let at = 0;
  for (let i = 0; i < lines.length; i += 1) {
    if (lines[i] === '' && i < lines.length - 1) {
      let end = i;
      while (end < lines.length - 1 && lines[end] === '') end += 1;
      if (end - i >= MIN_BLANK_LINES) {
        rows.push({ blank: true, from: i + 1, count: end - i, cost: 1, at });
        tally.folds += 1;
        at += end - i;
        i = end - 1;
        continue;
      }
    }
    const pieces = foldLine(lines[i], { content });
    tallyPieces(pieces, tally);
    rowsOfLine(pieces, i + 1, rows, at);
    at += lines[i].length + 1;
  }
  return { rows, shape, folds: tally.folds, marks: tally.marks };
}

const BEFORE = new Set([...' \t\n;&|()<>\'"`={,']);
const AFTER = new Set([...' \t\n;&|()<>\'"`},']);

/** Where `part` stands in `text` as whole words (not inside another: `~` in `rm -rf ~` or `~/`, not in `~/code`),
 * at most `limit` times: [[start, end]]. A part cut by the hub (`…` at its end) is matched by what it keeps, from a
 * word's start. */
export function partRanges(text, part, limit = 3) {
  const value = String(text ?? '');
  let needle = String(part ?? '');
  const cut = needle.endsWith('…');
  if (cut) needle = needle.slice(0, -1);
  const found = [];
  if (!needle.trim()) return found;
  for (let at = value.indexOf(needle); at !== -1 && found.length < limit; at = value.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    const before = at === 0 || BEFORE.has(value[at - 1]) || BEFORE.has(needle[0]);
    const next = value[end];
    const after = cut || end === value.length || AFTER.has(next) || AFTER.has(needle[needle.length - 1])
      || (next === '/' && (end + 1 === value.length || AFTER.has(value[end + 1]) || value[end + 1] === '*'));
    if (before && after) found.push([at, end]);
  }
  return found;
}

/** `rows` (textRows) with the pieces inside `ranges` ([[start, end, mark]], in the text's offsets, not overlapping)
 * carrying their `mark` (`hl`): a text piece is cut at a range's edges; a mark or a fold inside one is marked whole. */
export function highlightRows(rows, ranges) {
  if (!ranges.length) return rows;
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  return rows.map((row) => {
    if (row.blank || row.at === undefined) return row;
    let at = row.at;
    let touched = false;
    const pieces = [];
    for (const piece of row.pieces) {
      const length = pieceLength(piece);
      const end = at + length;
      const inside = sorted.filter(([from, to]) => from < end && to > at);
      if (!inside.length) { pieces.push(piece); at = end; continue; }
      touched = true;
      if (piece.text === undefined) { pieces.push({ ...piece, hl: inside[0][2] }); at = end; continue; }
      let from = at;
      for (const [start, stop, mark] of inside) {
        const a = Math.max(start, at);
        const b = Math.min(stop, end);
        if (a > from) pieces.push({ text: piece.text.slice(from - at, a - at) });
        pieces.push({ text: piece.text.slice(a - at, b - at), hl: mark });
        from = b;
      }
      if (from < end) pieces.push({ text: piece.text.slice(from - at) });
      at = end;
    }
    return touched ? { ...row, pieces } : row;
  });
}

/** A fold as the page shows it: one counted mark naming what it stands for, with an accessible name. */
function foldView(piece) {
  if (piece.spaces !== undefined) {
    const name = t('approves.fold.spaces', { count: piece.spaces });
    return html`<span class="vis-fold" role="img" aria-label=${name} title=${name} data-spaces=${piece.spaces}>⟨${name}⟩</span>`;
  }
  const unit = piece.unitPieces.map((p) => (p.text !== undefined ? p.text : pieceView(p)));
  const name = t('approves.fold.repeat', { unit: piece.unit, count: piece.count });
  return html`<span class="vis-fold vis-repeat" role="img" aria-label=${name} title=${name} data-unit=${piece.unit}
    data-count=${piece.count}>⟨"<span class="vis-unit">${unit}</span>" × ${piece.count}⟩</span>`;
}

const oneView = (piece) => (piece.unit !== undefined || piece.spaces !== undefined ? foldView(piece) : pieceView(piece));

/** Pieces (foldLine, visible.js visiblePieces) as the page shows them; a run of pieces inside a part a high-risk
 * reason names (`hl`: {id, label}, highlightRows) in one `<mark>` described by that reason. */
export function piecesView(pieces) {
  if (!pieces.some((piece) => piece.hl)) return pieces.map(oneView);
  const out = [];
  for (let i = 0; i < pieces.length;) {
    const hl = pieces[i].hl;
    if (!hl) { out.push(oneView(pieces[i])); i += 1; continue; }
    const run = [];
    while (i < pieces.length && pieces[i].hl === hl) { run.push(pieces[i]); i += 1; }
    out.push(html`<mark class="risk-part" data-part=${hl.part} title=${hl.label} aria-describedby=${hl.id || nothing}>${run.map(oneView)}</mark>`);
  }
  return out;
}

/** Rows (textRows) as the page shows them: the line's number in a gutter (when `numbered`), its pieces. */
export function textRowView(row) {
  if (row.blank) {
    const name = t('approves.fold.blank', { count: row.count });
    return html`<div class="text-row text-blank" data-line=${row.from}><span class="text-num" aria-hidden="true">${row.from}–${row.from + row.count - 1}</span><span
      class="text-body"><span class="vis-fold" role="img" aria-label=${name} title=${name} data-blank=${row.count}>⟨${name}⟩</span></span></div>`;
  }
  return html`<div class="text-row ${row.n === null ? 'text-more' : ''}" data-line=${row.n ?? ''}><span class="text-num"
    aria-hidden="true">${row.n ?? ''}</span><span class="text-body">${piecesView(row.pieces)}</span></div>`;
}
