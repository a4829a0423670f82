// The app's entry module: defines the first screen's custom elements; <lineup-app> in index.html then starts the
// shell, which loads the other screens' pieces when they are first shown (lib/lazy.js).

import './components/lineup-top-bar.js';
import './components/lineup-sidebar.js';
import './components/lineup-interaction-card.js';
import './components/lineup-task-list.js';
import './components/lineup-inbox.js';
import './components/lineup-app.js';
import './components/lineup-last-known.js';

import { afterFirstScreen } from './lib/lazy.js';
import { answerServiceWorker } from './lib/web-push.js';
import { forgetLastKnown } from './lib/last-known.js';

export { registry } from './lib/registry.js';

// The service worker (ui/sw.js) keeps the app shell where the browser allows one: localhost, or the hub over TLS.
// Without it the app works the same, from the browser's HTTP cache; a refusal is not worth a message. Its install
// fetches every file, so it waits until the first screen is painted (lib/lazy.js).
// It also shows Web Push notifications and opens their cards (lib/web-push.js answers its questions).
if ('serviceWorker' in navigator && window.isSecureContext) {
  answerServiceWorker();
  afterFirstScreen(() => { navigator.serviceWorker.register('/sw.js').catch(() => {}); });
}

// Signed out (no token): nothing this browser kept of a session may be opened again (lib/last-known.js).
try { if (!localStorage.getItem('lineup.token')) forgetLastKnown(); } catch { /* storage refused: nothing kept */ }
