// How a state is shown: an icon and a word (never colour alone, docs/design.md#accessibility-floor) and a tone for the
// colour.

import { html, nothing } from '../vendor/lit-html/lit-html.js';
import { icon } from './icons.js';
import { t } from './i18n.js';

// The names themselves (task statuses, which of them are finished, risk levels, …) are the hub's: it defines them
// once (hub/protocol/vocabulary.py) and writes them into the page it serves (hub/web/static_app.py), so they are
// here before the first paint with no request of their own. This module keeps only how each name looks; a name it
// has no look for (a newer hub's) is shown neutral, with its own name as the word.
function readVocabulary() {
  try {
    return JSON.parse(document.getElementById('lineup-vocabulary')?.textContent || '{}');
  } catch {
    return {};
  }
}

const VOCABULARY = readVocabulary();
export const TASK_STATUSES = VOCABULARY.taskStatuses || [];
export const TERMINAL = new Set(VOCABULARY.terminalTaskStatuses || []);
export const RISK_LEVELS = VOCABULARY.riskLevels || [];

const UNKNOWN = { icon: 'queued', tone: 'neutral' };

/** The word for a name: its translation, else the name itself (never the bare string key). */
function word(key, name) {
  const text = t(key);
  return text === key ? String(name).replaceAll('_', ' ') : text;
}

const TASK = {
  queued: { icon: 'queued', tone: 'neutral' },
  running: { icon: 'running', tone: 'running' },
  waiting_for_human: { icon: 'waiting', tone: 'waiting' },
  succeeded: { icon: 'succeeded', tone: 'success' },
  failed: { icon: 'failed', tone: 'danger' },
  cancelled: { icon: 'cancelled', tone: 'neutral' },
};

const AGENT = {
  online: { icon: 'online', tone: 'success' },
  offline: { icon: 'offline', tone: 'neutral' },
  revoked: { icon: 'cancelled', tone: 'danger' },
  unknown: { icon: 'clock', tone: 'neutral' },
};

// Cut off from the hub, the app cannot know whether an agent is still there: its last known status would be a guess
// shown as a fact ("Online" while the hub is down). The shell sets this on every render from the connection state.
let hubReachable = true;

export function setHubReachable(reachable) {
  hubReachable = Boolean(reachable);
}

export function isHubReachable() {
  return hubReachable;
}

/** Task filters of docs/design.md#inbox-and-task-lists (all / running / waiting for me / done / cancelled) as API
   status lists. */
export const TASK_FILTERS = {
  all: [],
  running: ['queued', 'running'],
  waiting: ['waiting_for_human'],
  done: ['succeeded', 'failed'],
  cancelled: ['cancelled'],
};

export function taskTone(status) {
  return (TASK[status] || UNKNOWN).tone;
}

/** The status badge of a task: icon + word, e.g. "● Running". */
export function taskStatusBadge(task, { large = false } = {}) {
  const status = task?.status || 'queued';
  const meta = TASK[status] || UNKNOWN;
  const cancelPending = task && task.cancelRequestedAt && !TERMINAL.has(status);
  return html`<span class="badge tone-${meta.tone} ${large ? 'badge-large' : ''}" data-status=${status}>
    ${icon(meta.icon)}<span>${word(`task.status.${status}`, status)}</span></span>${cancelPending
    ? html` <span class="badge tone-waiting" data-status="cancel_requested">${icon('clock')}<span>${t('task.cancelRequested')}</span></span>`
    : ''}`;
}

export function agentStatusBadge(agent) {
  const status = agent?.revokedAt ? 'revoked' : !hubReachable ? 'unknown' : (agent?.status || 'offline');
  const meta = AGENT[status] || AGENT.offline;
  return html`<span class="badge tone-${meta.tone}" data-agent-status=${status}>${icon(meta.icon)}<span>${word(`agent.status.${status}`, status)}</span></span>`;
}

export function riskBadge(risk) {
  const tone = risk === 'high' ? 'danger' : risk === 'medium' ? 'waiting' : 'neutral';
  return html`<span class="badge tone-${tone}" data-risk=${risk}>${icon(risk === 'low' ? 'check' : 'warning')}<span>${word(`risk.${risk}`, risk)}</span></span>`;
}

export function progressBar(progress, label) {
  const value = Number.isFinite(progress) ? Math.max(0, Math.min(100, progress)) : undefined;
  return html`<progress class="progress" max="100" value=${value ?? nothing} aria-label=${label}></progress>`;
}
