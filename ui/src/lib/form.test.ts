// Form-mode elicitation in the window (form.ts). The checks mirror
// airlock-core's `elicitation/form.rs` (`FormField::check`, `is_email`...):
// the tables and messages below are the core's own test cases, so the window
// and the terminal tell a person the same thing.
import { afterEach, describe, expect, it } from "vitest";
import type { Choice, FieldKind, FormField, FormSchema } from "./api";
import {
  MAX_VALUE_CHARS,
  booleanIsCheckbox,
  buildContent,
  checkField,
  choiceLabel,
  constraintHint,
  fieldLabel,
  formatHint,
  initialValues,
  inputType,
  isDate,
  isDateTime,
  isEmail,
  isUri,
  localToRfc3339,
  plain,
  rfc3339ToLocal,
  sentence,
} from "./form";

// ----- fields as the core sends them (FormField, serde) -----

type Extra = { required?: boolean; default?: unknown; title?: string };

function field(name: string, kind: FieldKind, extra: Extra = {}): FormField {
  return {
    name,
    title: extra.title ?? null,
    description: null,
    required: extra.required ?? false,
    kind,
    default: extra.default ?? null,
  };
}

const text = (o: Partial<Extract<FieldKind, { type: "string" }>> = {}): FieldKind => ({
  type: "string",
  min_length: null,
  max_length: null,
  format: null,
  ...o,
});
const num = (o: Partial<Extract<FieldKind, { type: "number" }>> = {}): FieldKind => ({
  type: "number",
  integer: false,
  minimum: null,
  maximum: null,
  ...o,
});
const bool: FieldKind = { type: "boolean" };
const options = (...values: string[]): Choice[] => values.map((value) => ({ value, title: null }));
const one = (...values: string[]): FieldKind => ({ type: "single_select", options: options(...values) });
const many = (values: string[], min: number | null = null, max: number | null = null): FieldKind => ({
  type: "multi_select",
  options: options(...values),
  min_items: min,
  max_items: max,
});

/** The message for one field's raw value, or null when it is accepted. */
const errorOf = (f: FormField, raw: string | string[]): string | null => checkField(f, raw).error;
/** The value sent for one field's raw value (throws if it is refused). */
function sent(f: FormField, raw: string | string[]): unknown {
  const c = checkField(f, raw);
  if (c.error !== null) throw new Error(`refused: ${c.error}`);
  return c.value;
}

const zone = process.env.TZ;
afterEach(() => {
  process.env.TZ = zone;
});

describe("formats (core: is_email, is_uri, is_date, is_date_time)", () => {
  it.each(["a@b.co", "first.last+tag@sub.example.org", "x@[127.0.0.1]"])("email %s is accepted", (s) => {
    expect(isEmail(s)).toBe(true);
  });
  it.each(["", "a", "a@", "@b.co", "a@b", "a b@c.de", "a@b..c", "a@.b.c", "a@b.c."])(
    "email %j is refused",
    (s) => {
      expect(isEmail(s)).toBe(false);
    },
  );
  it.each(["https://example.com", "mailto:x@y.z", "urn:isbn:123"])("uri %s is accepted", (s) => {
    expect(isUri(s)).toBe(true);
  });
  it.each(["example.com", "/relative", "https://exa mple.com", ""])("uri %j is refused", (s) => {
    expect(isUri(s)).toBe(false);
  });
  it.each(["2024-02-29", "2000-02-29", "1999-12-31"])("date %s is accepted", (s) => {
    expect(isDate(s)).toBe(true);
  });
  it.each(["1900-02-29", "2023-02-29", "2024-13-01", "2024-00-10", "2024-1-01", "24-01-01", "2024/01/01", "2024-04-31"])(
    "date %s is refused",
    (s) => {
      expect(isDate(s)).toBe(false);
    },
  );
  it.each(["2024-01-01T00:00:00Z", "2024-01-01t10:20:30z", "2024-01-01T10:20:30.5-08:00", "2024-01-01T23:59:60+00:00"])(
    "date-time %s is accepted",
    (s) => {
      expect(isDateTime(s)).toBe(true);
    },
  );
  it.each([
    "2024-01-01",
    "2024-01-01T10:20:30",
    "2024-01-01 10:20:30Z",
    "2024-01-01T24:00:00Z",
    "2024-01-01T10:20:30.Z",
    "2024-01-01T10:20:30+0800",
    "2024-01-01T10:20:30+24:00",
    "2024-01-01T10:20Z",
    "2023-02-29T10:00:00Z",
  ])("date-time %s is refused", (s) => {
    expect(isDateTime(s)).toBe(false);
  });
});

describe("the form as first shown (initialValues)", () => {
  const schema: FormSchema = {
    title: null,
    description: null,
    fields: [
      field("name", text(), { default: "Ada" }),
      field("nick", text()),
      field("when", text({ format: "date-time" }), { default: "2025-03-01T09:00:00Z" }),
      field("age", num({ integer: true }), { default: 36 }),
      field("ratio", num(), { default: 0.5 }),
      field("count", num()),
      field("agree", bool, { required: true }),
      field("newsletter", bool),
      field("dark", bool, { default: true }),
      field("colour", one("red", "green", "blue"), { default: "green" }),
      field("size", one("s", "m")),
      field("pets", many(["cat", "dog", "fish"]), { default: ["cat", "fish"] }),
      field("tags", many(["a", "b"])),
    ],
  };
  const v = initialValues(schema);

  it("pre-fills the server's defaults as the controls hold them", () => {
    expect(v.name).toBe("Ada");
    expect(v.age).toBe("36");
    expect(v.ratio).toBe("0.5");
    expect(v.dark).toBe("true");
    expect(v.colour).toBe("1"); // the option's index
    expect(v.pets).toEqual(["cat", "fish"]);
  });

  it("shows a date-time default in this computer's time zone", () => {
    expect(v.when).toBe("2025-03-01T14:30:00"); // 09:00 UTC in Asia/Kolkata (+05:30)
  });

  it("leaves fields without a default empty", () => {
    expect(v.nick).toBe("");
    expect(v.count).toBe("");
    expect(v.size).toBe("");
    expect(v.tags).toEqual([]);
  });

  it("a required yes/no starts at no, an optional one unanswered", () => {
    expect(v.agree).toBe("false");
    expect(v.newsletter).toBe("");
    expect(booleanIsCheckbox(field("agree", bool, { required: true }))).toBe(true);
    expect(booleanIsCheckbox(field("dark", bool, { default: false }))).toBe(true);
    expect(booleanIsCheckbox(field("newsletter", bool))).toBe(false);
  });

  it("the defaults, sent unchanged, are a valid answer", () => {
    const { content, errors } = buildContent(schema, v);
    expect(errors).toEqual({});
    expect(content).toEqual({
      name: "Ada",
      when: "2025-03-01T14:30:00+05:30",
      age: 36,
      ratio: 0.5,
      agree: false,
      dark: true,
      colour: "green",
      pets: ["cat", "fish"],
    });
  });
});

describe("checking a field as the core does (checkField)", () => {
  it("a required field left empty says so; an optional one is not sent", () => {
    expect(errorOf(field("name", text(), { required: true }), "")).toBe("is required: give a value");
    expect(errorOf(field("age", num(), { required: true }), "  ")).toBe("is required: give a value");
    expect(errorOf(field("size", one("s"), { required: true }), "")).toBe("is required: give a value");
    expect(checkField(field("nick", text()), "")).toEqual({ value: undefined, error: null });
    expect(checkField(field("count", num()), "")).toEqual({ value: undefined, error: null });
  });

  it("text length, counted in characters like Rust's chars()", () => {
    const nick = field("nick", text({ min_length: 2, max_length: 5 }));
    expect(errorOf(nick, "a")).toBe("must be at least 2 characters long (got 1)");
    expect(errorOf(nick, "abcdef")).toBe("must be at most 5 characters long (got 6)");
    expect(sent(nick, "ada")).toBe("ada");
    // Two emoji are two characters (four UTF-16 units).
    expect(sent(nick, "😀😀")).toBe("😀😀");
    expect(errorOf(field("pin", text({ min_length: 3 })), "😀😀")).toBe("must be at least 3 characters long (got 2)");
  });

  it("text longer than Airlock sends is refused whatever the schema allows", () => {
    const free = field("note", text());
    expect(errorOf(free, "x".repeat(MAX_VALUE_CHARS + 1))).toBe(
      `is too long: Airlock sends at most 8192 characters (got ${MAX_VALUE_CHARS + 1})`,
    );
    expect(sent(free, "x".repeat(MAX_VALUE_CHARS))).toHaveLength(MAX_VALUE_CHARS);
  });

  it("text is sent exactly as typed (spaces kept)", () => {
    expect(sent(field("line", text()), "  Call me Ishmael.  ")).toBe("  Call me Ishmael.  ");
  });

  it.each([
    ["email", "not-an-email", "must be an email address, like name@example.com"],
    ["uri", "example.com", "must be a full URI with a scheme, like https://example.com/page"],
    ["date", "2023-02-29", "must be a date as YYYY-MM-DD, like 2025-03-01"],
  ] as const)("a %s field refuses %s with the core's hint", (format, value, message) => {
    expect(errorOf(field("f", text({ format })), value)).toBe(message);
  });

  it("a date-time typed in the picker is sent with this computer's offset", () => {
    const when = field("when", text({ format: "date-time" }));
    expect(sent(when, "2025-03-01T14:30")).toBe("2025-03-01T14:30:00+05:30");
    expect(sent(when, "2025-03-01T14:30:15")).toBe("2025-03-01T14:30:15+05:30");
    // A full RFC 3339 value is sent as it is.
    expect(sent(when, "2025-03-01T09:00:00Z")).toBe("2025-03-01T09:00:00Z");
    expect(errorOf(when, "2025-13-01T10:00")).toBe(
      "must be a date and time as YYYY-MM-DDTHH:MM:SS with Z or an offset, like 2025-03-01T14:30:00Z",
    );
  });

  it("offsets west of UTC and daylight saving time are right", () => {
    process.env.TZ = "America/Los_Angeles";
    expect(localToRfc3339("2025-01-15T08:00")).toBe("2025-01-15T08:00:00-08:00");
    expect(localToRfc3339("2025-07-15T08:00")).toBe("2025-07-15T08:00:00-07:00");
    expect(rfc3339ToLocal("2025-07-15T15:00:00Z")).toBe("2025-07-15T08:00:00");
    expect(localToRfc3339("15/07/2025 08:00")).toBeNull();
    expect(rfc3339ToLocal("not a date")).toBe("");
  });

  it("numbers are sent as JSON numbers, only when written as decimal numbers", () => {
    const n = field("n", num());
    expect(sent(n, " 42 ")).toBe(42);
    expect(sent(n, "-0.5")).toBe(-0.5);
    expect(sent(n, "1e3")).toBe(1000);
    for (const bad of ["abc", "0x10", "Infinity", "1,5", "1e999", "--1"]) {
      expect(errorOf(n, bad), bad).toBe("must be a number");
    }
  });

  it("whole numbers", () => {
    const i = field("i", num({ integer: true }));
    expect(sent(i, "7")).toBe(7);
    expect(errorOf(i, "abc")).toBe("must be a whole number");
    expect(errorOf(i, "4.5")).toBe("must be a whole number (no decimals)");
  });

  it("number ranges, worded like the core", () => {
    expect(errorOf(field("i", num({ integer: true, minimum: 1, maximum: 100 })), "0")).toBe("must be from 1 to 100");
    expect(errorOf(field("n", num({ minimum: 0, maximum: 1000 })), "1000.5")).toBe("must be from 0 to 1000");
    expect(errorOf(field("n", num({ minimum: 0.5 })), "0.25")).toBe("must be at least 0.5");
    expect(errorOf(field("n", num({ maximum: 3 })), "4")).toBe("must be at most 3");
    expect(sent(field("n", num({ minimum: 1, maximum: 100 })), "100")).toBe(100);
  });

  it("yes/no: a required checkbox left off is an answer (false)", () => {
    expect(sent(field("agree", bool, { required: true }), "false")).toBe(false);
    expect(sent(field("agree", bool, { required: true }), "true")).toBe(true);
    expect(checkField(field("newsletter", bool), "").value).toBeUndefined();
  });

  it("single choice: the chosen option's value is sent", () => {
    const colour = field("colour", one("red", "green"));
    expect(sent(colour, "1")).toBe("green");
    expect(errorOf(colour, "5")).toBe("must be one of the listed options");
  });

  it("multiple choice: counts, worded like the core", () => {
    const instruments = field("instruments", many(["Guitar", "Piano", "Violin", "Drums"], 1, 3), { required: true });
    expect(errorOf(instruments, [])).toBe("needs at least 1 choice (got 0)");
    expect(errorOf(instruments, ["Guitar", "Piano", "Violin", "Drums"])).toBe("allows at most 3 choices (got 4)");
    expect(errorOf(field("two", many(["a", "b", "c"], 2)), ["a"])).toBe("needs at least 2 choices (got 1)");
    expect(sent(instruments, ["Piano", "Guitar"])).toEqual(["Piano", "Guitar"]);
    // Optional and nothing chosen: not sent at all.
    expect(checkField(field("tags", many(["a"], 1)), []).value).toBeUndefined();
  });
});

describe("the answer (buildContent)", () => {
  const schema: FormSchema = {
    title: null,
    description: null,
    fields: [
      field("name", text(), { required: true }),
      field("email", text({ format: "email" })),
      field("age", num({ integer: true, minimum: 0 }), { required: true }),
      field("nick", text()),
    ],
  };

  it("sends only the fields given, with their JSON types", () => {
    const built = buildContent(schema, { name: "Ada", email: "ada@example.org", age: "36", nick: "" });
    expect(built.errors).toEqual({});
    expect(built.content).toEqual({ name: "Ada", email: "ada@example.org", age: 36 });
  });

  it("reports every wrong field at once, by property name, and sends none of them", () => {
    const built = buildContent(schema, { name: "", email: "ada", age: "-1", nick: "x" });
    expect(built.errors).toEqual({
      name: "is required: give a value",
      email: "must be an email address, like name@example.com",
      age: "must be at least 0",
    });
    expect(built.content).toEqual({ nick: "x" });
  });

  it("a field missing from the values counts as empty", () => {
    expect(buildContent(schema, {}).errors).toEqual({
      name: "is required: give a value",
      age: "is required: give a value",
    });
  });
});

describe("what a person reads", () => {
  it("control and invisible characters become visible escapes", () => {
    expect(plain("pay\u202Eusd")).toBe("pay\\u{202E}usd"); // right-to-left override
    expect(plain("a\u200Bb")).toBe("a\\u{200B}b"); // zero-width space
    expect(plain("\u001b[31mred")).toBe("\\u{1B}[31mred"); // terminal escape
    expect(plain("line\nbreak")).toBe("line\\u{A}break");
    expect(plain("Zoë ✓ 名前")).toBe("Zoë ✓ 名前");
  });

  it("labels: the server's title, else the raw name as plain text", () => {
    expect(fieldLabel(field("age", num(), { title: "Your age" }))).toBe("Your age");
    expect(fieldLabel(field("a\u202Eb", num()))).toBe("a\\u{202E}b");
    expect(choiceLabel({ value: "hero-1", title: "Superman" })).toBe("Superman");
    expect(choiceLabel({ value: "x\u200By", title: null })).toBe("x\\u{200B}y");
  });

  it("a field's message as one sentence", () => {
    const age = field("age", num(), { title: "Age" });
    expect(sentence(age, "age", "must be at least 0")).toBe("Age must be at least 0");
    expect(sentence(undefined, "stranger\u202E", "is not a field of this form")).toBe(
      "stranger\\u{202E} is not a field of this form",
    );
  });

  it("each string format gets the matching input and the core's hint", () => {
    expect(inputType("email")).toBe("email");
    expect(inputType("uri")).toBe("url");
    expect(inputType("date")).toBe("date");
    expect(inputType("date-time")).toBe("datetime-local");
    expect(inputType(null)).toBe("text");
    expect(formatHint("date-time")).toBe(
      "a date and time as YYYY-MM-DDTHH:MM:SS with Z or an offset, like 2025-03-01T14:30:00Z",
    );
  });

  it("constraints in words under each field", () => {
    expect(constraintHint(field("nick", text({ min_length: 2, max_length: 5 })))).toBe("2 to 5 characters");
    expect(constraintHint(field("pin", text({ min_length: 1 })))).toBe("At least 1 character");
    expect(constraintHint(field("bio", text({ max_length: 200 })))).toBe("At most 200 characters");
    expect(constraintHint(field("mail", text({ format: "email" })))).toBe("An email address, like name@example.com");
    expect(constraintHint(field("when", text({ format: "date-time" })))).toBe(
      "A date and time, sent with this computer's time zone offset",
    );
    expect(constraintHint(field("i", num({ integer: true, minimum: 1, maximum: 100 })))).toBe("Whole number from 1 to 100");
    expect(constraintHint(field("n", num({ minimum: 0 })))).toBe("Number, at least 0");
    expect(constraintHint(field("n", num({ maximum: 2.5 })))).toBe("Number, at most 2.5");
    expect(constraintHint(field("m", many(["a", "b"], 1, 3)))).toBe("Choose 1 to 3 of 2");
    expect(constraintHint(field("m", many(["a", "b", "c"])))).toBe("Choose any of 3");
    expect(constraintHint(field("b", bool))).toBe("");
  });
});
