// Diagnostic codes for agent connections (docs/design.md#every-failure-says-what-to-do-next).

import { t, formatTime } from './i18n.js';
import { TERMINAL_RUNTIMES } from './status.js';

const BY_REASON = {
  never_connected: 'LUA-A100',
  disconnected: 'LUA-A101',
  heartbeat_timeout: 'LUA-A102',
  hub_restarted: 'LUA-A103',
  revoked: 'LUA-A104',
};

/** What is wrong with an agent's connection, or null when it is online. `changedAt`: when it went offline, if known. */
export function agentDiagnosis(agent, changedAt = '') {
  if (!agent) return null;
  if (agent.revokedAt || agent.status === 'revoked') return diagnosis('revoked', agent);
  // Online, or offline because it ended its own connection (stopped on purpose; a hook agent between runs), or an
  // agent of the person's terminal (`lineup connect`): online only while it works there, never a fault.
  if (agent.status === 'online' || agent.statusReason === 'signed_off' || TERMINAL_RUNTIMES.has(agent.runtime)) return null;
  const reason = !agent.lastHeartbeatAt ? 'never_connected' : (agent.statusReason in BY_REASON ? agent.statusReason : 'disconnected');
  return diagnosis(reason, agent, changedAt);
}

// Agents that live in a gateway the person runs (`lineup connect hermes|openclaw`): there is no adapter to start with a
// credential file; the gateway is what to (re)start. Its next step for a connection that never came or went away.
const GATEWAY_RUNTIMES = new Set(['hermes', 'openclaw']);
const GATEWAY_REASONS = new Set(['never_connected', 'disconnected', 'hub_restarted']);

// An agent that was online and went away (killed, its network, the hub's restart): offline since when, and that it
// takes up its work again when it is back; the next step stays below (docs/design.md#an-agent-that-goes-away).
const AWAY_REASONS = new Set(['disconnected', 'heartbeat_timeout', 'hub_restarted']);

/** When the agent went offline (the last status change the app knows), else its last sign of life; '' when neither. */
export function offlineSince(agent, changedAt) {
  return changedAt || agent.lastHeartbeatAt || '';
}

function diagnosis(reason, agent, changedAt) {
  const code = BY_REASON[reason];
  const gateway = GATEWAY_RUNTIMES.has(agent.runtime) && GATEWAY_REASONS.has(reason) ? agent.runtime : null;
  const since = AWAY_REASONS.has(reason) ? offlineSince(agent, changedAt) : '';
  return {
    code, reason,
    // An agent that went away and resumes when it is back is not a fault: said calmly, not as an alarm.
    calm: Boolean(since),
    what: since ? t('diag.away.what', { time: formatTime(since) }) : t(`diag.${reason}.what`),
    next: gateway ? t(`diag.gateway.${gateway}.next`, { hub: window.location.origin })
      : t(`diag.${reason}.next`, { hub: window.location.origin }),
    text: `${code} agent=${agent.id} reason=${reason} runtime=${agent.runtime || '-'} version=${agent.agentVersion || '-'} `
      + `lastSeen=${agent.lastHeartbeatAt || '-'} hub=${window.location.origin}`,
  };
}

/** Pairing problems: the code expired unused, the request failed, or the agent paired but never came online. */
export function pairingDiagnosis(pairing, agent) {
  if (!pairing) return null;
  const hub = pairing.hubUrl || window.location.origin; // the address the agent's machine uses (not loopback)
  if (pairing.status === 'error') {
    const code = 'LUA-P200';
    // The hub's own message is English: a failure the app knows is said in the app's language.
    const message = pairing.error?.code === 'network' ? t('error.network') : pairing.error?.message || '';
    return { code, what: t('diag.pairError.what', { message }),
      next: t('diag.pairError.next'), text: `${code} error=${pairing.error?.code || 'unknown'} hub=${hub}` };
  }
  if (pairing.status === 'waiting' && pairing.expiresAt && Date.parse(pairing.expiresAt) <= Date.now()) {
    const code = 'LUA-P201';
    return { code, what: t('diag.pairExpired.what'), next: t('diag.pairExpired.next'),
      text: `${code} codeId=${pairing.codeId} expiresAt=${pairing.expiresAt} hub=${hub}` };
  }
  // Only an agent that never came online: one that was online and went away is said on its card (offline since).
  if (pairing.status === 'paired' && agent && agent.status !== 'online' && !agent.lastHeartbeatAt
    && pairing.pairedAt && Date.now() - Date.parse(pairing.pairedAt) > 30000) {
    const code = 'LUA-P202';
    return { code, what: t('diag.pairedOffline.what'), next: t('diag.pairedOffline.next', { hub }),
      text: `${code} agent=${agent.id} codeId=${pairing.codeId} hub=${hub}` };
  }
  return null;
}
