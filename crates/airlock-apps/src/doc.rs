//! One app config file in memory: its servers read, changed and written
//! back, everything else kept as the user wrote it.
//!
//! - JSON and JSONC through `jsonc-parser`'s concrete syntax tree (comments,
//!   trailing commas, spacing and key order stay);
//! - TOML (Codex) through `toml_edit` (comments and layout stay);
//! - YAML (Goose's `extensions` mapping, Continue's `mcpServers` list)
//!   edited as text, item by item, then checked by parsing the result:
//!   comments and the other items stay byte for byte. A layout the text
//!   edit cannot handle (flow style, anchors) is written out whole instead,
//!   which drops its comments; the plan says so.
//!
//! A file is refused (never edited) when it is nested deeper than
//! [`MAX_NESTING_DEPTH`] or repeats a key: two readers could see two
//! different configs in it.

use std::collections::HashSet;

use jsonc_parser::cst::{CstInputValue, CstNode, CstObject, CstRootNode};
use jsonc_parser::ParseOptions;
use serde_json::Value;

use crate::apps::Format;

/// Deepest nesting of objects and arrays Airlock reads in an app config.
/// Real configs stay under ten; a deeper file is refused before any
/// recursive parse could exhaust the stack.
pub const MAX_NESTING_DEPTH: usize = 64;

/// Most servers Airlock reads in one app's config: far above any real
/// config, and low enough that the per-server work of a plan stays small
/// for a file stuffed with entries.
pub const MAX_SERVER_ENTRIES: usize = 1000;

/// Most edits made line by line in one YAML file (each rescans the file);
/// a change with more (moving a hundred servers) writes the file out whole.
const MAX_YAML_LINE_EDITS: usize = 64;

/// An entry as written: keys in the order given.
pub(crate) type Entry = Vec<(String, Value)>;

/// Why a file cannot be edited safely (the caller adds the path).
pub(crate) type Malformed = String;

pub(crate) enum Doc {
    Json {
        root: CstRootNode,
        key: &'static str,
    },
    Toml {
        doc: toml_edit::DocumentMut,
        key: &'static str,
    },
    Yaml(YamlDoc),
}

fn json_options(lenient: bool) -> ParseOptions {
    ParseOptions {
        allow_comments: lenient,
        allow_loose_object_property_names: false,
        allow_trailing_commas: lenient,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        ..ParseOptions::default()
    }
}

impl Doc {
    /// Parse `text` (None: the file does not exist yet).
    pub(crate) fn parse(format: Format, text: Option<&str>) -> Result<Doc, Malformed> {
        let doc = Doc::parse_any(format, text)?;
        let count = doc.count();
        if count > MAX_SERVER_ENTRIES {
            return Err(format!(
                "it lists {count} servers; Airlock edits configs with at most {MAX_SERVER_ENTRIES}"
            ));
        }
        Ok(doc)
    }

    /// How many servers it lists (without reading them).
    fn count(&self) -> usize {
        match self {
            Doc::Json { root, key } => servers_json(root, key)
                .map(|o| o.properties().len())
                .unwrap_or(0),
            Doc::Toml { doc, key } => doc
                .get(key)
                .and_then(toml_edit::Item::as_table_like)
                .map(|t| t.len())
                .unwrap_or(0),
            Doc::Yaml(y) => match y.value.get(y.key) {
                Some(serde_norway::Value::Mapping(m)) => m.len(),
                Some(serde_norway::Value::Sequence(items)) => items.len(),
                _ => 0,
            },
        }
    }

    fn parse_any(format: Format, text: Option<&str>) -> Result<Doc, Malformed> {
        match format {
            Format::Json { key, lenient } => parse_json(text.unwrap_or("{}\n"), key, lenient),
            Format::Toml { key } => parse_toml(text.unwrap_or(""), key),
            Format::YamlMap { key } => {
                YamlDoc::parse(text.unwrap_or(""), key, YamlShape::Map, "").map(Doc::Yaml)
            }
            Format::YamlList { key, new_file } => {
                YamlDoc::parse(text.unwrap_or(new_file), key, YamlShape::List, new_file)
                    .map(Doc::Yaml)
            }
        }
    }

    /// The servers, in file order.
    pub(crate) fn entries(&self) -> Vec<(String, Value)> {
        match self {
            Doc::Json { root, key } => servers_json(root, key)
                .map(|obj| {
                    obj.properties()
                        .into_iter()
                        .filter_map(|p| Some((p.decoded_name()?, p.value()?.to_serde_value()?)))
                        .collect()
                })
                .unwrap_or_default(),
            Doc::Toml { doc, key } => doc
                .get(key)
                .and_then(toml_edit::Item::as_table_like)
                .map(|t| {
                    t.iter()
                        .map(|(k, v)| (k.to_owned(), toml_item_to_json(v)))
                        .collect()
                })
                .unwrap_or_default(),
            Doc::Yaml(y) => y.entries(),
        }
    }

    /// One server, read alone (a plan asks for many by name).
    pub(crate) fn get(&self, name: &str) -> Option<Value> {
        match self {
            Doc::Json { root, key } => servers_json(root, key)?
                .get(name)?
                .value()?
                .to_serde_value(),
            Doc::Toml { doc, key } => doc
                .get(key)
                .and_then(toml_edit::Item::as_table_like)?
                .get(name)
                .map(toml_item_to_json),
            Doc::Yaml(y) => y.get(name),
        }
    }

    /// Insert the entry, or replace the one with that name in place.
    pub(crate) fn set(&mut self, name: &str, entry: &Entry) {
        match self {
            Doc::Json { root, key } => {
                let obj = root.object_value_or_set().object_value_or_set(key);
                let value = CstInputValue::Object(
                    entry.iter().map(|(k, v)| (k.clone(), to_cst(v))).collect(),
                );
                match obj.get(name) {
                    Some(prop) => prop.set_value(value),
                    None => {
                        obj.append(name, value);
                    }
                }
            }
            Doc::Toml { doc, key } => {
                let table = json_to_toml_table(entry);
                if let Some(servers) = toml_servers(doc, key) {
                    match servers.get_mut(name) {
                        Some(slot) => *slot = toml_edit::Item::Table(table),
                        None => {
                            servers.insert(name, toml_edit::Item::Table(table));
                        }
                    }
                }
            }
            Doc::Yaml(y) => y.set(name, entry),
        }
    }

    pub(crate) fn remove(&mut self, name: &str) {
        match self {
            Doc::Json { root, key } => {
                if let Some(prop) = servers_json(root, key).and_then(|obj| obj.get(name)) {
                    prop.remove();
                }
            }
            Doc::Toml { doc, key } => {
                if let Some(t) = doc
                    .get_mut(key)
                    .and_then(toml_edit::Item::as_table_like_mut)
                {
                    t.remove(name);
                }
            }
            Doc::Yaml(y) => y.remove(name),
        }
    }

    /// The text, and whether comments were lost on the way (a YAML layout
    /// the item-by-item edit could not follow).
    pub(crate) fn render(&self) -> (String, bool) {
        match self {
            Doc::Json { root, .. } => {
                let mut text = root.to_string();
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                (text, false)
            }
            Doc::Toml { doc, .. } => (doc.to_string(), false),
            Doc::Yaml(y) => y.render(),
        }
    }
}

// ---- JSON and JSONC ---------------------------------------------------------

/// How deep `text` nests objects and arrays, strings and comments skipped;
/// counting stops past `MAX_NESTING_DEPTH`.
fn json_depth(text: &str, lenient: bool) -> usize {
    let bytes = text.as_bytes();
    let (mut depth, mut max, mut i) = (0usize, 0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if lenient && bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if lenient && bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
                if max > MAX_NESTING_DEPTH {
                    return max;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    max
}

fn too_deep() -> Malformed {
    format!("it nests objects or lists deeper than {MAX_NESTING_DEPTH} levels")
}

fn parse_json(text: &str, key: &'static str, lenient: bool) -> Result<Doc, Malformed> {
    if json_depth(text, lenient) > MAX_NESTING_DEPTH {
        return Err(too_deep());
    }
    let root = CstRootNode::parse(text, &json_options(lenient)).map_err(|e| {
        let what = if lenient {
            "JSON with comments"
        } else {
            "JSON"
        };
        format!("it is not valid {what}: {e}")
    })?;
    let Some(obj) = root.object_value() else {
        return Err("its top level is not a JSON object".to_owned());
    };
    if let Some(dup) = root.value().as_ref().and_then(duplicate_json_key) {
        return Err(format!(
            "it has the key {dup:?} twice in one object, so apps may read it differently"
        ));
    }
    if let Some(prop) = obj.get(key) {
        if prop.object_value().is_none() {
            return Err(format!("its `{key}` is not an object"));
        }
    }
    Ok(Doc::Json { root, key })
}

/// A key that appears twice in one object, anywhere in the tree.
fn duplicate_json_key(node: &CstNode) -> Option<String> {
    if let Some(obj) = node.as_object() {
        let mut seen = HashSet::new();
        for prop in obj.properties() {
            let name = prop.decoded_name().unwrap_or_default();
            if !seen.insert(name.clone()) {
                return Some(name);
            }
            if let Some(dup) = prop.value().as_ref().and_then(duplicate_json_key) {
                return Some(dup);
            }
        }
    } else if let Some(arr) = node.as_array() {
        for item in arr.elements() {
            if let Some(dup) = duplicate_json_key(&item) {
                return Some(dup);
            }
        }
    }
    None
}

fn servers_json(root: &CstRootNode, key: &str) -> Option<CstObject> {
    root.object_value()?.object_value(key)
}

fn to_cst(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(to_cst).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), to_cst(v))).collect())
        }
    }
}

// ---- TOML -----------------------------------------------------------------------

fn parse_toml(text: &str, key: &'static str) -> Result<Doc, Malformed> {
    let doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| format!("it is not valid TOML: {e}"))?;
    if depth_of(&toml_item_to_json(doc.as_item())) > MAX_NESTING_DEPTH {
        return Err(too_deep());
    }
    match doc.get(key) {
        None => {}
        Some(item) if item.is_table_like() => {}
        Some(_) => return Err(format!("its `{key}` is not a table")),
    }
    Ok(Doc::Toml { doc, key })
}

/// The servers' table, made when missing (an inline table is rewritten as
/// a table, as Codex writes them).
fn toml_servers<'d>(
    doc: &'d mut toml_edit::DocumentMut,
    key: &str,
) -> Option<&'d mut toml_edit::Table> {
    let item = doc.as_table_mut().entry(key).or_insert_with(|| {
        let mut t = toml_edit::Table::new();
        // No bare `[mcp_servers]` header: each server has its own.
        t.set_implicit(true);
        toml_edit::Item::Table(t)
    });
    if !item.is_table() {
        let value = std::mem::take(item);
        *item = toml_edit::Item::Table(value.into_table().unwrap_or_default());
    }
    item.as_table_mut()
}

fn toml_item_to_json(item: &toml_edit::Item) -> Value {
    match item {
        toml_edit::Item::None => Value::Null,
        toml_edit::Item::Value(v) => toml_value_to_json(v),
        toml_edit::Item::Table(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_owned(), toml_item_to_json(v)))
                .collect(),
        ),
        toml_edit::Item::ArrayOfTables(a) => Value::Array(
            a.iter()
                .map(|t| {
                    Value::Object(
                        t.iter()
                            .map(|(k, v)| (k.to_owned(), toml_item_to_json(v)))
                            .collect(),
                    )
                })
                .collect(),
        ),
    }
}

fn toml_value_to_json(v: &toml_edit::Value) -> Value {
    match v {
        toml_edit::Value::String(s) => Value::String(s.value().clone()),
        toml_edit::Value::Integer(i) => Value::from(*i.value()),
        toml_edit::Value::Float(f) => serde_json::Number::from_f64(*f.value())
            .map(Value::Number)
            .unwrap_or(Value::Null),
        toml_edit::Value::Boolean(b) => Value::Bool(*b.value()),
        toml_edit::Value::Datetime(d) => Value::String(d.value().to_string()),
        toml_edit::Value::Array(a) => Value::Array(a.iter().map(toml_value_to_json).collect()),
        toml_edit::Value::InlineTable(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_owned(), toml_value_to_json(v)))
                .collect(),
        ),
    }
}

/// An entry as a TOML table: objects become sub-tables (`[x.env]`), as
/// Codex writes them.
fn json_to_toml_table(entry: &Entry) -> toml_edit::Table {
    let mut table = toml_edit::Table::new();
    for (k, v) in entry {
        match v {
            Value::Null => {}
            Value::Object(map) => {
                let sub: Entry = map.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                table.insert(k, toml_edit::Item::Table(json_to_toml_table(&sub)));
            }
            other => {
                if let Some(v) = json_to_toml_value(other) {
                    table.insert(k, toml_edit::value(v));
                }
            }
        }
    }
    table
}

fn json_to_toml_value(v: &Value) -> Option<toml_edit::Value> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into(),
            None => n.as_f64()?.into(),
        },
        Value::String(s) => s.as_str().into(),
        Value::Array(items) => {
            let mut arr = toml_edit::Array::new();
            for item in items {
                if let Some(v) = json_to_toml_value(item) {
                    arr.push(v);
                }
            }
            toml_edit::Value::Array(arr)
        }
        Value::Object(map) => {
            let mut t = toml_edit::InlineTable::new();
            for (k, v) in map {
                if let Some(v) = json_to_toml_value(v) {
                    t.insert(k, v);
                }
            }
            toml_edit::Value::InlineTable(t)
        }
    })
}

/// Nesting depth of a parsed value (a scalar is 0).
pub(crate) fn depth_of(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth_of).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth_of).max().unwrap_or(0),
        _ => 0,
    }
}

// ---- YAML -----------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum YamlShape {
    /// `key: {name: {...}}` (Goose's extensions).
    Map,
    /// `key: [{name: ..., ...}]` (Continue's mcpServers).
    List,
}

/// A YAML file and the edits asked of it, applied to its text at render.
pub(crate) struct YamlDoc {
    text: String,
    key: &'static str,
    shape: YamlShape,
    /// What the file means after the edits (the check for the text edit).
    value: serde_norway::Value,
    edits: Vec<YamlEdit>,
}

enum YamlEdit {
    Set(String, serde_norway::Value),
    Remove(String),
}

fn yaml_to_json(v: &serde_norway::Value) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

fn json_to_yaml(v: &Value) -> serde_norway::Value {
    serde_norway::to_value(v).unwrap_or(serde_norway::Value::Null)
}

fn entry_to_yaml(entry: &Entry) -> serde_norway::Value {
    let mut map = serde_norway::Mapping::new();
    for (k, v) in entry {
        map.insert(k.as_str().into(), json_to_yaml(v));
    }
    serde_norway::Value::Mapping(map)
}

impl YamlDoc {
    fn parse(
        text: &str,
        key: &'static str,
        shape: YamlShape,
        new_file: &str,
    ) -> Result<YamlDoc, Malformed> {
        let text = if text.trim().is_empty() {
            new_file
        } else {
            text
        };
        let mut value: serde_norway::Value = if text.trim().is_empty() {
            serde_norway::Value::Mapping(serde_norway::Mapping::new())
        } else {
            serde_norway::from_str(text).map_err(|e| format!("it is not valid YAML: {e}"))?
        };
        if depth_of(&yaml_to_json(&value)) > MAX_NESTING_DEPTH {
            return Err(too_deep());
        }
        let Some(top) = value.as_mapping_mut() else {
            return Err("its top level is not a YAML mapping".to_owned());
        };
        match (top.get(key), shape) {
            (None | Some(serde_norway::Value::Null), YamlShape::Map) => {
                top.insert(
                    key.into(),
                    serde_norway::Value::Mapping(serde_norway::Mapping::new()),
                );
            }
            (None | Some(serde_norway::Value::Null), YamlShape::List) => {
                top.insert(key.into(), serde_norway::Value::Sequence(Vec::new()));
            }
            (Some(serde_norway::Value::Mapping(_)), YamlShape::Map) => {}
            (Some(serde_norway::Value::Sequence(items)), YamlShape::List) => {
                let mut seen = HashSet::new();
                for item in items {
                    let Some(name) = item.get("name").and_then(serde_norway::Value::as_str) else {
                        return Err(format!("an item of its `{key}` has no name"));
                    };
                    if !seen.insert(name) {
                        return Err(format!(
                            "it names two items of its `{key}` {name:?}, so apps may read it differently"
                        ));
                    }
                }
            }
            (Some(_), YamlShape::Map) => return Err(format!("its `{key}` is not a mapping")),
            (Some(_), YamlShape::List) => return Err(format!("its `{key}` is not a list")),
        }
        Ok(YamlDoc {
            text: text.to_owned(),
            key,
            shape,
            value,
            edits: Vec::new(),
        })
    }

    fn items(&self) -> Vec<(String, serde_norway::Value)> {
        match (self.value.get(self.key), self.shape) {
            (Some(serde_norway::Value::Mapping(map)), YamlShape::Map) => map
                .iter()
                .filter_map(|(k, v)| Some((k.as_str()?.to_owned(), v.clone())))
                .collect(),
            (Some(serde_norway::Value::Sequence(items)), YamlShape::List) => items
                .iter()
                .filter_map(|v| Some((v.get("name")?.as_str()?.to_owned(), v.clone())))
                .collect(),
            _ => Vec::new(),
        }
    }

    fn get(&self, name: &str) -> Option<Value> {
        match self.value.get(self.key)? {
            serde_norway::Value::Mapping(map) => map.get(name).map(yaml_to_json),
            serde_norway::Value::Sequence(items) => items
                .iter()
                .find(|i| i.get("name").and_then(serde_norway::Value::as_str) == Some(name))
                .map(yaml_to_json),
            _ => None,
        }
    }

    fn entries(&self) -> Vec<(String, Value)> {
        self.items()
            .into_iter()
            .map(|(k, v)| (k, yaml_to_json(&v)))
            .collect()
    }

    fn set(&mut self, name: &str, entry: &Entry) {
        let item = entry_to_yaml(entry);
        match self.value.get_mut(self.key) {
            Some(serde_norway::Value::Mapping(map)) => {
                map.insert(name.into(), item.clone());
            }
            Some(serde_norway::Value::Sequence(items)) => {
                match items
                    .iter_mut()
                    .find(|i| i.get("name").and_then(serde_norway::Value::as_str) == Some(name))
                {
                    Some(slot) => *slot = item.clone(),
                    None => items.push(item.clone()),
                }
            }
            _ => {}
        }
        self.edits.push(YamlEdit::Set(name.to_owned(), item));
    }

    fn remove(&mut self, name: &str) {
        match self.value.get_mut(self.key) {
            Some(serde_norway::Value::Mapping(map)) => {
                map.shift_remove(name);
            }
            Some(serde_norway::Value::Sequence(items)) => {
                items.retain(|i| i.get("name").and_then(serde_norway::Value::as_str) != Some(name));
            }
            _ => {}
        }
        self.edits.push(YamlEdit::Remove(name.to_owned()));
    }

    fn render(&self) -> (String, bool) {
        if self.edits.is_empty() {
            return (self.text.clone(), false);
        }
        // Each edit rescans the file: past this many, write it out whole.
        let edited = (self.edits.len() <= MAX_YAML_LINE_EDITS)
            .then(|| self.edit_text())
            .flatten();
        if let Some(text) = edited {
            let same = serde_norway::from_str::<serde_norway::Value>(&text)
                .is_ok_and(|parsed| parsed == self.value);
            if same {
                return (text, false);
            }
        }
        (
            serde_norway::to_string(&self.value).unwrap_or_default(),
            true,
        )
    }

    /// The edits applied to the text, item by item; None when the layout is
    /// not the plain block style this edit follows.
    fn edit_text(&self) -> Option<String> {
        let mut lines: Vec<String> = self.text.lines().map(str::to_owned).collect();
        let original: Vec<(String, serde_norway::Value)> = {
            // The items as the text had them (before the edits).
            let parsed: serde_norway::Value = if self.text.trim().is_empty() {
                serde_norway::Value::Null
            } else {
                serde_norway::from_str(&self.text).ok()?
            };
            let before = YamlDoc {
                text: String::new(),
                key: self.key,
                shape: self.shape,
                value: parsed,
                edits: Vec::new(),
            };
            before.items()
        };
        let mut names: Vec<String> = original.into_iter().map(|(n, _)| n).collect();
        let mut block = find_block(&lines, self.key, self.shape)?;
        if block.items.len() != names.len() {
            return None;
        }
        for edit in &self.edits {
            match edit {
                YamlEdit::Remove(name) => {
                    let Some(i) = names.iter().position(|n| n == name) else {
                        continue;
                    };
                    let (start, end) = block.items[i];
                    lines.drain(start..end);
                    names.remove(i);
                    if names.is_empty() {
                        // `key:` alone would mean null: say "empty".
                        let empty = match self.shape {
                            YamlShape::Map => "{}",
                            YamlShape::List => "[]",
                        };
                        lines[block.head] = format!("{}: {empty}", self.key);
                    }
                    block = find_block(&lines, self.key, self.shape)?;
                }
                YamlEdit::Set(name, item) => {
                    let rendered = render_item(name, item, self.shape, block.indent)?;
                    match names.iter().position(|n| n == name) {
                        Some(i) => {
                            let (start, end) = block.items[i];
                            lines.splice(start..end, rendered);
                        }
                        None => {
                            let at = if !block.inline_empty {
                                block.end
                            } else if block.head >= lines.len() {
                                lines.push(format!("{}:", self.key));
                                lines.len()
                            } else {
                                lines[block.head] = format!("{}:", self.key);
                                block.head + 1
                            };
                            lines.splice(at..at, rendered);
                            names.push(name.clone());
                        }
                    }
                    block = find_block(&lines, self.key, self.shape)?;
                }
            }
        }
        let mut text = lines.join("\n");
        text.push('\n');
        Some(text)
    }
}

/// Where the servers' block sits in the lines of a YAML file.
struct Block {
    /// The `key:` line (or where it is appended).
    head: usize,
    /// The key is written `key: []`, `key: {}` or `key:` with no items.
    inline_empty: bool,
    /// Indentation of the items (`- ` for a list, `name:` for a map).
    indent: usize,
    /// Each item's lines, `[start, end)`.
    items: Vec<(usize, usize)>,
    /// Where a new item goes (after the last item's lines).
    end: usize,
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

fn find_block(lines: &[String], key: &str, shape: YamlShape) -> Option<Block> {
    let head_re = |l: &str| -> Option<String> {
        let rest = l.strip_prefix(key)?.strip_prefix(':')?;
        Some(rest.trim().to_owned())
    };
    let Some(head) = lines.iter().position(|l| head_re(l).is_some()) else {
        // No such key yet: appended at the end of the file.
        return Some(Block {
            head: lines.len(),
            inline_empty: true,
            indent: 2,
            items: Vec::new(),
            end: lines.len(),
        });
    };
    let rest = head_re(&lines[head]).unwrap_or_default();
    let rest = rest
        .split(" #")
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned();
    match rest.as_str() {
        "" | "~" | "null" => {}
        "[]" | "{}" => {
            return Some(Block {
                head,
                inline_empty: true,
                indent: 2,
                items: Vec::new(),
                end: head + 1,
            })
        }
        // Flow style or a scalar: not followed here.
        _ => return None,
    }
    // The block: lines after the head that are blank, comments, indented,
    // or (a list at the key's own indent) start with "- ".
    let in_block = |l: &str| {
        is_blank_or_comment(l)
            || indent_of(l) > 0
            || (shape == YamlShape::List && l.starts_with("- "))
    };
    let mut last = head; // last line that holds content
    let mut i = head + 1;
    while i < lines.len() && in_block(&lines[i]) {
        if !is_blank_or_comment(&lines[i]) {
            last = i;
        }
        i += 1;
    }
    let content: Vec<usize> = (head + 1..=last)
        .filter(|&j| !is_blank_or_comment(&lines[j]))
        .collect();
    let Some(&first) = content.first() else {
        return Some(Block {
            head,
            inline_empty: true,
            indent: 2,
            items: Vec::new(),
            end: head + 1,
        });
    };
    let indent = indent_of(&lines[first]);
    let starts_item = |l: &str| match shape {
        YamlShape::List => indent_of(l) == indent && l.trim_start().starts_with("- "),
        YamlShape::Map => indent_of(l) == indent && !l.trim_start().starts_with('-'),
    };
    let mut items = Vec::new();
    let mut current: Option<usize> = None;
    for &j in &content {
        let l = &lines[j];
        if indent_of(l) < indent {
            return None;
        }
        if starts_item(l) {
            if let Some(s) = current {
                items.push((s, item_end(lines, s, j)));
            }
            current = Some(j);
        } else if current.is_none() || (indent_of(l) == indent && shape == YamlShape::List) {
            return None;
        }
    }
    if let Some(s) = current {
        items.push((s, last + 1));
    }
    Some(Block {
        head,
        inline_empty: false,
        indent,
        items,
        end: last + 1,
    })
}

/// An item starting at `start` ends before the blank and comment lines
/// that precede the next item at `next` (they belong to the next one).
fn item_end(lines: &[String], start: usize, next: usize) -> usize {
    let mut end = next;
    while end > start + 1 && is_blank_or_comment(&lines[end - 1]) {
        end -= 1;
    }
    end
}

fn render_item(
    name: &str,
    item: &serde_norway::Value,
    shape: YamlShape,
    indent: usize,
) -> Option<Vec<String>> {
    let wrapped = match shape {
        YamlShape::Map => {
            let mut m = serde_norway::Mapping::new();
            m.insert(name.into(), item.clone());
            serde_norway::Value::Mapping(m)
        }
        YamlShape::List => serde_norway::Value::Sequence(vec![item.clone()]),
    };
    let text = serde_norway::to_string(&wrapped).ok()?;
    let pad = " ".repeat(indent);
    Some(text.lines().map(|l| format!("{pad}{l}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn goose(n: usize) -> String {
        let mut text = String::from("# kept while the edits are few\nextensions:\n");
        for i in 0..n {
            text.push_str(&format!("  s{i}:\n    cmd: x\n    type: stdio\n"));
        }
        text
    }

    #[test]
    fn yaml_line_edits_up_to_the_bound_keep_comments_past_it_the_file_is_written_whole() {
        let format = Format::YamlMap { key: "extensions" };
        for (n, lost) in [
            (MAX_YAML_LINE_EDITS, false),
            (MAX_YAML_LINE_EDITS + 1, true),
        ] {
            let mut doc = Doc::parse(format, Some(&goose(n))).expect("parse");
            for i in 0..n {
                doc.remove(&format!("s{i}"));
            }
            let (text, comments_lost) = doc.render();
            assert_eq!(comments_lost, lost, "{n} edits");
            assert_eq!(text.contains("# kept"), !lost, "{text}");
            let parsed: serde_norway::Value = serde_norway::from_str(&text).expect("yaml");
            assert_eq!(parsed["extensions"].as_mapping().map(|m| m.len()), Some(0));
        }
    }
}
