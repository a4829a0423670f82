// Settings → "Use this phone away from home": relay credentials from the hub on the LAN, what this device holds,
// revoking it (at home) or forgetting it (away), and what works through the relay (docs/relay.md); whether what
// the relay carries is sealed, and what IM text exposes.

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, formatDateTime } from '../lib/i18n.js';
import { relayProblem } from '../lib/relay-view.js';

const REASONS = new Set(['relay_off', 'not_in_people', 'no_manager_token']);
// WebCrypto, which seals, exists only in a secure context: https, or the hub's own machine.
const canSeal = () => Boolean(globalThis.isSecureContext && globalThis.crypto?.subtle && globalThis.indexedDB);

export class LineupRelaySettings extends LineupElement {
  static properties = ['state'];

  constructor() {
    super();
    this.confirming = false;
  }

  connectedCallback() {
    super.connectedCallback();
    this.emit('lineup-relay-load');
  }

  _confirm(value) {
    this.confirming = value;
    this.requestUpdate();
  }

  render() {
    const { state } = this;
    if (!state) return '';
    const relay = state.relay || { status: 'loading' };
    const away = state.connection.mode === 'relay';
    const { info, held } = relay;
    const busy = relay.status === 'enabling' || relay.status === 'revoking';
    return html`<section class="card settings-section relay-settings" aria-labelledby="settings-relay"
        data-relay-status=${relay.status} data-held=${held ? 'yes' : 'no'}>
      <h2 id="settings-relay">${icon('globe')} ${t('relay.title')}</h2>
      <p>${t('relay.intro')}</p>
      <p class="relay-mode" data-mode=${state.connection.mode || 'direct'}>${t('relay.modeNow')}
        <strong>${away ? t('relay.modeRelay') : t('relay.modeDirect')}</strong>
        ${away && state.connection.problem ? html`<span class="muted small">${relayProblem(state.connection.problem)}</span>` : ''}</p>
      ${relay.status === 'loading' ? html`<p class="muted" role="status"><span class="spinner small" aria-hidden="true"></span> ${t('app.loading')}</p>` : ''}
      ${held ? this._held(held, info, away, busy) : this._offer(info, away, busy)}
      ${relay.status === 'error' ? html`<p class="field-error" role="alert">${relay.error?.message || ''}</p>` : ''}
      <details class="relay-limits"><summary>${t('relay.limitsTitle')}</summary><p class="small">${t('relay.limits')}</p></details>
    </section>`;
  }

  _held(held, info, away, busy) {
    const replaced = info?.paired && !info.paired.current;
    return html`<p class="relay-held">${icon('check')} ${t('relay.held', { time: formatDateTime(held.savedAt) })}</p>
      <p class="muted small">${t('relay.heldAs', { server: held.ws, uid: held.uid })}</p>
      ${this._sealing(held, info)}
      ${replaced ? html`<p class="notice notice-error relay-replaced">${icon('warning')}<span>${t('relay.replaced')}</span></p>` : ''}
      ${this._stop(away, busy)}`;
  }

  /** Sealed or not, said plainly; and what the IM text fallback shows WuKongIM when it is on. */
  _sealing(held, info) {
    const text = info?.sealing?.text;
    if (!held.sealed) {
      return html`<p class="notice notice-error relay-unsealed" data-sealed="no">${icon('warning')}<span>${t('relay.seal.notSealed')}</span></p>`;
    }
    return html`<p class="relay-sealed" data-sealed="yes">${icon('check')} ${t('relay.seal.sealed')}</p>
      ${text === true ? html`<p class="notice notice-error relay-text-on">${icon('warning')}<span>${t('relay.seal.textOn')}</span></p>`
        : html`<p class="muted small relay-text-off">${t('relay.seal.textOff')}</p>`}`;
  }

  _offer(info, away, busy) {
    if (away) return html`<p class="muted">${t('relay.notHeldAway')}</p>`;
    if (!info) return '';
    if (!info.available) {
      return html`<p class="relay-unavailable" data-reason=${info.reason}>${icon('warning')}
        ${REASONS.has(info.reason) ? t(`relay.reason.${info.reason}`) : info.message}</p>`;
    }
    return html`${canSeal() ? '' : html`<p class="notice notice-error relay-cannot-seal" data-sealed="no">${icon('warning')}<span>${t('relay.seal.cannotSeal')}</span></p>`}
      ${info.paired ? html`<p class="muted small">${t('relay.otherDevice', {
      name: info.paired.deviceName || '?', time: formatDateTime(info.paired.pairedAt) })}</p>${this._stop(false, busy)}` : ''}
      <button class="button primary relay-enable" ?disabled=${busy} @click=${() => this.emit('lineup-relay-enable')}>
        ${icon('phone')}<span>${this.state.relay?.status === 'enabling' ? t('relay.enabling') : t('relay.enable')}</span></button>`;
  }

  _stop(away, busy) {
    if (!this.confirming) {
      return html`<button class="button danger-outline small relay-stop" ?disabled=${busy} @click=${() => this._confirm(true)}>
        ${away ? t('relay.forget') : t('relay.revoke')}</button>`;
    }
    return html`<p class="small">${away ? t('relay.forgetHint') : t('relay.revokeHint')}</p>
      <span class="button-row">
        <button class="button danger relay-stop-confirm" @click=${() => {
          this._confirm(false);
          this.emit(away ? 'lineup-relay-forget' : 'lineup-relay-revoke');
        }}>${away ? t('relay.forgetConfirm') : t('relay.revokeConfirm')}</button>
        <button class="button" @click=${() => this._confirm(false)}>${t('action.cancel')}</button></span>`;
  }
}

LineupRelaySettings.define('lineup-relay-settings');
