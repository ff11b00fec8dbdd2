import { describe, expect, it } from "vitest";

import { MAX_DEFINITION_BYTES, MAX_MESSAGE_BYTES } from "./bindings/serverLimits";
import { bytesText, parseLimit } from "./limits";

describe("bytesText", () => {
  it("says sizes in the largest whole unit", () => {
    expect(bytesText(900)).toBe("900 bytes");
    expect(bytesText(1024)).toBe("1 KiB");
    expect(bytesText(1536)).toBe("1.5 KiB");
    expect(bytesText(16 * 1024 * 1024)).toBe("16 MiB");
    expect(bytesText(1024 * 1024 * 1024)).toBe("1 GiB");
  });
});

describe("parseLimit", () => {
  it("takes empty as the default and whole numbers inside the core's bounds", () => {
    expect(parseLimit("", MAX_MESSAGE_BYTES)).toEqual({ value: null, error: null });
    expect(parseLimit("  ", MAX_DEFINITION_BYTES)).toEqual({ value: null, error: null });
    expect(parseLimit(String(MAX_DEFINITION_BYTES.min), MAX_DEFINITION_BYTES)).toEqual({ value: MAX_DEFINITION_BYTES.min, error: null });
    expect(parseLimit(String(MAX_DEFINITION_BYTES.max), MAX_DEFINITION_BYTES).value).toBe(MAX_DEFINITION_BYTES.max);
  });

  it("refuses what the core would refuse, saying the bounds", () => {
    const below = parseLimit(String(MAX_DEFINITION_BYTES.min - 1), MAX_DEFINITION_BYTES);
    expect(below.value).toBeNull();
    expect(below.error).toBe("Between 1024 (1 KiB) and 1048576 (1 MiB) bytes, or empty for 64 KiB.");
    expect(parseLimit(String(MAX_MESSAGE_BYTES.max + 1), MAX_MESSAGE_BYTES).error).toMatch(/^Between 65536/);
    for (const bad of ["-1", "1e6", "12.5", "0x400", "lots", "99999999999999999999"]) {
      expect(parseLimit(bad, MAX_MESSAGE_BYTES).error, bad).not.toBeNull();
    }
  });
});
