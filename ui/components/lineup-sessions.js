// The session list (#/sessions): the hub's sessions and the terminal agents' conversations, live, and New session.

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, formatAgo } from '../lib/i18n.js';
import { routeHref } from '../lib/router.js';
import { errorWords, newSessionEntry, usageText } from '../lib/sessions.js';
import { sessionBadge, tickWhileStarting } from '../lib/session-badge.js';

/** Why an ended session ended, in the person's language (the hub's words for a reason the app has none for). */
function endWords(s) {
  const key = `session.reason.${s.endReason}`;
  const words = s.endReason ? t(key) : key;
  return words === key ? s.note : words;
}

export class LineupSessions extends LineupElement {
  static properties = ['state'];

  disconnectedCallback() {
    super.disconnectedCallback();
    tickWhileStarting(this, []);
  }

  _row(s) {
    const terminal = s.kind === 'terminal';
    const where = terminal ? '' : s.worktree?.branch ? t('session.onBranch', { branch: s.worktree.branch })
      : s.project ? s.project.split('/').filter(Boolean).at(-1) : '';
    const usage = terminal ? '' : usageText(s.usage);
    return html`<li class="session-row" data-session-id=${s.sessionId || ''} data-conversation-id=${s.conversationId}
        data-kind=${s.kind} data-status=${s.status}>
      <a class="session-link" href=${routeHref({ view: 'conversations', id: s.conversationId })}>
        <span class="session-title">${s.title}</span>
        <span class="session-meta">${sessionBadge(s)}${terminal ? html`<span class="badge tone-waiting in-terminal">${icon(
          'phone')}<span>${t('session.inTerminal')}</span></span>` : ''}
          <span class="muted small">${terminal ? s.agentName : where}${where || terminal ? ' · ' : ''}${formatAgo(s.lastActivityAt)}</span></span>
        ${usage ? html`<span class="muted small session-usage">${usage}</span>` : ''}
        ${s.note ? html`<span class="muted small session-note">${endWords(s)}</span>` : ''}
      </a></li>`;
  }

  render() {
    const { state } = this;
    if (!state) return '';
    const sessions = state.sessions;
    const items = sessions?.items || [];
    tickWhileStarting(this, items);
    return html`<section class="view sessions-view" aria-labelledby="sessions-heading">
      <header class="view-head">
        <a class="icon-button back-link" href="#/conversations">${icon('back')}<span class="visually-hidden">${t('nav.conversations')}</span></a>
        <h1 id="sessions-heading">${t('session.listTitle')}</h1>
        ${newSessionEntry(state)}
      </header>
      ${!sessions || sessions.status === 'loading' ? html`<p class="muted" role="status"><span class="spinner small" aria-hidden="true"></span> ${t('app.loading')}</p>` : ''}
      ${sessions?.status === 'forbidden' ? html`<p class="tone-box-neutral" data-sessions="forbidden">${t('session.ownerOnly')}</p>` : ''}
      ${sessions?.status === 'error' ? html`<p class="tone-box-danger" role="alert">${errorWords(sessions.error)}</p>` : ''}
      ${sessions?.status === 'ready' && !items.length && sessions.enabled !== false ? html`<p class="muted empty">${t('session.none')}</p>` : ''}
      ${items.length ? html`<ul class="plain-list session-rows">${items.map((s) => this._row(s))}</ul>` : ''}
    </section>`;
  }
}

LineupSessions.define('lineup-sessions');
