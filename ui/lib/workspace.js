// The signed-in app's state: loaded over HTTP, kept current by the tab's one live connection, changed by actions.

import { relayStart } from './relay-access.js';
import { READ_PATHS, firstScreenReads, forgetEarly } from './early.js';
import { newId } from './ids.js';
import { loadUiModules, normalizeModules } from './registry.js';
import { afterNextPaint } from './lazy.js';
import { SESSION_EVENTS, readSessions } from './sessions.js';
import { forgetLastKnown, keepLastKnown, loadLastKnown } from './last-known.js';

const REFRESH_DELAY_MS = 80;
const CREATED_KEPT = 500; // ids of messages the hub stored lately (what the outbox need not show as sending)
// A read that failed (the hub unreachable, an answer cut off) is asked again after these waits, the last repeated:
// what the screen shows is never left at what the failed read did not bring.
const RETRY_DELAYS_MS = [1000, 2000, 5000, 10_000, 30_000];
// The lists refresh() reads (at lib/early.js READ_PATHS) and the state each answer becomes.
const LIST_READS = {
  agents: (d) => ({ agents: d.agents }),
  conversations: (d) => ({ conversations: d.conversations }),
  tasks: (d) => ({ tasks: d.tasks }),
  inbox: (inbox) => ({ inbox }),
  interactions: (d) => ({ interactions: d.interactions }),
};

/** The live layer's code: the connection (direct and relay), the tool calls, the
 * notifications (toasts, the browser's, which tab shows one). Loaded by start() once the first reads are on the
 * screen, not with the first screen: on a phone's few connections its files would otherwise come before the inbox's
 * data (the largest contentful paint). */
async function loadLiveLayer() {
  await afterNextPaint();
  const [connection, tools, notifications] = await Promise.all([import('./hub-connection.js'),
    import('./tool-calls.js'), import('./notifications.js')]);
  return { ...connection, ...tools, notifications };
}

function byCreated(a, b) {
  return String(a.createdAt).localeCompare(String(b.createdAt)) || (a.sequence ?? 0) - (b.sequence ?? 0);
}

/** A task detail whose read failed. The hub unreachable (no answer, or a 5xx while it stops): keep what was
 * shown, the timeline and the lost-connection line with it, as the lists are kept. Refused or gone (4xx): drop it. */
function failedDetail(previous, error) {
  const unreachable = !error?.status || error.status >= 500;
  return unreachable && previous?.task ? { ...previous, error } : { error };
}

function firstLine(text, max = 120) {
  const line = text.trim().split('\n')[0].trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

// How many answered questions the inbox keeps a receipt of (lib/receipts.js).
const RECEIPTS = 3;

/**
 * `state` is replaced (never mutated) on every change, so pieces can compare by identity; listeners added with
 * `subscribe(fn)` run once per batch of changes.
 */
export class Workspace {
  constructor({ token, api, html }) {
    this.token = token;
    this._created = new Set(); // message ids of stored message.created events, newest last
    this.api = api; // through the relay, lib/api.js asks the same routes through it (lib/relay-requests.js)
    this.html = html;
    this.live = null;
    // Resolved with the live connection once start() has loaded its code: what is sent before waits for it.
    this._liveReady = new Promise((resolve) => { this._liveLoaded = resolve; });
    this.listeners = new Set();
    this.state = {
      me: null, loaded: false, loadError: null,
      connection: { status: 'idle', offlineSince: null, nextRetryAt: null },
      agents: [], conversations: [], tasks: [], interactions: [],
      inbox: { waitingForMe: [], needsAttention: [], recentlyCompleted: [] },
      messages: {}, drafts: {}, outgoing: [], answers: {}, cancels: {},
      receipts: [], // the questions answered on this screen, newest first (at most RECEIPTS): the inbox says they went
      taskDetails: {}, openTaskId: null, openConversationId: null,
      pairing: null, signInLink: null, devices: null, plugins: [], hubCli: null,
      seenInbox: new Set(), outboxSize: 0,
      previews: {}, // conversation id -> its newest message, for the conversation list
      presence: {}, // agent id -> its status changes seen in the log: [{status, reason, at, lastHeartbeatAt, sequence}]
      toasts: [], notificationLog: null, notificationTest: null, browserNotify: null, // null until start() has loaded it
      lastKnown: null, // {savedAt} while the screen shows what this device kept, the hub out of reach (last-known.js)
      sessions: null, // lib/sessions.js readSessions once asked for (wantSessions): {status, items, enabled, hint}
    };
    this._dirty = new Set();
    this._refreshTimer = null;
    this._queue = Promise.resolve();
    this._notifyScheduled = false;
    this.tools = null; // ToolCalls, once start() has loaded the live layer
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  set(patch) {
    this.state = { ...this.state, ...patch };
    if (this._notifyScheduled) return;
    this._notifyScheduled = true;
    queueMicrotask(() => {
      this._notifyScheduled = false;
      for (const fn of [...this.listeners]) fn(this.state);
    });
  }

  // ---- start, load, refresh ---------------------------------------------------------------------------

  async start() {
    // The hub silent and relay credentials held: start from what the relay replays (lib/relay-access.js).
    let away = null;
    // The log position and who I am are asked for together: neither needs the other (one round trip, not two).
    const positionRead = this.api.get('/api/state');
    positionRead.catch(() => {}); // when the hub is away, /api/me's failure is the one handled
    // Neither: what this device last showed, marked with its age (lib/last-known.js), until the hub answers.
    let known = null;
    const me = await this.api.get('/api/me').catch(async (error) => {
      try {
        away = relayStart(error);
        return away.me;
      } catch {
        known = error?.status === 0 ? await loadLastKnown(this.token) : null;
        if (!known) throw error;
        return known.state.me;
      }
    });
    let seen = [];
    try { seen = JSON.parse(localStorage.getItem(`lineup.seen.${me.userId}`) || '[]'); } catch { seen = []; }
    this.set({ me, seenInbox: new Set(seen) });
    let position;
    if (away) position = { epoch: null, headSequence: 0 };
    else if (known) position = { epoch: known.epoch, headSequence: known.sequence };
    else position = await this.reload(positionRead, { firstScreen: true });
    if (away) this.set({ loaded: true });
    if (known) {
      this.covered = known.sequence;
      this.set({ ...known.state, inboxLoaded: true, loaded: true, lastKnown: { savedAt: known.savedAt } });
    }
    forgetEarly(); // from now on every read is asked for when needed (lib/early.js)
    const { HubConnection, ToolCalls, notifications } = await loadLiveLayer();
    if (this._stopped) return; // signed out (or switched) while the code loaded
    this._notes = notifications;
    this.shownNotifications = new notifications.ShownIds(`lineup.notified.${me.userId}`);
    this.set({ browserNotify: notifications.browserNotifyState() });
    this._watchPermission();
    this.tools = new ToolCalls(this);
    // The log read for the tool calls (GET /api/events, then the live events) is also where the agents' comings and
    // goings are seen: when each went offline and came back (the timeline, "connection lost at").
    const applyTool = this.tools.apply.bind(this.tools);
    this.tools.apply = (env) => { this._presenceEvent(env); applyTool(env); };
    const live = new HubConnection({
      token: this.token, workspaceId: me.workspace.id, epoch: position.epoch,
      lastSequence: position.headSequence, outboxKey: `lineup.outbox.${me.deviceId}`, relayFirst: Boolean(away),
      resumeFrom: () => Math.max(this.covered ?? 0, position.headSequence),
    });
    this.live = live;
    this._liveLoaded(live);
    this.tools.start(live, position.headSequence);
    live.addEventListener('status', () => this._connectionChanged());
    live.addEventListener('mode', () => this._modeChanged());
    live.addEventListener('event', (e) => this._apply(e.detail.envelope));
    live.addEventListener('transient', (e) => this._transient(e.detail.envelope));
    live.addEventListener('resync', () => { this.reload(); });
    live.addEventListener('ack', (e) => this._acked(e.detail));
    live.addEventListener('send-error', (e) => this._refused(e.detail));
    live.addEventListener('outbox', () => this._outboxChanged());
    live.addEventListener('unauthorized', () => { forgetLastKnown(); this.onUnauthorized?.(); });
    this._outboxChanged();
    this._keeping = keepLastKnown(this);
    live.start();
    if (away) this.reload().catch(() => {}); // what the screens show, read through the relay once it signs in
    this.loadPlugins();
  }

  stop() {
    this._stopped = true;
    // This session ends on this page (sign-out, another account signs in): what it kept goes with it. A reload or
    // a closed app never calls stop(), so the installed app still opens to it.
    this._keeping?.();
    forgetLastKnown();
    this.live?.stop();
    this.tools?.stop();
    clearTimeout(this._refreshTimer);
    clearTimeout(this._retryTimer);
    clearTimeout(this._logTimer);
  }

  /** Load everything over HTTP (first load and after `system.resync_required`); returns the log position. With
   * `firstScreen`, what the first screen shows is read first and the rest once it is painted (lib/early.js). */
  async reload(positionRead = this.api.get('/api/state'), { firstScreen = false } = {}) {
    // The position first, then the reads: what a read shows is then at or after it, and the live connection
    // replays from it, so nothing between the two is missed (a replayed event only schedules another read).
    const position = await positionRead;
    const all = ['agents', 'conversations', 'tasks', 'inbox', 'interactions', 'detail', 'messages', 'devices', 'sessions'];
    if (firstScreen) {
      const first = firstScreenReads();
      await this.refresh(first);
      await afterNextPaint();
      await this.refresh(all.filter((kind) => !first.includes(kind)));
    } else {
      await this.refresh(all);
    }
    this.set({ loaded: true });
    return position;
  }

  /** Re-read parts of the state; calls run one after another, so the last answer is also the newest. */
  refresh(kinds) {
    const run = async () => {
      const upto = this.live?.lastSequence ?? 0; // what this read covers: the relay replays from here (resumeFrom)
      const s = this.state;
      const jobs = []; // [kind, the read's state patch]
      const want = new Set(kinds);
      for (const [kind, patch] of Object.entries(LIST_READS)) {
        if (want.has(kind)) jobs.push([kind, this.api.get(READ_PATHS[kind]).then(patch)]);
      }
      if (want.has('devices') && s.devices !== null) {
        jobs.push(['devices', this.api.get('/api/devices').then((d) => ({ devices: d.devices }))]);
      }
      if (want.has('sessions') && s.sessions?.status === 'ready') {
        jobs.push(['sessions', readSessions(this.api).then((read) => ({
          // A failed re-read keeps the list shown (and the next event reads again).
          sessions: { ...this.state.sessions, ...(read.status === 'error' ? { error: read.error } : { ...read, error: null }) } }))]);
      }
      if (want.has('detail') && s.openTaskId) {
        const id = s.openTaskId;
        jobs.push(['detail', this.api.get(`/api/tasks/${encodeURIComponent(id)}`)
          .then((detail) => ({ taskDetails: { ...this.state.taskDetails, [id]: detail } }))
          .catch((error) => ({ taskDetails: { ...this.state.taskDetails, [id]: failedDetail(this.state.taskDetails[id], error) } }))]);
      }
      // Each answer is shown when it arrives (the inbox need not wait for the slowest read).
      let failed = null;
      const failedKinds = [];
      await Promise.all(jobs.map(([kind, job]) => job.then((patch) => {
        if (patch.taskDetails) patch.taskDetails = { ...this.state.taskDetails, ...patch.taskDetails };
        if ('inbox' in patch) patch.inboxLoaded = true;
        this.set(patch);
      }, (error) => { failed = error; failedKinds.push(kind); })));
      if (failed) {
        this.set({ loadError: failed });
        this._retryLater(failedKinds);
      } else {
        this.covered = Math.max(this.covered ?? 0, upto);
        this._retries = 0;
      }
      if (want.has('messages') && this.state.openConversationId
          && !(await this._loadMessages(this.state.openConversationId))) this._retryLater(['messages']);
    };
    this._queue = this._queue.then(run, run);
    return this._queue;
  }

  /** Ask again for what a refresh could not read, later and later while it keeps failing (RETRY_DELAYS_MS). */
  _retryLater(kinds) {
    this._failedReads ??= new Set();
    for (const kind of kinds) this._failedReads.add(kind);
    if (this._retryTimer || this._stopped) return;
    this._retries = (this._retries ?? 0) + 1;
    const delay = RETRY_DELAYS_MS[Math.min(this._retries, RETRY_DELAYS_MS.length) - 1];
    this._retryTimer = setTimeout(() => this._retryNow(), delay);
  }

  _retryNow() {
    clearTimeout(this._retryTimer);
    this._retryTimer = null;
    const kinds = [...(this._failedReads ?? [])];
    this._failedReads?.clear();
    if (kinds.length && !this._stopped) this._schedule(...kinds);
  }

  _schedule(...kinds) {
    for (const kind of kinds) this._dirty.add(kind);
    if (this._refreshTimer) return;
    this._refreshTimer = setTimeout(() => {
      this._refreshTimer = null;
      const kinds = [...this._dirty];
      this._dirty.clear();
      this.refresh(kinds).catch(() => {});
    }, REFRESH_DELAY_MS);
  }

  async _loadMessages(conversationId) {
    const current = this.state.messages[conversationId];
    this.set({ messages: { ...this.state.messages, [conversationId]: { items: [], ...current, loading: true } } });
    try {
      const page = await this.api.get(`/api/conversations/${encodeURIComponent(conversationId)}/messages?limit=200`);
      const merged = new Map();
      for (const m of page.messages) merged.set(m.id, m);
      for (const m of this.state.messages[conversationId]?.items || []) {
        const have = merged.get(m.id);
        if (!have || (m.lastSequence ?? 0) > (have.lastSequence ?? 0)) merged.set(m.id, m);
      }
      const items = [...merged.values()].sort(byCreated);
      this.set({ messages: { ...this.state.messages, [conversationId]: { items, loading: false, error: null } } });
      return true;
    } catch (error) {
      this.set({ messages: { ...this.state.messages, [conversationId]: { items: [], ...current, loading: false, error } } });
      return false; // read again with the next refresh that fails nothing else (_retryLater)
    }
  }

  async loadPlugins() {
    let list = [];
    try {
      const described = await this.api.get('/-/plugins.json');
      if (described?.cli) this.set({ hubCli: described.cli }); // lib/commands.js
      list = normalizeModules(described.uiModules);
    } catch {
      list = [];
    }
    if (!list.length) return;
    const results = await loadUiModules(list, { html: this.html, workspace: this });
    this.set({ plugins: results });
  }

  // ---- live events ------------------------------------------------------------------------------------

  _connectionChanged() {
    const live = this.live;
    this.set({ connection: { status: live.status, offlineSince: live.offlineSince, nextRetryAt: live.nextRetryAt,
      mode: live.mode, problem: live.problem, sealed: live.sealed } });
    if (live.status === 'live' && this._failedReads?.size) this._retryNow(); // back: no need to wait out the delay
    if (live.status === 'live' && this.state.lastKnown) { // the hub answers: what it says replaces what was kept
      this.set({ lastKnown: null });
      this.reload().catch(() => {});
    }
  }

  /** Direct again, or through the relay: read everything again the new way, as after a reconnect at home (what the
   * other way was reading when it went may never have answered). */
  _modeChanged() {
    this._connectionChanged();
    this.reload().catch(() => this._retryLater(['agents', 'conversations', 'tasks', 'inbox', 'interactions', 'detail',
      'messages', 'devices', 'sessions']));
  }

  _outboxChanged() {
    const pending = this.live.pending();
    const answers = { ...this.state.answers };
    for (const envelope of pending) {
      if (envelope.type !== 'interaction.respond') continue;
      const id = envelope.payload.interactionId;
      if (!answers[id] || answers[id].envelopeId !== envelope.id || answers[id].status === 'failed') {
        answers[id] = { envelopeId: envelope.id, response: envelope.payload.response, status: 'sending' };
      }
    }
    const outgoing = [...this.state.outgoing];
    // A message the hub has stored is never shown as sending again: also one of a conversation whose messages are not
    // loaded (New task sends to a conversation not open: its copy stayed "Sending…" after the ack of its task).
    const known = new Set([...this._messageIds(false), ...this._created]);
    for (const envelope of pending) {
      if (envelope.type === 'message.create' && !outgoing.some((o) => o.envelopeId === envelope.id)
          && !known.has(envelope.payload.messageId)) {
        outgoing.push({
          envelopeId: envelope.id, conversationId: envelope.conversationId, taskId: envelope.taskId,
          messageId: envelope.payload.messageId, content: envelope.payload.content, status: 'sending',
          createdAt: envelope.occurredAt, attachments: envelope.payload.attachments,
        });
      }
    }
    this.set({ answers, outgoing, outboxSize: pending.length });
  }

  _acked({ envelope }) {
    if (envelope.type === 'interaction.respond') {
      const id = envelope.payload.interactionId;
      this.set({ answers: { ...this.state.answers, [id]: { ...this.state.answers[id], status: 'sent' } } });
      this._schedule('interactions', 'inbox', 'tasks', 'detail');
    } else if (envelope.type === 'conversation.create') {
      this._schedule('conversations');
    }
  }

  _refused({ envelope, error }) {
    if (envelope.type === 'interaction.respond') {
      const id = envelope.payload.interactionId;
      this.set({ answers: { ...this.state.answers, [id]: { ...this.state.answers[id], status: 'failed', error } } });
      this._schedule('interactions', 'inbox', 'detail');
    } else if (envelope.type === 'message.create') {
      this.set({
        outgoing: this.state.outgoing.map((o) => (o.envelopeId === envelope.id ? { ...o, status: 'failed', error } : o)),
      });
    } else if (envelope.type === 'task.cancel_requested') {
      this.set({ cancels: { ...this.state.cancels, [envelope.taskId]: { status: 'failed', error } } });
    } else {
      this.set({ lastError: { type: envelope.type, error } });
    }
  }

  _transient(envelope) {
    if (envelope.type !== 'message.delta') return;
    const { messageId, offset, text, author } = envelope.payload || {};
    if (!messageId || typeof text !== 'string') return;
    if (this._messageIds(true).has(messageId)) return;
    const draft = this.state.drafts[messageId] || { text: '' };
    if (offset > draft.text.length) return; // a gap: wait for the stored snapshot or the whole message
    const next = {
      conversationId: envelope.conversationId, taskId: envelope.taskId, author, messageId,
      text: draft.text.slice(0, offset) + text, updatedAt: envelope.occurredAt,
    };
    this.set({ drafts: { ...this.state.drafts, [messageId]: next } });
  }

  _messageIds(completeOnly) {
    const ids = new Set();
    for (const list of Object.values(this.state.messages)) {
      for (const m of list.items || []) if (!completeOnly || m.state === 'complete') ids.add(m.id);
    }
    return ids;
  }

  _apply(env) {
    const p = env.payload || {};
    switch (env.type) {
      case 'agent.paired':
      case 'agent.credential_rotated': // the same agent paired again: same id, a new credential
        if (this.state.pairing && this.state.pairing.codeId === p.codeId) {
          this.set({ pairing: { ...this.state.pairing, agentId: p.agentId, status: 'paired', pairedAt: new Date().toISOString() } });
        }
        this._schedule('agents');
        break;
      case 'agent.status_changed':
        this._backToast(env);
        this.set({
          agents: this.state.agents.map((a) => (a.id === p.agentId ? {
            ...a, status: p.status, statusReason: p.reason, lastHeartbeatAt: p.lastHeartbeatAt ?? a.lastHeartbeatAt,
            runtime: p.runtime ?? a.runtime, agentVersion: p.agentVersion ?? a.agentVersion,
            capabilities: p.capabilities ?? a.capabilities,
          } : a)),
        });
        // A terminal agent's conversations end when it goes (GET /api/sessions): the session list follows.
        this._schedule('agents', 'tasks', 'inbox', 'detail', 'sessions');
        break;
      case 'agent.renamed':
      case 'agent.revoked':
        this._schedule('agents', 'tasks', 'detail');
        break;
      case 'conversation.created':
        this._schedule('conversations', 'sessions'); // a terminal agent's new conversation is a row of Sessions
        break;
      case 'message.created':
      case 'message.updated':
        this._upsertMessage(env);
        this._schedule('conversations');
        if (env.taskId) this._schedule('detail');
        break;
      case 'task.created':
      case 'task.child_created':
      case 'task.accepted':
      case 'task.status_changed':
      case 'task.cancel_requested':
        if (env.type === 'task.status_changed') this._patchTask(env.taskId, p);
        this._schedule('tasks', 'inbox', 'detail', 'sessions'); // a terminal conversation runs while its task does
        break;
      case 'interaction.requested':
      case 'interaction.resolved':
      case 'interaction.expired':
        this._schedule('interactions', 'inbox', 'tasks', 'detail');
        break;
      case 'artifact.created':
        this._schedule('detail', 'tasks');
        break;
      case 'device.created':
      case 'device.revoked':
        this._schedule('devices');
        break;
      case 'tool.call':
        if (env.taskId) this._schedule('detail'); // the call is on its task's timeline (lib/tool-calls.js pairs results)
        break;
      case 'notification.created':
        this._notified(p).catch(() => {});
        break;
      default:
        if (SESSION_EVENTS.has(env.type)) this._schedule('sessions', 'conversations');
        break; // other event types change nothing the app shows
    }
  }

  /**
   * A `notification.created` of the in-app channel: a toast, a buzz and a browser notification, but only when
   * it arrives live (a replay during catch-up pops nothing) and only in the first tab of this browser to claim it.
   */
  async _notified(note) {
    if (!note || !note.id) return;
    if (this.state.notificationLog) this._scheduleLogReload();
    if (this.live?.status !== 'live' || !this.shownNotifications) return;
    if (!(await this.shownNotifications.claim(note.id))) return;
    const { currentToasts, describe, showBrowserNotification, vibrate, withToast } = this._notes;
    this.set({ toasts: withToast(currentToasts(this.state.toasts, this.state), note) });
    vibrate();
    // The browser notification says what the state knows: read the question and its task first if needed.
    const missing = (note.interactionId && !this.state.interactions.some((i) => i.id === note.interactionId))
      || (note.taskId && !this.state.tasks.some((x) => x.id === note.taskId));
    if (missing && this.state.browserNotify.enabled) await this.refresh(['interactions', 'tasks']).catch(() => {});
    showBrowserNotification(note, describe(note, this.state), () => this.onNotificationOpen?.(note));
  }

  /** An agent that this screen saw go offline is back, live: a toast says so and leads to its task (its one task in
   * progress, else the Agents page). The offline one leaves by itself (it is stale), and nothing said the agent was
   * back and its task carried on, so the person went looking. The app's own toast: the hub sends none for a return. */
  _backToast(env) {
    const p = env.payload;
    const before = this.state.agents.find((a) => a.id === p.agentId);
    if (p.status !== 'online' || !before || before.status === 'online' || !before.lastHeartbeatAt) return;
    if (this.live?.status !== 'live') return; // a replay during catch-up pops nothing
    const active = this.state.tasks.filter((x) => x.agentId === p.agentId && !x.parentTaskId
      && ['queued', 'running', 'waiting_for_human'].includes(x.status));
    const note = { id: `back:${p.agentId}:${env.sequence ?? env.id}`, kind: 'agent_back', agent: before.name,
      agentId: p.agentId, taskId: active.length === 1 ? active[0].id : null, createdAt: env.occurredAt };
    const { currentToasts, withToast } = this._notes || {};
    if (!withToast) return;
    this.set({ toasts: withToast(currentToasts(this.state.toasts, this.state), note) });
  }

  _scheduleLogReload() {
    clearTimeout(this._logTimer);
    // The hub marks a delivery done just after storing the event: read the log a moment later.
    this._logTimer = setTimeout(() => this.loadNotificationLog().catch(() => {}), 400);
  }

  _watchPermission() {
    navigator.permissions?.query({ name: 'notifications' }).then((status) => {
      status.onchange = () => this.set({ browserNotify: this._notes.browserNotifyState() });
    }, () => {});
  }

  /** An `agent.status_changed`, from the history read or live: kept per agent, in log order, as state.presence. */
  _presenceEvent(env) {
    if (env.type !== 'agent.status_changed' || !env.payload?.agentId) return;
    const p = env.payload;
    this._presence ??= new Map();
    const list = this._presence.get(p.agentId) || [];
    if (list.some((x) => x.sequence === env.sequence)) return;
    list.push({ status: p.status, reason: p.reason ?? null, at: env.occurredAt, lastHeartbeatAt: p.lastHeartbeatAt ?? null,
      sequence: env.sequence ?? 0 });
    list.sort((a, b) => a.sequence - b.sequence);
    this._presence.set(p.agentId, list.slice(-200));
    if (this._presenceScheduled) return; // a page of history is one change
    this._presenceScheduled = true;
    queueMicrotask(() => {
      this._presenceScheduled = false;
      this.set({ presence: Object.fromEntries(this._presence) });
    });
  }

  _patchTask(taskId, p) {
    this.set({
      tasks: this.state.tasks.map((task) => (task.id === taskId ? {
        ...task, status: p.status ?? task.status, progress: p.progress ?? task.progress, summary: p.summary ?? task.summary,
      } : task)),
    });
  }

  _upsertMessage(env) {
    const p = env.payload;
    if (env.type === 'message.created') {
      this._created.add(p.messageId);
      if (this._created.size > CREATED_KEPT) this._created.delete(this._created.values().next().value);
    }
    const conversationId = env.conversationId;
    const message = {
      id: p.messageId, conversationId, author: p.author, targetAgentId: p.targetAgentId ?? null,
      content: p.content ?? '', blocks: p.blocks ?? null, state: env.type === 'message.created' ? 'complete' : 'streaming',
      attachments: p.attachments ?? null,
      createdAt: env.occurredAt, updatedAt: env.occurredAt, sequence: env.sequence, lastSequence: env.sequence,
      taskId: env.taskId ?? null,
    };
    const patch = {};
    const list = this.state.messages[conversationId];
    if (list) {
      const items = [...(list.items || [])];
      const at = items.findIndex((m) => m.id === message.id);
      if (at >= 0) items[at] = { ...items[at], ...message, createdAt: items[at].createdAt, sequence: items[at].sequence };
      else items.push(message);
      patch.messages = { ...this.state.messages, [conversationId]: { ...list, items } };
    }
    if (message.state === 'complete') { // the conversation list's preview line
      patch.previews = { ...this.state.previews, [conversationId]: message };
    }
    if (message.state === 'complete' && this.state.drafts[message.id]) {
      const drafts = { ...this.state.drafts };
      delete drafts[message.id];
      patch.drafts = drafts;
    }
    if (this.state.outgoing.some((o) => o.messageId === message.id)) {
      patch.outgoing = this.state.outgoing.filter((o) => o.messageId !== message.id);
    }
    this.set(patch);
  }

  // ---- actions ------------------------------------------------------------------------------------------

  openConversation(id) {
    if (this.state.openConversationId === id) return;
    this.set({ openConversationId: id });
    if (id && (!this.state.messages[id] || this.state.messages[id].error)) this._loadMessages(id); // a failed read: again
  }

  /** The newest message of each conversation in `ids` (the list's preview line), read once per conversation, a few at
   * a time; live messages keep them current (_upsertMessage). */
  async loadPreviews(ids) {
    this._previewsAsked ??= new Set();
    const wanted = ids.filter((id) => !this._previewsAsked.has(id) && !this.state.previews[id]).slice(0, 30);
    for (const id of wanted) this._previewsAsked.add(id);
    const next = async () => {
      for (let id = wanted.shift(); id; id = wanted.shift()) {
        try {
          const page = await this.api.get(`/api/conversations/${encodeURIComponent(id)}/messages?limit=1`);
          const newest = page.messages[page.messages.length - 1];
          if (newest && !this.state.previews[id]) this.set({ previews: { ...this.state.previews, [id]: newest } });
        } catch {
          this._previewsAsked.delete(id); // asked again the next time the list is drawn
        }
      }
    };
    await Promise.all([next(), next()]);
  }

  /** Read the session list and whether sessions are on, once (the owner's "New session", docs/sessions.md); from
   * then on session.* events keep it current. Asked after the first screen, never before it. */
  wantSessions() {
    if (this.state.sessions && this.state.sessions.status !== 'error') return;
    this.set({ sessions: { status: 'loading', items: [] } });
    readSessions(this.api, { first: true }).then((read) => this.set({ sessions: { items: [], ...read } }));
  }

  /** Re-read the session list now (after Start, Stop or End: the answer need not wait for the event). */
  refreshSessions() {
    return this.refresh(['sessions', 'conversations']);
  }

  openTask(id) {
    if (this.state.openTaskId === id) return;
    this.set({ openTaskId: id });
    if (id) this.refresh(['detail']);
  }

  /** Send an envelope on the live connection. Its code loads after the first screen is painted (lib/lazy.js);
      a click before that (a slow phone, a busy machine) gets its envelope id at once and is handed over when
      the connection exists, not lost and no script error. */
  _send(type, payload, fields = {}) {
    if (this.live) return this.live.send(type, payload, fields);
    const id = fields.id || newId('env');
    return { id, done: this._liveReady.then((live) => live.send(type, payload, { ...fields, id }).done) };
  }

  /** With "track as task", task.create first, then the text as message.create for the agent. */
  sendMessage({ conversationId, text, trackAsTask, targetAgentId, attachments = [] }) {
    const content = text.trim();
    if (!content && !attachments.length) return null;
    let taskId;
    if (trackAsTask) {
      taskId = newId('task');
      const sent = this._send('task.create', { title: firstLine(content) || attachments[0].name, description: content,
        targetAgentId }, { conversationId, taskId });
      sent.done.then(() => this._schedule('tasks'), () => {});
    }
    const messageId = newId('msg');
    const payload = { content, messageId };
    if (targetAgentId) payload.targetAgentId = targetAgentId;
    // Files uploaded by the composer (lib/files.js): the hub adds each one's name, type and size.
    if (attachments.length) payload.attachments = attachments.map(({ fileId }) => ({ fileId }));
    const sent = this._send('message.create', payload, { conversationId, taskId });
    sent.done.catch(() => {});
    return { messageId, taskId };
  }

  retryMessage(envelopeId) {
    const failed = this.state.outgoing.find((o) => o.envelopeId === envelopeId);
    if (!failed) return;
    this.set({ outgoing: this.state.outgoing.filter((o) => o.envelopeId !== envelopeId) });
    const conversation = this.state.conversations.find((c) => c.id === failed.conversationId);
    this._send('message.create', { content: failed.content, messageId: newId('msg'),
      targetAgentId: conversation?.agentIds?.[0], ...(failed.attachments ? { attachments: failed.attachments } : {}) },
    { conversationId: failed.conversationId, taskId: failed.taskId })
      .done.catch(() => {});
  }

  respond(interaction, response) {
    const sent = this._send('interaction.respond', { interactionId: interaction.id, response },
      { conversationId: interaction.conversationId, taskId: interaction.taskId });
    sent.done.catch(() => {});
    // A receipt for the inbox, whose card leaves once answered ("did it go through?" was asked in every usability run).
    const receipt = { id: interaction.id, title: interaction.title, type: interaction.type, agentId: interaction.agentId,
      taskId: interaction.taskId, options: interaction.spec?.options || null, at: new Date().toISOString() };
    this.set({ answers: { ...this.state.answers, [interaction.id]: { envelopeId: sent.id, response, status: 'sending' } },
      receipts: [receipt, ...this.state.receipts.filter((r) => r.id !== interaction.id)].slice(0, RECEIPTS) });
  }

  requestCancel(taskId, reason) {
    const task = this.state.tasks.find((x) => x.id === taskId);
    const sent = this._send('task.cancel_requested', reason ? { reason } : {},
      { taskId, conversationId: task?.conversationId });
    this.set({ cancels: { ...this.state.cancels, [taskId]: { status: 'sending' } } });
    sent.done.then(() => {
      this.set({ cancels: { ...this.state.cancels, [taskId]: { status: 'sent' } } });
      this._schedule('tasks', 'detail', 'inbox');
    }, () => {});
  }

  /** Start a failed or cancelled task again as a new task with the same words
      (docs/design.md#an-agent-that-goes-away). */
  restartTask(task) {
    const conversation = this.state.conversations.find((c) => c.id === task.conversationId);
    const text = task.description || task.title;
    return this.sendMessage({ conversationId: task.conversationId, text, trackAsTask: true,
      targetAgentId: task.agentId || conversation?.agentIds?.[0] });
  }

  createConversation({ title, agentIds }) {
    const conversationId = newId('conv');
    const sent = this._send('conversation.create', { title, agentIds }, { conversationId });
    return { conversationId, done: sent.done.then(() => this.refresh(['conversations'])) };
  }

  /** A one-time code; with `replacesAgentId`, one that pairs that existing agent again (its credential file lost). */
  async createPairingCode(name, replacesAgentId) {
    this.set({ pairing: { status: 'creating' } });
    try {
      const answer = await this.api.post('/api/pairing-codes', replacesAgentId ? { replacesAgentId } : name ? { name } : {});
      this.set({ pairing: { ...answer, status: 'waiting', createdAt: new Date().toISOString() } });
    } catch (error) {
      this.set({ pairing: { status: 'error', error } });
    }
  }

  closePairing() {
    this.set({ pairing: null });
  }

  async renameAgent(agentId, name) {
    await this.api.post(`/api/agents/${encodeURIComponent(agentId)}/rename`, { name });
    await this.refresh(['agents']);
  }

  async revokeAgent(agentId) {
    await this.api.post(`/api/agents/${encodeURIComponent(agentId)}/revoke`, {});
    await this.refresh(['agents', 'tasks']);
  }

  async createSignInLink() {
    this.set({ signInLink: { status: 'creating' } });
    try {
      const link = await this.api.post('/api/sign-in-links', {});
      this.set({ signInLink: { ...link, status: 'ready' } });
    } catch (error) {
      this.set({ signInLink: { status: 'error', error } });
    }
  }

  closeSignInLink() {
    this.set({ signInLink: null });
  }

  async loadDevices() {
    const data = await this.api.get('/api/devices');
    this.set({ devices: data.devices });
  }

  async revokeDevice(deviceId) {
    await this.api.post(`/api/devices/${encodeURIComponent(deviceId)}/revoke`, {});
    await this.loadDevices();
  }

  dismissToast(id) {
    if (!this.state.toasts.some((x) => x.id === id)) return;
    this.set({ toasts: this.state.toasts.filter((x) => x.id !== id) });
  }

  async loadNotificationLog() {
    try {
      const log = await this.api.get('/api/notifications');
      this.set({ notificationLog: { ...log, status: 'ready', loadedAt: new Date().toISOString() } });
    } catch (error) {
      this.set({ notificationLog: { ...(this.state.notificationLog || {}), status: 'error', error } });
    }
  }

  /** The settings page's "send test notification": every channel, or the one named. */
  async sendTestNotification(channel = null) {
    this.set({ notificationTest: { status: 'sending', channel } });
    try {
      await this.api.post('/api/notifications/test', channel ? { channel } : {});
      this.set({ notificationTest: { status: 'sent', channel, at: new Date().toISOString() } });
      this._scheduleLogReload();
    } catch (error) {
      this.set({ notificationTest: { status: 'error', channel, error } });
    }
  }

  /** Turn browser notifications on: asks the browser for permission (from the settings button's click). */
  async enableBrowserNotifications() {
    const notes = await import('./notifications.js'); // loaded with the live layer; at once from then on
    notes.setBrowserSwitch(true);
    await notes.requestBrowserPermission();
    this.set({ browserNotify: notes.browserNotifyState() });
  }

  async disableBrowserNotifications() {
    const notes = await import('./notifications.js');
    notes.setBrowserSwitch(false);
    this.set({ browserNotify: notes.browserNotifyState() });
  }

  markInboxSeen(ids) {
    const seen = new Set(this.state.seenInbox);
    let changed = false;
    for (const id of ids) if (!seen.has(id)) { seen.add(id); changed = true; }
    if (!changed) return;
    this.set({ seenInbox: seen });
    try {
      localStorage.setItem(`lineup.seen.${this.state.me.userId}`, JSON.stringify([...seen].slice(-500)));
    } catch { /* remembered for this tab only */ }
  }
}
