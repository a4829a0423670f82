// An app-type tool's instance (a canvas, ...): its plugin's element kept at the instance's latest state, updated
// on every tool.result that carries it, with the calls that made it; the text card when the element cannot draw.

import { html } from '../vendor/lit-html/lit-html.js';
import { repeat } from '../vendor/lit-html/directives/repeat.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t } from '../lib/i18n.js';
import { pluginElement, toolView, viewNote } from '../lib/tool-views.js';

function stateSummary(state) {
  return Object.entries(state || {}).filter(([, value]) => value !== '' && value !== null && value !== undefined)
    .map(([key, value]) => (Array.isArray(value) ? `${key}: ${value.length}`
      : typeof value === 'object' ? `${key}: …` : `${key}: ${value}`)).join(' · ');
}

export class LineupToolInstance extends LineupElement {
  // `item`: {instanceId, entries} from lib/tool-calls.js toolItems; `context`: where it is shown (stream, detail).
  static properties = ['item', 'state', 'context'];

  _view(name, instance) {
    const view = toolView(name, this.state);
    if (view.status === 'none') return html`<p class="tool-state muted small">${stateSummary(instance.state)}</p>`;
    if (view.status === 'ready') {
      try {
        const element = pluginElement(view.tag, this.context || 'stream', instance.id, { instance });
        return html`<div class="tool-view" data-view=${view.tag}>${element}</div>`;
      } catch (error) {
        console.error(`<${view.tag}> failed to draw`, error);
        return this._fallback(name, instance, { ...view, status: 'broken' }, String(error?.message || error));
      }
    }
    return this._fallback(name, instance, view);
  }

  _fallback(name, instance, view, error = '') {
    return html`<p class="tool-view-note tone-box-waiting small" data-view-status=${view.status}>${icon('warning')}
      <span>${viewNote(name, view, error)}</span></p>
      <p class="tool-state small">${stateSummary(instance.state)}</p>`;
  }

  render() {
    const { item, state } = this;
    if (!item || !state) return '';
    const entries = item.entries;
    const first = entries[0].call.payload || {};
    const name = first.name;
    const instance = state.tools.instances.get(item.instanceId) || { id: item.instanceId, state: {}, status: 'open' };
    const closed = instance.status === 'closed';
    const title = instance.state?.title || '';
    const last = entries[entries.length - 1];
    const earlier = entries.slice(0, -1);
    return html`<section class="tool-instance card" data-instance-id=${instance.id} data-tool=${name}
        data-instance-status=${instance.status} aria-label=${t('tool.instance.label', { tool: name, title: title || instance.id })}>
      <header class="tool-instance-head">${icon('tool')}<strong>${name}</strong>
        ${title ? html`<span class="tool-instance-title">${title}</span>` : ''}
        ${closed ? html`<span class="badge tone-neutral" data-instance-status="closed">${icon('cancelled')}<span>${t('tool.instance.closed')}</span></span>`
          : html`<span class="badge tone-running" data-instance-status="open">${icon('running')}<span>${t('tool.instance.open')}</span></span>`}
      </header>
      ${this._view(name, instance)}
      ${earlier.length ? html`<details class="tool-instance-calls"><summary class="small">${t('tool.instance.earlier', { n: earlier.length })}</summary>
        ${repeat(earlier, (e) => e.id, (e) => html`<lineup-tool-call .entry=${e} .state=${state} .omit=${['instance_id']}
          .bare=${true}></lineup-tool-call>`)}
      </details>` : ''}
      <lineup-tool-call .entry=${last} .state=${state} .omit=${['instance_id']} .bare=${true}></lineup-tool-call>
    </section>`;
  }
}

LineupToolInstance.define('lineup-tool-instance');
