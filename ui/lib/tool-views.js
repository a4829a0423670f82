// Which element draws a tool's calls (its plugin's UI module, or the text card) and how a call reads in words.

import { html } from '../vendor/lit-html/lit-html.js';
import { registry } from './registry.js';
import { t } from './i18n.js';
import { routeHref } from './router.js';

const ARG_MAX = 40;
const ARGS_MAX = 160;
const RESULT_MAX = 200;
const elements = new Map(); // `${context}:${key}` -> the plugin element made for it (kept, so it updates in place)

function clip(text, max) {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `(a=2, b=3)`: a call's arguments in one short line (none: empty); `omit` drops keys the context already says. */
export function formatArguments(args, omit = []) {
  const parts = [];
  for (const [key, value] of Object.entries(args || {})) {
    if (omit.includes(key)) continue;
    parts.push(`${key}=${clip(typeof value === 'string' ? value : JSON.stringify(value), ARG_MAX)}`);
  }
  return parts.length ? `(${clip(parts.join(', '), ARGS_MAX)})` : '';
}

/** `calculator.add`, or just the name for a single-action tool. */
export function toolLabel(payload) {
  return payload?.action ? `${payload.name}.${payload.action}` : String(payload?.name || '');
}

/** The human-readable answer of a result: its `message`, else the result itself in short. */
export function resultText(result) {
  if (!result) return '';
  if (typeof result.message === 'string' && result.message) return clip(result.message, RESULT_MAX);
  return clip(JSON.stringify(result), RESULT_MAX);
}

/** Who made a call, in words. */
export function callerName(caller, state) {
  if (caller?.kind === 'agent') return state.agents.find((a) => a.id === caller.id)?.name || t('who.agent');
  if (caller?.kind === 'app') return caller.id === state.me?.deviceId ? t('who.you') : t('who.person');
  return t('who.hub');
}

/** A translated sentence whose placeholders are filled with templates (a name in bold, a tool in code). */
export function sentence(key, parts) {
  return t(key).split(/(\{\w+\})/).map((piece) => {
    const name = /^\{(\w+)\}$/.exec(piece)?.[1];
    return name && name in parts ? parts[name] : piece;
  });
}

// The hub lists a plugin's module under its folder's version (`…/static/v/<hash>/x.js`, cached for good) while a
// tool's definition names the plain path (`…/static/x.js`): both name the same module.
const VERSION_SEGMENT = /\/v\/[0-9a-f]{12}\//;

function sameUrl(a, b) {
  const plain = (url) => new URL(url, window.location.href).href.replace(VERSION_SEGMENT, '/');
  try {
    return plain(a) === plain(b);
  } catch {
    return a === b;
  }
}

function tagOf(url) {
  const file = String(url).split(/[?#]/)[0].split('/').pop() || '';
  const tag = file.replace(/\.m?js$/, '').toLowerCase();
  return /^[a-z][a-z0-9._]*-[a-z0-9._-]*$/.test(tag) ? tag : null;
}

/**
 * How tool `name` is drawn: `{status: 'ready', tag}` when its element is defined; `failed`, `missing` (the
 * module loaded without defining the element) or `pending` (not loaded, or not yet) when it has a UI module
 * that cannot draw it, with the module's name for the note; `none` when it has no UI module at all.
 */
export function toolView(name, state) {
  const tools = state.tools;
  const definition = tools?.definitions.get(name);
  const plugins = state.plugins || [];
  let url = definition?.ui;
  if (typeof url === 'string' && url.startsWith('builtin:')) return { status: 'none' };
  let module = url ? plugins.find((p) => sameUrl(p.url, url)) : null;
  if (!url) {
    // No definition (yet): the UI module of the plugin that offers the tool, or of the plugin named like it.
    const plugin = definition?.provider?.plugin || name;
    module = plugins.find((p) => p.name === plugin) || null;
    url = module?.url;
  }
  const tag = registry.toolViews.get(name) || (url ? tagOf(url) : null);
  if (!tag) return { status: 'none' };
  const named = { tag, url, module: module?.name || name };
  if (customElements.get(tag)) return { ...named, status: 'ready' };
  tools?.owner?.watchElement(tag);
  if (module?.status === 'failed') return { ...named, status: 'failed', error: module.error || '' };
  if (module?.status === 'loaded') return { ...named, status: 'missing' };
  return { ...named, status: 'pending' };
}

/** The words under a tool that is shown as text although it has a UI module. */
export function viewNote(name, view, error = '') {
  const vars = { tool: name, module: view.module, tag: view.tag, error: error || view.error || '' };
  if (view.status === 'failed') return t('tool.view.failed', vars);
  if (view.status === 'missing') return t('tool.view.missing', vars);
  if (view.status === 'broken') return t('tool.view.broken', vars);
  return t('tool.view.notLoaded', vars);
}

/**
 * The plugin's element for `key` in `context`, with `props` set (only those that changed, so a drawing is redrawn
 * when its instance changes and not on every render). Throws what the element throws: the caller falls back.
 */
export function pluginElement(tag, context, key, props) {
  const id = `${context}:${key}`;
  let element = elements.get(id);
  if (!element || element.localName !== tag) {
    element = document.createElement(tag);
    elements.set(id, element);
  }
  for (const [name, value] of Object.entries(props)) {
    if (!Object.is(element[name], value)) element[name] = value;
  }
  return element;
}

/**
 * One item of lib/tool-calls.js `toolItems` as shown in a list: an instance with its live view, or a call's
 * card; `taskLink` adds a link to the call's task (where the list does not already say it).
 */
export function toolItem(item, state, context, taskLink = false) {
  const body = item.kind === 'tool-instance'
    ? html`<lineup-tool-instance .item=${item} .state=${state} .context=${context}></lineup-tool-instance>`
    : html`<lineup-tool-call .entry=${item.entry} .state=${state}></lineup-tool-call>`;
  const taskId = taskLink ? (item.entry || item.entries[0]).call.taskId : null;
  const task = taskId ? state.tasks.find((x) => x.id === taskId) : null;
  return html`<div class="stream-card tool-item" data-kind=${item.kind}>${body}
    ${task ? html`<a class="small tool-task-link" href=${routeHref({ view: 'inbox', task: task.id })}>${t('tool.openTask', { title: task.title })}</a>` : ''}</div>`;
}
