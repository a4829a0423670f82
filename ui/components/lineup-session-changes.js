// A session's files changed (#/sessions/<id>): against its start, uncommitted or its branch vs base, each file with
// its +/− counts (a tap opens its diff), the review being written, and Commit, which asks through an approval card.

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, tn } from '../lib/i18n.js';
import { routeHref } from '../lib/router.js';
import { AGAINST, draftOf, errorWords, sessionApi, sessionById, sessionStatusBadge } from '../lib/sessions.js';

export class LineupSessionChanges extends LineupElement {
  static properties = ['state', 'api', 'sessionId', 'against'];

  constructor() {
    super();
    this._changes = null;
    this._error = null;
    this._readFor = '';
    this._commit = null; // {status: 'asking'|'asked'|'error', error}
    this._review = null; // {status: 'sending'|'sent'|'error', error}
  }

  updated() {
    const session = sessionById(this.state, this.sessionId);
    const key = `${this.sessionId}|${this._against()}|${session?.lastActivityAt || ''}`;
    if (!this.api || key === this._readFor) return;
    this._readFor = key;
    this._read();
  }

  _against() {
    return AGAINST.includes(this.against) ? this.against : 'start';
  }

  async _read() {
    const against = this._against();
    try {
      const changes = await sessionApi.changes(this.api, this.sessionId, against);
      if (against !== this._against()) return; // the person switched meanwhile
      this._changes = changes;
      this._error = null;
    } catch (error) {
      this._error = error;
    }
    this.requestUpdate();
  }

  async _sendReview(sessionId) {
    const comments = draftOf(sessionId);
    this._review = { status: 'sending' };
    this.requestUpdate();
    try {
      await sessionApi.review(this.api, sessionId, { comments: comments.map(({ path, line, side, text }) => ({ path, line, side, text })) });
      comments.splice(0);
      this._review = { status: 'sent' };
    } catch (error) {
      this._review = { status: 'error', error };
    }
    this.requestUpdate();
  }

  async _askCommit(event) {
    event.preventDefault();
    const message = event.target.elements.message.value.trim();
    if (!message) return;
    this.querySelector('dialog.commit-dialog')?.close();
    this._commit = { status: 'asking' };
    this.requestUpdate();
    try {
      await sessionApi.commit(this.api, this.sessionId, message);
      this._commit = { status: 'asked' };
      this.emit('lineup-sessions-refresh');
    } catch (error) {
      this._commit = { status: 'error', error };
    }
    this.requestUpdate();
  }

  _file(file, against) {
    const stat = html`<span class="diff-stat small"><span class="diff-stat-add">+${file.added}</span> <span class="diff-stat-del">−${file.removed}</span></span>`;
    const name = html`<span class="changed-name mono">${file.oldPath ? `${file.oldPath} → ${file.path}` : file.path}</span>`;
    const status = html`<span class="badge tone-neutral changed-status">${t(`changes.status.${file.status}`)}</span>`;
    if (file.binary) {
      return html`<li class="changed-file" data-path=${file.path} data-binary="true"><div class="changed-row">${name}${status}
        <span class="muted small">${t('changes.binary')}</span></div></li>`;
    }
    return html`<li class="changed-file" data-path=${file.path}><a class="changed-row" href=${routeHref({ view: 'sessions',
      id: this.sessionId, sub: 'diff', path: file.path, against: against === 'start' ? null : against })}>${name}${status}${stat}
      ${icon('chevron')}</a></li>`;
  }

  render() {
    const { state } = this;
    if (!state || !this.sessionId) return '';
    const session = sessionById(state, this.sessionId);
    const against = this._against();
    const changes = this._changes?.against === against ? this._changes : null;
    const comments = draftOf(this.sessionId);
    const ended = session?.status === 'ended';
    return html`<section class="view session-changes" aria-labelledby="changes-heading">
      <header class="view-head">
        <a class="icon-button back-link" href=${session ? routeHref({ view: 'conversations', id: session.conversationId }) : '#/sessions'}>${icon('back')}<span
          class="visually-hidden">${t('changes.backToConversation')}</span></a>
        <h1 id="changes-heading">${changes ? tn('session.filesChanged', changes.totals.files) : t('session.filesChangedUnknown')}</h1>
        ${session ? sessionStatusBadge(session) : ''}
      </header>
      ${session ? html`<p class="muted small session-title-line">${session.title}${session.worktree?.branch ? html` · <span class="mono">${session.worktree.branch}</span>` : ''}</p>` : ''}
      <nav class="segmented against" aria-label=${t('changes.against')}>${AGAINST.map((value) => html`<a class="segment"
        href=${routeHref({ view: 'sessions', id: this.sessionId, against: value === 'start' ? null : value })}
        aria-current=${value === against ? 'page' : 'false'} data-against=${value}>${t(`changes.against.${value}`)}</a>`)}</nav>
      ${this._error ? html`<p class="tone-box-danger" role="alert">${icon('warning')} ${errorWords(this._error)}</p>` : ''}
      ${!changes && !this._error ? html`<p class="muted" role="status"><span class="spinner small" aria-hidden="true"></span> ${t('app.loading')}</p>` : ''}
      ${changes ? html`<p class="small changes-totals">${tn('changes.totals', changes.totals.files, { added: changes.totals.added, removed: changes.totals.removed })}</p>
        ${changes.files.length ? html`<ul class="plain-list changed-files">${changes.files.map((f) => this._file(f, against))}</ul>`
          : html`<p class="muted empty">${t('changes.none')}</p>`}
        ${changes.truncated ? html`<p class="muted small">${t('changes.truncated')}</p>` : ''}` : ''}
      ${comments.length ? html`<div class="tone-box-neutral review-waiting"><p>${tn('review.waiting', comments.length)}</p>
        <button type="button" class="button primary send-review" ?disabled=${ended || this._review?.status === 'sending'}
          @click=${() => this._sendReview(this.sessionId)}>${icon('send')}<span>${t('review.send')}</span></button></div>` : ''}
      ${this._review?.status === 'sent' ? html`<p class="tone-box-success review-sent" role="status">${icon('check')} ${t('review.sent')}</p>` : ''}
      ${this._review?.status === 'error' ? html`<p class="tone-box-danger" role="alert">${errorWords(this._review.error)}</p>` : ''}
      ${session && !ended && changes?.files.length ? html`<div class="commit-row">
        <button type="button" class="button commit-open" ?disabled=${Boolean(session.pendingCommit) || this._commit?.status === 'asking'}
          @click=${() => this.querySelector('dialog.commit-dialog')?.showModal()}>${icon('check')}<span>${t('commit.open')}</span></button>
        <span class="muted small">${session.pendingCommit ? t('commit.waiting') : t('commit.help')}</span></div>` : ''}
      ${this._commit?.status === 'asked' ? html`<p class="tone-box-success commit-asked" role="status">${icon('check')} ${t('commit.asked')}
        <a href=${routeHref({ view: 'conversations', id: session?.conversationId })}>${t('changes.backToConversation')}</a></p>` : ''}
      ${this._commit?.status === 'error' ? html`<p class="tone-box-danger" role="alert">${errorWords(this._commit.error)}</p>` : ''}
      <dialog class="dialog commit-dialog" aria-labelledby="commit-title">
        <form @submit=${(e) => this._askCommit(e)}>
          <h2 id="commit-title">${t('commit.title')}</h2>
          <p class="small">${t('commit.body')}</p>
          <label class="field"><span>${t('commit.message')}</span>
            <input name="message" class="commit-message" maxlength="4000" required autocomplete="off"></label>
          <div class="dialog-actions">
            <button type="button" class="button" @click=${() => this.querySelector('dialog.commit-dialog')?.close()}>${t('action.cancel')}</button>
            <button type="submit" class="button primary commit-ask">${t('commit.ask')}</button>
          </div>
        </form>
      </dialog>
    </section>`;
  }
}

LineupSessionChanges.define('lineup-session-changes');
