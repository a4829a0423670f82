// Rows of text (a diff's lines, a command's lines) put into the page a block per frame when there are many, so a card
// that holds 60 KiB or 2,000 lines never holds the page for one long task (docs/quality.md P1) while it waits to be
// answered.

import { html, render } from '../vendor/lit-html/lit-html.js';

// A block is at most this many rows or characters: 300 short rows or 16,000 characters are put in and laid out in a
// few milliseconds on the test machine (a wrapped 60 KiB line as one block took 7-12 ms).
const ROWS_PER_BLOCK = 300;
const CHARS_PER_BLOCK = 16000;

const costOf = (row) => row.cost ?? 1;

/** `rows` cut into blocks of at most ROWS_PER_BLOCK rows and CHARS_PER_BLOCK characters (a row is never cut). */
function blocksOf(rows) {
  const blocks = [];
  let block = [];
  let chars = 0;
  for (const row of rows) {
    if (block.length && (block.length >= ROWS_PER_BLOCK || chars + costOf(row) > CHARS_PER_BLOCK)) {
      blocks.push(block);
      block = [];
      chars = 0;
    }
    block.push(row);
    chars += costOf(row);
  }
  if (block.length) blocks.push(block);
  return blocks;
}

/** Rows that are put in one block per frame, each block rendered once into an element of its own (the app re-renders
 * a card on every event: the blocks already in the page cost nothing then). `data-complete` and a bubbling
 * `lineup-rows-complete` event once every row is in. */
class PaintedRows extends HTMLElement {
  set rows(rows) {
    if (rows === this._rows) return;
    this._rows = rows;
    this._blocks = blocksOf(rows);
    this._painted = 0;
    this.replaceChildren();
    this.removeAttribute('data-complete');
    if (this.isConnected) this._schedule();
  }

  get rows() {
    return this._rows;
  }

  set view(view) {
    this._view = view;
  }

  get complete() {
    return Boolean(this._blocks) && this._painted >= this._blocks.length;
  }

  connectedCallback() {
    if (this._blocks && this._painted < this._blocks.length) this._schedule();
  }

  disconnectedCallback() {
    cancelAnimationFrame(this._frame);
    this._frame = null;
  }

  _schedule() {
    if (this._frame) return;
    const step = () => {
      this._frame = null;
      if (!this.isConnected) return;
      const block = document.createElement('div');
      block.className = this.dataset.blockClass || 'rows-block';
      render(html`${this._blocks[this._painted].map(this._view)}`, block);
      this.append(block);
      this._painted += 1;
      if (this._painted < this._blocks.length) this._frame = requestAnimationFrame(step);
      else {
        this.setAttribute('data-complete', '');
        this.dispatchEvent(new CustomEvent('lineup-rows-complete', { bubbles: true }));
      }
    };
    step(); // the first block at once: a short text looks no different, a long one starts where it should
  }
}
if (!customElements.get('lineup-rows')) customElements.define('lineup-rows', PaintedRows);

/** `rows` through `view`: as one template when they fit in one block, else a <lineup-rows> that paints them a block
 * per frame. `blockClass` names the blocks' class (the diff viewer's styles lay out `.diff-block`). The same `rows`
 * array must be handed over again on a re-render, or the rows are painted again. */
export function paintedRows(rows, view, blockClass = 'rows-block') {
  let chars = 0;
  for (const row of rows) chars += costOf(row);
  if (rows.length <= ROWS_PER_BLOCK && chars <= CHARS_PER_BLOCK) return rows.map(view);
  return html`<lineup-rows data-block-class=${blockClass} .view=${view} .rows=${rows}></lineup-rows>`;
}
