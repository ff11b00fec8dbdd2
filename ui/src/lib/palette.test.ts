import { describe, expect, it } from "vitest";
import { rank, search, type PaletteItem } from "./palette";

const items: PaletteItem[] = [
  { label: "Servers", kind: "page", route: { page: "servers" } },
  { label: "Requests", kind: "page", route: { page: "elicitations" } },
  { label: "weather", kind: "server", route: { page: "server", name: "weather" } },
  { label: "weather › get_forecast", kind: "tool", route: { page: "server", name: "weather", tab: "tools" } },
];

describe("palette", () => {
  it("ranks a prefix before a part, and every word before nothing", () => {
    expect(rank("weather", "wea")).toBe(0);
    expect(rank("weather › get_forecast", "fore")).toBe(1);
    expect(rank("weather › get_forecast", "forecast weather")).toBe(2);
    expect(rank("Servers", "xyz")).toBeNull();
  });

  it("lists the matches best first and offers a history search", () => {
    const rows = search(items, "weather");
    expect(rows.map((r) => r.label)).toEqual(["weather", "weather › get_forecast", "Search the history for “weather”"]);
    expect(rows.at(-1)?.search).toBe("weather");
    expect(search(items, "").map((r) => r.label)).toEqual(["Servers", "Requests", "weather", "weather › get_forecast"]);
  });
});
