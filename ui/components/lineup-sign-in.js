// Sign-in with username and password; how to sign in a phone instead (a QR code from a signed-in device).

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { t } from '../lib/i18n.js';
import { icon } from '../lib/icons.js';
import { languagePicker, errorText } from './lineup-setup.js';

// Beside the app's other files, under the same version (cached for good; hub/web/static_app.py).
const ICON = new URL('../icon.svg', import.meta.url).href;

export class LineupSignIn extends LineupElement {
  static properties = ['busy', 'error', 'notice'];

  _submit(event) {
    event.preventDefault();
    const f = event.target.elements;
    this.emit('lineup-sign-in-submit', { username: f.username.value.trim(), password: f.password.value });
  }

  render() {
    const message = errorText(this.error, 'signin');
    return html`<div class="entry"><main class="entry-card" aria-labelledby="signin-title">
      <div class="entry-top"><img src=${ICON} alt="" width="40" height="40">${languagePicker(this)}</div>
      <h1 id="signin-title">${t('signin.title')}</h1>
      ${this.notice ? html`<p class="notice notice-${this.notice.kind}" role="alert">${icon('warning')} ${this.notice.text}</p>` : ''}
      <form class="entry-form" @submit=${(e) => this._submit(e)}>
        <label class="field"><span>${t('setup.username')}</span><input name="username" required autocomplete="username"
          autocapitalize="off" spellcheck="false"></label>
        <label class="field"><span>${t('setup.password')}</span><input name="password" type="password" required autocomplete="current-password"></label>
        ${message ? html`<p class="field-error" role="alert">${icon('warning')} ${message}</p>` : ''}
        <button type="submit" class="button primary wide" ?disabled=${this.busy}>
          ${this.busy ? html`<span class="spinner small" aria-hidden="true"></span><span>${t('signin.busy')}</span>` : t('signin.submit')}</button>
      </form>
      <p class="muted small">${icon('phone')} ${t('signin.phoneHint')}</p>
    </main></div>`;
  }
}

LineupSignIn.define('lineup-sign-in');
