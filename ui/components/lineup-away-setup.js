// Settings → "Use this phone away from home", step by step: is there a relay server and does it answer (the hub's
// `lineup relay check`, GET /api/relay/check, each line worded in the page's language by its code), does this device
// hold the access (set up below, in lineup-relay-settings), and how to see that it works. With no WuKongIM yet it
// says how to run one (docs/relay.md).

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t } from '../lib/i18n.js';
import { loadRelayCredentials } from '../lib/relay-access.js';

// The household recipe's first command (docs/relay.md "Running WuKongIM for one household").
const RUN_WUKONGIM = 'docker run -d --name wukongim --restart unless-stopped -p 5001:5001 -p 5200:5200 '
  + '-e WK_TOKENAUTHON=true -e WK_MANAGERTOKEN=<a long secret> -v wukongim:/root/wukongim wukongim/wukongim:v2.2.4';

/** A line of the check in the page's language: its code's words (GET /api/relay/check names each line it knows), else
 * the command's own English. */
function verdictWords(line) {
  return line.code ? t(`away.verdict.${line.code}`, line.params || {}) : line.text;
}

export class LineupAwaySetup extends LineupElement {
  static properties = ['state', 'api'];

  constructor() {
    super();
    this.check = { status: 'idle' };
  }

  connectedCallback() {
    super.connectedCallback();
    if (this.check.status === 'idle') queueMicrotask(() => this._check());
  }

  async _check() {
    if (!this.api || this.check.status === 'checking') return;
    this.check = { status: 'checking' };
    this.requestUpdate();
    try {
      this.check = { status: 'ready', ...(await this.api.get('/api/relay/check')) };
    } catch (error) {
      this.check = { status: 'error', error };
    }
    this.requestUpdate();
  }

  render() {
    const { state } = this;
    if (!state) return '';
    const c = this.check;
    const held = loadRelayCredentials(state.me?.workspace?.id);
    const failed = c.status === 'ready' && c.lines.some((l) => l.verdict === 'FAIL');
    const serverOk = c.status === 'ready' && c.configured && !failed;
    const relay = state.connection.mode === 'relay';
    const way = relay ? t('connection.throughRelay') : t('connection.direct');
    return html`<section class="card settings-section away-setup" aria-labelledby="settings-away"
        data-check=${c.status} data-server=${serverOk ? 'ok' : c.status === 'ready' ? (c.configured ? 'problem' : 'missing') : ''}>
      <h2 id="settings-away">${icon('phone')} ${t('away.title')}</h2>
      <p>${t('away.intro')}</p>
      <ol class="away-steps">
        <li class="away-step" data-step="server" data-done=${serverOk ? 'yes' : 'no'}>
          <strong>${t('away.stepServer')}</strong>
          ${this._server(c)}
          <button class="button small away-check" ?disabled=${c.status === 'checking'} @click=${() => this._check()}>
            ${c.status === 'checking' ? t('away.checking') : t('away.checkAgain')}</button></li>
        <li class="away-step" data-step="device" data-done=${held ? 'yes' : 'no'}>
          <strong>${t('away.stepDevice')}</strong>
          <p class="small">${held ? html`${icon('check')} ${t('away.deviceDone')}` : t('away.deviceTodo')}</p></li>
        <li class="away-step" data-step="try" data-done=${relay ? 'yes' : 'no'}>
          <strong>${t('away.stepTry')}</strong>
          <p class="small">${t('away.tryIt')}</p>
          <p class="small away-now">${t('away.now')} <strong>${way}</strong>${relay ? html` · ${t(state.connection.sealed
            ? 'connection.sealed' : 'connection.notSealed')}` : ''}</p></li>
      </ol>
    </section>`;
  }

  _server(c) {
    if (c.status === 'checking' || c.status === 'idle') {
      return html`<p class="muted small" role="status"><span class="spinner small" aria-hidden="true"></span> ${t('away.checking')}</p>`;
    }
    if (c.status === 'error') return html`<p class="field-error small" role="alert">${t('away.checkFailed', { error: c.error?.message || '' })}</p>`;
    if (!c.configured) {
      return html`<p class="small away-missing">${icon('warning')} ${t('away.missing')}</p>
        <pre class="away-recipe"><code>${RUN_WUKONGIM}</code></pre>
        <p class="muted small">${t('away.missingThen')}</p>`;
    }
    const failed = c.lines.filter((l) => l.verdict === 'FAIL');
    return html`<p class="small away-verdict">${failed.length ? html`${icon('warning')} ${t('away.serverProblem', { server: c.server })}`
      : html`${icon('check')} ${t('away.serverOk', { server: c.server })}`}</p>
      <ul class="plain-list small away-lines">${c.lines.map((l) => html`<li data-verdict=${l.verdict} data-code=${l.code || ''}>
        ${l.verdict === 'ok' ? icon('check') : l.verdict === 'FAIL' ? icon('warning') : icon('comment')}
        <span title=${l.text}>${verdictWords(l)}</span></li>`)}</ul>`;
  }
}

LineupAwaySetup.define('lineup-away-setup');
