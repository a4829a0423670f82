// Artifacts (and review attachments) as links, judged on the URL the browser would follow: `new URL(value,
// location.href)`, never on how the agent's string starts (` javascript:`, `java\nscript:` and `/\t/evil.example` read
// one way to a prefix check and another to the browser, which drops tabs, new lines and leading spaces). The link
// opens the parsed address, so what was judged is what opens.
//
// http(s) on another origin opens in a new tab naming its host; only an address whose parsed origin is this hub's is
// labelled as the hub's own. A data: URL downloads, or opens as a blob of a safe type (browsers refuse to navigate to
// data: URLs); a file: URL (a file on the agent's machine) is shown as its path; anything else (javascript:, blob:,
// vbscript:) is shown but never linked. Images of a safe type (png, jpeg, gif, webp; never svg, which can carry
// script) are previewed when they are data: URLs or on this hub (the CSP allows no other image source). The hub checks
// the same when it stores them (hub/domain/links.py).
//
// A file the hub stores (`/api/files/<id>` on this hub: an artifact an agent made of an uploaded file, a message's
// attachment) is read with the app's token, which a link cannot carry: it is drawn by <lineup-file>
// (components/lineup-file.js, loaded the first time one is shown), which previews images, text and Markdown inline.

import { html } from '../vendor/lit-html/lit-html.js';
import { icon } from './icons.js';
import { t } from './i18n.js';

/** How the app treats `url`: `{ kind, href, host, path }`. kind: 'web' (another site: `host` names it), 'hub' (this
 * hub's own origin), 'data', 'file' (`path` on the agent's machine, never opened) or 'other' (never linked). */
export function artifactLink(url) {
  const value = String(url ?? '');
  if (!value.trim()) return { kind: 'other', href: null };
  let parsed;
  try { parsed = new URL(value, window.location.href); } catch { return { kind: 'other', href: null }; }
  if (parsed.protocol === 'http:' || parsed.protocol === 'https:') {
    if (parsed.origin === window.location.origin) return { kind: 'hub', href: parsed.href };
    return { kind: 'web', href: parsed.href, host: parsed.host };
  }
  if (parsed.protocol === 'data:') return { kind: 'data', href: parsed.href };
  if (parsed.protocol === 'file:') {
    let path = parsed.pathname;
    try { path = decodeURIComponent(path); } catch { /* shown as written */ }
    return { kind: 'file', href: null, path };
  }
  return { kind: 'other', href: null };
}

const FILE_PATH = /^\/api\/files\/([A-Za-z0-9_-]{1,128})$/;

/** The id of a file this hub stores when `url` is one (`/api/files/<id>` on this hub, nothing after it), else null. */
export function hubFileId(url) {
  const link = artifactLink(url);
  if (link.kind !== 'hub') return null;
  const parsed = new URL(link.href);
  return parsed.search || parsed.hash ? null : FILE_PATH.exec(parsed.pathname)?.[1] || null;
}

let fileView = null;

/** A stored file, drawn by <lineup-file> (`file`: {id, name, mimeType, size?}; `named`: say its name). */
export function fileElement(file, named = false) {
  fileView ??= import('../components/lineup-file.js').catch(() => { fileView = null; });
  return html`<lineup-file .file=${file} .named=${named}></lineup-file>`;
}

let taskFilesView = null;

/** An agent's files on its task's card in a conversation, as chips (components/lineup-task-files.js, loaded the first
 * time a task with files is shown); nothing for a task without files. */
export function taskFileChips(task) {
  if (!task?.files?.length) return '';
  taskFilesView ??= import('../components/lineup-task-files.js').catch(() => { taskFilesView = null; });
  return html`<lineup-task-files .task=${task}></lineup-task-files>`;
}

/** A message's attached files (`attachments`: [{fileId, name, mimeType, size}], as the hub stores them). */
export function attachmentList(attachments) {
  if (!Array.isArray(attachments) || !attachments.length) return '';
  return html`<ul class="plain-list attachment-list" aria-label=${t('file.attachments')}>${attachments.map((a) => html`
    <li class="attachment" data-file-id=${a.fileId}>${fileElement({ id: a.fileId, name: a.name, mimeType: a.mimeType,
      size: a.size }, true)}</li>`)}</ul>`;
}

export function dataUrlToBlob(url) {
  const comma = url.indexOf(',');
  const meta = url.slice(5, comma);
  const body = url.slice(comma + 1);
  const base64 = /;base64$/i.test(meta);
  const type = meta.replace(/;base64$/i, '') || 'text/plain';
  let bytes;
  try {
    bytes = base64 ? Uint8Array.from(atob(body), (c) => c.charCodeAt(0)) : new TextEncoder().encode(decodeURIComponent(body));
  } catch { // not base64 or a stray %: the text as it is written
    bytes = new TextEncoder().encode(body);
  }
  // Shown as text, never rendered as a page of its own: a data: URL is content from an agent.
  const safeType = /^(image\/(png|jpeg|gif|webp)|application\/pdf)$/i.test(type) ? type : 'text/plain;charset=utf-8';
  return new Blob([bytes], { type: safeType });
}

const IMAGE_TYPE = /^image\/(png|jpeg|gif|webp)$/i;
const IMAGE_DATA = /^data:image\/(png|jpeg|gif|webp)(;[a-z0-9=._-]+)*,/i;
const IMAGE_PATH = /\.(png|jpe?g|gif|webp)$/i;

/** The URL to preview `artifact` with, or null: a safe image type only, and only data: or this hub's own URLs. */
export function previewUrl(artifact) {
  const link = artifactLink(artifact?.url);
  if (link.kind === 'data') return IMAGE_DATA.test(link.href) ? link.href : null;
  if (link.kind !== 'hub') return null;
  const { pathname } = new URL(link.href);
  const declared = artifact.mimeType ? String(artifact.mimeType).split(';')[0].trim() : '';
  if (declared ? !IMAGE_TYPE.test(declared) : !IMAGE_PATH.test(pathname)) return null;
  if (/\.svgz?$/i.test(pathname)) return null;
  return link.href;
}

function openData(event, url) {
  event.preventDefault();
  const blobUrl = URL.createObjectURL(dataUrlToBlob(url));
  window.open(blobUrl, '_blank', 'noopener');
  setTimeout(() => URL.revokeObjectURL(blobUrl), 60000);
}

export function artifactItem(artifact) {
  const link = artifactLink(artifact.url);
  const name = artifact.name || t('artifact.unnamed');
  const fileId = hubFileId(artifact.url);
  if (fileId) {
    return html`<li class="artifact artifact-file" data-artifact=${artifact.id || name} data-link-kind="file">
      <span class="artifact-name">${icon('file')}<span>${name}</span></span>
      ${artifact.summary ? html`<span class="muted artifact-summary">${artifact.summary}</span>` : ''}
      ${fileElement({ id: fileId, name, mimeType: artifact.mimeType, size: artifact.size })}
    </li>`;
  }
  let actions;
  if (link.kind === 'web' || link.kind === 'hub') {
    // Another site says which one, so a link the agent wrote cannot pass for a page of this hub.
    actions = html`<a class="artifact-link" href=${link.href} target="_blank" rel="noopener noreferrer"
        data-link=${link.kind === 'web' ? 'external' : 'hub'}>
      ${icon('external')}<span>${t('artifact.open')}</span><span class="visually-hidden">${name}</span></a>
      ${link.kind === 'web' ? html`<span class="muted small artifact-host">${link.host}</span>` : ''}`;
  } else if (link.kind === 'data') {
    actions = html`<a class="artifact-link" href=${link.href} download=${name}>${icon('download')}<span>${t('artifact.download')}</span><span class="visually-hidden">${name}</span></a>
      <a class="artifact-link" href="#" @click=${(e) => openData(e, link.href)}>${icon('external')}<span>${t('artifact.open')}</span><span class="visually-hidden">${name}</span></a>`;
  } else if (link.kind === 'file') {
    actions = html`<span class="muted small artifact-file">${t('artifact.onAgentMachine', { path: link.path })}</span>`;
  } else {
    actions = html`<span class="muted">${t('artifact.unsupported')}</span>`;
  }
  const preview = previewUrl(artifact);
  return html`<li class="artifact" data-artifact=${artifact.id || name} data-link-kind=${link.kind}>
    <span class="artifact-name">${icon('file')}<span>${name}</span></span>
    ${preview ? html`<img class="artifact-preview" src=${preview} alt=${t('artifact.preview', { name })} loading="lazy"
      decoding="async" referrerpolicy="no-referrer">` : ''}
    ${artifact.summary ? html`<span class="muted artifact-summary">${artifact.summary}</span>` : ''}
    <span class="artifact-actions">${actions}</span>
  </li>`;
}
