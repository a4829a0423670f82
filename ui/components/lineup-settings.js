// Settings: language, the folders sessions may use, notifications, "sign in on your phone" (a QR code of a one-time link), devices with revoke, UI modules, sign out.

import { html } from '../vendor/lit-html/lit-html.js';
import { unsafeHTML } from '../vendor/lit-html/directives/unsafe-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, language, LANGUAGES, formatDateTime, formatCountdown } from '../lib/i18n.js';
import { copyButton } from './lineup-connect-agent.js';
import { hubCommand } from '../lib/commands.js';
import './lineup-notification-settings.js';
import './lineup-away-setup.js';
import './lineup-relay-settings.js';
import './lineup-session-roots.js';
import './lineup-trust-hub.js';

export class LineupSettings extends LineupElement {
  static properties = ['state', 'api'];

  constructor() {
    super();
    this.revoking = null;
    this.copied = '';
    this.showRevoked = false;
    this.revokedHere = new Set(); // revoked from this page: kept in sight, marked Revoked, as confirmation
  }

  connectedCallback() {
    super.connectedCallback();
    if (this.state && this.state.devices === null) this.emit('lineup-devices-load');
    this._timer = setInterval(() => { if (this.state?.signInLink?.status === 'ready') this.requestUpdate(); }, 1000);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    clearInterval(this._timer);
  }

  updated() {
    // segno's SVG has a width and height but no viewBox: give it one so CSS can size it.
    const qr = this.querySelector('figure.qr svg:not([viewBox])');
    if (qr) qr.setAttribute('viewBox', `0 0 ${qr.getAttribute('width')} ${qr.getAttribute('height')}`);
    if (this.state && this.state.devices === null && !this._asked) {
      this._asked = true;
      this.emit('lineup-devices-load');
    }
  }

  render() {
    const { state } = this;
    if (!state) return '';
    return html`<div class="view settings">
      <header class="view-head"><h1>${t('nav.settings')}</h1></header>
      <section class="card settings-section" aria-labelledby="settings-account">
        <h2 id="settings-account">${t('settings.account')}</h2>
        <dl class="kv"><dt>${t('settings.name')}</dt><dd>${state.me?.displayName}</dd>
          <dt>${t('settings.username')}</dt><dd translate="no">${state.me?.username}</dd>
          <dt>${t('settings.workspace')}</dt><dd>${state.me?.workspace?.name}</dd></dl>
        <label class="field inline"><span>${icon('globe')} ${t('settings.language')}</span>
          <select class="language-select" @change=${(e) => this.emit('lineup-language-change', { language: e.target.value })}>
            ${LANGUAGES.map((l) => html`<option value=${l.code} ?selected=${l.code === language()}>${l.label}</option>`)}
          </select></label>
        <button class="button sign-out" @click=${() => this.emit('lineup-sign-out')}>${icon('signout')}<span>${t('settings.signOut')}</span></button>
      </section>
      <lineup-session-roots .state=${state} .api=${this.api}></lineup-session-roots>
      <lineup-notification-settings .state=${state}></lineup-notification-settings>
      ${this._phone(state.signInLink)}
      <lineup-trust-hub></lineup-trust-hub>
      <lineup-away-setup .state=${state} .api=${this.api}></lineup-away-setup>
      <lineup-relay-settings .state=${state}></lineup-relay-settings>
      ${this._devices(state.devices)}
      ${state.plugins.length ? this._advanced(state.plugins) : ''}
    </div>`;
  }

  _phone(link) {
    // The hub has no address a phone can reach (it listens on loopback only): say so instead of a loopback link.
    const unreachable = link?.status === 'ready' && link.otherDevices === false;
    const ready = link?.status === 'ready' && !unreachable;
    const remaining = ready ? Date.parse(link.expiresAt) - Date.now() : 0;
    return html`<section class="card settings-section phone-sign-in" aria-labelledby="settings-phone">
      <h2 id="settings-phone">${icon('phone')} ${t('settings.phone')}</h2>
      <p>${t('settings.phoneIntro')}</p>
      ${!link ? html`<button class="button primary show-qr" @click=${() => this.emit('lineup-sign-in-link-create')}>${t('settings.showQr')}</button>` : ''}
      ${link?.status === 'creating' ? html`<p role="status"><span class="spinner small" aria-hidden="true"></span> ${t('app.loading')}</p>` : ''}
      ${link?.status === 'error' ? html`<p class="field-error" role="alert">${link.error?.message}</p>
        <button class="button" @click=${() => this.emit('lineup-sign-in-link-create')}>${t('action.tryAgain')}</button>` : ''}
      ${unreachable ? html`<div class="tone-box-waiting no-lan-address" role="alert"><p>${icon('warning')} ${t('settings.noLanAddress', { command: hubCommand(this.state, 'serve --host 0.0.0.0', { dataDir: true, port: true }) })}</p></div>
        <button class="button" @click=${() => this.emit('lineup-sign-in-link-create')}>${t('action.tryAgain')}</button>` : ''}
      ${ready ? html`<div class="qr-block">
        ${remaining > 0 ? html`<figure class="qr" aria-label=${t('settings.qrLabel')}>${unsafeHTML(link.qrSvg)}</figure>` : ''}
        <div>
          <p class="countdown" role="timer" aria-live="off">${icon('clock')} ${remaining > 0
            ? t('settings.linkExpires', { time: formatCountdown(remaining) }) : t('settings.linkExpired')}</p>
          <p class="muted small">${t('settings.linkOnce')}</p>
          ${remaining > 0 ? html`<p class="link-row"><code class="sign-in-url">${link.url}</code>${copyButton(link.url, t('settings.link'), this)}</p>` : ''}
          <div class="button-row">
            <button class="button" @click=${() => this.emit('lineup-sign-in-link-create')}>${t('settings.newLink')}</button>
            <button class="button ghost" @click=${() => this.emit('lineup-sign-in-link-close')}>${t('action.done')}</button>
          </div>
        </div></div>` : ''}
      <p class="visually-hidden" role="status">${this.copied ? t('action.copied', { what: this.copied }) : ''}</p>
    </section>`;
  }

  /** For developers: the plugins' UI modules and whether each loaded, folded under "Advanced" (open when one failed). */
  _advanced(plugins) {
    const failed = plugins.some((p) => p.status !== 'loaded');
    return html`<details class="card settings-section advanced" ?open=${failed}>
      <summary><h2 id="settings-advanced">${t('settings.advanced')}</h2></summary>
      <section aria-labelledby="settings-plugins">
        <h3 id="settings-plugins">${t('settings.plugins')}</h3>
        <ul class="plain-list">${plugins.map((p) => html`<li class="plugin-module" data-module-status=${p.status}>
          ${p.status === 'loaded' ? html`<span class="badge tone-success">${icon('succeeded')}<span>${t('settings.pluginLoaded')}</span></span>`
            : html`<span class="badge tone-danger">${icon('failed')}<span>${t('settings.pluginFailed')}</span></span>`}
          <code>${p.name}</code> <span class="muted small">${p.error || p.url}</span></li>`)}</ul>
      </section>
    </details>`;
  }

  _devices(devices) {
    // Revoked devices stay in the list (what was signed out, and when) but out of sight until asked for.
    const revoked = (devices || []).filter((d) => d.revokedAt && !this.revokedHere.has(d.id)).length;
    const shown = (devices || []).filter((d) => !d.revokedAt || this.showRevoked || this.revokedHere.has(d.id));
    return html`<section class="card settings-section" aria-labelledby="settings-devices">
      <h2 id="settings-devices">${t('settings.devices')}</h2>
      ${devices === null ? html`<p class="muted" role="status">${t('app.loading')}</p>` : html`<ul class="plain-list device-list">
        ${shown.map((d) => html`<li class="device ${d.revokedAt ? 'revoked' : ''}" data-device-id=${d.id}>
          <span class="device-name">${icon('phone')} <strong translate="no">${d.name}</strong>
            ${d.current ? html`<span class="badge tone-running">${icon('check')}<span>${t('settings.thisDevice')}</span></span>` : ''}
            ${d.revokedAt ? html`<span class="badge tone-neutral">${icon('cancelled')}<span>${t('settings.revoked')}</span></span>` : ''}</span>
          <span class="muted small">${t('settings.signedIn', { time: formatDateTime(d.createdAt) })}</span>
          ${d.revokedAt ? '' : this.revoking === d.id ? html`<span class="button-row">
              <button class="button danger device-revoke-confirm" @click=${() => { this.revoking = null; this.revokedHere.add(d.id); this.emit('lineup-device-revoke', { deviceId: d.id }); }}>
                ${d.current ? t('settings.revokeThisConfirm') : t('settings.revokeConfirm')}</button>
              <button class="button" @click=${() => { this.revoking = null; this.requestUpdate(); }}>${t('action.cancel')}</button></span>`
            : html`<button class="button danger-outline small device-revoke" @click=${() => { this.revoking = d.id; this.requestUpdate(); }}>
              ${t('settings.revoke')}<span class="visually-hidden" translate="no"> ${d.name}</span></button>`}
        </li>`)}</ul>
        ${revoked ? html`<button class="button ghost small show-revoked" aria-expanded=${this.showRevoked ? 'true' : 'false'}
          @click=${() => { this.showRevoked = !this.showRevoked; this.requestUpdate(); }}>${this.showRevoked
            ? t('settings.hideRevoked') : t('settings.showRevoked', { n: revoked })}</button>` : ''}`}
    </section>`;
  }
}

LineupSettings.define('lineup-settings');
