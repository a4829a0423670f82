// New session (#/sessions/new), one step per screen for a phone in one hand: agent → project → where to work →
// mode and model → first message → Start. A project's remembered choices (GET /api/sessions/projects) fill the steps,
// so a session like the last one is two taps and the message (docs/design.md#sessions).

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, formatAgo } from '../lib/i18n.js';
import { autoBranch, errorWords, sessionApi } from '../lib/sessions.js';

const STEPS = ['agent', 'project', 'where', 'settings', 'message'];
const MODE_KINDS = new Set(['ask', 'accept_edits', 'plan', 'full_access', 'read_only', 'deny_unasked']);
const SEARCH_DELAY_MS = 250;

let files = null; // lib/files.js (the composer's upload), loaded when a file is attached
const loadFiles = async () => { files ??= await import('../lib/files.js'); return files; };

/** How to install an agent that is not on the hub's machine, in the person's language: its install command and the
 * lineup.toml key to set instead, as code (the hub's own English `install` for an older hub). */
function installHow(agent) {
  if (!agent.configKey) return agent.install;
  const parts = [];
  if (agent.missingProgram) parts.push(template('newSession.notOnPath', { program: agent.missingProgram }));
  if (agent.installCommand) parts.push(template('newSession.installWith', { command: agent.installCommand }));
  parts.push(template('newSession.orConfigure', { key: `[${agent.configKey}]` }));
  return parts.map((part, index) => html`${index ? ' ' : ''}${part}`);
}

/** A string whose one place holds code: `key`'s words around `<code>value</code>`. */
function template(key, values) {
  const [name, value] = Object.entries(values)[0];
  const [before, after = ''] = t(key, { [name]: '\u0000' }).split('\u0000');
  return html`${before}<code>${value}</code>${after}`;
}

function lastName(path) {
  return String(path || '').split('/').filter(Boolean).at(-1) || path;
}

export class LineupNewSession extends LineupElement {
  static properties = ['state', 'api'];

  constructor() {
    super();
    this._step = 'agent';
    this._agents = null;
    this._projects = null;
    this._query = '';
    this._worktrees = null;
    this._branches = null;
    this._error = null;
    this._busy = false;
    this._choice = { agent: null, project: null, where: 'folder', branch: '', from: '', worktree: '', mode: '',
      model: '', message: '' };
    this._attached = []; // [{file, name, size}]
  }

  connectedCallback() {
    super.connectedCallback();
    if (this._asked || !this.api) return;
    this._asked = true;
    this._load();
  }

  async _load() {
    try {
      const [agents, projects] = await Promise.all([sessionApi.agents(this.api), sessionApi.projects(this.api)]);
      this._agents = agents;
      this._projects = projects;
    } catch (error) {
      this._error = error;
    }
    this.requestUpdate();
  }

  _search(value) {
    this._query = value;
    clearTimeout(this._searchTimer);
    this._searchTimer = setTimeout(async () => {
      try {
        this._projects = await sessionApi.projects(this.api, this._query.trim());
        this._error = null;
      } catch (error) {
        this._error = error;
      }
      this.requestUpdate();
    }, SEARCH_DELAY_MS);
  }

  _agent() {
    return this._agents?.find((a) => a.key === this._choice.agent) || null;
  }

  _project() {
    return this._projects?.projects?.find((p) => p.path === this._choice.project) || this._chosenProject || null;
  }

  /** Steps that ask nothing of this agent and project are passed over; a step is counted until it is known to ask
   * nothing (no agent chosen yet: its settings count), so "Step n of m" never grows as the person goes on. */
  _steps() {
    const agent = this._agent();
    return STEPS.filter((step) => (step !== 'where' || this._project()?.git !== false)
      && (step !== 'settings' || !agent || agent.modes?.length || agent.models?.length));
  }

  _go(step) {
    this._step = step;
    this._error = null;
    if (step === 'where') this._loadWhere();
    this.requestUpdate();
    // The new step's heading takes the focus: a screen reader says where the person is; the page starts at its top.
    requestAnimationFrame(() => this.querySelector('#new-session-step')?.focus());
  }

  _next() {
    const steps = this._steps();
    this._go(steps[Math.min(steps.indexOf(this._step) + 1, steps.length - 1)]);
  }

  _back() {
    const steps = this._steps();
    const at = steps.indexOf(this._step);
    if (at <= 0) window.location.hash = '#/sessions';
    else this._go(steps[at - 1]);
  }

  _pickAgent(key) {
    if (this._choice.agent !== key) Object.assign(this._choice, { agent: key, mode: '', model: '' });
    this._next();
  }

  /** A project chosen: what its latest session chose fills the next steps (the agent's mode and model only when the
   * agent is the same one). */
  _pickProject(project, { again = false } = {}) {
    this._chosenProject = project;
    const remembered = project.remembered || {};
    this._choice.project = project.path;
    if (again && remembered.agent) this._choice.agent = remembered.agent;
    this._choice.where = project.git === false ? 'folder'
      : remembered.where === 'worktree' ? 'folder' : remembered.where || 'folder'; // an existing one is chosen anew
    this._choice.branch = '';
    this._choice.from = '';
    this._choice.worktree = '';
    if (remembered.agent === this._choice.agent) {
      this._choice.mode = remembered.mode || '';
      this._choice.model = remembered.model || '';
    }
    this._worktrees = null;
    this._branches = null;
    if (again) this._go('message');
    else this._next();
  }

  async _loadWhere() {
    const project = this._project();
    if (!project?.git || this._worktrees) return;
    try {
      const [worktrees, branches] = await Promise.all([sessionApi.worktrees(this.api, project.path),
        sessionApi.branches(this.api, project.path)]);
      this._worktrees = worktrees;
      this._branches = branches;
    } catch (error) {
      this._error = error;
    }
    this.requestUpdate();
  }

  _attach(event) {
    for (const file of event.target.files || []) this._attached.push({ file, name: file.name, size: file.size });
    event.target.value = '';
    loadFiles().then(() => this.requestUpdate());
    this.requestUpdate();
  }

  _body() {
    const c = this._choice;
    const body = { agent: c.agent, project: c.project, message: c.message.trim() };
    if (c.where === 'new_worktree') {
      body.where = { kind: 'new_worktree' };
      if (c.branch.trim()) body.where.branch = c.branch.trim();
      if (c.from) body.where.from = c.from;
    } else if (c.where === 'worktree') {
      body.where = { kind: 'worktree', path: c.worktree };
    } else {
      body.where = { kind: 'folder' };
    }
    if (c.mode) body.mode = c.mode;
    if (c.model) body.model = c.model;
    return body;
  }

  async _start(event) {
    event.preventDefault();
    const body = this._body();
    if (!body.message && !this._attached.length) {
      this._error = { message: t('newSession.needMessage') };
      this.requestUpdate();
      return;
    }
    this._busy = true;
    this._error = null;
    this.requestUpdate();
    try {
      if (this._attached.length) {
        const { uploadFile } = await loadFiles();
        body.attachments = [];
        for (const entry of this._attached) body.attachments.push({ fileId: (await uploadFile(entry.file)).fileId });
      }
      const started = await sessionApi.start(this.api, body);
      this.emit('lineup-session-started', started);
    } catch (error) {
      this._error = error;
      this._busy = false;
      this.requestUpdate();
    }
  }

  // ---- the steps ------------------------------------------------------------------------------------------

  _agentStep() {
    // The installed first: what can be tapped is at the thumb, the how-to-install rows below it.
    const agents = [...(this._agents || [])].sort((a, b) => Number(b.installed) - Number(a.installed));
    const again = (this._projects?.projects || []).filter((p) => p.remembered?.agent
      && agents.some((a) => a.key === p.remembered.agent && a.installed)).slice(0, 3);
    const name = (key) => agents.find((a) => a.key === key)?.name || key;
    return html`
      ${again.length ? html`<section class="pick-group" aria-labelledby="again-heading">
        <h3 id="again-heading" class="small-heading">${t('newSession.again')}</h3>
        <ul class="plain-list pick-list">${again.map((p) => html`<li><button type="button" class="pick again-pick"
            data-project=${p.path} @click=${() => this._pickProject(p, { again: true })}>
          <span class="pick-title">${p.name}</span>
          <span class="muted small">${name(p.remembered.agent)} · ${t(`newSession.where.${p.remembered.where || 'folder'}`)}${p.lastUsedAt
            ? ` · ${formatAgo(p.lastUsedAt)}` : ''}</span></button></li>`)}</ul></section>` : ''}
      <section class="pick-group" aria-labelledby="agents-heading">
        <h3 id="agents-heading" class="small-heading">${t('newSession.agents')}</h3>
        <ul class="plain-list pick-list">${agents.map((a) => html`<li>${a.installed
          ? html`<button type="button" class="pick agent-pick" data-agent=${a.key} aria-pressed=${this._choice.agent === a.key ? 'true' : 'false'}
              @click=${() => this._pickAgent(a.key)}><span class="pick-title">${icon('agent')} ${a.name}</span>
              <span class="muted small">${a.checking ? t('newSession.checking') : t('newSession.installed')}</span></button>`
          : html`<div class="pick not-installed" data-agent=${a.key}><span class="pick-title">${icon('agent')} ${a.name}</span>
              <span class="small">${t('newSession.notInstalled')} ${installHow(a)}</span></div>`}</li>`)}</ul>
      </section>`;
  }

  _projectStep() {
    const list = this._projects;
    const projects = list?.projects || [];
    return html`
      <label class="field"><span>${t('newSession.search')}</span>
        <input type="search" class="project-search" .value=${this._query} autocomplete="off"
          placeholder=${t('newSession.searchPlaceholder')} @input=${(e) => this._search(e.target.value)}></label>
      ${list?.roots?.length ? html`<p class="muted small">${t('newSession.roots', { roots: list.roots.join(', ') })}</p>` : ''}
      ${projects.length ? html`<ul class="plain-list pick-list">${projects.map((p) => html`<li><button type="button"
          class="pick project-pick" data-project=${p.path} @click=${() => this._pickProject(p)}>
        <span class="pick-title">${p.name}${p.dirty ? html` <span class="badge tone-waiting dirty-mark">${t('newSession.dirty')}</span>` : ''}</span>
        <span class="muted small mono pick-path">${p.path}</span>
        <span class="muted small">${p.git === false ? t('newSession.notGit') : p.branch ? t('session.onBranch', { branch: p.branch }) : ''}${p.lastUsedAt
          ? ` · ${t('newSession.lastUsed', { when: formatAgo(p.lastUsedAt) })}` : ''}</span></button></li>`)}</ul>`
        : html`<p class="muted empty">${list ? t('newSession.noProjects') : t('app.loading')}</p>`}
      ${list?.truncated ? html`<p class="muted small">${t('newSession.truncated')}</p>` : ''}`;
  }

  _whereStep() {
    const c = this._choice;
    const worktrees = (this._worktrees || []).filter((w) => !w.main);
    const radio = (value, label, body = '') => html`<label class="choice where-choice" data-where=${value}>
      <input type="radio" name="where" .checked=${c.where === value} @change=${() => { c.where = value; this.requestUpdate(); }}>
      <span class="choice-text"><span class="choice-label">${label}</span>${body}</span></label>`;
    return html`<fieldset class="choices">
      <legend>${t('newSession.whereLegend')}</legend>
      ${radio('folder', t('newSession.where.folder'), html`<span class="muted small mono">${c.project}</span>`)}
      ${radio('new_worktree', t('newSession.where.new_worktree'), html`<span class="muted small">${t('newSession.newWorktreeHelp')}</span>`)}
      ${c.where === 'new_worktree' ? html`<div class="where-details">
        <label class="field"><span>${t('newSession.branch')}</span>
          <input class="branch-input mono" .value=${c.branch} autocomplete="off" autocapitalize="off" spellcheck="false"
            placeholder=${autoBranch(c.message)} @input=${(e) => { c.branch = e.target.value; }}></label>
        <p class="muted small">${t('newSession.branchAuto')}</p>
        <label class="field"><span>${t('newSession.from')}</span>
          <select class="from-select" @change=${(e) => { c.from = e.target.value; }}>
            <option value="" ?selected=${!c.from}>${t('newSession.fromHead', { branch: this._project()?.branch || 'HEAD' })}</option>
            ${(this._branches || []).map((b) => html`<option value=${b} ?selected=${c.from === b}>${b}</option>`)}
          </select></label></div>` : ''}
      ${radio('worktree', t('newSession.where.worktree'), html`<span class="muted small">${this._worktrees
        ? t('newSession.worktreeCount', { n: worktrees.length }) : t('app.loading')}</span>`)}
      ${c.where === 'worktree' ? html`<div class="where-details"><ul class="plain-list pick-list">${worktrees.map((w) => html`<li>
        <label class="choice worktree-choice ${w.usable ? '' : 'unusable'}" data-path=${w.path}>
          <input type="radio" name="worktree" ?disabled=${!w.usable} .checked=${c.worktree === w.path}
            @change=${() => { c.worktree = w.path; this.requestUpdate(); }}>
          <span class="choice-text"><span class="choice-label mono">${w.branch || t('newSession.detached')}</span>
            ${w.dirty ? html`<span class="badge tone-waiting dirty-mark">${t('newSession.dirty')}</span>` : ''}
            <span class="muted small mono">${w.path}</span>
            ${w.usable ? '' : html`<span class="small">${t('newSession.outsideRoots')}</span>`}</span></label></li>`)}</ul>
        ${worktrees.length ? '' : html`<p class="muted small">${t('newSession.noWorktrees')}</p>`}</div>` : ''}
    </fieldset>
    <button type="button" class="button primary wide step-next" ?disabled=${c.where === 'worktree' && !c.worktree}
      @click=${() => this._next()}>${t('newSession.next')}</button>`;
  }

  _settingsStep() {
    const agent = this._agent();
    const c = this._choice;
    const modes = agent?.modes || [];
    const models = agent?.models || [];
    const chosen = modes.find((m) => m.id === c.mode);
    return html`
      ${modes.length ? html`<fieldset class="choices mode-choices"><legend>${t('newSession.mode')}</legend>
        ${modes.map((m) => html`<label class="choice mode-choice" data-mode=${m.id} data-kind=${m.kind || ''}>
          <input type="radio" name="mode" .checked=${(c.mode || modes[0].id) === m.id}
            @change=${() => { c.mode = m.id; this.requestUpdate(); }}>
          <span class="choice-text"><span class="choice-label">${MODE_KINDS.has(m.kind) ? t(`newSession.kind.${m.kind}`) : m.name}</span>
            ${MODE_KINDS.has(m.kind) && m.name ? html`<span class="muted small">${m.name}</span>` : ''}</span></label>`)}
      </fieldset>` : ''}
      ${chosen?.kind === 'full_access' ? html`<p class="tone-box-danger full-access-warning" role="alert">${icon('warning')}
        ${t('newSession.fullAccessWarning')}</p>` : ''}
      ${models.length ? html`<label class="field"><span>${t('newSession.model')}</span>
        <select class="model-select" @change=${(e) => { c.model = e.target.value; }}>
          ${models.map((m) => html`<option value=${m.id} ?selected=${(c.model || models[0].id) === m.id}>${m.name || m.id}</option>`)}
        </select></label>` : ''}
      ${agent?.offeredAt ? '' : html`<p class="muted small">${t('newSession.offersUsual')}</p>`}
      <button type="button" class="button primary wide step-next" @click=${() => this._next()}>${t('newSession.next')}</button>`;
  }

  _messageStep() {
    const c = this._choice;
    const agent = this._agent();
    const where = c.where === 'new_worktree' ? t('newSession.summaryWorktree', { branch: c.branch.trim() || autoBranch(c.message) })
      : c.where === 'worktree' ? t('newSession.summaryExisting', { path: c.worktree }) : t('newSession.where.folder');
    const mode = agent?.modes?.find((m) => m.id === c.mode);
    return html`<form class="input-form" @submit=${(e) => this._start(e)}>
      <dl class="kv new-session-summary">
        <dt>${t('newSession.agent')}</dt><dd>${agent?.name || c.agent}</dd>
        <dt>${t('newSession.project')}</dt><dd class="mono">${lastName(c.project)}</dd>
        <dt>${t('newSession.whereShort')}</dt><dd class="summary-where">${where}</dd>
        ${mode ? html`<dt>${t('newSession.mode')}</dt><dd>${MODE_KINDS.has(mode.kind) ? t(`newSession.kind.${mode.kind}`) : mode.name}</dd>` : ''}
      </dl>
      ${mode?.kind === 'full_access' ? html`<p class="tone-box-danger full-access-warning">${icon('warning')} ${t('newSession.fullAccessWarning')}</p>` : ''}
      <label class="field"><span>${t('newSession.message')}</span>
        <textarea class="first-message" rows="5" .value=${c.message} placeholder=${t('newSession.messagePlaceholder')}
          @input=${(e) => { c.message = e.target.value; this.requestUpdate(); }}></textarea></label>
      <div class="attach-row">
        <label class="button small ghost attach-button">${icon('attach')}<span>${t('newSession.attach')}</span>
          <input type="file" class="visually-hidden" multiple @change=${(e) => this._attach(e)}></label>
        ${this._attached.map((entry, index) => html`<span class="attached-file small">${icon('file')} ${entry.name}
          ${files ? html`<span class="muted">${files.formatSize(entry.size)}</span>` : ''}
          <button type="button" class="icon-button" title=${t('newSession.remove', { name: entry.name })}
            @click=${() => { this._attached.splice(index, 1); this.requestUpdate(); }}>${icon('close')}<span
            class="visually-hidden">${t('newSession.remove', { name: entry.name })}</span></button></span>`)}
      </div>
      ${agent?.takes && !agent.takes.image ? html`<p class="muted small">${t('newSession.noImages')}</p>` : ''}
      <button type="submit" class="button primary wide start-session" ?disabled=${this._busy}>${this._busy
        ? html`<span class="spinner small" aria-hidden="true"></span>` : icon('play')}<span>${t('newSession.start')}</span></button>
    </form>`;
  }

  render() {
    if (!this.state) return '';
    const steps = this._steps();
    const at = steps.indexOf(this._step) + 1;
    const body = !this._agents ? html`<p class="muted" role="status"><span class="spinner small" aria-hidden="true"></span> ${t('app.loading')}</p>`
      : this._step === 'agent' ? this._agentStep()
        : this._step === 'project' ? this._projectStep()
          : this._step === 'where' ? this._whereStep()
            : this._step === 'settings' ? this._settingsStep() : this._messageStep();
    return html`<section class="view new-session" aria-labelledby="new-session-heading" data-step=${this._step}>
      <header class="view-head">
        <button type="button" class="icon-button step-back" @click=${() => this._back()}>${icon('back')}<span
          class="visually-hidden">${t('action.back')}</span></button>
        <h1 id="new-session-heading">${t('session.new')}</h1>
      </header>
      <h2 id="new-session-step" class="step-heading" tabindex="-1">${t('newSession.stepOf', { n: Math.max(at, 1), total: steps.length })}
        ${t(`newSession.step.${this._step}`)}</h2>
      ${this._error ? html`<p class="tone-box-danger new-session-error" role="alert">${icon('warning')} ${errorWords(this._error)}</p>` : ''}
      ${body}
    </section>`;
  }
}

LineupNewSession.define('lineup-new-session');
