// The app's entry module: defines every custom element; <lineup-app> in index.html then starts the shell.

import './components/lineup-top-bar.js';
import './components/lineup-sidebar.js';
import './components/lineup-conversation-list.js';
import './components/lineup-interaction-card.js';
import './components/lineup-tool-call.js';
import './components/lineup-tool-instance.js';
import './components/lineup-tool-activity.js';
import './components/lineup-composer.js';
import './components/lineup-conversation.js';
import './components/lineup-task-list.js';
import './components/lineup-task-detail.js';
import './components/lineup-inbox.js';
import './components/lineup-connect-agent.js';
import './components/lineup-agent-list.js';
import './components/lineup-toasts.js';
import './components/lineup-notification-settings.js';
import './components/lineup-relay-settings.js';
import './components/lineup-settings.js';
import './components/lineup-setup.js';
import './components/lineup-sign-in.js';
import './components/lineup-app.js';

export { registry } from './lib/registry.js';
