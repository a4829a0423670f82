// Notifications in the app (docs/notifications.md, the in-app channel): which `notification.created` events
// pop up, what they say, where they lead, and the browser's Notification API and vibration.
//
// They answer nothing: a toast and a browser notification carry no Approve or Deny, only the way to the card, where
// the whole approval is shown (docs/notifications.md#what-a-notification-may-answer). What an agent named (its name,
// a question's or a task's title) is shown with every hidden or direction-changing character as a mark (`⟨U+2067⟩`),
// so a title cannot reorder itself on the screen or in the system's notification.
//
// No storm: only a notification that arrives live (after `system.caught_up`) is shown; a replay (a resume, a
// reload from lastSequence 0) is not. Each id is shown at most once per browser: the ids shown are kept in
// localStorage (bounded) and claimed under a Web Lock where there is one, so two tabs never both pop it.

import { t } from './i18n.js';
import { routeHref } from './router.js';

// Beside the app's other files, under the same version (cached for good; hub/web/static_app.py).
const ICON = new URL('../icon.svg', import.meta.url).href;

export const KINDS = ['waiting_for_me', 'agent_waiting', 'failed', 'succeeded', 'agent_offline', 'test'];
export const KNOWN_CHANNELS = ['inapp', 'webpush', 'webhook', 'mail'];
export const DELIVERY_STATUSES = ['delivered', 'pending', 'failed', 'skipped'];
const SHOWN_LIMIT = 200;
const TOASTS_MAX = 3;
const BROWSER_SETTING_KEY = 'lineup.browserNotifications';

// Every toast leaves by itself (the inbox and the top bar's count keep what still waits): a question or a failure
// after a while longer than news. None stays until dismissed (issue "When something goes wrong", item 4).
const LOOK = {
  waiting_for_me: { icon: 'waiting', tone: 'waiting', lingerMs: 15000 },
  failed: { icon: 'failed', tone: 'danger', lingerMs: 15000 },
  succeeded: { icon: 'succeeded', tone: 'success', lingerMs: 8000 },
  agent_offline: { icon: 'offline', tone: 'neutral', lingerMs: 10000 },
  agent_back: { icon: 'succeeded', tone: 'success', lingerMs: 10000 }, // the app's own, not the hub's (workspace.js)
  agent_waiting: { icon: 'waiting', tone: 'waiting', lingerMs: 10000 },
  test: { icon: 'check', tone: 'running', lingerMs: 8000 },
};

// Characters a person cannot see, by hub/domain/visible.py's rule: format and control characters (not a line
// break), line and paragraph separators, private use, unassigned, lone surrogates, every space but U+0020, and the
// supplementary variation selectors.
const HIDDEN = /[[\p{Cf}\p{Cc}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}\p{Zs}\u{E0100}-\u{E01EF}]--[\n ]]/v;

/** `text` with every hidden character as a visible mark, `⟨U+2067⟩`, as the hub marks what it composes. */
export function markText(text) {
  const value = String(text ?? '');
  if (/^[\x20-\x7e]*$/.test(value)) return value;
  let out = '';
  for (const char of value) {
    out += HIDDEN.test(char) ? `⟨U+${char.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩` : char;
  }
  return out;
}

export function lookOf(kind) {
  return LOOK[kind] || LOOK.test;
}

export function kindWord(kind) {
  return KINDS.includes(kind) || kind === 'agent_back' ? t(`notify.kind.${kind}`) : kind;
}

export function channelName(name) {
  return KNOWN_CHANNELS.includes(name) ? t(`notify.channel.${name}`) : name;
}

export function statusWord(status) {
  return DELIVERY_STATUSES.includes(status) ? t(`notify.status.${status}`) : status;
}

// ---- what a notification says and where it leads --------------------------------------------------------

/**
 * The heading and text of a notification in the app's language, from what the state knows (the hub composes
 * its title in English). Only titles: never an interaction's description, impact or details.
 */
export function describe(note, state) {
  const task = note.taskId ? state?.tasks?.find((x) => x.id === note.taskId) : null;
  const interaction = note.interactionId ? state?.interactions?.find((i) => i.id === note.interactionId) : null;
  // Marked here too: the state's titles are as the agent sent them (the hub marks only what it composes).
  const agent = markText(note.agent || t('who.agent'));
  const taskTitle = markText(task?.title || '');
  const title = markText(note.title || '');
  const body = markText(note.body || '');
  switch (note.kind) {
    case 'waiting_for_me':
      return {
        heading: t('notify.waitingHeading', { agent }),
        text: markText(interaction?.title || '') || body,
        task: interaction && taskTitle ? t('notify.taskLine', { title: taskTitle }) : '',
      };
    case 'failed':
    {
      // Why, when the agent said (its error's message, else its code), on one line.
      const why = markText(String(task?.error?.message || task?.error?.code || '').replace(/\s+/g, ' ').trim());
      return { heading: taskTitle ? t('notify.failedHeading', { title: taskTitle }) : title,
        text: why ? t('notify.failedTextWhy', { agent, why }) : t('notify.failedText', { agent }), task: '' };
    }
    case 'succeeded':
      return { heading: taskTitle ? t('notify.succeededHeading', { title: taskTitle }) : title,
        text: t('notify.succeededText', { agent }), task: '' };
    case 'agent_offline':
      return { heading: t('notify.offlineHeading', { agent }), text: t('notify.offlineText'), task: '' };
    case 'agent_back':
      return { heading: t('notify.backHeading', { agent }), text: t('notify.backText'), task: '' };
    case 'agent_waiting':
      return { heading: t('notify.agentWaitingHeading', { agent }), text: body, task: '' };
    case 'test':
      return { heading: t('notify.testHeading'), text: t('notify.testText'), task: '' };
    default:
      return { heading: title || kindWord(note.kind), text: body, task: '' };
  }
}

/**
 * Where a notification leads, as an app route with `current` kept (the task opens beside what is on screen).
 * The hub's link is `http://host/#/tasks/<id>`; the app's route for a task is `?task=<id>`, so the ids decide.
 */
export function routeOf(note, current = { view: 'inbox' }) {
  let taskId = note.taskId || null;
  if (!taskId && typeof note.link === 'string') {
    const match = /#\/tasks\/([^/?#]+)/.exec(note.link);
    if (match) taskId = decodeURIComponent(match[1]);
  }
  if (taskId) return { ...current, task: taskId };
  if (note.kind === 'agent_offline' || note.kind === 'agent_back' || /#\/agents\b/.test(note.link || '')) return { view: 'agents' };
  if (note.interactionId || note.kind === 'waiting_for_me') return { view: 'inbox' };
  return null;
}

export function hrefOf(note, current) {
  const route = routeOf(note, current);
  return route ? routeHref(route) : null;
}

/** Toasts after a new one arrives: the newest first, never more than a few (the inbox keeps the rest). */
export function withToast(toasts, note) {
  if (toasts.some((x) => x.id === note.id)) return toasts;
  return [{ id: note.id, note, shownAt: Date.now() }, ...toasts].slice(0, TOASTS_MAX);
}

/** Whether a notification says nothing true any more: the question was answered or withdrawn elsewhere, the agent
 * that went offline is back (or was revoked). */
export function isStale(note, state) {
  if (note.kind === 'waiting_for_me' && note.interactionId) {
    const interaction = state.interactions?.find((i) => i.id === note.interactionId)
      || state.inbox?.waitingForMe?.find((i) => i.id === note.interactionId);
    return Boolean(interaction) && interaction.status !== 'pending';
  }
  if (note.kind === 'agent_offline') {
    const named = (state.agents || []).filter((a) => a.name === note.agent);
    return named.length > 0 && named.every((a) => a.status === 'online' || a.revokedAt);
  }
  if (note.kind === 'agent_back') {
    const agent = (state.agents || []).find((a) => a.id === note.agentId);
    return !agent || agent.status !== 'online';
  }
  return false;
}

/**
 * Whether what a notification announces is on the screen already, so a toast would only cover it: the question's
 * card (in the inbox, its conversation or its task's detail), the task itself (its detail open, or its
 * conversation, whose task line shows the status), the Agents page for an agent that went offline.
 */
export function isOnScreen(note, state, route) {
  if (!route) return false;
  // With a task open, a phone's or a narrow window's detail is a drawer over the view (styles/layout.css).
  const viewShown = !route.task || window.matchMedia('(min-width: 900px)').matches;
  const task = note.taskId ? state.tasks?.find((x) => x.id === note.taskId) : null;
  const interaction = note.interactionId ? state.interactions?.find((i) => i.id === note.interactionId) : null;
  const conversationId = interaction?.conversationId || task?.conversationId || null;
  if (note.taskId && route.task === note.taskId) return true;
  if (conversationId && route.view === 'conversations' && route.id === conversationId && viewShown) return true;
  switch (note.kind) {
    case 'waiting_for_me': return (route.view || 'inbox') === 'inbox' && viewShown;
    case 'agent_offline': return route.view === 'agents' && viewShown;
    // Back: the Agents page says so, and so does a task of that agent being looked at (its status line).
    case 'agent_back': return (route.view === 'agents' && viewShown)
      || Boolean(route.task && state.tasks?.find((x) => x.id === route.task)?.agentId === note.agentId);
    default: return false;
  }
}

/** Toasts still worth showing: none that is stale, none for what the screen (`route`) already shows. */
export function currentToasts(toasts, state, route = null) {
  return toasts.filter(({ note }) => !isStale(note, state) && !isOnScreen(note, state, route));
}

// ---- at most once per browser ---------------------------------------------------------------------------

export class ShownIds {
  constructor(key) {
    this.key = key;
    this.memory = [];
  }

  _read() {
    try {
      const list = JSON.parse(localStorage.getItem(this.key) || '[]');
      return Array.isArray(list) ? list : [];
    } catch {
      return this.memory;
    }
  }

  _write(list) {
    this.memory = list.slice(-SHOWN_LIMIT);
    try { localStorage.setItem(this.key, JSON.stringify(this.memory)); } catch { /* kept for this tab only */ }
  }

  has(id) {
    return this._read().includes(id);
  }

  /** True for the first caller of this browser to claim `id`; false if it was shown already. */
  async claim(id) {
    if (this.has(id)) return false; // shown before, by this tab or another one long enough ago
    const record = () => {
      const list = this._read();
      if (list.includes(id)) return false;
      this._write([...list, id]);
      return true;
    };
    // Two tabs get the same notification within milliseconds, and localStorage reaches another tab's renderer only
    // eventually (a check-then-write under a lock still let both tabs show it, seen in CI). So the first tab holds
    // a lock named after the notification for a while; another tab asking for it meanwhile finds it taken.
    const won = await claimLock(`${this.key}.${id}`);
    if (won === false) return false;
    return record() || won === true;
  }
}

const CLAIM_HOLD_MS = 60_000;

/** true: this tab holds the lock now (for CLAIM_HOLD_MS); false: another tab does; null: no Web Locks here. */
function claimLock(name) {
  if (!navigator.locks?.request) return Promise.resolve(null);
  return new Promise((resolve) => {
    navigator.locks.request(name, { ifAvailable: true }, (lock) => {
      resolve(Boolean(lock));
      return lock ? new Promise((release) => setTimeout(release, CLAIM_HOLD_MS)) : undefined;
    }).catch(() => resolve(null)); // an opaque origin: decide by localStorage alone
  });
}

// ---- browser notifications and vibration ----------------------------------------------------------------

/** What the browser allows here: the API, a secure context (localhost, or https), the permission, our switch. */
export function browserNotifyState() {
  const supported = typeof window.Notification === 'function';
  const secure = Boolean(window.isSecureContext);
  let permission = 'unsupported';
  if (supported) permission = secure ? window.Notification.permission : 'insecure';
  let off = false;
  try { off = localStorage.getItem(BROWSER_SETTING_KEY) === 'off'; } catch { off = false; }
  return { supported, secure, permission, enabled: permission === 'granted' && !off };
}

export function setBrowserSwitch(on) {
  try {
    if (on) localStorage.removeItem(BROWSER_SETTING_KEY);
    else localStorage.setItem(BROWSER_SETTING_KEY, 'off');
  } catch { /* the switch lasts for this page only */ }
}

/** Ask the browser (only from a click: browsers refuse a request without one). Resolves to the permission. */
export async function requestBrowserPermission() {
  const state = browserNotifyState();
  if (!state.supported || !state.secure) return state.permission;
  try {
    return await window.Notification.requestPermission();
  } catch {
    return window.Notification.permission;
  }
}

/** Raise a browser notification; `onClick` opens the task. Returns the notification, or null if not allowed. It has
 * no action buttons (`actions`): it answers nothing, a click leads to the card. */
export function showBrowserNotification(note, words, onClick) {
  if (!browserNotifyState().enabled) return null;
  let shown;
  try {
    shown = new window.Notification(words.heading, {
      body: [words.text, words.task].filter(Boolean).join('\n'), tag: note.id, icon: ICON,
      lang: document.documentElement.lang, data: { id: note.id, taskId: note.taskId || null },
    });
  } catch {
    return null; // Chrome on Android allows them only from a service worker: the toast still shows
  }
  shown.onclick = (event) => {
    event.preventDefault?.();
    window.focus();
    shown.close();
    onClick();
  };
  return shown;
}

/** A short buzz on phones where allowed: browsers refuse it before the person has touched the page. */
export function vibrate() {
  if (typeof navigator.vibrate !== 'function') return false;
  if (navigator.userActivation && !navigator.userActivation.hasBeenActive) return false;
  try { return navigator.vibrate(180); } catch { return false; }
}
