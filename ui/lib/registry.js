// The extension points plugins' UI modules use, and the loader that imports each module on its own.

/**
 * A UI module is an ES module listed by the hub. It may export `register(context)`; `context.registry` is
 * this object: `registerInteractionCard(type, tagName)` makes the app render interactions of `type` with
 * the custom element `tagName` (it receives `.interaction`, `.answer` and `.me`, and answers with a bubbling
 * `lineup-interaction-respond` event carrying {interaction, response}, like the built-in card).
 * `registerToolView(toolName, tagName)` makes the app show that tool's calls with `tagName` (it receives
 * `.instance` for an app-type tool, else `.call` and `.result`: the tool.call and tool.result payloads, the
 * result null until it arrives); without it, the element is the one named after
 * the file of the tool's `ui` URL (`/plugins/canvas/static/lineup-canvas.js` → `<lineup-canvas>`).
 */
export const registry = {
  cards: new Map(),
  toolViews: new Map(),
  registerInteractionCard(type, tagName) {
    this.cards.set(type, tagName);
  },
  registerToolView(toolName, tagName) {
    this.toolViews.set(toolName, tagName);
  },
};

/** Entries of the hub's list as {name, url}: a string is a url, an object names `url`/`module` and `name`/`plugin`. */
export function normalizeModules(list) {
  if (!Array.isArray(list)) return [];
  return list.map((entry) => {
    if (typeof entry === 'string') return { name: entry.split('/').filter(Boolean).slice(-2, -1)[0] || entry, url: entry };
    const url = entry.url || entry.module || entry.path;
    return { name: entry.name || entry.plugin || url, url };
  }).filter((entry) => typeof entry.url === 'string' && entry.url);
}

/**
 * Import every module inside its own try/catch: one that fails to load or to register is reported by name
 * and the others, and the app, carry on (docs/style.md#ui-modules-fail-alone).
 */
export async function loadUiModules(modules, context) {
  const results = [];
  for (const module of modules) {
    try {
      const url = new URL(module.url, window.location.href);
      if (url.origin !== window.location.origin) throw new Error('only modules served by the hub are loaded');
      const imported = await import(url.href);
      if (typeof imported.register === 'function') await imported.register({ ...context, registry });
      results.push({ ...module, status: 'loaded' });
    } catch (error) {
      console.error(`UI module ${module.name} failed`, error);
      results.push({ ...module, status: 'failed', error: String(error && error.message ? error.message : error) });
    }
  }
  return results;
}
