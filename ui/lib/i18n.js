// Chinese and English text: the language comes from the browser, can be switched, and is remembered.

import { en } from './strings-en.js';

// English is always there (the fallback for a missing key); other languages load when chosen, so a phone that
// shows English never downloads the Chinese text (and the reverse costs one small request).
const DICTIONARIES = { en };
const LOADERS = { zh: () => import('./strings-zh.js').then((module) => module.zh) };
const KNOWN = ['en', ...Object.keys(LOADERS)];
const STORAGE_KEY = 'lineup.language';
const listeners = new Set();

export const LANGUAGES = [
  { code: 'zh', label: '中文' },
  { code: 'en', label: 'English' },
];

/** The first of the browser's preferred languages that the app speaks; English otherwise. */
export function browserLanguage(preferred = navigator.languages || [navigator.language]) {
  for (const tag of preferred) {
    const base = String(tag || '').toLowerCase().split('-')[0];
    if (KNOWN.includes(base)) return base;
  }
  return 'en';
}

function initialLanguage() {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved && KNOWN.includes(saved)) return saved;
  } catch { /* storage may be unavailable (private mode): fall back to the browser's choice */ }
  return browserLanguage();
}

let current = initialLanguage();
if (!DICTIONARIES[current]) DICTIONARIES[current] = await LOADERS[current]();  // before the first render
document.documentElement.lang = current === 'zh' ? 'zh-CN' : 'en';

export function language() {
  return current;
}

export async function setLanguage(code) {
  if (!KNOWN.includes(code) || code === current) return;
  if (!DICTIONARIES[code]) DICTIONARIES[code] = await LOADERS[code]();
  current = code;
  try { localStorage.setItem(STORAGE_KEY, code); } catch { /* not remembered, still switched */ }
  document.documentElement.lang = code === 'zh' ? 'zh-CN' : 'en';
  for (const fn of [...listeners]) fn(code);
}

export function onLanguageChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The text for `key` in the current language, with `{name}` placeholders filled from `vars`. */
export function t(key, vars = {}) {
  const text = DICTIONARIES[current][key] ?? DICTIONARIES.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

/** Plural-aware text: uses `key.one` when n is 1 (English only distinguishes), else `key.other`. */
export function tn(key, n, vars = {}) {
  const form = n === 1 && `${key}.one` in DICTIONARIES[current] ? `${key}.one` : `${key}.other`;
  return t(form, { n, ...vars });
}

function locale() {
  return current === 'zh' ? 'zh-CN' : 'en';
}

// Intl formatters are costly to make (ICU data is loaded per instance): one per language and style, kept.
const formatters = new Map();
function formatter(Kind, options) {
  const key = `${Kind.name}|${locale()}|${JSON.stringify(options)}`;
  let made = formatters.get(key);
  if (!made) {
    made = new Kind(locale(), options);
    formatters.set(key, made);
  }
  return made;
}

function toDate(value) {
  if (!value) return null;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

export function formatTime(value) {
  const date = toDate(value);
  if (!date) return '';
  const sameDay = date.toDateString() === new Date().toDateString();
  const options = sameDay ? { hour: '2-digit', minute: '2-digit', second: '2-digit' }
    : { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' };
  return formatter(Intl.DateTimeFormat, options).format(date);
}

export function formatDateTime(value) {
  const date = toDate(value);
  if (!date) return '';
  return formatter(Intl.DateTimeFormat, { dateStyle: 'medium', timeStyle: 'medium' }).format(date);
}

/** A number and the word after it on one line ("3\u00a0minutes", never "3" at a line's end and "minutes" below). */
export function keepTogether(text) {
  return String(text).replace(/(\d) (?=\p{L})/gu, '$1\u00a0');
}

/** "3 minutes ago" style text for a past instant. */
export function formatAgo(value, now = Date.now()) {
  const date = toDate(value);
  if (!date) return '';
  const seconds = Math.round((date.getTime() - now) / 1000);
  const rtf = formatter(Intl.RelativeTimeFormat, { numeric: 'auto' });
  const abs = Math.abs(seconds);
  if (abs < 45) return keepTogether(rtf.format(seconds, 'second'));
  if (abs < 45 * 60) return keepTogether(rtf.format(Math.round(seconds / 60), 'minute'));
  if (abs < 22 * 3600) return keepTogether(rtf.format(Math.round(seconds / 3600), 'hour'));
  return keepTogether(rtf.format(Math.round(seconds / 86400), 'day'));
}

/** A count with the language's digit grouping: 5,712 (en), 5,712 (zh). */
export function formatNumber(n) {
  return formatter(Intl.NumberFormat, {}).format(Number(n) || 0);
}

/** mm:ss for a countdown. */
export function formatCountdown(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return `${minutes}:${seconds}`;
}
