// The base of every UI piece: properties in, lit-html rendering into the element, bubbling CustomEvents out.

import { render } from '../vendor/lit-html/lit-html.js';
import { onLanguageChange } from './i18n.js';

/**
 * Subclasses list their inputs in `static properties` and implement `render()`. Setting a property to a new
 * value schedules one re-render in a microtask; rendering goes into the element itself (no shadow root), so
 * the app's stylesheets and its CSS custom properties theme every piece, plugins' elements included.
 */
export class LineupElement extends HTMLElement {
  static properties = [];

  static define(tag) {
    for (const name of this.properties) {
      Object.defineProperty(this.prototype, name, {
        configurable: true,
        get() { return this._props?.[name]; },
        set(value) {
          this._props ??= {};
          if (Object.is(this._props[name], value)) return;
          this._props[name] = value;
          this.requestUpdate();
        },
      });
    }
    if (!customElements.get(tag)) customElements.define(tag, this);
    return this;
  }

  constructor() {
    super();
    this._props ??= {};
    this._updateScheduled = false;
    // A property set before the element was upgraded shadows the accessor: take it over.
    for (const name of this.constructor.properties) {
      if (Object.prototype.hasOwnProperty.call(this, name)) {
        const value = this[name];
        delete this[name];
        this[name] = value;
      }
    }
  }

  connectedCallback() {
    this._stopLanguage = onLanguageChange(() => this.requestUpdate());
    this.requestUpdate();
  }

  disconnectedCallback() {
    this._stopLanguage?.();
  }

  requestUpdate() {
    if (this._updateScheduled) return;
    this._updateScheduled = true;
    queueMicrotask(() => {
      this._updateScheduled = false;
      if (!this.isConnected) return;
      render(this.render(), this);
      this.updated?.();
    });
  }

  /** Fire a bubbling, composed event: the way a piece answers (`lineup-<noun>-<verb>`,
     docs/style.md#ui-pieces-and-their-events). */
  emit(name, detail = {}) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }

  render() {
    return '';
  }
}
