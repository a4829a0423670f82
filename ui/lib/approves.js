// What an approval approves, shown whole (docs/security.md#what-an-approval-shows): the command in full with its
// length and its end always in view, a file change as a diff. Never cut: what the person reads is what runs.

import { html } from '../vendor/lit-html/lit-html.js';
import { t, tn, formatNumber } from './i18n.js';

// The diff view is loaded the first time a card holds a file change (a dynamic import: off the phone's cold load).
let diffs = null;
let diffsLoading = null;

function loadDiffs(onReady) {
  diffsLoading ??= import('./diff.js').then((module) => { diffs = module; });
  diffsLoading.then(onReady, () => {});
}

/** The end of a text as a person reads it: its last non-empty line, its last 80 characters when longer. */
export function endOf(text) {
  const lines = String(text ?? '').split('\n').map((line) => line.trimEnd()).filter((line) => line.trim());
  const last = lines.length ? lines[lines.length - 1] : '';
  return last.length > 80 ? `…${last.slice(-80)}` : last;
}

function lineCount(text) {
  return text ? String(text).split('\n').length : 0;
}

/** "5,712 characters · 1 line · ends with …" — always under the text, outside its scroll box. */
export function sizeLine(text) {
  const value = String(text ?? '');
  const lines = lineCount(value);
  return t('approves.size', { chars: formatNumber(value.length), lines: tn('approves.lines', lines, { n: formatNumber(lines) }) });
}

function commandView(approves, uid) {
  const text = String(approves.command ?? '');
  return html`<section class="card-section approves" data-approves="command" aria-labelledby=${`${uid}-approves`}>
    <h4 id=${`${uid}-approves`}>${t('approves.command')}</h4>
    ${approves.cwd ? html`<p class="muted small">${t('approves.in', { cwd: approves.cwd })}</p>` : ''}
    <pre class="approves-text mono" tabindex="0" aria-label=${t('approves.command')}>${text}</pre>
    <p class="approves-end small" data-length=${text.length}><span class="approves-size">${sizeLine(text)}</span>
      · ${t('approves.endsWith')} <code class="approves-tail">${endOf(text)}</code></p>
  </section>`;
}

// The parsed files per `approves` object: the card is drawn again on every event, and a long diff's rows are painted
// a block per frame (lib/diff.js) only when they are new, so the same card must hand over the same files.
const filesOf = new WeakMap();

function changeFiles(approves) {
  if (!filesOf.has(approves)) filesOf.set(approves, parseChange(approves));
  return filesOf.get(approves);
}

/** The files for the diff view: the agent's unified diff, else the content as added lines or each edit's
 * old and new text. */
function parseChange(approves) {
  if (approves.diff) {
    const parsed = diffs.parseUnifiedDiff(approves.diff);
    if (parsed) return parsed;
  }
  const path = approves.path || '?';
  // A text's final newline ends its last line; it does not start another one.
  const numbered = (text, kind) => String(text ?? '').replace(/\n$/, '').split('\n').map((line, index) => ({
    kind, text: line, oldLine: kind === 'del' ? index + 1 : null, newLine: kind === 'add' ? index + 1 : null }));
  if (approves.kind === 'write') {
    const lines = numbered(approves.content, 'add');
    return [{ oldPath: null, newPath: path, added: lines.length, removed: 0,
      hunks: [{ header: t('approves.wholeFile'), lines }] }];
  }
  const hunks = (approves.edits || []).map((edit, index) => ({
    header: t(edit.replaceAll ? 'approves.editAll' : 'approves.editOne', { n: index + 1 }),
    lines: [...numbered(edit.old, 'del').map((l) => ({ ...l, oldLine: null })),
      ...numbered(edit.new, 'add').map((l) => ({ ...l, newLine: null }))] }));
  const count = (kind) => hunks.reduce((sum, h) => sum + h.lines.filter((l) => l.kind === kind).length, 0);
  return [{ oldPath: path, newPath: path, added: count('add'), removed: count('del'), hunks }];
}

function changeView(approves, uid, onReady) {
  if (!diffs) loadDiffs(onReady);
  const heading = approves.kind === 'write' ? t('approves.write', { path: approves.path })
    : t('approves.edit', { path: approves.path });
  // The hub counts `length` (hub/domain/approvals.py subject_text): a write's whole new content, an edit's old and new
  // text; counted the same here for an older hub. A write's characters are written, an edit's changed.
  const whole = approves.kind === 'write' ? approves.content
    : (approves.edits || []).map((edit) => `${edit.old}\n${edit.new}`).join('\n');
  return html`<section class="card-section approves" data-approves=${approves.kind} aria-labelledby=${`${uid}-approves`}>
    <h4 id=${`${uid}-approves`}>${heading}</h4>
    ${diffs ? html`<div class="review-content review-diff approves-diff">${diffs.diffView(changeFiles(approves))}</div>`
      : html`<p class="muted small"><span class="spinner small" aria-hidden="true"></span> ${t('app.loading')}</p>`}
    <p class="approves-end small" data-length=${approves.length ?? String(whole ?? '').length}>${t(approves.kind === 'write' ? 'approves.writeSize' : 'approves.changeSize', {
      chars: formatNumber(approves.length ?? String(whole ?? '').length) })}</p>
  </section>`;
}

/** The items of `spec.approves`: a list since 2026-12, one object in approvals stored before. */
export function approvalItems(approves) {
  if (Array.isArray(approves)) return approves.filter((item) => item && typeof item === 'object');
  return approves && typeof approves === 'object' ? [approves] : [];
}

function itemView(approves, uid, onReady) {
  if (approves.kind === 'command') return commandView(approves, uid);
  if (approves.kind === 'write' || approves.kind === 'edit') return changeView(approves, uid, onReady);
  return '';
}

/** The sections for `spec.approves`, every item, or '' when the card has none. `onReady` re-renders once the diff
 * view loads. */
export function approvesSection(approves, uid, onReady) {
  return approvalItems(approves).map((item, index) => itemView(item, `${uid}-${index}`, onReady));
}

/** One line for the high-risk confirmation: the size and the end of what is approved. */
export function confirmSummary(spec) {
  const items = approvalItems(spec);
  const approves = items.length === 1 ? items[0] : null;
  if (!approves || approves.kind !== 'command') return '';
  const text = String(approves.command ?? '');
  return t('approves.confirm', { chars: formatNumber(text.length), end: endOf(text) });
}
