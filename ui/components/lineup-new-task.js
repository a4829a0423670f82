// New task, on the Tasks page: a chosen agent and what it should do, sent as a tracked task in its conversation.

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t } from '../lib/i18n.js';

export class LineupNewTask extends LineupElement {
  static properties = ['state'];

  constructor() {
    super();
    this.agentId = '';
    this.text = '';
    this.missing = '';
  }

  connectedCallback() {
    super.connectedCallback();
    requestAnimationFrame(() => this.querySelector('select, textarea')?.focus());
  }

  _agents() {
    return (this.state?.agents || []).filter((a) => !a.revokedAt && a.status !== 'revoked');
  }

  _submit(event) {
    event.preventDefault();
    const agents = this._agents();
    const agentId = agents.length === 1 ? agents[0].id : this.agentId;
    this.missing = !agentId ? 'agent' : !this.text.trim() ? 'text' : '';
    if (this.missing) {
      this.requestUpdate();
      requestAnimationFrame(() => this.querySelector(this.missing === 'agent' ? 'select' : 'textarea')?.focus());
      return;
    }
    this.emit('lineup-task-create', { agentId, text: this.text.trim() });
  }

  render() {
    const agents = this._agents();
    if (!agents.length) {
      return html`<div class="card new-task" role="region" aria-labelledby="new-task-heading">
        <h2 id="new-task-heading">${t('newTask.title')}</h2><p>${t('newTask.noAgent')}</p>
        <div class="button-row"><a class="button primary" href="#/agents">${icon('plug')}<span>${t('agents.connect')}</span></a>
          <button type="button" class="button" @click=${() => this.emit('lineup-new-task-close')}>${t('action.cancel')}</button></div></div>`;
    }
    const only = agents.length === 1 ? agents[0] : null;
    return html`<form class="card new-task" aria-labelledby="new-task-heading" @submit=${(e) => this._submit(e)}>
      <h2 id="new-task-heading">${t('newTask.title')}</h2>
      ${only ? html`<p class="new-task-agent">${t('newTask.forAgent', { agent: only.name })}</p>` : html`<label class="field">
        <span>${t('newTask.agent')}</span>
        <select name="agent" aria-invalid=${this.missing === 'agent' ? 'true' : 'false'} aria-describedby="new-task-error"
          @change=${(e) => { this.agentId = e.target.value; this.missing = ''; this.requestUpdate(); }}>
          <option value="" ?selected=${!this.agentId}>${t('newTask.chooseAgent')}</option>
          ${agents.map((a) => html`<option value=${a.id} ?selected=${a.id === this.agentId}>${a.name} · ${t(`agent.status.${a.status || 'offline'}`)}</option>`)}
        </select></label>`}
      <label class="field"><span>${t('newTask.what')}</span>
        <textarea name="text" rows="3" aria-invalid=${this.missing === 'text' ? 'true' : 'false'} aria-describedby="new-task-error"
          .value=${this.text} @input=${(e) => { this.text = e.target.value; }}></textarea>
        <small class="muted">${t('newTask.help')}</small></label>
      <p id="new-task-error" class="field-error" role="alert">${this.missing ? t(`newTask.missing.${this.missing}`) : ''}</p>
      <div class="button-row">
        <button type="submit" class="button primary new-task-create">${icon('send')}<span>${t('newTask.create')}</span></button>
        <button type="button" class="button" @click=${() => this.emit('lineup-new-task-close')}>${t('action.cancel')}</button>
      </div>
    </form>`;
  }
}

LineupNewTask.define('lineup-new-task');
