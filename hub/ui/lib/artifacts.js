// Artifacts as links: http(s) and protocol-relative (//host) ones are other sites and open in a new tab, naming
// the site; a data: URL downloads, or opens as a blob (browsers refuse to navigate to data: URLs); anything else
// (javascript:, file:) is shown but never linked. Images of a safe type (png, jpeg, gif, webp; never svg, which can
// carry script) are previewed when they are data: URLs or on this hub (the CSP allows no other image source).

import { html } from '../vendor/lit-html/lit-html.js';
import { icon } from './icons.js';
import { t } from './i18n.js';

export function artifactKind(url) {
  // `//host/x` (and `/\host`, `\\host`, which browsers read the same way) is another site, not this hub.
  if (/^\s*[\\/][\\/]/.test(String(url || ''))) return 'web';
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

const IMAGE_TYPE = /^image\/(png|jpeg|gif|webp)$/i;
const IMAGE_DATA = /^data:image\/(png|jpeg|gif|webp)(;[a-z0-9=._-]+)*,/i;
const IMAGE_PATH = /\.(png|jpe?g|gif|webp)$/i;

/** The URL to preview `artifact` with, or null: a safe image type only, and only data: or this hub's own URLs. */
export function previewUrl(artifact) {
  const url = String(artifact?.url || '').trim();
  if (artifactKind(url) === 'data') return IMAGE_DATA.test(url) ? url : null;
  const kind = artifactKind(url);
  if (kind !== 'relative' && kind !== 'web') return null;
  let parsed;
  try { parsed = new URL(url, window.location.href); } catch { return null; }
  if (parsed.origin !== window.location.origin || /[\\]/.test(url)) return null;
  const declared = artifact.mimeType ? String(artifact.mimeType).split(';')[0].trim() : '';
  if (declared ? !IMAGE_TYPE.test(declared) : !IMAGE_PATH.test(parsed.pathname)) return null;
  if (/\.svgz?$/i.test(parsed.pathname)) return null;
  return parsed.href;
}

function hostOf(url) {
  try {
    return new URL(String(url).trim().replace(/\\/g, '/'), window.location.href).host;
  } catch {
    return '';
  }
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
    // Another site says which one, so a link the agent wrote cannot pass for a page of this hub.
    const host = kind === 'web' ? hostOf(artifact.url) : '';
    actions = html`<a class="artifact-link" href=${artifact.url} target="_blank" rel="noopener noreferrer"
        data-link=${kind === 'web' ? 'external' : 'hub'}>
      ${icon('external')}<span>${t('artifact.open')}</span><span class="visually-hidden">${name}</span></a>
      ${host ? html`<span class="muted small artifact-host">${host}</span>` : ''}`;
  } else if (kind === 'data') {
    actions = html`<a class="artifact-link" href=${artifact.url} download=${name}>${icon('download')}<span>${t('artifact.download')}</span><span class="visually-hidden">${name}</span></a>
      <a class="artifact-link" href="#" @click=${(e) => openData(e, artifact.url)}>${icon('external')}<span>${t('artifact.open')}</span><span class="visually-hidden">${name}</span></a>`;
  } else {
    actions = html`<span class="muted">${t('artifact.unsupported')}</span>`;
  }
  const preview = previewUrl(artifact);
  return html`<li class="artifact" data-artifact=${artifact.id || name}>
    <span class="artifact-name">${icon('file')}<span>${name}</span></span>
    ${preview ? html`<img class="artifact-preview" src=${preview} alt=${t('artifact.preview', { name })} loading="lazy"
      decoding="async" referrerpolicy="no-referrer">` : ''}
    ${artifact.summary ? html`<span class="muted artifact-summary">${artifact.summary}</span>` : ''}
    <span class="artifact-actions">${actions}</span>
  </li>`;
}
