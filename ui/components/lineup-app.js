// The shell: first run, sign-in and the signed-in layout (sidebar, conversation, task detail; docs/design.md#layout).

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { createApi, deviceName } from '../lib/api.js';
import { requestInit } from '../lib/early.js';
import { Workspace } from '../lib/workspace.js';
import { parseRoute, navigate, routeHref } from '../lib/router.js';
import { t, setLanguage, formatCountdown, formatDateTime } from '../lib/i18n.js';
import { icon } from '../lib/icons.js';
import { inboxLists } from '../lib/inbox.js';
import {
  enableRelay, forgetRelay, forgetRelayCredentials, loadRelayAccess, loadRelayCredentials, revokeRelay,
} from '../lib/relay-access.js';
import { setHubReachable } from '../lib/status.js';
import { afterFirstScreen, firstScreenRendered, need, warmUp } from '../lib/lazy.js';

// Below 640 px the sidebar is a drawer behind the menu button (styles/layout.css).
const PHONE_LAYOUT = window.matchMedia('(max-width: 639px)');

/** Whether the app has lost its hub: offline, or reconnecting after having been offline. */
function hubLost(connection) {
  return connection.status === 'offline' || (connection.status === 'connecting' && Boolean(connection.offlineSince));
}

// How long "Connected to the hub again." stays where the hub-down banner was.
const BACK_SHOWN_MS = 4000;

const TOKEN_KEY = 'lineup.token';
// When this browser last reached its hub (shown while it cannot: issue "When something goes wrong", item 5).
const REACHED_KEY = 'lineup.hub.lastReached';
// A page that cannot reach the hub tries again by itself after these waits (the last one repeated), and at once when
// the browser says it is back online or the person asks.
const ENTRY_RETRY_MS = [2000, 4000, 8000, 15000, 30000];

function lastReached() {
  try { return localStorage.getItem(REACHED_KEY); } catch { return null; }
}

function rememberReached() {
  try { localStorage.setItem(REACHED_KEY, new Date().toISOString()); } catch { /* not remembered */ }
}

function readToken() {
  try { return localStorage.getItem(TOKEN_KEY); } catch { return null; }
}

function writeToken(token) {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  } catch { /* kept for this page only */ }
}

let relayView = null; // lib/relay-view.js, once loaded (_renderBanner)

// How long a sign-out waits for the hub's answer before this device signs out by itself and says so.
const SIGN_OUT_WAIT_MS = 8000;

/**
 * Sign this device out on the hub: POST /api/devices/current/revoke revokes the device whose token it carries (its
 * token answers 401 from then on, its sockets close, the relay access it holds is revoked). Straight to the hub's
 * address, also in relay mode: the relay carries envelopes, not HTTP, so only the hub itself can be told.
 * 'done' (a 401 too: the hub refuses the token already), 'relay' (done, but the relay access could not be
 * revoked), or 'unreached' (the hub did not answer in time, or refused).
 */
async function signOutOnHub(token) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), SIGN_OUT_WAIT_MS);
  try {
    const response = await fetch('/api/devices/current/revoke',
      { ...requestInit('POST', token, '{}'), signal: controller.signal });
    if (response.status === 401) return 'done';
    if (!response.ok) return 'unreached';
    const answer = await response.json().catch(() => null); // a cut-off answer: the hub revoked all the same
    return answer?.relayAccess === 'failed' ? 'relay' : 'done';
  } catch {
    return 'unreached';
  } finally {
    clearTimeout(timer);
  }
}

const SIGN_OUT_NOTICES = { unreached: 'signout.hubNotTold', relay: 'signout.relayNotRevoked' };

export class LineupApp extends LineupElement {
  constructor() {
    super();
    this.phase = 'boot';
    this.route = parseRoute();
    this.menuOpen = false;
    this.workspace = null;
    this.state = null;
    this.busy = false;
    this.formError = null;
    this.notice = null;
    this.setupInfo = null;
    this.token = readToken();
    this.api = createApi({ getToken: () => this.token, onUnauthorized: () => this.signOut('revoked') });
    this._tick = null;
    // a sign-in link's code waiting for the person's answer (docs/security.md#what-each-credential-can-do)
    this.pendingSignIn = null;
  }

  connectedCallback() {
    super.connectedCallback();
    if (this._listening) return;
    this._listening = true;
    this.replaceChildren(); // the boot placeholder of index.html
    window.addEventListener('hashchange', () => this._routeChanged());
    window.addEventListener('lineup-piece-failed', () => {
      this.notice = { kind: 'error', text: t('app.pieceFailed') };
      this.requestUpdate();
    });
    document.addEventListener('keydown', (e) => this._onKey(e));
    PHONE_LAYOUT.addEventListener('change', () => this.requestUpdate()); // wider now: the sidebar shows
    window.addEventListener('online', () => { if (this.phase === 'unreachable') this._retryEntry(); });
    // The last time the hub answered, for the page that cannot reach it (a reload with the hub down).
    const remember = () => { if (this.state?.connection?.status === 'live') rememberReached(); };
    window.addEventListener('pagehide', remember);
    document.addEventListener('visibilitychange', remember);
    this._listen();
    this.boot();
  }

  // ---- phases ---------------------------------------------------------------------------------------

  async boot() {
    const hash = window.location.hash;
    if (hash.startsWith('#signin=')) {
      // The one-time code rides in the fragment (never sent to a server or logged); remove it at once.
      const code = decodeURIComponent(hash.slice('#signin='.length));
      history.replaceState(null, '', window.location.pathname + window.location.search);
      this.route = parseRoute('');
      // A signed-in browser is never switched without asking (docs/security.md#what-each-credential-can-do): a link in
      // an agent's artifact could sign it into another workspace and drop the person's own session. Asked once the
      // session shows.
      if (this.token) this.pendingSignIn = code;
      else await this._redeemSignIn(code);
    }
    if (this.token) {
      await this.enter();
      return;
    }
    await this.showEntry();
  }

  /** Redeem a one-time sign-in link's code; the new token replaces whatever was stored. */
  async _redeemSignIn(code) {
    try {
      const answer = await this.api.post('/api/sign-in-links/redeem', { code, deviceName: deviceName() });
      this.token = answer.token;
      writeToken(answer.token);
      return true;
    } catch (error) {
      this.notice = { kind: 'error', text: t('signin.linkFailed'), detail: error.message };
      return false;
    }
  }

  /** The person chose to keep their session: the link's code is forgotten, unused. */
  _keepSession() {
    this.pendingSignIn = null;
    this.querySelector('dialog.signin-switch')?.close();
    this.requestUpdate();
  }

  /** The person chose the link's account: sign this device out, then in with the link. */
  async _switchSession() {
    const code = this.pendingSignIn;
    this.pendingSignIn = null;
    this.querySelector('dialog.signin-switch')?.close();
    if (!code) return;
    const outboxKey = this.workspace?.live?.outboxKey;
    const previousToken = this.token;
    if (!(await this._redeemSignIn(code))) {
      this.requestUpdate(); // the link failed: the current session goes on, with a notice
      return;
    }
    // As in signOut(): the previous account's queued envelopes and relay access stay with that account.
    if (outboxKey) {
      try { localStorage.removeItem(outboxKey); } catch { /* nothing stored */ }
    }
    forgetRelayCredentials();
    this.workspace?.stop();
    this.workspace = null;
    clearInterval(this._tick);
    // The previous session ends on the hub too, as a sign-out does.
    const told = previousToken ? await signOutOnHub(previousToken) : 'done';
    if (SIGN_OUT_NOTICES[told]) this.notice = { kind: 'error', text: t(SIGN_OUT_NOTICES[told]) };
    await this.enter();
  }

  async showEntry() {
    try {
      this.setupInfo = await this.api.get('/api/setup');
      this.phase = this.setupInfo.needsSetup ? 'setup' : 'signin';
      this._reachedAgain();
    } catch (error) {
      this._unreachable(error);
    }
    this.requestUpdate();
  }

  /** The hub did not answer the first reads: say so, and try again by itself, later and later (ENTRY_RETRY_MS). */
  _unreachable(error) {
    this.phase = 'unreachable';
    this.formError = error;
    this._retrying = false;
    const delay = ENTRY_RETRY_MS[Math.min(this._entryAttempts ?? 0, ENTRY_RETRY_MS.length - 1)];
    this._entryAttempts = (this._entryAttempts ?? 0) + 1;
    this._entryRetryAt = Date.now() + delay;
    clearTimeout(this._entryTimer);
    this._entryTimer = setTimeout(() => this._retryEntry(), delay);
    clearInterval(this._entryTick);
    this._entryTick = setInterval(() => this.requestUpdate(), 1000); // the countdown
  }

  /** Try the first reads again, keeping the unreachable page on the screen until the hub answers. */
  async _retryEntry() {
    if (this.phase !== 'unreachable' || this._retrying) return;
    clearTimeout(this._entryTimer);
    this._retrying = true;
    this.requestUpdate();
    if (this.token) await this.enter();
    else await this.showEntry();
  }

  _reachedAgain() {
    clearTimeout(this._entryTimer);
    clearInterval(this._entryTick);
    this._entryAttempts = 0;
    this._retrying = false;
  }

  async enter() {
    // Tried again from the unreachable page: that page stays until the inbox can be shown (no spinner flashing).
    if (this.phase !== 'unreachable') this.phase = 'loading';
    this.requestUpdate();
    const workspace = new Workspace({ token: this.token, api: this.api, html });
    this.state = workspace.state; // never a previous session's, while this one loads
    workspace.onUnauthorized = () => this.signOut('revoked');
    workspace.onNotificationOpen = (note) => this._openNotification(note);
    this.workspace = workspace;
    workspace.subscribe((state) => {
      this.state = state;
      if (this.phase === 'unreachable' && state.inboxLoaded) this.phase = 'loading';
      if (state.connection.status === 'live' && !this._liveSeen) rememberReached();
      this._liveSeen = state.connection.status === 'live';
      this.requestUpdate();
    });
    try {
      await workspace.start();
      this.state = workspace.state;
      this.phase = 'ready';
      this._reachedAgain();
      if (loadRelayCredentials()) warmUp(); // a device used away from home keeps every screen's code
      workspace.openConversation(this.route.view === 'conversations' ? this.route.id : null);
      workspace.openTask(this.route.task);
      // Whether this person may start sessions (the owner, roots set): read once the first screen is up.
      afterFirstScreen(() => this.workspace?.wantSessions());
      this._tick = setInterval(() => this.requestUpdate(), 1000);
    } catch (error) {
      workspace.stop();
      this.workspace = null;
      if (error.status === 401) {
        // signOut() already ran; a sign-in link that waited for the person's answer replaces nothing now.
        const code = this.pendingSignIn;
        this.pendingSignIn = null;
        if (code && await this._redeemSignIn(code)) await this.enter();
        return;
      }
      this._unreachable(error);
    }
    this.requestUpdate();
  }

  /**
   * The person signs out (no reason), or the hub refused this device's token ('revoked'). Signing out tells the hub
   * first (signOutOnHub), so the token stops working there, then forgets it here whatever the hub answered; when
   * the hub could not be told, the person is told what still works and where to revoke it.
   */
  async signOut(reason) {
    if (this._signingOut || (reason === 'revoked' && !this.token)) return; // a late 401 of this very sign-out
    this._signingOut = true;
    const token = this.token;
    // Envelopes still queued for this device can never be sent with its token any more.
    const outboxKey = this.workspace?.live?.outboxKey;
    if (outboxKey) {
      try { localStorage.removeItem(outboxKey); } catch { /* nothing stored */ }
    }
    // Stopped first: the hub closes this device's sockets (4401) as it revokes it, which is no news to this tab.
    this.workspace?.stop();
    this.workspace = null;
    this.state = null;
    clearInterval(this._tick);
    let told = 'done';
    if (reason !== 'revoked' && token) {
      this.phase = 'signing-out';
      this.requestUpdate();
      told = await signOutOnHub(token);
    }
    forgetRelayCredentials(); // nor may whoever signs in next use this person's relay access
    this.token = null;
    // Another tab of this browser may have signed in anew meanwhile (a sign-in link switching accounts revokes the
    // session this tab held): the stored token is then that session's, not ours to forget.
    if (readToken() === token) writeToken(null);
    document.title = 'LineUp Agents';
    this.notice = reason === 'revoked' ? { kind: 'error', text: t('signin.revoked') }
      : SIGN_OUT_NOTICES[told] ? { kind: 'error', text: t(SIGN_OUT_NOTICES[told]) } : null;
    this._signingOut = false;
    await this.showEntry();
  }

  async _submitEntry(path, body) {
    this.busy = true;
    this.formError = null;
    this.requestUpdate();
    try {
      const answer = await this.api.post(path, { ...body, deviceName: deviceName() });
      this.token = answer.token;
      writeToken(answer.token);
      this.notice = null;
      this.busy = false;
      await this.enter();
    } catch (error) {
      this.busy = false;
      this.formError = error;
      this.requestUpdate();
    }
  }

  // ---- events from the pieces -------------------------------------------------------------------------

  _listen() {
    const on = (name, fn) => this.addEventListener(name, (e) => fn(e.detail, e));
    const ws = () => this.workspace;
    on('lineup-setup-submit', (d) => this._submitEntry('/api/setup', d));
    on('lineup-sign-in-submit', (d) => this._submitEntry('/api/login', d));
    on('lineup-sign-out', () => this.signOut());
    on('lineup-language-change', (d) => setLanguage(d.language));
    on('lineup-menu-toggle', (d) => this._setMenu(d.open ?? !this.menuOpen));
    on('lineup-task-open', (d) => navigate({ ...this.route, task: d.taskId }));
    on('lineup-task-close', () => this._closeTask());
    on('lineup-task-cancel', (d) => ws()?.requestCancel(d.taskId, d.reason));
    on('lineup-task-restart', (d) => {
      const sent = ws()?.restartTask(d.task);
      if (sent?.taskId) navigate({ view: 'conversations', id: d.task.conversationId, task: sent.taskId });
    });
    on('lineup-message-send', (d) => ws()?.sendMessage(d));
    on('lineup-task-create', (d) => this._createTask(d.agentId, d.text));
    on('lineup-message-retry', (d) => ws()?.retryMessage(d.envelopeId));
    on('lineup-interaction-respond', (d) => ws()?.respond(d.interaction, d.response));
    on('lineup-conversation-create', async (d) => {
      const created = ws()?.createConversation(d);
      if (!created) return;
      await created.done.catch(() => {});
      navigate({ view: 'conversations', id: created.conversationId });
    });
    on('lineup-conversation-start', (d) => this._startConversation(d.agentId));
    on('lineup-conversation-previews', (d) => ws()?.loadPreviews(d.ids));
    on('lineup-pairing-start', (d) => ws()?.createPairingCode(d.name, d.replacesAgentId));
    on('lineup-pairing-close', () => ws()?.closePairing());
    on('lineup-agent-rename', (d) => ws()?.renameAgent(d.agentId, d.name).catch((error) => this._toast(error)));
    on('lineup-agent-revoke', (d) => ws()?.revokeAgent(d.agentId).catch((error) => this._toast(error)));
    on('lineup-sign-in-link-create', () => ws()?.createSignInLink());
    on('lineup-sign-in-link-close', () => ws()?.closeSignInLink());
    on('lineup-devices-load', () => ws()?.loadDevices().catch((error) => this._toast(error)));
    on('lineup-device-revoke', (d) => ws()?.revokeDevice(d.deviceId).catch((error) => this._toast(error)));
    on('lineup-inbox-seen', (d) => ws()?.markInboxSeen(d.ids));
    on('lineup-connection-retry', () => ws()?.live?.retryNow());
    on('lineup-agents-refresh', () => ws()?.refresh(['agents'])); // the newest heartbeat (Agents, diagnostics)
    on('lineup-navigate', (d) => { this._setMenu(false); navigate(d.route); });
    on('lineup-toast-dismiss', (d) => ws()?.dismissToast(d.id));
    on('lineup-toast-open', (d) => {
      const toast = ws()?.state.toasts.find((x) => x.id === d.id);
      if (toast) this._openNotification(toast.note);
    });
    on('lineup-notification-log-load', () => ws()?.loadNotificationLog());
    on('lineup-notification-test-send', (d) => ws()?.sendTestNotification(d.channel));
    on('lineup-browser-notifications-enable', () => ws()?.enableBrowserNotifications());
    on('lineup-browser-notifications-disable', () => ws()?.disableBrowserNotifications());
    on('lineup-sessions-refresh', () => ws()?.refreshSessions());
    // Settings → Sessions changed the folders: whether sessions are on (New session, the hint) is read again.
    on('lineup-session-roots-saved', () => {
      ws()?.set({ sessions: null });
      ws()?.wantSessions();
    });
    on('lineup-session-started', async (d) => {
      await ws()?.refreshSessions();
      navigate({ view: 'conversations', id: d.conversationId });
    });
    on('lineup-relay-load', () => ws() && loadRelayAccess(ws()));
    on('lineup-relay-enable', () => ws() && enableRelay(ws()).then(() => { if (loadRelayCredentials()) warmUp(); }));
    on('lineup-relay-revoke', () => ws() && revokeRelay(ws()));
    on('lineup-relay-forget', () => ws() && forgetRelay(ws()));
  }

  /** A toast's "open" or a browser notification's click: the task beside the current view (or the inbox). */
  async _openNotification(note) {
    this.workspace?.dismissToast(note.id);
    // A notification arrives through the live layer, which loaded this module with it (lib/workspace.js).
    const { routeOf } = await import('../lib/notifications.js');
    const route = routeOf(note, this.route);
    if (!route) return;
    this._setMenu(false);
    navigate(route);
  }

  _toast(error) {
    this.notice = { kind: 'error', text: error.message || String(error) };
    this.requestUpdate();
  }

  _startConversation(agentId) {
    const state = this.state;
    const existing = state.conversations.find((c) => c.agentIds.length === 1 && c.agentIds[0] === agentId);
    if (existing) {
      navigate({ view: 'conversations', id: existing.id });
      return;
    }
    const agent = state.agents.find((a) => a.id === agentId);
    this.dispatchEvent(new CustomEvent('lineup-conversation-create', {
      detail: { title: agent ? agent.name : t('conversation.untitled'), agentIds: [agentId] },
    }));
  }

  /** New task (the Tasks page): in the agent's own conversation (made when it has none), tracked as a task; the
   * task opens beside the list. */
  async _createTask(agentId, text) {
    const ws = this.workspace;
    if (!ws) return;
    const conversation = ws.state.conversations.find((c) => c.agentIds.length === 1 && c.agentIds[0] === agentId);
    let conversationId = conversation?.id;
    if (!conversationId) {
      const agent = ws.state.agents.find((a) => a.id === agentId);
      const created = ws.createConversation({ title: agent ? agent.name : t('conversation.untitled'), agentIds: [agentId] });
      conversationId = created.conversationId;
      await created.done.catch(() => {});
    }
    const sent = ws.sendMessage({ conversationId, text, trackAsTask: true, targetAgentId: agentId });
    if (sent?.taskId) navigate({ ...this.route, view: 'tasks', task: sent.taskId });
  }

  _routeChanged() {
    if (window.location.hash.startsWith('#signin=')) {
      // A sign-in link opened in this tab while it runs: the same question as at start (see boot()).
      const code = decodeURIComponent(window.location.hash.slice('#signin='.length));
      history.replaceState(null, '', window.location.pathname + window.location.search);
      if (this.token) {
        // Asked once the session shows, as at start: a tab still entering (or entering again) kept nothing before,
        // and the link was lost without a word.
        this.pendingSignIn = code;
        this.requestUpdate();
      } else {
        this._redeemSignIn(code).then((ok) => (ok ? this.enter() : this.requestUpdate()));
      }
      return;
    }
    const previous = this.route;
    this.route = parseRoute();
    this._setMenu(false);
    if (this.workspace) {
      this.workspace.openConversation(this.route.view === 'conversations' ? this.route.id : null);
      this.workspace.openTask(this.route.task);
    }
    this.requestUpdate();
    if (this.route.task && this.route.task !== previous.task) {
      // A drawer on narrow screens: put focus in it so keyboard and screen-reader users land there. The detail's
      // code may still be loading (it loads when a task is first opened): focus its heading once it is drawn.
      const task = this.route.task;
      const focus = (tries) => {
        const heading = this.querySelector('#task-detail-heading');
        if (heading) heading.focus();
        else if (tries > 0 && this.route.task === task) requestAnimationFrame(() => focus(tries - 1));
      };
      requestAnimationFrame(() => focus(120));
    }
  }

  _closeTask() {
    const opener = this.route.task;
    navigate({ ...this.route, task: null });
    requestAnimationFrame(() => this.querySelector(`[data-task-id="${CSS.escape(opener || '')}"]`)?.focus());
  }

  /** On a phone the sidebar is a closed drawer at first: drawn once it is opened, not in the first render. */
  _sidebarWanted() {
    if (this._sidebarDrawn || this.menuOpen || !PHONE_LAYOUT.matches) this._sidebarDrawn = true;
    return this._sidebarDrawn;
  }

  _setMenu(open) {
    if (this.menuOpen === open) return;
    this.menuOpen = open;
    this.requestUpdate();
    if (open) requestAnimationFrame(() => this.querySelector('#sidebar a, #sidebar button')?.focus());
  }

  _onKey(event) {
    if (event.key !== 'Escape' || this.phase !== 'ready') return;
    if (document.querySelector('dialog[open]')) return;
    if (this.menuOpen) {
      this._setMenu(false);
      this.querySelector('.menu-button')?.focus();
    } else if (this.route.task && window.matchMedia('(max-width: 899px)').matches) {
      this._closeTask();
    }
  }

  // ---- rendering --------------------------------------------------------------------------------------

  updated() {
    // A screen the person can use is on the page (not the boot placeholder): what waited for it may start.
    if (this.phase !== 'boot' && (this.phase !== 'loading' || this.state?.inboxLoaded)) firstScreenRendered();
    this._pageOpened();
  }

  /** Another page in the main column opens at its top. The column is one scroller for every page, so without this a
   * page would open wherever the last one was left: Settings read to its end put the inbox past its first card (the
   * longer Settings grew, the further), and lib/first-view.js rightly leaves a card alone that is not in view. Opening
   * or closing a task beside the page is not another page: the page stays where the person was. */
  _pageOpened() {
    const main = this.querySelector('main.main');
    if (!main) return;
    const { view, id = null, sub = null } = this.route || {};
    const page = `${view}/${id ?? ''}/${sub ?? ''}`;
    if (main === this._pageMain && page !== this._page) main.scrollTop = 0;
    this._pageMain = main;
    this._page = page;
  }

  render() {
    switch (this.phase) {
      case 'loading':
        if (this.state?.inboxLoaded) return this._renderReady(); // the rest of the reads fill in as they answer
        // falls through
      case 'boot':
        return html`<div class="boot" role="status"><span class="spinner" aria-hidden="true"></span><span>${t('app.loading')}</span></div>`;
      case 'signing-out':
        return html`<div class="boot" role="status"><span class="spinner" aria-hidden="true"></span><span>${t('signout.busy')}</span></div>`;
      case 'setup':
        need('lineup-setup');
        return html`<lineup-setup .setupCodeRequired=${this.setupInfo?.setupCodeRequired} .busy=${this.busy}
          .error=${this.formError}></lineup-setup>`;
      case 'signin':
        need('lineup-sign-in');
        return html`<lineup-sign-in .busy=${this.busy} .error=${this.formError} .notice=${this.notice}></lineup-sign-in>`;
      case 'unreachable':
        return this._renderUnreachable();
      default:
        return this._renderReady();
    }
  }

  /** The hub did not answer: what is wrong, when this page tries again by itself (or now), when it last answered. */
  _renderUnreachable() {
    const left = Math.max(0, (this._entryRetryAt || 0) - Date.now());
    const reached = lastReached();
    return html`<div class="entry"><div class="entry-card unreachable" role="alert">
      <h1>${t('app.unreachable')}</h1>
      ${this.notice ? html`<p class="notice notice-${this.notice.kind}">${icon('warning')} ${this.notice.text}</p>` : ''}
      <p>${this.formError?.code === 'network' || !this.formError ? t('error.network') : this.formError.message}</p>
      <p class="unreachable-retry" role="status" data-retrying=${this._retrying ? 'true' : 'false'}
        data-attempts=${this._entryAttempts || 0}>${icon('clock')}
        <span>${this._retrying ? t('app.unreachableTrying') : t('app.unreachableRetryIn', { time: formatCountdown(left) })}</span></p>
      ${reached ? html`<p class="muted small unreachable-last">${t('app.unreachableLastReached', { time: formatDateTime(reached) })}</p>` : ''}
      <button class="button primary" ?disabled=${this._retrying} @click=${() => this._retryEntry()}>${t('connection.retryNow')}</button>
    </div></div>`;
  }

  _renderReady() {
    const state = this.state;
    const route = this.route;
    // The title counts the questions waiting for the person (seen from another tab or the taskbar).
    const waiting = inboxLists(state).waitingForMe.length;
    document.title = waiting ? `(${waiting}) LineUp Agents` : 'LineUp Agents';
    const detailOpen = Boolean(route.task);
    // No empty 380 px "Choose a task…" column beside anything: the task's column is there while a task is open.
    const noDetail = !detailOpen;
    if (!noDetail) need('lineup-task-detail');
    need('lineup-toasts');
    setHubReachable(!hubLost(state.connection)); // before the pieces render their agents' badges
    return html`<div class="shell ${this.menuOpen ? 'menu-open' : ''} ${detailOpen ? 'detail-open' : ''} ${noDetail ? 'no-detail' : ''}">
      <a class="skip-link" href="#main">${t('app.skipToContent')}</a>
      <lineup-top-bar .state=${state} .menuOpen=${this.menuOpen}></lineup-top-bar>
      ${this._renderBanner(state)}
      <lineup-last-known .state=${state}></lineup-last-known>
      ${this.notice ? html`<div class="notice notice-${this.notice.kind}" role="alert">
        ${icon('warning')}<span>${this.notice.text}</span>
        <button class="button ghost small" @click=${() => { this.notice = null; this.requestUpdate(); }}>${t('action.dismiss')}</button></div>` : ''}
      <div class="columns">
        <nav class="sidebar" id="sidebar" aria-label=${t('nav.label')}>
          ${this._sidebarWanted() ? html`<lineup-sidebar .state=${state} .route=${route}></lineup-sidebar>` : ''}
        </nav>
        <main class="main" id="main" tabindex="-1">${this._renderView(state, route)}</main>
        <aside class="detail" aria-label=${t('detail.label')}>
          <lineup-task-detail .state=${state} .taskId=${route.task}></lineup-task-detail>
        </aside>
      </div>
      <div class="scrim" @click=${() => (this.menuOpen ? this._setMenu(false) : this._closeTask())}></div>
      <lineup-toasts .state=${state} .route=${route}></lineup-toasts>
      ${this._renderSignInQuestion(state)}
    </div>`;
  }

  /** Asks before a sign-in link replaces this device's session; keeping it is the default (focus, Escape). */
  _renderSignInQuestion(state) {
    if (!this.pendingSignIn) return '';
    requestAnimationFrame(() => {
      const dialog = this.querySelector('dialog.signin-switch');
      if (dialog && !dialog.open) {
        dialog.showModal();
        dialog.querySelector('.signin-keep')?.focus();
      }
    });
    const workspace = state.me?.workspace?.name || '';
    const name = state.me?.displayName || state.me?.username || '';
    return html`<dialog class="dialog signin-switch" aria-labelledby="signin-switch-title"
        aria-describedby="signin-switch-body" @cancel=${(e) => { e.preventDefault(); this._keepSession(); }}>
      <h2 id="signin-switch-title">${t('signin.switchTitle')}</h2>
      <p id="signin-switch-body">${workspace ? t('signin.switchBody', { workspace, name }) : t('signin.switchBodyUnknown')}</p>
      <p class="muted small">${t('signin.switchWarning')}</p>
      <div class="dialog-actions">
        <button type="button" class="button danger-outline signin-switch-confirm" @click=${() => this._switchSession()}>${t('signin.switchConfirm')}</button>
        <button type="button" class="button primary signin-keep" @click=${() => this._keepSession()}>${t('signin.switchKeep')}</button>
      </div>
    </dialog>`;
  }

  _renderBanner(state) {
    const connection = state.connection;
    if (connection.mode === 'relay') {
      // The relay's banner code loads the first time it is needed (most devices never are in relay mode); a device
      // set up for it has it in its cache already (lib/lazy.js warmUp loads settings, which import it).
      if (relayView) return relayView.relayBanner(state, () => this.workspace?.live?.retryNow());
      import('../lib/relay-view.js').then((view) => { relayView = view; this.requestUpdate(); }, () => {});
      return '';
    }
    // Back from a lost hub: said quietly for a few seconds where the banner was, then gone.
    if (!hubLost(connection)) {
      if (this._hubWasLost) {
        this._hubWasLost = false;
        this._backUntil = Date.now() + BACK_SHOWN_MS;
        setTimeout(() => this.requestUpdate(), BACK_SHOWN_MS + 50);
      }
      return (this._backUntil || 0) > Date.now() ? html`<div class="connection-back" role="status">${icon('online')}
        <span>${t('connection.back')}</span></div>` : '';
    }
    this._hubWasLost = true;
    this._backUntil = 0;
    const waiting = state.outboxSize;
    const retryIn = connection.nextRetryAt ? connection.nextRetryAt - Date.now() : 0;
    return html`<div class="offline-banner" role="status" data-connection=${connection.status}>
      ${icon('offline')}
      <span><strong>${t('connection.offline')}</strong>
        ${connection.status === 'connecting' ? t('connection.reconnecting')
          : t('connection.retryIn', { time: formatCountdown(retryIn) })}
        ${waiting ? html` · <span data-outbox=${waiting}>${t('connection.queued', { n: waiting })}</span>` : ''}</span>
      <button class="button small" @click=${() => this.workspace?.live?.retryNow()}>${t('connection.retryNow')}</button>
    </div>`;
  }

  /** #/sessions, #/sessions/new, #/sessions/<id> (its files changed), #/sessions/<id>/diff?path= (docs/sessions.md). */
  _renderSessions(state, route) {
    this.workspace?.wantSessions();
    const api = this.workspace?.api;
    if (route.id === 'new') {
      need('lineup-new-session');
      return html`<lineup-new-session .state=${state} .api=${api}></lineup-new-session>`;
    }
    if (route.id && route.sub === 'diff') {
      need('lineup-diff-viewer');
      return html`<lineup-diff-viewer .state=${state} .api=${api} .sessionId=${route.id} .path=${route.path}
        .against=${route.against}></lineup-diff-viewer>`;
    }
    if (route.id) {
      need('lineup-session-changes');
      return html`<lineup-session-changes .state=${state} .api=${api} .sessionId=${route.id}
        .against=${route.against}></lineup-session-changes>`;
    }
    need('lineup-sessions');
    return html`<lineup-sessions .state=${state}></lineup-sessions>`;
  }

  _renderView(state, route) {
    switch (route.view) {
      case 'conversations':
        need(route.id ? 'lineup-conversation' : 'lineup-conversation-list');
        return route.id
          ? html`<lineup-conversation .state=${state} .conversationId=${route.id} .api=${this.workspace?.api}></lineup-conversation>`
          : html`<lineup-conversation-list .state=${state} .route=${route} standalone></lineup-conversation-list>`;
      case 'sessions':
        return this._renderSessions(state, route);
      case 'tasks':
        return html`<lineup-task-list .state=${state} .filter=${route.id || 'all'} .route=${route}></lineup-task-list>`;
      case 'agents':
        need('lineup-agent-list');
        return html`<lineup-agent-list .state=${state}></lineup-agent-list>`;
      case 'settings':
        need('lineup-settings');
        return html`<lineup-settings .state=${state} .api=${this.workspace?.api}></lineup-settings>`;
      default:
        return html`<lineup-inbox .state=${state} .route=${route}></lineup-inbox>`;
    }
  }
}

export { routeHref };
LineupApp.define('lineup-app');
