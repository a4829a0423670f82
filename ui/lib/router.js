// Where the app is: the hash holds the view, its id and the open task, e.g. #/conversations/conv_1?task=task_2.
// Sessions: #/sessions (the list), #/sessions/new, #/sessions/<id> (files changed), #/sessions/<id>/diff?path=<file>.

export const VIEWS = ['inbox', 'conversations', 'tasks', 'agents', 'settings', 'sessions'];
const TASK_FILTER_NAMES = ['all', 'running', 'waiting', 'done', 'cancelled']; // lib/status.js TASK_FILTERS

export function parseRoute(hash = window.location.hash) {
  const raw = hash.replace(/^#\/?/, '');
  const [path, query = ''] = raw.split('?');
  const parts = path.split('/').filter(Boolean).map((part) => {
    try { return decodeURIComponent(part); } catch { return part; }
  });
  const params = new URLSearchParams(query);
  const view = VIEWS.includes(parts[0]) ? parts[0] : 'inbox';
  if (view === 'tasks' && parts[1] && !TASK_FILTER_NAMES.includes(parts[1])) {
    // The hub's links (notifications by webhook or mail) name a task as #/tasks/<id>: open it.
    return { view, id: null, task: params.get('task') || parts[1] };
  }
  const route = { view, id: parts[1] || null, task: params.get('task') || null };
  if (view === 'sessions') {
    Object.assign(route, { sub: parts[2] || null, path: params.get('path') || null, against: params.get('against') || null });
  }
  return route;
}

export function routeHref({ view = 'inbox', id = null, task = null, sub = null, path = null, against = null }) {
  let href = `#/${view}`;
  if (id) href += `/${encodeURIComponent(id)}`;
  if (id && sub) href += `/${encodeURIComponent(sub)}`;
  const query = new URLSearchParams();
  if (path) query.set('path', path);
  if (against) query.set('against', against);
  if (task) query.set('task', task);
  const text = query.toString().replace(/%2F/g, '/');
  return text ? `${href}?${text}` : href;
}

export function navigate(route) {
  const href = routeHref(route);
  if (window.location.hash !== href) window.location.hash = href;
}

/** The current route with another task opened (or closed with null): the view stays where it is. */
export function withTask(route, task) {
  return routeHref({ ...route, task });
}
