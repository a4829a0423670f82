// Sessions (docs/sessions.md): whether this person may start them, the list kept live by session.* events, and
// the hub's session routes as calls. The screens are components/lineup-session*.js and lineup-new-session.js.

import { html } from '../vendor/lit-html/lit-html.js';
import { t, formatNumber } from './i18n.js';
import { icon } from './icons.js';

// The events that change what GET /api/sessions answers: each one re-reads the list (lib/workspace.js _apply).
export const SESSION_EVENTS = new Set(['session.started', 'session.updated', 'session.ended',
  'session.commit_requested', 'session.commit_resolved']);

const enc = encodeURIComponent;

/**
 * Read the list and whether sessions are on. Only the hub's owner may use them: anyone else is answered 403, which
 * makes `status: 'forbidden'` and no "New session" anywhere (nothing to offer that would be refused).
 * `first`: also ask the projects route, the only one that says `enabled` and the hint to turn sessions on.
 */
export async function readSessions(api, { first = false } = {}) {
  try {
    const [items, projects] = await Promise.all([api.get('/api/sessions'),
      first ? api.get('/api/sessions/projects?limit=1') : Promise.resolve(null)]);
    const patch = { status: 'ready', items };
    if (projects) Object.assign(patch, { enabled: projects.enabled !== false, hint: projects.hint || '' });
    return patch;
  } catch (error) {
    if (error.status === 403) return { status: 'forbidden', items: [], enabled: false, hint: '' };
    return { status: 'error', error };
  }
}

/** The hub session or terminal conversation shown in conversation `id`, or null. */
export function sessionOfConversation(state, id) {
  return state.sessions?.items?.find((s) => s.conversationId === id) || null;
}

export function sessionById(state, id) {
  return state.sessions?.items?.find((s) => s.sessionId === id) || null;
}

/** Whether "New session" is offered: the owner, with roots set. */
export function canStartSessions(state) {
  return state.sessions?.status === 'ready' && state.sessions.enabled === true;
}

/** "New session", or the word that says why there is none (sessions off: the hub's hint). Shown in the inbox, the
 * conversation list and the session list: '' for a person who is not the hub's owner (nothing they could use). */
export function newSessionEntry(state, { compact = false, offWord = !compact } = {}) {
  const sessions = state.sessions;
  if (canStartSessions(state)) {
    return compact
      ? html`<a class="icon-button new-session" href="#/sessions/new" title=${t('session.new')}>${icon('play')}<span
        class="visually-hidden">${t('session.new')}</span></a>`
      : html`<a class="button primary new-session" href="#/sessions/new">${icon('play')}<span>${t('session.new')}</span></a>`;
  }
  if (sessions?.status === 'ready' && sessions.enabled === false && offWord) return sessionsOffLine();
  return '';
}

/** Sessions are off: what to do, in one sentence, its place in Settings a link (the hub's owner turns them on there). */
export function sessionsOffLine() {
  const [before, after = ''] = t('session.offHow').split('{link}');
  return html`<p class="sessions-off" data-sessions="off">${before}<a href="#/settings">${t('session.offLink')}</a>${after}</p>`;
}

const STATUS_TONE = { running: 'tone-running', idle: 'tone-neutral', ended: 'tone-neutral' };
const STATUS_ICON = { running: 'running', idle: 'clock', ended: 'check' };

export function sessionStatusBadge(session) {
  const status = session.status || 'idle';
  return html`<span class="badge ${STATUS_TONE[status] || 'tone-neutral'} session-status" data-status=${status}>${icon(
    STATUS_ICON[status] || 'clock')}<span>${t(`session.status.${status}`)}</span></span>`;
}

/** What the agent reported of its token use, in words; '' when it reported nothing (nothing is estimated). */
export function usageText(usage) {
  if (!usage) return '';
  const parts = [];
  if (usage.contextUsed != null && usage.contextSize) {
    parts.push(t('session.usageContext', { used: formatNumber(usage.contextUsed), size: formatNumber(usage.contextSize) }));
  }
  if (usage.totalTokens != null) parts.push(t('session.usageTokens', { n: formatNumber(usage.totalTokens) }));
  if (usage.cost?.amount != null) parts.push(`${usage.cost.amount} ${usage.cost.currency || ''}`.trim());
  return parts.join(' · ');
}

/** The branch the hub would name a new worktree after this message (hub/sessions/starting.py branch_words): its
 * first words, cut between words at 40 characters. */
export function autoBranch(message) {
  let words = String(message || '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  if (words.length > 40) {
    const head = words.slice(0, 41); // its last character a dash: the 40 end at a word's end
    words = head.includes('-') ? head.slice(0, head.lastIndexOf('-')) : words.slice(0, 40);
  }
  return `lineup/${words.replace(/^-+|-+$/g, '') || 'session'}`;
}

/** An error of the hub's in words: its message, and its hint when it has one. */
export function errorWords(error) {
  if (!error) return '';
  if (error.code === 'network') return t('error.network');
  return [error.message, error.hint].filter(Boolean).join(' ');
}

// The comments of a review being written, per session id: [{path, line, side, text}], kept while the app is open
// (the diff viewer adds them, the files list and the viewer send them as one review).
export const reviewDrafts = new Map();

export function draftOf(sessionId) {
  if (!reviewDrafts.has(sessionId)) reviewDrafts.set(sessionId, []);
  return reviewDrafts.get(sessionId);
}

export const AGAINST = ['start', 'uncommitted', 'base'];

// ---- the routes ---------------------------------------------------------------------------------------------

export const sessionApi = {
  agents: (api) => api.get('/api/sessions/agents'),
  projects: (api, query = '') => api.get(`/api/sessions/projects?limit=100${query ? `&query=${enc(query)}` : ''}`),
  worktrees: (api, project) => api.get(`/api/sessions/worktrees?project=${enc(project)}`),
  branches: (api, project) => api.get(`/api/sessions/branches?project=${enc(project)}`),
  start: (api, body) => api.post('/api/sessions', body),
  stop: (api, id) => api.post(`/api/sessions/${enc(id)}/stop`, {}),
  end: (api, id) => api.post(`/api/sessions/${enc(id)}/end`, {}),
  changes: (api, id, against) => api.get(`/api/sessions/${enc(id)}/changes?against=${enc(against)}`),
  diff: (api, id, path, against) => api.get(`/api/sessions/${enc(id)}/diff?path=${enc(path)}&against=${enc(against)}`),
  review: (api, id, body) => api.post(`/api/sessions/${enc(id)}/review`, body),
  commit: (api, id, message) => api.post(`/api/sessions/${enc(id)}/commit`, { message }),
};
