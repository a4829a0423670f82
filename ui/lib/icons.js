// The app's icons: small inline SVGs drawn with currentColor, always beside a word
// (docs/design.md#accessibility-floor).

import { svg, html } from '../vendor/lit-html/lit-html.js';

const C = svg`<circle cx="8" cy="8" r="5.75"/>`;
const PATHS = {
  queued: C,
  running: svg`${C}<path d="M6.75 5.5v5l3.75-2.5z" class="icon-fill"/>`,
  waiting: svg`${C}<path d="M8 4.75v4M8 10.9v.35"/>`,
  succeeded: svg`${C}<path d="M5.4 8.2l1.9 1.9 3.4-3.9"/>`,
  failed: svg`${C}<path d="M6 6l4 4M10 6l-4 4"/>`,
  cancelled: svg`${C}<path d="M4 12l8-8"/>`,
  check: svg`<path d="M3.5 8.5l3 3 6-7"/>`,
  close: svg`<path d="M4 4l8 8M12 4l-8 8"/>`,
  warning: svg`<path d="M8 2.25l6.25 11.25H1.75z"/><path d="M8 6.5v3.25M8 11.6v.3"/>`,
  online: svg`<circle cx="8" cy="8" r="4" class="icon-fill"/>`,
  offline: svg`<circle cx="8" cy="8" r="4"/><path d="M3 13L13 3"/>`,
  inbox: svg`<path d="M2.25 9.25L4 3.25h8l1.75 6v3.5H2.25z"/><path d="M2.25 9.25H5.5l.75 1.5h3.5l.75-1.5h3.25"/>`,
  chat: svg`<path d="M2.25 3.25h11.5v7.5H7.5l-3.25 2.5v-2.5h-2z"/>`,
  tasks: svg`<path d="M2.25 4.25l1.1 1.1 2-2.1M7.5 4.5h6.25M2.25 8.75l1.1 1.1 2-2.1M7.5 9h6.25M7.5 13h6.25M2.75 13h1.5"/>`,
  agent: svg`<rect x="2.75" y="5" width="10.5" height="8.25" rx="2"/><path d="M8 2.25V5M6 9h.01M10 9h.01"/>`,
  settings: svg`<circle cx="8" cy="8" r="2.25"/><path d="M8 1.5v2M8 12.5v2M1.5 8h2M12.5 8h2M3.4 3.4l1.4 1.4M11.2 11.2l1.4 1.4M3.4 12.6l1.4-1.4M11.2 4.8l1.4-1.4"/>`,
  menu: svg`<path d="M2.5 4h11M2.5 8h11M2.5 12h11"/>`,
  copy: svg`<rect x="5.5" y="5.5" width="8" height="8" rx="1.5"/><path d="M10.5 5.5V3.5a1 1 0 0 0-1-1h-6a1 1 0 0 0-1 1v6a1 1 0 0 0 1 1h2"/>`,
  file: svg`<path d="M4 1.75h5l3.25 3.25v9.25H4z"/><path d="M9 1.75V5h3.25"/>`,
  download: svg`<path d="M8 2.5v8M4.75 7.5L8 10.75l3.25-3.25M3 13.5h10"/>`,
  attach: svg`<path d="M10.5 4.5l-4.9 4.9a1.4 1.4 0 002 2l5.1-5.1a2.6 2.6 0 00-3.7-3.7L3.8 7.8a3.8 3.8 0 005.4 5.4l3.3-3.3"/>`,
  camera: svg`<path d="M2 5h2.75l1.25-1.75h4L11.25 5H14v7.75H2z"/><circle cx="8" cy="8.75" r="2.25"/>`,
  external: svg`<path d="M9 2.5h4.5V7M13.5 2.5L7.5 8.5M11.5 9.5v4h-9v-9h4"/>`,
  phone: svg`<rect x="4.5" y="1.5" width="7" height="13" rx="1.5"/><path d="M7 12.25h2"/>`,
  plus: svg`<path d="M8 3v10M3 8h10"/>`,
  send: svg`<path d="M2.5 8l11-5.5-3.5 11-2.25-4.25z"/><path d="M7.75 9.25L13.5 2.5"/>`,
  globe: svg`<circle cx="8" cy="8" r="6"/><path d="M2 8h12M8 2c2.2 2 2.2 10 0 12M8 2C5.8 4 5.8 12 8 14"/>`,
  clock: svg`<circle cx="8" cy="8" r="6"/><path d="M8 4.5V8l2.5 1.5"/>`,
  plug: svg`<path d="M5.5 1.75v3M10.5 1.75v3M3.75 4.75h8.5v2.5a4.25 4.25 0 0 1-8.5 0zM8 11.5v2.75"/>`,
  back: svg`<path d="M10 3L5 8l5 5"/>`,
  chevron: svg`<path d="M6 3l5 5-5 5"/>`,
  signout: svg`<path d="M6.5 2.5h-4v11h4M10 5l3 3-3 3M13 8H6"/>`,
  tool: svg`<path d="M10.25 2.25a3.25 3.25 0 0 0-3 4.5L2.5 11.5l2 2 4.75-4.75a3.25 3.25 0 0 0 4.5-3l-2 2-1.75-.5-.5-1.75z"/>`,
  play: svg`<path d="M5 3.25v9.5L12.5 8z"/>`,
  stop: svg`<rect x="4" y="4" width="8" height="8" rx="1"/>`,
  diff: svg`<path d="M5 2.5v6M2 5.5h6M2 12.5h6M10 3.5h3.5v9H10"/>`,
  comment: svg`<path d="M2.5 3.5h11v7H7l-3 2.5v-2.5H2.5z"/>`,
  key: svg`<circle cx="5" cy="10.5" r="2.75"/><path d="M7 8.5l6-6M11 4.5l1.75 1.75M9.5 6l1.25 1.25"/>`,
};

/** `icon('succeeded')`: a decorative 16×16 icon; the accessible name always comes from the word beside it. */
export function icon(name, extraClass = '') {
  return html`<svg class="icon ${extraClass}" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"
    focusable="false" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round"
    stroke-linejoin="round">${PATHS[name] || PATHS.queued}</svg>`;
}
