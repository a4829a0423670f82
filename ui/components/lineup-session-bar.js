// A session's bar under its conversation's title: status, usage, Files changed (N), Stop and End; for a terminal
// agent's conversation, "in terminal" and what can and cannot be done from here, said before the person tries.

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, tn } from '../lib/i18n.js';
import { routeHref } from '../lib/router.js';
import { errorWords, sessionApi, sessionStatusBadge, usageText } from '../lib/sessions.js';
import { sessionBadge, tickWhileStarting } from '../lib/session-badge.js';

export class LineupSessionBar extends LineupElement {
  static properties = ['session', 'api'];

  constructor() {
    super();
    this._busy = '';
    this._error = null;
    this._changes = null; // {files, totals} against the session's start
    this._changesFor = ''; // the session id and activity time the count was read at
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    tickWhileStarting(this, []);
  }

  updated() {
    const s = this.session;
    // The composer below says what this session allows (sending to an agent that never reads; an ended session).
    const composer = this.closest('.conversation')?.querySelector('lineup-composer');
    if (composer) composer.session = s;
    tickWhileStarting(this, [s]);
    if (!s || s.kind !== 'hub' || !this.api) return;
    // The count follows the session: read again when it was active since (a turn ended, a file was written).
    const key = `${s.sessionId}|${s.lastActivityAt}|${s.status}`;
    if (key === this._changesFor) return;
    this._changesFor = key;
    sessionApi.changes(this.api, s.sessionId, 'start').then((changes) => {
      this._changes = changes;
      this.requestUpdate();
    }, () => { this._changes = null; this.requestUpdate(); }); // a folder that is gone: the bar's note says why
  }

  async _act(kind) {
    this._busy = kind;
    this._error = null;
    this.requestUpdate();
    try {
      await sessionApi[kind](this.api, this.session.sessionId);
      this.emit('lineup-sessions-refresh');
    } catch (error) {
      this._error = error;
    }
    this._busy = '';
    this.requestUpdate();
  }

  _askEnd() {
    this.querySelector('dialog.session-end-confirm')?.showModal();
  }

  _confirmEnd() {
    this.querySelector('dialog.session-end-confirm')?.close();
    this._act('end');
  }

  render() {
    const s = this.session;
    if (!s) return '';
    if (s.kind === 'terminal') {
      return html`<div class="session-bar" data-kind="terminal" data-status=${s.status}>
        <div class="session-bar-row">${sessionStatusBadge(s)}<span class="badge tone-waiting in-terminal">${icon('phone')}<span>${t('session.inTerminal')}</span></span></div>
        <p class="small session-terminal-note">${s.note}</p>
      </div>`;
    }
    const usage = usageText(s.usage);
    const files = this._changes?.totals?.files;
    const branch = s.worktree?.branch;
    return html`<div class="session-bar" data-kind="hub" data-status=${s.status} data-session-id=${s.sessionId}>
      <div class="session-bar-row">
        ${sessionBadge(s)}
        <span class="muted small mono session-branch">${branch || ''}</span>
        ${s.canStop ? html`<button class="button small session-stop" ?disabled=${this._busy === 'stop'}
          @click=${() => this._act('stop')}>${icon('stop')}<span>${t('session.stop')}</span></button>` : ''}
        ${s.canEnd ? html`<button class="button small danger-outline session-end" ?disabled=${this._busy === 'end'}
          @click=${() => this._askEnd()}>${icon('close')}<span>${t('session.end')}</span></button>` : ''}
      </div>
      <div class="session-bar-row">
        <a class="button small files-changed" href=${routeHref({ view: 'sessions', id: s.sessionId })}
          data-files=${files ?? ''}>${icon('diff')}<span>${files == null ? t('session.filesChangedUnknown')
            : tn('session.filesChanged', files)}</span>${files ? html`<span class="diff-stat small"><span
            class="diff-stat-add">+${this._changes.totals.added}</span> <span class="diff-stat-del">−${this._changes.totals.removed}</span></span>` : ''}</a>
        ${usage ? html`<span class="muted small session-usage" data-usage="reported">${usage}</span>` : ''}
      </div>
      ${s.note ? html`<p class="muted small session-note">${s.status === 'ended' ? t(`session.reason.${s.endReason || 'ended'}`) : s.note}</p>` : ''}
      ${this._error ? html`<p class="small tone-text-danger session-error" role="alert">${icon('warning')} ${errorWords(this._error)}</p>` : ''}
      <dialog class="dialog session-end-confirm" aria-labelledby="session-end-title" aria-describedby="session-end-body">
        <h2 id="session-end-title">${t('session.endTitle')}</h2>
        <p id="session-end-body">${t('session.endBody')}${s.worktree?.path ? ` ${t('session.endKeepsWorktree', { path: s.worktree.path })}` : ''}</p>
        <div class="dialog-actions">
          <button type="button" class="button" @click=${() => this.querySelector('dialog.session-end-confirm')?.close()}>${t('action.cancel')}</button>
          <button type="button" class="button danger session-end-confirm-button" @click=${() => this._confirmEnd()}>${t('session.end')}</button>
        </div>
      </dialog>
    </div>`;
  }
}

LineupSessionBar.define('lineup-session-bar');
