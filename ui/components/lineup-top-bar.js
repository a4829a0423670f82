// The top bar: menu (narrow screens), workspace, inbox count, agent indicator, connection and language.

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t, language, LANGUAGES } from '../lib/i18n.js';
import { routeHref } from '../lib/router.js';
import { inboxCount, inboxLists, unreadCount, waitingTotal } from '../lib/inbox.js';
import { TERMINAL_RUNTIMES } from '../lib/status.js';

// Beside the app's other files, under the same version (cached for good; hub/web/static_app.py).
const ICON = new URL('../icon.svg', import.meta.url).href;

export class LineupTopBar extends LineupElement {
  static properties = ['state', 'menuOpen'];

  render() {
    const state = this.state;
    if (!state) return '';
    const all = state.agents.filter((a) => !a.revokedAt);
    // A terminal agent between runs (Claude Code after `claude -p`) is not missing: it is left out of the count.
    const agents = all.filter((a) => a.status === 'online' || !TERMINAL_RUNTIMES.has(a.runtime));
    const online = agents.filter((a) => a.status === 'online').length;
    const count = inboxCount(state);
    const unread = unreadCount(state);
    // The count adds the inbox's first two lists (docs/design.md#inbox-and-task-lists): its label names both.
    const label = t('topbar.inboxLabel', { n: count, waiting: waitingTotal(state),
      attention: inboxLists(state).needsAttention.length, unread });
    let agentWord;
    let agentTone;
    let agentIcon;
    if (state.connection.status === 'offline' && all.length) {
      // Cut off from the hub, the app cannot know whether the agents are still there.
      [agentWord, agentTone, agentIcon] = [t('topbar.agentUnknown'), 'neutral', 'clock'];
    } else if (!agents.length && all.length) {
      [agentWord, agentTone, agentIcon] = [t('topbar.agentsIdle'), 'neutral', 'agent'];
    } else if (!agents.length) {
      [agentWord, agentTone, agentIcon] = [t('topbar.noAgent'), 'neutral', 'agent'];
    } else if (online === agents.length) {
      [agentWord, agentTone, agentIcon] = [agents.length === 1 ? t('topbar.agentOnline')
        : t('topbar.agentsOnline', { n: online, total: agents.length }), 'success', 'online'];
    } else if (agents.every((a) => a.status === 'online' || a.statusReason === 'signed_off')) {
      // The others stopped on purpose or connect only while they work (Claude Code's hooks): nothing is wrong.
      [agentWord, agentTone, agentIcon] = [t('topbar.agentsOnline', { n: online, total: agents.length }), 'neutral', 'online'];
    } else if (online === 0) {
      [agentWord, agentTone, agentIcon] = [agents.length === 1 ? t('topbar.agentOffline')
        : t('topbar.agentsOffline', { total: agents.length }), 'danger', 'offline'];
    } else {
      [agentWord, agentTone, agentIcon] = [t('topbar.agentsOnline', { n: online, total: agents.length }), 'waiting', 'online'];
    }
    const live = state.connection.status === 'live';
    const relay = state.connection.mode === 'relay'; // the mode indicator (docs/relay.md); phones see the banner
    // Which way the page talks, and through the relay whether WuKongIM can read it (sealed end to end or not).
    const sealed = relay && state.connection.sealed === true;
    const way = relay ? `${t('connection.throughRelay')} · ${t(sealed ? 'connection.sealed' : 'connection.notSealed')}`
      : t('connection.direct');
    return html`<header class="topbar">
      <button class="icon-button menu-button" aria-expanded=${this.menuOpen ? 'true' : 'false'} aria-controls="sidebar"
        @click=${() => this.emit('lineup-menu-toggle', { open: !this.menuOpen })}>
        ${icon('menu')}<span class="visually-hidden">${t('topbar.menu')}</span></button>
      <a class="brand" href="#/inbox"><img src=${ICON} alt="" width="24" height="24"><span class="brand-name">LineUp</span>
        <span class="workspace-name">${state.me?.workspace?.name || ''}</span></a>
      <span class="topbar-spacer"></span>
      <a class="topbar-item inbox-indicator" href=${routeHref({ view: 'inbox' })} data-count=${count}
        aria-label=${label} title=${label}>
        ${icon('inbox')}<span class="topbar-word">${t('nav.inbox')}</span>
        <span class="count ${count ? 'count-active' : ''}" aria-hidden="true">${count}</span>
        ${unread ? html`<span class="unread-dot" aria-hidden="true"></span>` : ''}</a>
      <a class="topbar-item agent-indicator tone-${agentTone}" href=${routeHref({ view: 'agents' })} data-online=${online}>
        ${icon(agentIcon)}<span>${agentWord}</span></a>
      <span class="topbar-item connection-indicator ${live ? 'tone-success' : 'tone-waiting'}" role="status"
        data-connection=${state.connection.status} data-mode=${relay ? 'relay' : 'direct'}
        data-sealed=${sealed ? 'true' : 'false'} title=${way}>
        ${icon(live ? (relay ? 'globe' : 'online') : 'clock')}<span class="topbar-word">${live
          ? way : t('connection.connecting')}</span></span>
      <label class="language-switch">${icon('globe')}<span class="visually-hidden">${t('settings.language')}</span>
        <select @change=${(e) => this.emit('lineup-language-change', { language: e.target.value })}>
          ${LANGUAGES.map((l) => html`<option value=${l.code} ?selected=${l.code === language()}>${l.label}</option>`)}
        </select></label>
    </header>`;
  }
}

LineupTopBar.define('lineup-top-bar');
