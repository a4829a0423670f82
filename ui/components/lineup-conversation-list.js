// Conversations, newest first, and starting a new one with an agent (a native <dialog>, so focus is trapped).

import { html, nothing } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, formatAgo } from '../lib/i18n.js';
import { routeHref } from '../lib/router.js';
import { newSessionEntry } from '../lib/sessions.js';

// What a preview line shows of a message: its first line, without Markdown's marks.
function previewText(content) {
  const line = String(content || '').split('\n').map((x) => x.trim()).find(Boolean) || '';
  return line.replace(/^(#{1,6}\s+|[-*+>]\s+|\d+\.\s+)/, '').replace(/[*_`~]+/g, '').slice(0, 160);
}

export class LineupConversationList extends LineupElement {
  static properties = ['state', 'route'];

  updated() {
    // The newest message of the conversations shown (most recent first), read once: their preview lines.
    this._asked ??= new Set();
    const missing = this._sorted().slice(0, 30).map((c) => c.id).filter((id) => !this._asked.has(id) && !this._preview(id));
    for (const id of missing) this._asked.add(id);
    if (missing.length) this.emit('lineup-conversation-previews', { ids: missing });
  }

  _sorted() {
    return [...(this.state?.conversations || [])].sort((a, b) => String(b.updatedAt).localeCompare(String(a.updatedAt)));
  }

  /** The newest message known of a conversation: its loaded messages, or the one read for the list. */
  _preview(id) {
    const loaded = (this.state.messages[id]?.items || []).filter((m) => m.state === 'complete').at(-1);
    const read = this.state.previews?.[id];
    if (!loaded) return read || null;
    if (!read) return loaded;
    return String(read.createdAt) > String(loaded.createdAt) ? read : loaded;
  }

  _author(message) {
    const author = message.author || {};
    if (author.kind === 'user') return author.id === this.state.me?.userId ? t('who.you') : t('who.person');
    if (author.kind === 'agent') return this.state.agents.find((a) => a.id === author.id)?.name || t('who.agent');
    return t('who.hub');
  }

  _row(c, route, names) {
    const message = this._preview(c.id);
    const agents = c.agentIds.map((id) => names.get(id) || '?').join(', ');
    // The agents' names only where the title does not already say them ("Demo agent · Demo agent").
    const who = agents && agents !== c.title ? agents : '';
    return html`<li><a class="conversation-link" href=${routeHref({ view: 'conversations', id: c.id })}
      aria-current=${route?.view === 'conversations' && route?.id === c.id ? 'page' : 'false'}>
      ${icon('chat')}<span class="conversation-title">${c.title}</span>
      <span class="conversation-when muted small">${formatAgo(c.updatedAt)}</span>
      <span class="conversation-preview muted small">${who ? html`<span class="conversation-agents-names">${who}</span> · ` : ''}${message
        ? html`<span class="preview-author">${this._author(message)}:</span> ${previewText(message.content)
          || (message.attachments?.length ? t('conversation.previewAttachment') : '')}`
        : t('conversation.previewNone')}</span></a></li>`;
  }

  /** How many sessions run now, beside the Sessions link. */
  _running(state) {
    const n = state.sessions.items.filter((s) => s.kind === 'hub' && s.status === 'running').length;
    return n ? html`<span class="count" aria-label=${t('nav.running', { n })}>${n}</span>` : '';
  }

  _open() {
    const dialog = this.querySelector('dialog');
    const form = dialog.querySelector('form');
    form.reset();
    this._error = '';
    this.requestUpdate();
    dialog.showModal();
  }

  _submit(event) {
    event.preventDefault();
    const form = event.target;
    const agentId = form.elements.agent.value;
    const agent = this.state.agents.find((a) => a.id === agentId);
    const title = form.elements.title.value.trim() || agent?.name || t('conversation.untitled');
    if (!agentId) {
      this._error = t('conversation.pickAgent');
      this.requestUpdate();
      return;
    }
    this.querySelector('dialog').close();
    this.emit('lineup-conversation-create', { title, agentIds: [agentId] });
  }

  render() {
    const { state, route } = this;
    if (!state) return '';
    const standalone = this.hasAttribute('standalone');
    // Offered in "New conversation": online agents first, never a revoked one.
    const agents = state.agents.filter((a) => !a.revokedAt)
      .sort((a, b) => (a.status === 'online' ? 0 : 1) - (b.status === 'online' ? 0 : 1));
    const names = new Map(state.agents.map((a) => [a.id, a.name]));
    const list = this._sorted();
    const headingId = standalone ? 'conversations-heading-main' : 'conversations-heading-side';
    // Only the main view's list is a named region: the sidebar's sits inside the navigation landmark, and two
    // regions both named "Conversations" would be indistinguishable (axe landmark-unique).
    return html`<section class="conversation-list ${standalone ? 'view' : ''}" aria-labelledby=${standalone ? headingId : nothing}>
      <div class="section-head">
        ${standalone ? html`<h1 id=${headingId}>${t('nav.conversations')}</h1>` : html`<h2 id=${headingId} class="small-heading">${t('nav.conversations')}</h2>`}
        ${standalone ? html`<button class="button primary new-conversation" ?disabled=${!agents.length}
          @click=${() => this._open()}>${icon('plus')}<span>${t('conversation.new')}</span></button>`
          : html`<button class="icon-button new-conversation" ?disabled=${!agents.length} title=${t('conversation.new')}
          @click=${() => this._open()}>${icon('plus')}<span class="visually-hidden">${t('conversation.new')}</span></button>`}
      </div>
      ${standalone && state.sessions?.status === 'ready' ? html`<div class="session-entry">
        <a class="button sessions-link" href="#/sessions">${icon('running')}<span>${t('session.listTitle')}</span>${this._running(state)}</a>
        ${newSessionEntry(state)}</div>` : ''}
      ${!agents.length ? html`<p class="muted small">${t('conversation.needAgent')} <a href="#/agents">${t('agents.connect')}</a></p>` : ''}
      ${list.length ? html`<ul class="plain-list">
        ${list.map((c) => this._row(c, route, names))}
      </ul>` : agents.length ? html`<p class="muted small empty">${t('conversation.none')}</p>` : ''}
      <dialog class="dialog" aria-labelledby=${`${headingId}-new`}>
        <form @submit=${(e) => this._submit(e)}>
          <h2 id=${`${headingId}-new`}>${t('conversation.new')}</h2>
          <label class="field"><span>${t('conversation.agent')}</span>
            <select name="agent" required>
              ${agents.map((a) => html`<option value=${a.id}>${a.name} · ${t(`agent.status.${a.status || 'offline'}`)}</option>`)}
            </select></label>
          <label class="field"><span>${t('conversation.title')}</span>
            <input name="title" maxlength="500" autocomplete="off" placeholder=${t('conversation.titlePlaceholder')}></label>
          ${this._error ? html`<p class="field-error" role="alert">${this._error}</p>` : ''}
          <div class="dialog-actions">
            <button type="button" class="button" @click=${() => this.querySelector('dialog').close()}>${t('action.cancel')}</button>
            <button type="submit" class="button primary">${t('conversation.start')}</button>
          </div>
        </form>
      </dialog>
    </section>`;
  }
}

LineupConversationList.define('lineup-conversation-list');
