// The sidebar: the workspace's places (inbox, conversations, tasks, agents, settings) and the conversations.

import { html } from '../vendor/lit-html/lit-html.js';
import { LineupElement } from '../lib/element.js';
import { icon } from '../lib/icons.js';
import { t } from '../lib/i18n.js';
import { routeHref } from '../lib/router.js';
import { inboxCount, unreadCount } from '../lib/inbox.js';
import { need } from '../lib/lazy.js';

export class LineupSidebar extends LineupElement {
  static properties = ['state', 'route'];

  render() {
    const { state, route } = this;
    if (!state || !route) return '';
    const count = inboxCount(state);
    const unread = unreadCount(state);
    need('lineup-conversation-list');
    const running = state.tasks.filter((x) => !x.parentTaskId && ['queued', 'running'].includes(x.status)).length;
    const link = (view, iconName, label, extra = '') => html`<li><a href=${routeHref({ view })} class="nav-link"
        aria-current=${route.view === view ? 'page' : 'false'}>${icon(iconName)}<span class="nav-label">${label}</span>${extra}</a></li>`;
    return html`<ul class="nav-list">
        ${link('inbox', 'inbox', t('nav.inbox'), html`<span class="count ${count ? 'count-active' : ''}"
          aria-label=${t('nav.inboxCount', { n: count, unread })}>${count}</span>`)}
        ${link('conversations', 'chat', t('nav.conversations'))}
        ${state.sessions?.status === 'ready' ? link('sessions', 'play', t('session.listTitle')) : ''}
        ${link('tasks', 'tasks', t('nav.tasks'), running ? html`<span class="count" aria-label=${t('nav.running', { n: running })}>${running}</span>` : '')}
        ${link('agents', 'agent', t('nav.agents'))}
        ${link('settings', 'settings', t('nav.settings'))}
      </ul>
      <lineup-conversation-list .state=${state} .route=${route}></lineup-conversation-list>
      <div class="sidebar-footer muted">${state.me?.displayName || ''}</div>`;
  }
}

LineupSidebar.define('lineup-sidebar');
