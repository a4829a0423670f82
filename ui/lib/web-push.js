// This device and Web Push (docs/notifications.md, "Web Push"): subscribing with the hub's VAPID key, the devices
// that get pushes, and the page's side of the service worker's questions (ui/sw.js): "is this card on screen?" (then
// no notification buzzes for it) and "open this card" (a tap on a notification, this window already open).

import { createApi } from './api.js';

const TOKEN_KEY = 'lineup.token';

// Its own calls with the app's token, as lib/files.js makes them: Settings hands its pieces the state, not the api.
const api = createApi({ getToken: () => { try { return localStorage.getItem(TOKEN_KEY); } catch { return null; } } });

/** What this browser allows: a service worker, the Push API and notifications, all of which need a secure context
 * (the hub trusted over https, or localhost). */
export function pushSupport() {
  if (!window.isSecureContext) return 'insecure';
  const has = 'serviceWorker' in navigator && 'PushManager' in window && typeof window.Notification === 'function';
  if (!has) return 'unsupported';
  return window.Notification.permission === 'denied' ? 'denied' : 'ready';
}

function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function sameKey(subscription, key) {
  const held = subscription?.options?.applicationServerKey;
  if (!held) return false;
  const bytes = new Uint8Array(held);
  return bytes.length === key.length && bytes.every((b, i) => b === key[i]);
}

/** Ask for pushes on this device (from a click: the browser asks the person first), and tell the hub where. */
export async function turnOnPush() {
  const permission = await window.Notification.requestPermission();
  if (permission !== 'granted') throw Object.assign(new Error(permission), { code: 'permission' });
  const { publicKey } = await api.get('/api/push/key');
  const key = keyBytes(publicKey);
  const registration = await navigator.serviceWorker.ready;
  let subscription = await registration.pushManager.getSubscription();
  if (subscription && !sameKey(subscription, key)) { // made for another hub's key: the hub could not push to it
    await subscription.unsubscribe().catch(() => {});
    subscription = null;
  }
  subscription ??= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  return api.post('/api/push/subscriptions', subscription.toJSON());
}

export const listPushDevices = () => api.get('/api/push/devices');
export const stopPushDevice = (id) => api.post('/api/push/devices/stop', { id });

/** Answer the service worker: whether a visible window shows what a push announces (lib/notifications.js
 * isOnScreen, the toasts' rule, over the app's state and route), and where a tapped notification leads. */
export function answerServiceWorker() {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.addEventListener('message', async (event) => {
    const data = event.data || {};
    if (data.type === 'lineup-open') {
      const url = new URL(data.url, window.location.origin);
      if (url.origin === window.location.origin) window.location.hash = url.hash || '#/';
      return;
    }
    if (data.type !== 'lineup-push-on-screen' || !event.ports[0]) return;
    let onScreen = false;
    const app = document.querySelector('lineup-app');
    if (document.visibilityState === 'visible' && app?.state?.loaded && data.note) {
      try {
        const { isOnScreen } = await import('./notifications.js');
        onScreen = isOnScreen(data.note, app.state, app.route);
      } catch { onScreen = false; }
    }
    event.ports[0].postMessage({ onScreen });
  });
}
