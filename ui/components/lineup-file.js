// <lineup-file>: a file stored on the hub, shown where it is attached (an artifact, a message). An image is shown
// inline (bounded; a click opens it full screen), a text or Markdown file is shown inline (Markdown rendered through
// <lineup-markdown>: in its worker, within its time budget), a PDF opens in a new tab of the browser's own viewer (and
// downloads), anything else is a download. The bytes are fetched with
// the app's token once the file is near the screen (lib/files.js). `.file = {id, name, mimeType, size?}`; `.named`:
// say the file's name (an attachment; an artifact names itself).

import { html, nothing } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t } from '../lib/i18n.js';
import { fileBlob, fileText, formatSize, kindOf, openFile, saveFile, TEXT_PREVIEW_BYTES } from '../lib/files.js';
import '../lib/markdown.js';

const LONG_CHARS = 2400; // a text longer than this is shown folded, with "Show more" (as a long message)
const LONG_LINES = 24;

function isLong(text) {
  if (text.length > LONG_CHARS) return true;
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1 && lines <= LONG_LINES; at = text.indexOf('\n', at + 1)) lines += 1;
  return lines > LONG_LINES;
}

export class LineupFile extends LineupElement {
  static properties = ['file', 'named'];

  constructor() {
    super();
    this._for = null; // the file id the state below belongs to
    this._reset();
    this._seen = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) {
        this._seen.disconnect();
        this._load();
      }
    }, { rootMargin: '300px' });
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this._seen.disconnect();
  }

  _reset() {
    this._state = 'idle';
    this._url = null;
    this._text = null;
    this._truncated = false;
    this._error = null;
    this._open = false;
    this._saving = null;
  }

  updated() {
    const id = this.file?.id;
    if (id !== this._for) {
      this._for = id;
      this._reset();
      this.requestUpdate();
      return;
    }
    if (this._state === 'idle' && !['other', 'pdf'].includes(kindOf(this.file?.mimeType))) {
      this._state = 'waiting';
      this._seen.observe(this);
    }
  }

  async _load() {
    const file = this.file;
    if (!file || this._state === 'loading' || this._state === 'ready') return;
    this._state = 'loading';
    this.requestUpdate();
    try {
      if (kindOf(file.mimeType) === 'image') {
        this._url = (await fileBlob(file.id)).url;
      } else {
        const read = await fileText(file.id, TEXT_PREVIEW_BYTES);
        this._text = read.text;
        this._truncated = read.truncated;
      }
      if (this.file?.id === file.id) this._state = 'ready';
    } catch (error) {
      if (this.file?.id !== file.id) return;
      this._state = 'failed';
      this._error = error;
    }
    this.requestUpdate();
  }

  _retry() {
    this._state = 'idle';
    this._error = null;
    this._seen.disconnect();
    this._load();
  }

  async _save() {
    this._saving = 'saving';
    this.requestUpdate();
    try {
      await saveFile(this.file.id, this.file.name);
      this._saving = null;
    } catch (error) {
      this._saving = error;
    }
    this.requestUpdate();
  }

  async _openInTab() {
    this._saving = 'saving';
    this.requestUpdate();
    try {
      await openFile(this.file.id, this.file.mimeType);
      this._saving = null;
    } catch (error) {
      this._saving = error;
    }
    this.requestUpdate();
  }

  _viewer(show) {
    const dialog = this.querySelector('dialog.file-viewer');
    if (!dialog) return;
    if (show) {
      dialog.showModal();
      dialog.querySelector('.file-viewer-close')?.focus();
    } else dialog.close();
  }

  render() {
    const file = this.file;
    if (!file?.id) return '';
    const kind = kindOf(file.mimeType);
    const name = file.name || t('artifact.unnamed');
    const size = file.size != null ? formatSize(file.size) : '';
    const failedSave = this._saving && this._saving !== 'saving' ? this._saving : null;
    return html`<div class="file" data-file-id=${file.id} data-kind=${kind} data-state=${this._state}>
      <div class="file-head">
        ${this.named ? html`<span class="file-name">${icon('file')}<span>${name}</span></span>` : ''}
        ${size ? html`<span class="muted small file-size">${size}</span>` : ''}
        <span class="file-actions">
          ${kind === 'image' && this._url ? html`<button type="button" class="artifact-link link-button file-open"
            @click=${() => this._viewer(true)}>${icon('external')}<span>${t('file.fullScreen')}</span>
            <span class="visually-hidden">${name}</span></button>` : ''}
          ${kind === 'pdf' ? html`<button type="button" class="artifact-link link-button file-open"
            ?disabled=${this._saving === 'saving'} @click=${() => this._openInTab()}>${icon('external')}<span>${t('artifact.open')}</span>
            <span class="visually-hidden">${name}</span></button>` : ''}
          <button type="button" class="artifact-link link-button file-download" ?disabled=${this._saving === 'saving'}
            @click=${() => this._save()}>${icon('download')}<span>${t('artifact.download')}</span>
            <span class="visually-hidden">${name}</span></button>
        </span>
      </div>
      ${failedSave ? html`<p class="field-error small" role="alert">${t('file.failed', { name, message: failedSave.message })}</p>` : ''}
      ${this._body(kind, name)}
      ${kind === 'image' && this._url ? html`<dialog class="file-viewer" aria-label=${name}
          @click=${(event) => { if (event.target === event.currentTarget) this._viewer(false); }}>
        <button type="button" class="icon-button file-viewer-close" @click=${() => this._viewer(false)}>
          ${icon('close')}<span class="visually-hidden">${t('action.close')}</span></button>
        <img src=${this._url} alt=${name}>
      </dialog>` : ''}
    </div>`;
  }

  _body(kind, name) {
    if (kind === 'other' || kind === 'pdf') return nothing;
    if (this._state === 'failed') {
      return html`<p class="file-failed small" role="alert">${icon('warning')} ${t('file.failed', { name, message: this._error?.message || '' })}
        <button type="button" class="button small" @click=${() => this._retry()}>${t('action.tryAgain')}</button></p>`;
    }
    if (this._state !== 'ready') {
      return html`<p class="file-loading muted small" role="status"><span class="spinner small" aria-hidden="true"></span>
        ${t('file.loading', { name })}</p>`;
    }
    if (kind === 'image') {
      return html`<button type="button" class="file-thumb" @click=${() => this._viewer(true)}
          aria-label=${t('file.openImage', { name })}><img class="file-image" src=${this._url} alt=${name}
          decoding="async"></button>`;
    }
    const long = isLong(this._text);
    const folded = long && !this._open;
    return html`<div class="file-text ${folded ? 'collapsed' : ''}">
        <lineup-markdown class=${kind === 'markdown' ? 'md' : 'file-plain'} .plain=${kind !== 'markdown'}
          .preview=${folded} .source=${this._text}></lineup-markdown></div>
      ${long ? html`<button type="button" class="button small ghost show-more" aria-expanded=${this._open ? 'true' : 'false'}
        @click=${() => { this._open = !this._open; this.requestUpdate(); }}>${this._open ? t('message.showLess') : t('message.showMore')}</button>` : ''}
      ${this._truncated ? html`<p class="muted small" role="note">${t('file.truncated', { size: formatSize(TEXT_PREVIEW_BYTES) })}</p>` : ''}`;
  }
}

LineupFile.define('lineup-file');
