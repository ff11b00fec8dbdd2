// The command palette's search (Ctrl+K): pages, servers and their tools,
// and a search of the history, ranked by how well the words match.
import type { Route } from "./app.svelte";

export type PaletteItem = {
  /** What the row says. */
  label: string;
  /** Its kind, shown beside it. */
  kind: "page" | "server" | "tool" | "history";
  route: Route;
  /** For a history search: the words to search. */
  search?: string;
};

/** A match's rank (lower is better), or null when the query does not match. */
export function rank(label: string, query: string): number | null {
  const l = label.toLowerCase();
  const q = query.trim().toLowerCase();
  if (q === "") return 2;
  if (l.startsWith(q)) return 0;
  if (l.includes(q)) return 1;
  // Every word of the query somewhere in the label.
  const words = q.split(/\s+/);
  return words.every((w) => l.includes(w)) ? 2 : null;
}

/** The rows for `query`, best first, at most `max`; always a history search last. */
export function search(items: readonly PaletteItem[], query: string, max = 12): PaletteItem[] {
  const scored = items
    .map((item, i) => ({ item, i, r: rank(item.label, query) }))
    .filter((x): x is { item: PaletteItem; i: number; r: number } => x.r !== null)
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .slice(0, max)
    .map((x) => x.item);
  const q = query.trim();
  if (q !== "") {
    scored.push({ label: `Search the history for “${q}”`, kind: "history", route: { page: "history" }, search: q });
  }
  return scored;
}
