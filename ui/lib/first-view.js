// A card is first shown from its top (docs/design.md#interaction-cards): its title, risk, reasons and the start of
// what it approves, never its middle or its tail and buttons first. A conversation keeps its own rule (it follows its
// end, components/lineup-conversation.js); the inbox and a task's detail, which the page scrolls, use this one.
//
// Content that moves under a reader who did not scroll can bring a card's middle into view: the card above it answered
// and gone from the inbox (the reader was at its buttons, the next card moves up by its height), another task's detail
// opened where this one was scrolled to, a list drawn again. So after each change, a pending card that is in view with
// its top above the view, when it was not so before or is new, is moved down until its top shows. What the reader
// scrolls to is never corrected (they scrolled there), and while a high-risk confirmation is open nothing moves.

/** The element `el` scrolls in: its nearest scrolling ancestor, else the page. */
export function scrollerOf(el) {
  for (let up = el.parentElement; up; up = up.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(up).overflowY)) return up;
  }
  return document.scrollingElement;
}

const viewOf = (scroller) => (scroller === document.scrollingElement ? { top: 0, bottom: innerHeight }
  : scroller.getBoundingClientRect());

export class FirstView {
  /** `host`: the element whose pending cards (`.interaction-card.pending`) are watched. */
  constructor(host) {
    this.host = host;
    this.tops = new Map(); // card id -> its top relative to the view's, as last measured
    this.scroller = null;
    this.lastTop = 0; // the scroller's scrollTop when last measured
    this.setTop = null; // the scrollTop this module set last, to tell its own scrolls from the reader's
    this.onScroll = () => {
      if (this.setTop !== null && Math.abs(this.scroller.scrollTop - this.setTop) <= 1) return;
      this.setTop = null;
      this._measure(); // the reader moved: where the cards are now is theirs
    };
    this.resized = new ResizeObserver(() => this.check());
  }

  /** Look again once laid out (after the host and its cards are drawn). */
  check() {
    cancelAnimationFrame(this.frame);
    this.frame = requestAnimationFrame(() => this._check());
  }

  /** Forget every card (another task opened): each is new again. */
  reset() {
    this.tops.clear();
  }

  disconnect() {
    cancelAnimationFrame(this.frame);
    this.resized.disconnect();
    this.scroller?.removeEventListener('scroll', this.onScroll);
    this.scroller = null;
  }

  _attach() {
    const scroller = scrollerOf(this.host);
    if (scroller === this.scroller) return;
    this.scroller?.removeEventListener('scroll', this.onScroll);
    const target = scroller === document.scrollingElement ? window : scroller;
    target.addEventListener('scroll', this.onScroll, { passive: true });
    this.scroller = scroller;
    this.lastTop = scroller.scrollTop;
  }

  _cards() {
    return [...this.host.querySelectorAll('.interaction-card.pending[data-interaction-id]')];
  }

  /** Each pending card's top relative to the view. */
  _measure() {
    if (!this.scroller) return;
    const view = viewOf(this.scroller);
    this.tops = new Map(this._cards().map((card) => [card.dataset.interactionId, card.getBoundingClientRect().top - view.top]));
    this.lastTop = this.scroller.scrollTop;
  }

  _check() {
    if (!this.host.isConnected) return;
    this._attach();
    const cards = this._cards();
    for (const card of cards) this.resized.observe(card); // a card drawn later, or growing above another
    const scroller = this.scroller;
    const moved = Math.abs(scroller.scrollTop - this.lastTop) > 1 && !(this.setTop !== null
      && Math.abs(scroller.scrollTop - this.setTop) <= 1);
    if (!moved && !this.host.querySelector('.interaction-card .confirm-box')) {
      const view = viewOf(scroller);
      for (const card of cards) {
        const rect = card.getBoundingClientRect();
        const top = rect.top - view.top;
        const before = this.tops.get(card.dataset.interactionId);
        const inView = rect.bottom > view.top + 1 && rect.top < view.bottom - 1;
        if (inView && top < -1 && (before === undefined || before >= -1)) {
          scroller.scrollTop += top - 4; // its border just in view
          this.setTop = scroller.scrollTop;
          break;
        }
      }
    }
    this._measure();
  }
}
