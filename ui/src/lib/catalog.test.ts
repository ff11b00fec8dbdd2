import { describe, expect, it } from "vitest";

import type { UpdateInfo } from "./api";
import { isNews } from "./catalog";

const base: UpdateInfo = {
  server: "s",
  entry_name: "io.github.x/s",
  registry: "https://r.example",
  installed: "1.0.0",
  available: null,
  status: "active",
  status_message: null,
};

describe("isNews", () => {
  it("is news when a newer version is listed or the status is not active", () => {
    expect(isNews(base)).toBe(false);
    expect(isNews({ ...base, available: "1.1.0" })).toBe(true);
    for (const status of ["deprecated", "deleted", "unlisted"]) expect(isNews({ ...base, status })).toBe(true);
  });
});
