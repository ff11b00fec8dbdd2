// The window's colours: the system's choice by default, or light or dark as
// chosen in Settings. The resolved scheme is set as `data-theme` on the root
// element, which app.css reads; with "system" it follows the system's
// changes while the window is open.
import type { Theme } from "./bindings/Theme";

const query = typeof window !== "undefined" ? window.matchMedia?.("(prefers-color-scheme: dark)") : undefined;
let chosen: Theme = "system";

function paint(): void {
  const dark = chosen === "dark" || (chosen === "system" && (query?.matches ?? false));
  document.documentElement.dataset.theme = dark ? "dark" : "light";
}

query?.addEventListener("change", paint);

/** Use `theme` from now on. */
export function applyTheme(theme: Theme): void {
  chosen = theme;
  paint();
}

/** The scheme the window shows now. */
export function shownTheme(): "light" | "dark" {
  return document.documentElement.dataset.theme === "dark" ? "dark" : "light";
}
