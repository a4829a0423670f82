// Runs in a Web Worker that lib/early.js starts: the browser's date data (ICU) loads on this thread, once per
// page process, so the main thread's first date formatter costs under a millisecond instead of 15–60 ms here,
// four times that on a slow phone, inside the first render of the inbox (the largest contentful paint).

const locales = JSON.parse(new URLSearchParams(self.location.search).get('locales') || '["en"]');
for (const locale of locales) {
  try { new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' }).format(0); } catch { /* unknown */ }
}
self.close();
