// One line of a task's event timeline in words (docs/design.md#everything-is-traceable).

import { t } from './i18n.js';
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

/** The events worth a line in a task's timeline. */
export function timelineEvents(events) {
  return (events || []).filter((event) => !HIDDEN.has(event.type));
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
      if (p.status && p.previousStatus && p.status !== p.previousStatus) {
        parts.push(t('timeline.status', { from: statusWord(p.previousStatus), to: statusWord(p.status) }));
      }
      if (p.progress !== undefined && p.progress !== null) parts.push(`${p.progress}%`);
      if (p.summary) parts.push(`“${p.summary}”`);
      if (p.cause && t(`cause.${p.cause}`) !== `cause.${p.cause}`) parts.push(t(`cause.${p.cause}`));
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
