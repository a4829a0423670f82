// Activity: tool calls made outside any conversation (no conversation, no task in one), newest first, so every
// call an agent makes is visible somewhere; a call made for a task links to it.

import { html } from '../vendor/lit-html/lit-html.js';
import { repeat } from '../vendor/lit-html/directives/repeat.js';
import { LineupElement } from '../lib/element.js';
import { t } from '../lib/i18n.js';
import { conversationOf, toolItems } from '../lib/tool-calls.js';
import { toolItem } from '../lib/tool-views.js';
import './lineup-tool-call.js';
import './lineup-tool-instance.js'; // tool calls are drawn by these (lib/tool-views.js)

const SHOWN = 20;

export class LineupToolActivity extends LineupElement {
  static properties = ['state'];

  render() {
    const { state } = this;
    if (!state?.tools) return '';
    const items = toolItems(state, (entry) => !conversationOf(entry, state)).reverse().slice(0, SHOWN);
    if (!items.length) return '';
    return html`<section class="inbox-section tool-activity" aria-labelledby="inbox-activity" data-section="inbox-activity">
      <h2 id="inbox-activity">${t('tool.activity')} <span class="count">${items.length}</span></h2>
      <p class="muted small">${t('tool.activityHint')}</p>
      <div class="tool-activity-list">${repeat(items, (item) => item.key, (item) => toolItem(item, state, 'activity', true))}</div>
    </section>`;
  }
}

LineupToolActivity.define('lineup-tool-activity');
