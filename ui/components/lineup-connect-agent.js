// "Connect my agent" (docs/design.md#connecting-an-agent): a one-time code with its 10-minute countdown, the command to
// run, a live "waiting for the agent…" that turns into the agent's name, runtime, version, capabilities and online
// state.

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, formatCountdown } from '../lib/i18n.js';
import { agentStatusBadge } from '../lib/status.js';
import { pairingDiagnosis } from '../lib/diagnostics.js';
import { copyText } from '../lib/clipboard.js';
import { hubCommand } from '../lib/commands.js';

export function copyButton(text, label, host) {
  return html`<button type="button" class="button small copy-button" @click=${async (e) => {
    const button = e.currentTarget;
    const ok = await copyText(text);
    button.dataset.copied = ok ? 'true' : 'false';
    host.copied = ok ? label : '';
    host.requestUpdate();
    setTimeout(() => { delete button.dataset.copied; }, 2000);
  }}>${icon('copy')}<span>${t('action.copy')}</span><span class="visually-hidden">${label}</span></button>`;
}

export function diagnosisBox(diagnosis, host) {
  if (!diagnosis) return '';
  return html`<div class="diagnosis ${diagnosis.calm ? 'tone-box-waiting' : 'tone-box-danger'}" role=${diagnosis.calm ? 'status' : 'alert'}
      data-diagnostic-code=${diagnosis.code} data-calm=${diagnosis.calm ? 'true' : 'false'}>
    <p><strong>${icon(diagnosis.calm ? 'offline' : 'warning')} ${diagnosis.what}</strong></p>
    <p><strong>${t('diag.nextStep')}</strong> ${diagnosis.next}</p>
    <p class="diag-code"><span>${t('diag.code')}</span> <code>${diagnosis.code}</code> ${copyButton(diagnosis.text, t('diag.code'), host)}</p>
  </div>`;
}

// The hub answers a pairing code with the command for each (hub/web/accounts.py CONNECT_COMMANDS); the SDK gets a
// snippet of Python instead. The person's own agents first; the demo, which is nobody's agent, last and set apart.
const ADAPTERS = ['claude-code', 'codex', 'gemini', 'hermes', 'openclaw', 'sdk', 'demo'];
// The runtimes each adapter's agent reports (hub/connect/*.py, hub/sdk/demo.py): its earlier agents are offered first.
const RUNTIMES = { demo: ['demo'], 'claude-code': ['claude-code'], codex: ['mcp', 'codex'], gemini: ['mcp', 'gemini'],
  hermes: ['hermes'], openclaw: ['openclaw'], sdk: ['python-sdk'] };
// How an SDK program is kept running (hub/keep.py), on the agent's machine, where `lineup` is the SDK's own command.
// What to do once the command ran, for the adapters that connect a gateway already running (docs/agents.md).
const AFTERWARDS = { hermes: 'connect.after.hermes', openclaw: 'connect.after.openclaw' };

/** The agents a code may pair again (docs/protocol.md, pairing code `replacesAgentId`): every unrevoked agent of the
    workspace, the offline ones of the chosen adapter's runtime first, then the other offline ones, then the online. */
export function replaceableAgents(agents, adapter) {
  const runtimes = RUNTIMES[adapter] || [];
  const rank = (a) => (a.status === 'online' ? 2 : runtimes.includes(a.runtime) ? 0 : 1);
  return (agents || []).filter((a) => !a.revokedAt && a.status !== 'revoked')
    .map((a, i) => [rank(a), i, a]).sort((x, y) => x[0] - y[0] || x[1] - y[1]).map(([, , a]) => a);
}

/** The adapter an agent of this runtime was paired with, when only one reports it ("mcp" is Codex's or Gemini's):
    pairing it again with another adapter's command would make it another kind of agent. '' when not known, and the
    person chooses. */
export function adapterForRuntime(runtime) {
  const matches = ADAPTERS.filter((kind) => RUNTIMES[kind].includes(runtime));
  return matches.length === 1 ? matches[0] : '';
}

export class LineupConnectAgent extends LineupElement {
  static properties = ['pairing', 'agents', 'state', 'replaces'];

  constructor() {
    super();
    this.adapter = ''; // none chosen: the person says which agent is theirs (the demo was kept by default and run)
    this.name = '';
    this.rename = null;
    this.copied = '';
    this.replaces = '';  // the id of an existing agent the code pairs again ('' for a new agent)
    this._adapterOf = '';  // the agent `adapter` was last chosen for
  }

  // An agent chosen to pair again ("Pair again", "Which agent is this?") brings its own adapter, or none to choose.
  _followReplaced() {
    if (!this.replaces) { this._adapterOf = ''; return; }
    if (this.replaces === this._adapterOf) return;
    const agent = (this.agents || []).find((a) => a.id === this.replaces);
    if (!agent) return;
    this._adapterOf = this.replaces;
    this.adapter = adapterForRuntime(agent.runtime);
  }

  connectedCallback() {
    super.connectedCallback();
    this._timer = setInterval(() => {
      if (this.pairing && (this.pairing.status === 'waiting' || this.pairing.status === 'paired')) this.requestUpdate();
    }, 1000);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    clearInterval(this._timer);
  }

  // A new code is what the person came for: on a phone the panel grows above and below the button they pressed, and
  // the code ended up above the fold. Brought into view once per code (the countdown re-renders every second).
  updated() {
    const code = this.pairing?.status === 'waiting' ? this.pairing.code : '';
    if (!code || code === this._shownCode) return;
    this._shownCode = code;
    this.querySelector('.pairing-code-row')?.scrollIntoView({ block: 'center' });
  }

  _start(event) {
    event?.preventDefault();
    this.rename = null;
    const replaces = replaceableAgents(this.agents, this.adapter).some((a) => a.id === this.replaces) ? this.replaces : '';
    // An agent paired again keeps the name it has: the name field is for a new agent.
    this.emit('lineup-pairing-start', replaces ? { replacesAgentId: replaces } : { name: this.name.trim() || undefined });
  }

  render() {
    const pairing = this.pairing;
    this._followReplaced();
    return html`<section class="card connect-agent" aria-labelledby="connect-heading">
      <header class="section-head"><h2 id="connect-heading">${icon('plug')} ${t('agents.connect')}</h2>
        <button class="icon-button" @click=${() => this.emit('lineup-pairing-close')}>${icon('close')}<span class="visually-hidden">${t('action.close')}</span></button>
      </header>
      ${!pairing || pairing.status === 'idle' ? this._intro() : ''}
      ${pairing?.status === 'creating' ? html`<p role="status"><span class="spinner small" aria-hidden="true"></span> ${t('connect.creating')}</p>` : ''}
      ${pairing?.status === 'error' ? html`${diagnosisBox(pairingDiagnosis(pairing), this)}
        <button class="button primary" @click=${() => this._start()}>${t('action.tryAgain')}</button>` : ''}
      ${pairing?.status === 'waiting' ? this._waiting(pairing) : ''}
      ${pairing?.status === 'paired' ? this._paired(pairing) : ''}
      <p class="visually-hidden" role="status">${this.copied ? t('action.copied', { what: this.copied }) : ''}</p>
    </section>`;
  }

  _intro() {
    return html`<form class="connect-intro" @submit=${(e) => this._start(e)}>
      <p>${t('connect.intro')}</p>
      <fieldset class="choices"><legend>${t('connect.which')}</legend>
        ${ADAPTERS.map((kind) => html`<label class="choice ${kind === 'demo' ? 'choice-apart' : ''}"><input type="radio" name="adapter" value=${kind} required
          .checked=${this.adapter === kind} @change=${() => { this.adapter = kind; this.requestUpdate(); }}>
          <span class="choice-text"><span class="choice-label">${t(`connect.adapter.${kind}`)}</span>
          <span class="muted small">${t(`connect.adapter.${kind}.hint`)}</span></span></label>`)}
      </fieldset>
      ${this._replaces()}
      ${this.replaces ? '' : html`<label class="field"><span>${t('connect.nameOptional')}</span>
        <input name="name" maxlength="100" autocomplete="off" .value=${this.name} @input=${(e) => { this.name = e.target.value; }}></label>`}
      <button type="submit" class="button primary create-code">${icon('key')}<span>${t('connect.createCode')}</span></button>
    </form>`;
  }

  // "Pair it again as": for an agent whose credential file is lost; one that still has it keeps itself (the SDK
  // sends its stored credential along with the fresh code).
  _replaces() {
    const agents = replaceableAgents(this.agents, this.adapter);
    if (!agents.length) return '';
    return html`<div class="field replaces-field"><label for="connect-replaces">${t('connect.replaces')}</label>
      <select id="connect-replaces" name="replaces" aria-describedby="connect-replaces-hint"
        @change=${(e) => { this.replaces = e.target.value; this.requestUpdate(); }}>
        <option value="" ?selected=${!this.replaces}>${t('connect.replaces.new')}</option>
        ${agents.map((a) => html`<option value=${a.id} ?selected=${a.id === this.replaces}>${a.name} · ${t(`agent.status.${a.status || 'offline'}`)} · ${a.runtime || '—'}</option>`)}
      </select>
      <small id="connect-replaces-hint" class="muted">${t('connect.replaces.hint')}</small></div>`;
  }

  _waiting(pairing) {
    const remaining = Date.parse(pairing.expiresAt) - Date.now();
    const expired = remaining <= 0;
    // The hub's address for the agent's machine (its LAN address, also when this app runs on 127.0.0.1).
    const base = pairing.hubUrl || window.location.origin;
    const command = pairing.commands?.[this.adapter] || pairing.command;
    // An https hubUrl is the hub's TLS listener for agents, with a self-signed certificate the SDK pins (the
    // fingerprint), or the person's TLS proxy (an https public_url), whose certificate is checked as any site's.
    const pin = pairing.fingerprint ? `, tls_fingerprint="${pairing.fingerprint}"` : '';
    const snippet = `credential = await pair_or_load("${base}", "${pairing.code}", "my-agent.json", name="My agent"${pin})`;
    return html`<div class="pairing" data-pairing-status=${expired ? 'expired' : 'waiting'}>
      ${pairing.replacesAgentId ? html`<p class="replacing-line" role="note">${icon('agent')} ${t('connect.replacing', {
        name: (this.agents || []).find((a) => a.id === pairing.replacesAgentId)?.name || pairing.replacesAgentId })}</p>` : ''}
      <p class="muted">${t('connect.codeLabel')}</p>
      <p class="pairing-code-row"><code class="pairing-code">${pairing.code}</code>${copyButton(pairing.code, t('connect.codeLabel'), this)}</p>
      <p class="countdown ${remaining < 60000 ? 'tone-text-danger' : ''}" role="timer" aria-live="off">
        ${icon('clock')} ${expired ? t('connect.expired') : t('connect.expiresIn', { time: formatCountdown(remaining) })}</p>
      ${expired ? html`${diagnosisBox(pairingDiagnosis(pairing), this)}
        <button class="button primary" @click=${() => this._start()}>${t('connect.newCode')}</button>` : html`
      ${this.adapter === 'sdk' ? this._sdk(base, snippet, pairing.commands?.sdk || '') : html`
      <p>${command.includes('--dir ') ? t('connect.runInProject') : t('connect.runCommand')}</p>
      <div class="command-box"><pre class="command" tabindex="0">${command}</pre>
        ${copyButton(command, t('connect.command'), this)}</div>`}
      ${AFTERWARDS[this.adapter] ? html`<p class="small connect-afterwards">${t(AFTERWARDS[this.adapter])}</p>` : ''}
      ${this._transport(pairing)}
      <p class="waiting-line" role="status" aria-live="polite"><span class="spinner small" aria-hidden="true"></span>
        <span>${t('connect.waiting')}</span></p>
      ${pairing.otherDevices === false ? html`<div class="tone-box-waiting this-machine-only" role="note"><p>${icon('warning')} ${t('connect.thisMachineOnly', { command: hubCommand(this.state, 'serve --host 0.0.0.0', { dataDir: true, port: true }) })}</p></div>`
        : html`<p class="muted small">${t('connect.noInbound')}</p>`}`}
    </div>`;
  }

  /** Your own agent on the SDK: one line to copy, the keeper with the hub's address and the code in it, whose
   * program part alone is the person's (run 4 of the usability test: newcomers typed the keeper, the address and the
   * code as three things and asked which parts were theirs). How the program reads them, and giving them in its
   * code instead, are one tap away (the developer's part: the person who runs the agent reads the line alone). */
  _sdk(base, snippet, line) {
    return html`<p>${t('connect.sdkLine')}</p>
      <div class="command-box"><pre class="command keep-command" tabindex="0">${line}</pre>
        ${copyButton(line, t('connect.command'), this)}</div>
      <details class="sdk-snippet"><summary>${t('connect.runSdk')}</summary>
        <p class="small sdk-reads">${t('connect.sdkReads')}</p>
        <p class="pairing-code-row sdk-hub-address"><span class="muted small">${t('connect.hubAddress')}</span>
          <code class="hub-address">${base}</code>${copyButton(base, t('connect.hubAddress'), this)}</p>
        <div class="command-box"><pre class="command" tabindex="0">${snippet}</pre>
          ${copyButton(snippet, t('connect.command'), this)}</div></details>`;
  }

  // Whether the agent's credential and messages are encrypted on the way, as the hub says (agentTransport:
  // hub/web/addresses.py::for_agents); "local" (plain, this machine only) is covered by the this-machine-only note.
  _transport(pairing) {
    if (pairing.agentTransport === 'tls') {
      return html`<p class="muted small agent-transport" data-transport="tls">${icon('key')} ${t('connect.transportTls')}</p>`;
    }
    if (pairing.agentTransport === 'plain') {
      return html`<div class="tone-box-waiting agent-transport" role="note" data-transport="plain"><p>${icon('warning')} ${t('connect.transportPlain')}</p></div>`;
    }
    return '';
  }

  _paired(pairing) {
    const agent = (this.agents || []).find((a) => a.id === pairing.agentId);
    if (!agent) return html`<p role="status"><span class="spinner small" aria-hidden="true"></span> ${t('connect.pairedLoading')}</p>`;
    const online = agent.status === 'online';
    const name = this.rename ?? agent.name;
    return html`<div class="paired" data-agent-id=${agent.id} data-online=${online ? 'true' : 'false'}>
      <p class="paired-line" role="status" aria-live="polite">${icon('succeeded')} <strong>${online
        ? t('connect.connected', { name: agent.name }) : t('connect.pairedWaiting', { name: agent.name })}</strong></p>
      <dl class="kv agent-facts">
        <dt>${t('agent.name')}</dt><dd class="agent-name">${agent.name}</dd>
        <dt>${t('agent.state')}</dt><dd>${agentStatusBadge(agent)}</dd>
        <dt>${t('agent.runtime')}</dt><dd class="agent-runtime">${agent.runtime || '—'}</dd>
        <dt>${t('agent.version')}</dt><dd class="agent-version">${agent.agentVersion || '—'}</dd>
        <dt>${t('agent.capabilities')}</dt><dd class="agent-capabilities">${(agent.capabilities || []).length
          ? (agent.capabilities || []).map((c) => html`<span class="chip">${c}</span>`) : '—'}</dd>
      </dl>
      ${diagnosisBox(pairingDiagnosis(pairing, agent), this)}
      <form class="inline-form" @submit=${(e) => {
        e.preventDefault();
        if (name.trim() && name.trim() !== agent.name) this.emit('lineup-agent-rename', { agentId: agent.id, name: name.trim() });
        this.rename = null;
      }}>
        <label class="field"><span>${t('connect.confirmName')}</span>
          <input name="name" maxlength="100" .value=${name} @input=${(e) => { this.rename = e.target.value; }}></label>
        <button type="submit" class="button">${t('agents.saveName')}</button>
      </form>
      <div class="button-row">
        <button class="button primary" @click=${() => { this.emit('lineup-conversation-start', { agentId: agent.id }); this.emit('lineup-pairing-close'); }}>
          ${icon('chat')}<span>${t('agents.message')}</span></button>
        <button class="button" @click=${() => this.emit('lineup-pairing-close')}>${t('action.done')}</button>
      </div>
    </div>`;
  }
}

LineupConnectAgent.define('lineup-connect-agent');
