// What an agent's tool did, drawn from a message's `{type: "tool"}` block (docs/protocol.md "Tool activity"), as the
// agents' own interfaces show it: one line (read X, edited X +3 −1, ran `cmd` → exit 0), the last lines of a command's
// output, and the rest (all of the output kept, the diff) one tap away in a native <details>.

import { html, nothing } from '../vendor/lit-html/lit-html.js';
import { icon } from './icons.js';
import { t, tn } from './i18n.js';
import { visible } from './visible.js';
import { parseUnifiedDiff, diffView } from './diff.js';

const TAIL_LINES = 3; // the output's last lines shown without a tap
const STATUS_ICON = { completed: 'succeeded', failed: 'failed', denied: 'cancelled', stopped: 'stop', unfinished: 'cancelled' };

/** The message's tool block, or null. */
export function toolBlockOf(message) {
  return (message?.blocks || []).find((b) => b && b.type === 'tool' && typeof b.kind === 'string') || null;
}

/** Whether Stop cut this message short: null, 'cut' (its text is what came before Stop) or 'alone' (the message is
 * the mark only). */
export function stoppedMark(message) {
  const mark = (message?.blocks || []).find((b) => b && b.type === 'stopped');
  return mark ? (mark.alone ? 'alone' : 'cut') : null;
}

function str(value) {
  return typeof value === 'string' ? value : '';
}

/** How it ended, in words; an exit code where the agent gave one. */
function outcome(block) {
  const status = str(block.status);
  if (Number.isInteger(block.exitCode) && (status === 'completed' || status === 'failed')) {
    return html`<span class="badge ${block.exitCode === 0 ? 'tone-success' : 'tone-danger'} tool-use-exit">${icon(block.exitCode === 0
      ? 'succeeded' : 'failed')}<span>${t('toolUse.exit', { code: block.exitCode })}</span></span>`;
  }
  if (status === 'completed' || !STATUS_ICON[status]) return nothing;
  const tone = status === 'failed' ? 'tone-danger' : 'tone-neutral';
  return html`<span class="badge ${tone} tool-use-status">${icon(STATUS_ICON[status])}<span>${t(`toolUse.status.${status}`)}</span></span>`;
}

function counts(added, removed) {
  return html`<span class="diff-stat"><span class="diff-stat-add">+${added}</span> <span class="diff-stat-del">−${removed}</span></span>`;
}

function headline(block) {
  const changes = Array.isArray(block.changes) ? block.changes : [];
  const paths = Array.isArray(block.paths) ? block.paths.filter((p) => typeof p === 'string') : [];
  if (block.kind === 'execute' && str(block.command)) {
    return html`<span class="tool-use-verb">${t('toolUse.ran')}</span> <code class="tool-use-command mono">${visible(block.command)}</code>`;
  }
  if (changes.length) {
    const added = changes.reduce((n, c) => n + (Number(c.added) || 0), 0);
    const removed = changes.reduce((n, c) => n + (Number(c.removed) || 0), 0);
    const one = changes.length === 1;
    const verb = one && changes[0].created ? t('toolUse.created') : t('toolUse.edited');
    return html`<span class="tool-use-verb">${verb}</span> <span class="tool-use-path mono">${one ? visible(str(changes[0].path))
      : tn('toolUse.files', changes.length)}</span> ${counts(added, removed)}`;
  }
  const verb = { read: 'toolUse.read', search: 'toolUse.searched', fetch: 'toolUse.fetched', delete: 'toolUse.deleted',
    move: 'toolUse.moved', edit: 'toolUse.edited' }[block.kind];
  if (verb && paths.length) {
    return html`<span class="tool-use-verb">${t(verb)}</span> <span class="tool-use-path mono">${visible(paths[0])}</span>${paths.length > 1
      ? html` <span class="muted">${tn('toolUse.more', paths.length - 1)}</span>` : nothing}`;
  }
  return html`<span class="tool-use-title">${visible(str(block.title) || t('toolUse.tool'))}</span>`;
}

function outputView(output) {
  const text = str(output?.text);
  if (!text) return nothing;
  const lines = text.split('\n');
  const tail = lines.slice(-TAIL_LINES).join('\n');
  const total = Number(output.lines) || lines.length;
  return html`<pre class="tool-use-tail mono" aria-label=${t('toolUse.lastLines')}>${visible(tail)}</pre>${lines.length > TAIL_LINES
    ? html`<details class="tool-use-more tool-use-output"><summary>${output.cut
      ? t('toolUse.showKept', { kept: lines.length, total }) : tn('toolUse.showAll', total)}</summary>
      <pre class="tool-use-full mono" tabindex="0" aria-label=${t('toolUse.output')}>${visible(text)}</pre></details>` : nothing}`;
}

function changeView(change) {
  if (change.hidden === 'secret') return html`<p class="muted small tool-use-hidden">${t('toolUse.secret', { name: str(change.path) })}</p>`;
  if (change.hidden === 'too_large') return html`<p class="muted small tool-use-hidden">${t('toolUse.tooLarge', { name: str(change.path) })}</p>`;
  if (!str(change.diff)) return nothing;
  const files = parseUnifiedDiff(change.diff);
  if (!files?.length) return nothing;
  return html`<details class="tool-use-more tool-use-diff"><summary>${t('toolUse.showDiff', { name: str(change.path) })}</summary>
    ${diffView(files, { focusable: false })}</details>`;
}

/** One tool call, compact: the line, how it ended, the output's tail, the rest behind a tap. */
export function toolUseView(block) {
  const changes = Array.isArray(block.changes) ? block.changes : [];
  return html`<div class="tool-use" data-kind=${str(block.kind)} data-status=${str(block.status)}>
    <p class="tool-use-line">${icon('tool')}${headline(block)} ${outcome(block)}</p>
    ${outputView(block.output)}
    ${changes.map((change) => changeView(change))}
  </div>`;
}
