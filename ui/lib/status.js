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
// Agents in the person's own terminal or program (`lineup connect`): online only while they work, offline is no fault.
export const TERMINAL_RUNTIMES = new Set(VOCABULARY.terminalRuntimes || []);

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

// ---- an agent that went away (docs/design.md#an-agent-that-goes-away) --------------------------------------------

const REASONS = ['connected', 'disconnected', 'heartbeat_timeout', 'hub_restarted', 'revoked', 'credential_replaced',
  'signed_off'];

/** Why an agent's status changed, in words ("connection closed"), never the hub's name for it. */
export function reasonWord(reason) {
  return REASONS.includes(reason) ? t(`agent.reason.${reason}`) : '';
}

/** The agent's latest status change the app has seen in the log (state.presence), or null. */
export function lastStatusChange(agentId, state) {
  const list = state?.presence?.[agentId];
  return list?.length ? list[list.length - 1] : null;
}

/**
 * When an offline agent's connection was lost: `noticedAt`, when the hub noticed (its `agent.status_changed`), and
 * `lastSignOfLife`, the last frame the hub had from it (its last heartbeat), or null for what is not known.
 */
export function connectionLoss(agent, state, task = null) {
  const change = agent ? lastStatusChange(agent.id, state) : null;
  const offline = change && change.status === 'offline' ? change : null;
  return {
    noticedAt: offline?.at || null,
    lastSignOfLife: offline?.lastHeartbeatAt || agent?.lastHeartbeatAt || task?.connectionLostAt || null,
  };
}

const ANSWERED = new Set(['answered', 'declined']);

/**
 * An answer the person gave that its agent has not had yet: the agent is offline and went so before the answer (it is
 * kept by the hub and delivered when the agent reconnects). Null otherwise; else { agent, decision } in words.
 */
export function undeliveredAnswer(interaction, state) {
  if (!interaction || !ANSWERED.has(interaction.status) || interaction.respondedBy?.kind !== 'user') return null;
  if (!hubReachable) return null; // the agent's state is unknown
  const agent = state.agents?.find((a) => a.id === interaction.agentId);
  if (!agent || agent.revokedAt || agent.status === 'online') return null;
  const task = interaction.taskId ? state.tasks?.find((x) => x.id === interaction.taskId) : null;
  if (task && TERMINAL.has(task.status)) return null;
  const change = lastStatusChange(agent.id, state);
  const wentAt = change?.status === 'offline' ? change.at : (task?.connectionLostAt || agent.lastHeartbeatAt);
  if (wentAt && interaction.respondedAt && Date.parse(interaction.respondedAt) < Date.parse(wentAt)) return null;
  const response = interaction.response || {};
  let decision = t('card.outcome.answered');
  if (response.declined || interaction.status === 'declined') decision = t('card.decided.declined');
  else if (interaction.type === 'approval') {
    decision = response.approved === false ? t('card.decided.rejectedPlain') : t('card.decided.approvedPlain');
  } else if (interaction.type === 'review') {
    decision = t(response.decision === 'approve' ? 'card.decided.reviewApproved' : 'card.decided.reviewChanges');
  }
  return { agent, decision };
}

/** Under an answered card whose agent has not had the answer: "Approved — delivered when Demo agent reconnects". */
export function deliveryNote(interaction, state) {
  const pending = undeliveredAnswer(interaction, state);
  if (!pending) return nothing;
  return html`<p class="card-delivery" role="status" data-delivery="pending">${icon('clock')}<span>${t('card.deliveredOnReconnect',
    { decision: pending.decision, agent: pending.agent.name })}</span></p>`;
}

/**
 * A task's one-line summary for its progress line. The agent's last words ("Waiting for your approval") are stale
 * once the person answered and the agent has not had the answer yet: that is said instead.
 */
/** Why a failed task failed, on one line: its error's message, else its code; '' when the agent said nothing. */
export function failureReason(task) {
  return String(task?.error?.message || task?.error?.code || '').replace(/\s+/g, ' ').trim();
}

/** "The task failed: {message} ({code})." without the code when the message already says it (or is the code). */
export function failedSentence(task) {
  const code = task?.error?.code || '';
  const message = String(task?.error?.message || '').trim();
  if (!message) return code ? t('restart.failedCode', { code }) : t('restart.failedNoReason');
  return message.includes(code) ? t('restart.failedMessage', { message }) : t('restart.failed', { code, message });
}

/** Whether the task waits for its agent: its connection was lost, it is not over, and the agent is not back (the
 * agent's own status is live; the task's `connectionLostAt` is cleared only by the task's next read). */
export function waitsForAgent(task, state) {
  if (!task.connectionLostAt || TERMINAL.has(task.status)) return false;
  return state?.agents?.find((a) => a.id === task.agentId)?.status !== 'online';
}

export function taskSummary(task, state, interactions = null) {
  const asked = interactions || state.interactions?.filter((i) => i.taskId === task.id) || [];
  const waiting = asked.map((i) => undeliveredAnswer(i, state)).find(Boolean);
  return waiting ? t('task.answerWaitsForAgent', { agent: waiting.agent.name }) : (task.summary || '');
}

// What an agent says it can do (agent.hello capabilities), as a person would say it.
const CAPABILITIES = ['tasks', 'approval', 'choice', 'input', 'review', 'streaming', 'artifacts', 'tools', 'mcp', 'messages',
  'files'];

/** A capability's name in the app's language; one the app does not know in readable words ("long_tasks": "long tasks"). */
export function capabilityName(name) {
  if (CAPABILITIES.includes(name)) return t(`agent.capability.${name}`);
  return String(name).replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}
