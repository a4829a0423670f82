// Agents: online state and capabilities, rename, revoke, a diagnostics panel, and "connect my agent".

import { html } from '../vendor/lit-html/lit-html.js';
import { repeat } from '../vendor/lit-html/directives/repeat.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, tn, formatAgo, formatDateTime, formatTime } from '../lib/i18n.js';
import { relayed } from '../lib/api.js';
import { localCommand } from '../lib/commands.js';
import { TERMINAL_RUNTIMES, agentStatusBadge, capabilityName, lastStatusChange, reasonWord } from '../lib/status.js';
import { agentDiagnosis, offlineSince } from '../lib/diagnostics.js';
import { diagnosisBox, copyButton } from './lineup-connect-agent.js';

/** A command that wraps only at its spaces on a phone: each word kept whole ("claude-code" never split at its hyphen;
 * a word longer than the line still wraps, styles/components.css). Selecting it copies the same text. */
function commandWords(command) {
  return String(command).split(' ').map((word, n) => html`${n ? ' ' : ''}${word.length > 24 ? word
    : html`<span class="command-word">${word}</span>`}`);
}

export class LineupAgentList extends LineupElement {
  static properties = ['state'];

  constructor() {
    super();
    this.connecting = false;
    this.replacing = '';        // the agent "Pair again" opened the dialog for
    this.editing = new Map();   // agent id -> name being typed
    this.revoking = new Set();  // agent ids whose revoke awaits confirmation
    this.copied = '';
    this.presets = [];  // `lineup agents add` presets, served by the hub (hub/agents_add.py)
    this.addEventListener('lineup-pairing-close', () => {
      this.connecting = false;
      this.replacing = '';
      this.requestUpdate();
      requestAnimationFrame(() => this.querySelector('.connect-button')?.focus());
    });
  }

  connectedCallback() {
    super.connectedCallback();
    // The welcome card's "Connect my agent" (#/agents?connect) opens the pairing dialog itself: the newcomers of the
    // usability test went through the Agents page first and had to find the same button again.
    if (/[?&]connect\b/.test(window.location.hash)) {
      this.connecting = true;
      window.history.replaceState(null, '', '#/agents');
      requestAnimationFrame(() => this.querySelector('.connect-agent input, .connect-agent button')?.focus());
    }
    this.emit('lineup-agents-refresh'); // the stored list has the last connect; the hub knows the last heartbeat
    // Static and public (no token): the hub's list, so the app and `lineup agents add` never disagree.
    // Away from home the relay carries this read too (lib/api.js `relayed`).
    const relay = relayed();
    (relay ? relay('GET', '/-/agent-presets.json') : fetch('/-/agent-presets.json', { cache: 'no-store', credentials: 'omit' }))
      .then((r) => (r.ok ? r.json() : { presets: [] }))
      .then((body) => { this.presets = Array.isArray(body.presets) ? body.presets : []; this.requestUpdate(); })
      .catch(() => {});
  }

  _presets() {
    if (!this.presets.length) return '';
    return html`<section class="card agent-presets" aria-labelledby="agent-presets-heading">
      <h2 id="agent-presets-heading">${icon('agent')} ${t('agents.presets')}</h2>
      <p class="muted small">${t('agents.presetsIntro')}</p>
      <ul class="plain-list">${this.presets.map((p) => html`<li class="agent-preset" data-preset=${p.key}>
        <p><strong>${p.name}</strong> <code class="muted small">${p.package}</code></p>
        <div class="command-box"><pre class="command" tabindex="0">${commandWords(localCommand(this.state, p.command))}</pre>
          ${copyButton(localCommand(this.state, p.command), t('agents.presetCommand', { name: p.name }), this)}</div>
      </li>`)}</ul>
    </section>`;
  }

  render() {
    const { state } = this;
    if (!state) return '';
    const active = state.agents.filter((a) => !a.revokedAt);
    const revoked = state.agents.filter((a) => a.revokedAt);
    const showConnect = this.connecting || state.pairing;
    return html`<section class="view agents" aria-labelledby="agents-heading">
      <header class="view-head"><h1 id="agents-heading">${t('nav.agents')}</h1>
        ${showConnect ? '' : html`<button class="button primary connect-button" @click=${() => {
          this.connecting = true; this.requestUpdate();
          requestAnimationFrame(() => this.querySelector('.connect-agent input, .connect-agent button')?.focus());
        }}>${icon('plug')}<span>${t('agents.connect')}</span></button>`}
      </header>
      ${showConnect ? html`<lineup-connect-agent .pairing=${state.pairing} .agents=${state.agents} .state=${state}
        .replaces=${this.replacing}></lineup-connect-agent>` : ''}
      ${active.length ? html`<ul class="plain-list agent-cards">${repeat(active, (a) => a.id, (a) => this._agent(a, state))}</ul>`
        : html`<p class="muted empty">${t('agents.none')}</p>`}
      ${this._presets()}
      ${revoked.length ? html`<details class="revoked-agents"><summary>${t('agents.revoked', { n: revoked.length })}</summary>
        <ul class="plain-list">${revoked.map((a) => html`<li class="muted">${a.name} · ${t('agents.revokedAt', { time: formatDateTime(a.revokedAt) })}</li>`)}</ul>
      </details>` : ''}
      <p class="visually-hidden" role="status">${this.copied ? t('action.copied', { what: this.copied }) : ''}</p>
    </section>`;
  }

  /** "Pair again": its credential file is lost (another machine, a wiped folder); a code that pairs this agent again. */
  _pairAgain(agent) {
    return html`<button class="button pair-again-button" @click=${() => {
      if (this.state.pairing) this.emit('lineup-pairing-close'); // a code already shown was for something else
      this.connecting = true; this.replacing = agent.id;
      this.requestUpdate();
      requestAnimationFrame(() => this.querySelector('.connect-agent select[name="replaces"]')?.focus());
    }}>${icon('plug')}<span>${t('agents.pairAgain')}</span></button>`;
  }

  _agent(agent, state) {
    const editing = this.editing.has(agent.id);
    const change = lastStatusChange(agent.id, state);
    const wentAt = agent.status !== 'online' && change?.status === 'offline' ? change.at : '';
    const diagnosis = agentDiagnosis(agent, wentAt);
    const signedOff = agent.status === 'offline' && agent.statusReason === 'signed_off';
    const terminal = agent.status !== 'online' && TERMINAL_RUNTIMES.has(agent.runtime);
    // Online once and gone since (killed, its network): one sentence on the card, the details folded away.
    const away = agent.status !== 'online' && !terminal && Boolean(agent.lastHeartbeatAt) && diagnosis?.reason !== 'revoked';
    const running = state.tasks.filter((x) => x.agentId === agent.id && !x.parentTaskId && ['queued', 'running', 'waiting_for_human'].includes(x.status)).length;
    const headingId = `agent-${agent.id}`;
    return html`<li class="card agent-card" data-agent-id=${agent.id} data-status=${agent.status} aria-labelledby=${headingId}>
      <header class="agent-card-head">
        <h2 id=${headingId} class="agent-name">${icon('agent')} ${agent.name}</h2>
        ${agentStatusBadge(agent)}
      </header>
      <p class="muted small agent-facts">${agent.runtime ? html`<code class="agent-runtime">${agent.runtime}</code>${
        ' · '}` : ''}${[ // the runtime is the agent's own name for its program: code, not words; what is not known is left out
        agent.agentVersion ? t('agents.versionIs', { version: agent.agentVersion }) : '',
        agent.status === 'online' ? tn('agents.activeTasks', running)
          : terminal ? t('agents.betweenRuns')
          : away && !signedOff ? t('agents.offlineResumes', { time: formatTime(offlineSince(agent, wentAt)) })
          : agent.lastHeartbeatAt ? t('agents.lastSeen', { time: formatAgo(agent.lastHeartbeatAt) }) : t('agents.neverConnected'),
      ].filter(Boolean).join(' · ')}</p>
      ${(agent.capabilities || []).length ? html`<p class="chips" aria-label=${t('agent.capabilities')}>${agent.capabilities.map((c) => html`<span class="chip"
        data-capability=${c}>${capabilityName(c)}</span>`)}</p>` : ''}
      ${editing ? html`<form class="inline-form" @submit=${(e) => {
          e.preventDefault();
          const name = (this.editing.get(agent.id) || '').trim();
          if (name) this.emit('lineup-agent-rename', { agentId: agent.id, name });
          this.editing.delete(agent.id);
          this.requestUpdate();
        }}>
          <label class="field"><span>${t('agents.newName')}</span>
            <input maxlength="100" required .value=${this.editing.get(agent.id)} @input=${(e) => this.editing.set(agent.id, e.target.value)}></label>
          <button type="submit" class="button primary">${t('agents.saveName')}</button>
          <button type="button" class="button" @click=${() => { this.editing.delete(agent.id); this.requestUpdate(); }}>${t('action.cancel')}</button>
        </form>` : ''}
      ${this.revoking.has(agent.id) ? html`<div class="confirm-box" role="group" aria-label=${t('agents.revokeConfirm', { name: agent.name })}>
          <p>${icon('warning')} ${t('agents.revokeConfirm', { name: agent.name })}</p>
          <div class="button-row">
            <button class="button danger revoke-confirm" @click=${() => { this.revoking.delete(agent.id); this.emit('lineup-agent-revoke', { agentId: agent.id }); }}>${t('agents.revoke')}</button>
            <button class="button" @click=${() => { this.revoking.delete(agent.id); this.requestUpdate(); }}>${t('action.cancel')}</button>
          </div></div>` : ''}
      <div class="button-row">
        <button class="button primary" @click=${() => this.emit('lineup-conversation-start', { agentId: agent.id })}>${icon('chat')}<span>${t('agents.message')}</span></button>
        ${editing ? '' : html`<button class="button rename-button" @click=${() => {
          this.editing.set(agent.id, agent.name); this.requestUpdate();
          requestAnimationFrame(() => this.querySelector(`[data-agent-id="${agent.id}"] .inline-form input`)?.focus());
        }}>${t('agents.rename')}</button>`}
        ${agent.status === 'online' || away || terminal ? '' : this._pairAgain(agent)}
        <button class="button danger-outline revoke-button" @click=${() => {
          this.revoking.add(agent.id); this.requestUpdate();
          requestAnimationFrame(() => this.querySelector(`[data-agent-id="${agent.id}"] .revoke-confirm`)?.focus());
        }}>${t('agents.revoke')}</button>
      </div>
      <details class="diagnostics" ?open=${Boolean(diagnosis)}
        @toggle=${(e) => { if (e.target.open) this.emit('lineup-agents-refresh'); }}>
        <summary>${t('agents.diagnostics')}</summary>
        ${diagnosis ? diagnosisBox(diagnosis, this) : terminal
          ? html`<p class="small signed-off">${icon('offline')} ${t('agents.terminalCalm')}</p>`
          : signedOff ? html`<p class="small signed-off">${icon('offline')} ${t('agents.signedOff')}</p>`
          : html`<p class="small tone-text-success">${icon('succeeded')} ${t('agents.healthy')}</p>`}
        ${away ? html`<details class="agent-more"><summary>${t('agents.moreAbout')}</summary>${this._facts(agent, wentAt)}
          <div class="button-row">${this._pairAgain(agent)}</div></details>` : html`${this._facts(agent, wentAt)}
          ${terminal ? html`<div class="button-row">${this._pairAgain(agent)}</div>` : ''}`}
      </details>
    </li>`;
  }

  /** The agent's facts (state, when it went, paired): for an agent that went away, folded under "More about this
   * agent", as the box above already says what matters (newcomers read a five-row table before going on). */
  _facts(agent, wentAt) {
    return html`<dl class="kv small">
          <dt>${t('agent.state')}</dt><dd>${t(`agent.status.${agent.status || 'offline'}`)}${reasonWord(agent.statusReason) ? ` (${reasonWord(agent.statusReason)})` : ''}</dd>
          ${wentAt ? html`<dt>${t('agents.offlineSince')}</dt>
            <dd class="offline-since">${formatDateTime(wentAt)}</dd>` : ''}
          ${agent.lastHeartbeatAt ? html`<dt>${t('agents.lastSignOfLife')}</dt>
            <dd class="last-sign-of-life">${formatDateTime(agent.lastHeartbeatAt)}</dd>` : ''}
          <dt>${t('agents.pairedAt')}</dt><dd class="paired-at">${formatDateTime(agent.pairedAt || agent.createdAt)}</dd>
          ${agent.pairedAt && agent.pairedAt !== agent.createdAt ? html`<dt>${t('agents.firstPairedAt')}</dt>
            <dd class="first-paired-at">${formatDateTime(agent.createdAt)}</dd>` : ''}
          <dt>${t('card.detail.id')}</dt><dd class="mono">${agent.id}</dd>
        </dl>`;
  }
}

LineupAgentList.define('lineup-agent-list');
