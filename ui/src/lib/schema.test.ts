// The tool-call form built from a tool's JSON Schema `inputSchema` (schema.ts).
import { describe, expect, it } from "vitest";
import type { JsonValue } from "./api";
import { buildArgs, enumLabel, fieldsOf, formFriendly, initialValues, parseArgs, valuesFrom } from "./schema";

const inputSchema: JsonValue = {
  type: "object",
  properties: {
    message: { type: "string", title: "Message", description: "What to echo" },
    count: { type: "integer", minimum: 1, maximum: 10, default: 3 },
    ratio: { type: "number" },
    loud: { type: "boolean" },
    confirm: { type: "boolean" },
    mode: { type: "string", enum: ["fast", "slow"], default: "slow" },
    level: { enum: [1, 2, 3] },
    note: { type: ["string", "null"] },
  },
  required: ["message", "confirm"],
};

describe("fields of a tool's input schema (fieldsOf)", () => {
  const fields = fieldsOf(inputSchema);
  const byName = (n: string) => fields.find((f) => f.name === n);

  it("keeps the schema's order, names, titles and what is required", () => {
    expect(fields.map((f) => f.name)).toEqual(["message", "count", "ratio", "loud", "confirm", "mode", "level", "note"]);
    expect(byName("message")).toMatchObject({ title: "Message", description: "What to echo", required: true });
    expect(byName("ratio")).toMatchObject({ title: null, required: false });
  });

  it("gives each simple type its control; enums are choices whatever their type", () => {
    expect(fields.map((f) => f.kind)).toEqual(["string", "integer", "number", "boolean", "boolean", "enum", "enum", "string"]);
    expect(byName("count")).toMatchObject({ minimum: 1, maximum: 10, defaultValue: 3 });
    expect(byName("level")?.enumValues).toEqual([1, 2, 3]);
  });

  it("edits anything else as JSON, saying which type it is", () => {
    const odd = fieldsOf({
      properties: { tags: { type: "array" }, meta: { type: "object" }, any: {}, either: { type: ["string", "number"] } },
    });
    expect(odd.map((f) => [f.kind, f.typeLabel])).toEqual([
      ["json", "array"],
      ["json", "object"],
      ["json", "any"],
      ["json", "any"],
    ]);
    expect(formFriendly(odd)).toBe(false);
    expect(formFriendly(fields)).toBe(true);
  });

  it("a schema without properties (or no schema) has no fields", () => {
    expect(fieldsOf(undefined)).toEqual([]);
    expect(fieldsOf({ type: "object" })).toEqual([]);
    expect(fieldsOf([1, 2])).toEqual([]);
  });
});

describe("values and arguments", () => {
  const fields = fieldsOf(inputSchema);

  it("starts from the schema's defaults; a required yes/no starts at no", () => {
    expect(initialValues(fields)).toEqual({
      message: "",
      count: "3",
      ratio: "",
      loud: "",
      confirm: "false",
      mode: "1",
      level: "",
      note: "",
    });
  });

  it("builds arguments with JSON types, leaving out what was not given", () => {
    const built = buildArgs(fields, { ...initialValues(fields), message: "hi", ratio: " 0.25 ", loud: "true", level: "2" });
    expect(built.errors).toEqual({});
    expect(built.args).toEqual({ message: "hi", count: 3, ratio: 0.25, loud: true, confirm: false, mode: "slow", level: 3 });
  });

  it("says what is wrong with each field", () => {
    const built = buildArgs(fields, { message: "", count: "11", ratio: "abc", confirm: "", mode: "9" });
    expect(built.errors).toEqual({
      message: "Required.",
      count: "At most 10.",
      ratio: "Enter a number.",
      confirm: "Required.",
      mode: "Choose a value.",
    });
    expect(buildArgs(fields, { message: "x", confirm: "true", count: "0" }).errors).toEqual({ count: "At least 1." });
    expect(buildArgs(fields, { message: "x", confirm: "true", count: "2.5" }).errors).toEqual({
      count: "Enter a whole number.",
    });
  });

  it("text is sent as typed, even only spaces", () => {
    expect(buildArgs(fields, { message: "  ", confirm: "false" }).args.message).toBe("  ");
  });

  it("JSON fields are parsed, and refused when they are not JSON", () => {
    const [tags] = fieldsOf({ properties: { tags: { type: "array" } } });
    if (!tags) throw new Error("no field");
    expect(buildArgs([tags], { tags: '["a", 1]' }).args).toEqual({ tags: ["a", 1] });
    expect(buildArgs([tags], { tags: "[a" }).errors).toEqual({ tags: "Not valid JSON." });
    expect(initialValues(fieldsOf({ properties: { m: { type: "object", default: { a: 1 } } } }))).toEqual({
      m: '{\n  "a": 1\n}',
    });
  });

  it("switching from raw JSON back to the form keeps the arguments", () => {
    const args = { message: "hello", count: 7, ratio: -1.5, loud: false, confirm: true, mode: "fast", level: 1 };
    const back = buildArgs(fields, valuesFrom(fields, args));
    expect(back.errors).toEqual({});
    expect(back.args).toEqual(args);
  });
});

describe("raw JSON arguments (parseArgs)", () => {
  it("an empty box means no arguments", () => {
    expect(parseArgs("  ")).toEqual({ args: {} });
  });

  it("takes a JSON object", () => {
    expect(parseArgs('{"message": "hi", "n": 2}')).toEqual({ args: { message: "hi", n: 2 } });
  });

  it("refuses anything else with a sentence that says what to write", () => {
    expect(parseArgs("[1, 2]")).toEqual({ error: 'Arguments must be a JSON object, like {"name": "value"}.' });
    expect(parseArgs('"text"')).toEqual({ error: 'Arguments must be a JSON object, like {"name": "value"}.' });
    const bad = parseArgs("{message: hi}");
    expect("error" in bad && bad.error.startsWith("Not valid JSON: ")).toBe(true);
  });

  it("enum options are shown as text", () => {
    expect(enumLabel("fast")).toBe("fast");
    expect(enumLabel(2)).toBe("2");
    expect(enumLabel(null)).toBe("null");
  });
});
