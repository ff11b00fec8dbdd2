//! Walking definitions: every text an app would read in a tool, prompt or
//! resource (names, titles, descriptions, and every string and key of the
//! schemas, annotations and the rest), each scanned in its role, with a
//! bound on depth and count; and [`clean_json`], which cleans them all.

use serde_json::Value;

use crate::chars::{clean_counted, needs_cleaning};
use crate::excerpt::visible_line;
use crate::scan::{scan, scan_into, with_scratch, Pending, Role, Scratch};
use crate::{Context, Finding, FindingKind, Severity};

/// Deepest nesting of a definition that is walked; deeper parts are not
/// inspected (reported as a Serious [`FindingKind::ExtremeLength`]).
pub const MAX_WALK_DEPTH: usize = 64;
/// Most texts (strings and object keys) walked in one definition; the rest
/// is not inspected (reported as a Serious [`FindingKind::ExtremeLength`]).
pub const MAX_WALK_TEXTS: usize = 10_000;
/// Most findings returned for one definition (the worst first).
pub const MAX_FINDINGS: usize = 100;
/// Longest [`Finding::field`], in characters.
pub const MAX_FIELD_CHARS: usize = 256;
/// Longest server-chosen name in a field path, in characters.
const MAX_FIELD_SEGMENT_CHARS: usize = 64;

/// Where in a definition a value sits, which decides how its strings are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Zone {
    Tool,
    Prompt,
    PromptArgument,
    Resource,
    Annotations,
    Schema,
    Other,
}

impl Zone {
    /// The role of a string under `key` here, and the zone of a container.
    fn role(self, key: Option<&str>) -> Role {
        match (self, key) {
            (Zone::Tool | Zone::Prompt | Zone::Resource | Zone::PromptArgument, Some("name")) => {
                Role::Name
            }
            (Zone::Tool | Zone::Prompt | Zone::Resource, Some("title" | "description")) => {
                Role::Description
            }
            (Zone::PromptArgument, Some("title" | "description")) => Role::SchemaText,
            (Zone::Resource, Some("uri" | "uriTemplate" | "mimeType")) => Role::Uri,
            (Zone::Annotations, Some("title")) => Role::Description,
            (Zone::Schema, Some("description" | "title" | "markdownDescription" | "$comment")) => {
                Role::SchemaText
            }
            (Zone::Schema, _) => Role::SchemaValue,
            _ => Role::Other,
        }
    }

    fn child(self, key: Option<&str>) -> Zone {
        match (self, key) {
            (Zone::Tool, Some("inputSchema" | "outputSchema")) => Zone::Schema,
            (Zone::Tool | Zone::Prompt | Zone::Resource, Some("annotations")) => Zone::Annotations,
            (Zone::Prompt, Some("arguments")) => Zone::PromptArgument,
            (Zone::PromptArgument, None) => Zone::PromptArgument,
            (Zone::Schema, _) => Zone::Schema,
            _ => Zone::Other,
        }
    }
}

#[derive(Clone, Copy)]
enum Seg<'v> {
    Key(&'v str),
    Index(usize),
}

struct Walker<'c, 'v, 's> {
    ctx: &'c Context<'c>,
    path: Vec<Seg<'v>>,
    texts: usize,
    cut: bool,
    out: Vec<Finding>,
    scratch: &'s mut Scratch,
    pending: Vec<Pending>,
}

impl<'c, 'v, 's> Walker<'c, 'v, 's> {
    fn new(ctx: &'c Context<'c>, scratch: &'s mut Scratch) -> Self {
        Walker {
            ctx,
            path: Vec::new(),
            texts: 0,
            cut: false,
            out: Vec::new(),
            scratch,
            pending: Vec::new(),
        }
    }

    fn field(&self) -> String {
        let mut f = String::new();
        for seg in &self.path {
            match seg {
                Seg::Key(k) => {
                    if !f.is_empty() {
                        f.push('.');
                    }
                    f.push_str(&crate::reading::bounded(
                        &visible_line(k),
                        MAX_FIELD_SEGMENT_CHARS,
                    ));
                }
                Seg::Index(i) => f.push_str(&format!("[{i}]")),
            }
        }
        bound_field(&f)
    }

    /// Counts one text; false once the walk has to stop.
    fn count(&mut self) -> bool {
        if self.cut {
            return false;
        }
        self.texts += 1;
        if self.texts > MAX_WALK_TEXTS {
            self.stop(format!(
                "The definition has more than {MAX_WALK_TEXTS} texts (MAX_WALK_TEXTS); the \
                 rest was not inspected and could hide anything."
            ));
            return false;
        }
        true
    }

    fn stop(&mut self, detail: String) {
        self.cut = true;
        self.out.push(Finding {
            kind: FindingKind::ExtremeLength,
            severity: Severity::Serious,
            field: self.field(),
            excerpt: String::new(),
            detail,
        });
    }

    fn text(&mut self, text: &str, role: Role) {
        if !self.count() {
            return;
        }
        scan_into(text, role, self.ctx, self.scratch, &mut self.pending);
        if !self.pending.is_empty() {
            let field = self.field();
            let pending = std::mem::take(&mut self.pending);
            self.out
                .extend(pending.into_iter().map(|p| p.with_field(field.clone())));
        }
    }

    fn value(&mut self, v: &'v Value, zone: Zone, key: Option<&'v str>, depth: usize) {
        if self.cut {
            return;
        }
        if depth > MAX_WALK_DEPTH {
            self.stop(format!(
                "The definition is nested deeper than {MAX_WALK_DEPTH} levels (MAX_WALK_DEPTH); \
                 the deeper parts were not inspected and could hide anything."
            ));
            return;
        }
        match v {
            // "type": "string" and the like: nothing to read.
            Value::String(s) if key == Some("type") && is_keyword(s) => {}
            Value::String(s) => self.text(s, zone.role(key)),
            Value::Array(items) => {
                let zone = zone.child(None);
                for (i, item) in items.iter().enumerate() {
                    self.path.push(Seg::Index(i));
                    self.value(item, zone, key, depth + 1);
                    self.path.pop();
                    if self.cut {
                        return;
                    }
                }
            }
            Value::Object(map) => {
                for (k, item) in map {
                    self.path.push(Seg::Key(k));
                    if !is_keyword(k) {
                        self.text(k, Role::Name);
                    }
                    match item {
                        Value::String(_) => self.value(item, zone, Some(k), depth + 1),
                        _ => self.value(item, zone.child(Some(k)), Some(k), depth + 1),
                    }
                    self.path.pop();
                    if self.cut {
                        return;
                    }
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    fn finish(mut self) -> Vec<Finding> {
        // Worst first; the walk's order within a severity.
        self.out.sort_by_key(|f| std::cmp::Reverse(f.severity));
        self.out.truncate(crate::MAX_FINDINGS);
        self.out
    }
}

/// Member names of MCP definitions and JSON Schema, and JSON Schema type
/// names: plain ASCII words with nothing to find in them, skipped for speed.
fn is_keyword(k: &str) -> bool {
    matches!(
        k,
        "name"
            | "title"
            | "description"
            | "inputSchema"
            | "outputSchema"
            | "annotations"
            | "type"
            | "properties"
            | "required"
            | "items"
            | "enum"
            | "const"
            | "default"
            | "examples"
            | "additionalProperties"
            | "$schema"
            | "format"
            | "minimum"
            | "maximum"
            | "minLength"
            | "maxLength"
            | "minItems"
            | "maxItems"
            | "pattern"
            | "anyOf"
            | "oneOf"
            | "allOf"
            | "not"
            | "$ref"
            | "$defs"
            | "definitions"
            | "exclusiveMinimum"
            | "exclusiveMaximum"
            | "multipleOf"
            | "uniqueItems"
            | "readOnlyHint"
            | "destructiveHint"
            | "idempotentHint"
            | "openWorldHint"
            | "arguments"
            | "uri"
            | "uriTemplate"
            | "mimeType"
            | "size"
            | "icons"
            | "src"
            | "sizes"
            | "_meta"
            | "execution"
            | "taskSupport"
            | "string"
            | "number"
            | "integer"
            | "boolean"
            | "object"
            | "array"
            | "null"
            | "nullable"
            | "$id"
            | "propertyNames"
            | "patternProperties"
            | "prefixItems"
            | "contains"
            | "if"
            | "then"
            | "else"
            | "dependentRequired"
            | "dependentSchemas"
            | "deprecated"
            | "readOnly"
            | "writeOnly"
            | "contentMediaType"
            | "contentEncoding"
    )
}

/// At most [`MAX_FIELD_CHARS`]: the start and the end, "…" between.
fn bound_field(f: &str) -> String {
    let n = f.chars().count();
    if n <= MAX_FIELD_CHARS {
        return f.to_owned();
    }
    let head = MAX_FIELD_CHARS / 4;
    let tail = MAX_FIELD_CHARS - head - 1;
    let start: String = f.chars().take(head).collect();
    let end: String = f.chars().skip(n - tail).collect();
    format!("{start}…{end}")
}

fn walk(definition: &Value, zone: Zone, ctx: &Context<'_>) -> Vec<Finding> {
    with_scratch(|scratch| {
        let mut w = Walker::new(ctx, scratch);
        match definition {
            Value::Object(_) => w.value(definition, zone, None, 0),
            // Not a definition at all: read whatever it is as text.
            other => w.value(other, Zone::Other, None, 0),
        }
        w.finish()
    })
}

/// Every text an app would read in a tool definition (an rmcp `Tool` as
/// JSON): name, title, description, annotations' title, and inside
/// `inputSchema` / `outputSchema` every description and title, property
/// name, enum / const string, default, example (every string and key,
/// recursively), up to [`MAX_WALK_DEPTH`] and [`MAX_WALK_TEXTS`]; other
/// members (`_meta`, `icons`) too, without a length bound. At most
/// [`MAX_FINDINGS`], the worst first.
pub fn scan_tool(tool: &Value, ctx: &Context<'_>) -> Vec<Finding> {
    walk(tool, Zone::Tool, ctx)
}

/// The same for a prompt: name, title, description, and each argument's
/// name, title and description (`arguments[0].description`).
pub fn scan_prompt(prompt: &Value, ctx: &Context<'_>) -> Vec<Finding> {
    walk(prompt, Zone::Prompt, ctx)
}

/// The same for a resource or resource template: name, title, description,
/// and `uri` / `uriTemplate` / `mimeType` (hidden characters and length only:
/// a URI naming a file is not an instruction).
pub fn scan_resource(resource: &Value, ctx: &Context<'_>) -> Vec<Finding> {
    walk(resource, Zone::Resource, ctx)
}

/// The same for a server's instructions (field `"instructions"`, bound
/// [`crate::MAX_INSTRUCTIONS_CHARS`]).
pub fn scan_instructions(text: &str, ctx: &Context<'_>) -> Vec<Finding> {
    let mut found: Vec<Finding> = scan(text, Role::Instructions, ctx)
        .into_iter()
        .map(|p| p.with_field("instructions".to_owned()))
        .collect();
    found.truncate(crate::MAX_FINDINGS);
    found
}

/// [`crate::clean`] applied to every string and object key in `value`, in
/// place; returns how many characters were removed or replaced. When two
/// keys of one object are the same once cleaned, the one that was already
/// clean is kept (else the first), and the other entry is dropped: its
/// characters are counted as removed. Walks without recursion, so any depth
/// is safe.
pub fn clean_json(value: &mut Value) -> usize {
    let mut changed = 0usize;
    let mut stack: Vec<&mut Value> = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => {
                if needs_cleaning(s) {
                    let (c, n) = clean_counted(s);
                    *s = c;
                    changed += n;
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => {
                if map.keys().any(|k| needs_cleaning(k)) {
                    let old = std::mem::take(map);
                    let mut dirty = Vec::new();
                    for (k, item) in old {
                        if needs_cleaning(&k) {
                            dirty.push((k, item));
                        } else {
                            map.insert(k, item);
                        }
                    }
                    for (k, item) in dirty {
                        let (c, n) = clean_counted(&k);
                        changed += n;
                        if map.contains_key(&c) {
                            changed += c.chars().count() + count_chars(&item);
                        } else {
                            map.insert(c, item);
                        }
                    }
                }
                stack.extend(map.values_mut());
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    changed
}

/// Characters in every string and key of a value (what a dropped entry held).
fn count_chars(value: &Value) -> usize {
    let mut n = 0usize;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => n += s.chars().count(),
            Value::Array(items) => stack.extend(items.iter()),
            Value::Object(map) => {
                for (k, item) in map {
                    n += k.chars().count();
                    stack.push(item);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    n
}
