// The inbox (docs/design.md#inbox-and-task-lists): waiting for me (answerable here), failed or needing attention,
// recently completed.

import { html } from '../vendor/lit-html/lit-html.js';
import { repeat } from '../vendor/lit-html/directives/repeat.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t } from '../lib/i18n.js';
import { interactionCard } from '../lib/cards.js';
import { taskRow } from './lineup-task-list.js';
import { inboxLists, waitingTotal } from '../lib/inbox.js';
import { need } from '../lib/lazy.js';
import { newSessionEntry, sessionsOffLine } from '../lib/sessions.js';
import { FirstView } from '../lib/first-view.js';
import { receiptsBlock } from '../lib/receipts.js';

export class LineupInbox extends LineupElement {
  static properties = ['state', 'route'];

  updated() {
    // A card is first shown from its top, also when the one above it is answered and leaves (lib/first-view.js).
    this._firstView ??= new FirstView(this);
    this._firstView.check();
    // What has been on screen for a moment counts as read; the count of waiting items stays until answered.
    if (!this.state?.inbox) return;
    const inbox = inboxLists(this.state);
    const ids = [...inbox.waitingForMe.map((i) => i.id), ...inbox.needsAttention.map((x) => x.id)];
    if (this._seenTimer || !ids.some((id) => !this.state.seenInbox.has(id))) return;
    this._seenTimer = setTimeout(() => {
      this._seenTimer = null;
      const now = inboxLists(this.state);
      this.emit('lineup-inbox-seen', { ids: [...now.waitingForMe.map((i) => i.id), ...now.needsAttention.map((x) => x.id)] });
    }, 2500);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this._firstView?.disconnect();
    this._firstView = null;
    clearTimeout(this._seenTimer);
    this._seenTimer = null;
  }

  /** No agent yet: connect the one the person runs, or (the hub's owner) start a session the hub runs; with sessions
   * off, New session leads to where they are turned on, and one sentence says so. */
  _welcome(state) {
    const sessions = state.sessions;
    const offered = state.connection?.mode !== 'relay' && !['forbidden', 'error'].includes(sessions?.status);
    const off = sessions?.status === 'ready' && sessions.enabled === false;
    return html`<div class="welcome card">
      <h2>${t('welcome.title')}</h2><p>${t('welcome.body')}</p>
      <div class="button-row">
        <a class="button primary welcome-connect" href="#/agents?connect">${icon('plug')}<span>${t('agents.connect')}</span></a>
        ${offered ? html`<a class="button welcome-new-session" href=${off ? '#/settings' : '#/sessions/new'}>${icon('play')}<span>${t('session.new')}</span></a>` : ''}
      </div>
      ${offered && off ? sessionsOffLine() : ''}</div>`;
  }

  render() {
    const { state } = this;
    if (!state) return '';
    const { waitingForMe, needsAttention, recentlyCompleted } = inboxLists(state);
    const isNew = (id) => !state.seenInbox.has(id);
    const section = (id, title, count, body, empty, urgent = true) => html`<section class="inbox-section" aria-labelledby=${id} data-section=${id}>
      <h2 id=${id}>${title} <span class="count ${count && urgent ? 'count-active' : ''}">${count}</span></h2>
      ${count ? body : html`<p class="muted small empty">${empty}</p>`}</section>`;
    const noAgents = !state.agents.filter((a) => !a.revokedAt).length;
    need('lineup-tool-activity');
    return html`<div class="view inbox">
      <header class="view-head"><h1>${t('nav.inbox')}</h1>${newSessionEntry(state, { offWord: false })}</header>
      ${noAgents && state.loaded ? this._welcome(state) : ''}
      ${section('inbox-waiting', t('inbox.waiting'), waitingTotal(state), html`${waitingTotal(state) > waitingForMe.length
        ? html`<p class="muted small inbox-more">${t('inbox.more', { shown: waitingForMe.length, total: waitingTotal(state) })}</p>` : ''}
        <div class="inbox-cards">
        ${repeat(waitingForMe, (it) => it.id, (it) => html`<div class="inbox-card-wrap">
          ${isNew(it.id) ? html`<span class="badge tone-running new-badge">${t('inbox.new')}</span>` : ''}
          ${interactionCard(it, state, 'inbox')}</div>`)}</div>`, t('inbox.waitingEmpty'))}
      ${receiptsBlock(state)}
      ${section('inbox-attention', t('inbox.attention'), needsAttention.length, html`<ul class="plain-list task-rows">
        ${repeat(needsAttention, (task) => task.id, (task) => taskRow(task, state, { selected: this.route?.task === task.id }))}</ul>`,
        t('inbox.attentionEmpty'))}
      ${section('inbox-done', t('inbox.done'), recentlyCompleted.length, html`<ul class="plain-list task-rows">
        ${repeat(recentlyCompleted, (task) => task.id, (task) => taskRow(task, state, { selected: this.route?.task === task.id }))}</ul>`,
        t('inbox.doneEmpty'), false)}
      <lineup-tool-activity .state=${state}></lineup-tool-activity>
    </div>`;
  }
}

LineupInbox.define('lineup-inbox');
