// The Apps page's logic: which apps reach the servers through Airlock (the
// cards on top), which could be connected (the list below), in what order,
// and how an app's MCP config is described. Pure, so Vitest checks it.
import type { AppConfigView, AppView } from "./api";

/** Reaches (or may reach) the servers through Airlock: connected, attached now, or with a profile of its own. */
export function inUse(a: AppView): boolean {
  return a.has_profile || a.attached > 0 || (a.config?.connected ?? false);
}

/** The name people read: the app's own ("Cursor"), else the name it attaches as. */
export function shownName(a: AppView): string {
  return a.app_name ?? a.name;
}

const byShownName = (a: AppView, b: AppView): number =>
  shownName(a).localeCompare(shownName(b), undefined, { sensitivity: "base" }) || a.name.localeCompare(b.name);

/**
 * The page's two lists: the apps in use by name; then the apps Airlock could
 * connect, those found on this computer first.
 */
export function splitApps(list: readonly AppView[]): { inUse: AppView[]; available: AppView[] } {
  const used = list.filter(inUse).sort(byShownName);
  const available = list
    .filter((a) => !inUse(a) && a.config !== null)
    .sort((a, b) => Number(b.config?.detected ?? false) - Number(a.config?.detected ?? false) || byShownName(a, b));
  return { inUse: used, available };
}

/** The names the History filters offer: the apps in use. */
export function namesInUse(list: readonly AppView[]): string[] {
  return list.filter(inUse).map((a) => a.name);
}

export type Tone = "ok" | "busy" | "bad" | "idle";

/** What Airlock found of the app's MCP config, as a pill. */
export function configState(c: AppConfigView): { label: string; tone: Tone } {
  if (c.problem) return { label: "Config unreadable", tone: "bad" };
  if (c.connected && c.up_to_date) return { label: "Connected", tone: "ok" };
  if (c.connected) return { label: "Connected (older entry)", tone: "busy" };
  if (c.config_found) return { label: "Config found", tone: "idle" };
  if (c.installed) return { label: "Installed", tone: "idle" };
  return { label: "Not found", tone: "idle" };
}

/** What Airlock found of the app: its program, its config. */
export function configFacts(c: AppConfigView): string {
  return [c.installed ? "installed" : "program not on PATH", c.config_found ? "config found" : "no config yet"].join(" · ");
}

/** What the app sees, in a line: its servers, and where only some tools. */
export function sees(a: AppView): string {
  const servers = a.profile.servers;
  const base = servers == null ? "All enabled servers" : servers.length === 0 ? "No servers" : servers.join(", ");
  const limited = Object.keys(a.profile.tools ?? {});
  return limited.length === 0 ? base : `${base} (only some tools of ${limited.join(", ")})`;
}

/** The class of one line of a unified diff. */
export function diffLineClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---")) return "head";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  if (line.startsWith("@@")) return "hunk";
  return "";
}
