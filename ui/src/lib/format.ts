// Pure helpers for display: times, statuses, server definitions. (What a
// consent says comes from the core: bindings/ConsentView, consentSentences.)
import type { ConnStatus, ServerDef, StoredValue } from "./api";
import type { ElicitationState } from "./bindings/ElicitationState";
import { SECRET_SUFFIXES, SECRET_WORDS } from "./bindings/secretWords";

/** Keep the start and the end of a long string, with "…" in the middle. */
export function elideMiddle(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const keep = max - 1;
  const head = Math.ceil(keep * 0.6);
  const tail = keep - head;
  return chars.slice(0, head).join("") + "…" + chars.slice(chars.length - tail).join("");
}

/** Cut a string to `max` characters with a trailing "…". */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max - 1).join("") + "…";
}

const pad = (n: number): string => String(n).padStart(2, "0");

/** Local date and time, e.g. "2026-12-02 15:04:05". */
export function dateTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Local time of day, e.g. "15:04:05". */
export function timeOfDay(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** "4 s", "2 min 05 s", "1 h 03 min". */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${pad(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${pad(m % 60)} min`;
}

export function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** "2026-12-02" (an <input type=date> value) to the start of that local day. */
export function dayStart(value: string): number | null {
  if (!value) return null;
  const [y, m, d] = value.split("-").map(Number);
  if (!y || !m || !d) return null;
  return new Date(y, m - 1, d).getTime();
}

/** The end (exclusive) of that local day. */
export function dayEnd(value: string): number | null {
  const start = dayStart(value);
  if (start === null) return null;
  const d = new Date(start);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime();
}

export type StatusTone = "ok" | "busy" | "bad" | "idle";

export function statusTone(status: ConnStatus): StatusTone {
  switch (status.state) {
    case "ready":
      return "ok";
    case "connecting":
    case "reconnecting":
      return "busy";
    case "failed":
    case "sign_in_required":
      return "bad";
    case "signing_in":
      return "busy";
    case "paused":
    default:
      return "idle";
  }
}

export function statusLabel(status: ConnStatus): string {
  switch (status.state) {
    case "disconnected":
      return "Disconnected";
    case "connecting":
      return "Connecting…";
    case "ready":
      return "Ready";
    case "failed":
      return "Failed";
    case "reconnecting":
      return `Reconnecting (attempt ${status.attempt})`;
    case "sign_in_required":
      return "Sign-in required";
    case "signing_in":
      return "Signing in…";
    case "paused":
      return "Paused";
  }
}

/** The reason that goes with a status, if any. */
export function statusDetail(status: ConnStatus): string | null {
  switch (status.state) {
    case "failed":
      return status.reason;
    case "reconnecting": {
      const wait = Math.round(status.retry_in_ms / 1000);
      return `${status.reason} — next try in ${wait} s`;
    }
    case "sign_in_required":
      return status.reason;
    case "signing_in":
      return `Waiting for you to finish signing in at ${status.domain} in your browser.`;
    default:
      return null;
  }
}

/** One line describing how a server is started or reached. */
export function transportSummary(def: ServerDef): string {
  const t = def.transport;
  if (t.type === "http") return t.url;
  return [t.command, ...t.args].map(quoteArg).join(" ");
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

export function isSecret(value: StoredValue): value is { secret_ref: string } {
  return "secret_ref" in value;
}

/** Names that usually carry a secret: `looks_secret` of airlock-core, on its own word lists. */
const SECRET_WORD_SET = new Set(SECRET_WORDS);

export function looksSecret(name: string): boolean {
  const upper = name.toUpperCase();
  return (
    upper.split(/[^A-Z0-9]/).some((w) => SECRET_WORD_SET.has(w)) || SECRET_SUFFIXES.some((s) => upper.endsWith(s))
  );
}

/** Elicitation record states, in words (every state of the Rust enum: a new one fails the type check). */
export const STATE_LABELS: Record<ElicitationState, string> = {
  requested: "Waiting for you",
  blocked: "Blocked",
  rate_limited: "Rate limited",
  invalid_schema: "Invalid form",
  declined: "Declined",
  cancelled: "Cancelled",
  accepted: "Accepted",
  opened: "Opened in browser",
  open_failed: "Browser failed to open",
  completed: "Completed",
  late: "Late",
  continued: "Continued",
  expired: "Expired",
  connection_lost: "Connection lost",
  withdrawn: "Withdrawn by the server",
  failed: "Failed",
  interrupted: "Interrupted (Airlock stopped)",
};


export function stateLabel(state: ElicitationState): string {
  return STATE_LABELS[state] ?? state;
}

const STATE_TONES: Record<ElicitationState, StatusTone> = {
  requested: "busy",
  accepted: "busy",
  opened: "busy",
  late: "busy",
  completed: "ok",
  continued: "ok",
  blocked: "bad",
  rate_limited: "bad",
  open_failed: "bad",
  expired: "bad",
  invalid_schema: "bad",
  connection_lost: "bad",
  failed: "bad",
  interrupted: "bad",
  declined: "idle",
  cancelled: "idle",
  withdrawn: "idle",
};

export function stateTone(state: ElicitationState): StatusTone {
  return STATE_TONES[state] ?? "idle";
}

/** Pretty JSON for display (always as text). */
export function prettyJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** `1 request`, `3 requests`: a number with its noun, singular or plural. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en")} ${n === 1 ? one : many}`;
}
