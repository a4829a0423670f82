// Conversations, newest first, and starting a new one with an agent (a native <dialog>, so focus is trapped).

import { html, nothing } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, formatAgo } from '../lib/i18n.js';
import { routeHref } from '../lib/router.js';

export class LineupConversationList extends LineupElement {
  static properties = ['state', 'route'];

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
    const agents = state.agents.filter((a) => !a.revokedAt);
    const names = new Map(state.agents.map((a) => [a.id, a.name]));
    const list = [...state.conversations].sort((a, b) => String(b.updatedAt).localeCompare(String(a.updatedAt)));
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
      ${!agents.length ? html`<p class="muted small">${t('conversation.needAgent')} <a href="#/agents">${t('agents.connect')}</a></p>` : ''}
      ${list.length ? html`<ul class="plain-list">
        ${list.map((c) => html`<li><a class="conversation-link" href=${routeHref({ view: 'conversations', id: c.id })}
          aria-current=${route?.view === 'conversations' && route?.id === c.id ? 'page' : 'false'}>
          ${icon('chat')}<span class="conversation-title">${c.title}</span>
          <span class="muted small">${c.agentIds.map((id) => names.get(id) || '?').join(', ')} · ${formatAgo(c.updatedAt)}</span></a></li>`)}
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
