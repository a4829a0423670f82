// Relay mode's banner under the top bar (what phones see: the way, whether sealed, what waits) and its problems' words.

import { html } from '../vendor/lit-html/lit-html.js';
import { icon } from './icons.js';
import { t, formatCountdown } from './i18n.js';

/** Why the relay is not live, in words (RelayConnection.problem). */
export function relayProblem(problem) {
  if (!problem) return '';
  if (problem.startsWith('refused:')) return t('relay.problem.refused', { code: problem.slice('refused:'.length) });
  return t(`relay.problem.${problem}`);
}

/** The banner in relay mode, or null in direct mode (the shell shows its own offline banner then). */
export function relayBanner(state, retryNow) {
  const c = state.connection;
  if (c.mode !== 'relay') return null;
  const queued = state.outboxSize
    ? html` · <span data-outbox=${state.outboxSize}>${t('connection.queued', { n: state.outboxSize })}</span>` : '';
  if (c.status === 'offline' || (c.status === 'connecting' && c.offlineSince)) {
    const retry = c.status === 'connecting' ? t('connection.reconnecting')
      : c.nextRetryAt ? t('connection.retryIn', { time: formatCountdown(c.nextRetryAt - Date.now()) }) : '';
    return html`<div class="offline-banner" role="status" data-connection=${c.status} data-mode="relay"
        data-problem=${c.problem || ''}>
      ${icon('offline')}<span><strong>${t('connection.offline')}</strong> ${relayProblem(c.problem)} ${retry}${queued}</span>
      <button class="button small" @click=${retryNow}>${t('connection.retryNow')}</button></div>`;
  }
  const sealed = html`<span class="relay-sealed" data-sealed=${c.sealed ? 'true' : 'false'}>${
    t(c.sealed ? 'relay.bannerSealed' : 'relay.bannerNotSealed')}</span>`;
  return html`<div class="relay-banner" role="status" data-connection=${c.status} data-mode="relay"
      data-problem=${c.problem || ''}>
    ${icon('globe')}<span><strong>${t('relay.banner')}</strong> ${sealed} ${c.status === 'live'
      ? t('relay.bannerLimits') : t('relay.catchingUp')} ${relayProblem(c.problem)}${queued}</span>
    <a class="button small ghost" href="#/settings">${t('relay.bannerMore')}</a></div>`;
}
