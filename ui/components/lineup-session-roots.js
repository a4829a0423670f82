// Settings → Sessions: the hub's owner chooses the folders sessions may use (docs/sessions.md "Turning sessions on").

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, tn } from '../lib/i18n.js';
import { errorWords } from '../lib/sessions.js';

/** The folders typed, one a line, blank lines dropped. */
function foldersOf(text) {
  return String(text || '').split('\n').map((line) => line.trim()).filter(Boolean);
}

export class LineupSessionRoots extends LineupElement {
  static properties = ['state', 'api'];

  constructor() {
    super();
    this.shown = null; // GET /api/settings/sessions: {roots, enabled, passwordNeeded, home, file}; 'hidden' for others
    this.text = null;  // the textarea, once the person typed in it
    this.password = '';
    this.saving = false;
    this.error = null;
    this.saved = null; // the answer of the last save
  }

  connectedCallback() {
    super.connectedCallback();
    this._load();
  }

  async _load() {
    if (!this.api || this.shown || this._loading || this.state?.connection?.mode === 'relay') return;
    this._loading = true;
    try {
      this.shown = await this.api.get('/api/settings/sessions');
    } catch (error) {
      // Only the hub's owner may change them (403 for anyone else): no section at all for the others.
      this.shown = error.status === 403 ? 'hidden' : null;
      if (error.status !== 403) this.error = error;
    }
    this._loading = false;
    this.requestUpdate();
  }

  async _save(event) {
    event.preventDefault();
    if (this.saving) return;
    this.saving = true;
    this.error = null;
    this.saved = null;
    this.requestUpdate();
    const body = { roots: foldersOf(this.text ?? (this.shown?.roots || []).join('\n')) };
    if (this.shown?.passwordNeeded) body.password = this.password;
    try {
      const answer = await this.api.post('/api/settings/sessions', body);
      this.shown = answer;
      this.saved = answer;
      this.text = null;
      this.password = '';
      this.emit('lineup-session-roots-saved', { enabled: answer.enabled });
    } catch (error) {
      this.error = error;
    }
    this.saving = false;
    this.requestUpdate();
  }

  render() {
    if (this.shown === 'hidden' || this.state?.connection?.mode === 'relay') return '';
    if (!this.shown && !this.error) this._load();
    const shown = this.shown && this.shown !== 'hidden' ? this.shown : null;
    const value = this.text ?? (shown?.roots || []).join('\n');
    const saved = this.saved;
    return html`<section class="card settings-section session-roots" aria-labelledby="settings-sessions"
        data-enabled=${shown ? String(shown.enabled) : ''}>
      <h2 id="settings-sessions">${icon('play')} ${t('roots.title')}</h2>
      <p>${t('roots.intro')}</p>
      ${!shown && !this.error ? html`<p class="muted" role="status"><span class="spinner small" aria-hidden="true"></span> ${t('app.loading')}</p>` : ''}
      ${shown ? html`<p class="roots-state" data-enabled=${String(shown.enabled)}>${shown.enabled ? t('roots.on') : t('roots.off')}</p>
      <form class="roots-form" @submit=${(e) => this._save(e)}>
        <label class="field"><span>${t('roots.label')}</span>
          <textarea name="roots" rows="3" spellcheck="false" autocapitalize="off" autocomplete="off"
            placeholder=${`${shown.home || '~'}/code`} aria-describedby="roots-help" .value=${value}
            @input=${(e) => { this.text = e.target.value; }}></textarea>
          <small id="roots-help" class="muted">${t('roots.help')}</small></label>
        ${shown.passwordNeeded ? html`<label class="field"><span>${t('roots.password')}</span>
          <input type="password" name="password" autocomplete="current-password" required .value=${this.password}
            aria-describedby="roots-password-help" @input=${(e) => { this.password = e.target.value; }}>
          <small id="roots-password-help" class="muted">${t('roots.passwordWhy')}</small></label>` : ''}
        <div class="button-row">
          <button type="submit" class="button primary roots-save" ?disabled=${this.saving}>${t('roots.save')}</button>
        </div>
      </form>` : ''}
      ${this.error ? html`<p class="field-error roots-error" role="alert">${errorWords(this.error)}</p>` : ''}
      <p class="roots-saved" role="status">${saved ? html`${icon('check')} ${saved.enabled ? t('roots.savedOn') : t('roots.savedOff')}
        ${saved.sessionsEnded ? tn('roots.ended', saved.sessionsEnded) : ''}
        ${saved.enabled ? html`<a class="button small new-session" href="#/sessions/new">${icon('play')}<span>${t('session.new')}</span></a>` : ''}` : ''}</p>
      ${shown?.file ? html`<p class="muted small">${t('roots.file', { file: shown.file })}</p>` : ''}
    </section>`;
  }
}

LineupSessionRoots.define('lineup-session-roots');
