// A session's status as a badge that shows progress: "Starting Claude Code… 4 s" from Start until its first turn runs.

import { html } from '../vendor/lit-html/lit-html.js';
import { t } from './i18n.js';
import { sessionStatusBadge } from './sessions.js';

/** Whole seconds since the session was created (never negative: the phone's clock may be behind the hub's). */
export function startingSeconds(session, now = Date.now()) {
  const created = Date.parse(session.createdAt || '');
  return Number.isFinite(created) ? Math.max(0, Math.floor((now - created) / 1000)) : 0;
}

/** The badge of a session: while it starts, the agent's name and the seconds counted; else its status word. */
export function sessionBadge(session) {
  if (session.status !== 'starting') return sessionStatusBadge(session);
  const word = t('session.startingFor', { agent: session.agentName || session.agentKey || '',
    seconds: startingSeconds(session) });
  return html`<span class="badge tone-running session-status" data-status="starting"><span class="spinner small"
    aria-hidden="true"></span><span>${word}</span></span>`;
}

/** Re-render `element` once a second while any of `sessions` is starting (its count goes up); stops by itself. */
export function tickWhileStarting(element, sessions) {
  const starting = sessions.some((s) => s?.status === 'starting');
  if (starting && !element._startingTick) {
    element._startingTick = setInterval(() => element.requestUpdate(), 1000);
  } else if (!starting && element._startingTick) {
    clearInterval(element._startingTick);
    element._startingTick = null;
  }
}
