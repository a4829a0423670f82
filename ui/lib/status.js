// How a state is shown: an icon and a word (never colour alone, seed 002 §8.2) and a tone for the colour.

import { html } from '../vendor/lit-html/lit-html.js';
import { ifDefined } from '../vendor/lit-html/directives/if-defined.js';
import { icon } from './icons.js';
import { t } from './i18n.js';

export const TASK_STATUSES = ['queued', 'running', 'waiting_for_human', 'succeeded', 'failed', 'cancelled'];
export const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

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
};

/** Task filters of seed 002 §6 (all / running / waiting for me / done / cancelled) as API status lists. */
export const TASK_FILTERS = {
  all: [],
  running: ['queued', 'running'],
  waiting: ['waiting_for_human'],
  done: ['succeeded', 'failed'],
  cancelled: ['cancelled'],
};

export function taskTone(status) {
  return (TASK[status] || TASK.queued).tone;
}

/** The status badge of a task: icon + word, e.g. "● Running". */
export function taskStatusBadge(task, { large = false } = {}) {
  const status = task?.status || 'queued';
  const meta = TASK[status] || TASK.queued;
  const cancelPending = task && task.cancelRequestedAt && !TERMINAL.has(status);
  return html`<span class="badge tone-${meta.tone} ${large ? 'badge-large' : ''}" data-status=${status}>
    ${icon(meta.icon)}<span>${t(`task.status.${status}`)}</span></span>${cancelPending
    ? html` <span class="badge tone-waiting" data-status="cancel_requested">${icon('clock')}<span>${t('task.cancelRequested')}</span></span>`
    : ''}`;
}

export function agentStatusBadge(agent) {
  const status = agent?.revokedAt ? 'revoked' : (agent?.status || 'offline');
  const meta = AGENT[status] || AGENT.offline;
  return html`<span class="badge tone-${meta.tone}" data-agent-status=${status}>${icon(meta.icon)}<span>${t(`agent.status.${status}`)}</span></span>`;
}

export function riskBadge(risk) {
  const tone = risk === 'high' ? 'danger' : risk === 'medium' ? 'waiting' : 'neutral';
  return html`<span class="badge tone-${tone}" data-risk=${risk}>${icon(risk === 'low' ? 'check' : 'warning')}<span>${t(`risk.${risk}`)}</span></span>`;
}

export function progressBar(progress, label) {
  const value = Number.isFinite(progress) ? Math.max(0, Math.min(100, progress)) : undefined;
  return html`<progress class="progress" max="100" value=${ifDefined(value)} aria-label=${label}></progress>`;
}
