// Sealing the relay's LineUp payloads between this device and its hub: P-256 ECDH, HKDF-SHA256 and AES-256-GCM in
// WebCrypto, the construction of hub/relay/seal.py (docs/relay.md, "The trust model"; docs/protocol.md, "Sealed
// relay payloads"). The keys are agreed on the LAN when the device gets its relay access, never through WuKongIM.
// The device's ECDH private key is made non-extractable and lives only until the two AES keys are derived; those
// are non-extractable CryptoKeys kept in IndexedDB (script on the page can use them, never read them out). The
// counters live in localStorage, written before each use, so a reload never reuses one.

export const SEALED_TYPE = 5203;
const VERSION = 1;
const LABEL = 'lineup-relay-seal/1';
export const TO_DEVICE = 'hub-to-device';
export const TO_HUB = 'device-to-hub';
const DB_NAME = 'lineup-relay-seal';
const STORE = 'keys';
const CURRENT = 'current';
const COUNTERS = 'lineup.relaySeal';
const MAX_COUNTER = Number.MAX_SAFE_INTEGER;
const encoder = new TextEncoder();

/** A refused sealed payload; `reason`: malformed | unknown_key | tampered | replayed | unsealed. */
export class SealRefused extends Error {
  constructor(reason, message) {
    super(message);
    this.reason = reason;
  }
}

/** Whether this page can seal: WebCrypto exists only in a secure context (https, or the machine itself). */
export function sealSupported() {
  return Boolean(globalThis.isSecureContext && globalThis.crypto?.subtle && globalThis.indexedDB);
}

export function b64(bytes) {
  let text = '';
  for (const byte of new Uint8Array(bytes)) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function unb64(text) {
  if (typeof text !== 'string') throw new TypeError('not base64url text');
  const plain = text.replace(/-/g, '+').replace(/_/g, '/');
  return Uint8Array.from(atob(plain + '='.repeat((4 - (plain.length % 4)) % 4)), (c) => c.charCodeAt(0));
}

const json = (value) => encoder.encode(JSON.stringify(value));
const info = (direction, hubId, uid, deviceId, kid) => json([LABEL, direction, hubId, uid, deviceId, kid]);
const associated = (direction, uid, kid, counter) => json([LABEL, direction, uid, kid, counter]);

/** The device's half, first step: a key pair whose private key never leaves WebCrypto; send `publicKey`. */
export async function startAgreement() {
  const pair = await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
  const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  return { privateKey: pair.privateKey, publicRaw: raw, publicKey: b64(raw) };
}

/** The device's half, second step: the two direction keys from the hub's answer (its `seal` and ids). */
export async function finishAgreement(start, { hubPublicKey, kid, deviceId }, { hubId, uid }) {
  const hubRaw = unb64(hubPublicKey);
  const hubKey = await crypto.subtle.importKey('raw', hubRaw, { name: 'ECDH', namedCurve: 'P-256' }, false, []);
  const shared = await crypto.subtle.deriveBits({ name: 'ECDH', public: hubKey }, start.privateKey, 256);
  const base = await crypto.subtle.importKey('raw', shared, 'HKDF', false, ['deriveKey']);
  const salt = new Uint8Array([...start.publicRaw, ...hubRaw]);
  const one = (direction, usage) => crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt, info: info(direction, hubId, uid, deviceId, kid) },
    base, { name: 'AES-GCM', length: 256 }, false, [usage]);
  return { kid, uid, hubId, toHub: await one(TO_HUB, 'encrypt'), toDevice: await one(TO_DEVICE, 'decrypt') };
}

/** Seal `payload` with an explicit counter (SealedChannel chooses it; tests call this directly). */
export async function sealWith(keys, payload, counter) {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const body = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: associated(TO_HUB, keys.uid, keys.kid, counter) }, keys.toHub, json(payload));
  return { type: SEALED_TYPE, v: VERSION, kid: keys.kid, n: counter, iv: b64(iv), ct: b64(body) };
}

/** [payload, counter] when the tag holds and the counter is above `lastCounter`; else SealRefused. */
export async function openWith(keys, sealed, lastCounter) {
  const counter = sealed?.n;
  if (sealed?.v !== VERSION || !Number.isSafeInteger(counter) || counter <= 0) {
    throw new SealRefused('malformed', 'not a sealed payload of version 1');
  }
  if (!keys || sealed.kid !== keys.kid) throw new SealRefused('unknown_key', 'sealed with a key this device does not hold');
  let plain;
  try {
    const iv = unb64(sealed.iv);
    if (iv.length !== 12) throw new Error('nonce');
    plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv, additionalData: associated(TO_DEVICE, keys.uid, keys.kid, counter) },
      keys.toDevice, unb64(sealed.ct));
  } catch {
    throw new SealRefused('tampered', 'the tag does not hold: changed on the way, or not sealed by the hub');
  }
  if (counter <= lastCounter) throw new SealRefused('replayed', `counter ${counter} is not above ${lastCounter}`);
  let payload;
  try {
    payload = JSON.parse(new TextDecoder().decode(plain));
  } catch {
    throw new SealRefused('malformed', 'the sealed content is not JSON');
  }
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new SealRefused('malformed', 'the sealed content is not a JSON object');
  }
  return [payload, counter];
}

// ---- keeping the keys on this device --------------------------------------------------------------------------

function database() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function inStore(mode, act) {
  const db = await database();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const request = act(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

function counters() {
  try {
    return JSON.parse(localStorage.getItem(COUNTERS) || 'null') || {};
  } catch {
    return {};
  }
}

function setCounters(value) {
  localStorage.setItem(COUNTERS, JSON.stringify(value));
}

/** Keep the keys of this device's relay access (replacing any before: one access per device). */
export async function saveSeal(keys) {
  await inStore('readwrite', (store) => store.put(keys, CURRENT));
  setCounters({ kid: keys.kid, sent: 0, received: 0 });
}

/** Forget the keys (revoked, forgotten, signed out): nothing sealed for this device opens here any more. */
export async function forgetSeal() {
  try { localStorage.removeItem(COUNTERS); } catch { /* nothing stored */ }
  if (!globalThis.indexedDB) return;
  try {
    await inStore('readwrite', (store) => store.delete(CURRENT));
  } catch { /* nothing stored */ }
}

/** The sealed channel of the access with key id `kid`, or null when this device does not hold its keys. */
export async function loadSeal(kid) {
  if (!globalThis.indexedDB) return null;
  let keys;
  try {
    keys = await inStore('readonly', (store) => store.get(CURRENT));
  } catch {
    return null;
  }
  return keys && keys.kid === kid ? new SealedChannel(keys) : null;
}

/**
 * The two counters of one access around sealWith/openWith: each sealed payload gets a counter above every one
 * before it (also across reloads: it is written before the payload leaves, and never below the clock in
 * microseconds, as the hub's are), and an opened one is accepted only above every one accepted before.
 * Callers seal, and open, one payload at a time, in the order they are sent or received.
 */
export class SealedChannel {
  constructor(keys) {
    this.keys = keys;
  }

  get kid() { return this.keys.kid; }

  _counters() {
    const saved = counters();
    return saved.kid === this.keys.kid ? saved : { kid: this.keys.kid, sent: 0, received: 0 };
  }

  async seal(payload) {
    const saved = this._counters();
    const counter = Math.min(MAX_COUNTER, Math.max(saved.sent + 1, Date.now() * 1000));
    setCounters({ ...saved, sent: counter });
    return sealWith(this.keys, payload, counter);
  }

  async open(sealed) {
    const [payload, counter] = await openWith(this.keys, sealed, this._counters().received);
    setCounters({ ...this._counters(), received: counter });
    return payload;
  }
}
