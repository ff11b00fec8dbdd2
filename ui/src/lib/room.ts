// The room card's logic: which blocked attempts from a server's log still
// matter (a host allowed since is not listed again), by the same host rule
// as the room itself (airlock-sandbox `host_admits`).
import type { HostEntry } from "./bindings/HostEntry";

/** `host:port` of a log line `room: blocked HOST:PORT: why`, or null. */
export function blockedTarget(text: string): { host: string; port: number } | null {
  const m = /^room: blocked (\[[^\]]+\]|[^\s:]+):(\d+):/.exec(text);
  if (!m?.[1] || !m[2]) return null;
  return { host: m[1].replace(/^\[|\]$/g, ""), port: Number(m[2]) };
}

/** Whether an entry of the room admits `host` on `port` (`*.example.com` takes its subdomains). */
export function admits(entry: Pick<HostEntry, "host" | "port">, host: string, port: number): boolean {
  if (entry.port !== null && entry.port !== port) return false;
  if (entry.host.startsWith("*.")) {
    const domain = entry.host.slice(2);
    return host.length > domain.length + 1 && host.endsWith(`.${domain}`);
  }
  return entry.host === host;
}

/** The blocked attempts whose host the room still does not admit. */
export function stillBlocked<T extends { text: string }>(lines: readonly T[], hosts: readonly HostEntry[], hostNetwork: boolean): T[] {
  if (hostNetwork) return [];
  return lines.filter((l) => {
    const t = blockedTarget(l.text);
    return t === null || !hosts.some((h) => admits(h, t.host, t.port));
  });
}
