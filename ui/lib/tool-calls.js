// Tool calls as the app shows them: each stored tool.call paired with its tool.result (by callEventId), the
// latest state of every app-type tool instance, and the tool definitions (tool.list) that name UI modules.

const HISTORY_PAGE = 1000; // GET /api/events serves at most this many a page (hub/store/events.py PAGE_SIZE)
// The log is read from this far behind its head at start: the calls of a long-lived workspace's distant past
// are not shown (a hub read of tool calls by conversation would lift this; see ui/README.md).
const HISTORY_MAX_EVENTS = 50000;

/** A result without its instance's state (kept once, in `instances`): a long drawing is not stored per stroke. */
function slim(envelope) {
  const p = envelope.payload || {};
  if (!p.instance) return envelope;
  return { ...envelope, payload: { ...p, instance: { id: p.instance.id, status: p.instance.status } } };
}

/**
 * Kept current from the live connection's stored events and, for what happened before the page loaded, from
 * GET /api/events. Applying an event twice, or a result before its call, changes nothing: history pages and live
 * events may interleave. Every change publishes a new `state.tools` snapshot on the workspace.
 */
export class ToolCalls {
  constructor(workspace) {
    this.workspace = workspace;
    this.calls = new Map(); // call event id -> { id, call, result } (replaced, never mutated)
    this.orphans = new Map(); // call event id -> a result whose call is not known (yet)
    this.instances = new Map(); // instance id -> { id, tool, state, status, sequence, updatedAt }
    this.definitions = new Map(); // tool name -> its definition as tool.list gave it
    this.history = { status: 'idle', error: null };
    this._generation = 0;
    this._scheduled = false;
    this._watched = new Set();
  }

  start(live, headSequence) {
    this.live = live;
    live.addEventListener('event', (e) => this.apply(e.detail.envelope));
    live.addEventListener('transient', (e) => this._transient(e.detail.envelope));
    live.addEventListener('caught-up', () => this.askDefinitions());
    live.addEventListener('resync', (e) => this.loadHistory(e.detail.payload?.headSequence));
    // Through a relay there is no HTTP (docs/relay.md): read the history once the hub is reached directly again.
    live.addEventListener('mode', () => {
      if (live.mode !== 'relay' && this.history.status === 'failed') this.loadHistory(live.lastSequence);
    });
    this.loadHistory(headSequence);
  }

  stop() {
    this._generation += 1;
  }

  /** Read the log up to `head` (the live connection carries on from there), keeping only tool events. */
  async loadHistory(head) {
    const generation = ++this._generation;
    let after = Math.max(0, (Number(head) || 0) - HISTORY_MAX_EVENTS);
    this.history = { status: 'loading', error: null };
    try {
      for (;;) {
        const page = await this.workspace.api.get(`/api/events?after=${after}&limit=${HISTORY_PAGE}`);
        if (generation !== this._generation) return;
        for (const event of page.events) this.apply(event);
        if (page.nextAfter === null || page.nextAfter === undefined || (head && page.nextAfter >= head)) break;
        after = page.nextAfter;
      }
      this.history = { status: 'loaded', error: null };
    } catch (error) {
      if (generation !== this._generation) return;
      this.history = { status: 'failed', error };
    }
    this._publish();
  }

  /** Ask the hub which tools are on offer (their `ui` URLs); the answer is a tool.list frame. */
  askDefinitions() {
    if (!this.live || this.live.status !== 'live') return;
    this.live.send('tool.list', {}).done.catch(() => {});
  }

  apply(env) {
    if (env.type === 'tool.call') {
      const have = this.calls.get(env.id);
      if (have?.call) return;
      const result = this.orphans.get(env.id) || null;
      this.orphans.delete(env.id);
      this.calls.set(env.id, { id: env.id, call: env, result });
    } else if (env.type === 'tool.result') {
      const callEventId = env.payload?.callEventId;
      this._instance(env);
      const entry = this.calls.get(callEventId);
      if (entry) {
        if (entry.result) return;
        this.calls.set(callEventId, { ...entry, result: slim(env) });
      } else if (callEventId) {
        this.orphans.set(callEventId, slim(env));
      }
    } else {
      return;
    }
    this._publish();
  }

  _instance(env) {
    const p = env.payload || {};
    const instance = p.instance;
    if (!instance || !instance.id) return;
    const have = this.instances.get(instance.id);
    if (have && (have.sequence ?? 0) >= (env.sequence ?? 0)) return;
    this.instances.set(instance.id, {
      id: instance.id, tool: p.name, state: instance.state || {}, status: instance.status || 'open',
      sequence: env.sequence ?? 0, updatedAt: env.occurredAt,
    });
  }

  _transient(env) {
    if (env.type !== 'tool.list' || !Array.isArray(env.payload?.tools)) return;
    const definitions = new Map();
    for (const tool of env.payload.tools) {
      if (tool && tool.name && !definitions.has(tool.name)) definitions.set(tool.name, tool);
    }
    this.definitions = definitions;
    this._publish();
  }

  /** Re-render once a plugin's element is defined (its module may load after the first paint). */
  watchElement(tag) {
    if (this._watched.has(tag)) return;
    this._watched.add(tag);
    customElements.whenDefined(tag).then(() => this._publish(), () => {});
  }

  _publish() {
    if (this._scheduled) return;
    this._scheduled = true;
    queueMicrotask(() => {
      this._scheduled = false;
      const calls = [...this.calls.values()].filter((entry) => entry.call)
        .sort((a, b) => (a.call.sequence ?? 0) - (b.call.sequence ?? 0));
      this.workspace.set({
        tools: {
          calls, byId: new Map(this.calls), instances: new Map(this.instances),
          definitions: this.definitions, history: this.history, owner: this,
        },
      });
    });
  }
}

// ---- reading the snapshot ---------------------------------------------------------------------------------

/** The instance a call worked on: named by its result, or by its `instance_id` argument when that is known. */
export function instanceIdOf(entry, tools) {
  const fromResult = entry.result?.payload?.instance?.id;
  if (fromResult) return fromResult;
  const named = entry.call.payload?.arguments?.instance_id;
  return typeof named === 'string' && tools.instances.has(named) ? named : null;
}

/** The conversation a call belongs to: its own, or its task's. */
export function conversationOf(entry, state) {
  if (entry.call.conversationId) return entry.call.conversationId;
  const taskId = entry.call.taskId;
  return taskId ? state.tasks.find((x) => x.id === taskId)?.conversationId || null : null;
}

/** Interaction id -> the call that asked the person through it (choice, confirm, input, review). */
export function interactionCalls(state) {
  const calls = new Map();
  for (const entry of state.tools?.calls || []) {
    const target = entry.call.payload?.target;
    if (target?.kind === 'interaction' && target.id) calls.set(target.id, entry);
  }
  return calls;
}

/**
 * Stream items for the calls that `keep(entry)` selects: one per call, except that the calls on one app-type
 * instance make one item (its live view and its calls), and a call that asked a person is left to that
 * interaction's card when `linked(interactionId)` says the card is shown beside it.
 */
export function toolItems(state, keep, linked = () => false) {
  const tools = state.tools;
  if (!tools) return [];
  const items = [];
  const byInstance = new Map();
  for (const entry of tools.calls) {
    if (!keep(entry)) continue;
    const target = entry.call.payload?.target;
    if (target?.kind === 'interaction' && linked(target.id)) continue;
    const instanceId = instanceIdOf(entry, tools);
    if (instanceId) {
      let item = byInstance.get(instanceId);
      if (!item) {
        item = { key: `tool-instance:${instanceId}`, kind: 'tool-instance', at: entry.call.occurredAt, instanceId, entries: [] };
        byInstance.set(instanceId, item);
        items.push(item);
      }
      item.entries.push(entry);
    } else {
      items.push({ key: `tool:${entry.id}`, kind: 'tool-call', at: entry.call.occurredAt, entry });
    }
  }
  return items;
}
