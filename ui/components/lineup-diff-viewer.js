// One changed file of a session, full screen (#/sessions/<id>/diff?path=): hunk by hunk, lines wrapped, added and
// removed lines marked; put into the page a few hundred lines per frame (a 2,000-line change is never one long task);
// a line takes a comment, and the comments go to the agent as one review.

import { html, render } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, tn } from '../lib/i18n.js';
import { routeHref } from '../lib/router.js';
import { parseUnifiedDiff } from '../lib/diff.js';
import { AGAINST, draftOf, errorWords, sessionApi, sessionById } from '../lib/sessions.js';

// Lines put into the page per frame. Each block of them is rendered into its own element once, so a frame costs one
// block and a later render of the page (the app re-renders on every event) none: rendering all 2,000 lines as one
// template cost a 300 ms task.
const LINES_PER_FRAME = 300;
const SIGN = { add: '+', del: '−', context: ' ', note: '' };

/** The rows to draw: each hunk's header, then its lines; a comment is anchored on its side's line number. */
function rowsOf(files) {
  const rows = [];
  for (const file of files || []) {
    for (const hunk of file.hunks) {
      rows.push({ kind: 'hunk', text: hunk.header });
      for (const line of hunk.lines) rows.push(line);
    }
  }
  return rows;
}

function anchor(line) {
  return line.kind === 'del' ? { side: 'old', line: line.oldLine } : { side: 'new', line: line.newLine };
}

export class LineupDiffViewer extends LineupElement {
  static properties = ['state', 'api', 'sessionId', 'path', 'against'];

  constructor() {
    super();
    this._readFor = '';
    this._file = null;
    this._rows = [];
    this._shown = 0;
    this._error = null;
    this._open = null; // the row index whose comment box is open
    this._review = null;
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    cancelAnimationFrame(this._frame);
  }

  updated() {
    this._paintBlocks();
    const key = `${this.sessionId}|${this.path}|${this.against || ''}`;
    if (!this.api || !this.path || key === this._readFor) return;
    this._readFor = key;
    this._read(key);
  }

  _againstValue() {
    return AGAINST.includes(this.against) ? this.against : 'start';
  }

  async _read(key) {
    this._file = null;
    this._rows = [];
    this._shown = 0;
    this._error = null;
    this.requestUpdate();
    try {
      const file = await sessionApi.diff(this.api, this.sessionId, this.path, this._againstValue());
      if (key !== this._readFor) return;
      this._file = file;
      this._rows = file.binary ? [] : rowsOf(parseUnifiedDiff(file.diff));
      this._paint();
    } catch (error) {
      if (key !== this._readFor) return; // another file was asked for meanwhile: its read says how it went
      this._error = error;
    }
    this.requestUpdate();
  }

  /** Show the next LINES_PER_FRAME rows each frame until all are in the page. */
  _paint() {
    cancelAnimationFrame(this._frame);
    const step = () => {
      this._shown = Math.min(this._rows.length, this._shown + LINES_PER_FRAME);
      this.requestUpdate();
      if (this._shown < this._rows.length) this._frame = requestAnimationFrame(step);
    };
    step();
  }

  /** Put the blocks shown but not yet in the page into it; with `all`, draw every block again (a comment changed). */
  _paintBlocks(all = false) {
    const box = this.querySelector('.diff-full');
    if (!box) return;
    if (box.dataset.for !== this._readFor) {
      box.replaceChildren();
      box.dataset.for = this._readFor;
    }
    const blocks = Math.ceil(this._shown / LINES_PER_FRAME);
    for (let index = 0; index < blocks; index += 1) {
      let block = box.children[index];
      if (block && !all) continue;
      if (!block) {
        block = document.createElement('div');
        block.className = 'diff-block';
        box.append(block);
      }
      const from = index * LINES_PER_FRAME;
      render(html`${this._rows.slice(from, from + LINES_PER_FRAME).map((row, at) => this._row(row, from + at))}`, block);
    }
  }

  /** A comment was opened, added or removed: its block is drawn again (all blocks: it is rare, and one frame). */
  _changed() {
    this._paintBlocks(true);
    this.requestUpdate();
  }

  _comments() {
    return draftOf(this.sessionId).filter((c) => c.path === this.path);
  }

  _saveComment(event, row) {
    event.preventDefault();
    const text = event.target.elements.comment.value.trim();
    if (text) draftOf(this.sessionId).push({ path: this.path, ...anchor(row), text });
    this._open = null;
    this._review = null;
    this._changed();
  }

  _removeComment(comment) {
    const list = draftOf(this.sessionId);
    list.splice(list.indexOf(comment), 1);
    this._changed();
  }

  async _sendReview(event) {
    event.preventDefault();
    const comments = draftOf(this.sessionId);
    const summary = event.target.elements.summary.value.trim();
    if (!comments.length && !summary) return;
    this._review = { status: 'sending' };
    this.requestUpdate();
    try {
      await sessionApi.review(this.api, this.sessionId, { comments: comments.map(({ path, line, side, text }) => ({ path, line, side, text })),
        ...(summary ? { summary } : {}) });
      comments.splice(0);
      event.target.reset();
      this._review = { status: 'sent' };
      this._paintBlocks(true);
    } catch (error) {
      this._review = { status: 'error', error };
    }
    this.requestUpdate();
  }

  _commentsOn(row) {
    const at = anchor(row);
    return this._comments().filter((c) => c.side === at.side && c.line === at.line);
  }

  _row(row, index) {
    if (row.kind === 'hunk') return html`<div class="diff-hunk-head mono">${row.text}</div>`;
    const commentable = row.kind !== 'note';
    const where = anchor(row);
    const label = t(where.side === 'old' ? 'review.commentOld' : 'review.commentNew', { line: where.line });
    const comments = commentable ? this._commentsOn(row) : [];
    return html`<div class="diff-line diff-${row.kind} mono" data-kind=${row.kind} data-line=${where.line ?? ''} data-side=${where.side}><span
        class="diff-num" aria-hidden="true">${row.oldLine ?? ''}</span><span class="diff-num" aria-hidden="true">${row.newLine ?? ''}</span><span
        class="diff-sign">${row.kind === 'add' ? html`<span class="visually-hidden">${t('diff.added')}</span>` : ''}${row.kind === 'del'
          ? html`<span class="visually-hidden">${t('diff.removed')}</span>` : ''}<span aria-hidden="true">${SIGN[row.kind]}</span></span><span
        class="diff-text">${row.text}</span>${commentable ? html`<button type="button" class="line-comment" title=${label}
        aria-expanded=${this._open === index ? 'true' : 'false'} @click=${() => { this._open = this._open === index ? null : index; this._changed(); }}>${icon('comment')}<span
        class="visually-hidden">${label}</span></button>` : ''}</div>
      ${comments.map((c) => html`<div class="line-note small"><span class="prewrap">${c.text}</span>
        <button type="button" class="button small ghost" @click=${() => this._removeComment(c)}>${t('review.remove')}</button></div>`)}
      ${this._open === index ? html`<form class="line-comment-form" @submit=${(e) => this._saveComment(e, row)}>
        <label class="field"><span>${label}</span><textarea name="comment" rows="3" class="comment-text"></textarea></label>
        <div class="dialog-actions"><button type="button" class="button small" @click=${() => { this._open = null; this._changed(); }}>${t('action.cancel')}</button>
          <button type="submit" class="button small primary comment-save">${t('review.addComment')}</button></div></form>` : ''}`;
  }

  render() {
    if (!this.state || !this.sessionId) return '';
    const session = sessionById(this.state, this.sessionId);
    const file = this._file;
    const all = draftOf(this.sessionId);
    const back = routeHref({ view: 'sessions', id: this.sessionId, against: this.against || null });
    // Still painting while the file is read, too: `data-painted` says every line of the file is in the page.
    const painting = (!file && !this._error) || this._shown < this._rows.length;
    return html`<section class="view diff-viewer" aria-labelledby="diff-viewer-heading" data-painted=${painting ? 'false' : 'true'}
        data-rows=${this._rows.length}>
      <header class="view-head diff-viewer-head">
        <a class="icon-button back-link" href=${back}>${icon('back')}<span class="visually-hidden">${t('changes.backToFiles')}</span></a>
        <h1 id="diff-viewer-heading" class="mono">${this.path}</h1>
        ${file && !file.binary ? html`<span class="diff-stat small"><span class="diff-stat-add">+${file.added}</span> <span class="diff-stat-del">−${file.removed}</span></span>` : ''}
      </header>
      ${this._error ? html`<p class="tone-box-danger" role="alert">${icon('warning')} ${errorWords(this._error)}</p>` : ''}
      ${!file && !this._error ? html`<p class="muted" role="status"><span class="spinner small" aria-hidden="true"></span> ${t('app.loading')}</p>` : ''}
      ${file?.binary ? html`<p class="tone-box-neutral diff-binary">${t('changes.binaryNamed', { path: this.path })}</p>` : ''}
      ${file && !file.binary && !this._rows.length ? html`<p class="muted">${t('changes.noTextChange')}</p>` : ''}
      ${file?.truncated ? html`<p class="tone-box-waiting diff-truncated">${t('changes.diffTruncated')}</p>` : ''}
      ${this._rows.length ? html`<div class="diff diff-full" role="group" aria-label=${t('diff.changes', { name: this.path })}
        aria-busy=${painting ? 'true' : 'false'}></div>` : ''}
      <form class="review-form card" @submit=${(e) => this._sendReview(e)}>
        <h2 class="small-heading">${tn('review.heading', all.length)}</h2>
        <label class="field"><span>${t('review.summary')}</span><textarea name="summary" rows="2" class="review-summary"></textarea></label>
        <button type="submit" class="button primary send-review" ?disabled=${session?.status === 'ended' || this._review?.status === 'sending'}>${icon(
          'send')}<span>${t('review.send')}</span></button>
        ${this._review?.status === 'sent' ? html`<p class="tone-box-success review-sent" role="status">${icon('check')} ${t('review.sent')}
          ${session ? html`<a href=${routeHref({ view: 'conversations', id: session.conversationId })}>${t('changes.backToConversation')}</a>` : ''}</p>` : ''}
        ${this._review?.status === 'error' ? html`<p class="tone-box-danger" role="alert">${errorWords(this._review.error)}</p>` : ''}
      </form>
    </section>`;
  }
}

LineupDiffViewer.define('lineup-diff-viewer');
