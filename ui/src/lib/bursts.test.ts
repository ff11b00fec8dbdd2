import { describe, expect, it } from "vitest";
import type { ElicitationRecord } from "./bindings/ElicitationRecord";
import { groupBursts } from "./bursts";

let next = 1;
function rec(server: string, state: ElicitationRecord["state"]): ElicitationRecord {
  const id = next++;
  return {
    id,
    server,
    elicitation_id: null,
    mode: "url",
    origin: "request",
    message: "m",
    url: "https://x.example/",
    registrable_domain: "x.example",
    verdict: "ok",
    warnings: [],
    state,
    created_at: id * 1000,
    updated_at: id * 1000,
    app: null,
  };
}

describe("history bursts", () => {
  it("a run of rate-limited records of one server becomes one row, others stay", () => {
    const calm = rec("calm", "completed");
    const flood = Array.from({ length: 5 }, () => rec("flood", "rate_limited"));
    const other = rec("calm", "declined");
    const items = groupBursts([calm, ...flood, other]);
    expect(items.map((i) => i.kind)).toEqual(["record", "burst", "record"]);
    const burst = items[1];
    if (burst?.kind !== "burst") throw new Error("not a burst");
    expect(burst.server).toBe("flood");
    expect(burst.records.map((r) => r.id)).toEqual(flood.map((r) => r.id));
    expect(burst.first).toBe(flood[0]?.created_at);
    expect(burst.last).toBe(flood[4]?.created_at);
  });

  it("short runs and runs that change server are not merged", () => {
    const a = [rec("a", "rate_limited"), rec("a", "rate_limited")];
    const b = [rec("b", "rate_limited"), rec("b", "rate_limited"), rec("b", "rate_limited")];
    const items = groupBursts([...a, ...b]);
    expect(items.map((i) => (i.kind === "burst" ? `burst:${i.server}` : `rec:${i.record.server}`))).toEqual([
      "rec:a",
      "rec:a",
      "burst:b",
    ]);
  });

  it("nothing is lost: every record is in exactly one item", () => {
    const all = [rec("x", "rate_limited"), rec("x", "rate_limited"), rec("x", "rate_limited"), rec("y", "opened")];
    const ids = groupBursts(all).flatMap((i) => (i.kind === "burst" ? i.records.map((r) => r.id) : [i.record.id]));
    expect(ids).toEqual(all.map((r) => r.id));
  });
});
