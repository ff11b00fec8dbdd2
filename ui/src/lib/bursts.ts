// A server that floods Airlock leaves runs of rate-limited records; the
// history shows each run as one row ("N requests rate-limited from X"),
// expandable, so the other servers' records stay in view.
import type { ElicitationRecord } from "./bindings/ElicitationRecord";

/** Runs shorter than this stay as single rows. */
export const MIN_BURST = 3;

export type HistoryItem =
  | { kind: "record"; record: ElicitationRecord }
  | { kind: "burst"; key: string; server: string; records: ElicitationRecord[]; first: number; last: number };

/** Group consecutive rate-limited records of one server (in the given order) into bursts. */
export function groupBursts(records: ElicitationRecord[], minBurst = MIN_BURST): HistoryItem[] {
  const out: HistoryItem[] = [];
  let run: ElicitationRecord[] = [];
  const flush = (): void => {
    const head = run[0];
    if (head !== undefined && run.length >= minBurst) {
      const times = run.map((r) => r.created_at);
      out.push({
        kind: "burst",
        key: `burst-${head.id}`,
        server: head.server,
        records: run,
        first: Math.min(...times),
        last: Math.max(...times),
      });
    } else {
      for (const record of run) out.push({ kind: "record", record });
    }
    run = [];
  };
  for (const r of records) {
    if (r.state === "rate_limited" && (run[0] === undefined || run[0].server === r.server)) {
      run.push(r);
      continue;
    }
    flush();
    if (r.state === "rate_limited") run.push(r);
    else out.push({ kind: "record", record: r });
  }
  flush();
  return out;
}
