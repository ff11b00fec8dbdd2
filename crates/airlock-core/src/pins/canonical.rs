//! A definition as it is pinned: only what an app (and its model) reads,
//! keys sorted, so the same definition always has the same bytes and hash
//! whatever order the server sent its keys in. Of a tool's `_meta`, its
//! MCP App settings are pinned (`ui`: the App it shows and whether the
//! model sees the tool at all; the older flat `ui/resourceUri`): a server
//! cannot point a tool at another App, or show the model a tool that was
//! the App's alone, without the user's review. The rest of `_meta` is
//! data for software, not pinned.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::PinKind;
use crate::mcp_apps::{LEGACY_RESOURCE_URI_META, UI_META};

/// The keys of a tool that are pinned.
const TOOL_KEYS: [&str; 6] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];
/// The keys of a tool's `_meta` that are pinned (MCP Apps, SEP-1865).
const TOOL_META_KEYS: [&str; 2] = [UI_META, LEGACY_RESOURCE_URI_META];
/// The keys of a prompt that are pinned.
const PROMPT_KEYS: [&str; 4] = ["name", "title", "description", "arguments"];

fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), sorted(&map[k]));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// The pinned part of a definition (`item`: a tool or prompt as the server
/// listed it, as JSON), keys sorted; absent and `null` keys left out.
pub fn canonical(kind: PinKind, item: &Value) -> Value {
    let keys: &[&str] = match kind {
        PinKind::Tool => &TOOL_KEYS,
        PinKind::Prompt => &PROMPT_KEYS,
    };
    let mut out = Map::new();
    let mut picked: Vec<&str> = keys.to_vec();
    picked.sort_unstable();
    for k in picked {
        if let Some(v) = item.get(k).filter(|v| !v.is_null()) {
            out.insert(k.to_owned(), sorted(v));
        }
    }
    if kind == PinKind::Tool {
        let meta: Map<String, Value> = TOOL_META_KEYS
            .iter()
            .filter_map(|k| {
                let v = item.get("_meta")?.get(*k).filter(|v| !v.is_null())?;
                Some(((*k).to_owned(), sorted(v)))
            })
            .collect();
        if !meta.is_empty() {
            out.insert("_meta".to_owned(), Value::Object(meta));
        }
    }
    Value::Object(out)
}

/// The SHA-256 (hex) of a canonical definition's JSON text.
pub fn definition_hash(canonical_text: &str) -> String {
    let digest = Sha256::digest(canonical_text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_and_unpinned_keys_do_not_change_the_hash() {
        let a = json!({"name": "t", "description": "d", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}}}, "_meta": {"x": 1}});
        let b = json!({"inputSchema": {"properties": {"b": {"type": "number"}, "a": {"type": "string"}}, "type": "object"}, "description": "d", "name": "t", "icons": [], "title": null});
        let (ca, cb) = (canonical(PinKind::Tool, &a), canonical(PinKind::Tool, &b));
        assert_eq!(ca.to_string(), cb.to_string());
        assert_eq!(
            definition_hash(&ca.to_string()),
            definition_hash(&cb.to_string())
        );
        assert!(ca.get("_meta").is_none());
        // Only the App settings of `_meta` are pinned.
        let mut c = a.clone();
        c["_meta"] = json!({"x": 2, "ui": {"resourceUri": "ui://t/app"}});
        let mut d = b.clone();
        d["_meta"] = json!({"ui": {"resourceUri": "ui://t/app"}, "progressToken": 7});
        let (cc, cd) = (canonical(PinKind::Tool, &c), canonical(PinKind::Tool, &d));
        assert_eq!(cc.to_string(), cd.to_string());
        assert_eq!(cc["_meta"], json!({"ui": {"resourceUri": "ui://t/app"}}));
        // A prompt's `_meta` is not pinned.
        let p = json!({"name": "p", "_meta": {"ui": {"resourceUri": "ui://x"}}});
        assert!(canonical(PinKind::Prompt, &p).get("_meta").is_none());
    }

    #[test]
    fn what_a_model_reads_changes_the_hash() {
        let base = json!({"name": "t", "description": "Get the weather."});
        let h = |v: &Value| definition_hash(&canonical(PinKind::Tool, v).to_string());
        let mut hidden = base.clone();
        hidden["description"] = json!("Get the weather.\u{200B}");
        let mut schema = base.clone();
        schema["inputSchema"] =
            json!({"type": "object", "properties": {"notes": {"type": "string"}}});
        let mut annotations = base.clone();
        annotations["annotations"] = json!({"destructiveHint": true});
        let mut title = base.clone();
        title["title"] = json!("Weather");
        // MCP Apps: the App a tool shows, and whether the model sees it.
        let mut app = base.clone();
        app["_meta"] = json!({"ui": {"resourceUri": "ui://weather/map"}});
        let mut other_app = base.clone();
        other_app["_meta"] = json!({"ui": {"resourceUri": "ui://weather/login"}});
        let mut visible = app.clone();
        visible["_meta"]["ui"]["visibility"] = json!(["model", "app"]);
        let mut flat = base.clone();
        flat["_meta"] = json!({"ui/resourceUri": "ui://weather/map"});
        assert_ne!(h(&app), h(&other_app), "another App");
        assert_ne!(h(&app), h(&visible), "shown to the model");
        for other in [hidden, schema, annotations, title, app, flat] {
            assert_ne!(h(&base), h(&other), "{other}");
        }
        assert_eq!(h(&base).len(), 64);
    }
}
