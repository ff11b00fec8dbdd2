// Form-mode elicitation in the window: the values a person edits, the checks
// as they type, and the answer sent back. The checks mirror airlock-core's
// `elicitation/form/validate.rs` (`FormField::check`), with the same messages, so the
// window and the terminal say the same thing; `answer_form` checks again in
// Rust, and that check is the one that counts.
import type { Choice, FormField, FormSchema, JsonValue, StringFormat } from "./api";

/** Longest text a person may enter in one string field (core: `MAX_VALUE_CHARS`). */
export const MAX_VALUE_CHARS = 8192;

/**
 * What a person edits, per field:
 * - string (every format), number, integer: the text as typed ("" = not given);
 *   date-time: the `datetime-local` value;
 * - boolean: "true" / "false", or "" (not given) for an optional one without default;
 * - single-select: the option's index ("" = not given);
 * - multi-select: the chosen option values.
 */
export type FormValue = string | string[];
export type FormValues = Record<string, FormValue>;

export type Content = { [key: string]: JsonValue };

/** Control and invisible characters (bidi overrides, zero-width...) as visible `\u{...}` escapes. */
export function plain(s: string): string {
  return s.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`);
}

/** The field's title, or its property name as plain text. */
export function fieldLabel(f: FormField): string {
  return f.title ?? plain(f.name);
}

/** The option's title, or its value as plain text. */
export function choiceLabel(c: Choice): string {
  return c.title ?? plain(c.value);
}

/** An optional boolean without a default can be left unanswered: it gets Yes / No / Not set. */
export function booleanIsCheckbox(f: FormField): boolean {
  return f.required || typeof f.default === "boolean";
}

/** The HTML input type of a string field. URIs are typed, never rendered as links. */
export function inputType(format: StringFormat | null): "text" | "email" | "url" | "date" | "datetime-local" {
  switch (format) {
    case "email":
      return "email";
    case "uri":
      return "url";
    case "date":
      return "date";
    case "date-time":
      return "datetime-local";
    default:
      return "text";
  }
}

/** What a person should type (core: `StringFormat::hint`). */
export function formatHint(format: StringFormat): string {
  switch (format) {
    case "email":
      return "an email address, like name@example.com";
    case "uri":
      return "a full URI with a scheme, like https://example.com/page";
    case "date":
      return "a date as YYYY-MM-DD, like 2025-03-01";
    case "date-time":
      return "a date and time as YYYY-MM-DDTHH:MM:SS with Z or an offset, like 2025-03-01T14:30:00Z";
  }
}

/** Numbers as the core prints them: whole numbers without a decimal point. */
function fmtNum(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 1e15 ? n.toFixed(0) : String(n);
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;
const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** The constraints in words, for the hint under a field (core: `FormField::constraints`). */
export function constraintHint(f: FormField): string {
  const k = f.kind;
  switch (k.type) {
    case "string": {
      const parts: string[] = [];
      const lo = k.min_length;
      const hi = k.max_length;
      if (lo !== null && hi !== null) parts.push(`${lo} to ${hi} characters`);
      else if (lo !== null) parts.push(`at least ${plural(lo, "character")}`);
      else if (hi !== null) parts.push(`at most ${plural(hi, "character")}`);
      // Dates are picked (or typed) in the input's own format; the sent value is YYYY-MM-DD.
      if (k.format === "date-time") parts.push("a date and time, sent with this computer's time zone offset");
      else if (k.format !== null && k.format !== "date") parts.push(formatHint(k.format));
      return cap(parts.join("; "));
    }
    case "number": {
      const what = k.integer ? "Whole number" : "Number";
      if (k.minimum !== null && k.maximum !== null) return `${what} from ${fmtNum(k.minimum)} to ${fmtNum(k.maximum)}`;
      if (k.minimum !== null) return `${what}, at least ${fmtNum(k.minimum)}`;
      if (k.maximum !== null) return `${what}, at most ${fmtNum(k.maximum)}`;
      return what;
    }
    case "multi_select": {
      const n = k.options.length;
      const lo = k.min_items;
      const hi = k.max_items;
      if (lo !== null && hi !== null) return `Choose ${lo} to ${hi} of ${n}`;
      if (lo !== null) return `Choose at least ${lo} of ${n}`;
      if (hi !== null) return `Choose at most ${hi} of ${n}`;
      return `Choose any of ${n}`;
    }
    default:
      return "";
  }
}

// ----- formats (core: is_email, is_uri, is_date, is_date_time) -----

const SPACE_OR_CONTROL = /[\s\p{Cc}]/u;

export function isEmail(s: string): boolean {
  const at = s.lastIndexOf("@");
  if (at < 0) return false;
  const local = s.slice(0, at);
  const domain = s.slice(at + 1);
  const ok = (p: string): boolean => p.length > 0 && !SPACE_OR_CONTROL.test(p);
  return (
    ok(local) &&
    ok(domain) &&
    !local.includes("@") &&
    !domain.startsWith(".") &&
    !domain.endsWith(".") &&
    !domain.includes("..") &&
    (domain.includes(".") || domain.startsWith("["))
  );
}

export function isUri(s: string): boolean {
  if (s === "" || SPACE_OR_CONTROL.test(s)) return false;
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
}

export function isDate(s: string): boolean {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(s);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  return days !== undefined && d >= 1 && d <= days;
}

/** RFC 3339 `date-time`: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`. */
export function isDateTime(s: string): boolean {
  const m = /^([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|[+-]([0-9]{2}):([0-9]{2}))$/.exec(s);
  if (!m || !isDate(m[1] ?? "")) return false;
  if (Number(m[2]) > 23 || Number(m[3]) > 59 || Number(m[4]) > 60) return false;
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return false;
  return true;
}

function accepts(format: StringFormat, s: string): boolean {
  switch (format) {
    case "email":
      return isEmail(s);
    case "uri":
      return isUri(s);
    case "date":
      return isDate(s);
    case "date-time":
      return isDateTime(s);
  }
}

// ----- date-time and the `datetime-local` input -----

const pad = (n: number): string => String(n).padStart(2, "0");

/** A `datetime-local` value ("2025-03-01T14:30" or with seconds) as RFC 3339 with this computer's offset. */
export function localToRfc3339(local: string): string | null {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(\.[0-9]+)?)?$/.exec(local);
  if (!m) return null;
  const [, y, mo, d, h, mi, s = "00", frac = ""] = m;
  const when = new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(when.getTime())) return null;
  const offset = -when.getTimezoneOffset();
  const sign = offset >= 0 ? "+" : "-";
  const abs = Math.abs(offset);
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${frac}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** An RFC 3339 date-time as a `datetime-local` value in this computer's time zone ("" if it cannot be shown). */
export function rfc3339ToLocal(value: string): string {
  const when = new Date(value);
  if (!isDateTime(value) || Number.isNaN(when.getTime())) return "";
  return (
    `${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())}` +
    `T${pad(when.getHours())}:${pad(when.getMinutes())}:${pad(when.getSeconds())}`
  );
}

// ----- values -----

/** The form as first shown: the server's defaults, everything else empty. */
export function initialValues(schema: FormSchema): FormValues {
  const values: FormValues = {};
  for (const f of schema.fields) {
    const d = f.default;
    const k = f.kind;
    switch (k.type) {
      case "string":
        values[f.name] = typeof d === "string" ? (k.format === "date-time" ? rfc3339ToLocal(d) : d) : "";
        break;
      case "number":
        values[f.name] = typeof d === "number" ? String(d) : "";
        break;
      case "boolean":
        values[f.name] = typeof d === "boolean" ? String(d) : f.required ? "false" : "";
        break;
      case "single_select": {
        const i = k.options.findIndex((o) => o.value === d);
        values[f.name] = i < 0 ? "" : String(i);
        break;
      }
      case "multi_select":
        values[f.name] = Array.isArray(d) ? d.filter((v): v is string => typeof v === "string") : [];
        break;
    }
  }
  return values;
}

/** One field's value to send (`undefined`: not given), or the core's message for what is wrong. */
export type Checked = { value: JsonValue | undefined; error: null } | { value: undefined; error: string };

const given = (value: JsonValue | undefined): Checked => ({ value, error: null });
const wrong = (error: string): Checked => ({ value: undefined, error });
const REQUIRED = "is required: give a value";
const NUMBER = /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/;

/** Check one field as the core does (`FormField::check`); messages leave out the field's name. */
export function checkField(f: FormField, raw: FormValue | undefined): Checked {
  const k = f.kind;
  if (k.type === "multi_select") {
    const chosen = Array.isArray(raw) ? raw : [];
    if (chosen.length === 0 && !f.required) return given(undefined);
    const n = chosen.length;
    if (k.min_items !== null && n < k.min_items) return wrong(`needs at least ${plural(k.min_items, "choice")} (got ${n})`);
    if (k.max_items !== null && n > k.max_items) return wrong(`allows at most ${k.max_items} choices (got ${n})`);
    return given(chosen);
  }
  const text = typeof raw === "string" ? raw : "";
  const missing = (): Checked => (f.required ? wrong(REQUIRED) : given(undefined));
  switch (k.type) {
    case "string": {
      if (text === "") return missing();
      let s = text;
      if (k.format === "date-time" && !isDateTime(s)) s = localToRfc3339(s) ?? s;
      const n = Array.from(s).length;
      if (n > MAX_VALUE_CHARS) return wrong(`is too long: Airlock sends at most ${MAX_VALUE_CHARS} characters (got ${n})`);
      if (k.min_length !== null && n < k.min_length)
        return wrong(`must be at least ${plural(k.min_length, "character")} long (got ${n})`);
      if (k.max_length !== null && n > k.max_length) return wrong(`must be at most ${k.max_length} characters long (got ${n})`);
      if (k.format !== null && !accepts(k.format, s)) return wrong(`must be ${formatHint(k.format)}`);
      return given(s);
    }
    case "number": {
      const t = text.trim();
      if (t === "") return missing();
      const n = Number(t);
      if (!NUMBER.test(t) || !Number.isFinite(n)) return wrong(k.integer ? "must be a whole number" : "must be a number");
      if (k.integer && !Number.isInteger(n)) return wrong("must be a whole number (no decimals)");
      const lo = k.minimum;
      const hi = k.maximum;
      if ((lo !== null && n < lo) || (hi !== null && n > hi)) {
        if (lo !== null && hi !== null) return wrong(`must be from ${fmtNum(lo)} to ${fmtNum(hi)}`);
        if (lo !== null) return wrong(`must be at least ${fmtNum(lo)}`);
        return wrong(`must be at most ${fmtNum(hi ?? 0)}`);
      }
      return given(n);
    }
    case "boolean":
      if (text === "") return missing();
      return given(text === "true");
    case "single_select": {
      if (text === "") return missing();
      const option = k.options[Number(text)];
      return option ? given(option.value) : wrong("must be one of the listed options");
    }
  }
}

export interface Built {
  /** The answers to send: only fields that were given. */
  content: Content;
  /** Per property name: the core's message, without the field's name. */
  errors: Record<string, string>;
}

/** The answer to send, and what is wrong with each field. */
export function buildContent(schema: FormSchema, values: FormValues): Built {
  const content: Content = {};
  const errors: Record<string, string> = {};
  for (const f of schema.fields) {
    const c = checkField(f, values[f.name]);
    if (c.error !== null) errors[f.name] = c.error;
    else if (c.value !== undefined) content[f.name] = c.value;
  }
  return { content, errors };
}

/** A message about a field as one sentence: "Age must be at least 0". */
export function sentence(f: FormField | undefined, name: string, message: string): string {
  return `${f ? fieldLabel(f) : plain(name)} ${message}`;
}
