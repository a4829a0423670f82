// First run (docs/design.md#first-run): the owner's account and the workspace; the setup code when not on the hub's
// machine.

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { t, language, LANGUAGES } from '../lib/i18n.js';
import { icon } from '../lib/icons.js';

// Beside the app's other files, under the same version (cached for good; hub/web/static_app.py).
const ICON = new URL('../icon.svg', import.meta.url).href;

export function languagePicker(host) {
  return html`<label class="language-switch entry-language">${icon('globe')}<span class="visually-hidden">${t('settings.language')}</span>
    <select @change=${(e) => host.emit('lineup-language-change', { language: e.target.value })}>
      ${LANGUAGES.map((l) => html`<option value=${l.code} ?selected=${l.code === language()}>${l.label}</option>`)}
    </select></label>`;
}

/** A labelled input with an optional hint tied to it by aria-describedby (the hint is not part of the label). */
function field(name, label, input, hint = '') {
  return html`<div class="field"><label for=${`setup-${name}`}>${label}</label>${input}
    ${hint ? html`<small class="muted" id=${`setup-${name}-hint`}>${hint}</small>` : ''}</div>`;
}

// The hub's answers to setup and sign-in in the app's own language: its English text (and a default hint that is
// about pairing agents) only for codes the app has no words for.
const ENTRY_ERRORS = {
  signin: { unauthorized: 'signin.wrong', rate_limited: 'signin.tooMany' },
  setup: { unauthorized: 'setup.codeWrong', rate_limited: 'setup.tooMany' },
};

export function errorText(error, where = 'setup') {
  if (!error) return '';
  if (error.code === 'network') return t('error.network');
  // The hub busy hashing other sign-ins is not a lockout: nothing was checked, a moment later it is.
  if (error.code === 'rate_limited' && error.details?.limit === 'hashing') return t('signin.busy');
  const key = ENTRY_ERRORS[where]?.[error.code];
  // The hub's own machine, at the port this page was loaded from (the hub's, unless a proxy is in between).
  const port = window.location.port || (window.location.protocol === 'https:' ? '443' : '80');
  if (key) return t(key, { url: `http://127.0.0.1:${port}` });
  return [error.message, error.hint].filter(Boolean).join(' ');
}

export class LineupSetup extends LineupElement {
  static properties = ['setupCodeRequired', 'busy', 'error'];

  constructor() {
    super();
    this.localError = '';
  }

  _submit(event) {
    event.preventDefault();
    const f = event.target.elements;
    const body = {
      username: f.username.value.trim(), displayName: f.displayName.value.trim(), password: f.password.value,
      workspaceName: f.workspaceName.value.trim(),
    };
    if (this.setupCodeRequired) body.setupCode = f.setupCode.value.trim();
    // The form checks itself (novalidate): a name left empty, or only spaces, is said here, not by the hub's schema.
    const missing = ['displayName', 'username', 'workspaceName'].find((name) => !body[name]);
    if (missing) this.localError = t('setup.fieldMissing', { field: t(`setup.${missing}`) });
    else if (!/^[A-Za-z0-9_.@-]+$/.test(body.username)) this.localError = t('setup.usernameRule');
    else if (body.password.length < 8) this.localError = t('setup.passwordRule');
    else if (body.password !== f.password2.value) this.localError = t('setup.passwordMismatch');
    else this.localError = '';
    this.requestUpdate();
    if (this.localError) return;
    this.emit('lineup-setup-submit', body);
  }

  render() {
    const message = this.localError || errorText(this.error, 'setup');
    return html`<div class="entry"><main class="entry-card" aria-labelledby="setup-title">
      <div class="entry-top"><img src=${ICON} alt="" width="40" height="40">${languagePicker(this)}</div>
      <h1 id="setup-title">${t('setup.title')}</h1>
      <p class="muted">${t('setup.intro')}</p>
      <form class="entry-form" @submit=${(e) => this._submit(e)} novalidate>
        ${field('displayName', t('setup.displayName'), html`<input id="setup-displayName" name="displayName" required maxlength="100" autocomplete="name">`)}
        ${field('username', t('setup.username'), html`<input id="setup-username" name="username" required maxlength="64" autocomplete="username"
          autocapitalize="off" spellcheck="false" aria-describedby="setup-username-hint">`, t('setup.usernameRule'))}
        ${field('password', t('setup.password'), html`<input id="setup-password" name="password" type="password" required minlength="8"
          autocomplete="new-password" aria-describedby="setup-password-hint">`, t('setup.passwordRule'))}
        ${field('password2', t('setup.password2'), html`<input id="setup-password2" name="password2" type="password" required autocomplete="new-password">`)}
        ${field('workspaceName', t('setup.workspaceName'), html`<input id="setup-workspaceName" name="workspaceName" required maxlength="100"
          placeholder=${t('setup.workspacePlaceholder')}>`)}
        ${this.setupCodeRequired ? field('setupCode', t('setup.code'), html`<input id="setup-setupCode" name="setupCode" required
          autocomplete="one-time-code" spellcheck="false" aria-describedby="setup-setupCode-hint">`, t('setup.codeHint')) : ''}
        ${message ? html`<p class="field-error" role="alert">${icon('warning')} ${message}</p>` : ''}
        <button type="submit" class="button primary wide" ?disabled=${this.busy}>
          ${this.busy ? html`<span class="spinner small" aria-hidden="true"></span><span>${t('setup.creating')}</span>` : t('setup.submit')}</button>
      </form>
    </main></div>`;
  }
}

LineupSetup.define('lineup-setup');
