// The tab's one /ws/app connection: hello with the token, resume from lastSequence, heartbeat, reconnect with
// backoff, and an outbox that keeps every unacknowledged envelope (also across a reload) and re-sends it with
// the same id after a reconnect: the hub stores each id once (docs/protocol.md "Frames and answers").

import { newId } from './ids.js';

const RETRYABLE = new Set(['storage_full', 'internal', 'rate_limited']);
const BACKOFF_INITIAL_MS = 500;
const BACKOFF_MAX_MS = 15000;

export function appSocketUrl(location = window.location) {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/ws/app`;
}

/**
 * Events (all `CustomEvent`s on this object): `status` {status}, `welcome` {payload}, `resync` {payload},
 * `caught-up` {sequence}, `event` {envelope}, `transient` {envelope}, `ack` {id, envelope, payload},
 * `send-error` {id, envelope, error}, `outbox` {pending}, `unauthorized` {}.
 * Status is one of: idle, connecting, catching_up, live, offline, unauthorized, stopped.
 */
export class LiveConnection extends EventTarget {
  constructor({ token, workspaceId, epoch = null, lastSequence = 0, outboxKey = null, url = appSocketUrl() }) {
    super();
    this.token = token;
    this.workspaceId = workspaceId;
    this.epoch = epoch;
    this.lastSequence = lastSequence;
    this.url = url;
    this.outboxKey = outboxKey;
    this.status = 'idle';
    this.attempt = 0;
    this.nextRetryAt = null;
    this.offlineSince = null;
    this.heartbeatMs = 25000;
    this.ws = null;
    this._outbox = new Map(); // envelope id -> { envelope, waiters: [{resolve, reject}] }
    this._settled = new Set(); // ids acknowledged or refused through this tab, dropped from the shared copy
    this._timers = {};
    this._lastFrameAt = 0;
    this._onOnline = () => this.retryNow();
    this._loadOutbox();
  }

  start() {
    if (this.status !== 'idle' && this.status !== 'stopped') return;
    window.addEventListener('online', this._onOnline);
    this._connect();
  }

  stop() {
    this._setStatus('stopped');
    window.removeEventListener('online', this._onOnline);
    this._clearTimers();
    if (this.ws) {
      this.ws.onclose = null;
      this.ws.close(1000, 'bye');
      this.ws = null;
    }
  }

  /** Reconnect at once instead of waiting for the backoff (the banner's "retry now", the browser coming online). */
  retryNow() {
    if (this.status !== 'offline') return;
    clearTimeout(this._timers.retry);
    this._connect();
  }

  get connected() {
    return this.status === 'live' || this.status === 'catching_up';
  }

  /** Queue an envelope and send it when possible. Returns its id and a promise of the hub's ack payload. */
  send(type, payload, fields = {}) {
    const envelope = {
      id: fields.id || newId('env'), type, version: '0.1', occurredAt: new Date().toISOString(),
      workspaceId: this.workspaceId, payload,
    };
    for (const [key, value] of Object.entries(fields)) {
      if (key !== 'id' && value !== undefined && value !== null) envelope[key] = value;
    }
    const done = new Promise((resolve, reject) => {
      this._outbox.set(envelope.id, { envelope, waiters: [{ resolve, reject }] });
    });
    this._saveOutbox();
    if (this.connected) this._transmit(envelope);
    return { id: envelope.id, envelope, done };
  }

  /** Envelopes sent but not yet acknowledged, oldest first. */
  pending() {
    return [...this._outbox.values()].map((entry) => entry.envelope);
  }

  // ---- the socket ---------------------------------------------------------------------------------

  _connect() {
    this._clearTimers();
    this._setStatus('connecting');
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this._scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      const hello = { token: this.token, lastSequence: this.lastSequence };
      if (this.epoch) hello.epoch = this.epoch;
      ws.send(JSON.stringify({
        id: newId('hello'), type: 'app.hello', version: '0.1', occurredAt: new Date().toISOString(),
        payload: hello,
      }));
    };
    ws.onmessage = (message) => this._onFrame(message.data);
    ws.onclose = (event) => this._onClose(event);
    ws.onerror = () => { /* onclose follows and decides */ };
  }

  _onClose(event) {
    this.ws = null;
    this._clearTimers();
    if (this.status === 'stopped') return;
    if (event.code === 4401) {
      this._setStatus('unauthorized');
      this.dispatchEvent(new CustomEvent('unauthorized', { detail: {} }));
      return;
    }
    this._scheduleReconnect();
  }

  _scheduleReconnect() {
    const base = Math.min(BACKOFF_MAX_MS, BACKOFF_INITIAL_MS * 2 ** this.attempt);
    const delay = Math.round(base * (0.5 + Math.random() / 2));
    this.attempt += 1;
    this.nextRetryAt = Date.now() + delay;
    if (this.offlineSince === null) this.offlineSince = new Date().toISOString();
    this._setStatus('offline');
    this._timers.retry = setTimeout(() => this._connect(), delay);
  }

  _transmit(envelope) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(envelope));
  }

  _onFrame(raw) {
    let frame;
    try {
      frame = JSON.parse(raw);
    } catch {
      return;
    }
    this._lastFrameAt = Date.now();
    const payload = frame.payload || {};
    switch (frame.type) {
      case 'system.welcome':
        this.heartbeatMs = payload.heartbeatIntervalMs || this.heartbeatMs;
        this.workspaceId = payload.workspaceId || this.workspaceId;
        this.epoch = payload.epoch;
        this._setStatus('catching_up');
        this._startHeartbeat();
        this.dispatchEvent(new CustomEvent('welcome', { detail: { payload } }));
        for (const { envelope } of this._outbox.values()) this._transmit(envelope);
        return;
      case 'system.resync_required':
        this.epoch = payload.epoch;
        this.lastSequence = payload.headSequence;
        this.dispatchEvent(new CustomEvent('resync', { detail: { payload } }));
        return;
      case 'system.caught_up':
        this.lastSequence = Math.max(this.lastSequence, payload.sequence || 0);
        this.attempt = 0;
        this.nextRetryAt = null;
        this.offlineSince = null;
        this._setStatus('live');
        this.dispatchEvent(new CustomEvent('caught-up', { detail: { sequence: this.lastSequence } }));
        return;
      case 'system.ack':
        this._settle(payload.id, payload, null);
        return;
      case 'system.error':
        this._onError(payload);
        return;
      case 'system.pong':
        return;
      default:
        break;
    }
    if (frame.sequence === undefined || frame.sequence === null) {
      this.dispatchEvent(new CustomEvent('transient', { detail: { envelope: frame } }));
      return;
    }
    if (frame.sequence <= this.lastSequence) return; // seen before a reconnect
    this.lastSequence = frame.sequence;
    this.dispatchEvent(new CustomEvent('event', { detail: { envelope: frame } }));
  }

  _onError(error) {
    const entry = error.id ? this._outbox.get(error.id) : null;
    if (!entry) return;
    if (RETRYABLE.has(error.code)) {
      setTimeout(() => this._transmit(entry.envelope), 1000);
      return;
    }
    this._settle(error.id, null, error);
  }

  _settle(id, ack, error) {
    const entry = this._outbox.get(id);
    if (!entry) return;
    this._outbox.delete(id);
    this._settled.add(id);
    this._saveOutbox();
    for (const waiter of entry.waiters) {
      if (error) waiter.reject(Object.assign(new Error(error.message), error));
      else waiter.resolve(ack);
    }
    if (error) {
      this.dispatchEvent(new CustomEvent('send-error', { detail: { id, envelope: entry.envelope, error } }));
    } else {
      this.dispatchEvent(new CustomEvent('ack', { detail: { id, envelope: entry.envelope, payload: ack } }));
    }
  }

  _startHeartbeat() {
    clearInterval(this._timers.ping);
    this._timers.ping = setInterval(() => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
      // Nothing heard for two intervals: the connection is dead even if the browser has not noticed.
      if (Date.now() - this._lastFrameAt > this.heartbeatMs * 2 + 5000) {
        this.ws.close(4000, 'heartbeat missed');
        return;
      }
      this.ws.send(JSON.stringify({
        id: newId('ping'), type: 'system.ping', version: '0.1', occurredAt: new Date().toISOString(),
        workspaceId: this.workspaceId, payload: {},
      }));
    }, this.heartbeatMs);
  }

  _clearTimers() {
    clearTimeout(this._timers.retry);
    clearInterval(this._timers.ping);
    this._timers = {};
  }

  _setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    this.dispatchEvent(new CustomEvent('status', { detail: { status } }));
  }

  // ---- the outbox on disk -----------------------------------------------------------------------------

  _loadOutbox() {
    if (!this.outboxKey) return;
    try {
      const saved = JSON.parse(localStorage.getItem(this.outboxKey) || '[]');
      for (const envelope of saved) {
        if (envelope && envelope.id) this._outbox.set(envelope.id, { envelope, waiters: [] });
      }
    } catch { /* an unreadable outbox is dropped */ }
  }

  /**
   * The stored copy is shared by the tabs of this device: merge rather than overwrite, so an envelope another
   * tab queued is kept (and sent by whichever tab connects first; the hub stores each id once).
   */
  _saveOutbox() {
    this.dispatchEvent(new CustomEvent('outbox', { detail: { pending: this.pending() } }));
    if (!this.outboxKey) return;
    try {
      const merged = new Map();
      for (const envelope of JSON.parse(localStorage.getItem(this.outboxKey) || '[]')) {
        if (envelope && envelope.id && !this._settled.has(envelope.id)) merged.set(envelope.id, envelope);
      }
      for (const envelope of this.pending()) merged.set(envelope.id, envelope);
      if (merged.size) localStorage.setItem(this.outboxKey, JSON.stringify([...merged.values()]));
      else localStorage.removeItem(this.outboxKey);
    } catch { /* storage full or unavailable: the outbox still lives in memory */ }
  }
}
