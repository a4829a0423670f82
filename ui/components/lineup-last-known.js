// The mark over a screen that shows what this device kept (lib/last-known.js) while the hub is out of reach:
// "Last known state, 12 minutes ago — the hub is out of reach". Gone as soon as the hub answers.

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, formatAgo, formatDateTime } from '../lib/i18n.js';

const AGE_REFRESH_MS = 30_000;

export class LineupLastKnown extends LineupElement {
  static properties = ['state'];

  connectedCallback() {
    super.connectedCallback();
    this._timer = setInterval(() => { if (this.state?.lastKnown) this.requestUpdate(); }, AGE_REFRESH_MS);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    clearInterval(this._timer);
  }

  render() {
    const savedAt = this.state?.lastKnown?.savedAt;
    if (!savedAt) return '';
    return html`<div class="last-known-mark" role="status" data-saved-at=${savedAt}>
      ${icon('clock')}<span><strong>${t('lastKnown.mark', { age: formatAgo(savedAt) })}</strong>
        <span class="muted small">${t('lastKnown.hint', { time: formatDateTime(savedAt) })}</span></span></div>`;
  }
}

LineupLastKnown.define('lineup-last-known');
