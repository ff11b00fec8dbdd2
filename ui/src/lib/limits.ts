// A server's size limits as the server form takes them: empty for the
// default, else a whole number of bytes inside the core's bounds
// (airlock_core::limits, generated into bindings/serverLimits.ts); the core
// checks again when the server is saved.
import type { Bound } from "./bindings/serverLimits";

const UNITS: [number, string][] = [
  [1024 * 1024 * 1024, "GiB"],
  [1024 * 1024, "MiB"],
  [1024, "KiB"],
];

/** Bytes in words: `16 MiB`, `1.5 KiB`, `900 bytes`. */
export function bytesText(n: number): string {
  for (const [size, unit] of UNITS) {
    if (n >= size) {
      const v = n / size;
      return `${Number.isInteger(v) ? v.toFixed(0) : v.toFixed(1)} ${unit}`;
    }
  }
  return `${n} bytes`;
}

/** What the field holds: `null` for the default, or the bytes; `error` when it is not acceptable. */
export function parseLimit(text: string, bound: Bound): { value: number | null; error: string | null } {
  const t = text.trim();
  if (t === "") return { value: null, error: null };
  const range = `Between ${bound.min} (${bytesText(bound.min)}) and ${bound.max} (${bytesText(bound.max)}) bytes, or empty for ${bytesText(bound.default)}.`;
  if (!/^[0-9]{1,16}$/.test(t)) return { value: null, error: `A whole number of bytes. ${range}` };
  const n = Number(t);
  if (n < bound.min || n > bound.max) return { value: null, error: range };
  return { value: n, error: null };
}
