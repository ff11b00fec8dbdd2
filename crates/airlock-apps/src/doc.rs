//! One app config file in memory: its servers map read, changed and written
//! back. JSON and JSONC through a concrete syntax tree (comments, trailing
//! commas, spacing and key order of everything else stay as they were);
//! Goose's YAML through a mapping that keeps key order.

use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use jsonc_parser::ParseOptions;
use serde_json::Value;

use crate::apps::Format;

/// An entry as written: keys in the order given.
pub(crate) type Entry = Vec<(String, Value)>;

pub(crate) enum Doc {
    Json {
        root: CstRootNode,
        key: &'static str,
    },
    Yaml(serde_norway::Value),
}

/// Why a file cannot be edited safely (the caller adds the path).
pub(crate) type Malformed = String;

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
        match format {
            Format::Json { key, .. } => parse_json(text.unwrap_or("{}\n"), key, false),
            Format::Jsonc { key, .. } => parse_json(text.unwrap_or("{}\n"), key, true),
            Format::GooseYaml => parse_yaml(text.unwrap_or("")),
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
            Doc::Yaml(value) => servers_yaml(value)
                .map(|map| {
                    map.iter()
                        .filter_map(|(k, v)| {
                            Some((k.as_str()?.to_owned(), serde_json::to_value(v).ok()?))
                        })
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    pub(crate) fn get(&self, name: &str) -> Option<Value> {
        self.entries()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
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
            Doc::Yaml(value) => {
                let mut map = serde_norway::Mapping::new();
                for (k, v) in entry {
                    map.insert(
                        k.as_str().into(),
                        serde_norway::to_value(v).unwrap_or_default(),
                    );
                }
                if let Some(servers) = servers_yaml_mut(value) {
                    servers.insert(name.into(), serde_norway::Value::Mapping(map));
                }
            }
        }
    }

    pub(crate) fn remove(&mut self, name: &str) {
        match self {
            Doc::Json { root, key } => {
                if let Some(prop) = servers_json(root, key).and_then(|obj| obj.get(name)) {
                    prop.remove();
                }
            }
            Doc::Yaml(value) => {
                if let Some(servers) = servers_yaml_mut(value) {
                    servers.shift_remove(name);
                }
            }
        }
    }

    pub(crate) fn render(&self) -> String {
        match self {
            Doc::Json { root, .. } => {
                let mut text = root.to_string();
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                text
            }
            Doc::Yaml(value) => serde_norway::to_string(value).unwrap_or_default(),
        }
    }
}

fn parse_json(text: &str, key: &'static str, lenient: bool) -> Result<Doc, Malformed> {
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
    if let Some(prop) = obj.get(key) {
        if prop.object_value().is_none() {
            return Err(format!("its `{key}` is not an object"));
        }
    }
    Ok(Doc::Json { root, key })
}

fn servers_json(root: &CstRootNode, key: &str) -> Option<CstObject> {
    root.object_value()?.object_value(key)
}

fn parse_yaml(text: &str) -> Result<Doc, Malformed> {
    let mut value: serde_norway::Value = if text.trim().is_empty() {
        serde_norway::Value::Mapping(serde_norway::Mapping::new())
    } else {
        serde_norway::from_str(text).map_err(|e| format!("it is not valid YAML: {e}"))?
    };
    let Some(top) = value.as_mapping_mut() else {
        return Err("its top level is not a YAML mapping".to_owned());
    };
    match top.get("extensions") {
        None | Some(serde_norway::Value::Null) => {
            top.insert(
                "extensions".into(),
                serde_norway::Value::Mapping(serde_norway::Mapping::new()),
            );
        }
        Some(serde_norway::Value::Mapping(_)) => {}
        Some(_) => return Err("its `extensions` is not a mapping".to_owned()),
    }
    Ok(Doc::Yaml(value))
}

fn servers_yaml(value: &serde_norway::Value) -> Option<&serde_norway::Mapping> {
    value.get("extensions")?.as_mapping()
}

fn servers_yaml_mut(value: &mut serde_norway::Value) -> Option<&mut serde_norway::Mapping> {
    value.get_mut("extensions")?.as_mapping_mut()
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
