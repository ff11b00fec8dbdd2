//! Prints every finding in a corpus listing (tests/corpus/real/*.json) or a
//! poisoned fixture (tests/corpus/poisoned/*.json), to review what the
//! scanner says: `cargo run -p airlock-scan --example scan_file -- FILE...`.

use airlock_scan::{scan_instructions, scan_prompt, scan_resource, scan_tool, Context};

fn main() {
    for path in std::env::args().skip(1) {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        let listing: serde_json::Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        let mut listing = listing;
        // A poisoned fixture: one definition of one kind.
        if let Some(kind) = listing["kind"].as_str().map(str::to_owned) {
            let def = listing["definition"].clone();
            let key = match kind.as_str() {
                "prompt" => "prompts",
                "resource" => "resources",
                _ => "tools",
            };
            listing[key] = serde_json::json!([def]);
        }
        let server = listing["server"].as_str().unwrap_or("?");
        let ctx = Context::alone(server);
        let list = |k: &str| listing[k].as_array().cloned().unwrap_or_default();
        let mut found = Vec::new();
        for t in list("tools") {
            found.extend(
                scan_tool(&t, &ctx)
                    .into_iter()
                    .map(|f| (t["name"].clone(), f)),
            );
        }
        for p in list("prompts") {
            found.extend(
                scan_prompt(&p, &ctx)
                    .into_iter()
                    .map(|f| (p["name"].clone(), f)),
            );
        }
        for r in list("resources")
            .into_iter()
            .chain(list("resourceTemplates"))
        {
            found.extend(
                scan_resource(&r, &ctx)
                    .into_iter()
                    .map(|f| (r["name"].clone(), f)),
            );
        }
        if let Some(i) = listing["instructions"].as_str() {
            found.extend(
                scan_instructions(i, &ctx)
                    .into_iter()
                    .map(|f| ("instructions".into(), f)),
            );
        }
        for (name, f) in found {
            println!(
                "{server} {name} {} {:?} {:?}\n    {}\n    {}",
                f.field, f.kind, f.severity, f.excerpt, f.detail
            );
        }
    }
}
