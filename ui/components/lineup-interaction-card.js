// An interaction card (docs/design.md#interaction-cards): why you are needed → impact → what you can do → details
// (folded); read-only once answered, showing who decided what and when.

import { html, nothing } from '../vendor/lit-html/lit-html.js';
import { live } from '../vendor/lit-html/directives/live.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, formatTime, formatDateTime, formatCountdown } from '../lib/i18n.js';
import { riskBadge } from '../lib/status.js';
import { queuedLine } from '../lib/answer-words.js';
import { artifactItem } from '../lib/artifacts.js';
import { approvesSection, approvalItems, confirmWhat, withSlots, reviewSection, reviewHidden } from '../lib/approves.js';
import { visible, learnHidden } from '../lib/visible.js';
import { insteadKeys, withReply } from '../lib/instead.js';
// An agent's text is put into the page a little per frame (<lineup-markdown .plain>): a question of 64 KiB, or a
// page of such cards in the inbox, never holds the page (docs/security.md).
import '../lib/markdown.js';

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** The hub's format checks (hub/domain/interactions.py), so a wrong answer is caught before sending; not the pattern. */
export function validateInput(spec, text) {
  const value = text ?? '';
  if (!value.trim()) return t('card.input.required');
  if (spec.maxLength && value.length > spec.maxLength) return t('card.input.tooLong', { n: spec.maxLength });
  const format = spec.format || 'text';
  if (format === 'url') {
    let ok = false;
    try {
      const url = new URL(value.trim());
      ok = (url.protocol === 'http:' || url.protocol === 'https:') && Boolean(url.host);
    } catch { ok = false; }
    if (!ok) return t('card.input.url');
  } else if (format === 'email' && !EMAIL.test(value.trim())) {
    return t('card.input.email');
  } else if (format === 'number' && !/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value)) {
    return t('card.input.number');
  } else if (format === 'integer' && !/^\s*[-+]?\d+\s*$/.test(value)) {
    return t('card.input.integer');
  }
  // `spec.pattern` comes from an agent and is never evaluated here: the browser's RegExp engine backtracks, so a
  // pattern such as `(.|.)*Z` would freeze the tab while the person types (docs/security.md). The card shows the
  // pattern as a hint; the hub checks the answer with RE2 (linear time, hub/domain/patterns.py) and its refusal, which
  // names the pattern, is shown under the card (`_submission`), with the answer kept for editing.
  return '';
}

const LEVELS = ['low', 'medium', 'high'];

// The hub's reasons for a risk in the person's language: each code of `riskReasonCodes` through its string
// `risk.reason.<code>` with the part it names; the hub's English text where the app has no string for the code (a
// newer hub) or the approval has no codes (an older one). Each with its level (`level`, the hub's since 2027-01; an
// older event's reasons are all at the card's risk), those that make it high first, in the hub's order otherwise.
// docs/protocol.md#what-an-approval-approves
function riskReasons(it, spec) {
  const english = spec.riskReasons || [];
  const codes = Array.isArray(spec.riskReasonCodes) && spec.riskReasonCodes.length === english.length
    ? spec.riskReasonCodes : [];
  const risk = statedRisk(it) || 'medium';
  const reasons = english.map((text, index) => {
    const entry = codes[index] && typeof codes[index] === 'object' ? codes[index] : {};
    const code = typeof entry.code === 'string' ? entry.code : '';
    const part = typeof entry.part === 'string' ? entry.part : '';
    const key = `risk.reason.${code}`;
    const shown = code ? t(key, { part }) : key;
    const stated = LEVELS.includes(entry.level);
    return { text: shown === key ? String(text) : shown, code, part, level: stated ? entry.level : risk, stated };
  });
  return [...reasons.filter((r) => r.level === 'high'), ...reasons.filter((r) => r.level !== 'high')];
}

/** Why a cancelled question ended, from its response's cause (docs/protocol.md#interactions). */

function closedBecause(response) {
  switch (response.cause) {
    case 'withdrawn': return response.reason ? t('card.decided.withdrawnWhy', { reason: response.reason })
      : t('card.decided.withdrawn');
    case 'task_ended': return t('card.decided.taskEnded', { status: t(`task.status.${response.taskStatus}`) });
    case 'task_cancelled': return t('card.decided.taskCancelled');
    case 'agent_revoked': return t('card.decided.agentRevoked');
    default: return t('card.decided.cancelled');
  }
}

function optionLabel(spec, id) {
  return optionWords((spec.options || []).find((o) => o.id === id)?.label || id);
}

// The option labels the hub itself writes (its default Approve/Reject, the options it makes for Claude Code's, Codex's
// and ACP agents' permission requests, a session's commit card), in the person's language. An agent's own labels are
// its words and stay as written: only these exact English labels are the hub's.
const HUB_OPTIONS = {
  'Approve': 'option.approve', 'Reject': 'option.reject', 'Deny': 'option.deny', 'Allow': 'option.allow',
  'Allow once': 'option.allowOnce', 'Allow always': 'option.allowAlways', 'Allow for this session': 'option.allowSession',
  'Decline': 'option.decline', 'Cancel': 'option.cancel', 'Commit': 'option.commit', "Don't commit": 'option.dontCommit',
  'Request changes': 'option.requestChanges',
};

export function optionWords(label) {
  return Object.hasOwn(HUB_OPTIONS, label) ? t(HUB_OPTIONS[label]) : label;
}

/** A reason's words with the part it names (a program, a branch, a path) set as code: it is the command's text, not
 * words to read or translate. */
function reasonText(reason) {
  const at = reason.part ? reason.text.indexOf(reason.part) : -1;
  if (at < 0) return visible(reason.text);
  return html`${visible(reason.text.slice(0, at))}<code class="reason-part">${visible(reason.part)}</code>${
    visible(reason.text.slice(at + reason.part.length))}`;
}

/** The declining option of an approval (the hub's default Reject when the agent gave no options), or undefined. */
function declining(spec) {
  const options = spec.options?.length ? spec.options : [{ id: 'reject', label: t('card.reject'), style: 'danger' }];
  return options.find((o) => !approving(o));
}

/** The hub's reasons as a note to the agent, in the person's words ("Not approved: deletes your home folder (~);
 * force-pushes over main."): those that make it high, else the first three. '' when the hub gave none. */
function reasonsNote(it, spec) {
  const reasons = riskReasons(it, spec);
  const high = reasons.filter((r) => r.level === 'high');
  const told = (high.length ? high : reasons.slice(0, 3)).map((r) => r.text);
  return told.length ? t('card.reasonsNote', { reasons: told.join(t('card.reasonsJoin')) }) : '';
}

function reasonList(list) {
  return list.map((r, index) => html`${index ? '; ' : ''}${reasonText(r)}`);
}

/** A string of the person's language with one of its places filled by a template (not by text). */
function template(key, name, filling) {
  const [before, after = ''] = t(key, { [name]: '\u0000' }).split('\u0000');
  return html`${visible(before)}${filling}${visible(after)}`;
}

/** The risk to show as a badge, or null. An approval always shows its risk (the hub's own judgement of what it
 * approves, never lower than the agent's); another card only the risk the agent gave (the hub files every card as
 * "medium"). */
export function statedRisk(it) {
  const spec = it.spec || {};
  if (spec.risk) return spec.risk;
  // A review approves what it shows as an approval does: its risk (the agent's; the hub does not judge a review).
  if (it.type === 'approval' || it.type === 'review') return it.risk || 'medium';
  return it.risk && it.risk !== 'medium' ? it.risk : null;
}

/** Whether choosing `option` approves (anything but reject and a `danger` option). */
const approving = (option) => option.id !== 'reject' && option.style !== 'danger';

// docs/design.md#no-approval-by-accident: the high-risk confirmation ignores its button this long after it appears,
// and shows that it is not yet active: a double-tap, a double-click or Enter pressed twice lands on it before anyone
// could have read it.
const CONFIRM_DELAY_MS = 1000;

// Approvals whose end has been in view (`${context}:${id}`): an approval taller than the screen is approved only once
// all of it has passed by (docs/security.md#what-an-approval-shows), and a card drawn again keeps that.
const endSeen = new Set();
const ALSO_SHOWN = 3;   // reasons below high shown on the "Also:" line before "N more"
const END_DWELL_MS = 300;

/** The height of the view `el` scrolls in: its nearest scrolling ancestor's, else the window's. */
function viewHeight(el) {
  for (let up = el.parentElement; up; up = up.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(up).overflowY) && up.clientHeight) return up.clientHeight;
  }
  return window.innerHeight;
}

/** Whether an option's label is just the word "Approve" (or "Reject"), which the wording must not repeat. */
function plainLabel(label, word) {
  const words = [word, t(word === 'approve' ? 'card.approve' : 'card.reject')].map((w) => w.toLowerCase());
  return !label || words.includes(String(label).trim().toLowerCase());
}

/** "Approved" alone for the plain option (not "Approved: Approve"), else with the option's label. */
function decided(key, label, word) {
  return plainLabel(label, word) ? t(`card.decided.${key}Plain`) : t(`card.decided.${key}`, { label });
}

export class LineupInteractionCard extends LineupElement {
  static properties = ['interaction', 'answer', 'state', 'context'];

  constructor() {
    super();
    this._fresh();
    this._onRowsComplete = () => this.requestUpdate();
  }

  /** What the card holds for the interaction it shows, as when first drawn: nothing chosen or typed, no confirmation
   * open, the gate not passed, no timer running. Also whenever the element is handed another interaction (a list that
   * reused it): a confirmation, a note or a passed gate belongs to one question and never moves to the next one. */
  _fresh() {
    // `confirming`: the option whose high-risk confirmation is open, `confirmFor`: the interaction it was asked on.
    // `rejecting`: the head's Reject box is open for the interaction of that id (see _quickRejectBox).
    this.local = { chosen: new Set(), text: '', comment: '', confirming: null, confirmFor: null, rejecting: null, error: '' };
    this._armed = true; // the confirmation's button may act (false for CONFIRM_DELAY_MS after it appears)
    this._confirmShownAt = null;
    clearTimeout(this._arming);
    clearTimeout(this._dwell);
    clearTimeout(this._countdown);
    // What the gate on Approve knows (see _gated): every item whole in the page, and the card taller than its view.
    this._whole = false;
    this._tall = false;
    this._hinted = false;
    this._endObserver?.disconnect();
    this._endObserver = null;
    this._endTarget = null;
    this._resized?.disconnect();
    this._sized = null;
    // What lit does not own: a note's drawer opened by hand.
    for (const note of this.querySelectorAll?.('details.note') ?? []) note.open = false;
  }

  connectedCallback() {
    super.connectedCallback();
    this.addEventListener('lineup-rows-complete', this._onRowsComplete);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.removeEventListener('lineup-rows-complete', this._onRowsComplete);
    this._endObserver?.disconnect();
    this._endObserver = null;
    this._endTarget = null;
    this._resized?.disconnect();
    this._sized = null;
    clearTimeout(this._arming);
    clearTimeout(this._dwell);
  }

  /** Whether Approve waits (docs/security.md#what-an-approval-shows): an approval with items, or a review with content,
   * is approved once all of it is in the page (no diff still loading, every block of rows painted) and, when the card
   * is taller than the view it scrolls in, once the end of its last item has been in view. Rejecting (requesting
   * changes) never waits. */
  _gated(it = this.interaction) {
    if (!it || it.status !== 'pending') return false;
    if (it.type === 'approval' ? !approvalItems(it.spec?.approves).length
      : it.type !== 'review' || !it.spec?.content) return false;
    if (endSeen.has(`${this.context || 'card'}:${it.id}`)) return false;
    return !this._whole || this._tall;
  }

  /** The line above the buttons of a card taller than its view: 'wait' (scroll to the end first) while its end has
   * not been seen, then 'seen' in the same place (its words change; the buttons under it do not move). */
  _scrollHint(it) {
    if (this._gated(it) && this._whole && this._tall) {
      this._hinted = true;
      return 'wait';
    }
    return this._hinted && it.status === 'pending' ? 'seen' : '';
  }

  updated() {
    const it = this.interaction;
    const list = this.querySelector('.approves-list');
    if (!list || it?.status !== 'pending' || endSeen.has(`${this.context || 'card'}:${it.id}`)) {
      this._endObserver?.disconnect();
      this._endObserver = null;
      this._endTarget = null;
      this._resized?.disconnect();
      this._sized = null;
      return;
    }
    const whole = !list.querySelector('[data-loading], lineup-rows:not([data-complete])');
    const article = this.querySelector('article');
    // Measured again whenever the card's size changes (a drawer opened, a font loaded), not only when it is drawn.
    this._resized ??= new ResizeObserver(() => this.requestUpdate());
    if (this._sized !== article) { this._resized.disconnect(); this._resized.observe(article); this._sized = article; }
    const tall = whole && article.offsetHeight > viewHeight(article);
    if (whole && !tall && article.offsetHeight > 0) {
      // All of it fits in its view: nothing to scroll through, now or when the card grows later (a note, the
      // confirmation under the buttons, which must not bring a hint above them and move them).
      endSeen.add(`${this.context || 'card'}:${it.id}`);
    }
    if (whole !== this._whole || tall !== this._tall) {
      this._whole = whole;
      this._tall = tall;
      this.requestUpdate();
    }
    // Watch the mark after the last item (lib/approves.js `.approves-end`). Asked afresh once the items are whole: the
    // mark may have been in view all along, and an observer says nothing until that changes.
    const end = list.querySelector('.approves-end');
    if (tall && (this._endTarget !== end || !this._endObserver)) {
      this._endObserver?.disconnect();
      this._endObserver = new IntersectionObserver((entries) => this._endInView(entries));
      this._endObserver.observe(end);
      this._endTarget = end;
    }
  }

  /** The end counts as seen once it has stayed in view END_DWELL_MS: not when a scroll only passed over it, or the
   * page showed it for a moment before moving to the card's top. */
  _endInView(entries) {
    clearTimeout(this._dwell);
    if (!entries[entries.length - 1]?.isIntersecting || !this._whole) return;
    this._dwell = setTimeout(() => {
      if (!this.isConnected || !this.interaction) return;
      endSeen.add(`${this.context || 'card'}:${this.interaction.id}`);
      this._endObserver?.disconnect();
      this._endObserver = null;
      this.requestUpdate();
    }, END_DWELL_MS);
  }

  /** Ids inside the card are unique per place: the same interaction can be on screen twice (stream and detail). */
  _uid(it) {
    return `${this.context || 'card'}-${it.id}`;
  }

  _respond(response) {
    const comment = this.local.comment.trim();
    if (comment) response.comment = comment;
    this.local.confirming = null;
    this.local.confirmFor = null;
    clearTimeout(this._arming);
    this.local.error = '';
    this.emit('lineup-interaction-respond', { interaction: this.interaction, response });
    this.requestUpdate();
  }

  _chooseApproval(option, event) {
    const spec = this.interaction.spec || {};
    if (approving(option) && this._gated()) return; // its button is disabled; a stale event does nothing either
    if (approving(option) && (this.interaction.risk || spec.risk) === 'high') {
      // docs/design.md#no-approval-by-accident: a high-risk approval needs a second, explicit step, so it is never
      // given by accident. The confirmation opens under the buttons (the one asked with stays where it was, disabled:
      // a second tap or click there does nothing), its own button acts only after CONFIRM_DELAY_MS and is never left
      // under the point that asked, and the focus goes to its words, so Enter pressed again approves nothing.
      if (this.local.confirming === option.id && this.local.confirmFor === this.interaction.id) return;
      this.local.confirming = option.id;
      this.local.confirmFor = this.interaction.id;
      this._armed = false;
      this._confirmShownAt = performance.now();
      clearTimeout(this._arming);
      this._arming = setTimeout(() => { this._armed = true; this.requestUpdate(); }, CONFIRM_DELAY_MS);
      // A conversation kept at its end would move everything up by the confirmation's height, which put its button
      // under a finger still on Approve: the view is held where the person is instead.
      this.emit('lineup-view-hold');
      const point = event?.detail > 0 ? { x: event.clientX, y: event.clientY } : null; // a click or tap, not a key
      this.requestUpdate();
      requestAnimationFrame(() => this._showConfirmation(point));
      return;
    }
    this._respond({ optionId: option.id });
  }

  /** Bring the confirmation into view (its scroll container only) without its button coming under `point`, then put
   * the focus on its words. */
  _showConfirmation(point) {
    const box = this.querySelector('.confirm-box');
    if (!box) return;
    let scroller = box.parentElement;
    while (scroller && !/(auto|scroll)/.test(getComputedStyle(scroller).overflowY)) scroller = scroller.parentElement;
    scroller ??= document.scrollingElement;
    const view = scroller === document.scrollingElement ? { top: 0, bottom: innerHeight } : scroller.getBoundingClientRect();
    const rect = box.getBoundingClientRect();
    let by = Math.max(0, Math.min(rect.bottom - view.bottom + 8, rect.top - view.top - 8));
    const button = this.querySelector('.confirm-approve')?.getBoundingClientRect();
    const under = (shift) => point && button && point.x >= button.left - 12 && point.x <= button.right + 12
      && button.top - shift - 12 <= point.y && point.y <= button.bottom - shift + 12;
    if (under(by)) by = button.top - point.y - 13; // it stops just below the point instead (up or down)
    if (by) scroller.scrollTop += by;
    this.querySelector('.confirm-text')?.focus({ preventScroll: true });
  }

  /** The confirmation's button: acts only for the interaction it was opened on (`forId`, this card's question when
   * drawn), still pending and still shown here, with its gate passed and its moment over. */
  _confirm(option, forId) {
    const it = this.interaction;
    if (!it || it.status !== 'pending' || forId !== it.id || this.local.confirmFor !== it.id
      || this.local.confirming !== option.id) return;
    if (this._gated(it)) return;
    if (!this._armed || this._confirmShownAt === null || performance.now() - this._confirmShownAt < CONFIRM_DELAY_MS) return;
    this._respond({ optionId: option.id });
  }

  _cancelConfirm() {
    this.local.confirming = null;
    this.local.confirmFor = null;
    clearTimeout(this._arming);
    this._armed = true;
    this.requestUpdate();
  }

  _submitChoice(event) {
    event.preventDefault();
    const spec = this.interaction.spec || {};
    const chosen = [...this.local.chosen];
    if (!chosen.length) {
      this.local.error = t('card.choice.required');
      this.requestUpdate();
      return;
    }
    this._respond(spec.multiple ? { optionIds: chosen } : { optionId: chosen[0] });
  }

  _submitInput(event) {
    event.preventDefault();
    const error = validateInput(this.interaction.spec || {}, this.local.text);
    this.local.error = error;
    this.requestUpdate();
    if (error) {
      requestAnimationFrame(() => this.querySelector('.input-answer')?.focus());
      return;
    }
    this._respond({ text: this.local.text });
  }

  render() {
    const it = this.interaction;
    if (!it) return '';
    if (this._shownId !== undefined && this._shownId !== it.id) this._fresh();
    this._shownId = it.id;
    const spec = it.spec || {};
    // A character the hub names as hidden is marked here too, whatever this browser's Unicode tables say (lib/visible.js).
    for (const entry of Array.isArray(spec.riskReasonCodes) ? spec.riskReasonCodes : []) {
      if (entry?.code === 'hidden_characters') learnHidden(entry.part);
    }
    const state = this.state || {};
    const agent = (state.agents || []).find((a) => a.id === it.agentId);
    // The task's title from the task list, or from the inbox's own answer until that list has loaded.
    const task = (state.tasks || []).find((x) => x.id === it.taskId)
      || (it.taskId && it.taskTitle ? { id: it.taskId, title: it.taskTitle } : null);
    const pending = it.status === 'pending';
    const answer = this.answer;
    const busy = pending && answer && (answer.status === 'sending' || answer.status === 'sent');
    const id = `card-${this._uid(it)}`;
    const showContext = this.context === 'inbox';
    const risk = statedRisk(it);
    return html`<article class="card interaction-card ${pending ? 'pending' : 'resolved'} ${risk ? `risk-${risk}` : ''}"
        data-interaction-id=${it.id} data-type=${it.type} data-status=${it.status} aria-labelledby=${`${id}-title`}>
      <header class="card-head">
        ${pending ? html`<span class="badge tone-waiting">${icon('waiting')}<span>${t(`card.kind.${it.type}`)}</span></span>`
          : this._outcomeBadge(it)}
        ${risk ? riskBadge(risk) : ''}
        <span class="card-meta muted">${agent?.name || t('who.agent')}${showContext && task ? html` · <a href=${`#/tasks?task=${encodeURIComponent(task.id)}`}
          @click=${(e) => { e.preventDefault(); this.emit('lineup-task-open', { taskId: task.id }); }}>${task.title}</a>` : ''}
          · <time datetime=${it.createdAt}>${formatTime(it.createdAt)}</time></span>
        ${pending && !busy && it.type === 'approval' ? this._quickReject(it, spec) : ''}
      </header>
      ${pending && !busy && it.type === 'approval' && this.local.rejecting === it.id ? this._quickRejectBox(it, spec) : ''}
      <h3 class="card-title" id=${`${id}-title`}>${visible(it.title)}</h3>
      ${risk && spec.riskReasons?.length ? this._reasons(it, spec, false) : ''}
      ${it.type === 'review' ? this._reviewWarning(spec) : ''}
      ${approvesSection(spec.approves, this._uid(it), () => this.requestUpdate(), { highlights: this._highlights(it, spec) })}
      ${spec.description ? html`<section class="card-section why">
        <h4>${t('card.why')}</h4>
        <lineup-markdown class="card-text" .plain=${true} .source=${spec.description}></lineup-markdown>
      </section>` : ''}
      ${spec.impact ? html`<section class="card-section impact"><h4>${t('card.impact')}</h4><lineup-markdown class="card-text"
        .plain=${true} .source=${spec.impact}></lineup-markdown></section>` : ''}
      ${it.type === 'review' && (spec.content || spec.attachments?.length) ? html`<div class="card-section review-section">
        ${reviewSection(spec, this._uid(it), () => this.requestUpdate())}
        ${spec.attachments?.length ? html`<ul class="artifact-list">${spec.attachments.map((a) => artifactItem(a))}</ul>` : ''}</div>` : ''}
      ${pending ? this._deadline(it) : ''}
      ${pending ? html`<section class="card-section actions-section">
          <h4>${t('card.actions')}</h4>
          <fieldset class="plain-fieldset" ?disabled=${busy}>${this._controls(it, spec)}</fieldset>
        </section>` : this._outcome(it, spec)}
      ${this._submission(it, answer)}
      ${this._details(it, spec)}
    </article>`;
  }

  /** The hub's reasons (riskReasons): those that make the card high first, each on a line of its own and emphasised,
   * the others after them, quieter, on one line ("Also: …"); a card without high reasons says them on one line
   * ("Why: …"). `confirm`: in the high-risk confirmation (the card's own lines carry the ids its highlights point to). */
  _reasons(it, spec, confirm) {
    const reasons = riskReasons(it, spec);
    if (!reasons.length) return '';
    const uid = this._uid(it);
    const risk = statedRisk(it);
    const className = confirm ? 'confirm-reasons' : 'risk-reasons';
    const high = reasons.filter((r) => r.level === 'high');
    const rest = reasons.filter((r) => r.level !== 'high');
    const line = (key, list) => template(key, 'reasons', reasonList(list));
    if (!high.length) return html`<p class=${`${className} small`} data-risk=${risk}>${line('card.riskReasons', rest)}</p>`;
    return html`<div class=${className} data-risk=${risk}>
      <p class="reasons-head small">${t('card.reasons.high')}</p>
      <ul class="reasons-high">${high.map((r, index) => html`<li class="risk-reason" data-level="high" data-code=${r.code || nothing}
        id=${confirm ? nothing : `reason-${uid}-${index}`}>${icon('warning')}<strong>${reasonText(r)}</strong></li>`)}</ul>
      ${rest.length ? this._alsoLine(rest) : ''}
    </div>`;
  }

  /** The reasons below high, quieter, after "Also:": the first ALSO_SHOWN of them, the rest one tap away ("6 more"), so
   * a command of many steps does not push what runs below the first screen with lines of medium reasons. */
  _alsoLine(rest) {
    const levels = [...new Set(rest.map((r) => r.level))].join(' ');
    if (rest.length <= ALSO_SHOWN) {
      return html`<div class="reasons-also small" data-levels=${levels}>${template('card.reasons.also', 'reasons', reasonList(rest))}</div>`;
    }
    const more = rest.slice(ALSO_SHOWN);
    return html`<div class="reasons-also small" data-levels=${levels}>${template('card.reasons.also', 'reasons',
      reasonList(rest.slice(0, ALSO_SHOWN)))}<details class="reasons-more"><summary>${t('card.reasons.more', {
      count: more.length })}</summary><span class="reasons-rest">; ${reasonList(more)}</span></details></div>`;
  }

  /** The parts the high reasons name, to highlight in the commands (lib/approves.js): only a reason the hub itself
   * calls high (an older event's reasons, all taken at the card's risk, would highlight `npm ci` as the danger), and
   * not a hidden character's name, which is a mark already. */
  _highlights(it, spec) {
    if (!spec.riskReasons?.length || !approvalItems(spec.approves).some((item) => item.kind === 'command')) return [];
    const uid = this._uid(it);
    return riskReasons(it, spec).filter((r) => r.level === 'high').map((r, index) => ({ part: r.part, id: `reason-${uid}-${index}`,
      label: r.text, code: r.code, stated: r.stated })).filter((h) => h.stated && h.part && h.code !== 'hidden_characters');
  }

  /** A review holding characters a person cannot see says so (the hub judges no review's risk): each is a mark where
   * it is. */
  _reviewWarning(spec) {
    const found = reviewHidden(spec);
    if (!found.length) return '';
    const codes = found.slice(0, 5).join(', ') + (found.length > 5 ? ', …' : '');
    return html`<p class="risk-reasons review-hidden small" data-risk="high">${icon('warning')} <strong>${t('card.review.hidden',
      { codes })}</strong></p>`;
  }

  /** How long the agent waits for the answer (its own deadline: Hermes stops after 60 s): a countdown in the last
   * ten minutes, the time before that. Nothing when the agent waits as long as it takes. */
  _deadline(it) {
    const at = Date.parse(it.expiresAt || '');
    if (Number.isNaN(at)) return '';
    const left = at - Date.now();
    clearTimeout(this._countdown);
    if (left > 0 && left <= 10 * 60 * 1000) this._countdown = setTimeout(() => this.requestUpdate(), 1000);
    const text = left <= 0 ? t('card.deadline.passed')
      : left <= 10 * 60 * 1000 ? t('card.deadline.countdown', { time: formatCountdown(left) })
        : t('card.deadline.until', { time: formatTime(it.expiresAt) });
    return html`<p class="card-deadline small ${left <= 60 * 1000 ? 'soon' : ''}" data-deadline=${it.expiresAt}>
      ${icon('clock')} <span>${text}</span></p>`;
  }

  _controls(it, spec) {
    switch (it.type) {
      case 'approval': return this._approvalControls(it, spec);
      case 'choice': return this._choiceControls(it, spec);
      case 'input': return this._inputControls(it, spec);
      case 'review': return this._reviewControls(it, spec);
      default: return html`<p class="muted">${t('card.unknownType', { type: it.type })}</p>`;
    }
  }

  _note(spec = {}) {
    // Whether the note reaches the agent (docs/protocol.md#what-an-approval-approves `notes`): said before it is typed.
    const notes = ['sent', 'next_message', 'not_sent'].includes(spec.notes) ? spec.notes : 'sent';
    return html`<details class="note" ?open=${Boolean(this.local.comment)}>
      <summary>${t('card.addNote')}</summary>
      <label class="field"><span class="visually-hidden">${t('card.note')}</span>
        <textarea rows="2" maxlength="4000" .value=${live(this.local.comment)} aria-describedby=${`note-${this._uid(this.interaction)}`}
          @input=${(e) => { this.local.comment = e.target.value; }}></textarea></label>
      <p class="note-fate small" id=${`note-${this._uid(this.interaction)}`} data-notes=${notes}>${t(`card.note.${notes}`)}</p>
    </details>`;
  }

  /** Reject at the card's top, in its head, for a card taller than its view: deciding no needs nothing below (the
   * usability re-run's phone participants scrolled a 1,100 px card to reach Reject). Only the declining option: to
   * approve, the end of what is approved must have been seen. Always drawn (hidden while the card fits), so that its
   * appearing moves nothing. It opens a box under the head (_quickRejectBox) that says what Reject does and takes a
   * note, so a person who wants to tell the agent why need not go to the card's end either. */
  _quickReject(it, spec) {
    const no = declining(spec);
    if (!no) return '';
    const open = this.local.rejecting === it.id;
    return html`<button type="button" class="button danger-outline small quick-reject" data-quick-option=${no.id}
      aria-expanded=${open ? 'true' : 'false'} aria-controls=${`quick-reject-${this._uid(it)}`}
      ?hidden=${!(this._whole && this._tall)} @click=${() => this._toggleQuickReject(it)}>${icon('close')}<span>${
      visible(optionWords(no.label))}</span></button>`;
  }

  _toggleQuickReject(it) {
    this.local.rejecting = this.local.rejecting === it.id ? null : it.id;
    this.requestUpdate();
    // The focus goes to the box's own Reject (not to the note: a phone's keyboard would cover the card for a bare no).
    if (this.local.rejecting) requestAnimationFrame(() => this.querySelector('.quick-reject-send')?.focus());
  }

  /** The head's Reject, opened: what Reject does, the hub's reasons offered as the note in one tap ("Tell it why"),
   * replies that reject at once saying what to do instead (ui/lib/instead.js, with the reasons), the note itself (the same one as at the card's end), and the Reject that answers. */
  _quickRejectBox(it, spec) {
    const no = declining(spec);
    if (!no) return '';
    const uid = this._uid(it);
    const notes = ['sent', 'next_message', 'not_sent'].includes(spec.notes) ? spec.notes : 'sent';
    const why = notes === 'not_sent' ? '' : reasonsNote(it, spec);
    const told = why && this.local.comment.includes(why);
    // Reject and say what to do instead, one tap each, with the reasons: a no usually comes with what the person wants
    // instead, and typing it on a phone took the three who wrote it longer than the decision itself.
    const replies = notes === 'not_sent' ? [] : insteadKeys(riskReasons(it, spec));
    return html`<div class="quick-reject-box" id=${`quick-reject-${uid}`} role="group" aria-labelledby=${`quick-reject-${uid}-means`}>
      <p class="small" id=${`quick-reject-${uid}-means`}>${no.description ? visible(no.description) : t('card.rejectMeans')}</p>
      ${why ? html`<button type="button" class="button small tell-why" ?disabled=${told} aria-pressed=${told ? 'true' : 'false'}
        @click=${() => { this.local.comment = this.local.comment.trim() ? `${this.local.comment.trim()}\n${why}` : why; this.requestUpdate(); }}>${
        icon(told ? 'check' : 'plus')}<span>${t('card.tellWhy')}</span></button>` : ''}
      ${replies.length ? html`<div class="instead-replies" role="group" aria-labelledby=${`quick-reject-${uid}-instead`}>
        <p class="small" id=${`quick-reject-${uid}-instead`}>${t('card.instead')}</p>
        ${replies.map((key) => {
          const reply = t(key);
          // One tap answers: the no, with the reasons, this reply and whatever was typed (a no is never the risky
          // way to decide, and the receipt says it went with the note).
          return html`<button type="button" class="button small danger-outline instead-reply" data-instead=${key.slice('card.instead.'.length)}
            @click=${(e) => { this.local.comment = withReply(this.local.comment, why, reply); this._chooseApproval(no, e); }}>${
            icon('send')}<span>${reply}</span></button>`;
        })}</div>` : ''}
      <label class="field"><span class="small">${t('card.addNote')}</span>
        <textarea rows=${this.local.comment.includes('\n') ? 4 : 2} maxlength="4000" class="quick-reject-note" .value=${live(this.local.comment)}
          aria-describedby=${`quick-reject-${uid}-fate`} @input=${(e) => { this.local.comment = e.target.value; this.requestUpdate(); }}></textarea></label>
      <p class="note-fate small muted" id=${`quick-reject-${uid}-fate`} data-notes=${notes}>${t(`card.note.${notes}`)}</p>
      <div class="button-row">
        <button type="button" class="button danger quick-reject-send" data-quick-send=${no.id}
          @click=${(e) => this._chooseApproval(no, e)}>${icon('close')}<span>${visible(optionWords(no.label))}</span></button>
        <button type="button" class="button quick-reject-back" @click=${() => this._toggleQuickReject(it)}>${t('action.back')}</button>
      </div>
    </div>`;
  }

  _approvalControls(it, spec) {
    const options = spec.options?.length ? spec.options : [{ id: 'reject', label: t('card.reject'), style: 'danger' },
      { id: 'approve', label: t('card.approve'), style: 'primary' }];
    const uid = this._uid(it);
    const confirming = this.local.confirmFor === it.id ? options.find((o) => o.id === this.local.confirming) : undefined;
    const gated = this._gated(it);
    const hint = this._scrollHint(it);
    // Reject without words of its own says what it does: a newcomer who fears it ends the task
    // leans toward Approve. The agent's own description, when it gave one, says it instead.
    const means = (o) => !approving(o) && !o.description;
    const described = (o, index) => [o.description || means(o) ? `option-${uid}-${index}` : '', approving(o) && hint === 'wait'
      ? `gate-${uid}` : ''].filter(Boolean).join(' ') || nothing;
    const withDescriptions = options.some((o) => o.description || means(o));
    return html`${hint ? html`<p class="gate-hint small" id=${`gate-${uid}`} role="status" data-gate=${hint}>${icon(
        hint === 'wait' ? 'warning' : 'check')} <span>${t(hint === 'wait' ? 'card.scrollToEnd' : 'card.endSeen')}</span></p>` : ''}
      <div class="approval-options ${withDescriptions ? 'described' : ''}">${options.map((o, index) => html`<div class="approval-option">
        <button class="button ${o.style === 'danger' ? 'danger' : o.style === 'primary' ? 'primary' : ''}" data-option=${o.id}
          ?disabled=${approving(o) && (gated || confirming === o)} aria-expanded=${confirming === o ? 'true' : nothing}
          aria-describedby=${described(o, index)}
          @click=${(e) => this._chooseApproval(o, e)}>${o.style === 'danger' ? icon('close') : icon('check')}<span
            class="option-label">${visible(optionWords(o.label))}</span></button>
        ${o.description ? html`<p class="option-description small" id=${`option-${uid}-${index}`}>${visible(o.description)}</p>`
          : means(o) ? html`<p class="reject-means small muted" id=${`option-${uid}-${index}`}>${t('card.rejectMeans')}</p>` : ''}
      </div>`)}</div>
      ${confirming ? this._confirmation(it, spec, confirming) : ''}
      ${this._note(spec)}`;
  }

  /** The second step of a high-risk approval, under the buttons: the hub's reasons and what is approved, in the hub's
   * words (never the agent's `impact`), and a button that acts only after CONFIRM_DELAY_MS. */
  _confirmation(it, spec, option) {
    const uid = this._uid(it);
    return html`<div class="confirm-box" id=${`confirm-${uid}`} role="group" aria-labelledby=${`confirm-${uid}-text`}
        data-confirm-for=${it.id}>
      <p class="confirm-text" id=${`confirm-${uid}-text`} tabindex="-1">${icon('warning')} <strong>${t('card.confirmHigh')}</strong></p>
      ${spec.riskReasons?.length ? this._reasons(it, spec, true) : ''}
      ${confirmWhat(spec.approves, { highlights: this._highlights(it, spec) })}
      <div class="button-row">
        <button class="button primary confirm-approve ${this._armed ? '' : 'arming'}" data-option=${option.id}
          ?disabled=${!this._armed} @click=${() => this._confirm(option, it.id)}>${plainLabel(option.label, 'approve')
            ? t('card.confirmApprove') : withSlots('card.confirmButton', {}, { label: visible(option.label) })}</button>
        <button class="button" @click=${() => this._cancelConfirm()}>${t('action.back')}</button>
      </div>
      <p class="confirm-wait muted small" aria-live="polite">${this._armed ? '' : t('card.confirmWait')}</p>
    </div>`;
  }

  _choiceControls(it, spec) {
    const multiple = Boolean(spec.multiple);
    const name = `choice-${this._uid(it)}`;
    return html`<form class="choice-form" @submit=${(e) => this._submitChoice(e)} novalidate>
      <fieldset class="choices" aria-describedby=${this.local.error ? `${name}-error` : nothing}>
        <legend>${multiple ? t('card.choice.many') : t('card.choice.one')}</legend>
        ${(spec.options || []).map((o) => html`<label class="choice">
          <input type=${multiple ? 'checkbox' : 'radio'} name=${name} value=${o.id}
            .checked=${live(this.local.chosen.has(o.id))}
            @change=${(e) => {
              if (!multiple) this.local.chosen.clear();
              if (e.target.checked) this.local.chosen.add(o.id); else this.local.chosen.delete(o.id);
              this.local.error = '';
              this.requestUpdate();
            }}>
          <span class="choice-text"><span class="choice-label">${o.label}</span>
            ${o.recommended ? html`<span class="badge tone-running">${icon('check')}<span>${t('card.recommended')}</span></span>` : ''}
            ${o.description ? html`<span class="muted small">${o.description}</span>` : ''}</span>
        </label>`)}
      </fieldset>
      ${this.local.error ? html`<p class="field-error" id=${`${name}-error`} role="alert">${this.local.error}</p>` : ''}
      ${this._note(spec)}
      <div class="button-row">
        <button type="submit" class="button primary">${t('card.choice.submit')}</button>
        <button type="button" class="button ghost" @click=${() => this._respond({ declined: true })}>${t('card.decline')}</button>
      </div>
    </form>`;
  }

  _inputControls(it, spec) {
    const format = spec.format || 'text';
    const inputId = `input-${this._uid(it)}`;
    const inputMode = { url: 'url', email: 'email', number: 'decimal', integer: 'numeric' }[format] || 'text';
    const describedBy = [`${inputId}-hint`, this.local.error ? `${inputId}-error` : ''].filter(Boolean).join(' ');
    return html`<form class="input-form" @submit=${(e) => this._submitInput(e)} novalidate>
      <label class="field" for=${inputId}><span>${t('card.input.label')}</span></label>
      <input id=${inputId} class="input-answer" type="text" inputmode=${inputMode} autocomplete="off"
        placeholder=${spec.placeholder || ''} maxlength=${spec.maxLength || 100000} .value=${live(this.local.text)}
        aria-invalid=${this.local.error ? 'true' : 'false'} aria-describedby=${describedBy}
        @input=${(e) => { this.local.text = e.target.value; if (this.local.error) { this.local.error = validateInput(spec, this.local.text); this.requestUpdate(); } }}>
      <p class="muted small" id=${`${inputId}-hint`}>${t(`card.input.format.${format}`)}${spec.pattern ? ` · ${t('card.input.patternHint', { pattern: spec.pattern })}` : ''}</p>
      ${this.local.error ? html`<p class="field-error" id=${`${inputId}-error`} role="alert">${icon('warning')} ${this.local.error}</p>` : ''}
      ${this._note(spec)}
      <div class="button-row">
        <button type="submit" class="button primary">${icon('send')}<span>${t('card.input.submit')}</span></button>
        <button type="button" class="button ghost" @click=${() => this._respond({ declined: true })}>${t('card.decline')}</button>
      </div>
    </form>`;
  }

  _reviewControls(it, spec) {
    // Approve waits as an approval's does (the end of the content seen on a card taller than its view); requesting
    // changes never waits.
    const uid = this._uid(it);
    const gated = this._gated(it);
    const hint = this._scrollHint(it);
    return html`${this._note(spec)}
      ${hint ? html`<p class="gate-hint small" id=${`gate-${uid}`} role="status" data-gate=${hint}>${icon(
        hint === 'wait' ? 'warning' : 'check')} <span>${t(hint === 'wait' ? 'card.review.scrollToEnd' : 'card.review.endSeen')}</span></p>` : ''}
      <div class="button-row">
        <button class="button" data-decision="request_changes" @click=${() => this._respond({ decision: 'request_changes' })}>
          ${icon('close')}<span>${t('card.review.changes')}</span></button>
        <button class="button primary" data-decision="approve" ?disabled=${gated}
          aria-describedby=${hint === 'wait' ? `gate-${uid}` : nothing}
          @click=${() => { if (!this._gated()) this._respond({ decision: 'approve' }); }}>
          ${icon('check')}<span>${t('card.review.approve')}</span></button>
      </div>`;
  }

  _outcomeBadge(it) {
    const tone = { answered: 'success', declined: 'danger', expired: 'neutral', cancelled: 'neutral' }[it.status] || 'neutral';
    const glyph = { answered: 'succeeded', declined: 'failed', expired: 'clock', cancelled: 'cancelled' }[it.status] || 'queued';
    // The same word as the outcome line under it: an approval's declined is "Rejected", a review's "Changes requested".
    const word = it.status !== 'declined' || it.response?.declined ? t(`card.outcome.${it.status}`)
      : it.type === 'approval' ? t('card.decided.rejectedPlain')
        : it.type === 'review' ? t('card.decided.reviewChanges') : t(`card.outcome.${it.status}`);
    return html`<span class="badge tone-${tone}">${icon(glyph)}<span>${word}</span></span>`;
  }

  _outcome(it, spec) {
    const me = this.state?.me;
    const by = it.respondedBy;
    let who = t('who.hub');
    if (by?.kind === 'user') who = by.id === me?.userId ? t('card.byYou', { name: me.displayName }) : t('who.person');
    const response = it.response || {};
    let what;
    if (it.status === 'expired') what = t('card.decided.expired');
    else if (it.status === 'cancelled') what = closedBecause(response);
    else if (response.declined) what = t('card.decided.declined');
    else if (it.type === 'approval') {
      const label = optionLabel(spec, response.optionId);
      what = response.approved === false || it.status === 'declined'
        ? decided('rejected', label, 'reject') : decided('approved', label, 'approve');
    } else if (it.type === 'choice') {
      const ids = response.optionIds || (response.optionId ? [response.optionId] : []);
      what = t('card.decided.chose', { labels: ids.map((x) => optionLabel(spec, x)).join(', ') });
    } else if (it.type === 'input') what = t('card.decided.answered', { text: response.text ?? '' });
    else if (it.type === 'review') what = t(response.decision === 'approve' ? 'card.decided.reviewApproved' : 'card.decided.reviewChanges');
    else what = t(`card.outcome.${it.status}`);
    const when = it.respondedAt;
    const showWho = it.status !== 'expired' && it.status !== 'cancelled';
    return html`<section class="card-outcome" data-outcome=${it.status} data-cause=${response.cause || ''}>
      <p><strong class="decision">${what}</strong></p>
      ${it.status === 'cancelled' && response.cause ? html`<p class="small">${t('card.closedNote')}</p>` : ''}
      <p class="muted small">${showWho ? html`${t('card.decidedBy', { who })} · ` : ''}<time datetime=${when || ''}>${formatDateTime(when)}</time></p>
      ${response.comment ? html`<p class="small">${t('card.noteLabel')} <span class="prewrap">${response.comment}</span></p>` : ''}
    </section>`;
  }

  _submission(it, answer) {
    if (!answer) return html`<p class="submission" role="status" aria-live="polite"></p>`;
    const live = this.state?.connection?.status === 'live';
    let body = '';
    if (it.status === 'pending') {
      // Offline: the answer waits in the page; say which it was (the buttons are disabled and show no choice).
      if (answer.status === 'sending' && !live) body = html`<span>${icon('clock')} ${queuedLine(it, answer.response)}</span>`;
      else if (answer.status === 'sending') body = html`<span class="spinner small" aria-hidden="true"></span> ${t('card.submit.sending')}`;
      else if (answer.status === 'sent') body = html`${icon('check')} ${t('card.submit.sent')}`;
    }
    if (answer.status === 'failed') {
      const code = answer.error?.code;
      body = html`${icon('warning')} <span>${code === 'already_resolved' ? t('card.submit.already')
        : t('card.submit.failed', { message: answer.error?.message || '' })}</span>
        ${it.status === 'pending' ? html`<button class="button small" @click=${() => this._respond({ ...answer.response })}>${t('action.tryAgain')}</button>` : ''}`;
    }
    return html`<p class="submission ${answer.status === 'failed' ? 'tone-danger' : ''}" role="status" aria-live="polite"
      data-submission=${answer.status}>${body}</p>`;
  }

  _details(it, spec) {
    const details = spec.details && typeof spec.details === 'object' ? Object.entries(spec.details) : [];
    // A key LineUp's own agents send has its label ("claudeSession": "Claude Code session"); another agent's key is
    // shown in words ("migrationCount": "Migration count", "rate_limit": "Rate limit"), never as the raw key.
    const label = (key) => {
      const known = t(`card.detailKey.${key}`);
      if (known !== `card.detailKey.${key}`) return known;
      const words = String(key).replace(/([a-z\d])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
        .replace(/[_-]+/g, ' ').trim().toLowerCase();
      return words ? words[0].toUpperCase() + words.slice(1) : String(key);
    };
    const kind = t(`card.type.${it.type}`);
    return html`<details class="card-details">
      <summary>${t('card.details')}</summary>
      <dl class="kv">
        ${details.map(([k, v]) => html`<dt data-key=${k}>${label(k)}</dt><dd>${typeof v === 'object' ? JSON.stringify(v) : String(v)}</dd>`)}
        <dt>${t('card.detail.type')}</dt><dd>${kind === `card.type.${it.type}` ? it.type : kind}</dd>
        ${statedRisk(it) ? html`<dt>${t('card.detail.risk')}</dt><dd>${t(`risk.${statedRisk(it)}`)}</dd>` : ''}
        ${it.expiresAt ? html`<dt>${t('card.detail.expires')}</dt><dd>${formatDateTime(it.expiresAt)}</dd>` : ''}
        <dt>${t('card.detail.id')}</dt><dd class="mono">${it.id}</dd>
      </dl>
    </details>`;
  }
}

LineupInteractionCard.define('lineup-interaction-card');
