// Files stored on the hub (docs/protocol.md "Files"): sending one from the composer, reading one to show it. Both carry
// the app's token in the Authorization header, never in a URL; an <img src> cannot carry it, so an image is shown from a
// blob: URL made of the bytes fetched with it (the hub's CSP allows img-src blob:, hub/web/headers.py). Loaded the first
// time a file is shown or attached (lib/artifacts.js, components/lineup-composer.js), never on the first screen.

import { relayed } from './api.js';

const FILE_PATH = /^\/api\/files\/([A-Za-z0-9_-]{1,128})$/;
// Bytes of a text or Markdown file shown inline (the rest: "Download"); a message's own limit is 256 Ki characters.
export const TEXT_PREVIEW_BYTES = 256 * 1024;
// Images and other files kept in memory as blob: URLs, the least recently used let go first.
const MAX_CACHED = 24;
const MAX_CACHED_BYTES = 96 * 1024 * 1024;

export const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
export const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/csv', 'application/json']);

export class FileError extends Error {
  constructor(status, code, message, hint = '', details = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.hint = hint;
    this.details = details;
  }
}

/** The app's token: the signed-in shell's (kept in memory when the browser keeps no storage), else the stored one. */
function token() {
  const app = document.querySelector('lineup-app');
  if (app?.token) return app.token;
  try { return localStorage.getItem('lineup.token'); } catch { return null; }
}

/** The hub's limits on files, from the page (hub/app.py writes them into index.html). */
export function fileLimits() {
  let served = {};
  try { served = JSON.parse(document.getElementById('lineup-limits')?.textContent || '{}'); } catch { served = {}; }
  return { maxFileBytes: served.maxFileBytes || 25 * 1024 * 1024, maxAttachments: served.maxAttachments || 10 };
}

/** `/api/files/<id>` on this hub (what the hub makes an artifact's url when it holds the file), else null. */
export function hubFileId(url) {
  let parsed;
  try { parsed = new URL(String(url ?? ''), window.location.href); } catch { return null; }
  if (parsed.origin !== window.location.origin || parsed.search || parsed.hash) return null;
  return FILE_PATH.exec(parsed.pathname)?.[1] || null;
}

export function kindOf(mimeType) {
  const type = String(mimeType || '').split(';')[0].trim().toLowerCase();
  if (IMAGE_TYPES.has(type)) return 'image';
  if (type === 'text/markdown') return 'markdown';
  if (TEXT_TYPES.has(type)) return 'text';
  if (type === 'application/pdf') return 'pdf';
  return 'other';
}

/** 1536 → "1.5 KB", 26214400 → "25 MB" (powers of 1024, as the hub's limits are set). */
export function formatSize(bytes) {
  const n = Number(bytes);
  if (!Number.isFinite(n) || n < 0) return '';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return `${value >= 10 || Number.isInteger(value) ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

async function failure(response) {
  let error = {};
  try { error = (await response.json())?.error || {}; } catch { error = {}; }
  return new FileError(response.status, error.code || `http_${response.status}`, error.message || response.statusText,
    error.hint || '', error.details || null);
}

/** Send `file` (a File or Blob) to the hub; `onProgress(fraction)` as it goes. Resolves to what the hub stored:
 * `{fileId, name, mimeType, size, sha256}`; rejects with a FileError (`network` when the hub could not be reached). */
export function uploadFile(file, { onProgress = () => {}, signal = null, name = file.name || 'file' } = {}) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/files');
    xhr.setRequestHeader('Authorization', `Bearer ${token()}`);
    xhr.setRequestHeader('X-File-Name', encodeURIComponent(name));
    xhr.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    xhr.responseType = 'json';
    xhr.upload.onprogress = (event) => { if (event.lengthComputable) onProgress(event.loaded / event.total); };
    xhr.onload = () => {
      const body = xhr.response;
      if (xhr.status === 201 && body?.fileId) resolve(body);
      else {
        const error = body?.error || {};
        reject(new FileError(xhr.status, error.code || `http_${xhr.status}`, error.message || xhr.statusText || 'upload failed',
          error.hint || '', error.details || null));
      }
    };
    xhr.onerror = () => reject(new FileError(0, 'network', 'the hub could not be reached'));
    xhr.onabort = () => reject(new FileError(0, 'aborted', 'cancelled'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(file);
  });
}

function request(id, headers = {}) {
  const route = relayed(); // away from home: the same route, through the relay (lib/relay-requests.js)
  if (route) {
    return route('GET', `/api/files/${encodeURIComponent(id)}`, undefined)
      .catch(() => { throw new FileError(0, 'network', 'the hub could not be reached'); });
  }
  return fetch(`/api/files/${encodeURIComponent(id)}`, {
    headers: { Authorization: `Bearer ${token()}`, ...headers }, cache: 'no-store', credentials: 'omit',
  }).catch(() => { throw new FileError(0, 'network', 'the hub could not be reached'); });
}

/** The file's own name, as the hub serves it (Content-Disposition), or null. */
function servedName(response) {
  const header = response.headers.get('content-disposition') || '';
  const encoded = /filename\*=utf-8''([^;]+)/i.exec(header);
  if (encoded) {
    try { return decodeURIComponent(encoded[1]); } catch { /* the plain form below */ }
  }
  return /filename="([^"]*)"/i.exec(header)?.[1] || null;
}

const blobs = new Map(); // id -> Promise<{ blob, url }>, the most recently used last

function forgetOld() {
  let bytes = 0;
  const entries = [...blobs.entries()].reverse(); // newest first
  for (const [index, [id, entry]] of entries.entries()) {
    const size = entry.size || 0;
    bytes += size;
    if (index >= MAX_CACHED || (index > 0 && bytes > MAX_CACHED_BYTES)) {
      blobs.delete(id);
      entry.promise.then(({ url }) => URL.revokeObjectURL(url), () => {});
    }
  }
}

/** The file's bytes as `{ blob, url }` (a blob: URL of its own type), fetched with the token once and kept a while. */
export function fileBlob(id) {
  const known = blobs.get(id);
  if (known) {
    blobs.delete(id);
    blobs.set(id, known);
    return known.promise;
  }
  const entry = { size: 0, promise: null };
  entry.promise = request(id).then(async (response) => {
    if (!response.ok) throw await failure(response);
    const blob = await response.blob();
    entry.size = blob.size;
    forgetOld();
    return { blob, url: URL.createObjectURL(blob), name: servedName(response) };
  });
  entry.promise.catch(() => { if (blobs.get(id) === entry) blobs.delete(id); });
  blobs.set(id, entry);
  forgetOld();
  return entry.promise;
}

/** The start of a text file, at most `maxBytes`: `{ text, truncated, size }` (a range request: never the whole file). */
export async function fileText(id, maxBytes = TEXT_PREVIEW_BYTES) {
  const response = await request(id, { Range: `bytes=0-${maxBytes - 1}` });
  if (response.status === 416) return { text: '', truncated: false, size: 0 }; // an empty file has no byte 0
  if (!response.ok) throw await failure(response);
  const buffer = await response.arrayBuffer();
  const total = Number(/\/(\d+)$/.exec(response.headers.get('content-range') || '')?.[1] ?? buffer.byteLength);
  const truncated = total > buffer.byteLength;
  let text = new TextDecoder('utf-8').decode(buffer.byteLength > maxBytes ? buffer.slice(0, maxBytes) : buffer);
  if (truncated) text = text.replace(/\uFFFD$/, ''); // a character cut in two at the end
  return { text, truncated, size: total };
}

// What a new tab may show of a stored file, by the kind the hub judged from its bytes (hub/files/types.py): a PDF in
// the browser's viewer, an image, text as plain text. Never a type a browser runs as a page.
const OPEN_AS = { pdf: 'application/pdf', image: null, text: 'text/plain;charset=utf-8',
  markdown: 'text/plain;charset=utf-8' };

/** Open the file in a new tab, from its bytes fetched with the token (a tab cannot carry the token itself): a blob:
 * URL of a safe type (`OPEN_AS`), as a data: link is opened (lib/artifacts.js). The tab is opened in the tap's own
 * turn, so no pop-up blocker stops it, and cut from the app (`opener` null) before it is pointed at the bytes; it is
 * closed again when they cannot be read. Resolves to the tab (null when the browser refused one). */
export async function openFile(id, mimeType) {
  const kind = kindOf(mimeType);
  if (!(kind in OPEN_AS)) throw new FileError(0, 'not_shown', 'this kind of file is downloaded, not opened');
  const tab = window.open('', '_blank');
  if (tab) tab.opener = null;
  try {
    const { blob } = await fileBlob(id);
    const type = OPEN_AS[kind] || blob.type;
    const url = URL.createObjectURL(new Blob([blob], { type }));
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    if (tab) tab.location.replace(url);
    else window.open(url, '_blank', 'noopener');
    return tab;
  } catch (error) {
    tab?.close();
    throw error;
  }
}

/** Save the file under its name (the browser's download), from its bytes fetched with the token. */
export async function saveFile(id, name) {
  const { url, name: served } = await fileBlob(id);
  const link = document.createElement('a');
  link.href = url;
  link.download = served || name || 'file';
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
}
