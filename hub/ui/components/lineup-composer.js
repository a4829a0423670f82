// The composer at the foot of a conversation: text to the conversation's agent, optionally tracked as a task.

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, formatDateTime } from '../lib/i18n.js';

// An agent that can never receive again: revoked in the app (a revoked agent paired again is a new agent).
const gone = (agent) => Boolean(agent && (agent.revokedAt || agent.status === 'revoked'));

export class LineupComposer extends LineupElement {
  static properties = ['conversation', 'agents', 'connection'];

  constructor() {
    super();
    this.texts = new Map(); // conversation id -> unsent text, so switching conversations keeps each draft
    this.track = false;
    this.target = null;
    this.justSent = false;
  }

  get _key() {
    return this.conversation?.id || '';
  }

  _members() {
    const ids = this.conversation?.agentIds || [];
    return ids.map((id) => (this.agents || []).find((a) => a.id === id)).filter(Boolean);
  }

  /** Who a message goes to: the chosen member, else the first one that can still receive; a revoked agent only when
      every member is revoked (then the composer is closed and says why). */
  _target(members) {
    const reachable = members.filter((a) => !gone(a));
    const choices = reachable.length ? reachable : members;
    return [choices, choices.find((a) => a.id === this.target) || choices[0]];
  }

  _send(event) {
    event?.preventDefault();
    const text = (this.texts.get(this._key) || '').trim();
    const [, target] = this._target(this._members());
    if (!text || !target || gone(target)) return;
    this.emit('lineup-message-send', {
      conversationId: this.conversation.id, text, trackAsTask: this.track, targetAgentId: target.id,
    });
    this.texts.set(this._key, '');
    this.track = false; // each task is asked for on purpose
    this.justSent = true;
    this.requestUpdate();
    requestAnimationFrame(() => this.querySelector('textarea')?.focus());
  }

  _keydown(event) {
    // Enter sends, Shift+Enter is a new line; never while an input method is composing (Chinese input).
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing && event.keyCode !== 229) {
      this._send(event);
    }
  }

  render() {
    const conversation = this.conversation;
    if (!conversation) return '';
    const [choices, target] = this._target(this._members());
    const text = this.texts.get(this._key) || '';
    // Revoked: nothing sent here can ever be delivered, so nothing may be sent (the draft is kept).
    const closed = gone(target);
    const offline = target && target.status !== 'online';
    const live = this.connection?.status === 'live';
    const id = `composer-${conversation.id}`;
    return html`<form class="composer" @submit=${(e) => this._send(e)} aria-label=${t('composer.label')}
      data-closed=${closed ? 'revoked' : 'open'}>
      ${choices.length > 1 ? html`<label class="composer-target"><span>${t('composer.to')}</span>
        <select @change=${(e) => { this.target = e.target.value; this.requestUpdate(); }}>
          ${choices.map((a) => html`<option value=${a.id} ?selected=${a.id === target?.id}>${a.name}</option>`)}
        </select></label>` : ''}
      ${closed ? html`<div class="tone-box-waiting composer-closed" role="note">
        <p>${icon('warning')} ${target.revokedAt ? t('composer.agentRevoked', { agent: target.name, time: formatDateTime(target.revokedAt) })
          : t('composer.agentRevokedUndated', { agent: target.name })}</p>
        <p><a href="#/agents">${t('composer.toAgents')}</a></p></div>` : ''}
      <label class="visually-hidden" for=${id}>${t('composer.placeholder', { agent: target?.name || '' })}</label>
      <textarea id=${id} rows="2" .value=${text} placeholder=${closed ? t('composer.closed')
        : t('composer.placeholder', { agent: target?.name || '' })}
        ?disabled=${!target || closed} @input=${(e) => { this.texts.set(this._key, e.target.value); this.justSent = false; this.requestUpdate(); }}
        @keydown=${(e) => this._keydown(e)}></textarea>
      <div class="composer-row">
        <label class="checkbox"><input type="checkbox" name="track" .checked=${this.track} ?disabled=${closed}
          @change=${(e) => { this.track = e.target.checked; this.requestUpdate(); }}>
          <span>${t('composer.track')}</span></label>
        <span class="composer-hint muted small" role="status">${!target ? t('composer.noAgent')
          : closed ? t('composer.closed')
          : offline ? html`${icon('offline')} ${t('composer.agentOffline', { agent: target.name })}`
          : !live ? html`${icon('clock')} ${t('composer.queued')}` : this.justSent ? t('composer.sent') : t('composer.hint')}</span>
        <button type="submit" class="button primary send-button" ?disabled=${!text.trim() || !target || closed}>
          ${icon('send')}<span>${t('composer.send')}</span></button>
      </div>
    </form>`;
  }
}

LineupComposer.define('lineup-composer');
