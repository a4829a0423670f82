// Custom elements whose code loads when first rendered: fewer requests before the inbox paints.
// An element rendered before its module arrives is empty until then; LineupElement takes over its properties.

const PIECES = {
  'lineup-setup': () => import('../components/lineup-setup.js'),
  'lineup-sign-in': () => import('../components/lineup-sign-in.js'),
  'lineup-conversation': () => import('../components/lineup-conversation.js'),
  // In the sidebar, which a phone draws only when it is opened, and on the conversations screen.
  'lineup-conversation-list': () => import('../components/lineup-conversation-list.js'),
  'lineup-agent-list': () => import('../components/lineup-agent-list.js'),
  'lineup-settings': () => import('../components/lineup-settings.js'),
  'lineup-task-detail': () => import('../components/lineup-task-detail.js'),
  // Sessions (docs/sessions.md): the list, the New session steps, a session's files changed and one file's diff.
  'lineup-sessions': () => import('../components/lineup-sessions.js'),
  'lineup-new-session': () => import('../components/lineup-new-session.js'),
  'lineup-session-changes': () => import('../components/lineup-session-changes.js'),
  'lineup-diff-viewer': () => import('../components/lineup-diff-viewer.js'),
  // Below the inbox's cards or floating over the page: nothing above them moves when they arrive.
  'lineup-toasts': () => import('../components/lineup-toasts.js'),
  'lineup-tool-activity': () => import('../components/lineup-tool-activity.js'),
};
// Pieces that wait for the first screen to be painted (afterFirstScreen), though rendered in it.
const LATER = new Set(['lineup-toasts', 'lineup-tool-activity']);
const loading = new Map();
const afterShown = [];
let shown = false;

/** Run `fn` once the first screen (the inbox, or setup / sign-in) has been painted and the page is idle: what the
 * person does not see yet (the toasts' code, the tool activity's, the service worker's copy of every file) waits
 * instead of competing with the first paint for a phone's CPU and connections (the largest contentful paint). */
export function afterFirstScreen(fn) {
  if (shown) fn();
  else afterShown.push(fn);
}

/** The app calls this after rendering a screen the person can use; the first call schedules what waited. */
export function firstScreenRendered() {
  if (shown || afterShown.scheduled) return;
  afterShown.scheduled = true;
  const run = () => {
    shown = true;
    for (const fn of afterShown.splice(0)) fn();
  };
  // Idle time after the paint of that screen is what the rest may take.
  afterNextPaint().then(() => {
    if ('requestIdleCallback' in window) window.requestIdleCallback(run, { timeout: 1000 });
    else setTimeout(run, 50);
  });
}

/** Resolves once the page has painted what is rendered now (a frame, then a task after it). A hidden tab paints
 * no frames: there it resolves after a quarter of a second, so nothing waits for the tab to be shown. */
export function afterNextPaint() {
  return new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 250);
  });
}

/** Start loading the module that defines `tag` (once; again after a failed load, at the next render). */
export function need(tag) {
  if (LATER.has(tag) && !shown) {
    afterFirstScreen(() => need(tag));
    return;
  }
  if (customElements.get(tag) || loading.has(tag)) return;
  loading.set(tag, PIECES[tag]().catch(() => {
    loading.delete(tag);
    // The screen would stay blank: the app says why (away from home, a screen this device never opened at home and
    // has no copy of, without its service worker).
    window.dispatchEvent(new CustomEvent('lineup-piece-failed', { detail: { tag } }));
  }));
}

/** Fetch every other piece's code in the background, on a device set up to work away from home (relay mode,
 * docs/relay.md): there the hub's HTTP is out of reach, and a screen first opened then must come from the browser's
 * cache. (Where the browser allows a service worker, sw.js keeps every file anyway.) */
export function warmUp() {
  const run = () => { for (const tag of Object.keys(PIECES)) need(tag); };
  if ('requestIdleCallback' in window) window.requestIdleCallback(run, { timeout: 1500 });
  else setTimeout(run, 300);
}
