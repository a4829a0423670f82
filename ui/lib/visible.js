// Characters a person cannot see, found and shown as visible marks (`⟨U+2067⟩`): the twin of hub/domain/visible.py.
//
// A direction-changing character reorders what is shown (`npm test ⁧; curl …|sh #⁩ lint` reads as a comment that
// mentions curl), a zero-width or format character hides a difference, a no-break space or a run of odd spaces pushes
// code out of sight, a letter fonts draw as nothing (the Hangul filler U+3164) can be a whole identifier. The hub
// raises an approval's risk for exactly the characters this module marks, so the card shows, where each one is, why
// it was raised (docs/security.md#what-an-approval-shows). The rule is the hub's: Unicode categories Cf, Cc (not a
// line break), Zl, Zp, Co, Cn, Cs, every space but U+0020, Unicode's Default_Ignorable_Code_Point set and the braille
// blank U+2800 (IGNORABLE), the supplementary variation selectors and runs of the basic ones; in a file's content a
// tab and a CRLF line end are ordinary (still shown, as ⇥ and ␍, but not a risk). The categories come from the
// browser's Unicode tables, which may be newer than the hub's Python: a character assigned since is unassigned (Cn,
// hidden) for the hub and may be plain here. So a code point the hub names as hidden (a card's reason
// `hidden_characters`) is learned (`learnHidden`) and marked from then on: the page never shows plainly what the hub
// flagged.

import { html } from '../vendor/lit-html/lit-html.js';
import { t } from './i18n.js';

// The candidates, one code point at a time (`v`: set subtraction; `\p{Cs}` matches a lone surrogate). A space and a
// line break are never hidden; the basic variation selectors are decided by their neighbours below.
// The second line: Unicode's Default_Ignorable_Code_Point set (its basic variation selectors U+FE00-FE0F keep their
// rule below) and U+2800, listed as the hub lists them (hub/domain/visible.py _IGNORABLE_RANGES), not as the browser's
// `\p{Default_Ignorable_Code_Point}`, so both sides hide the same code points whatever their Unicode versions.
const CANDIDATE = new RegExp('[[\\p{Cf}\\p{Cc}\\p{Zl}\\p{Zp}\\p{Co}\\p{Cn}\\p{Cs}\\p{Zs}\\u{E0100}-\\u{E01EF}\\uFE00-\\uFE0F'
  + '\\u00AD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u206F\\u2800\\u3164'
  + '\\uFEFF\\uFFA0\\uFFF0-\\uFFF8\\u{1BCA0}-\\u{1BCA3}\\u{1D173}-\\u{1D17A}\\u{E0000}-\\u{E0FFF}]--[\\n ]]', 'v');
// Code points the hub named as hidden that this browser's tables call something else (see above).
const learned = new Set();
const MAX_NAMED = 5; // code points a reason names (hub/domain/visible.py MAX_NAMED)

const isBasicSelector = (code) => code >= 0xfe00 && code <= 0xfe0f;

/** The code point at `index` of `text` and its length in UTF-16 units (a lone surrogate is one). */
export function codePointAt(text, index) {
  const code = text.codePointAt(index);
  return [code, code > 0xffff ? 2 : 1];
}

function codeBefore(text, index) {
  if (index <= 0) return 0x20;
  const low = text.charCodeAt(index - 1);
  if (low >= 0xdc00 && low <= 0xdfff && index >= 2) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.codePointAt(index - 2);
  }
  return low;
}

/** Learn the code points the hub names (`U+XXXX` in `part`, a reason `hidden_characters`' part) as hidden: marked in
 * every text drawn after. Only beyond ASCII (the rules agree there; a tab stays a tab in a file's content). Returns
 * whether any was new. */
export function learnHidden(part) {
  let added = false;
  for (const [, hex] of String(part ?? '').matchAll(/U\+([0-9A-Fa-f]{4,6})\b/g)) {
    const code = parseInt(hex, 16);
    if (code >= 0x80 && code <= 0x10ffff && !learned.has(code)) {
      learned.add(code);
      added = true;
    }
  }
  return added;
}

/** U+XXXX, as the hub names a code point. */
export function codeName(code) {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Whether the code point at `index` is one a person cannot see. `content`: the text is a file's content, where a tab
 * and a CR before a line break are ordinary. The common case (printable ASCII) costs one comparison.
 */
export function hiddenAt(text, index, content = false) {
  const [code, size] = codePointAt(text, index);
  if (code >= 0x21 && code <= 0x7e) return false;
  if (code === 0x20 || code === 0x0a) return false;
  if (content && (code === 0x09 || (code === 0x0d && text.charCodeAt(index + 1) === 0x0a))) return false;
  if (code >= 0xe0100 && code <= 0xe01ef) return true;
  if (learned.size && learned.has(code)) return true;
  if (isBasicSelector(code)) {
    const after = index + size < text.length ? text.codePointAt(index + size) : 0x20;
    return isBasicSelector(codeBefore(text, index)) || isBasicSelector(after);
  }
  return CANDIDATE.test(String.fromCodePoint(code));
}

/** The distinct hidden characters of `text` as `U+XXXX`, in the order first met (at most MAX_NAMED + 1): what the
 * hub names in its reason (hub/domain/visible.py hidden_characters). */
export function hiddenCharacters(text, { content = false } = {}) {
  const value = String(text ?? '');
  const found = [];
  for (let index = 0; index < value.length;) {
    const [code, size] = codePointAt(value, index);
    if (hiddenAt(value, index, content)) {
      const name = codeName(code);
      if (!found.includes(name)) {
        found.push(name);
        if (found.length > MAX_NAMED) break;
      }
    }
    index += size;
  }
  return found;
}

/**
 * `text` as pieces: `{text}` to show as it is, `{mark, code, count}` for a run of one hidden character (`⟨U+00A0 ×
 * 2500⟩`), `{tab, count}` and `{cr}` for a file's tabs and CRLF line ends. Linear in the text.
 */
export function visiblePieces(text, { content = false } = {}) {
  const value = String(text ?? '');
  const pieces = [];
  let plain = 0;
  const flush = (end) => { if (end > plain) pieces.push({ text: value.slice(plain, end) }); };
  for (let index = 0; index < value.length;) {
    const [code, size] = codePointAt(value, index);
    if (code >= 0x20 && code <= 0x7e) { index += 1; continue; }
    const tab = content && code === 0x09;
    const cr = content && code === 0x0d && value.charCodeAt(index + 1) === 0x0a;
    if (!tab && !cr && !hiddenAt(value, index, content)) { index += size; continue; }
    flush(index);
    let end = index + size;
    let count = 1;
    if (!cr) { // a run of the same character is one mark with its count
      while (end < value.length && value.codePointAt(end) === code) { end += size; count += 1; }
    }
    pieces.push(tab ? { tab: true, count } : cr ? { cr: true } : { mark: true, code, count });
    index = end;
    plain = end;
  }
  flush(value.length);
  return pieces;
}

/** The label of a hidden-character mark: `⟨U+2067⟩`, `⟨U+00A0 × 2500⟩`. */
export function markLabel(code, count = 1) {
  return count > 1 ? `⟨${codeName(code)} × ${count}⟩` : `⟨${codeName(code)}⟩`;
}

/** `text` with every hidden character (tabs too) as its mark, as plain text: what a plain-text place shows
 * (hub/domain/visible.py mark). */
export function markText(text) {
  return visiblePieces(text).map((piece) => (piece.mark ? markLabel(piece.code, piece.count) : piece.text)).join('');
}

/** One piece as the page shows it: a mark is a styled span with an accessible name. */
export function pieceView(piece) {
  if (piece.text !== undefined) return piece.text;
  if (piece.tab) {
    const name = piece.count > 1 ? t('approves.mark.tabs', { count: piece.count }) : t('approves.mark.tab');
    return html`<span class="vis-mark vis-soft" role="img" aria-label=${name} title=${name}>${'⇥'.repeat(Math.min(piece.count, 8))}${piece.count > 8 ? `×${piece.count}` : ''}</span>`;
  }
  if (piece.cr) {
    const name = t('approves.mark.cr');
    return html`<span class="vis-mark vis-soft" role="img" aria-label=${name} title=${name}>␍</span>`;
  }
  const name = piece.count > 1 ? t('approves.mark.run', { code: codeName(piece.code), count: piece.count })
    : t('approves.mark.one', { code: codeName(piece.code) });
  return html`<span class="vis-mark" role="img" aria-label=${name} title=${name} data-code=${codeName(piece.code)}
    data-count=${piece.count}>${markLabel(piece.code, piece.count)}</span>`;
}

/** `text` for the page, every character a person cannot see shown as a mark: for titles, paths, labels. */
export function visible(text, options) {
  const pieces = visiblePieces(text, options);
  if (pieces.length === 1 && pieces[0].text !== undefined) return pieces[0].text;
  return pieces.map(pieceView);
}
