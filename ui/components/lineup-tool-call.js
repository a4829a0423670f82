// One tool call as a compact card: who called which tool with what, and its result or error once it arrives.
// A call that asked a person points to that question's card instead of repeating it.

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, formatTime } from '../lib/i18n.js';
import {
  callerName, formatArguments, pluginElement, resultText, sentence, toolLabel, toolView, viewNote,
} from '../lib/tool-views.js';

export class LineupToolCall extends LineupElement {
  // `linked`: shown on top of its interaction card; `omit`: argument names the surrounding card already says;
  // `bare`: words only (inside an instance's card, which draws the instance itself).
  static properties = ['entry', 'state', 'linked', 'omit', 'bare'];

  _showQuestion(interactionId, call) {
    const card = document.querySelector(`.interaction-card[data-interaction-id="${CSS.escape(interactionId)}"]`);
    if (card) {
      card.scrollIntoView({ block: 'center' });
      card.querySelector('.card-title')?.setAttribute('tabindex', '-1');
      card.querySelector('.card-title')?.focus();
    } else if (call.taskId) {
      this.emit('lineup-task-open', { taskId: call.taskId });
    } else {
      this.emit('lineup-navigate', { route: { view: 'inbox' } });
    }
  }

  /** A tool with a UI module of its own (not an app-type tool: lineup-tool-instance draws those) draws the call. */
  _view(name, call, result) {
    const tools = this.state.tools;
    if (this.bare || this.linked || tools?.definitions.get(name)?.type === 'app') return '';
    if ([...(tools?.instances?.values() ?? [])].some((instance) => instance.tool === name)) return '';
    const view = toolView(name, this.state);
    if (view.status === 'none') return '';
    let error = '';
    if (view.status === 'ready') {
      try {
        const element = pluginElement(view.tag, 'call', call.id, { call: call.payload, result: result || null });
        return html`<div class="tool-view" data-view=${view.tag}>${element}</div>`;
      } catch (thrown) {
        console.error(`<${view.tag}> failed to draw`, thrown);
        error = String(thrown?.message || thrown);
      }
    }
    const shown = error ? { ...view, status: 'broken' } : view;
    return html`<p class="tool-view-note tone-box-waiting small" data-view-status=${shown.status}>${icon('warning')}
      <span>${viewNote(name, shown, error)}</span></p>`;
  }

  render() {
    const { entry, state } = this;
    if (!entry || !state) return '';
    const call = entry.call;
    const p = call.payload || {};
    const result = entry.result?.payload;
    const error = result?.error;
    const status = !result ? 'pending' : error ? 'error' : 'done';
    const asks = p.target?.kind === 'interaction';
    const line = sentence('tool.called', {
      who: html`<strong class="tool-caller">${callerName(p.caller, state)}</strong>`,
      tool: html`<code class="tool-name">${toolLabel(p)}</code>`,
      args: html`<span class="tool-args">${formatArguments(p.arguments, this.omit || [])}</span>`,
    });
    let outcome = '';
    if (status === 'done') {
      outcome = html`<span class="tool-result"><span aria-hidden="true">→</span><span class="visually-hidden">${t('tool.result')}:</span>
        <span class="tool-result-text">${resultText(result.result)}</span></span>`;
    } else if (status === 'pending') {
      outcome = asks
        ? html`<span class="badge tone-waiting">${icon('waiting')}<span>${t('tool.waitingForYou')}</span></span>`
        : html`<span class="badge tone-neutral">${icon('clock')}<span>${t('tool.pending')}</span></span>`;
    }
    return html`<div class="tool-call ${this.linked ? 'linked' : ''}" data-call-id=${p.call_id} data-call-event-id=${call.id}
        data-tool=${p.name} data-action=${p.action || ''} data-status=${status}>
      <p class="tool-call-line">${icon('tool')}<span class="tool-call-text">${line} ${outcome}</span>
        <time class="muted small" datetime=${call.occurredAt}>${formatTime(call.occurredAt)}</time></p>
      ${error ? html`<p class="tool-error" role="note">${icon('failed')}<strong>${t('tool.error')}</strong>
        <code class="tool-error-code">${error.code}</code><span class="tool-error-message">${error.message}</span></p>` : ''}
      ${this._view(p.name, call, result)}
      ${asks && !this.linked && p.target.id ? html`<p class="small"><button class="button ghost small tool-show-question"
        @click=${() => this._showQuestion(p.target.id, call)}>${icon('chevron')}<span>${t('tool.showQuestion')}</span></button></p>` : ''}
    </div>`;
  }
}

LineupToolCall.define('lineup-tool-call');
