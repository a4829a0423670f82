// The tab's connection to its hub, whichever way reaches it: direct (/ws/app) at home; through the WuKongIM relay
// (relay-connection.js) when the hub cannot be reached and this browser holds relay credentials; and back to direct
// as soon as the hub answers again (docs/relay.md, "The app in relay mode"). It has LiveConnection's interface and
// events, plus `mode` ('direct' | 'relay', a `mode` event when it changes) and `problem`, so the workspace does not
// care which connection carries its envelopes. Envelopes waiting for their ack move with the switch, promises and all.
// Through the relay the page's HTTP calls go through it too (lib/relay-requests.js, routed by lib/api.js), so every
// screen reads what it reads at home.

import { LiveConnection } from './live-connection.js';
import { RelayConnection } from './relay-connection.js';
import { loadRelayCredentials } from './relay-access.js';
import { RelayRequests } from './relay-requests.js';
import { routeThroughRelay } from './api.js';

const FORWARDED = ['status', 'welcome', 'resync', 'caught-up', 'event', 'transient', 'ack', 'send-error', 'outbox',
  'unauthorized'];
export const SWITCH_AFTER_MS = 3000; // the hub out of reach this long, with relay credentials held: use the relay
const PROBE_FIRST_MS = 2000; // in relay mode, ask the hub's own address whether it answers again ...
const PROBE_MAX_MS = 15000; // ... less and less often
const PROBE_TIMEOUT_MS = 4000;

export class HubConnection extends EventTarget {
  /**
   * LiveConnection's options, and `relayFirst`: start through the relay (the hub did not answer at start-up);
   * `resumeFrom()`: the sequence up to which the state is complete (an HTTP read the switch cut short is not), so
   * the relay replays from there rather than from the last event seen.
   */
  constructor({ relayFirst = false, resumeFrom = null, ...options }) {
    super();
    this.options = options;
    this.relayFirst = relayFirst;
    this.resumeFrom = resumeFrom;
    this.current = null;
    this.stopped = false;
    this._listeners = null;
    this._timers = {};
    this._probeDelay = PROBE_FIRST_MS;
    this._probing = false;
  }

  get mode() { return this.current instanceof RelayConnection ? 'relay' : 'direct'; }

  get status() { return this.current ? this.current.status : 'idle'; }

  set status(value) { this.current.status = value; }

  get lastSequence() { return this.current ? this.current.lastSequence : this.options.lastSequence; }

  set lastSequence(value) { this.current.lastSequence = value; }

  get epoch() { return this.current ? this.current.epoch : this.options.epoch; }

  get workspaceId() { return this.options.workspaceId; }

  get outboxKey() { return this.options.outboxKey; }

  get offlineSince() { return this.current?.offlineSince ?? null; }

  get nextRetryAt() { return this.current?.nextRetryAt ?? null; }

  get attempt() { return this.current?.attempt ?? 0; }

  get problem() { return this.current?.problem ?? null; }

  get connected() { return Boolean(this.current?.connected); }

  /** Whether what travels through the relay is sealed end to end (the relay client says; false until it can). */
  get sealed() { return this.mode === 'relay' && this.current?.sealed === true; }

  start() {
    this.stopped = false;
    if (this.current) {
      this._route(this.current instanceof RelayConnection ? this.current : null);
      this.current.start();
      this._watch();
      return;
    }
    const credentials = this.relayFirst ? this._credentials() : null;
    this._use(credentials ? this._relay(credentials) : this._direct());
  }

  stop() {
    this.stopped = true;
    this._route(null);
    this._clearTimers();
    this.current?.stop();
  }

  /** "Retry now": reconnect at once, and in relay mode also ask whether the hub answers again. */
  retryNow() {
    if (this.mode === 'relay') this._probe();
    this.current?.retryNow();
  }

  send(type, payload, fields = {}) {
    return this.current.send(type, payload, fields);
  }

  pending() {
    return this.current ? this.current.pending() : [];
  }

  /** Relay credentials were saved or forgotten on this device (settings): switch if that changes the way. */
  relayChanged() {
    if (this.mode === 'relay' && !this._credentials()) this._use(this._direct());
    else this._watch();
  }

  // ---- switching -----------------------------------------------------------------------------------------

  _credentials() {
    return loadRelayCredentials(this.options.workspaceId);
  }

  _position() {
    return { epoch: this.epoch, lastSequence: this.lastSequence };
  }

  _direct() {
    return new LiveConnection({ ...this.options, ...this._position() });
  }

  _relay(credentials) {
    const { workspaceId, outboxKey } = this.options;
    const position = this._position();
    if (this.resumeFrom) position.lastSequence = Math.min(position.lastSequence, this.resumeFrom());
    return new RelayConnection({ credentials, workspaceId, outboxKey, ...position });
  }

  _use(next) {
    const previous = this.current;
    this._clearTimers();
    this._listeners?.abort();
    if (previous) {
      next._outbox = previous._outbox; // the same envelopes, with the promises the workspace waits on
      next._settled = previous._settled;
      previous.stop();
    }
    this.current = next;
    this._route(next instanceof RelayConnection ? next : null);
    this._listeners = new AbortController();
    const { signal } = this._listeners;
    for (const name of FORWARDED) {
      next.addEventListener(name, (e) => this.dispatchEvent(new CustomEvent(name, { detail: e.detail })), { signal });
    }
    next.addEventListener('status', () => this._watch(), { signal });
    next.addEventListener('caught-up', () => { if (this.mode === 'direct') this._probeDelay = PROBE_FIRST_MS; }, { signal });
    if (!this.stopped) next.start();
    if (previous) this.dispatchEvent(new CustomEvent('mode', { detail: { mode: this.mode } }));
    this._watch();
  }

  /** The page's HTTP calls: through this relay connection, or (null) to the hub's own address. */
  _route(relay) {
    this._requests?.close();
    this._requests = relay ? new RelayRequests(relay) : null;
    const requests = this._requests;
    routeThroughRelay(requests ? (method, path, body) => requests.request(method, path, body) : null);
  }

  /** Direct and out of reach for SWITCH_AFTER_MS with credentials held: relay. Relay: probe the hub's address. */
  _watch() {
    if (this.stopped) return;
    if (this.mode === 'relay') {
      if (!this._timers.probe && !this._probing) this._timers.probe = setTimeout(() => this._probe(), this._probeDelay);
      return;
    }
    const direct = this.current;
    const down = direct.status === 'offline' || (direct.status === 'connecting' && direct.offlineSince !== null);
    if (!down) {
      clearTimeout(this._timers.switch);
      this._timers.switch = null;
      return;
    }
    if (this._timers.switch || !this._credentials()) return;
    this._timers.switch = setTimeout(() => {
      this._timers.switch = null;
      const credentials = this._credentials();
      if (!this.stopped && this.mode === 'direct' && !this.current.connected && credentials) {
        this._use(this._relay(credentials));
      }
    }, SWITCH_AFTER_MS);
  }

  async _probe() {
    clearTimeout(this._timers.probe);
    this._timers.probe = null;
    if (this._probing || this.stopped || this.mode !== 'relay') return;
    this._probing = true;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), PROBE_TIMEOUT_MS);
    let answered = false;
    try {
      const response = await fetch('/-/health', { cache: 'no-store', credentials: 'omit', signal: controller.signal });
      answered = response.ok;
    } catch {
      answered = false;
    } finally {
      clearTimeout(timer);
      this._probing = false;
    }
    if (this.stopped || this.mode !== 'relay') return;
    if (answered) {
      this._use(this._direct());
      return;
    }
    this._probeDelay = Math.min(PROBE_MAX_MS, Math.round(this._probeDelay * 1.5));
    this._watch();
  }

  _clearTimers() {
    clearTimeout(this._timers.switch);
    clearTimeout(this._timers.probe);
    this._timers = {};
  }
}
