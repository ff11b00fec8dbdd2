// Events from the core can come hundreds per second (a server flooding
// Airlock with requests). The window must not refetch a list per event:
// `coalesced` turns a burst of triggers into at most one run per `gapMs`,
// never two runs at once, and always one run after the last trigger, so
// the list ends up current. A lone event is not delayed.

/**
 * Wrap `run` (async) so that calling the result many times runs it at most
 * once per `gapMs`: a trigger after a quiet moment runs it at once; triggers
 * that come within `gapMs` of a run, or while it runs, are merged into one
 * more run, `gapMs` after the start of the previous one (or when it ends).
 */
export function coalesced(run: () => Promise<void> | void, gapMs: number): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let again = false;
  let lastStart = -Infinity;

  const fire = async (): Promise<void> => {
    timer = undefined;
    running = true;
    again = false;
    lastStart = performance.now();
    try {
      await run();
    } catch {
      // The caller reports its own errors; the next trigger tries again.
    } finally {
      running = false;
      if (again) schedule();
    }
  };

  function schedule(): void {
    if (timer !== undefined) return;
    if (running) {
      again = true;
      return;
    }
    const wait = Math.max(0, lastStart + gapMs - performance.now());
    if (wait === 0) void fire();
    else timer = setTimeout(() => void fire(), wait);
  }

  return schedule;
}
