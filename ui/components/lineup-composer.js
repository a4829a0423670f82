// The composer at the foot of a conversation: text to the conversation's agent, optionally tracked as a task, with
// files or photos attached. A chosen file is checked against the hub's limit at once (a file too large is refused
// with the limit named, before anything is sent); on Send each file is uploaded (its progress shown, a failure said
// on it and the draft kept), then the message goes with the files' ids (docs/protocol.md "Files"). lib/files.js, which
// uploads, loads the first time a file is chosen.

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, formatDateTime } from '../lib/i18n.js';

// An agent that can never receive again: revoked in the app (a revoked agent paired again is a new agent).
const gone = (agent) => Boolean(agent && (agent.revokedAt || agent.status === 'revoked'));
// Claude Code connected with `lineup connect`: its hooks report what it did and never read what is typed here.
const HOOKED_RUNTIMES = new Set(['claude-code']);
// A phone or tablet: "Take a photo" opens the camera (the capture attribute); elsewhere attaching a file is enough.
const TOUCH = window.matchMedia('(pointer: coarse)');
let files = null; // lib/files.js, once loaded
const loadFiles = async () => { files ??= await import('../lib/files.js'); return files; };
let entryKeys = 0;

export class LineupComposer extends LineupElement {
  // `session`: the session shown in this conversation (set by lineup-session-bar), whose canSend and end it follows.
  static properties = ['conversation', 'agents', 'connection', 'session'];

  constructor() {
    super();
    this.texts = new Map(); // conversation id -> unsent text, so switching conversations keeps each draft
    this.attached = new Map(); // conversation id -> files chosen for the next message: [{key, file, status, ...}]
    this.notices = new Map(); // conversation id -> why chosen files were not attached
    this.sending = false; // uploading this message's files
    this.track = false;
    this.target = null;
    this.justSent = false;
  }

  get _files() {
    return this.attached.get(this._key) || [];
  }

  /** Files chosen (input type=file): those within the hub's limits join the draft, the others are named with why. */
  async _choose(event) {
    const input = event.target;
    const chosen = [...(input.files || [])];
    input.value = ''; // the same file may be chosen again
    if (!chosen.length) return;
    const key = this._key;
    const { fileLimits, formatSize } = await loadFiles();
    const { maxFileBytes, maxAttachments } = fileLimits();
    const list = [...(this.attached.get(key) || [])];
    const refused = [];
    for (const file of chosen) {
      if (file.size > maxFileBytes) {
        refused.push(t('composer.fileTooBig', { name: file.name, size: formatSize(file.size), limit: formatSize(maxFileBytes) }));
      } else if (list.length >= maxAttachments) {
        refused.push(t('composer.tooManyFiles', { name: file.name, max: maxAttachments }));
      } else {
        entryKeys += 1;
        list.push({ key: entryKeys, file, name: file.name || 'file', size: file.size, status: 'ready', progress: 0 });
      }
    }
    this.attached.set(key, list);
    this.notices.set(key, refused);
    this.justSent = false;
    this.requestUpdate();
  }

  _remove(entry) {
    entry.abort?.abort();
    this.attached.set(this._key, this._files.filter((e) => e !== entry));
    this.requestUpdate();
  }

  /** Upload the draft's files not yet stored, one after another; true when all are. A failure stays on its file. */
  async _upload(list) {
    const { uploadFile } = await loadFiles();
    for (const entry of list) {
      if (entry.status === 'uploaded') continue;
      entry.status = 'uploading';
      entry.progress = 0;
      entry.error = null;
      entry.abort = new AbortController();
      this.requestUpdate();
      try {
        entry.stored = await uploadFile(entry.file, {
          name: entry.name, signal: entry.abort.signal,
          onProgress: (fraction) => { entry.progress = fraction; this.requestUpdate(); },
        });
        entry.status = 'uploaded';
      } catch (error) {
        if (error.code === 'aborted') return false; // removed while it was sent
        entry.status = 'failed';
        entry.error = error;
        this.requestUpdate();
        return false;
      }
      this.requestUpdate();
    }
    return true;
  }

  get _key() {
    return this.conversation?.id || '';
  }

  _members() {
    const ids = this.conversation?.agentIds || [];
    return ids.map((id) => (this.agents || []).find((a) => a.id === id)).filter(Boolean);
  }

  /** Who a message goes to: the chosen member, else the first one that can still receive; a revoked agent only when
      every member is revoked (then the composer is closed and says why). */
  _target(members) {
    const reachable = members.filter((a) => !gone(a));
    const choices = reachable.length ? reachable : members;
    return [choices, choices.find((a) => a.id === this.target) || choices[0]];
  }

  /** Why nothing can be sent here though the agent is not revoked, or '': the session ended (its reason), or the
   * agent never reads this conversation (a terminal agent's hooks or finished turns). */
  _shut(target) {
    const session = this.session?.conversationId === this._key ? this.session : null;
    if (session?.kind === 'hub' && session.status === 'ended') {
      return ['session-ended', t('composer.sessionEnded', { why: t(`session.reason.${session.endReason || 'ended'}`) })];
    }
    if ((session && session.canSend === false) || (target && HOOKED_RUNTIMES.has(target.runtime))) {
      return ['no-receive', t('composer.cannotReceive', { agent: target?.name || session?.agentName || '' })];
    }
    return ['', ''];
  }

  async _send(event) {
    event?.preventDefault();
    const key = this._key;
    const text = (this.texts.get(key) || '').trim();
    const list = this._files;
    const [, target] = this._target(this._members());
    if ((!text && !list.length) || !target || gone(target) || this._shut(target)[0] || this.sending) return;
    if (list.length) {
      this.sending = true;
      this.requestUpdate();
      const stored = await this._upload(list);
      this.sending = false;
      if (!stored || this._key !== key || this._files !== list) { this.requestUpdate(); return; }
    }
    this.emit('lineup-message-send', {
      conversationId: this.conversation.id, text, trackAsTask: this.track, targetAgentId: target.id,
      attachments: list.map((entry) => ({ fileId: entry.stored.fileId, name: entry.stored.name })),
    });
    this.texts.set(key, '');
    this.attached.set(key, []);
    this.notices.set(key, []);
    this.track = false; // each task is asked for on purpose
    this.justSent = true;
    this.requestUpdate();
    requestAnimationFrame(() => this.querySelector('textarea')?.focus());
  }

  _fileList(list, notices) {
    if (!list.length && !notices.length) return '';
    return html`${notices.map((notice) => html`<p class="field-error small composer-refused" role="alert">${icon('warning')} ${notice}</p>`)}
      ${list.length ? html`<ul class="plain-list composer-files" aria-label=${t('composer.files')}>${list.map((entry) => html`
        <li class="composer-file" data-status=${entry.status}>
          <span class="composer-file-name">${icon('file')}<span>${entry.name}</span></span>
          <span class="muted small">${files ? files.formatSize(entry.size) : ''}</span>
          <span class="composer-file-state small" role="status">${entry.status === 'uploading'
            ? html`<progress max="100" value=${Math.round(entry.progress * 100)} aria-label=${t('composer.uploading', { name: entry.name })}></progress>
              ${t('composer.uploadingPercent', { percent: Math.round(entry.progress * 100) })}`
            : entry.status === 'uploaded' ? html`${icon('check')} ${t('composer.uploaded')}`
            : entry.status === 'failed' ? html`<span class="tone-text-danger">${icon('warning')} ${t('composer.uploadFailed', { message: entry.error?.message || '' })}</span>`
            : ''}</span>
          <button type="button" class="icon-button composer-file-remove" @click=${() => this._remove(entry)}>
            ${icon('close')}<span class="visually-hidden">${t('composer.removeFile', { name: entry.name })}</span></button>
        </li>`)}</ul>` : ''}`;
  }

  _keydown(event) {
    // Enter sends, Shift+Enter is a new line; never while an input method is composing (Chinese input).
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing && event.keyCode !== 229) {
      this._send(event);
    }
  }

  render() {
    const conversation = this.conversation;
    if (!conversation) return '';
    const [choices, target] = this._target(this._members());
    const text = this.texts.get(this._key) || '';
    const list = this._files;
    const failed = list.some((entry) => entry.status === 'failed');
    // Revoked: nothing sent here can ever be delivered, so nothing may be sent (the draft is kept).
    const revoked = gone(target);
    const [shut, why] = revoked ? ['', ''] : this._shut(target);
    const closed = revoked || Boolean(shut);
    const offline = target && target.status !== 'online';
    const live = this.connection?.status === 'live';
    const id = `composer-${conversation.id}`;
    return html`<form class="composer" @submit=${(e) => this._send(e)} aria-label=${t('composer.label')}
      data-closed=${revoked ? 'revoked' : shut || 'open'}>
      ${choices.length > 1 ? html`<label class="composer-target"><span>${t('composer.to')}</span>
        <select @change=${(e) => { this.target = e.target.value; this.requestUpdate(); }}>
          ${choices.map((a) => html`<option value=${a.id} ?selected=${a.id === target?.id}>${a.name}</option>`)}
        </select></label>` : ''}
      ${shut ? html`<p class="tone-box-neutral composer-closed" role="note">${icon(shut === 'session-ended' ? 'check' : 'phone')} ${why}</p>` : ''}
      ${revoked ? html`<div class="tone-box-waiting composer-closed" role="note">
        <p>${icon('warning')} ${target.revokedAt ? t('composer.agentRevoked', { agent: target.name, time: formatDateTime(target.revokedAt) })
          : t('composer.agentRevokedUndated', { agent: target.name })}</p>
        <p><a href="#/agents">${t('composer.toAgents')}</a></p></div>` : ''}
      <label class="visually-hidden" for=${id}>${t('composer.placeholder', { agent: target?.name || '' })}</label>
      <textarea id=${id} rows="2" .value=${text} placeholder=${closed ? t('composer.closed')
        : t('composer.placeholder', { agent: target?.name || '' })}
        ?disabled=${!target || closed} @input=${(e) => { this.texts.set(this._key, e.target.value); this.justSent = false; this.requestUpdate(); }}
        @keydown=${(e) => this._keydown(e)}></textarea>
      ${this._fileList(list, this.notices.get(this._key) || [])}
      <div class="composer-row">
        <label class="button small ghost composer-attach" data-disabled=${!target || closed ? 'true' : 'false'}>
          ${icon('attach')}<span>${t('composer.attach')}</span>
          <input type="file" multiple class="visually-hidden" ?disabled=${!target || closed || this.sending}
            @change=${(e) => this._choose(e)}></label>
        ${TOUCH.matches ? html`<label class="button small ghost composer-photo" data-disabled=${!target || closed ? 'true' : 'false'}>
          ${icon('camera')}<span>${t('composer.photo')}</span>
          <input type="file" accept="image/*" capture="environment" class="visually-hidden"
            ?disabled=${!target || closed || this.sending} @change=${(e) => this._choose(e)}></label>` : ''}
        <label class="checkbox"><input type="checkbox" name="track" .checked=${this.track} ?disabled=${closed}
          @change=${(e) => { this.track = e.target.checked; this.requestUpdate(); }}>
          <span>${t('composer.track')}</span></label>
        <span class="composer-hint muted small" role="status">${!target ? t('composer.noAgent')
          : closed ? (shut ? '' : t('composer.closed'))
          : this.sending ? html`<span class="spinner small" aria-hidden="true"></span> ${t('composer.sendingFiles')}`
          : failed ? t('composer.filesFailed')
          : offline ? html`${icon('offline')} ${t('composer.agentOffline', { agent: target.name })}`
          : !live ? html`${icon('clock')} ${t('composer.queued')}` : this.justSent ? t('composer.sent') : t('composer.hint')}</span>
        <button type="submit" class="button primary send-button"
          ?disabled=${(!text.trim() && !list.length) || !target || closed || this.sending}>
          ${icon('send')}<span>${failed ? t('action.tryAgain') : t('composer.send')}</span></button>
      </div>
    </form>`;
  }
}

LineupComposer.define('lineup-composer');
