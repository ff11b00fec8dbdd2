import { describe, expect, it } from "vitest";

import type { AppConfigView, AppView } from "./api";
import { namesInUse, configState, diffLineClass, inUse, sees, splitApps } from "./apps";

function config(extra: Partial<AppConfigView> = {}): AppConfigView {
  return {
    path: "~/.x/mcp.json",
    installed: false,
    config_found: false,
    detected: false,
    connected: false,
    up_to_date: false,
    problem: null,
    ...extra,
  };
}

function view(name: string, extra: Partial<AppView> = {}): AppView {
  return {
    name,
    app_name: null,
    config: null,
    has_profile: false,
    has_token: false,
    paused: false,
    profile: { tools: {} },
    attached: 0,
    attached_since: null,
    tool_budget: null,
    tool_budget_why: null,
    ...extra,
  };
}

describe("the Apps page's lists", () => {
  const list = [
    view("zed", { app_name: "Zed", config: config() }),
    view("cursor", { app_name: "Cursor", config: config({ connected: true, up_to_date: true, detected: true }) }),
    view("goose", { app_name: "Goose", config: config({ detected: true, installed: true }) }),
    view("my-script", { attached: 1 }),
    view("chat", { has_profile: true, has_token: true }),
    view("cline", { app_name: "Cline", config: config({ detected: true, config_found: true }) }),
  ];

  it("puts the apps in use on top by name, then the apps to connect, found ones first", () => {
    const { inUse: used, available } = splitApps(list);
    expect(used.map((a) => a.name)).toEqual(["chat", "cursor", "my-script"]);
    expect(available.map((a) => a.name)).toEqual(["cline", "goose", "zed"]);
  });

  it("counts an app in use when connected, attached or with a profile", () => {
    expect(inUse(view("a"))).toBe(false);
    expect(inUse(view("a", { config: config({ detected: true }) }))).toBe(false);
    expect(inUse(view("a", { config: config({ connected: true }) }))).toBe(true);
    expect(inUse(view("a", { attached: 2 }))).toBe(true);
    expect(inUse(view("a", { has_profile: true }))).toBe(true);
    expect(namesInUse(list)).toEqual(["cursor", "my-script", "chat"]);
  });

  it("describes the config, a problem first", () => {
    expect(configState(config({ connected: true, up_to_date: true, problem: "bad JSON" })).label).toBe("Config unreadable");
    expect(configState(config({ connected: true, up_to_date: true }))).toEqual({ label: "Connected", tone: "ok" });
    expect(configState(config({ connected: true })).label).toBe("Connected (older entry)");
    expect(configState(config({ config_found: true, installed: true })).label).toBe("Config found");
    expect(configState(config({ installed: true })).label).toBe("Installed");
    expect(configState(config()).label).toBe("Not found");
  });

  it("says what an app sees", () => {
    expect(sees(view("a"))).toBe("All enabled servers");
    expect(sees(view("a", { profile: { servers: [], tools: {} } }))).toBe("No servers");
    expect(sees(view("a", { profile: { servers: ["gh", "py"], tools: { gh: ["search"] } } }))).toBe("gh, py (only some tools of gh)");
  });

  it("classes diff lines", () => {
    expect(["+++ b", "--- a", "+x", "-y", "@@ -1 +1 @@", " z"].map(diffLineClass)).toEqual(["head", "head", "add", "del", "hunk", ""]);
  });
});
