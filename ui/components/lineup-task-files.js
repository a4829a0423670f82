// <lineup-task-files>: an agent's files on its task's card in the conversation, as chips under the card (the task
// list's `files` and `fileCount`, hub/web/reads.py). A chip opens its file in a tab of its own (a PDF, an image, text:
// lib/files.js openFile, which opens the tab in the tap's own turn) or saves it (any other kind); "+N more" opens the
// task, whose detail shows them all. Loaded the first time a task with files is shown (lib/artifacts.js), with
// lib/files.js, so no chip waits for a module when tapped. `.task = {id, files: [{fileId, name, mimeType}], fileCount}`.

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t } from '../lib/i18n.js';
import { kindOf, openFile, saveFile } from '../lib/files.js';

const OPENED = new Set(['pdf', 'image', 'text', 'markdown']); // shown by the browser; the rest is saved

export class LineupTaskFiles extends LineupElement {
  static properties = ['task'];

  constructor() {
    super();
    this._busy = null; // the file id being opened or saved
    this._problem = null; // { name, message } of the last one that could not be
  }

  async _use(file) {
    this._busy = file.fileId;
    this._problem = null;
    this.requestUpdate();
    try {
      if (OPENED.has(kindOf(file.mimeType))) await openFile(file.fileId, file.mimeType);
      else await saveFile(file.fileId, file.name);
    } catch (error) {
      this._problem = { name: file.name, message: error?.message || '' };
    }
    this._busy = null;
    this.requestUpdate();
  }

  render() {
    const task = this.task;
    const files = Array.isArray(task?.files) ? task.files : [];
    if (!files.length) return '';
    const more = Math.max(0, (task.fileCount || files.length) - files.length);
    return html`<ul class="task-files" aria-label=${t('taskFiles.label', { title: task.title || '' })}>
        ${files.map((file) => {
          const opens = OPENED.has(kindOf(file.mimeType));
          const name = file.name || t('artifact.unnamed');
          return html`<li><button type="button" class="file-chip" data-file-id=${file.fileId}
              data-action=${opens ? 'open' : 'download'} ?disabled=${this._busy === file.fileId}
              aria-label=${t(opens ? 'taskFiles.open' : 'taskFiles.download', { name })} title=${name}
              @click=${() => this._use(file)}>${icon(opens ? 'file' : 'download')}<span>${name}</span></button></li>`;
        })}
        ${more ? html`<li><button type="button" class="file-chip file-chip-more"
            @click=${() => this.emit('lineup-task-open', { taskId: task.id })}>${t('taskFiles.more', { n: more })}</button></li>` : ''}
      </ul>
      ${this._problem ? html`<p class="field-error small" role="alert">${t('file.failed', this._problem)}</p>` : ''}`;
  }
}

LineupTaskFiles.define('lineup-task-files');
