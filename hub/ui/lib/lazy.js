// Custom elements whose code loads when first rendered: fewer requests before the inbox paints (issue 17).
// An element rendered before its module arrives is empty until then; LineupElement takes over its properties.

const PIECES = {
  'lineup-setup': () => import('../components/lineup-setup.js'),
  'lineup-sign-in': () => import('../components/lineup-sign-in.js'),
  'lineup-conversation': () => import('../components/lineup-conversation.js'),
  'lineup-agent-list': () => import('../components/lineup-agent-list.js'),
  'lineup-settings': () => import('../components/lineup-settings.js'),
  'lineup-task-detail': () => import('../components/lineup-task-detail.js'),
  // Below the inbox's cards or floating over the page: nothing above them moves when they arrive.
  'lineup-toasts': () => import('../components/lineup-toasts.js'),
  'lineup-tool-activity': () => import('../components/lineup-tool-activity.js'),
};
const loading = new Map();

/** Start loading the module that defines `tag` (once; again after a failed load, at the next render). */
export function need(tag) {
  if (customElements.get(tag) || loading.has(tag)) return;
  loading.set(tag, PIECES[tag]().catch(() => loading.delete(tag)));
}

/** Fetch every other piece's code in the background, on a device set up to work away from home (relay mode,
 * docs/relay.md): there the hub's HTTP is out of reach, and a screen first opened then must come from the browser's
 * cache. (Where the browser allows a service worker, sw.js keeps every file anyway.) */
export function warmUp() {
  const run = () => { for (const tag of Object.keys(PIECES)) need(tag); };
  if ('requestIdleCallback' in window) window.requestIdleCallback(run, { timeout: 1500 });
  else setTimeout(run, 300);
}
