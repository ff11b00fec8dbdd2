// The maths of a virtualized list (components/common/VirtualRows.svelte):
// only the rows in view, plus an overscan, are in the DOM; the rows above
// and below are two spacers whose heights come from measured row heights
// (an estimate until a row has been on screen once).

/** Pixels rendered beyond each edge of the viewport, so a fast scroll or Tab finds rows there. */
export const OVERSCAN_PX = 600;
/** Ask for the next (older) page when the rendered rows come this close to the last loaded row. */
export const PREFETCH_ROWS = 40;
/**
 * The most rows a list keeps in memory. Past it the list stops loading and
 * says so: nobody reads 10,000 rows one by one, the filters (server, date,
 * search) narrow a million rows to a page in milliseconds, and a bound here
 * keeps the window's memory flat however far the user scrolls.
 */
export const MAX_LOADED_ROWS = 10_000;
/** Height assumed for a row never measured, until some row has been. */
export const DEFAULT_ROW_PX = 36;

/** offsets[i] = top of row i; offsets[n] = total height. */
export function prefixOffsets(heights: ArrayLike<number>): Float64Array {
  const out = new Float64Array(heights.length + 1);
  for (let i = 0; i < heights.length; i++) {
    const h = heights[i] ?? 0;
    out[i + 1] = (out[i] ?? 0) + (Number.isFinite(h) && h > 0 ? h : 0);
  }
  return out;
}

/** The row at list coordinate `y` (clamped to the first and last row); 0 for an empty list. */
export function indexAt(offsets: Float64Array, y: number): number {
  const n = offsets.length - 1;
  if (n <= 0) return 0;
  let lo = 0;
  let hi = n - 1;
  // Largest i with offsets[i] <= y.
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((offsets[mid] ?? 0) <= y) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export interface VirtualWindow {
  /** First rendered row. */
  start: number;
  /** One past the last rendered row. */
  end: number;
  /** Height of the spacer above the rendered rows. */
  above: number;
  /** Height of the spacer below them. */
  below: number;
}

/**
 * The rows to render for a viewport `viewTop`..`viewTop + viewHeight`, in
 * list coordinates (0 = top of the first row; negative while the list
 * starts below the viewport's top).
 */
export function visibleWindow(offsets: Float64Array, viewTop: number, viewHeight: number, overscan = OVERSCAN_PX): VirtualWindow {
  const n = offsets.length - 1;
  const total = offsets[n] ?? 0;
  if (n <= 0) return { start: 0, end: 0, above: 0, below: 0 };
  const top = Math.max(0, viewTop - overscan);
  const bottom = Math.max(top, viewTop + Math.max(0, viewHeight) + overscan);
  const start = indexAt(offsets, top);
  const end = Math.min(n, Math.max(start + 1, indexAt(offsets, bottom) + 1));
  return { start, end, above: offsets[start] ?? 0, below: total - (offsets[end] ?? total) };
}

/**
 * Measured heights by row key, and the estimate for rows not yet measured
 * (the mean of those measured). Bounded: `retain` drops keys no longer in
 * the list.
 */
export class RowHeights {
  private readonly byKey = new Map<string | number, number>();
  private sum = 0;

  constructor(private readonly fallback = DEFAULT_ROW_PX) {}

  get estimate(): number {
    return this.byKey.size === 0 ? this.fallback : this.sum / this.byKey.size;
  }

  get size(): number {
    return this.byKey.size;
  }

  get(key: string | number): number {
    return this.byKey.get(key) ?? this.estimate;
  }

  has(key: string | number): boolean {
    return this.byKey.has(key);
  }

  /** Records a height; returns how much it changed from what was assumed (0 when the same within half a pixel). */
  set(key: string | number, height: number): number {
    if (!Number.isFinite(height) || height < 0) return 0;
    const before = this.get(key);
    if (this.byKey.has(key) && Math.abs(before - height) < 0.5) return 0;
    this.sum += height - (this.byKey.get(key) ?? 0);
    this.byKey.set(key, height);
    return height - before;
  }

  /** Forgets the keys not in `keys` (after a new query, or rows dropped). */
  retain(keys: Iterable<string | number>): void {
    const keep = new Set(keys);
    for (const [k, h] of this.byKey) {
      if (!keep.has(k)) {
        this.byKey.delete(k);
        this.sum -= h;
      }
    }
  }
}

/** Whether the rendered window is close enough to the end of the loaded rows to fetch the next page. */
export function nearEnd(win: VirtualWindow, count: number, within = PREFETCH_ROWS): boolean {
  return count === 0 || win.end >= count - within;
}

/**
 * A page appended to the loaded rows, keeping at most `max`; `full` once the
 * list reached the bound (it then stops loading and tells the user).
 */
export function appendCapped<T>(rows: readonly T[], page: readonly T[], max = MAX_LOADED_ROWS): { rows: T[]; full: boolean } {
  const room = Math.max(0, max - rows.length);
  const out = [...rows, ...page.slice(0, room)];
  return { rows: out, full: out.length >= max };
}
