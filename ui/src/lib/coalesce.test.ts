import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { coalesced } from "./coalesce";

describe("coalesced", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] }));
  afterEach(() => vi.useRealTimers());

  it("runs a lone trigger at once, and a burst of 100 at once plus once after the gap", async () => {
    const run = vi.fn();
    const trigger = coalesced(run, 50);
    for (let i = 0; i < 100; i++) trigger();
    expect(run).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(49);
    expect(run).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(500);
    expect(run).toHaveBeenCalledTimes(2);
    trigger();
    expect(run).toHaveBeenCalledTimes(3);
  });

  it("a trigger every 10 ms for 1 s runs at most once per gap, and once after the last", async () => {
    const runs: number[] = [];
    const trigger = coalesced(() => void runs.push(Date.now()), 50);
    const start = Date.now();
    let lastTrigger = 0;
    for (let t = 0; t < 1000; t += 10) {
      trigger();
      lastTrigger = Date.now();
      await vi.advanceTimersByTimeAsync(10);
    }
    await vi.advanceTimersByTimeAsync(100);
    expect(runs.length).toBeGreaterThanOrEqual(15);
    expect(runs.length).toBeLessThanOrEqual(21);
    for (let i = 1; i < runs.length; i++) expect((runs[i] ?? 0) - (runs[i - 1] ?? 0)).toBeGreaterThanOrEqual(50);
    expect(runs.at(-1)).toBeGreaterThan(lastTrigger);
    expect(runs[0]).toBe(start);
  });

  it("never runs twice at once; a trigger during a slow run gives one more run after it", async () => {
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    const trigger = coalesced(async () => {
      active++;
      runs++;
      maxActive = Math.max(maxActive, active);
      await new Promise((r) => setTimeout(r, 200));
      active--;
    }, 10);
    trigger();
    expect(runs).toBe(1);
    for (let i = 0; i < 10; i++) trigger();
    await vi.advanceTimersByTimeAsync(1000);
    expect(maxActive).toBe(1);
    expect(runs).toBe(2);
  });
});
