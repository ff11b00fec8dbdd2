// A click counts only on a control that has stayed where it is for a
// moment. A consent card that just appeared, or moved because another card
// came, went or grew above it, must not turn a click meant for something
// else (the card that was there a moment ago) into consent.
//
// Pure timing logic (`SettleGuard`, no DOM) plus `layoutBox`, which measures
// an element where the layout put it. Times are in milliseconds from one
// monotonic clock (`performance.now()`).

/** How long a control must stay still before a click on it counts. */
export const SETTLE_MS = 500;
/** Moves smaller than this (in CSS pixels: sub-pixel layout noise) do not count. */
export const SETTLE_TOLERANCE_PX = 1;

/** Where an element is: position and size in CSS pixels. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Whether two boxes are the same place, within `tolerance` pixels on every side. */
export function sameBox(a: Box, b: Box, tolerance = SETTLE_TOLERANCE_PX): boolean {
  return (
    Math.abs(a.x - b.x) < tolerance &&
    Math.abs(a.y - b.y) < tolerance &&
    Math.abs(a.width - b.width) < tolerance &&
    Math.abs(a.height - b.height) < tolerance
  );
}

/**
 * Tracks one control's box. Every time it is first seen or seen somewhere
 * else, the wait of `settleMs` starts over; a click counts only once the
 * control has been in the same place for the whole wait.
 */
export class SettleGuard {
  readonly settleMs: number;
  #box: Box | null = null;
  #since = 0;

  constructor(settleMs = SETTLE_MS) {
    this.settleMs = settleMs;
  }

  /** Record where the control is at `now`. True when it appeared or moved: the wait starts over. */
  observe(box: Box, now: number): boolean {
    if (this.#box !== null && sameBox(this.#box, box)) return false;
    this.#box = box;
    this.#since = now;
    return true;
  }

  /** Milliseconds left before a click counts (the whole wait before the first `observe`). */
  remaining(now: number): number {
    if (this.#box === null) return this.settleMs;
    return Math.max(0, this.#since + this.settleMs - now);
  }

  /** Whether the control has been still for the whole wait. */
  settled(now: number): boolean {
    return this.#box !== null && this.remaining(now) === 0;
  }

  /**
   * At the moment of a click: where the control is now. The click counts only
   * if it has been right there for the whole wait; a move that no observer
   * saw yet is caught here, and starts the wait over.
   */
  allows(box: Box, now: number): boolean {
    this.observe(box, now);
    return this.settled(now);
  }
}

/** The nearest ancestor that scrolls (or null: the document scrolls). */
function scrollParent(el: Element): Element | null {
  for (let p = el.parentElement; p; p = p.parentElement) {
    const { overflowY, overflowX } = getComputedStyle(p);
    if (/(auto|scroll|overlay)/.test(overflowY + overflowX)) return p;
  }
  return null;
}

/**
 * Where the layout put `el`: its box relative to the content of the element
 * that scrolls it. The person's own scrolling does not change it; a card
 * that appears, goes or grows above it does, and so does a resized window.
 */
export function layoutBox(el: Element): Box {
  const r = el.getBoundingClientRect();
  const sc = scrollParent(el);
  if (sc === null) {
    return { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height };
  }
  const c = sc.getBoundingClientRect();
  return { x: r.left - c.left + sc.scrollLeft, y: r.top - c.top + sc.scrollTop, width: r.width, height: r.height };
}
