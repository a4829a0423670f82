// Toasts of notifications that arrive live (lib/notifications.js decides which): a polite live region, status
// by icon + word, "open" and "dismiss" buttons, Escape dismisses the focused toast. Every toast leaves after a while
// (unless the pointer or the focus is on it), and at once when it says nothing true any more (the question was
// answered elsewhere, the agent is back) or when what it announces is on the screen already.
//
// Where: over the top bar, one at a time, no taller than the bar (styles/components.css): nothing in the page moves
// when one comes or goes, and none lies on the page's headers, cards or buttons.

import { html } from '../vendor/lit-html/lit-html.js';
import { repeat } from '../vendor/lit-html/directives/repeat.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t } from '../lib/i18n.js';
import { currentToasts, describe, kindWord, lookOf, routeOf } from '../lib/notifications.js';

export class LineupToasts extends LineupElement {
  static properties = ['state', 'route'];

  constructor() {
    super();
    this._timers = new Map();
    this._held = false;
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    for (const timer of this._timers.values()) clearTimeout(timer);
    this._timers.clear();
  }

  updated() {
    const all = this.state?.toasts || [];
    const toasts = this.state ? currentToasts(all, this.state, this.route) : [];
    const ids = new Set(toasts.map((x) => x.id));
    // Stale, or its card already on the screen: withdrawn for good (not shown later, once the person looks away).
    for (const toast of all) if (!ids.has(toast.id)) this.emit('lineup-toast-dismiss', { id: toast.id });
    for (const [id, timer] of this._timers) {
      if (!ids.has(id) || this._held) {
        clearTimeout(timer);
        this._timers.delete(id);
      }
    }
    if (this._held) return;
    for (const toast of toasts) {
      if (this._timers.has(toast.id)) continue;
      const left = Math.max(3000, lookOf(toast.note.kind).lingerMs - (Date.now() - toast.shownAt));
      this._timers.set(toast.id, setTimeout(() => {
        this._timers.delete(toast.id);
        this.emit('lineup-toast-dismiss', { id: toast.id });
      }, left));
    }
  }

  /** Held while the mouse moves over the toasts or the focus is in them; `how` is 'pointer' or 'focus'. A pointer
   * that only rests where a toast appears (the menu link just tapped, on a phone) holds nothing. */
  _hold(held, how = 'focus') {
    this._holds ??= new Set();
    if (held) this._holds.add(how); else this._holds.delete(how);
    if (this._held === this._holds.size > 0) return;
    this._held = this._holds.size > 0;
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
    const toasts = state ? currentToasts(state.toasts, state, this.route) : [];
    return html`<div class="toasts ${toasts.length ? 'has-toasts' : ''}" @pointermove=${(e) => { if (e.pointerType === 'mouse') this._hold(true, 'pointer'); }}
        @pointerleave=${() => this._hold(false, 'pointer')}
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
    const whole = [words.heading, words.text, words.task].filter(Boolean).join(' · ');
    return html`<li class="toast tone-${look.tone}" data-kind=${note.kind} data-notification-id=${id}
        @keydown=${(e) => this._onKey(e, id)}>
      <span class="badge tone-${look.tone}" data-kind=${note.kind}>${icon(look.icon)}<span class="visually-hidden">${kindWord(note.kind)}</span></span>
      <p class="toast-words" title=${whole}><span class="toast-heading">${words.heading}</span>${
        words.text ? html` · <span class="toast-text">${words.text}</span>` : ''}${
        words.task ? html` · <span class="toast-task muted">${words.task}</span>` : ''}</p>
      ${route ? html`<button class="button small primary toast-open"
        @click=${() => this.emit('lineup-toast-open', { id })}>${opens}</button>` : ''}
      <button class="icon-button toast-dismiss" @click=${(e) => this._dismiss(id, e)}>
        ${icon('close')}<span class="visually-hidden">${t('notify.dismissNamed', { title: words.heading })}</span></button>
    </li>`;
  }
}

LineupToasts.define('lineup-toasts');
