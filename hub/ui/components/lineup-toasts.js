// Toasts of notifications that arrive live (lib/notifications.js decides which): a polite live region, status
// by icon + word, "open" and "dismiss" buttons, Escape dismisses the focused toast. Questions and failures stay
// until dismissed or answered; the others leave after a while, unless the pointer or the focus is on them.

import { html } from '../vendor/lit-html/lit-html.js';
import { repeat } from '../vendor/lit-html/directives/repeat.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t } from '../lib/i18n.js';
import { currentToasts, describe, kindWord, lookOf, routeOf } from '../lib/notifications.js';
import { RISK_LEVELS } from '../lib/status.js';

const AUTO_DISMISS_MS = 10000;

export class LineupToasts extends LineupElement {
  static properties = ['state', 'route'];

  constructor() {
    super();
    this._timers = new Map();
    this._held = false;
  }

  connectedCallback() {
    super.connectedCallback();
    // How tall the toasts are, as --toasts-height on the page: where they sit over a pane's end (a phone's task
    // detail), the pane leaves that much room below its content, so its last lines can be scrolled out from under.
    this._size = new ResizeObserver(() => {
      document.documentElement.style.setProperty('--toasts-height', `${Math.ceil(this.getBoundingClientRect().height)}px`);
    });
    this._size.observe(this);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    for (const timer of this._timers.values()) clearTimeout(timer);
    this._timers.clear();
    this._size?.disconnect();
    document.documentElement.style.removeProperty('--toasts-height');
  }

  updated() {
    const toasts = this.state ? currentToasts(this.state.toasts, this.state) : [];
    const ids = new Set(toasts.map((x) => x.id));
    for (const [id, timer] of this._timers) {
      if (!ids.has(id) || this._held) {
        clearTimeout(timer);
        this._timers.delete(id);
      }
    }
    if (this._held) return;
    for (const toast of toasts) {
      if (lookOf(toast.note.kind).sticky || this._timers.has(toast.id)) continue;
      const left = Math.max(3000, AUTO_DISMISS_MS - (Date.now() - toast.shownAt));
      this._timers.set(toast.id, setTimeout(() => {
        this._timers.delete(toast.id);
        this.emit('lineup-toast-dismiss', { id: toast.id });
      }, left));
    }
  }

  _hold(held) {
    if (this._held === held) return;
    this._held = held;
    this.requestUpdate();
  }

  _dismiss(id, event) {
    // Keep the keyboard in the region: to the next toast's dismiss button, else back to the page.
    const item = event?.target?.closest?.('.toast');
    const hadFocus = item && item.contains(document.activeElement);
    const next = item?.nextElementSibling || item?.previousElementSibling;
    this.emit('lineup-toast-dismiss', { id });
    if (!hadFocus) return;
    requestAnimationFrame(() => {
      const target = next?.isConnected ? next.querySelector('.toast-dismiss') : document.getElementById('main');
      target?.focus();
      if (!next?.isConnected) this._hold(false);
    });
  }

  _onKey(event, id) {
    if (event.key !== 'Escape') return;
    event.stopPropagation();
    event.preventDefault();
    this._dismiss(id, event);
  }

  render() {
    const { state } = this;
    const toasts = state ? currentToasts(state.toasts, state) : [];
    return html`<div class="toasts" @mouseenter=${() => this._hold(true)} @mouseleave=${() => this._hold(false)}
        @focusin=${() => this._hold(true)}
        @focusout=${(e) => { if (!this.contains(e.relatedTarget)) this._hold(false); }}>
      <ol class="toast-list plain-list" aria-live="polite" aria-relevant="additions text" aria-label=${t('notify.regionLabel')}>
        ${repeat(toasts, (toast) => toast.id, (toast) => this._toast(toast, state))}
      </ol></div>`;
  }

  _toast({ id, note }, state) {
    const look = lookOf(note.kind);
    const words = describe(note, state);
    const route = routeOf(note, this.route || { view: 'inbox' });
    const opens = route?.task ? t('notify.openTask') : route?.view === 'agents' ? t('notify.openAgents') : t('notify.openInbox');
    return html`<li class="toast tone-${look.tone}" data-kind=${note.kind} data-notification-id=${id}
        @keydown=${(e) => this._onKey(e, id)}>
      <div class="toast-head">
        <span class="badge tone-${look.tone}" data-kind=${note.kind}>${icon(look.icon)}<span>${kindWord(note.kind)}</span></span>
        ${note.risk && note.kind === 'waiting_for_me' ? html`<span class="badge ${note.risk === 'high' ? 'tone-danger' : 'tone-neutral'}">
          ${icon(note.risk === 'high' ? 'warning' : 'queued')}<span>${t(`risk.${RISK_LEVELS.includes(note.risk) ? note.risk : 'medium'}`)}</span></span>` : ''}
        <button class="icon-button toast-dismiss" @click=${(e) => this._dismiss(id, e)}>
          ${icon('close')}<span class="visually-hidden">${t('notify.dismissNamed', { title: words.heading })}</span></button>
      </div>
      <p class="toast-heading">${words.heading}</p>
      ${words.text ? html`<p class="toast-text">${words.text}</p>` : ''}
      ${words.task ? html`<p class="toast-task muted small">${words.task}</p>` : ''}
      ${route ? html`<div class="button-row"><button class="button small primary toast-open"
        @click=${() => this.emit('lineup-toast-open', { id })}>${opens}</button></div>` : ''}
    </li>`;
  }
}

LineupToasts.define('lineup-toasts');
