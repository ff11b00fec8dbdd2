// Display helpers (format.ts): times, statuses, server lines, secret names.
import { afterEach, describe, expect, it } from "vitest";
import type { ConnStatus, ServerDef } from "./api";
import type { ElicitationState } from "./bindings/ElicitationState";
import {
  counted,
  dateTime,
  dayEnd,
  dayStart,
  duration,
  elapsed,
  elideMiddle,
  isSecret,
  looksSecret,
  prettyJson,
  stateLabel,
  stateTone,
  statusDetail,
  statusLabel,
  statusTone,
  timeOfDay,
  transportSummary,
  truncate,
} from "./format";

const zone = process.env.TZ;
afterEach(() => {
  process.env.TZ = zone;
});

describe("durations", () => {
  it.each([
    [0, "0 s"],
    [4_999, "4 s"],
    [59_999, "59 s"],
    [60_000, "1 min 00 s"],
    [65_000, "1 min 05 s"],
    [3_599_000, "59 min 59 s"],
    [3_780_000, "1 h 03 min"],
    [-5_000, "0 s"],
  ])("elapsed(%i) is %s", (ms, shown) => {
    expect(elapsed(ms)).toBe(shown);
  });

  it.each([
    [250, "250 ms"],
    [1_234, "1.23 s"],
    [12_345, "12.3 s"],
  ])("duration(%i) is %s", (ms, shown) => {
    expect(duration(ms)).toBe(shown);
  });
});

describe("local times", () => {
  const instant = Date.UTC(2026, 11, 2, 9, 34, 5); // 2026-12-02 09:34:05 UTC

  it("in this computer's time zone (Asia/Kolkata, +05:30, in these tests)", () => {
    expect(dateTime(instant)).toBe("2026-12-02 15:04:05");
    expect(timeOfDay(instant)).toBe("15:04:05");
  });

  it("a day picked in the history filter runs from local midnight to the next", () => {
    const start = dayStart("2026-12-02");
    expect(start).toBe(Date.UTC(2026, 11, 1, 18, 30));
    expect(dayEnd("2026-12-02")).toBe(Date.UTC(2026, 11, 2, 18, 30));
    expect(dayStart("")).toBeNull();
    expect(dayStart("yesterday")).toBeNull();
    expect(dayEnd("")).toBeNull();
  });

  it("a day with a daylight-saving change is 23 hours long, not 24", () => {
    process.env.TZ = "America/New_York";
    const start = dayStart("2026-03-08");
    const end = dayEnd("2026-03-08");
    expect(start).not.toBeNull();
    expect(end).not.toBeNull();
    expect(((end ?? 0) - (start ?? 0)) / 3_600_000).toBe(23);
    expect(dateTime(end ?? 0)).toBe("2026-03-09 00:00:00");
  });
});

describe("server status", () => {
  const cases: [ConnStatus, string, ReturnType<typeof statusTone>, string | null][] = [
    [{ state: "disconnected" }, "Disconnected", "idle", null],
    [{ state: "connecting" }, "Connecting…", "busy", null],
    [{ state: "ready", protocol_version: "2025-11-25" }, "Ready", "ok", null],
    [{ state: "failed", reason: "spawn failed: npx not found" }, "Failed", "bad", "spawn failed: npx not found"],
    [
      { state: "reconnecting", attempt: 3, retry_in_ms: 4_500, reason: "connection closed" },
      "Reconnecting (attempt 3)",
      "busy",
      "connection closed — next try in 5 s",
    ],
    [{ state: "sign_in_required", reason: "the server answered 401" }, "Sign-in required", "bad", "the server answered 401"],
    [
      { state: "signing_in", domain: "example.com" },
      "Signing in…",
      "busy",
      "Waiting for you to finish signing in at example.com in your browser.",
    ],
  ];
  it.each(cases)("%j reads %s", (status, label, tone, detail) => {
    expect(statusLabel(status)).toBe(label);
    expect(statusTone(status)).toBe(tone);
    expect(statusDetail(status)).toBe(detail);
  });
});

describe("elicitation states", () => {
  it("every state the core records has words, and a tone", () => {
    // Typed by the Rust enum: a state added in Rust without words here fails the type check.
    const words: Record<ElicitationState, [string, ReturnType<typeof stateTone>]> = {
      requested: ["Waiting for you", "busy"],
      accepted: ["Accepted", "busy"],
      opened: ["Opened in browser", "busy"],
      open_failed: ["Browser failed to open", "bad"],
      completed: ["Completed", "ok"],
      late: ["Late", "busy"],
      continued: ["Continued", "ok"],
      declined: ["Declined", "idle"],
      cancelled: ["Cancelled", "idle"],
      expired: ["Expired", "bad"],
      blocked: ["Blocked", "bad"],
      rate_limited: ["Rate limited", "bad"],
      invalid_schema: ["Invalid form", "bad"],
      connection_lost: ["Connection lost", "bad"],
      withdrawn: ["Withdrawn by the server", "idle"],
      failed: ["Failed", "bad"],
      interrupted: ["Interrupted (Airlock stopped)", "bad"],
    };
    for (const [state, [label, tone]] of Object.entries(words) as [ElicitationState, [string, string]][]) {
      expect([state, stateLabel(state), stateTone(state)]).toEqual([state, label, tone]);
    }
  });

  it("a state a newer core sends is shown as it is, neutral", () => {
    const unknown = "some_new_state" as ElicitationState;
    expect(stateLabel(unknown)).toBe("some_new_state");
    expect(stateTone(unknown)).toBe("idle");
  });
});

describe("server definitions", () => {
  it("a stdio server as the command line to run, quoting what needs it", () => {
    const def: ServerDef = {
      name: "gh",
      options: { protocol: "auto", allow_insecure_http: false, inherit_env: [], pins: "hold", max_message_bytes: null, max_definition_bytes: null },
      protocol_learned: null,
      paused: false,
      transport: {
        type: "stdio",
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-github", "my dir", 'say "hi"', "--port=3000"],
        env: {},
      },
    };
    expect(transportSummary(def)).toBe('npx -y @modelcontextprotocol/server-github "my dir" "say \\"hi\\"" --port=3000');
  });

  it("an HTTP server as its URL", () => {
    const def: ServerDef = {
      name: "remote",
      options: { protocol: "auto", allow_insecure_http: false, inherit_env: [], pins: "hold", max_message_bytes: null, max_definition_bytes: null },
      protocol_learned: null,
      paused: false,
      transport: { type: "http", url: "https://mcp.example.com/mcp", headers: {} },
    };
    expect(transportSummary(def)).toBe("https://mcp.example.com/mcp");
  });

  it("a stored value is a secret when it is a keychain reference", () => {
    expect(isSecret({ secret_ref: "airlock/gh/GITHUB_TOKEN" })).toBe(true);
    expect(isSecret({ value: "ghp_visible" })).toBe(false);
  });
});

describe("secret-looking names (the core's servers::looks_secret)", () => {
  // The core's own test table, then the word and suffix rules.
  it.each(["Authorization", "GITHUB_TOKEN", "X-Api-Key", "OPENAI_API_KEY", "DB_PASSWORD", "Cookie", "GITHUB_PERSONAL_ACCESS_TOKEN"])(
    "%s is marked secret",
    (name) => {
      expect(looksSecret(name)).toBe(true);
    },
  );
  it.each(["PATH", "HOME", "Accept", "X-Request-Id", "DEBUG", "KEYBOARD_LAYOUT"])("%s is not", (name) => {
    expect(looksSecret(name)).toBe(false);
  });
  it("a secret word inside a longer word counts only at the end", () => {
    expect(looksSecret("GHTOKEN")).toBe(true);
    expect(looksSecret("stripe_apikey")).toBe(true);
    expect(looksSecret("client-secret")).toBe(true);
    expect(looksSecret("TOKENIZER_PATH")).toBe(false);
    expect(looksSecret("PASSAGE")).toBe(false);
  });
});

describe("text that must fit", () => {
  it("elideMiddle keeps the start and the end of a long URL", () => {
    expect(elideMiddle("abcdefghij", 5)).toBe("abc…j");
    expect(Array.from(elideMiddle("https://accounts.example.com/oauth/authorize?client_id=abc", 20))).toHaveLength(20);
    expect(elideMiddle("short", 10)).toBe("short");
  });

  it("truncate cuts with a trailing ellipsis, never inside a character", () => {
    expect(truncate("abcdef", 4)).toBe("abc…");
    expect(truncate("abc", 3)).toBe("abc");
    expect(truncate("😀😀😀😀", 3)).toBe("😀😀…");
  });

  it("prettyJson never throws", () => {
    expect(prettyJson({ a: [1, "x"] })).toBe('{\n  "a": [\n    1,\n    "x"\n  ]\n}');
    expect(prettyJson(undefined)).toBe("undefined");
    const loop: { self?: unknown } = {};
    loop.self = loop;
    expect(prettyJson(loop)).toBe("[object Object]");
  });
});

describe("counted", () => {
  it("puts the noun in the singular for one, the plural otherwise", () => {
    expect(counted(1, "request")).toBe("1 request");
    expect(counted(0, "request")).toBe("0 requests");
    expect(counted(3, "change")).toBe("3 changes");
    expect(counted(2, "entry", "entries")).toBe("2 entries");
    expect(counted(12000, "request")).toBe("12,000 requests");
  });
});
