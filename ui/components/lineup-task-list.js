// Tasks filtered by all / running / waiting for me / done / cancelled (docs/design.md#inbox-and-task-lists), each with
// status and progress; New task, where people look for it.

import { html } from '../vendor/lit-html/lit-html.js';
import { repeat } from '../vendor/lit-html/directives/repeat.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, formatAgo } from '../lib/i18n.js';
import { TASK_FILTERS, taskStatusBadge, progressBar, taskSummary, waitsForAgent } from '../lib/status.js';
import { routeHref } from '../lib/router.js';

export function taskRow(task, state, { selected = false } = {}) {
  const agent = state.agents.find((a) => a.id === task.agentId);
  const lost = waitsForAgent(task, state);
  const summary = taskSummary(task, state);
  return html`<li class="task-row ${selected ? 'selected' : ''}">
    <button class="task-row-button" data-task-id=${task.id} aria-current=${selected ? 'true' : 'false'}
      @click=${(e) => e.currentTarget.dispatchEvent(new CustomEvent('lineup-task-open', { detail: { taskId: task.id }, bubbles: true }))}>
      <span class="task-row-main">
        <span class="task-row-title">${task.title}</span>
        <span class="task-row-status">${lost
          // One state, not "Running" beside "Connection lost": the task is kept and waits for its agent.
          ? html`<span class="badge tone-waiting lost-badge">${icon('offline')}<span>${t('task.waitsForAgent')}</span></span>`
          : taskStatusBadge(task)}</span>
      </span>
      ${task.progress !== null && task.progress !== undefined || task.status === 'running' ? html`<span class="task-row-progress">
        ${progressBar(task.progress, t('task.progressOf', { title: task.title }))}
        <span class="muted small">${task.progress ?? 0}%</span></span>` : ''}
      <span class="task-row-meta muted small">${summary ? html`<span class="task-row-summary">${summary}</span> · ` : ''}${agent?.name || ''} · ${formatAgo(task.updatedAt)}</span>
    </button>
  </li>`;
}

export class LineupTaskList extends LineupElement {
  static properties = ['state', 'filter', 'route'];

  constructor() {
    super();
    this.creating = false;
    this.addEventListener('lineup-new-task-close', () => this._create(false));
    this.addEventListener('lineup-task-create', () => { this.creating = false; this.requestUpdate(); });
  }

  /** Open or close the New task form (its code loads the first time it opens); focus goes back to the button. */
  _create(open) {
    this.creating = open;
    if (open) import('./lineup-new-task.js');
    this.requestUpdate();
    if (!open) requestAnimationFrame(() => this.querySelector('.new-task-open')?.focus());
  }

  updated() {
    const filters = this.querySelector('.filters');
    if (!filters) return;
    if (this._shownFilter !== this.filter) { // the current tab in view (a phone's row scrolls sideways)
      this._shownFilter = this.filter;
      const current = filters.querySelector('[aria-current="page"]');
      if (current && filters.scrollWidth > filters.clientWidth) {
        filters.scrollLeft = Math.max(0, current.offsetLeft - filters.offsetLeft - 24);
      }
    }
    this._edges(filters);
  }

  /** Which edge of the tab row has more tabs beyond it: that edge fades (styles/components.css). */
  _edges(filters) {
    filters.classList.toggle('more-before', filters.scrollLeft > 1);
    filters.classList.toggle('more-after', filters.scrollLeft + filters.clientWidth < filters.scrollWidth - 1);
  }

  render() {
    const { state } = this;
    if (!state) return '';
    const filter = this.filter in TASK_FILTERS ? this.filter : 'all';
    const statuses = TASK_FILTERS[filter];
    const top = state.tasks.filter((task) => !task.parentTaskId);
    const count = (name) => top.filter((task) => !TASK_FILTERS[name].length || TASK_FILTERS[name].includes(task.status)).length;
    const tasks = top.filter((task) => !statuses.length || statuses.includes(task.status));
    return html`<section class="view task-list" aria-labelledby="tasks-heading">
      <header class="view-head"><h1 id="tasks-heading">${t('nav.tasks')}</h1>
        <button type="button" class="button primary new-task-open" aria-expanded=${this.creating ? 'true' : 'false'}
          @click=${() => this._create(!this.creating)}>${icon('plus')}<span>${t('newTask.open')}</span></button></header>
      ${this.creating ? html`<lineup-new-task .state=${state}></lineup-new-task>` : ''}
      <nav class="filters" aria-label=${t('tasks.filters')} @scroll=${(e) => this._edges(e.currentTarget)}>
        ${Object.keys(TASK_FILTERS).map((name) => html`<a class="filter" href=${routeHref({ view: 'tasks', id: name === 'all' ? null : name, task: this.route?.task })}
          aria-current=${filter === name ? 'page' : 'false'} data-filter=${name}>${t(`tasks.filter.${name}`)}
          <span class="count">${count(name)}</span></a>`)}
      </nav>
      ${tasks.length ? html`<ul class="plain-list task-rows">
        ${repeat(tasks, (task) => task.id, (task) => taskRow(task, state, { selected: this.route?.task === task.id }))}
      </ul>` : html`<p class="muted empty">${state.loaded ? t(`tasks.empty.${filter}`) : t('app.loading')}</p>`}
    </section>`;
  }
}

LineupTaskList.define('lineup-task-list');
