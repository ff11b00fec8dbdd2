import { describe, expect, it } from "vitest";

import type { DiffLine, Finding, PinChange, ReviewItem } from "./api";
import { firstChanges, fold, groupByServer, MAX_LINE_CHARS, orderFindings, rejectedNames, segments, sideBySide, type DiffRow } from "./review";

function change(id: number, server: string, seen: number, extra: Partial<PinChange> = {}): PinChange {
  return {
    id,
    server,
    kind: "tool",
    name: `t${id}`,
    change: "changed",
    state: "pending",
    diff: [],
    complete: true,
    findings: [],
    seen_at: seen,
    decided_at: null,
    ...extra,
  };
}

const item = (c: PinChange): ReviewItem => ({ change: c, app_name: `${c.server}__${c.name}` });

const finding = (severity: Finding["severity"], detail: string): Finding => ({
  kind: "model_directive",
  severity,
  field: "description",
  excerpt: "",
  detail,
});

const same = (t: string): DiffLine => ({ tag: "same", old: t, new: t });
const removed = (t: string): DiffLine => ({ tag: "removed", old: t, new: null });
const added = (t: string): DiffLine => ({ tag: "added", old: null, new: t });

describe("groupByServer", () => {
  it("puts the server with the newest change first, and its changes newest first", () => {
    const groups = groupByServer([
      item(change(1, "weather", 100)),
      item(change(2, "files", 300)),
      item(change(3, "weather", 500)),
      item(change(4, "files", 200)),
    ]);
    expect(groups.map((g) => g.server)).toEqual(["weather", "files"]);
    expect(groups[0]?.items.map((i) => i.change.id)).toEqual([3, 1]);
    expect(groups[1]?.items.map((i) => i.change.id)).toEqual([2, 4]);
    expect(groups[0]?.newest).toBe(500);
    expect(groupByServer([])).toEqual([]);
  });

  it("puts a server's changes with something serious in them before the others", () => {
    const serious = change(1, "weather", 100, { findings: [finding("serious", "reads ~/.ssh")] });
    const warned = change(2, "weather", 300, { findings: [finding("warning", "long")] });
    const plain = change(3, "weather", 200);
    const [g] = groupByServer([item(plain), item(serious), item(warned)]);
    expect(g?.items.map((i) => i.change.id)).toEqual([1, 2, 3]);
  });
});

describe("firstChanges", () => {
  it("keeps the first changes in page order and counts the rest", () => {
    const groups = groupByServer([
      item(change(1, "a", 10)),
      item(change(2, "a", 20)),
      item(change(3, "b", 30)),
      item(change(4, "b", 5)),
      item(change(5, "c", 1)),
    ]);
    const { groups: shown, hidden } = firstChanges(groups, 3);
    expect(shown.map((g) => [g.server, g.items.map((i) => i.change.id)])).toEqual([
      ["b", [3, 4]],
      ["a", [2]],
    ]);
    expect(hidden).toBe(2);
    expect(firstChanges(groups, 100).hidden).toBe(0);
    expect(firstChanges(groups, 0)).toEqual({ groups: [], hidden: 5 });
  });
});

describe("orderFindings", () => {
  it("puts serious findings first, then warnings, then notices, keeping the scanner's order within each", () => {
    const ordered = orderFindings([
      finding("notice", "n1"),
      finding("warning", "w1"),
      finding("serious", "s1"),
      finding("warning", "w2"),
      finding("serious", "s2"),
    ]);
    expect(ordered.map((f) => f.detail)).toEqual(["s1", "s2", "w1", "w2", "n1"]);
  });
});

describe("sideBySide", () => {
  it("pairs a removed run with the added run after it and numbers each side", () => {
    const rows = sideBySide([same("{"), removed('  "a": 1'), removed('  "b": 2'), added('  "a": 9'), same("}")]);
    expect(rows).toEqual([
      { kind: "same", left: { no: 1, text: "{" }, right: { no: 1, text: "{" } },
      { kind: "changed", left: { no: 2, text: '  "a": 1' }, right: { no: 2, text: '  "a": 9' } },
      { kind: "removed", left: { no: 3, text: '  "b": 2' }, right: null },
      { kind: "same", left: { no: 4, text: "}" }, right: { no: 3, text: "}" } },
    ]);
  });

  it("shows a new definition on the right only", () => {
    const rows = sideBySide([added("{"), added("}")]);
    expect(rows.every((r) => r.kind === "added" && r.left === null)).toBe(true);
    expect(rows.map((r) => (r.kind === "fold" ? 0 : r.right?.no))).toEqual([1, 2]);
  });
});

describe("fold", () => {
  const rowsOf = (lines: DiffLine[]): DiffRow[] => sideBySide(lines);

  it("keeps three unchanged lines around a change and folds the rest", () => {
    const lines = [...Array.from({ length: 10 }, (_, i) => same(`a${i}`)), removed("x"), added("y"), ...Array.from({ length: 10 }, (_, i) => same(`b${i}`))];
    const out = fold(rowsOf(lines));
    expect(out.map((r) => r.kind)).toEqual(["fold", "same", "same", "same", "changed", "same", "same", "same", "fold"]);
    expect(out[0]).toEqual({ kind: "fold", count: 7, at: 0 });
    expect(out[8]).toEqual({ kind: "fold", count: 7, at: 14 });
  });

  it("does not fold a run that is barely longer than its context", () => {
    const lines = [removed("x"), ...Array.from({ length: 7 }, (_, i) => same(`s${i}`)), added("y")];
    expect(fold(rowsOf(lines)).some((r) => r.kind === "fold")).toBe(false);
  });
});

describe("segments", () => {
  it("splits out the core's markers for hidden characters", () => {
    const line = "  \"description\": \"Get the weather.⟦U+200B ZERO WIDTH SPACE⟧⟦hidden text: 'A'⟧\",";
    const s = segments(line);
    expect(s.map((p) => p.kind)).toEqual(["text", "hidden", "hidden", "text"]);
    expect(s[1]?.text).toBe("⟦U+200B ZERO WIDTH SPACE⟧");
    expect(s[2]?.text).toBe("⟦hidden text: 'A'⟧");
    expect(s.map((p) => p.text).join("")).toBe(line);
  });

  it("marks any invisible or reordering character that still got here", () => {
    const s = segments("a\u202Eb\u200Bc\u{E0041}d\uFE0Fe\tf");
    expect(s.filter((p) => p.kind === "hidden").map((p) => p.text)).toEqual(["⟦U+202E⟧", "⟦U+200B⟧", "⟦U+E0041⟧", "⟦U+FE0F⟧"]);
    const joined = s.map((p) => p.text).join("");
    for (const c of ["\u202E", "\u200B", "\uFE0F", "\u{E0041}"]) expect(joined).not.toContain(c);
    expect(s.at(-1)).toEqual({ kind: "text", text: "e\tf" });
  });

  it("never marks a newline, a tab or a Windows line end; a lone carriage return is marked", () => {
    const s = segments("line one\nline two\r\nthree\tfour");
    expect(s).toEqual([{ kind: "text", text: "line one\nline two\r\nthree\tfour" }]);
    const lone = segments("over\rwrite");
    expect(lone.map((p) => p.kind)).toEqual(["text", "hidden", "text"]);
  });

  it("cuts a long line, counting what is not shown, without splitting a marker", () => {
    const long = "x".repeat(MAX_LINE_CHARS + 500);
    const s = segments(long);
    expect(s).toEqual([
      { kind: "text", text: "x".repeat(MAX_LINE_CHARS) },
      { kind: "cut", text: "… 500 more characters" },
    ]);
    const marker = "⟦U+200B ZERO WIDTH SPACE⟧";
    const near = "y".repeat(10) + marker + "z";
    const cut = segments(near, 15);
    expect(cut).toEqual([
      { kind: "text", text: "y".repeat(10) },
      { kind: "cut", text: `… ${Array.from(marker).length + 1} more characters` },
    ]);
  });

  it("keeps markup and a stray closing bracket as plain text", () => {
    const s = segments('<img src=x onerror="alert(1)"> ⟧ ⟦ unclosed');
    expect(s).toEqual([{ kind: "text", text: '<img src=x onerror="alert(1)"> ⟧ ⟦ unclosed' }]);
  });
});

describe("rejectedNames", () => {
  it("names the items whose newest decided change was rejected", () => {
    const history = [
      change(5, "w", 5, { name: "a", state: "rejected" }),
      change(3, "w", 3, { name: "a", state: "approved" }),
      change(4, "w", 4, { name: "b", state: "approved" }),
      change(2, "w", 2, { name: "b", state: "rejected" }),
      change(6, "w", 6, { name: "c", kind: "prompt", state: "rejected" }),
    ];
    expect([...rejectedNames(history)].sort()).toEqual(["prompt:c", "tool:a"]);
  });
});
