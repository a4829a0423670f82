// What an approval approves, every item on the card's face, whole (docs/security.md#what-an-approval-shows): a command,
// a file written or edited (as a diff), a tool's input, a commit. Every line wraps; every character a person cannot
// see is a visible mark (lib/visible.js); a long text says its shape and its padding is folded and counted
// (lib/text-shape.js); nothing is cut and nothing sits in an inner scroll box, so the page's own scroll passes over
// all of it before the buttons (the card enables Approve once the end has been in view).

import { html } from '../vendor/lit-html/lit-html.js';
import { t, tn, formatNumber } from './i18n.js';
import { icon } from './icons.js';
import { visible, hiddenCharacters } from './visible.js';
import { textRows, textRowView, piecesView, partRanges, highlightRows, shapeOf } from './text-shape.js';
import { paintedRows } from './rows.js';

// The diff view is loaded the first time a card holds a file change (a dynamic import: off the phone's cold load).
let diffs = null;
let diffsLoading = null;

function loadDiffs(onReady) {
  diffsLoading ??= import('./diff.js').then((module) => { diffs = module; });
  diffsLoading.then(onReady, () => {});
}

/** The items of `spec.approves`: a list since 2026-12, one object in approvals stored before. */
export function approvalItems(approves) {
  if (Array.isArray(approves)) return approves.filter((item) => item && typeof item === 'object');
  return approves && typeof approves === 'object' ? [approves] : [];
}

/** `key`'s text with each `{slot}` replaced by a template (a path with its marks), the other `{vars}` as text. */
export function withSlots(key, vars, slots) {
  const text = t(key, vars);
  const out = [];
  const placeholder = /\{(\w+)\}/g;
  let at = 0;
  for (let m = placeholder.exec(text); m; m = placeholder.exec(text)) {
    if (!(m[1] in slots)) continue;
    out.push(text.slice(at, m.index), slots[m[1]]);
    at = m.index + m[0].length;
  }
  out.push(text.slice(at));
  return out;
}

/** A name from the agent (a path, a folder, a tool) in a heading: isolated, its hidden characters marked. */
const named = (value) => html`<span class="vis-name mono">${visible(String(value ?? '?'))}</span>`;

// The text models per item: the card is drawn again on every event, and the rows of a long text are painted a block
// per frame only when they are new (lib/rows.js), so the same item must hand over the same rows.
const models = new WeakMap();

function textModel(item, text, content = false) {
  let model = models.get(item);
  if (!model) {
    model = textRows(text, { content });
    if (model.shape.lines <= 1) for (const row of model.rows) if (!row.blank) row.n = null; // no gutter for one line
    models.set(item, model);
  }
  return model;
}

// At most this many places of a command are highlighted: a part named by several reasons, or found many times, does
// not turn the whole command into highlights.
const MAX_HIGHLIGHTS = 6;
const highlighted = new WeakMap();

/** A command's model with the parts its high-risk reasons name highlighted where they stand as whole words
 * (`highlights`: [{part, id, label}] from the card; text-shape.js partRanges). The same rows for the same reasons. */
function markedModel(item, text, highlights) {
  const model = textModel(item, text);
  if (!highlights?.length) return model;
  const key = highlights.map((h) => `${h.id}\u0000${h.part}\u0000${h.label}`).join('\u0001');
  const kept = highlighted.get(item);
  if (kept?.key === key) return kept.model;
  const ranges = [];
  for (const mark of highlights) {
    for (const [start, end] of partRanges(text, mark.part)) {
      if (ranges.length >= MAX_HIGHLIGHTS) break;
      if (!ranges.some(([a, b]) => start < b && end > a)) ranges.push([start, end, mark]);
    }
  }
  const marked = ranges.length ? { ...model, rows: highlightRows(model.rows, ranges), highlights: ranges.length } : model;
  highlighted.set(item, { key, model: marked });
  return marked;
}

/** The text of a tool item: the hub's indented JSON (`text`), made here the same way for an older hub. */
function toolText(item) {
  if (typeof item.text === 'string') return item.text;
  return JSON.stringify(item.input ?? null, null, 2);
}

/** "1 line of 5,694 characters" / "2 lines, the longest 5,680 characters, 5,694 in all". */
function linesPart(shape, chars) {
  if (shape.lines <= 1) return t('approves.shape.oneLine', { chars: formatNumber(chars) });
  return t('approves.shape.lines', { lines: formatNumber(shape.lines), longest: formatNumber(shape.longest),
    chars: formatNumber(chars) });
}

/** What is folded and marked, or "all shown" when nothing is (never said when something is folded). */
function foldsPart(folds, marks) {
  const parts = [];
  if (folds) parts.push(tn('approves.shape.folded', folds, { n: formatNumber(folds) }));
  if (marks) parts.push(tn('approves.shape.marked', marks, { n: formatNumber(marks) }));
  return parts.length ? parts.join(' · ') : t('approves.shape.allShown');
}

function shapeLine(parts, folds, marks) {
  return html`<p class="approves-shape small" data-folds=${folds} data-marks=${marks}>${[...parts, foldsPart(folds, marks)].join(' · ')}</p>`;
}

function textBox(model, label) {
  const numbered = model.shape.lines > 1;
  return html`<div class="approves-text mono ${numbered ? 'numbered' : ''}" role="group" aria-label=${label}
    data-lines=${model.shape.lines}>${paintedRows(model.rows, textRowView, 'text-block')}</div>`;
}

const cwdLine = (cwd) => (cwd ? html`<p class="approves-cwd muted small">${withSlots('approves.in', {}, { cwd: named(cwd) })}</p>` : '');

/** The item's heading: the kind's own words on a card of one item, "2 of 3: edit ~/.bashrc" and its risk on a card
 * of several. */
function heading(item, index, count, id) {
  const slots = { path: named(item.path), tool: named(item.tool), cwd: named(item.cwd) };
  if (count === 1) {
    const key = { command: 'approves.command', write: 'approves.write', edit: 'approves.edit', tool: 'approves.tool',
      commit: 'approves.commit' }[item.kind];
    return html`<h4 id=${id}>${withSlots(key, {}, slots)}</h4>`;
  }
  const what = withSlots(`approves.what.${item.kind}`, {}, slots);
  return html`<div class="approves-head"><h4 id=${id}>${withSlots('approves.item', { n: index + 1, count }, { what })}</h4>
    ${item.risk ? itemRisk(item.risk) : ''}</div>`;
}

/** An item's own risk, beside its heading (lib/status.js riskBadge's look; `data-item-risk`, not the card's `data-risk`). */
function itemRisk(risk) {
  const tone = risk === 'high' ? 'danger' : risk === 'medium' ? 'waiting' : 'neutral';
  const word = t(`risk.${risk}`);
  return html`<span class="badge tone-${tone}" data-item-risk=${risk}>${icon(risk === 'low' ? 'check' : 'warning')}<span>${
    word === `risk.${risk}` ? risk : word}</span></span>`;
}

function section(item, index, count, uid, body) {
  const id = `${uid}-approves-${index}`;
  return html`<section class="card-section approves" data-approves=${item.kind} data-item=${index}
      data-item-risk=${item.risk || ''} aria-labelledby=${id}>
    ${heading(item, index, count, id)}${body}</section>`;
}

function commandView(item, index, count, uid, highlights) {
  const text = String(item.command ?? '');
  const model = markedModel(item, text, highlights);
  return section(item, index, count, uid, html`${cwdLine(item.cwd)}
    ${shapeLine([linesPart(model.shape, text.length)], model.folds, model.marks)}
    ${textBox(model, t('approves.command'))}`);
}

function toolView(item, index, count, uid) {
  const text = toolText(item);
  const model = textModel(item, text);
  return section(item, index, count, uid, html`${cwdLine(item.cwd)}
    ${shapeLine([t('approves.shape.input', { chars: formatNumber(text.length) }), tn('approves.shape.lineCount',
      model.shape.lines, { n: formatNumber(model.shape.lines), longest: formatNumber(model.shape.longest) })],
      model.folds, model.marks)}
    ${textBox(model, t('approves.toolInput'))}`);
}

// The parsed files per item, for the same reason as `models`.
const filesOf = new WeakMap();

function changeFiles(item) {
  if (!filesOf.has(item)) filesOf.set(item, parseChange(item));
  return filesOf.get(item);
}

/** The files for the diff view: the agent's unified diff, else the content as added lines or each edit's
 * old and new text. */
function parseChange(item) {
  if (item.diff) {
    const parsed = diffs.parseUnifiedDiff(item.diff);
    // The file changed is the item's path: a diff of one file is headed with it, and says so when its own header
    // names another file (what the agent's diff claims is not what is written).
    if (parsed?.length === 1 && item.path) {
      const own = parsed[0].newPath || parsed[0].oldPath || '';
      const same = !own || item.path === own || item.path.endsWith(`/${own}`);
      return [{ ...parsed[0], label: item.path, note: same ? '' : t('approves.diffNames', { name: own }) }];
    }
    if (parsed) return parsed;
  }
  const path = item.path || '?';
  // A text's final newline ends its last line; it does not start another one.
  const numbered = (text, kind) => String(text ?? '').replace(/\n$/, '').split('\n').map((line, index) => ({
    kind, text: line, oldLine: kind === 'del' ? index + 1 : null, newLine: kind === 'add' ? index + 1 : null }));
  if (item.kind === 'write') {
    const lines = numbered(item.content, 'add');
    return [{ oldPath: null, newPath: path, added: lines.length, removed: 0,
      hunks: [{ header: t('approves.wholeFile'), lines }] }];
  }
  const hunks = (item.edits || []).map((edit, index) => ({
    header: t(edit.replaceAll ? 'approves.editAll' : 'approves.editOne', { n: index + 1 }),
    lines: [...numbered(edit.old, 'del').map((l) => ({ ...l, oldLine: null })),
      ...numbered(edit.new, 'add').map((l) => ({ ...l, newLine: null }))] }));
  const added = (kind) => hunks.reduce((sum, h) => sum + h.lines.filter((l) => l.kind === kind).length, 0);
  return [{ oldPath: path, newPath: path, added: added('add'), removed: added('del'), hunks }];
}

/** The characters a file item writes or changes. The hub counts `length` (hub/domain/approvals.py subject_text): a
 * write's whole new content, an edit's old and new text; counted the same here for an older hub. An edit that carries
 * only a diff counts its removed and added lines (once the diff view is loaded). */
function changedChars(item) {
  if (item.kind === 'edit' && !item.edits?.length && item.diff && diffs) {
    let chars = 0;
    for (const file of changeFiles(item)) for (const hunk of file.hunks) for (const line of hunk.lines) {
      if (line.kind === 'add' || line.kind === 'del') chars += line.text.length + 1;
    }
    return chars;
  }
  const whole = item.kind === 'write' ? item.content
    : (item.edits || []).map((edit) => `${edit.old}\n${edit.new}`).join('\n');
  return item.length ?? String(whole ?? '').length;
}

function changeView(item, index, count, uid, onReady) {
  if (!diffs) loadDiffs(onReady);
  // The hub counts `length` (hub/domain/approvals.py subject_text): a write's whole new content, an edit's old and new
  // text; counted the same here for an older hub. A write's characters are written, an edit's changed.
  const chars = changedChars(item);
  const size = t(item.kind === 'write' ? 'approves.shape.written' : 'approves.shape.changed', { chars: formatNumber(chars) });
  let body;
  if (diffs) {
    const files = changeFiles(item);
    const tally = { folds: 0, marks: 0 };
    let lines = 0;
    let longest = 0;
    for (const file of files) {
      const rows = diffs.diffRows(file);
      tally.folds += rows.tally.folds;
      tally.marks += rows.tally.marks;
      longest = Math.max(longest, rows.longest);
      for (const hunk of file.hunks) lines += hunk.lines.length;
    }
    body = html`${shapeLine([size, tn('approves.shape.lineCount', lines, { n: formatNumber(lines), longest: formatNumber(longest) })],
      tally.folds, tally.marks)}
      <div class="approves-diff">${diffs.diffView(files, { focusable: false })}</div>`;
  } else { // `data-loading`: the card does not count the end as reached before the change is on it
    body = html`<p class="approves-shape small">${size}</p>
      <p class="muted small" data-loading><span class="spinner small" aria-hidden="true"></span> ${t('app.loading')}</p>`;
  }
  const hidden = item.kind === 'write' && item.oldHidden
    ? html`<p class="approves-replaces small" data-old-hidden=${item.oldHidden}>${t('approves.oldHidden', {
      size: formatNumber(item.oldSize ?? 0), why: t(`approves.oldHidden.${item.oldHidden}`) })}</p>` : '';
  return section(item, index, count, uid, html`${cwdLine(item.cwd)}${hidden}${body}`);
}

const STATUS = new Set(['added', 'modified', 'deleted', 'renamed', 'copied', 'type_changed']);

function commitView(item, index, count, uid) {
  const message = String(item.message ?? '');
  const model = textModel(item, message);
  const files = Array.isArray(item.files) ? item.files : [];
  const hooks = Array.isArray(item.hooks) ? item.hooks : [];
  const id = (value) => html`<code class="approves-id" title=${value}>${String(value).slice(0, 12)}</code>
    <span class="approves-full-id mono small">${value}</span>`;
  return section(item, index, count, uid, html`
    <dl class="kv approves-commit">
      <dt>${t('approves.commit.tree')}</dt><dd>${item.tree ? id(item.tree) : '?'}</dd>
      <dt>${t('approves.commit.parent')}</dt><dd>${item.parent ? id(item.parent) : t('approves.commit.noParent')}</dd>
      <dt>${t('approves.commit.hooks')}</dt><dd class="approves-hooks" data-hooks=${hooks.length}>${hooks.length
        ? hooks.map((hook, i) => html`${i ? ', ' : ''}${named(hook)}`) : t('approves.commit.noHooks')}</dd>
    </dl>
    <h5 class="approves-sub">${t('approves.commit.message')}</h5>
    ${shapeLine([linesPart(model.shape, message.length)], model.folds, model.marks)}
    ${textBox(model, t('approves.commit.message'))}
    <h5 class="approves-sub">${tn('approves.commit.files', files.length, { n: formatNumber(files.length) })}</h5>
    <ul class="approves-files plain-list">${files.map((file) => html`<li data-status=${file.status}>
      <span class="approves-file-status">${STATUS.has(file.status) ? t(`approves.commit.status.${file.status}`) : file.status}</span>
      ${named(file.path)}${file.oldPath ? html` <span class="muted small">${withSlots('approves.commit.from', {}, { path: named(file.oldPath) })}</span>` : ''}
      ${file.binary ? html`<span class="muted small">${t('approves.commit.binary')}</span>`
        : html`<span class="diff-stat"><span class="diff-stat-add">+${file.added ?? 0}</span> <span class="diff-stat-del">−${file.removed ?? 0}</span></span>`}
    </li>`)}</ul>`);
}

function itemView(item, index, count, uid, onReady, highlights) {
  switch (item.kind) {
    case 'command': return commandView(item, index, count, uid, highlights);
    case 'write': case 'edit': return changeView(item, index, count, uid, onReady);
    case 'tool': return toolView(item, index, count, uid);
    case 'commit': return commitView(item, index, count, uid);
    default: return section(item, index, count, uid, html`<p class="muted small">${t('approves.unknownKind', { kind: item.kind })}</p>`);
  }
}

/** Every item of `spec.approves`, then the mark that its end has been reached (`.approves-end`: the card watches it
 * to enable Approve), or '' when the card has none. `onReady` re-renders once the diff view loads; `highlights`: the
 * parts the high-risk reasons name ([{part, id, label}]), highlighted in the commands. */
export function approvesSection(approves, uid, onReady, { highlights = [] } = {}) {
  const items = approvalItems(approves);
  if (!items.length) return '';
  return html`<div class="approves-list" data-items=${items.length}>
    ${items.map((item, index) => itemView(item, index, items.length, uid, onReady, highlights))}
    <div class="approves-end" aria-hidden="true"></div></div>`;
}

// ---- what a review is about ---------------------------------------------------------------------------------------

const looksLikeDiff = (text) => /^@@ -\d/m.test(text) && /^(--- |diff --git )/m.test(text);
const reviewFiles = new WeakMap();

/** The hidden characters of a review's content (visible.js: as a file's content, tabs and CRLF ordinary): the hub
 * does not judge a review, so the card says so itself. */
export function reviewHidden(spec) {
  return spec?.content ? hiddenCharacters(spec.content, { content: true }) : [];
}

/** What a review is about, as an approval's items are shown (docs/security.md#what-an-approval-shows): a unified diff
 * as a diff, any other text in a box of its lines, each wrapped, every hidden character a mark, read left to right,
 * filler folded and counted, no inner scroll box; then the mark of its end (`.approves-end`) that the card watches to
 * enable Approve. '' without content. */
export function reviewSection(spec, uid, onReady) {
  const content = String(spec?.content ?? '');
  if (!content) return '';
  const id = `${uid}-review`;
  let body;
  if (looksLikeDiff(content) && !diffs) {
    loadDiffs(onReady);
    body = html`<p class="muted small" data-loading><span class="spinner small" aria-hidden="true"></span> ${t('app.loading')}</p>`;
  } else {
    if (!reviewFiles.has(spec)) reviewFiles.set(spec, looksLikeDiff(content) ? diffs.parseUnifiedDiff(content) : null);
    const files = reviewFiles.get(spec);
    if (files) {
      const tally = { folds: 0, marks: 0 };
      for (const file of files) {
        const rows = diffs.diffRows(file);
        tally.folds += rows.tally.folds;
        tally.marks += rows.tally.marks;
      }
      body = html`${shapeLine([linesPart(shapeOf(content), content.length)], tally.folds, tally.marks)}
        <div class="approves-diff review-diff">${diffs.diffView(files, { focusable: false })}</div>`;
    } else {
      const model = textModel(spec, content, true);
      body = html`${shapeLine([linesPart(model.shape, content.length)], model.folds, model.marks)}
        ${textBox(model, t('card.review.content'))}`;
    }
  }
  return html`<div class="approves-list review-list" data-items="1">
    <section class="card-section approves review-content" data-approves="review" aria-labelledby=${id}>
      <h4 id=${id}>${t('card.review.content')}</h4>${body}</section>
    <div class="approves-end" aria-hidden="true"></div></div>`;
}

// ---- the high-risk confirmation -----------------------------------------------------------------------------------

const FIRST_LINE_CHARS = 240; // of a command's first line in the confirmation; cut at a space, never inside a word

/** The first line of a command as pieces, at most FIRST_LINE_CHARS of its text, cut after a whole word. */
function firstLine(model) {
  const pieces = [];
  let used = 0;
  let more = 0;
  for (const row of model.rows) {
    if (row.blank || (row.n !== null && row.n > 1)) break;
    for (const piece of row.pieces) {
      if (used >= FIRST_LINE_CHARS) { more += piece.text?.length ?? 0; continue; }
      if (piece.text === undefined) { pieces.push(piece); used += 12; continue; }
      if (used + piece.text.length <= FIRST_LINE_CHARS) { pieces.push(piece); used += piece.text.length; continue; }
      const room = FIRST_LINE_CHARS - used;
      const space = piece.text.lastIndexOf(' ', room);
      const cut = space > 0 ? space : (used ? 0 : room); // after a word; mid-word only for a word longer than all room
      if (cut) pieces.push({ ...piece, text: piece.text.slice(0, cut) });
      more += piece.text.length - cut;
      used = FIRST_LINE_CHARS;
    }
  }
  return { pieces, more };
}

function itemSummary(item, highlights) {
  const slots = { path: named(item.path), tool: named(item.tool), cwd: named(item.cwd) };
  if (item.kind === 'command') {
    const text = String(item.command ?? '');
    const model = markedModel(item, text, highlights);
    const first = firstLine(model);
    return html`<li data-approves=${item.kind}>${t('approves.sum.command', { shape: linesPart(model.shape, text.length) })}
      <code class="confirm-first-line">${piecesView(first.pieces)}${first.more ? html`<span class="muted"> … ${t('approves.sum.more', {
        n: formatNumber(first.more) })}</span>` : ''}</code></li>`;
  }
  if (item.kind === 'write' || item.kind === 'edit') {
    return html`<li data-approves=${item.kind}>${withSlots(`approves.sum.${item.kind}`, {
      chars: formatNumber(changedChars(item)) }, slots)}${item.oldHidden ? html` ${t('approves.sum.replaces')}` : ''}</li>`;
  }
  if (item.kind === 'tool') {
    return html`<li data-approves=${item.kind}>${withSlots('approves.sum.tool', {
      chars: formatNumber(toolText(item).length) }, slots)}</li>`;
  }
  if (item.kind === 'commit') {
    const files = Array.isArray(item.files) ? item.files.length : 0;
    const hooks = Array.isArray(item.hooks) && item.hooks.length
      ? withSlots('approves.sum.hooks', {}, { hooks: item.hooks.map((hook, i) => html`${i ? ', ' : ''}${named(hook)}`) })
      : t('approves.commit.noHooks');
    return html`<li data-approves=${item.kind}>${withSlots('approves.sum.commit', {
      files: tn('approves.commit.files', files, { n: formatNumber(files) }), tree: String(item.tree ?? '?').slice(0, 12) },
    { ...slots, hooks })}</li>`;
  }
  return '';
}

/** What the high-risk confirmation says is approved, in the hub's words (never the agent's `impact`): each item's kind
 * and size, a command's first line from its start. '' when the approval has no items. */
export function confirmWhat(approves, { highlights = [] } = {}) {
  const items = approvalItems(approves);
  if (!items.length) return '';
  return html`<div class="confirm-what"><p class="small"><strong>${tn('approves.sum.title', items.length, {
    n: formatNumber(items.length) })}</strong></p>
    <ul class="confirm-items small">${items.map((item) => itemSummary(item, highlights))}</ul></div>`;
}
