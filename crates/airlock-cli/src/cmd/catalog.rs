//! `airlock catalog refresh|search|show`: servers from MCP registries. A
//! read fills the cache; search and show work from it, offline. A
//! registry's words (names, descriptions) are printed as plain text with
//! hidden characters made visible.

use std::sync::Arc;

use airlock_core::airlock_catalog::OFFICIAL_REGISTRY;
use airlock_core::Airlock;

use crate::cli::CatalogCmd;
use crate::failure::Failure;
use crate::output::{plain, print_json};

/// The registry the catalog reads by default.
fn default_registry() -> String {
    std::env::var("AIRLOCK_REGISTRY_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| OFFICIAL_REGISTRY.to_owned())
}

/// A registry's text as the terminal shows it.
fn shown(text: &str) -> String {
    plain(&airlock_scan::visible(text))
}

pub(crate) async fn run(core: &Arc<Airlock>, cmd: CatalogCmd, json: bool) -> Result<u8, Failure> {
    match cmd {
        CatalogCmd::Refresh { registry } => {
            let registry = registry.unwrap_or_else(default_registry);
            let r = core.refresh_catalog(&registry).await?;
            if json {
                print_json(&r);
            } else {
                say!(
                    "Read {} entries from {} ({} pages){}.",
                    r.entries,
                    plain(&r.registry),
                    r.pages,
                    if r.cut {
                        ", stopped at Airlock's bound"
                    } else {
                        ""
                    }
                );
                if r.refused > 0 {
                    say!("Left out {} entries that fail Airlock's checks:", r.refused);
                    for why in &r.reasons {
                        say!("  {}", plain(why));
                    }
                }
            }
            Ok(0)
        }
        CatalogCmd::Search { text, limit } => {
            let hits = core.search_catalog(text.as_deref().unwrap_or_default(), limit)?;
            if json {
                print_json(&hits);
                return Ok(0);
            }
            if hits.is_empty() {
                let (n, _) = core.catalog_size()?;
                if n == 0 {
                    say!(
                        "The catalog is empty: read a registry first (`airlock catalog refresh`)."
                    );
                } else {
                    say!("Nothing in the catalog matches.");
                }
            }
            for h in &hits {
                let e = &h.entry;
                let status = match e["status"].as_str() {
                    Some("deprecated") => " (DEPRECATED)",
                    _ => "",
                };
                say!(
                    "{} {}{}\n    {}",
                    shown(e["name"].as_str().unwrap_or_default()),
                    shown(e["version"].as_str().unwrap_or_default()),
                    status,
                    shown(e["description"].as_str().unwrap_or_default())
                );
            }
            Ok(0)
        }
        CatalogCmd::Install(args) => crate::cmd::install::install(core, args, json).await,
        CatalogCmd::Installed => crate::cmd::install::installed(core, json),
        CatalogCmd::Updates { refresh } => {
            if refresh {
                core.check_updates_if_due(std::time::Duration::ZERO).await?;
            }
            crate::cmd::install::updates(core, json)
        }
        CatalogCmd::Repair { server } => crate::cmd::install::repair(core, &server).await,
        CatalogCmd::Update { server, yes } => {
            crate::cmd::install::update(core, &server, yes, json).await
        }
        CatalogCmd::Show { name, version } => {
            let hits = match version {
                None => core.catalog_entry(&name)?,
                Some(v) => {
                    let (registry, entry) = core.catalog_version(&name, &v, None).await?;
                    vec![airlock_core::catalog::CatalogHit {
                        registry,
                        fetched_at: 0,
                        entry: serde_json::to_value(&entry).unwrap_or_default(),
                    }]
                }
            };
            if hits.is_empty() {
                return Err(Failure {
                    code: 1,
                    message: format!(
                        "{} is not in the catalog (`airlock catalog search`)",
                        plain(&name)
                    ),
                    error_code: "not_found",
                });
            }
            if json {
                print_json(&hits);
                return Ok(0);
            }
            for h in &hits {
                let e = &h.entry;
                say!(
                    "{} {}",
                    shown(e["name"].as_str().unwrap_or_default()),
                    shown(e["version"].as_str().unwrap_or_default())
                );
                say!("  Registry:  {}", plain(&h.registry));
                say!(
                    "  Namespace: {} (verified by the registry)",
                    shown(e["namespace"].as_str().unwrap_or_default())
                );
                match e["status"].as_str() {
                    Some("deleted") => say!("  Status:    DELETED by the registry: not offered"),
                    Some("deprecated") => say!(
                        "  Status:    DEPRECATED{}",
                        e["status_message"]
                            .as_str()
                            .map(|m| format!(": {}", shown(m)))
                            .unwrap_or_default()
                    ),
                    _ => say!("  Status:    active"),
                }
                say!(
                    "  About:     {}",
                    shown(e["description"].as_str().unwrap_or_default())
                );
                if let Some(r) = e["repository"].as_str() {
                    say!("  Source:    {}", plain(r));
                }
                for p in e["packages"].as_array().into_iter().flatten() {
                    say!(
                        "  Package:   {} {}@{}",
                        shown(p["registry_type"].as_str().unwrap_or_default()),
                        shown(p["identifier"].as_str().unwrap_or_default()),
                        shown(p["version"].as_str().unwrap_or_default())
                    );
                    for v in p["env"].as_array().into_iter().flatten() {
                        let mut marks = Vec::new();
                        if v["is_required"].as_bool() == Some(true) {
                            marks.push("required");
                        }
                        if v["is_secret"].as_bool() == Some(true) {
                            marks.push("secret: kept in the keychain");
                        }
                        say!(
                            "    {} {}",
                            shown(v["name"].as_str().unwrap_or_default()),
                            if marks.is_empty() {
                                String::new()
                            } else {
                                format!("({})", marks.join(", "))
                            }
                        );
                    }
                }
                for r in e["remotes"].as_array().into_iter().flatten() {
                    say!(
                        "  Remote:    {} {}",
                        shown(r["kind"].as_str().unwrap_or_default()),
                        plain(r["url"].as_str().unwrap_or_default())
                    );
                }
            }
            Ok(0)
        }
    }
}
