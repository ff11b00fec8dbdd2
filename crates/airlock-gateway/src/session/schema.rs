//! Arguments checked against a tool's input schema (a JSON Schema subset)
//! before a call through `airlock__call_tool` reaches its server, so that
//! an app's mistake comes back at once as a tool error its model can read
//! and fix, each violation in a sentence.
//!
//! Checked: `type` (one or a list; `integer` is a number without a
//! fraction), `enum`, `const`, `required`, `properties`,
//! `additionalProperties` (`false` or a schema), `items`, `minItems` /
//! `maxItems`, `minLength` / `maxLength` (characters), `minimum` /
//! `maximum` / `exclusiveMinimum` / `exclusiveMaximum`. Anything else
//! (`$ref`, `anyOf`, `pattern`, formats, ...) is left to the server, which
//! checks its own arguments anyway. A schema keyword of the wrong shape is
//! ignored (the server's schema, not the app, is wrong).
//!
//! Bounded: [`MAX_DEPTH`] levels are walked (deeper arguments are refused),
//! [`MAX_ERRORS`] violations are said (then how many more), and names and
//! values in sentences are cut to [`MAX_SHOWN_CHARS`], hidden characters
//! shown.

use serde_json::{Map, Value};

/// Deepest nesting of arguments checked; deeper is refused.
pub const MAX_DEPTH: usize = 32;
/// Violations said in one error (then how many more).
pub const MAX_ERRORS: usize = 8;
/// Longest name or value quoted in a sentence, in characters.
pub const MAX_SHOWN_CHARS: usize = 64;
/// Most allowed values or parameter names listed in a sentence.
const MAX_LISTED: usize = 12;

/// `value` fits `schema`, or the sentences that say why not.
pub fn check(schema: &Map<String, Value>, value: &Value) -> Result<(), Vec<String>> {
    let mut walk = Walk::default();
    walk.value(schema, value, &mut String::new(), 0);
    if walk.errors.is_empty() {
        return Ok(());
    }
    let mut errors = walk.errors;
    if walk.more > 0 {
        errors.push(format!("and {} more", walk.more));
    }
    Err(errors)
}

/// A number keyword: its name, whether a value passes it, and the words
/// of its sentence.
type Bound = (&'static str, fn(f64, f64) -> bool, &'static str);

#[derive(Default)]
struct Walk {
    errors: Vec<String>,
    more: usize,
}

/// A name or value as a sentence shows it: cut, hidden characters shown.
fn shown(text: &str) -> String {
    let cut: String = text.chars().take(MAX_SHOWN_CHARS).collect();
    let more = if text.chars().count() > MAX_SHOWN_CHARS {
        "…"
    } else {
        ""
    };
    format!("{}{more}", airlock_scan::visible(&cut))
}

fn shown_value(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{}\"", shown(s)),
        other => shown(&other.to_string()),
    }
}

fn where_(path: &str) -> String {
    if path.is_empty() {
        "the arguments".to_owned()
    } else {
        format!("`{path}`")
    }
}

fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn is_type(v: &Value, ty: &str) -> bool {
    match ty {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => match v {
            Value::Number(n) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        },
        // A type we do not know: the server's to check.
        _ => true,
    }
}

fn article(ty: &str) -> String {
    match ty {
        "null" => "null".to_owned(),
        "integer" | "object" | "array" => format!("an {ty}"),
        other => format!("a {}", shown(other)),
    }
}

fn listed(items: impl Iterator<Item = String>) -> String {
    let all: Vec<String> = items.collect();
    let mut out: Vec<String> = all.iter().take(MAX_LISTED).cloned().collect();
    if all.len() > MAX_LISTED {
        out.push(format!("… ({} in all)", all.len()));
    }
    out.join(", ")
}

impl Walk {
    fn say(&mut self, sentence: String) {
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(sentence);
        } else {
            self.more += 1;
        }
    }

    fn value(&mut self, schema: &Map<String, Value>, v: &Value, path: &mut String, depth: usize) {
        if depth > MAX_DEPTH {
            self.say(format!(
                "{} nest deeper than {MAX_DEPTH} levels",
                where_(path)
            ));
            return;
        }
        if let Some(t) = schema.get("type") {
            let types: Vec<&str> = match t {
                Value::String(s) => vec![s.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            if !types.is_empty() && !types.iter().any(|ty| is_type(v, ty)) {
                let want = types
                    .iter()
                    .map(|t| article(t))
                    .collect::<Vec<_>>()
                    .join(" or ");
                self.say(format!(
                    "{} must be {want}, not {}",
                    where_(path),
                    type_of(v)
                ));
                return;
            }
        }
        if let Some(Value::Array(allowed)) = schema.get("enum") {
            if !allowed.contains(v) {
                self.say(format!(
                    "{} must be one of {} (got {})",
                    where_(path),
                    listed(allowed.iter().map(shown_value)),
                    shown_value(v)
                ));
            }
        }
        if let Some(c) = schema.get("const") {
            if c != v {
                self.say(format!(
                    "{} must be {} (got {})",
                    where_(path),
                    shown_value(c),
                    shown_value(v)
                ));
            }
        }
        match v {
            Value::String(s) => self.string(schema, s, path),
            Value::Number(n) => self.number(schema, n, path),
            Value::Array(items) => self.array(schema, items, path, depth),
            Value::Object(map) => self.object(schema, map, path, depth),
            _ => {}
        }
    }

    fn string(&mut self, schema: &Map<String, Value>, s: &str, path: &str) {
        let n = s.chars().count() as u64;
        if let Some(min) = schema.get("minLength").and_then(Value::as_u64) {
            if n < min {
                self.say(format!(
                    "{} must be at least {min} characters long (got {n})",
                    where_(path)
                ));
            }
        }
        if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
            if n > max {
                self.say(format!(
                    "{} must be at most {max} characters long (got {n})",
                    where_(path)
                ));
            }
        }
    }

    fn number(&mut self, schema: &Map<String, Value>, n: &serde_json::Number, path: &str) {
        let Some(x) = n.as_f64() else { return };
        let bound = |k: &str| schema.get(k).and_then(Value::as_f64);
        let checks: [Bound; 4] = [
            ("minimum", |x, b| x >= b, "at least"),
            ("maximum", |x, b| x <= b, "at most"),
            ("exclusiveMinimum", |x, b| x > b, "greater than"),
            ("exclusiveMaximum", |x, b| x < b, "less than"),
        ];
        for (key, ok, words) in checks {
            if let Some(b) = bound(key) {
                if !ok(x, b) {
                    self.say(format!("{} must be {words} {b} (got {n})", where_(path)));
                }
            }
        }
    }

    fn array(
        &mut self,
        schema: &Map<String, Value>,
        items: &[Value],
        path: &mut String,
        depth: usize,
    ) {
        let n = items.len() as u64;
        if let Some(min) = schema.get("minItems").and_then(Value::as_u64) {
            if n < min {
                self.say(format!(
                    "{} must have at least {min} items (got {n})",
                    where_(path)
                ));
            }
        }
        if let Some(max) = schema.get("maxItems").and_then(Value::as_u64) {
            if n > max {
                self.say(format!(
                    "{} must have at most {max} items (got {n})",
                    where_(path)
                ));
            }
        }
        if let Some(Value::Object(item)) = schema.get("items") {
            for (i, v) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                self.value(item, v, path, depth + 1);
                path.truncate(len);
            }
        }
    }

    fn object(
        &mut self,
        schema: &Map<String, Value>,
        map: &Map<String, Value>,
        path: &mut String,
        depth: usize,
    ) {
        let props = schema.get("properties").and_then(Value::as_object);
        if let Some(Value::Array(required)) = schema.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !map.contains_key(name) {
                    let at = if path.is_empty() {
                        format!("`{}`", shown(name))
                    } else {
                        format!("`{path}.{}`", shown(name))
                    };
                    self.say(format!("{at} is required"));
                }
            }
        }
        let extra = schema.get("additionalProperties");
        for (name, v) in map {
            let len = path.len();
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(&shown(name));
            match props.and_then(|p| p.get(name)) {
                Some(Value::Object(sub)) => self.value(sub, v, path, depth + 1),
                Some(Value::Bool(false)) => {
                    self.say(format!("{} is not allowed", where_(path)));
                }
                Some(_) => {}
                None => match extra {
                    Some(Value::Bool(false)) => {
                        let takes = props.map_or_else(
                            || "none".to_owned(),
                            |p| listed(p.keys().map(|k| format!("`{}`", shown(k)))),
                        );
                        self.say(format!(
                            "{} is not a parameter of this tool (it takes: {takes})",
                            where_(path)
                        ));
                    }
                    Some(Value::Object(sub)) => self.value(sub, v, path, depth + 1),
                    _ => {}
                },
            }
            path.truncate(len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    fn errors(s: &Value, v: Value) -> Vec<String> {
        check(&schema(s.clone()), &v).err().unwrap_or_default()
    }

    #[test]
    fn each_keyword_of_the_subset_says_what_is_wrong() {
        let s = json!({
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 3, "maxLength": 10},
                "count": {"type": "integer", "minimum": 1, "maximum": 5},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                "color": {"enum": ["red", "green"]},
                "kind": {"const": "issue"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
                "owner": {
                    "type": "object",
                    "properties": {"login": {"type": "string"}},
                    "required": ["login"],
                    "additionalProperties": false
                },
                "note": {"type": ["string", "null"]}
            },
            "required": ["title"],
            "additionalProperties": false
        });
        assert!(check(&schema(s.clone()), &json!({"title": "abc", "count": 5, "ratio": 0.5, "color": "red", "kind": "issue", "tags": ["a"], "owner": {"login": "x"}, "note": null})).is_ok());
        assert_eq!(errors(&s, json!({})), ["`title` is required"]);
        assert_eq!(
            errors(&s, json!({"title": 7})),
            ["`title` must be a string, not an integer"]
        );
        assert_eq!(
            errors(&s, json!({"title": "ab"})),
            ["`title` must be at least 3 characters long (got 2)"]
        );
        assert_eq!(
            errors(&s, json!({"title": "ééééééééééé"})),
            ["`title` must be at most 10 characters long (got 11)"]
        );
        assert_eq!(
            errors(&s, json!({"title": "abc", "count": 2.5})),
            ["`count` must be an integer, not a number"]
        );
        assert_eq!(
            errors(&s, json!({"title": "abc", "count": 0})),
            ["`count` must be at least 1 (got 0)"]
        );
        assert_eq!(
            errors(&s, json!({"title": "abc", "count": 6})),
            ["`count` must be at most 5 (got 6)"]
        );
        assert_eq!(
            errors(&s, json!({"title": "abc", "ratio": 1})),
            ["`ratio` must be less than 1 (got 1)"]
        );
        assert_eq!(
            errors(&s, json!({"title": "abc", "color": "blue"})),
            ["`color` must be one of \"red\", \"green\" (got \"blue\")"]
        );
        assert_eq!(
            errors(&s, json!({"title": "abc", "kind": "pr"})),
            ["`kind` must be \"issue\" (got \"pr\")"]
        );
        assert_eq!(
            errors(&s, json!({"title": "abc", "tags": []})),
            ["`tags` must have at least 1 items (got 0)"]
        );
        assert_eq!(
            errors(&s, json!({"title": "abc", "tags": ["a", 2, "c"]})),
            [
                "`tags` must have at most 2 items (got 3)",
                "`tags[1]` must be a string, not an integer"
            ]
        );
        assert_eq!(
            errors(&s, json!({"title": "abc", "owner": {"id": 1}})),
            [
                "`owner.login` is required",
                "`owner.id` is not a parameter of this tool (it takes: `login`)"
            ]
        );
        assert_eq!(
            errors(&s, json!({"title": "abc", "extra": 1})),
            ["`extra` is not a parameter of this tool (it takes: `color`, `count`, `kind`, `note`, `owner`, `ratio`, `tags`, `title`)"]
        );
        assert_eq!(
            errors(&s, json!({"title": "abc", "note": 3})),
            ["`note` must be a string or null, not an integer"]
        );
        assert_eq!(
            errors(&s, json!([1])),
            ["the arguments must be an object, not an array"]
        );
        // A whole number written with a fraction is an integer.
        assert!(check(&schema(s), &json!({"title": "abc", "count": 3.0})).is_ok());
    }

    #[test]
    fn what_the_subset_does_not_know_is_left_to_the_server() {
        let s = json!({
            "type": "object",
            "properties": {
                "a": {"$ref": "#/defs/x"},
                "b": {"anyOf": [{"type": "string"}]},
                "c": {"type": "string", "pattern": "^x$", "format": "email"},
                "d": {"type": "widget"},
                "e": {"minimum": "five"}
            }
        });
        assert!(check(
            &schema(s),
            &json!({"a": 1, "b": 2, "c": "y", "d": 4, "e": 0})
        )
        .is_ok());
        // No type, no properties: anything goes.
        assert!(check(&Map::new(), &json!({"x": [1, {"y": null}]})).is_ok());
    }

    #[test]
    fn errors_depth_and_quoted_text_are_bounded() {
        let s = json!({"type": "object", "additionalProperties": {"type": "string"}});
        let many: Map<String, Value> = (0..MAX_ERRORS + 5)
            .map(|i| (format!("k{i:02}"), json!(i)))
            .collect();
        let e = errors(&s, Value::Object(many));
        assert_eq!(e.len(), MAX_ERRORS + 1);
        assert_eq!(e[MAX_ERRORS], "and 5 more");
        // Nesting: exactly MAX_DEPTH levels are checked, one more is refused.
        let nested = |levels: usize| {
            let mut v = json!("leaf");
            for _ in 0..levels {
                v = json!({ "n": v });
            }
            v
        };
        let deep = json!({"type": "object", "additionalProperties": {"$ref": "x"}});
        // A schema whose every level is an object of objects.
        let mut sch = json!({"type": "string"});
        for _ in 0..=MAX_DEPTH + 1 {
            sch = json!({"type": "object", "properties": {"n": sch}});
        }
        assert!(check(&schema(sch.clone()), &nested(MAX_DEPTH))
            .is_err_and(|e| !e[0].contains("deeper")));
        assert!(check(&schema(sch), &nested(MAX_DEPTH + 1)).is_err_and(|e| e
            .iter()
            .any(|s| s.contains(&format!("deeper than {MAX_DEPTH}")))));
        assert!(check(&schema(deep), &nested(3)).is_ok());
        // A hostile name is cut and its hidden characters shown.
        let long = format!("{}\u{202e}", "n".repeat(MAX_SHOWN_CHARS + 10));
        let strict = json!({"type": "object", "properties": {}, "additionalProperties": false});
        let e = errors(&strict, json!({ long: 1 }));
        assert!(!e[0].contains('\u{202e}'), "{e:?}");
        assert!(e[0].contains('…'), "{e:?}");
    }
}
