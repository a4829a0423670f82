// "Use this phone away from home": relay credentials obtained from the hub on the LAN (POST /api/relay/devices),
// kept in this browser, revoked from settings; and how HTTP behaves while the relay carries the app (docs/relay.md).
// The keys that seal this device's relay payloads are agreed in the same request (lib/relay-seal.js, loaded only
// then: the first screen has no use for it); a page without WebCrypto (plain http) gets an access that is not
// sealed, and settings say so.

import { ApiError } from './api.js';
import { t } from './i18n.js';

// ---- the credentials the hub hands out on the LAN (POST /api/relay/devices) ---------------------------------
// Here, not in lib/relay-connection.js: the first screen reads them, and the relay client loads only when the app
// connects (lib/workspace.js start()).

const STORAGE_KEY = 'lineup.relay';


/** This browser's relay credentials for `workspaceId` (any workspace when omitted), or null. */
export function loadRelayCredentials(workspaceId = null) {
  try {
    const saved = JSON.parse(localStorage.getItem(STORAGE_KEY) || 'null');
    if (!saved || saved.kind !== 'lineup.relay' || !saved.ws || !saved.uid || !saved.token || !saved.hubUid) return null;
    if (workspaceId && saved.workspaceId !== workspaceId) return null;
    return saved;
  } catch {
    return null;
  }
}

export function saveRelayCredentials(credentials) {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(credentials));
}

export function forgetRelayCredentials() {
  try { localStorage.removeItem(STORAGE_KEY); } catch { /* nothing stored */ }
  import('./relay-seal.js').then((seal) => seal.forgetSeal()).catch(() => { /* nothing stored */ });
}

// ---- HTTP in relay mode, and settings' relay access --------------------------------------------------------

/** HTTP needs the hub's own address: in relay mode a call fails at once and says so, instead of timing out. */
export function relayAwareApi(api, inRelay) {
  const refuse = () => Promise.reject(new ApiError(0, 'relay_mode', t('relay.httpUnavailable')));
  return {
    get: (path) => (inRelay() ? refuse() : api.get(path)),
    post: (path, body) => (inRelay() ? refuse() : api.post(path, body)),
  };
}

/** At start-up: when the hub did not answer at all and this browser holds relay credentials, those; else throw. */
export function relayStart(error) {
  const credentials = error?.status === 0 ? loadRelayCredentials() : null;
  if (!credentials?.me) throw error;
  return credentials;
}

function held(workspace) {
  const saved = loadRelayCredentials(workspace.state.me?.workspace?.id);
  return saved ? { uid: saved.uid, ws: saved.ws, savedAt: saved.savedAt, sealed: Boolean(saved.seal) } : null;
}

function update(workspace, patch) {
  workspace.set({ relay: { ...(workspace.state.relay || {}), ...patch } });
}

/** What settings shows: what this device holds, and (at home) what the hub says about the caller's access. */
export async function loadRelayAccess(workspace) {
  update(workspace, { held: held(workspace), status: 'loading', error: null });
  if (workspace.live?.mode === 'relay') { // the hub cannot be asked: what this device holds is all there is
    update(workspace, { status: 'ready' });
    return;
  }
  try {
    update(workspace, { info: await workspace.api.get('/api/relay'), status: 'ready' });
  } catch (error) {
    update(workspace, { status: 'error', error });
  }
}

export async function enableRelay(workspace) {
  update(workspace, { status: 'enabling', error: null });
  try {
    const seal = await import('./relay-seal.js');
    const start = seal.sealSupported() ? await seal.startAgreement() : null;
    const pairing = await workspace.api.post('/api/relay/devices', start ? { publicKey: start.publicKey } : {});
    const { me } = workspace.state;
    await seal.forgetSeal(); // the keys of an access set up before are ended on the hub: none stay here
    if (start && pairing.seal) await seal.saveSeal(await seal.finishAgreement(start, pairing.seal, pairing));
    const sealed = pairing.seal ? { v: pairing.seal.v, kid: pairing.seal.kid } : null; // the key id finds the keys
    saveRelayCredentials({ ...pairing, seal: sealed, deviceId: `lineup-web-${me.deviceId}`, me,
      savedAt: new Date().toISOString() });
  } catch (error) {
    update(workspace, { status: 'error', error });
    return;
  }
  workspace.live?.relayChanged();
  await loadRelayAccess(workspace);
}

/** At home: the hub revokes the access, whichever device holds it, and this device forgets it. */
export async function revokeRelay(workspace) {
  update(workspace, { status: 'revoking', error: null });
  try {
    await workspace.api.post('/api/relay/devices/revoke', {});
  } catch (error) {
    update(workspace, { status: 'error', error });
    return;
  }
  forgetRelayCredentials();
  workspace.live?.relayChanged();
  await loadRelayAccess(workspace);
}

/** Away from home the hub cannot be asked to revoke: this device forgets the access (and goes offline). */
export function forgetRelay(workspace) {
  forgetRelayCredentials();
  workspace.live?.relayChanged();
  update(workspace, { held: null, status: 'ready', error: null });
}
