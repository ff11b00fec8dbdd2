// The Review page's logic (issue 25): changes of pinned tools and prompts
// grouped by server (newest server first), findings in the order a person
// should read them (serious first), the rows of the side-by-side diff
// (a run of removed lines paired with the added run after it, long runs of
// unchanged lines folded, long lines cut), and the hidden-character markers
// the core wrote (`⟦U+200B ZERO WIDTH SPACE⟧`) split out so the page gives
// them a style of their own. Everything here is plain text: the page renders
// it as text nodes, never as HTML.
import type { ChangeKind, ChangeState, DiffLine, Finding, FindingKind, PinChange, ReviewItem, Severity } from "./api";

/** Characters of one diff line shown before it is cut (the rest is counted). */
export const MAX_LINE_CHARS = 2000;
/** Characters of a name (server, tool, app-facing name) shown before it is cut. */
export const MAX_NAME_CHARS = 200;
/** Unchanged lines kept on each side of a change when the rest is folded. */
export const CONTEXT_LINES = 3;

/** What Reject means, said on the button's side (no confirmation is asked). */
export const REJECT_MEANS = "Stays withdrawn from your apps; this version will not be asked about again.";

// ----- grouping -----

export interface ServerGroup {
  server: string;
  /** When its newest waiting change was seen (ms). */
  newest: number;
  /** Its waiting changes, serious ones first, then newest first. */
  items: ReviewItem[];
}

/** Whether the scanner found something serious in a change. */
export function isSerious(c: PinChange): boolean {
  return c.findings.some((f) => f.severity === "serious");
}

/**
 * Changes by server, the server with the newest change first; within a
 * server, changes with something serious in them first, then newest first.
 */
export function groupByServer(items: readonly ReviewItem[]): ServerGroup[] {
  const groups = new Map<string, ServerGroup>();
  for (const item of items) {
    const s = item.change.server;
    const g = groups.get(s) ?? { server: s, newest: -Infinity, items: [] };
    g.items.push(item);
    g.newest = Math.max(g.newest, item.change.seen_at);
    groups.set(s, g);
  }
  const byNewest = (a: ReviewItem, b: ReviewItem): number =>
    Number(isSerious(b.change)) - Number(isSerious(a.change)) ||
    b.change.seen_at - a.change.seen_at ||
    b.change.id - a.change.id;
  return [...groups.values()]
    .map((g) => ({ ...g, items: [...g.items].sort(byNewest) }))
    .sort((a, b) => b.newest - a.newest || (a.server < b.server ? -1 : a.server > b.server ? 1 : 0));
}

/** Change cards rendered at first (each holds a diff); more on request. */
export const CARDS_AT_FIRST = 20;

/** The first `max` changes of `groups`, in order, and how many are left out. */
export function firstChanges(groups: readonly ServerGroup[], max: number): { groups: ServerGroup[]; hidden: number } {
  const out: ServerGroup[] = [];
  let left = Math.max(0, max);
  let hidden = 0;
  for (const g of groups) {
    const items = g.items.slice(0, left);
    hidden += g.items.length - items.length;
    left -= items.length;
    if (items.length > 0) out.push({ ...g, items });
  }
  return { groups: out, hidden };
}

// ----- findings -----

const RANK: Record<Severity, number> = { serious: 0, warning: 1, notice: 2 };

/** Serious first, then warnings, then notices; the scanner's order within each. */
export function orderFindings(findings: readonly Finding[]): Finding[] {
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => RANK[a.f.severity] - RANK[b.f.severity] || a.i - b.i)
    .map(({ f }) => f);
}

export function severityLabel(s: Severity): string {
  switch (s) {
    case "serious":
      return "Serious";
    case "warning":
      return "Warning";
    case "notice":
      return "Notice";
  }
}

/** What was found, in words. */
export function findingKindLabel(k: FindingKind): string {
  switch (k) {
    case "invisible_character":
      return "Invisible characters";
    case "bidi_control":
      return "Text-direction controls";
    case "tag_character":
      return "Hidden text (Unicode tag characters)";
    case "variation_selector":
      return "Variation selectors";
    case "control_character":
      return "Control characters";
    case "terminal_escape":
      return "Terminal escape sequence";
    case "html_comment":
      return "Hidden comment";
    case "html_tag":
      return "Markup";
    case "model_directive":
      return "Instructions aimed at the AI model";
    case "secret_path":
      return "Where secrets live";
    case "shadowing":
      return "Mentions another server's tool";
    case "extreme_length":
      return "Extreme length";
  }
}

// ----- words -----

/** What happened to the tool or prompt. */
export function changeWords(kind: ChangeKind): string {
  switch (kind) {
    case "changed":
      return "changed since you approved it";
    case "added":
      return "added since you approved the server's list";
    case "first_sight":
      return "held the first time Airlock saw it: something serious is in it";
    case "removed":
      return "removed: the server no longer lists it";
  }
}

/** What approving does, for this kind of change. */
export function approveMeans(kind: ChangeKind): string {
  return kind === "removed"
    ? "Forgets the approved version."
    : "Your apps see this version from now on.";
}

export function stateLabel(state: ChangeState): string {
  switch (state) {
    case "pending":
      return "Waiting for you";
    case "approved":
      return "Approved";
    case "rejected":
      return "Rejected";
    case "notified":
      return "Served at once (notify only)";
    case "superseded":
      return "Superseded";
  }
}

/** The tools (or prompts) whose newest decided change was rejected, by name. */
export function rejectedNames(history: readonly PinChange[]): Set<string> {
  const newest = new Map<string, PinChange>();
  for (const c of history) {
    const key = `${c.kind}:${c.name}`;
    const seen = newest.get(key);
    if (!seen || c.id > seen.id) newest.set(key, c);
  }
  const out = new Set<string>();
  for (const c of newest.values()) if (c.state === "rejected") out.add(`${c.kind}:${c.name}`);
  return out;
}

// ----- the side-by-side diff -----

export interface Side {
  /** 1-based line number in its version. */
  no: number;
  text: string;
}

export type DiffRow =
  | { kind: "same" | "changed" | "removed" | "added"; left: Side | null; right: Side | null }
  | { kind: "fold"; count: number; at: number };

/**
 * The core's diff as rows: the approved version on the left, the new one on
 * the right. A run of removed lines followed by a run of added lines is
 * shown pair by pair ("changed"), the longer run's rest alone.
 */
export function sideBySide(diff: readonly DiffLine[]): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldNo = 0;
  let newNo = 0;
  let i = 0;
  while (i < diff.length) {
    const line = diff[i];
    if (line === undefined) break;
    if (line.tag === "removed" || line.tag === "added") {
      const removed: string[] = [];
      const added: string[] = [];
      while (diff[i]?.tag === "removed") removed.push(diff[i++]?.old ?? "");
      while (diff[i]?.tag === "added") added.push(diff[i++]?.new ?? "");
      // An added run before a removed one (the core puts removals first, but be safe).
      while (diff[i]?.tag === "removed") removed.push(diff[i++]?.old ?? "");
      const n = Math.max(removed.length, added.length);
      for (let k = 0; k < n; k++) {
        const l = k < removed.length ? { no: ++oldNo, text: removed[k] ?? "" } : null;
        const r = k < added.length ? { no: ++newNo, text: added[k] ?? "" } : null;
        rows.push({ kind: l && r ? "changed" : l ? "removed" : "added", left: l, right: r });
      }
      continue;
    }
    rows.push({
      kind: "same",
      left: { no: ++oldNo, text: line.old ?? line.new ?? "" },
      right: { no: ++newNo, text: line.new ?? line.old ?? "" },
    });
    i++;
  }
  return rows;
}

/**
 * Fold runs of unchanged rows longer than twice `context` (plus one): keep
 * `context` rows next to each change, and one "fold" row that says how many
 * are hidden (`at`: the index of the first hidden row, to unfold it).
 */
export function fold(rows: readonly DiffRow[], context = CONTEXT_LINES): DiffRow[] {
  const out: DiffRow[] = [];
  let i = 0;
  while (i < rows.length) {
    if (rows[i]?.kind !== "same") {
      const r = rows[i];
      if (r) out.push(r);
      i++;
      continue;
    }
    let j = i;
    while (j < rows.length && rows[j]?.kind === "same") j++;
    const keepBefore = i === 0 ? 0 : context;
    const keepAfter = j === rows.length ? 0 : context;
    const hidden = j - i - keepBefore - keepAfter;
    if (hidden > 1) {
      out.push(...rows.slice(i, i + keepBefore));
      out.push({ kind: "fold", count: hidden, at: i + keepBefore });
      out.push(...rows.slice(j - keepAfter, j));
    } else {
      out.push(...rows.slice(i, j));
    }
    i = j;
  }
  return out;
}

// ----- hidden characters -----

export interface Segment {
  text: string;
  /** `hidden`: a marker for characters the server hid; `cut`: how much of a long line is not shown. */
  kind: "text" | "hidden" | "cut";
}

/** Controls, format characters (zero-width, bidi, tags), separators and private use. */
const INVISIBLE_CLASSES = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}]$/u;
/** Blank fillers and variation selectors, by code point. */
const INVISIBLE_RANGES: [number, number][] = [
  [0x115f, 0x1160],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xffa0, 0xffa0],
  [0xe0100, 0xe01ef],
];

/** Whether `c` (one code point) draws nothing or reorders text. */
function invisible(c: string): boolean {
  if (INVISIBLE_CLASSES.test(c)) return true;
  const cp = c.codePointAt(0) ?? 0;
  return INVISIBLE_RANGES.some(([lo, hi]) => cp >= lo && cp <= hi);
}

function hex(c: string): string {
  return (c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
}

/**
 * A line as segments: plain text, the core's markers (`⟦...⟧`, which
 * `airlock_scan::visible` writes for every hidden character; a `⟦` of the
 * server's own is written as a named character, so every `⟦` starts a
 * marker), and any invisible character that still got here, as a marker
 * too. At most `max` characters are shown; a marker is never cut in two;
 * the rest is counted in a `cut` segment.
 */
export function segments(line: string, max = MAX_LINE_CHARS): Segment[] {
  const out: Segment[] = [];
  let shown = 0;
  let text = "";
  const chars = Array.from(line);
  const flush = (): void => {
    if (text !== "") out.push({ text, kind: "text" });
    text = "";
  };
  let i = 0;
  for (; i < chars.length; i++) {
    if (shown >= max) break;
    const c = chars[i] ?? "";
    if (c === "⟦") {
      let j = i + 1;
      while (j < chars.length && chars[j] !== "⟧") j++;
      if (j < chars.length) {
        const marker = chars.slice(i, j + 1).join("");
        const n = j + 1 - i;
        if (shown + n > max && shown > 0) break;
        flush();
        out.push({ text: marker, kind: "hidden" });
        shown += n;
        i = j;
        continue;
      }
    }
    // A newline, a tab and a Windows line end are ordinary text, never a
    // red marker: red is for what hides (invisible, format, bidi).
    const ordinary = c === "\n" || c === "\t" || (c === "\r" && chars[i + 1] === "\n");
    if (!ordinary && invisible(c)) {
      flush();
      out.push({ text: `⟦U+${hex(c)}⟧`, kind: "hidden" });
      shown += 1;
      continue;
    }
    text += c;
    shown += 1;
  }
  flush();
  const rest = chars.length - i;
  if (rest > 0) out.push({ text: `… ${rest} more characters`, kind: "cut" });
  return out;
}

/** Whether a line holds a marker of hidden characters. */
export function hasHidden(line: string): boolean {
  return segments(line).some((s) => s.kind === "hidden");
}
