import { describe, expect, it } from "vitest";
import type { HostEntry } from "./bindings/HostEntry";
import { admits, blockedTarget, stillBlocked } from "./room";

const entry = (host: string, port: number | null = null): HostEntry => ({ host, port, origin: { kind: "inferred", why: "test" } });

describe("the room card", () => {
  it("reads the host and port of a blocked attempt", () => {
    expect(blockedTarget("room: blocked api.example.com:443: not in the room")).toEqual({ host: "api.example.com", port: 443 });
    expect(blockedTarget("room: blocked [::1]:8080: local")).toEqual({ host: "::1", port: 8080 });
    expect(blockedTarget("something else")).toBeNull();
  });

  it("admits as the room does: exact hosts, *.domain for subdomains, a port when named", () => {
    expect(admits(entry("api.example.com"), "api.example.com", 443)).toBe(true);
    expect(admits(entry("api.example.com", 443), "api.example.com", 80)).toBe(false);
    expect(admits(entry("*.example.com"), "a.example.com", 443)).toBe(true);
    expect(admits(entry("*.example.com"), "example.com", 443)).toBe(false);
    expect(admits(entry("*.example.com"), "evilexample.com", 443)).toBe(false);
  });

  it("lists only the attempts the room still blocks", () => {
    const lines = [
      { text: "room: blocked api.example.com:443: not in the room" },
      { text: "room: blocked evil.example:443: denied" },
    ];
    const hosts = [entry("api.example.com")];
    expect(stillBlocked(lines, hosts, false).map((l) => l.text)).toEqual(["room: blocked evil.example:443: denied"]);
    expect(stillBlocked(lines, hosts, true)).toEqual([]);
  });
});
