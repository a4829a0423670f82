// The app's relay client: LiveConnection's interface and outbox, carried over WuKongIM's WebSocket JSON-RPC to the
// hub's uid when the hub itself cannot be reached (docs/relay.md, "The LineUp app's contract" and "The app in
// relay mode").
//
// What the two WuKongIM server lines do differently (docs/relay.md "Two server lines", hub/relay/v2_transport.py)
// is absorbed here: the answer to `ping` is anything carrying the ping's id (compat: `result: null`, v2: no
// `result`) or, on early v2 builds, a `pong` notification; `recv` may come without `header`; a payload is an object,
// JSON text or Base64 of JSON; a refusal is `error.code` (compat) or `result.reasonCode` ≠ 1 (v2). Payloads are
// sent as JSON objects (the v2 line stores them byte for byte, so a Base64 string would stay a string), and only
// `connect`, `ping`, `send` and `recvack` are ever sent: an unknown method makes the server close the socket.
//
// LAP over the relay: envelopes travel as custom type 5201, each answered by system.ack or system.error like on
// /ws/app; after every (re)connect the app asks the hub for what it missed (type 5202 `resume` → `replay` batches →
// `caught_up`), because WuKongIM pushes live only and a browser has no channel sync. Events are handled once: by
// WuKongIM message id, and by LAP sequence (live events that arrive during a replay wait for `caught_up`).
//
// Sealed: when the access was set up with keys (lib/relay-seal.js), every payload is sealed right before `send`
// (_sendPayload, whatever it carries) and opened right after `recv` (_receive), so everything between works on
// plain payloads and WuKongIM carries only type 5203. Both happen one at a time, in order: the counters only go up.
// A payload from the hub's uid that does not open (tampered, replayed, out of order, sealed with another key, or
// in clear) is dropped and shown (`problem` 'sealed', the `seal-refused` event).

import { LiveConnection } from './live-connection.js';
import { newId } from './ids.js';
import { loadSeal, SealRefused, SEALED_TYPE } from './relay-seal.js';

export const LAP_TYPE = 5201;
export const CONTROL_TYPE = 5202;
const PERSON_CHANNEL = 1;
const SUCCESS = 1;
const AUTH_FAIL = 2;
const QUERY_TOKEN_ERROR = 14;
const CONNECT_KICK = 12;
const PING_MS = 25000;
const REQUEST_TIMEOUT_MS = 15000;
const CATCH_UP_TIMEOUT_MS = 20000; // a replay is live-only (noPersist): ask again if it does not finish
const RESEND_AFTER_MS = 30000; // an envelope without system.ack by then is sent again (the hub stores each id once)
const SEEN_MAX = 2000;

// ---- the wire ------------------------------------------------------------------------------------------------

/** A message payload as an object: an object as is, JSON text, or Base64 of UTF-8 JSON (either server line). */
export function decodePayload(value) {
  if (value && typeof value === 'object' && !Array.isArray(value)) return value;
  if (typeof value !== 'string') return null;
  const attempts = [() => value, () => new TextDecoder().decode(Uint8Array.from(atob(value), (c) => c.charCodeAt(0)))];
  for (const text of attempts) {
    try {
      const parsed = JSON.parse(text());
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
    } catch { /* the next form */ }
  }
  return null;
}

/** The reason code of a CONNACK/SENDACK answer in either form; 1 is success. */
export function reasonOf(answer) {
  if (answer?.error && Number.isInteger(answer.error.code)) return answer.error.code;
  const result = answer?.result;
  const code = result ? (result.reasonCode ?? result.reason_code) : undefined;
  return Number.isInteger(code) ? code : 0;
}

// WuKongIM message ids exceed 2^53: a server that writes them as numbers would lose digits in JSON.parse.
function quoteLargeIds(raw) {
  return String(raw).replace(/"(messageId|message_id)"\s*:\s*(\d{16,})/g, '"$1":"$2"');
}

/**
 * Events, status and the outbox as LiveConnection (same names, same meaning), plus: `problem` — why it is not live
 * (`unreachable`, `auth`: the token was revoked or replaced, `kicked`: the same access is used in another tab or
 * browser, `refused:<reason code>`: WuKongIM refuses to deliver) — and `line`, the server line its answers show.
 */
export class RelayConnection extends LiveConnection {
  constructor({ credentials, workspaceId, epoch = null, lastSequence = 0, outboxKey = null, pingMs = PING_MS }) {
    super({ token: null, workspaceId, epoch, lastSequence, outboxKey, url: credentials.ws });
    this.credentials = credentials;
    this.heartbeatMs = pingMs;
    this.problem = null;
    this.line = null;
    this._signedIn = false;
    this._halted = false; // refused for a reason a retry does not change by itself: wait for retryNow()
    this._catchingUp = false;
    this._buffer = []; // live events that arrived during a replay
    this._requests = new Map(); // JSON-RPC id -> { resolve, reject, timer }
    this._seen = new Set(); // WuKongIM message ids already handled
    this._sentAt = new Map(); // envelope id -> when it was last handed to WuKongIM
    this._seal = null; // the SealedChannel, once loaded (credentials.seal says the access has keys)
    this._sending = Promise.resolve(); // sealing, then sending, one payload at a time
    this._opening = Promise.resolve(); // opening, then handling, one payload at a time
    this.sealRefusals = 0;
    this.lastSealRefusal = null; // { reason, at }
  }

  /** Whether what this connection carries is sealed for this device (its keys are loaded). */
  get sealed() { return this._seal !== null; }

  stop() {
    super.stop();
    this._signedIn = false;
    this._failRequests();
  }

  // ---- the session ------------------------------------------------------------------------------------------

  _connect() {
    this._clearTimers();
    this._signedIn = false;
    this._halted = false;
    this._setStatus('connecting');
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.problem = 'unreachable';
      this._scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => this._signIn(ws);
    ws.onmessage = (message) => this._onRpc(message.data);
    ws.onclose = () => this._onClose();
    ws.onerror = () => { /* onclose follows and decides */ };
  }

  async _signIn(ws) {
    const { uid, token, deviceFlag = 1 } = this.credentials;
    if (this.credentials.seal && !this._seal) {
      this._seal = await loadSeal(this.credentials.seal.kid);
      if (this.ws !== ws) return;
      if (!this._seal) { // this browser lost the keys (site data cleared): nothing can be opened or sent
        this.problem = 'sealKeyMissing';
        this._halted = true;
        ws.close(1000, 'no sealing keys');
        return;
      }
    }
    let answer;
    try {
      answer = await this._request('connect', newId('connect'), {
        uid, token, deviceId: this.credentials.deviceId || `lineup-web-${uid}`, deviceFlag, clientTimestamp: Date.now(),
      });
    } catch {
      if (this.ws === ws) ws.close(4000, 'no connack');
      return;
    }
    if (this.ws !== ws) return;
    const code = reasonOf(answer);
    if (code !== SUCCESS) {
      this.problem = code === AUTH_FAIL || code === QUERY_TOKEN_ERROR ? 'auth' : `refused:${code}`;
      this._halted = this.problem === 'auth';
      ws.close(1000, 'refused');
      return;
    }
    this.line = answer.result && 'reason_code' in answer.result ? 'compat' : 'v2';
    this.problem = null;
    this._signedIn = true;
    this._lastFrameAt = Date.now();
    this._setStatus('catching_up');
    this._startHeartbeat();
    this.dispatchEvent(new CustomEvent('welcome', {
      detail: { payload: { workspaceId: this.workspaceId, epoch: this.epoch, relay: true, line: this.line } },
    }));
    for (const { envelope } of this._outbox.values()) this._transmit(envelope);
    this._resume();
  }

  _onClose() {
    this.ws = null;
    this._signedIn = false;
    this._catchingUp = false;
    this._clearTimers();
    this._failRequests();
    if (this.status === 'stopped') return;
    if (this._halted) {
      if (this.offlineSince === null) this.offlineSince = new Date().toISOString();
      this.nextRetryAt = null;
      this._setStatus('offline');
      this._changed();
      return;
    }
    if (!this.problem || this.status === 'live') this.problem = 'unreachable';
    this._scheduleReconnect();
    this._changed();
  }

  /** Ask the hub for every event after lastSequence; answered by `replay` batches and `caught_up`. */
  _resume() {
    this._catchingUp = true;
    this._buffer = [];
    this._sendPayload({ type: CONTROL_TYPE, op: 'resume', lastSequence: this.lastSequence });
    clearTimeout(this._timers.catchUp);
    this._timers.catchUp = setTimeout(() => { if (this._catchingUp && this._signedIn) this._resume(); },
      CATCH_UP_TIMEOUT_MS);
  }

  _changed() {
    this.dispatchEvent(new CustomEvent('status', { detail: { status: this.status, problem: this.problem } }));
  }

  // ---- JSON-RPC -------------------------------------------------------------------------------------------

  _rpc(frame) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ jsonrpc: '2.0', ...frame }));
  }

  _request(method, id, params) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this._requests.delete(id);
        reject(new Error(`no answer to ${method}`));
      }, REQUEST_TIMEOUT_MS);
      this._requests.set(id, { resolve, reject, timer });
      this._rpc({ method, id, params });
    });
  }

  _failRequests() {
    for (const { reject, timer } of this._requests.values()) {
      clearTimeout(timer);
      reject(new Error('connection closed'));
    }
    this._requests.clear();
  }

  _sendPayload(payload) {
    const handed = this._sending.then(async () => {
      const carried = this._seal ? await this._seal.seal(payload) : payload;
      const clientMsgNo = newId('lu');
      // The clientMsgNo is also the request id: builds that answer SENDACK with id = clientMsgNo correlate too.
      return { sendack: this._request('send', clientMsgNo, {
        clientMsgNo, channelId: this.credentials.hubUid, channelType: PERSON_CHANNEL, payload: carried, header: {},
      }) };
    });
    this._sending = handed.then(() => {}, () => {});
    return handed.then(({ sendack }) => sendack);
  }

  _transmit(envelope) {
    if (!this._signedIn) return; // sent after the next sign-in, with the rest of the outbox
    this._sentAt.set(envelope.id, Date.now());
    this._sendPayload({ type: LAP_TYPE, envelope }).then((answer) => {
      const code = reasonOf(answer);
      if (code === SUCCESS || !this._outbox.has(envelope.id)) return;
      // Refused by WuKongIM (whitelist, blacklist, ban, rate limit): it stays queued and goes again later.
      this.problem = `refused:${code}`;
      this._changed();
    }, () => { /* no sendack: in doubt, sent again later; the hub stores each envelope id once */ });
  }

  _startHeartbeat() {
    clearInterval(this._timers.ping);
    this._timers.ping = setInterval(() => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
      if (Date.now() - this._lastFrameAt > this.heartbeatMs * 2 + 5000) {
        this.ws.close(4000, 'heartbeat missed');
        return;
      }
      this._rpc({ method: 'ping', id: newId('ping') }); // any answer counts (see above): it moves _lastFrameAt
      const stale = Date.now() - RESEND_AFTER_MS;
      for (const { envelope } of this._outbox.values()) {
        if ((this._sentAt.get(envelope.id) || 0) < stale) this._transmit(envelope);
      }
    }, this.heartbeatMs);
  }

  _clearTimers() {
    clearTimeout(this._timers.catchUp);
    super._clearTimers();
  }

  _onRpc(raw) {
    let frame;
    try {
      frame = JSON.parse(quoteLargeIds(raw));
    } catch {
      return;
    }
    if (!frame || typeof frame !== 'object') return;
    this._lastFrameAt = Date.now();
    if (frame.method === undefined) {
      const request = frame.id === undefined ? null : this._requests.get(frame.id);
      if (request) {
        this._requests.delete(frame.id);
        clearTimeout(request.timer);
        request.resolve(frame);
      }
      return; // also the pong, with or without `result`
    }
    if (frame.method === 'recv') this._onRecv(frame.params);
    else if (frame.method === 'disconnect') this._onDisconnect(frame.params || {});
    // `pong` notifications (early v2 builds) need nothing more than _lastFrameAt.
  }

  _onDisconnect(params) {
    const code = Number(params.reasonCode);
    this.problem = code === CONNECT_KICK ? 'kicked' : code === AUTH_FAIL ? 'auth' : 'unreachable';
    this._halted = code === CONNECT_KICK || code === AUTH_FAIL;
    this.ws?.close(1000, 'disconnected by the server');
  }

  _onRecv(params) {
    if (!params || params.messageId === undefined || params.messageId === null) return;
    const messageId = String(params.messageId);
    const ack = { messageId, messageSeq: Number(params.messageSeq) || 0 };
    if (params.header && typeof params.header === 'object') ack.header = params.header;
    if (!this._seen.has(messageId)) {
      this._seen.add(messageId);
      if (this._seen.size > SEEN_MAX) this._seen.delete(this._seen.values().next().value);
      if (String(params.fromUid) === this.credentials.hubUid) this._receive(decodePayload(params.payload));
    }
    this._rpc({ method: 'recvack', params: ack }); // a notification: no id
  }

  _receive(payload) {
    if (!this.credentials.seal) {
      this._onPayload(payload);
      return;
    }
    this._opening = this._opening.then(() => this._open(payload)).then((opened) => {
      if (opened) this._onPayload(opened);
    }).catch(() => { /* a handler's failure must not stop the payloads after it */ });
  }

  async _open(payload) {
    if (!payload || payload.type === 1) return null; // IM text (not sealed by nature) is not shown anyway
    try {
      if (payload.type !== SEALED_TYPE) throw new SealRefused('unsealed', 'a LineUp payload in clear');
      if (!this._seal) throw new SealRefused('unknown_key', 'no keys loaded');
      return await this._seal.open(payload);
    } catch (error) {
      if (!(error instanceof SealRefused)) throw error;
      this.sealRefusals += 1;
      this.lastSealRefusal = { reason: error.reason, at: new Date().toISOString() };
      console.warn(`relay: dropped a payload from the hub's uid that did not open (${error.reason})`);
      this.problem = 'sealed';
      this._changed();
      this.dispatchEvent(new CustomEvent('seal-refused', { detail: this.lastSealRefusal }));
      return null;
    }
  }

  _onPayload(payload) {
    if (!payload) return;
    if (payload.type === LAP_TYPE && payload.envelope && typeof payload.envelope === 'object') {
      this._onEnvelope(payload.envelope, false);
    } else if (payload.type === CONTROL_TYPE && payload.op === 'replay' && Array.isArray(payload.events)) {
      for (const envelope of payload.events) this._onEnvelope(envelope, true);
    } else if (payload.type === CONTROL_TYPE && payload.op === 'caught_up') {
      this._caughtUp(payload);
    } else if (payload.type === CONTROL_TYPE && payload.op === 'response') {
      this.dispatchEvent(new CustomEvent('response', { detail: payload })); // lib/relay-requests.js
    }
    // Type 1 is the hub's IM text for 唐僧叨叨 clients: the envelopes already say the same, so it is not shown.
  }

  // ---- LAP ------------------------------------------------------------------------------------------------

  _onEnvelope(frame, replayed) {
    const payload = frame.payload || {};
    switch (frame.type) {
      case 'system.ack':
        this._sentAt.delete(payload.id);
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
    if (this._catchingUp && !replayed) {
      this._buffer.push(frame); // applied in order after caught_up, if the replay did not bring it
      return;
    }
    this._deliver(frame);
  }

  _deliver(frame) {
    if (frame.sequence <= this.lastSequence) return; // seen already (a replay and live events overlap)
    this.lastSequence = frame.sequence;
    this.dispatchEvent(new CustomEvent('event', { detail: { envelope: frame } }));
  }

  _caughtUp({ sequence, epoch }) {
    if (!this._catchingUp) return;
    if ((this.epoch && epoch && epoch !== this.epoch) || (Number.isInteger(sequence) && sequence < this.lastSequence)) {
      // Another log than the one this tab knows (the hub's database was replaced): read it from the start.
      this.epoch = epoch || null;
      this.lastSequence = 0;
      this._resume();
      return;
    }
    this.epoch = epoch || this.epoch;
    this._catchingUp = false;
    clearTimeout(this._timers.catchUp);
    const buffered = this._buffer.sort((a, b) => a.sequence - b.sequence);
    this._buffer = [];
    for (const frame of buffered) this._deliver(frame);
    this.lastSequence = Math.max(this.lastSequence, Number(sequence) || 0);
    this.attempt = 0;
    this.nextRetryAt = null;
    this.offlineSince = null;
    this.problem = null;
    this._setStatus('live');
    this._changed();
    this.dispatchEvent(new CustomEvent('caught-up', { detail: { sequence: this.lastSequence } }));
  }
}
