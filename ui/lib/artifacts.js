// Artifacts as links: http(s) opens in a new tab; a data: URL downloads, or opens as a blob (browsers refuse to
// navigate to data: URLs); anything else (javascript:, file:) is shown but never linked.

import { html } from '../vendor/lit-html/lit-html.js';
import { icon } from './icons.js';
import { t } from './i18n.js';

export function artifactKind(url) {
  const scheme = String(url || '').split(':')[0].toLowerCase();
  if (scheme === 'http' || scheme === 'https') return 'web';
  if (scheme === 'data') return 'data';
  if (!/^[a-z][a-z0-9+.-]*:/i.test(String(url || ''))) return 'relative';
  return 'other';
}

export function dataUrlToBlob(url) {
  const comma = url.indexOf(',');
  const meta = url.slice(5, comma);
  const body = url.slice(comma + 1);
  const base64 = /;base64$/i.test(meta);
  const type = meta.replace(/;base64$/i, '') || 'text/plain';
  const bytes = base64 ? Uint8Array.from(atob(body), (c) => c.charCodeAt(0)) : new TextEncoder().encode(decodeURIComponent(body));
  // Shown as text, never rendered as a page of its own: a data: URL is content from an agent.
  const safeType = /^(image\/(png|jpeg|gif|webp)|application\/pdf)$/i.test(type) ? type : 'text/plain;charset=utf-8';
  return new Blob([bytes], { type: safeType });
}

function openData(event, url) {
  event.preventDefault();
  const blobUrl = URL.createObjectURL(dataUrlToBlob(url));
  window.open(blobUrl, '_blank', 'noopener');
  setTimeout(() => URL.revokeObjectURL(blobUrl), 60000);
}

export function artifactItem(artifact) {
  const kind = artifactKind(artifact.url);
  const name = artifact.name || t('artifact.unnamed');
  let actions;
  if (kind === 'web' || kind === 'relative') {
    actions = html`<a class="artifact-link" href=${artifact.url} target="_blank" rel="noopener noreferrer">
      ${icon('external')}<span>${t('artifact.open')}</span><span class="visually-hidden">${name}</span></a>`;
  } else if (kind === 'data') {
    actions = html`<a class="artifact-link" href=${artifact.url} download=${name}>${icon('download')}<span>${t('artifact.download')}</span><span class="visually-hidden">${name}</span></a>
      <a class="artifact-link" href="#" @click=${(e) => openData(e, artifact.url)}>${icon('external')}<span>${t('artifact.open')}</span><span class="visually-hidden">${name}</span></a>`;
  } else {
    actions = html`<span class="muted">${t('artifact.unsupported')}</span>`;
  }
  return html`<li class="artifact" data-artifact=${artifact.id || name}>
    <span class="artifact-name">${icon('file')}<span>${name}</span></span>
    ${artifact.summary ? html`<span class="muted artifact-summary">${artifact.summary}</span>` : ''}
    <span class="artifact-actions">${actions}</span>
  </li>`;
}
