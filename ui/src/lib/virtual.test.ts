import { describe, expect, it } from "vitest";
import { appendCapped, indexAt, MAX_LOADED_ROWS, nearEnd, OVERSCAN_PX, prefixOffsets, RowHeights, visibleWindow } from "./virtual";

const uniform = (n: number, h: number): Float64Array => prefixOffsets(new Array<number>(n).fill(h));

describe("prefixOffsets and indexAt", () => {
  it("sums heights and finds the row under a point, clamped to the list", () => {
    const o = prefixOffsets([10, 20, 30]);
    expect([...o]).toEqual([0, 10, 30, 60]);
    expect(indexAt(o, -5)).toBe(0);
    expect(indexAt(o, 0)).toBe(0);
    expect(indexAt(o, 9.9)).toBe(0);
    expect(indexAt(o, 10)).toBe(1);
    expect(indexAt(o, 59)).toBe(2);
    expect(indexAt(o, 10_000)).toBe(2);
    expect(indexAt(prefixOffsets([]), 100)).toBe(0);
  });

  it("counts a negative, infinite or missing height as zero", () => {
    expect([...prefixOffsets([5, -3, Number.NaN, Infinity, 5])]).toEqual([0, 5, 5, 5, 5, 10]);
  });
});

describe("visibleWindow", () => {
  it("renders the viewport plus the overscan on each side, whatever the list's length", () => {
    const o = uniform(1_000_000, 36);
    const top = 500_000 * 36;
    const w = visibleWindow(o, top, 720);
    const per = (720 + 2 * OVERSCAN_PX) / 36;
    expect(w.start).toBe(Math.floor(500_000 - OVERSCAN_PX / 36));
    expect(w.end - w.start).toBeLessThanOrEqual(per + 1);
    expect(w.above).toBe(w.start * 36);
    expect(w.above + (w.end - w.start) * 36 + w.below).toBe(1_000_000 * 36);
  });

  it("starts at the first row while the list is below the viewport, and ends at the last row at the bottom", () => {
    const o = uniform(5000, 40);
    const before = visibleWindow(o, -300, 800);
    expect(before.start).toBe(0);
    expect(before.above).toBe(0);
    expect(before.end).toBe(Math.ceil((800 - 300 + OVERSCAN_PX) / 40));
    const bottom = visibleWindow(o, 5000 * 40 - 800, 800);
    expect(bottom.end).toBe(5000);
    expect(bottom.below).toBe(0);
  });

  it("always renders at least one row, and nothing for an empty list", () => {
    expect(visibleWindow(uniform(3, 20), 10_000, 0, 0)).toEqual({ start: 2, end: 3, above: 40, below: 0 });
    expect(visibleWindow(prefixOffsets([]), 0, 800)).toEqual({ start: 0, end: 0, above: 0, below: 0 });
  });

  it("follows measured heights of different rows", () => {
    // Ten short rows, one tall (expanded) row, ten short rows.
    const o = prefixOffsets([...new Array<number>(10).fill(30), 400, ...new Array<number>(10).fill(30)]);
    const w = visibleWindow(o, 350, 100, 0);
    expect(w.start).toBe(10);
    expect(w.end).toBe(11);
    expect(w.above).toBe(300);
    expect(w.below).toBe(300);
  });
});

describe("RowHeights", () => {
  it("estimates unmeasured rows as the mean of the measured, and reports what a measurement moved", () => {
    const h = new RowHeights(36);
    expect(h.get("a")).toBe(36);
    expect(h.set("a", 40)).toBe(4);
    expect(h.set("b", 60)).toBe(20); // assumed 40 (the mean so far)
    expect(h.get("zzz")).toBe(50);
    expect(h.set("a", 40.2)).toBe(0); // within half a pixel: no change
    expect(h.set("a", Number.NaN)).toBe(0);
    expect(h.set("a", 20)).toBe(-20);
    expect(h.estimate).toBe(40);
  });

  it("forgets rows that left the list, so it stays as small as the list", () => {
    const h = new RowHeights();
    for (let i = 0; i < 100; i++) h.set(i, 30 + (i % 2) * 10);
    h.retain([0, 1, 2]);
    expect(h.size).toBe(3);
    expect(h.has(50)).toBe(false);
    expect(h.estimate).toBeCloseTo((30 + 40 + 30) / 3);
  });
});

describe("paging", () => {
  it("asks for the next page when the rendered rows near the end", () => {
    expect(nearEnd({ start: 0, end: 30, above: 0, below: 0 }, 100, 40)).toBe(false);
    expect(nearEnd({ start: 40, end: 60, above: 0, below: 0 }, 100, 40)).toBe(true);
    expect(nearEnd({ start: 0, end: 0, above: 0, below: 0 }, 0)).toBe(true);
  });

  it("keeps at most MAX_LOADED_ROWS rows and says when it is full", () => {
    const page = (from: number, n: number): number[] => Array.from({ length: n }, (_, i) => from + i);
    let rows: number[] = [];
    let full = false;
    for (let p = 0; !full; p++) ({ rows, full } = appendCapped(rows, page(p * 300, 300)));
    expect(rows.length).toBe(MAX_LOADED_ROWS);
    expect(rows[rows.length - 1]).toBe(MAX_LOADED_ROWS - 1);
    expect(appendCapped(rows, page(0, 5)).rows.length).toBe(MAX_LOADED_ROWS);
    expect(appendCapped([1, 2], [3], 3)).toEqual({ rows: [1, 2, 3], full: true });
    expect(appendCapped([1], [2], 3)).toEqual({ rows: [1, 2], full: false });
  });
});
