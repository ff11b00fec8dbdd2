// A form from a tool's JSON Schema (`inputSchema`): the simple property types
// get their own control; anything else is edited as JSON.
import type { JsonValue } from "./api";

export type FieldKind = "string" | "number" | "integer" | "boolean" | "enum" | "json";

export interface Field {
  name: string;
  kind: FieldKind;
  required: boolean;
  title: string | null;
  description: string | null;
  enumValues: JsonValue[];
  defaultValue: JsonValue | undefined;
  minimum: number | null;
  maximum: number | null;
  /** A JSON Schema type the form cannot edit directly (shown in the hint). */
  typeLabel: string;
}

/** Form values are strings: text, a number as typed, "true"/"false"/"", an enum index, JSON. */
export type Values = Record<string, string>;

type Obj = { [key: string]: JsonValue };

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: JsonValue | undefined): string | null {
  return typeof v === "string" ? v : null;
}

function num(v: JsonValue | undefined): number | null {
  return typeof v === "number" ? v : null;
}

function kindOf(prop: Obj): { kind: FieldKind; label: string } {
  if (Array.isArray(prop.enum) && prop.enum.length > 0) return { kind: "enum", label: "enum" };
  let type = prop.type;
  if (Array.isArray(type)) {
    const nonNull = type.filter((t) => t !== "null");
    type = nonNull.length === 1 ? (nonNull[0] ?? null) : null;
  }
  switch (type) {
    case "string":
    case "number":
    case "integer":
    case "boolean":
      return { kind: type, label: type };
    case "object":
    case "array":
      return { kind: "json", label: type };
    default:
      return { kind: "json", label: "any" };
  }
}

/** The fields of an object schema, in declaration order. */
export function fieldsOf(schema: JsonValue | undefined): Field[] {
  if (!isObj(schema) || !isObj(schema.properties)) return [];
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : [],
  );
  return Object.entries(schema.properties).map(([name, raw]) => {
    const prop = isObj(raw) ? raw : {};
    const { kind, label } = kindOf(prop);
    return {
      name,
      kind,
      required: required.has(name),
      title: str(prop.title),
      description: str(prop.description),
      enumValues: Array.isArray(prop.enum) ? prop.enum : [],
      defaultValue: prop.default,
      minimum: num(prop.minimum),
      maximum: num(prop.maximum),
      typeLabel: label,
    };
  });
}

/** Does the schema have only properties the form can edit with its own controls? */
export function formFriendly(fields: Field[]): boolean {
  return fields.every((f) => f.kind !== "json");
}

/** Initial values: the schema's defaults. */
export function initialValues(fields: Field[]): Values {
  const values: Values = {};
  for (const f of fields) values[f.name] = toFormValue(f, f.defaultValue);
  return values;
}

function toFormValue(f: Field, v: JsonValue | undefined): string {
  if (v === undefined) return f.kind === "boolean" && f.required ? "false" : "";
  switch (f.kind) {
    case "enum": {
      const i = f.enumValues.findIndex((e) => JSON.stringify(e) === JSON.stringify(v));
      return i < 0 ? "" : String(i);
    }
    case "boolean":
      return v === true ? "true" : v === false ? "false" : "";
    case "json":
      return JSON.stringify(v, null, 2);
    default:
      return typeof v === "string" ? v : JSON.stringify(v);
  }
}

/** Values from an arguments object (switching from raw JSON back to the form). */
export function valuesFrom(fields: Field[], args: Obj): Values {
  const values: Values = {};
  for (const f of fields) values[f.name] = toFormValue(f, args[f.name]);
  return values;
}

export interface Built {
  args: Obj;
  errors: Record<string, string>;
}

/** The arguments object, and a message for each field that is not valid. */
export function buildArgs(fields: Field[], values: Values): Built {
  const args: Obj = {};
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const raw = values[f.name] ?? "";
    if (raw.trim() === "" && f.kind !== "string") {
      if (f.required) errors[f.name] = "Required.";
      continue;
    }
    if (raw === "" && f.kind === "string") {
      if (f.required) errors[f.name] = "Required.";
      continue;
    }
    switch (f.kind) {
      case "string":
        args[f.name] = raw;
        break;
      case "number":
      case "integer": {
        const n = Number(raw.trim());
        if (!Number.isFinite(n)) {
          errors[f.name] = "Enter a number.";
        } else if (f.kind === "integer" && !Number.isInteger(n)) {
          errors[f.name] = "Enter a whole number.";
        } else if (f.minimum !== null && n < f.minimum) {
          errors[f.name] = `At least ${f.minimum}.`;
        } else if (f.maximum !== null && n > f.maximum) {
          errors[f.name] = `At most ${f.maximum}.`;
        } else {
          args[f.name] = n;
        }
        break;
      }
      case "boolean":
        args[f.name] = raw === "true";
        break;
      case "enum": {
        const v = f.enumValues[Number(raw)];
        if (v === undefined) errors[f.name] = "Choose a value.";
        else args[f.name] = v;
        break;
      }
      case "json":
        try {
          args[f.name] = JSON.parse(raw) as JsonValue;
        } catch {
          errors[f.name] = "Not valid JSON.";
        }
        break;
    }
  }
  return { args, errors };
}

/** Parse a raw JSON arguments text: an object, or an error sentence. */
export function parseArgs(text: string): { args: Obj } | { error: string } {
  if (text.trim() === "") return { args: {} };
  try {
    const v = JSON.parse(text) as JsonValue;
    if (!isObj(v)) return { error: "Arguments must be a JSON object, like {\"name\": \"value\"}." };
    return { args: v };
  } catch (e) {
    return { error: `Not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
}

export function enumLabel(v: JsonValue): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}
