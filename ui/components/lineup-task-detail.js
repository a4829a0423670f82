// A task's detail: status and progress, whether it needs restarting, child tasks, interactions, artifacts, the
// event timeline, and "request cancel" (shown as requested until the agent confirms,
// docs/design.md#cancel-is-a-request).

import { html } from '../vendor/lit-html/lit-html.js';
import { repeat } from '../vendor/lit-html/directives/repeat.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, formatTime, formatDateTime } from '../lib/i18n.js';
import { TERMINAL, taskStatusBadge, agentStatusBadge, progressBar, isHubReachable, connectionLoss, deliveryNote, taskSummary, failedSentence, waitsForAgent } from '../lib/status.js';
import { artifactItem } from '../lib/artifacts.js';
import { interactionCard } from '../lib/cards.js';
import { timelineLines } from '../lib/timeline.js';
import { interactionCalls, toolItems } from '../lib/tool-calls.js';
import { toolItem } from '../lib/tool-views.js';
import { FirstView, scrollerOf } from '../lib/first-view.js';
import '../lib/markdown.js'; // <lineup-markdown .plain>: an agent's long description put into the page a little per frame
import './lineup-tool-call.js';
import './lineup-tool-instance.js'; // tool calls are drawn by these (lib/tool-views.js)


/** The agent's return, when it went offline and is online again: its last status change ({at}), else null. */
function cameBack(agent, state) {
  const changes = agent ? state?.presence?.[agent.id] || [] : [];
  const last = changes[changes.length - 1];
  return agent?.status === 'online' && last?.status === 'online' && changes.slice(0, -1).some((c) => c.status === 'offline')
    ? last : null;
}
export class LineupTaskDetail extends LineupElement {
  static properties = ['state', 'taskId'];

  constructor() {
    super();
    this.confirmCancel = false;
  }

  updated() {
    // Another task opened here starts at its top, not where the last one was scrolled to (the middle of its card), and
    // a card is first shown from its top (lib/first-view.js).
    this._firstView ??= new FirstView(this);
    if (this._viewedTask !== this.taskId) {
      this._viewedTask = this.taskId;
      const scroller = scrollerOf(this);
      if (scroller !== document.scrollingElement) scroller.scrollTop = 0;
      this._firstView.reset();
    }
    this._firstView.check();
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this._firstView?.disconnect();
    this._firstView = null;
  }

  render() {
    const { state, taskId } = this;
    if (!state) return '';
    if (!taskId) {
      return html`<div class="detail-empty muted"><p>${icon('tasks')}</p><p>${t('detail.empty')}</p></div>`;
    }
    if (this._shownTask !== taskId) {
      this._shownTask = taskId;
      this.confirmCancel = false;
      this._descriptionOpen = false;
    }
    const detail = state.taskDetails[taskId];
    const task = detail?.task || state.tasks.find((x) => x.id === taskId);
    const close = html`<button class="icon-button detail-close" @click=${() => this.emit('lineup-task-close')}>
      ${icon('close')}<span class="visually-hidden">${t('detail.close')}</span></button>`;
    if (!task) {
      return html`<div class="detail-inner">${close}
        ${detail?.error ? html`<p role="alert">${t('detail.notFound')}</p>`
          : html`<p class="muted" role="status"><span class="spinner small" aria-hidden="true"></span> ${t('app.loading')}</p>`}</div>`;
    }
    const agent = state.agents.find((a) => a.id === task.agentId);
    const children = detail?.children || state.tasks.filter((x) => x.parentTaskId === task.id);
    const interactions = detail?.interactions || state.interactions.filter((i) => i.taskId === task.id);
    // Its cards are keyed by the interaction's id (lit's repeat), as in every list of cards: a card's element, with its
    // open confirmation, its note and its passed gate, is never handed to another question (the next task's).
    const artifacts = detail?.artifacts || [];
    const timeline = timelineLines(detail, task, state);
    const summary = taskSummary(task, state, interactions);
    const asked = interactionCalls(state);
    const tools = toolItems(state, (entry) => entry.call.taskId === task.id, (id) => interactions.some((it) => it.id === id));
    return html`<article class="detail-inner" data-task-id=${task.id} data-status=${task.status} aria-labelledby="task-detail-heading">
      <header class="detail-head">
        <h2 id="task-detail-heading" tabindex="-1">${task.title}</h2>
        ${close}
      </header>
      <div class="detail-status">
        ${taskStatusBadge(task, { large: true })}
        <span class="detail-progress">${progressBar(task.progress, t('task.progressOf', { title: task.title }))}
          <strong class="progress-number">${task.progress ?? 0}%</strong></span>
        ${summary ? html`<p class="detail-summary">${summary === task.summary ? `“${summary}”` : summary}</p>` : ''}
        <p class="muted small">${icon('agent')} ${agent?.name || t('who.agent')} ${agent ? agentStatusBadge(agent) : ''}
          · ${t('detail.updated', { time: formatTime(task.updatedAt) })}</p>
      </div>
      ${this._restartVerdict(task, agent, state)}
      ${this._cancel(task, state)}
      ${task.description && task.description !== task.title ? html`<details class="detail-section" ?open=${this._descriptionOpen}
          @toggle=${(event) => { this._descriptionOpen = event.target.open; this.requestUpdate(); }}><summary>${t('detail.description')}</summary>
        <lineup-markdown class="detail-description" .plain=${true} .preview=${!this._descriptionOpen}
          .source=${task.description}></lineup-markdown></details>` : ''}
      ${interactions.length ? html`<section class="detail-section" aria-labelledby="detail-interactions">
        <h3 id="detail-interactions">${t('detail.interactions')}</h3>
        ${repeat(interactions, (it) => it.id, (it) => html`${asked.has(it.id) ? html`<lineup-tool-call .entry=${asked.get(it.id)} .state=${state}
          .linked=${true}></lineup-tool-call>` : ''}${interactionCard(it, state, 'detail')}${deliveryNote(it, state)}`)}</section>` : ''}
      ${tools.length ? html`<section class="detail-section" aria-labelledby="detail-tools">
        <h3 id="detail-tools">${t('tool.section')} <span class="count">${tools.length}</span></h3>
        ${tools.map((item) => toolItem(item, state, 'detail'))}</section>` : ''}
      <section class="detail-section" aria-labelledby="detail-children">
        <h3 id="detail-children">${t('detail.children')} <span class="count">${children.length}</span></h3>
        ${children.length ? html`<ul class="plain-list child-tasks">${children.map((child) => html`<li class="child-task" data-child-status=${child.status}>
          ${taskStatusBadge(child)}<span class="child-title">${child.title}${child.summary ? html`<span class="muted small child-summary">${child.summary}</span>` : ''}</span></li>`)}</ul>`
          : html`<p class="muted small">${t('detail.noChildren')}</p>`}
      </section>
      <section class="detail-section" aria-labelledby="detail-artifacts">
        <h3 id="detail-artifacts">${t('detail.artifacts')} <span class="count">${artifacts.length}</span></h3>
        ${artifacts.length ? html`<ul class="plain-list artifact-list">${artifacts.map((a) => artifactItem(a))}</ul>`
          : html`<p class="muted small">${t('detail.noArtifacts')}</p>`}
      </section>
      <details class="detail-section timeline" ?open=${window.matchMedia('(min-width: 900px)').matches}>
        <summary><h3>${t('detail.timeline')} <span class="count">${timeline.length}</span></h3></summary>
        <ol class="timeline-list">${timeline.map((line) => html`<li data-event-type=${line.type}>
          <time datetime=${line.at} title=${formatDateTime(line.at)}>${formatTime(line.at)}</time>
          <span>${line.text}</span></li>`)}</ol>
      </details>
    </article>`;
  }

  /** docs/design.md#an-agent-that-goes-away: after a disconnect, say plainly whether the task must be started again. */
  _restartVerdict(task, agent, state) {
    const lost = waitsForAgent(task, state);
    const restart = html`<button class="button primary restart-button" @click=${() => this.emit('lineup-task-restart', { task })}>
      ${icon('running')}<span>${t('detail.restart')}</span></button>`;
    let tone;
    let verdict;
    let body;
    let action = '';
    if (task.status === 'failed' && task.error?.code === 'agent_unreachable') {
      [tone, verdict, body, action] = ['danger', t('restart.yes'), t('restart.unreachable', { time: formatDateTime(task.connectionLostAt) || '' }), restart];
    } else if (task.status === 'failed') {
      [tone, verdict, body, action] = ['danger', t('restart.yes'), failedSentence(task), restart];
    } else if (task.status === 'cancelled') {
      [tone, verdict, body, action] = ['neutral', t('restart.cancelled'), t('restart.cancelledBody'), restart];
    } else if (task.status === 'succeeded') {
      return '';
    } else if (!isHubReachable()) {
      // The hub is down: what the agent does now is unknown, so no "connected and working on it", and no grace
      // period counted from a loss the hub told us of as it went (a stopping hub closes the agents' sockets first,
      // so the app often hears "connection lost" just before its own socket drops). The lost line above stays.
      [tone, verdict, body] = ['waiting', t('restart.unknown'), t('restart.hubUnreachable')];
    } else if (lost && task.status === 'waiting_for_human') {
      [tone, verdict, body] = ['waiting', t('restart.no'), t('restart.lostWaiting', { time: formatDateTime(task.connectionLostAt) })];
    } else if (lost) {
      [tone, verdict, body] = ['waiting', t('restart.notYet'), t('restart.lostRunning', { time: formatDateTime(task.connectionLostAt) })];
    } else if (agent && agent.status !== 'online') {
      [tone, verdict, body] = ['waiting', t('restart.no'), t('restart.agentAway', { agent: agent.name })];
    } else if (cameBack(agent, state)) {
      // Back after going away: say it carried on, from where, and that what was answered stands (a participant asked
      // "did it start over?" after every restart).
      const back = cameBack(agent, state);
      [tone, verdict, body] = ['neutral', t('restart.no'), t(task.progress !== null && task.progress !== undefined
        ? 'restart.resumedAt' : 'restart.resumed', { agent: agent.name, time: formatTime(back.at), progress: task.progress })];
    } else {
      [tone, verdict, body] = ['neutral', t('restart.no'), task.status === 'waiting_for_human' ? t('restart.waitingYou') : t('restart.working')];
    }
    return html`<section class="restart-verdict tone-box-${tone}" role="status" data-verdict=${verdict === t('restart.yes') ? 'restart' : 'keep'}
        data-connection-lost=${lost ? 'true' : 'false'}>
      ${lost ? this._lostLine(task, agent, state) : ''}
      <p><strong>${t('restart.question')}</strong> ${verdict}</p>
      <p class="small">${body}</p>
      ${lost || (agent && agent.status !== 'online') ? html`<p class="small"><a href="#/agents">${t('restart.diagnostics')}</a></p>` : ''}
      ${action}
    </section>`;
  }

  /** "Agent connection lost at 10:42:07 (when the hub noticed) · last sign of life 10:41:40 (its last heartbeat)". */
  _lostLine(task, agent, state) {
    const { noticedAt, lastSignOfLife } = connectionLoss(agent, state, task);
    return html`<p class="lost-line"><strong>${icon('offline')} ${noticedAt ? t('task.connectionLostAt', { time: formatTime(noticedAt) })
      : t('task.connectionLostNoTime')}</strong>${lastSignOfLife ? html` <span class="small lost-heartbeat">· ${t('task.lastSignOfLife',
      { time: formatTime(lastSignOfLife) })}</span>` : ''}</p>`;
  }

  _cancel(task, state) {
    if (TERMINAL.has(task.status)) return '';
    const sending = state.cancels[task.id];
    if (task.cancelRequestedAt || sending?.status === 'sent') {
      return html`<p class="cancel-state tone-box-waiting" role="status" data-cancel="requested">${icon('clock')}
        ${t('task.cancelRequestedLong', { time: formatTime(task.cancelRequestedAt) })}</p>`;
    }
    if (sending?.status === 'sending') {
      return html`<p class="cancel-state" role="status" data-cancel="sending"><span class="spinner small" aria-hidden="true"></span> ${t('task.cancelSending')}</p>`;
    }
    const failed = sending?.status === 'failed' ? html`<p class="field-error" role="alert">${sending.error?.message}</p>` : '';
    if (this.confirmCancel) {
      return html`<div class="confirm-box" role="group" aria-labelledby="cancel-q">
        <p id="cancel-q">${t('task.cancelConfirm')}</p>
        <div class="button-row">
          <button class="button danger cancel-confirm" @click=${() => { this.confirmCancel = false; this.emit('lineup-task-cancel', { taskId: task.id }); }}>
            ${t('task.requestCancel')}</button>
          <button class="button" @click=${() => { this.confirmCancel = false; this.requestUpdate(); }}>${t('task.keepRunning')}</button>
        </div>${failed}</div>`;
    }
    return html`<div class="button-row"><button class="button cancel-button" @click=${() => {
      this.confirmCancel = true; this.requestUpdate(); requestAnimationFrame(() => this.querySelector('.cancel-confirm')?.focus());
    }}>${icon('cancelled')}<span>${t('task.requestCancel')}</span></button></div>${failed}`;
  }
}

LineupTaskDetail.define('lineup-task-detail');
