//! `servers`: add, edit, list, show, remove, import and export server
//! definitions.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use airlock_core::pins::PinPolicy;
use airlock_core::rooms::{RoomChange, RoomReport, RoomState};
use airlock_core::servers::{
    parse_config, InputValue, ProtocolChoice, ServerDef, ServerInput, ServerOptions, Transport,
};
use airlock_core::Airlock;
use airlock_sandbox::{GrantSource, HostGrant, SandboxSettings};

use crate::cli::{AddArgs, SandboxChange, ServersCmd};
use crate::consent;
use crate::failure::{usage, Failure};
use crate::output::{self, plain, print_json};

pub(crate) fn run(core: &Arc<Airlock>, cmd: ServersCmd, json: bool) -> Result<u8, Failure> {
    match cmd {
        ServersCmd::Add(a) => {
            let def = core.add_server(&to_input(&a)?)?;
            print_saved(&def, "added", json)?;
            if !json && matches!(def.transport, Transport::Stdio { .. }) {
                say!("");
                print_room(&core.room(&def.name)?);
            }
            Ok(0)
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
        ServersCmd::Sandbox { name, change } => sandbox(core, &name, change, json),
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
            let room = core.room(&d.name).map(|r| r.state.label()).unwrap_or("?");
            say!(
                "{:<24} {:<6} {:<40} {}",
                plain(&d.name),
                d.transport.kind(),
                room,
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
    let room = core.room(name)?;
    if json {
        let mut v = serde_json::to_value(&def).unwrap_or_default();
        if let serde_json::Value::Object(m) = &mut v {
            if let Some(o) = &oauth {
                m.insert("oauth".into(), o.clone());
            }
            m.insert("trust".into(), trust);
            m.insert(
                "room".into(),
                serde_json::to_value(&room).unwrap_or_default(),
            );
        }
        print_json(&v);
    } else {
        output::print_server(&def);
        print_trust(&def.name, &trust);
        if room.state != RoomState::Remote {
            say!("room:      {}", room_line(&room));
        }
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
            sandbox: sandbox_input(a)?,
        },
    })
}

/// The room's flags of `add`/`edit`: `None` when none is given (an add
/// gets the default room, an edit keeps the stored one).
fn sandbox_input(a: &AddArgs) -> Result<Option<SandboxSettings>, Failure> {
    let given = a.no_sandbox
        || a.host_network
        || a.session_bus
        || !a.allow_read.is_empty()
        || !a.allow_write.is_empty()
        || !a.allow_host.is_empty();
    if !given {
        return Ok(None);
    }
    if a.url.is_some() {
        return Err(usage(
            "--allow-read, --allow-write, --allow-host, --no-sandbox and --host-network are for stdio servers (--command): a remote server has no process to confine",
        ));
    }
    let mut s = if a.no_sandbox {
        SandboxSettings::unconfined()
    } else {
        SandboxSettings::default()
    };
    s.host_network = a.host_network;
    s.session_bus = a.session_bus;
    for p in &a.allow_read {
        s.allow_path(false, &absolute(p)?, GrantSource::User)
            .map_err(usage)?;
    }
    for p in &a.allow_write {
        s.allow_path(true, &absolute(p)?, GrantSource::User)
            .map_err(usage)?;
    }
    for h in &a.allow_host {
        s.allow_host(
            HostGrant::parse(h, GrantSource::User)
                .map_err(|e| usage(format!("--allow-host: {e}")))?,
        )
        .map_err(usage)?;
    }
    Ok(Some(s))
}

/// A path as typed, made absolute against the current folder.
fn absolute(p: &str) -> Result<String, Failure> {
    let path = Path::new(p);
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| usage(format!("cannot read the current folder: {e}")))?
            .join(path)
    };
    Ok(path.display().to_string())
}

/// `servers sandbox NAME [CHANGE]`: the room, or a change to it.
fn sandbox(
    core: &Arc<Airlock>,
    name: &str,
    change: Option<SandboxChange>,
    json: bool,
) -> Result<u8, Failure> {
    let Some(change) = change else {
        let room = core.room(name)?;
        if json {
            print_json(&room);
        } else {
            print_room(&room);
        }
        return Ok(0);
    };
    let change = match change {
        SandboxChange::On => RoomChange::On,
        SandboxChange::Off => RoomChange::Off,
        SandboxChange::AllowRead { path } => RoomChange::AllowRead {
            path: absolute(&path)?,
        },
        SandboxChange::AllowWrite { path } => RoomChange::AllowWrite {
            path: absolute(&path)?,
        },
        SandboxChange::AllowHost { host } => RoomChange::AllowHost { host },
        SandboxChange::Remove { entry } => RoomChange::Remove {
            entry: if entry.starts_with('/') || entry.starts_with('.') {
                absolute(&entry)?
            } else {
                entry
            },
        },
        SandboxChange::HostNetwork { switch } => RoomChange::HostNetwork { on: switch == "on" },
    };
    let room = core.change_room(name, &change).map_err(|e| match e {
        airlock_core::CoreError::BadInput(why) => usage(why),
        other => other.into(),
    })?;
    if json {
        print_json(&room);
    } else {
        say!("{}: changed (from its next start)", plain(name));
        print_room(&room);
    }
    Ok(0)
}

/// One line: the state, and for an unconfined server what to do.
fn room_line(room: &RoomReport) -> String {
    let name = plain(&room.server);
    match &room.state {
        RoomState::NotConfinedYet => format!(
            "{} — it runs with all your rights; `airlock servers sandbox {name} on` confines it",
            room.state.label()
        ),
        RoomState::UnconfinedByChoice => format!(
            "{} — it runs with all your rights; `airlock servers sandbox {name} on` confines it",
            room.state.label()
        ),
        RoomState::Unavailable { why } => {
            format!("{} — it is not started: {}", room.state.label(), plain(why))
        }
        other => other.label().to_owned(),
    }
}

/// The room in full: the exact command, what it reads, writes and
/// reaches, each with where it came from.
pub(crate) fn print_room(room: &RoomReport) {
    say!("room of {}: {}", plain(&room.server), room_line(room));
    say!("  command: {}", plain(&room.command.join(" ")));
    if let Some(c) = &room.container {
        say!("  confined by {} (not wrapped again)", c.engine);
        for m in &c.mounts {
            say!("  mounts:    {}", plain(m));
        }
        for p in &c.publishes {
            say!("  publishes: {}", plain(p));
        }
        for w in &c.warnings {
            say!("  WARNING: {}", plain(w));
        }
        return;
    }
    let Some(p) = &room.profile else { return };
    if matches!(
        room.state,
        RoomState::Confined | RoomState::ConfinedHostNetwork | RoomState::Unavailable { .. }
    ) {
        say!("  how:     {}", room.mechanism);
    } else {
        say!("  confined, it would get:");
    }
    say!("  reads:   the system's programs and libraries (/usr, /etc, ...), its private home and /tmp");
    for e in &p.read {
        say!(
            "           {}  ({})",
            plain(&e.path.display().to_string()),
            plain(&e.origin.label())
        );
    }
    say!("  writes:  its private home and /tmp");
    for e in &p.write {
        say!(
            "           {}  ({})",
            plain(&e.path.display().to_string()),
            plain(&e.origin.label())
        );
    }
    if room.state == RoomState::ConfinedHostNetwork {
        say!("  network: this computer's, not confined (host-network on)");
    } else if p.hosts.is_empty() {
        say!("  network: none; any host is asked about first");
    } else {
        say!("  network: through Airlock's proxy, to:");
        for h in &p.hosts {
            say!(
                "           {}  ({})",
                plain(&h.label()),
                plain(&h.origin.label())
            );
        }
        say!("           any other host is asked about first");
    }
    for n in &p.notes {
        say!("  note:    {}", plain(n));
    }
}
