// The app's state kept from events alone, for relay mode: the hub's HTTP reads (/api/…) cannot be reached, so what
// they would answer is derived from the events the relay carries, in the same shapes (hub/web/views.py; the
// projections of hub/store/projections.py do the same on the hub). Applying an event twice changes nothing.

const ATTENTION_LIMIT = 50; // as GET /api/inbox (hub/web/reads.py)
const DONE_LIMIT = 20;

function upsert(list, item, { front = false } = {}) {
  const at = list.findIndex((x) => x.id === item.id);
  if (at < 0) return front ? [item, ...list] : [...list, item];
  const next = [...list];
  next[at] = { ...list[at], ...item };
  return next;
}

function patchById(list, id, fn) {
  let changed = false;
  const next = list.map((x) => {
    if (x.id !== id) return x;
    changed = true;
    return { ...x, ...fn(x) };
  });
  return changed ? next : list;
}

/** The inbox as GET /api/inbox answers it, from the interactions and tasks held. */
export function relayInbox(interactions, tasks) {
  const newest = (a, b) => (b.lastSequence ?? 0) - (a.lastSequence ?? 0);
  return {
    waitingForMe: interactions.filter((i) => i.status === 'pending')
      .sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt))),
    needsAttention: tasks.filter((x) => x.status === 'failed'
      || (x.connectionLostAt && (x.status === 'running' || x.status === 'waiting_for_human')))
      .sort(newest).slice(0, ATTENTION_LIMIT),
    recentlyCompleted: tasks.filter((x) => x.status === 'succeeded' || x.status === 'cancelled')
      .sort(newest).slice(0, DONE_LIMIT),
  };
}

/** Opening a conversation in relay mode: its messages are those the relay brought (`partial`: maybe not all). */
export function relayMessages(state, conversationId) {
  const list = state.messages[conversationId];
  return { messages: { ...state.messages, [conversationId]: { items: [], partial: true, error: null, ...list, loading: false } } };
}

/** What one stored event changes; returns a patch for `workspace.set()` (empty when nothing changes). */
export function applyRelayEvent(state, env) {
  const p = env.payload || {};
  const at = env.occurredAt;
  const seq = env.sequence;
  let { conversations, tasks, interactions, agents, messages, taskDetails } = state;

  if (env.conversationId && env.type !== 'conversation.created') {
    conversations = patchById(conversations, env.conversationId, () => ({ updatedAt: at, lastSequence: seq }));
  }
  switch (env.type) {
    case 'conversation.created':
      if (!conversations.some((c) => c.id === env.conversationId)) {
        conversations = [{ id: env.conversationId, workspaceId: env.workspaceId, title: p.title,
          agentIds: p.agentIds || [], createdBy: null, createdAt: at, updatedAt: at, lastSequence: seq }, ...conversations];
      }
      break;
    case 'message.created':
    case 'message.updated':
      if (!messages[env.conversationId]) messages = relayMessages(state, env.conversationId).messages;
      break;
    case 'task.created':
    case 'task.child_created':
      tasks = upsert(tasks, { id: env.taskId, conversationId: env.conversationId ?? null,
        parentTaskId: p.parentTaskId ?? null, agentId: p.agentId ?? null, title: p.title, description: p.description ?? '',
        status: p.status, progress: null, summary: null, error: null, cancelRequestedAt: null, cancelReason: null,
        connectionLostAt: null, createdBy: null, createdAt: at, updatedAt: at, lastSequence: seq }, { front: true });
      break;
    case 'task.status_changed':
      tasks = patchById(tasks, env.taskId, (x) => ({ status: p.status ?? x.status, progress: p.progress ?? x.progress,
        summary: p.summary ?? x.summary, error: p.error ?? x.error, updatedAt: at, lastSequence: seq }));
      break;
    case 'task.cancel_requested':
      tasks = patchById(tasks, env.taskId, (x) => ({ cancelRequestedAt: x.cancelRequestedAt || at,
        cancelReason: p.reason ?? null, updatedAt: at, lastSequence: seq }));
      break;
    case 'agent.paired':
      if (!agents.some((a) => a.id === p.agentId)) {
        agents = [...agents, { id: p.agentId, name: p.name, runtime: p.runtime, agentVersion: p.agentVersion,
          capabilities: null, status: 'offline', statusReason: null, lastHeartbeatAt: null, createdAt: at, revokedAt: null }];
      }
      break;
    case 'agent.renamed':
      agents = patchById(agents, p.agentId, () => ({ name: p.name }));
      break;
    case 'agent.revoked':
      agents = patchById(agents, p.agentId, () => ({ status: 'revoked', statusReason: 'revoked', revokedAt: at }));
      break;
    case 'agent.status_changed':
      // The agent list itself is patched by the workspace; the tasks of an agent that left lose their connection.
      tasks = tasks.map((x) => {
        if (x.agentId !== p.agentId) return x;
        if (p.status === 'offline' && !x.connectionLostAt && (x.status === 'running' || x.status === 'waiting_for_human')) {
          return { ...x, connectionLostAt: p.lastHeartbeatAt || at };
        }
        return p.status === 'online' && x.connectionLostAt ? { ...x, connectionLostAt: null } : x;
      });
      break;
    case 'interaction.requested': {
      const spec = p.interaction || {};
      if (!spec.id || interactions.some((i) => i.id === spec.id)) break;
      // The envelope does not name its sender: the task's agent, or the conversation's only agent.
      const task = tasks.find((x) => x.id === env.taskId);
      const conversation = conversations.find((c) => c.id === env.conversationId);
      const agentId = task?.agentId || (conversation?.agentIds?.length === 1 ? conversation.agentIds[0] : null);
      interactions = [{ id: spec.id, taskId: env.taskId ?? null, conversationId: env.conversationId ?? null, agentId,
        type: spec.type, title: spec.title, risk: spec.risk || 'medium', spec, status: 'pending', response: null,
        respondedBy: null, respondedAt: null, expiresAt: spec.expiresAt ?? null, createdAt: at, lastSequence: seq },
      ...interactions];
      break;
    }
    case 'interaction.resolved':
    case 'interaction.expired':
      // A person's answer is dated when it was given (`answeredAt`: an answer kept offline is stored later).
      interactions = patchById(interactions, p.interactionId, () => ({ status: p.outcome, response: p.response ?? null,
        respondedBy: p.respondedBy ?? null, respondedAt: p.answeredAt ?? at, lastSequence: seq }));
      break;
    default:
      break;
  }
  // A task detail read over HTTP before the switch keeps growing: its timeline and artifacts.
  const detail = env.taskId ? taskDetails[env.taskId] : null;
  if (detail && detail.task && !(detail.timeline || []).some((e) => e.sequence === seq)) {
    const artifacts = env.type === 'artifact.created' ? [...(detail.artifacts || []), { id: p.artifactId,
      taskId: env.taskId, conversationId: env.conversationId ?? null, agentId: null, name: p.name, url: p.url,
      mimeType: p.mimeType ?? null, summary: p.summary ?? null, createdAt: at }] : detail.artifacts;
    const task = tasks.find((x) => x.id === env.taskId) || detail.task;
    taskDetails = { ...taskDetails, [env.taskId]: { ...detail, task, artifacts,
      interactions: interactions.filter((i) => i.taskId === env.taskId),
      timeline: [...(detail.timeline || []), env] } };
  }
  const patch = {};
  if (conversations !== state.conversations) {
    patch.conversations = [...conversations].sort((a, b) => (b.lastSequence ?? 0) - (a.lastSequence ?? 0));
  }
  if (tasks !== state.tasks) patch.tasks = tasks;
  if (interactions !== state.interactions) patch.interactions = interactions;
  if (agents !== state.agents) patch.agents = agents;
  if (messages !== state.messages) patch.messages = messages;
  if (taskDetails !== state.taskDetails) patch.taskDetails = taskDetails;
  if (patch.tasks || patch.interactions) patch.inbox = relayInbox(interactions, tasks);
  return patch;
}
