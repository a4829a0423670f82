// A task's event timeline in words (docs/design.md#everything-is-traceable): its events, its child tasks by their
// titles, and its agent leaving and coming back; no names of the hub's own ("Queued → Running · accepted").

import { t } from './i18n.js';
import { TERMINAL, reasonWord } from './status.js';
import { callerName, formatArguments, resultText, toolLabel } from './tool-views.js';

function who(actor, ctx) {
  if (!actor) return '';
  const [kind, id] = String(actor).split(':');
  if (kind === 'user') return id === ctx.me?.userId ? t('who.you') : t('who.person');
  if (kind === 'agent') return ctx.agents.find((a) => a.id === id)?.name || t('who.agent');
  return t('who.hub');
}

function statusWord(status) {
  return status ? t(`task.status.${status}`) : '';
}

// Not steps of the task: the hub's own bookkeeping about telling the person (the toasts and the inbox show it).
const HIDDEN = new Set(['notification.created']);

// Status changes that only follow another line: "Accepted by …", "Asked you: …", "Answered by …".
const FOLDED = new Set(['accepted', 'interaction_requested', 'interaction_resolved']);

/** The events worth a line in a task's timeline. */
export function timelineEvents(events) {
  return (events || []).filter((event) => !HIDDEN.has(event.type));
}

/** A status change that says nothing the line before it does not (no progress, summary or error of its own). */
function folded(event) {
  const p = event.payload || {};
  return event.type === 'task.status_changed' && FOLDED.has(p.cause) && p.progress == null && !p.summary && !p.error;
}

const time = (value) => Date.parse(value || '') || 0;

/**
 * The lines of a task's timeline, oldest first: `{ key, at, type, text }`. `detail` is the hub's answer for the task
 * (its events, children); `state` gives the names and the agents' comings and goings (state.presence).
 */
export function timelineLines(detail, task, state) {
  const children = detail?.children || [];
  // A child task's lifetime: a checkpoint inside one is that step, which the child's own lines name by its title.
  const spans = children.map((c) => [time(c.createdAt), TERMINAL.has(c.status) ? time(c.updatedAt) : Infinity]);
  const lines = [];
  for (const event of timelineEvents(detail?.timeline)) {
    if (folded(event)) continue;
    if (event.type === 'task.checkpoint' && spans.some(([from, to]) => time(event.occurredAt) >= from && time(event.occurredAt) <= to)) continue;
    lines.push({ key: event.id, at: event.occurredAt, sequence: event.sequence ?? 0, type: event.type, text: describeEvent(event, state) });
  }
  for (const child of children) {
    lines.push({ key: `child-start:${child.id}`, at: child.createdAt, sequence: Infinity, type: 'child.started',
      text: t('timeline.childStarted', { title: child.title }) });
    if (TERMINAL.has(child.status)) {
      const ended = t('timeline.childEnded', { status: statusWord(child.status), title: child.title });
      lines.push({ key: `child-end:${child.id}`, at: child.updatedAt, sequence: child.lastSequence ?? Infinity,
        type: 'child.ended', text: child.summary ? `${ended} · ${child.summary}` : ended });
    }
  }
  // The agent leaving and coming back while the task was open.
  const agent = state.agents?.find((a) => a.id === task?.agentId);
  const from = time(task?.createdAt);
  const to = task && TERMINAL.has(task.status) ? time(task.updatedAt) : Infinity;
  for (const change of (agent && state.presence?.[agent.id]) || []) {
    if (time(change.at) < from || time(change.at) > to) continue;
    const reason = reasonWord(change.reason);
    const text = change.status === 'online' ? t('timeline.agentBack', { agent: agent.name })
      : reason ? t('timeline.agentOffline', { agent: agent.name, reason }) : t('timeline.agentOfflinePlain', { agent: agent.name });
    lines.push({ key: `presence:${change.sequence}`, at: change.at, sequence: change.sequence, type: `agent.${change.status}`, text });
  }
  return lines.sort((a, b) => time(a.at) - time(b.at) || a.sequence - b.sequence);
}

export function describeEvent(event, ctx) {
  const p = event.payload || {};
  const by = who(event.actor, ctx);
  switch (event.type) {
    case 'task.created':
      return t('timeline.created', { who: by });
    case 'task.accepted':
      return t('timeline.accepted', { who: by });
    case 'task.status_changed': {
      const parts = [];
      // The new status in a word ("Succeeded"); a change another line already says (accepted, asked, answered) is
      // left out by timelineLines.
      if (p.status && p.previousStatus && p.status !== p.previousStatus && !FOLDED.has(p.cause)) parts.push(statusWord(p.status));
      if (p.progress !== undefined && p.progress !== null) parts.push(`${p.progress}%`);
      if (p.summary) parts.push(`“${p.summary}”`);
      if (p.cause && !FOLDED.has(p.cause) && t(`cause.${p.cause}`) !== `cause.${p.cause}`) parts.push(t(`cause.${p.cause}`));
      if (p.error?.message) parts.push(p.error.message);
      return parts.join(' · ') || t('timeline.update');
    }
    case 'task.child_created':
      return t('timeline.child', { title: p.title || '' });
    case 'task.checkpoint':
      return t('timeline.checkpoint', { who: by, name: p.name || '' });
    case 'task.cancel_requested':
      return t('timeline.cancelRequested', { who: by });
    case 'interaction.requested':
      return t('timeline.asked', { title: p.interaction?.title || '' });
    case 'interaction.resolved':
      // An approval says what was decided ("Approved by you"), not only that it was answered.
      if (p.outcome === 'answered' && typeof p.response?.approved === 'boolean') {
        return t(p.response.approved ? 'timeline.resolved.approved' : 'timeline.resolved.rejected', { who: by });
      }
      return t(`timeline.resolved.${p.outcome}`, { who: by }) || t('timeline.update');
    case 'interaction.expired':
      return t('timeline.resolved.expired');
    case 'artifact.created':
      return t('timeline.artifact', { name: p.name || '' });
    case 'message.created':
      return t('timeline.message', { who: by });
    case 'message.updated':
      return t('timeline.messageStreaming', { who: by });
    case 'tool.call': {
      // The result is not filed under the task (hub/domain/tools.py): it is paired here by the call's id.
      const text = t('tool.called', { who: callerName(p.caller, ctx), tool: toolLabel(p), args: formatArguments(p.arguments) }).trim();
      const answer = ctx.tools?.byId.get(event.id)?.result?.payload;
      if (!answer) return `${text} · ${t('tool.pending')}`;
      if (answer.error) return `${text} · ${t('tool.error')} ${answer.error.code}: ${answer.error.message}`;
      return `${text} → ${resultText(answer.result)}`;
    }
    default:
      return event.type;
  }
}
