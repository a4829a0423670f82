// "Trust this hub": the hub's own CA for a phone (iPhone profile, Android certificate) with the steps, then the app over https.

import { html } from '../vendor/lit-html/lit-html.js';
import { unsafeHTML } from '../vendor/lit-html/directives/unsafe-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t } from '../lib/i18n.js';
import { createApi } from '../lib/api.js';

function token() {
  try { return localStorage.getItem('lineup.token'); } catch { return null; } // as lib/files.js reads it
}

export class LineupTrustHub extends LineupElement {
  constructor() {
    super();
    this.api = createApi({ getToken: token });
    this.info = null; // GET /api/trust: null until it answers; { available: false } when the hub offers no https
    this.opening = false;
    this.error = '';
  }

  connectedCallback() {
    super.connectedCallback();
    this._load();
  }

  updated() {
    // segno's SVG has a width and height but no viewBox: give it one so CSS can size it (as lineup-settings does).
    for (const qr of this.querySelectorAll('figure.qr svg:not([viewBox])')) {
      qr.setAttribute('viewBox', `0 0 ${qr.getAttribute('width')} ${qr.getAttribute('height')}`);
    }
  }

  async _load() {
    if (this._loading) return;
    this._loading = true;
    try {
      this.info = await this.api.get('/api/trust');
    } catch {
      this.info = { available: false };
    }
    this.requestUpdate();
  }

  /** To the same address over https, signed in there too: the https page is another origin with its own
   * storage, so it gets a one-time sign-in link (its code in the fragment, never sent to a server). */
  async _openSecure() {
    if (!this.info?.httpsHere) return;
    this.opening = true;
    this.error = '';
    this.requestUpdate();
    try {
      const link = await this.api.post('/api/sign-in-links', {});
      const code = new URL(link.url).hash;
      window.location.assign(this.info.httpsHere + code);
    } catch (error) {
      this.opening = false;
      this.error = error.message || String(error);
      this.requestUpdate();
    }
  }

  render() {
    const info = this.info;
    if (!info || !info.available) return '';
    const secure = info.secure && window.isSecureContext;
    return html`<section class="card settings-section trust-hub" aria-labelledby="settings-trust">
      <h2 id="settings-trust">${icon('key')} ${t('trust.title')}</h2>
      ${secure ? html`<div class="tone-box-success trust-done" role="status"><p>${icon('succeeded')} ${t('trust.done')}</p></div>`
        : html`<p>${t('trust.intro')}</p><p class="muted small">${t('trust.skip')}</p>`}
      ${info.hubMachine && !secure ? this._forPhone(info) : ''}
      ${!secure ? html`<div class="trust-platforms">
        ${this._platform('iphone', info)}
        ${this._platform('android', info)}
      </div>` : ''}
      ${!secure && info.httpsHere && !info.hubMachine ? html`<div class="button-row">
        <button class="button primary trust-open-secure" ?disabled=${this.opening} @click=${() => this._openSecure()}>
          ${icon('external')}<span>${t('trust.openSecure')}</span></button></div>
        ${this.error ? html`<p class="field-error" role="alert">${this.error}</p>` : ''}` : ''}
      <details class="trust-details">
        <summary>${t('trust.details')}</summary>
        <p class="muted small">${t('trust.addresses')}</p>
        <ul class="plain-list trust-urls">${info.httpsUrls.map((url) => html`<li><code>${url}</code></li>`)}</ul>
        <p class="muted small">${t('trust.fingerprint')}</p>
        <p><code class="trust-fingerprint">${info.caFingerprint}</code></p>
        <p class="muted small">${t('trust.remove')}</p>
      </details>
    </section>`;
  }

  /** On the hub's own machine: a phone scans a code to download the certificate (it needs no sign-in for that). */
  _forPhone(info) {
    if (!info.phoneLinks) return html`<p class="muted small trust-no-lan">${t('trust.noLan')}</p>`;
    return html`<div class="qr-block trust-qr">
      ${['iphone', 'android'].map((kind) => html`<figure class="qr" aria-label=${t(`trust.qr.${kind}`)}>
        ${unsafeHTML(info.phoneLinks[kind].qrSvg)}<figcaption class="small">${t(`trust.${kind}`)}</figcaption></figure>`)}
    </div>`;
  }

  _platform(kind, info) {
    return html`<section class="trust-platform" data-platform=${kind} aria-labelledby=${`trust-${kind}`}>
      <h3 id=${`trust-${kind}`}>${icon('phone')} ${t(`trust.${kind}`)}</h3>
      <a class="button trust-download" href=${info.downloads[kind]} download>${icon('download')}<span>${t(`trust.download.${kind}`)}</span></a>
      <ol class="trust-steps small">${[1, 2, 3].map((n) => html`<li>${t(`trust.${kind}.step${n}`)}</li>`)}</ol>
    </section>`;
  }
}

LineupTrustHub.define('lineup-trust-hub');
