// One conversation: messages (streamed text as it arrives), its tasks' progress and interaction cards, the composer.

import { html, nothing } from '../vendor/lit-html/lit-html.js';
import { repeat } from '../vendor/lit-html/directives/repeat.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, tn, formatTime } from '../lib/i18n.js';
import { TERMINAL, taskStatusBadge, agentStatusBadge, progressBar, connectionLoss, deliveryNote, taskSummary, failureReason, waitsForAgent } from '../lib/status.js';
import { interactionCard } from '../lib/cards.js';
import { conversationOf, interactionCalls, toolItems } from '../lib/tool-calls.js';
import { toolItem } from '../lib/tool-views.js';
import { toolBlockOf, toolUseView, stoppedMark } from '../lib/tool-use.js'; // what an agent's tool did, compactly
import { attachmentList, taskFileChips } from '../lib/artifacts.js'; // files (components/lineup-file.js, lineup-task-files.js)
import '../lib/markdown.js';
import './lineup-composer.js'; // the conversation's own piece, loaded with it
import './lineup-tool-call.js';
import './lineup-tool-instance.js'; // tool calls are drawn by these (lib/tool-views.js)
import './lineup-session-bar.js'; // a session's status, changes, Stop and End (docs/sessions.md)
import { sessionOfConversation } from '../lib/sessions.js';

// A message longer than this is folded to its first lines with "Show more" (a 200-line answer no longer buries the
// cards around it).
const LONG_LINES = 24;
const LONG_CHARS = 2400;

function isLong(text) {
  const value = String(text || '');
  if (value.length > LONG_CHARS) return true;
  let lines = 1; // counted up to the limit only: this runs for every message at every render
  for (let at = value.indexOf('\n'); at !== -1 && lines <= LONG_LINES; at = value.indexOf('\n', at + 1)) lines += 1;
  return lines > LONG_LINES;
}

export class LineupConversation extends LineupElement {
  static properties = ['state', 'conversationId', 'api'];

  constructor() {
    super();
    this._stick = true;
    this._lastCount = 0;
    this._lastId = null;
    this._lastTop = 0;
    this._expanded = new Set();
    this._pendingSeen = null; // ids of pending cards already on screen, to bring a new one into view
    this._anchorId = null; // the pending card shown from its top while the reader has not scrolled (_keepAtEnd)
    this._released = new Set(); // cards the reader scrolled away from: never pulled back to
    this._setTop = 0; // the scrollTop this element set last, to tell its own scrolls from the reader's
    // Cards, Markdown and fonts grow the stream after it is rendered: while the reader is at the newest message,
    // keep it there whatever grows (a scroll set once at render opened conversations 1,100–4,500 px too high).
    this._resize = new ResizeObserver(() => this._keepAtEnd());
  }

  disconnectedCallback() {
    super.disconnectedCallback?.();
    this._resize.disconnect();
  }

  _items(state, conversationId) {
    const items = [];
    const list = state.messages[conversationId];
    const messages = list?.items || [];
    const seen = new Set();
    for (const m of messages) {
      seen.add(m.id);
      const draft = state.drafts[m.id];
      const content = draft && draft.text.length > m.content.length && m.state !== 'complete' ? draft.text : m.content;
      items.push({ key: `m:${m.id}`, kind: 'message', at: m.createdAt, message: { ...m, content } });
    }
    for (const task of state.tasks) {
      if (task.conversationId === conversationId && !task.parentTaskId) {
        items.push({ key: `t:${task.id}`, kind: 'task', at: task.createdAt, task });
      }
    }
    // A call that asked the person is shown on its question's card, not as a second card.
    const asked = interactionCalls(state);
    const shown = new Set();
    for (const it of state.interactions) {
      if (it.conversationId !== conversationId) continue;
      shown.add(it.id);
      items.push({ key: `i:${it.id}`, kind: 'interaction', at: it.createdAt, interaction: it, call: asked.get(it.id) });
    }
    items.push(...toolItems(state, (entry) => conversationOf(entry, state) === conversationId, (id) => shown.has(id)));
    items.sort((a, b) => String(a.at).localeCompare(String(b.at)));
    // Text still streaming in (message.delta frames) that no stored snapshot holds yet, then what is being sent.
    for (const draft of Object.values(state.drafts)) {
      if (draft.conversationId === conversationId && !seen.has(draft.messageId)) {
        items.push({ key: `m:${draft.messageId}`, kind: 'message', at: draft.updatedAt,
          message: { id: draft.messageId, author: draft.author, content: draft.text, state: 'streaming', createdAt: draft.updatedAt } });
      }
    }
    for (const out of state.outgoing) {
      if (out.conversationId === conversationId) items.push({ key: `o:${out.envelopeId}`, kind: 'outgoing', at: out.createdAt, outgoing: out });
    }
    return items;
  }

  _author(message, state) {
    const author = message.author || {};
    if (author.kind === 'user') return author.id === state.me?.userId ? t('who.you') : t('who.person');
    if (author.kind === 'agent') return state.agents.find((a) => a.id === author.id)?.name || t('who.agent');
    return t('who.hub');
  }

  _onScroll(event) {
    const el = event.target;
    if (this._anchorId && Math.abs(el.scrollTop - this._setTop) > 1) {
      // The reader moved off the question's top: from here on they scroll as they like, and the end holds the view
      // only once they are back at it.
      this._released.add(this._anchorId);
      this._anchorId = null;
      this._stick = el.scrollTop + el.clientHeight >= el.scrollHeight - 80;
      this._lastTop = el.scrollTop;
      return;
    }
    // Only the reader scrolling up lets go of the end; content growing below (which leaves scrollTop where it
    // was) must not, or the next card would render out of sight.
    if (el.scrollTop + el.clientHeight >= el.scrollHeight - 80) this._stick = true;
    else if (el.scrollTop < this._lastTop - 1) this._stick = false;
    this._lastTop = el.scrollTop;
  }

  /** A card asks that the view stay where it is (its high-risk confirmation opens under the finger's place): neither
   * kept at the end nor at a question's top until the reader scrolls back to the end. */
  _hold() {
    if (this._anchorId) this._released.add(this._anchorId);
    this._anchorId = null;
    this._stick = false;
  }

  /** The question to show from its top: the first of the pending cards that end the stream (the newest items), when
   * the end would hide its top, unless the reader has scrolled away from it once. Kept while it stays pending, whatever
   * arrives after it. */
  _anchorCard(stream) {
    if (this._anchorId) {
      const kept = stream.querySelector(`.stream-card[data-pending-interaction="${CSS.escape(this._anchorId)}"]`);
      if (kept) return kept;
      this._anchorId = null; // answered or gone: the end holds the view again
    }
    let first = null;
    for (let el = stream.lastElementChild; el?.dataset.pendingInteraction; el = el.previousElementSibling) first = el;
    if (!first || this._released.has(first.dataset.pendingInteraction)) return null;
    if (stream.scrollHeight - first.offsetTop <= stream.clientHeight) return null; // the end shows all of it
    // While the messages are read it is shown from its top too (never its tail first), but not kept: newer messages
    // may come after it.
    if (!this.state?.messages[this.conversationId]?.loading) this._anchorId = first.dataset.pendingInteraction;
    return first;
  }

  /** Whether a high-risk confirmation is open in the stream: the view then stays where it is, whatever arrives (a new
   * card, a message, a card growing), until it is answered or closed. */
  _holding(stream) {
    return Boolean(stream?.querySelector('.interaction-card .confirm-box'));
  }

  _keepAtEnd() {
    const stream = this.querySelector('.stream');
    if (stream && this._stick && !this._holding(stream)) {
      // A question that arrives at the end is shown from its top (its title, risk, reasons and the start of what it
      // approves), not from its tail and buttons: docs/design.md#interaction-cards. A short one is all in view at the
      // end anyway (the scroll stops there).
      const card = this._anchorCard(stream);
      const top = card ? Math.max(0, card.offsetTop - 4) : Infinity; // its border just in view
      stream.scrollTop = Math.min(stream.scrollHeight, top);
      this._lastTop = stream.scrollTop;
      this._setTop = stream.scrollTop;
    }
  }

  updated() {
    const stream = this.querySelector('.stream');
    if (!stream) return;
    const count = stream.childElementCount;
    const switched = this._lastId !== this.conversationId;
    if (switched) {
      this._stick = true;
      this._pendingSeen = null;
      this._anchorId = null;
      this._resize.disconnect();
    }
    for (const child of stream.children) this._resize.observe(child); // observing twice is a no-op
    this._resize.observe(stream);
    if (switched || (this._stick && (count !== this._lastCount || this.querySelector('.message.streaming')))) {
      this._keepAtEnd();
    }
    this._showNewQuestion(stream);
    this._lastCount = count;
    this._lastId = this.conversationId;
  }

  /** A question that arrives while the conversation is open is brought into view, even when scrolled up. */
  _showNewQuestion(stream) {
    const pending = [...stream.querySelectorAll('.stream-card[data-pending-interaction]')];
    const ids = pending.map((el) => el.dataset.pendingInteraction);
    const seen = this._pendingSeen;
    this._pendingSeen = new Set(ids);
    if (!seen) return; // the first render of this conversation: the end is shown
    const fresh = pending.filter((el) => !seen.has(el.dataset.pendingInteraction));
    if (!fresh.length || this._stick) return; // at the end: shown from its top by _keepAtEnd
    // A confirmation is open: the view holds still (its button stays where the person is about to tap); the new card
    // waits below, counted in the inbox.
    if (this._holding(stream)) return;
    // Scrolled up: brought into view, from its top when it is taller than the view, else as little as needed.
    const card = fresh[fresh.length - 1];
    requestAnimationFrame(() => card.scrollIntoView({ block: card.offsetHeight > stream.clientHeight ? 'start' : 'nearest' }));
  }

  _toggle(id) {
    if (this._expanded.has(id)) this._expanded.delete(id);
    else {
      this._expanded.add(id);
      this._stick = false; // read the opened message from where it starts, not pulled to the end as it grows
    }
    this.requestUpdate();
  }

  _body(m, streaming) {
    const caret = streaming ? html`<span class="caret" aria-hidden="true"></span>` : '';
    const long = !streaming && isLong(m.content);
    const open = long && this._expanded.has(m.id);
    // An agent's text: folded, only its first part is put into the page (lib/markdown.js), the rest when opened.
    const text = m.author?.kind === 'agent'
      ? html`<lineup-markdown class="md" .preview=${long && !open} .source=${m.content}></lineup-markdown>${caret}`
      : html`${m.content}${caret}`;
    const plain = m.author?.kind !== 'agent';
    if (!long) return html`<div class="message-body ${plain ? 'prewrap' : ''}">${text}</div>`;
    const id = `message-body-${m.id}`;
    return html`<div class="message-body ${plain ? 'prewrap' : ''} ${open ? 'expanded' : 'collapsed'}" id=${id}
        data-collapsed=${open ? 'false' : 'true'}>${text}</div>
      <button type="button" class="button small ghost show-more" aria-expanded=${open ? 'true' : 'false'} aria-controls=${id}
        @click=${() => this._toggle(m.id)}>${open ? t('message.showLess') : t('message.showMore')}</button>`;
  }

  render() {
    const { state, conversationId } = this;
    if (!state || !conversationId) return '';
    const conversation = state.conversations.find((c) => c.id === conversationId);
    if (!conversation) {
      return html`<div class="view empty-view"><p>${state.loaded ? t('conversation.notFound') : t('app.loading')}</p>
        <a href="#/conversations">${t('nav.conversations')}</a></div>`;
    }
    const agents = conversation.agentIds.map((id) => state.agents.find((a) => a.id === id)).filter(Boolean);
    const list = state.messages[conversationId];
    const items = this._items(state, conversationId);
    const session = sessionOfConversation(state, conversationId);
    return html`<section class="conversation" aria-labelledby="conversation-title">
      <header class="view-head conversation-head">
        <a class="icon-button back-link" href="#/conversations">${icon('back')}<span class="visually-hidden">${t('nav.conversations')}</span></a>
        <h1 id="conversation-title" title=${conversation.title}>${conversation.title}</h1>
        <span class="conversation-agents">${agents.map((a) => html`<span class="agent-chip">${icon('agent')}${a.name === conversation.title
          ? '' : html`<span>${a.name}</span>`}${agentStatusBadge(a)}</span>`)}</span>
      </header>
      ${session ? html`<lineup-session-bar .session=${session} .api=${this.api}></lineup-session-bar>` : ''}
      <h2 class="visually-hidden">${t('conversation.stream')}</h2>
      <div class="stream" role="log" aria-label=${t('conversation.stream')} tabindex="0" @scroll=${(e) => this._onScroll(e)}
        @lineup-view-hold=${() => this._hold()}>
        ${list?.loading && !list.items?.length ? html`<p class="muted center" role="status"><span class="spinner small" aria-hidden="true"></span> ${t('app.loading')}</p>` : ''}
        ${list?.error ? html`<p class="notice notice-error" role="alert">${t('conversation.loadFailed')}</p>` : ''}
        ${!items.length && !list?.loading ? html`<p class="muted center empty">${agents.length && agents.every((a) => a.revokedAt)
          ? t('conversation.emptyRevoked', { agent: agents[0].name }) : t('conversation.empty', { agent: agents[0]?.name || '' })}</p>` : ''}
        ${repeat(items, (item) => item.key, (item) => this._item(item, state))}
      </div>
      <lineup-composer .conversation=${conversation} .agents=${state.agents} .connection=${state.connection}></lineup-composer>
    </section>`;
  }

  /** When the hub noticed the agent gone, and its last sign of life (docs/design.md#an-agent-that-goes-away). */
  _lost(task, state) {
    const { noticedAt, lastSignOfLife } = connectionLoss(state.agents.find((a) => a.id === task.agentId), state, task);
    const lost = noticedAt ? t('task.connectionLostAt', { time: formatTime(noticedAt) }) : t('task.connectionLostNoTime');
    return lastSignOfLife ? `${lost} · ${t('task.lastSignOfLife', { time: formatTime(lastSignOfLife) })}` : lost;
  }

  _item(item, state) {
    if (item.kind === 'message') {
      const m = item.message;
      const mine = m.author?.kind === 'user' && m.author.id === state.me?.userId;
      const streaming = m.state === 'streaming';
      // A tool call the agent made: its own compact block, not a bubble of text (its `content` is the same in words).
      const tool = m.author?.kind === 'agent' ? toolBlockOf(m) : null;
      const stopped = stoppedMark(m);
      return html`<div class="message ${mine ? 'mine' : 'theirs'} ${streaming ? 'streaming' : ''} ${tool ? 'tool-message' : ''}"
          data-message-id=${m.id} data-stopped=${stopped || nothing} aria-busy=${streaming ? 'true' : 'false'}>
        <div class="message-meta"><span class="message-author">${this._author(m, state)}</span>
          <time class="muted" datetime=${m.createdAt}>${formatTime(m.createdAt)}</time>
          ${streaming ? html`<span class="badge tone-running">${icon('running')}<span>${t('message.streaming')}</span></span>` : ''}
          ${stopped ? html`<span class="badge tone-neutral message-stopped">${icon('stop')}<span>${t('message.stopped')}</span></span>` : ''}</div>
        ${tool ? toolUseView(tool) : stopped === 'alone' ? '' : m.content || !m.attachments?.length ? this._body(m, streaming) : ''}
        ${attachmentList(m.attachments)}
      </div>`;
    }
    if (item.kind === 'outgoing') {
      const o = item.outgoing;
      const live = state.connection.status === 'live';
      return html`<div class="message mine outgoing" data-envelope-id=${o.envelopeId} data-status=${o.status}>
        <div class="message-meta"><span class="message-author">${t('who.you')}</span>
          <span class="badge ${o.status === 'failed' ? 'tone-danger' : 'tone-neutral'}" role="status">${o.status === 'failed'
            ? html`${icon('warning')}<span>${t('message.failed', { message: o.error?.message || '' })}</span>`
            : live ? html`${icon('clock')}<span>${t('message.sending')}</span>` : html`${icon('clock')}<span>${t('message.queued')}</span>`}</span>
          ${o.status === 'failed' ? html`<button class="button small" @click=${() => this.emit('lineup-message-retry', { envelopeId: o.envelopeId })}>${t('action.tryAgain')}</button>` : ''}
        </div>
        <div class="message-body prewrap">${o.content}</div>
        ${o.attachments?.length ? html`<p class="muted small">${icon('attach')} ${tn('composer.filesCount', o.attachments.length)}</p>` : ''}
      </div>`;
    }
    if (item.kind === 'task') {
      const task = item.task;
      return html`<div class="task-chip-wrap"><button class="task-chip" data-task-id=${task.id}
          @click=${() => this.emit('lineup-task-open', { taskId: task.id })}>
        <span class="task-chip-head">${icon('tasks')}<span class="task-chip-kind">${t('task.tracked')}</span>${taskStatusBadge(task)}</span>
        <span class="task-chip-title">${task.title}</span>
        ${task.status === 'failed'
          // Why it failed, on one line (clipped by its style; the whole text in the task): not the progress it had.
          ? (failureReason(task) ? html`<span class="small tone-text-danger task-chip-error" title=${failureReason(task)}>${failureReason(task)}</span>` : '')
          : html`<span class="task-chip-progress">${progressBar(task.progress, t('task.progressOf', { title: task.title }))}
          <span class="muted small">${task.progress ?? 0}%${taskSummary(task, state) ? ` · ${taskSummary(task, state)}` : ''}</span></span>`}
        ${waitsForAgent(task, state)
          ? html`<span class="small tone-text-danger lost-line">${icon('offline')} ${this._lost(task, state)}</span>` : ''}
      </button>${taskFileChips(task)}</div>`;
    }
    if (item.kind === 'tool-call' || item.kind === 'tool-instance') return toolItem(item, state, 'stream');
    return html`<div class="stream-card" data-pending-interaction=${item.interaction.status === 'pending' ? item.interaction.id : nothing}>${item.call ? html`<lineup-tool-call .entry=${item.call} .state=${state}
      .linked=${true}></lineup-tool-call>` : ''}${interactionCard(item.interaction, state, 'stream')}${deliveryNote(item.interaction, state)}</div>`;
  }
}

LineupConversation.define('lineup-conversation');
