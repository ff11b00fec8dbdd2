//! `servers`: add, edit, list, show, remove, import and export server
//! definitions.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use airlock_core::pins::PinPolicy;
use airlock_core::servers::{
    parse_config, InputValue, ProtocolChoice, ServerDef, ServerInput, ServerOptions, Transport,
};
use airlock_core::Airlock;

use crate::cli::{AddArgs, ServersCmd};
use crate::consent;
use crate::failure::{usage, Failure};
use crate::output::{self, plain, print_json};

pub(crate) fn run(core: &Arc<Airlock>, cmd: ServersCmd, json: bool) -> Result<u8, Failure> {
    match cmd {
        ServersCmd::Add(a) => {
            let def = core.add_server(&to_input(&a)?)?;
            print_saved(&def, "added", json)
        }
        ServersCmd::Edit(a) => {
            let def = core.update_server(&to_input(&a)?)?;
            print_saved(&def, "updated", json)
        }
        ServersCmd::List => list(core, json),
        ServersCmd::Show { name } => show(core, &name, json),
        ServersCmd::Remove { name } => remove(core, &name, json),
        ServersCmd::Pause { name } => pause(core, &name, true, json),
        ServersCmd::Resume { name } => pause(core, &name, false, json),
        ServersCmd::Import { file, inputs } => import(core, &file, &inputs, json),
        ServersCmd::Export => export(core),
        ServersCmd::Own {
            name,
            uri,
            template,
        } => own(core, &name, &uri, template, json),
    }
}

/// After `add` or `edit`: the definition, or what was done and where the
/// secrets went.
fn print_saved(def: &ServerDef, done: &str, json: bool) -> Result<u8, Failure> {
    if json {
        print_json(def);
    } else {
        say!("{done} {} ({})", plain(&def.name), def.transport.kind());
        output::print_secret_note(def);
    }
    Ok(0)
}

fn list(core: &Arc<Airlock>, json: bool) -> Result<u8, Failure> {
    let defs = core.list_servers()?;
    if json {
        print_json(&defs);
    } else if defs.is_empty() {
        say!("no servers yet: `airlock servers add` or `airlock servers import <file>`");
    } else {
        for d in &defs {
            say!(
                "{:<24} {:<6} {}",
                plain(&d.name),
                d.transport.kind(),
                plain(&output::target(d))
            );
        }
    }
    Ok(0)
}

fn show(core: &Arc<Airlock>, name: &str, json: bool) -> Result<u8, Failure> {
    let def = core.get_server(name)?;
    // For HTTP servers: whether OAuth tokens are stored, and the
    // client registered by hand (never its secret).
    let oauth = matches!(def.transport, Transport::Http { .. }).then(|| {
        let o = core.oauth_summary(name);
        serde_json::json!({
            "signed_in": o.signed_in,
            "client_id": o.client_id,
            "client_secret_in_keychain": o.client_has_secret,
            "redirect_port": o.redirect_port,
        })
    });
    let trust = trust(core, &def)?;
    if json {
        let mut v = serde_json::to_value(&def).unwrap_or_default();
        if let serde_json::Value::Object(m) = &mut v {
            if let Some(o) = &oauth {
                m.insert("oauth".into(), o.clone());
            }
            m.insert("trust".into(), trust);
        }
        print_json(&v);
    } else {
        output::print_server(&def);
        print_trust(&def.name, &trust);
        if let Some(o) = oauth {
            let signed_in = o["signed_in"].as_bool().unwrap_or(false);
            say!(
                "oauth:     {}",
                if signed_in {
                    "signed in (tokens in the OS keychain)"
                } else {
                    "not signed in"
                }
            );
            if let Some(id) = o["client_id"].as_str() {
                say!("  client:  {} (registered by hand)", plain(id));
            }
        }
    }
    Ok(0)
}

/// What apps see of a server besides its definition: its pin policy, the
/// changes waiting for review, and the URIs it and another server both list.
fn trust(core: &Arc<Airlock>, def: &ServerDef) -> Result<serde_json::Value, Failure> {
    let pending = core.pending_pin_changes(Some(&def.name))?.len();
    let conflicts = core.uri_conflicts(Some(&def.name))?;
    Ok(serde_json::json!({
        "pins": def.options.pins,
        "pending_changes": pending,
        "uri_conflicts": conflicts,
    }))
}

fn print_trust(name: &str, trust: &serde_json::Value) {
    say!(
        "pins:      {} ({} change(s) wait for review: `airlock tools review {}`)",
        trust["pins"].as_str().unwrap_or("hold"),
        trust["pending_changes"],
        plain(name)
    );
    for c in trust["uri_conflicts"].as_array().into_iter().flatten() {
        let (uri, kind) = (
            c["uri"].as_str().unwrap_or_default(),
            c["kind"].as_str().unwrap_or_default(),
        );
        let (server, owner) = (
            c["server"].as_str().unwrap_or_default(),
            c["owner"].as_str().unwrap_or_default(),
        );
        say!(
            "conflict:  {kind} {} is listed by {} too; apps read it from {} (`airlock servers own {} {}` gives it to {})",
            plain(uri),
            plain(server),
            plain(owner),
            plain(server),
            plain(uri),
            plain(server)
        );
    }
}

fn own(
    core: &Arc<Airlock>,
    name: &str,
    uri: &str,
    template: bool,
    json: bool,
) -> Result<u8, Failure> {
    let kind = if template {
        airlock_core::owners::UriKind::Template
    } else {
        airlock_core::owners::UriKind::Resource
    };
    core.choose_uri_owner(uri, kind, name)?;
    if json {
        print_json(&serde_json::json!({"server": name, "uri": uri, "kind": kind}));
    } else {
        say!(
            "{} {} is {}'s now (a running Airlock applies it within seconds)",
            kind.as_str(),
            plain(uri),
            plain(name)
        );
    }
    Ok(0)
}

fn pause(core: &Arc<Airlock>, name: &str, paused: bool, json: bool) -> Result<u8, Failure> {
    core.set_paused(name, paused)?;
    if json {
        print_json(&serde_json::json!({"server": name, "paused": paused}));
    } else if paused {
        say!(
            "paused {} (it is not connected until `airlock servers resume {}`)",
            plain(name),
            plain(name)
        );
    } else {
        say!("resumed {}", plain(name));
    }
    Ok(0)
}

fn remove(core: &Arc<Airlock>, name: &str, json: bool) -> Result<u8, Failure> {
    core.remove_server(name)?;
    if !json {
        say!("removed {}", plain(name));
    } else {
        print_json(&serde_json::json!({"removed": name}));
    }
    Ok(0)
}

fn import(
    core: &Arc<Airlock>,
    file: &Path,
    input_pairs: &[String],
    json: bool,
) -> Result<u8, Failure> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| usage(format!("cannot read {}: {e}", file.display())))?;
    let plan = parse_config(&text).map_err(|e| usage(format!("{}: {e}", file.display())))?;
    let mut answers = BTreeMap::new();
    for pair in input_pairs {
        let (k, v) = split_pair(pair, "--input")?;
        answers.insert(k, v);
    }
    for p in &plan.prompts {
        if !answers.contains_key(&p.id) {
            let v = consent::prompt_input(&p.description, p.password).map_err(|e| {
                usage(format!(
                    "input {:?} ({}) needs a value: {e}; pass --input {}=VALUE",
                    p.id, p.description, p.id
                ))
            })?;
            answers.insert(p.id.clone(), v);
        }
    }
    let inputs = plan.resolve(&answers).map_err(|e| usage(e.to_string()))?;
    let names = core.import_servers(&inputs)?;
    if json {
        print_json(&serde_json::json!({"imported": names, "notes": plan.notes}));
    } else {
        for n in &plan.notes {
            eprintln!("note: {}", plain(n));
        }
        for n in &names {
            say!("imported {}", plain(n));
        }
        for i in &inputs {
            for (k, v) in i.transport.values() {
                if v.secret {
                    say!(
                        "  {}: {} stored in the OS keychain",
                        plain(&i.name),
                        plain(k)
                    );
                }
            }
        }
    }
    Ok(0)
}

fn export(core: &Arc<Airlock>) -> Result<u8, Failure> {
    let out = core.export_servers()?;
    print_json(&out.json);
    if !out.omitted_secrets.is_empty() {
        eprintln!("note: secrets are not exported; add them again where you import this file:");
        for s in &out.omitted_secrets {
            eprintln!("  {}", plain(s));
        }
    }
    Ok(0)
}

fn split_pair(s: &str, what: &str) -> Result<(String, String), Failure> {
    s.split_once('=')
        .map(|(k, v)| (k.trim().to_owned(), v.to_owned()))
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| usage(format!("{what} must look like NAME=VALUE (got {s:?})")))
}

fn to_input(a: &AddArgs) -> Result<ServerInput, Failure> {
    let values = |plain_pairs: &[String], secret_pairs: &[String], what: &str| {
        let mut m = BTreeMap::new();
        for p in plain_pairs {
            let (k, v) = split_pair(p, what)?;
            let secret = airlock_core::servers::looks_secret(&k);
            m.insert(k, InputValue { value: v, secret });
        }
        for p in secret_pairs {
            let (k, v) = split_pair(p, what)?;
            m.insert(k, InputValue::secret(v));
        }
        Ok::<_, Failure>(m)
    };
    let transport = match (&a.command, &a.url) {
        (Some(command), None) => Transport::Stdio {
            command: command.clone(),
            args: a.args.clone(),
            env: values(&a.env, &a.secret_env, "--env")?,
            cwd: a.cwd.clone(),
        },
        (None, Some(url)) => {
            if !a.args.is_empty()
                || !a.env.is_empty()
                || !a.secret_env.is_empty()
                || a.cwd.is_some()
            {
                return Err(usage(
                    "args, --env and --cwd are for stdio servers (--command), not --url",
                ));
            }
            Transport::Http {
                url: url.clone(),
                headers: values(&a.header, &a.secret_header, "--header")?,
            }
        }
        _ => {
            return Err(usage(
                "give either --command (stdio) or --url (Streamable HTTP)",
            ))
        }
    };
    if matches!(transport, Transport::Stdio { .. })
        && (!a.header.is_empty() || !a.secret_header.is_empty())
    {
        return Err(usage("--header is for HTTP servers (--url)"));
    }
    let protocol = ProtocolChoice::parse(&a.protocol)
        .ok_or_else(|| usage(format!("--protocol: unknown revision {:?}", a.protocol)))?;
    let pins = PinPolicy::parse(&a.pins)
        .ok_or_else(|| usage(format!("--pins: hold, notify or off (got {:?})", a.pins)))?;
    Ok(ServerInput {
        name: a.name.clone(),
        transport,
        options: ServerOptions {
            protocol,
            allow_insecure_http: a.allow_insecure_http,
            inherit_env: a.inherit_env.clone(),
            pins,
            max_message_bytes: a.max_message_bytes,
            max_definition_bytes: a.max_definition_bytes,
        },
    })
}
