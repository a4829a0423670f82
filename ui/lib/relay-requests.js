// The page's HTTP over the relay: a request to the hub's own routes travels as a 5202 `request` and comes back as one
// `response`, or as its Base64 parts, made into a fetch Response so lib/api.js and lib/files.js read it as they read
// HTTP (docs/protocol.md "Requests over the relay"). Answers are not stored by WuKongIM: a request whose connection
// ends before its answer fails like a dropped HTTP request, and the workspace reads again as it does at home.

import { newId } from './ids.js';
import { CONTROL_TYPE, reasonOf } from './relay-connection.js';

const SUCCESS = 1;
const SIGN_IN_WAIT_MS = 15000; // a request made while the relay signs in waits for it this long
const ANSWER_WAIT_MS = 45000; // from the request, or from the last part that arrived (a large file keeps coming)
const NO_BODY = new Set([101, 204, 205, 304]);

function bytesOf(base64) {
  const raw = atob(base64);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i += 1) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

/** Requests over one RelayConnection; `close()` fails what still waits (the connection was replaced). */
export class RelayRequests {
  constructor(connection) {
    this.connection = connection;
    this._waiting = new Map(); // request id -> { resolve, reject, timer, parts, onProgress }
    this._listeners = new AbortController();
    const { signal } = this._listeners;
    connection.addEventListener('response', (e) => this._onResponse(e.detail), { signal });
    // Signed out of WuKongIM (the socket went): the answers under way will not come (they are not stored).
    connection.addEventListener('status', () => { if (!connection._signedIn) this._failAll('the relay connection was lost'); },
      { signal });
  }

  /** `path` as lib/api.js has it (its query included); resolves with a Response, rejects when no answer came. */
  async request(method, path, body, { onProgress = null } = {}) {
    await this._signedIn();
    const [pathOnly, query = ''] = path.split('?');
    const id = newId('rq');
    const answer = new Promise((resolve, reject) => {
      this._waiting.set(id, { resolve, reject, parts: [], onProgress, timer: null });
      this._arm(id);
    });
    const sent = { type: CONTROL_TYPE, op: 'request', id, method, path: pathOnly, query };
    if (body !== undefined) sent.body = typeof body === 'string' ? JSON.parse(body) : body;
    this.connection._sendPayload(sent).then((ack) => {
      if (reasonOf(ack) !== SUCCESS) this._fail(id, `WuKongIM refused the request (${reasonOf(ack)})`);
    }, () => this._fail(id, 'the request could not be sent'));
    return answer;
  }

  close() {
    this._listeners.abort();
    this._failAll('the way to the hub changed');
  }

  _signedIn() {
    if (this.connection._signedIn) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = new AbortController();
      const timer = setTimeout(() => { done.abort(); reject(new Error('the relay is not connected')); }, SIGN_IN_WAIT_MS);
      this.connection.addEventListener('welcome', () => { clearTimeout(timer); done.abort(); resolve(); },
        { signal: done.signal });
    });
  }

  _arm(id) {
    const waiting = this._waiting.get(id);
    if (!waiting) return;
    clearTimeout(waiting.timer);
    waiting.timer = setTimeout(() => this._fail(id, 'no answer through the relay'), ANSWER_WAIT_MS);
  }

  _fail(id, why) {
    const waiting = this._waiting.get(id);
    if (!waiting) return;
    this._waiting.delete(id);
    clearTimeout(waiting.timer);
    waiting.reject(new Error(why));
  }

  _failAll(why) {
    for (const id of [...this._waiting.keys()]) this._fail(id, why);
  }

  _onResponse(payload) {
    const waiting = this._waiting.get(payload?.id);
    if (!waiting) return; // another tab's, or one given up on
    const status = Number(payload.status) || 500;
    const headers = { 'content-type': payload.headers?.['content-type'] || 'application/octet-stream' };
    if (payload.encoding !== 'base64') {
      this._settle(payload.id, new Response(NO_BODY.has(status) ? null : JSON.stringify(payload.body ?? null),
        { status, headers }));
      return;
    }
    waiting.parts[payload.part] = bytesOf(payload.body || '');
    const arrived = waiting.parts.filter(Boolean).length;
    waiting.onProgress?.({ part: arrived, parts: payload.parts, size: payload.size });
    this._arm(payload.id);
    if (arrived < payload.parts) return;
    this._settle(payload.id, new Response(NO_BODY.has(status) ? null : new Blob(waiting.parts, { type: headers['content-type'] }),
      { status, headers }));
  }

  _settle(id, response) {
    const waiting = this._waiting.get(id);
    this._waiting.delete(id);
    clearTimeout(waiting.timer);
    waiting.resolve(response);
  }
}
