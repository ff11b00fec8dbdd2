//! Servers' rooms: the report shown to the person, the changes they make,
//! and the command and proxy a confined server starts with.

use std::sync::Arc;

use airlock_sandbox::{self as sandbox, SandboxSettings};

use super::Airlock;
use crate::elicitation::HostDecision;
use crate::error::{CoreError, CoreResult};
use crate::mcp::ConnectError;
use crate::rooms::{RoomChange, RoomGate, RoomReport, RoomState};
use crate::servers::{ServerDef, Transport};

/// What a confined server starts with: the wrapped command, and the proxy
/// its network goes through (held while the server runs).
pub(crate) struct RoomLaunch {
    pub wrapped: sandbox::Wrapped,
    pub proxy: Option<sandbox::proxy::Proxy>,
}

impl Airlock {
    /// The room of `name`, as `servers sandbox` and the window show it.
    pub fn room(&self, name: &str) -> CoreResult<RoomReport> {
        Ok(self.room_of(&self.get_server(name)?))
    }

    /// The room of a server as `def` describes it (stored or not yet).
    pub(crate) fn room_of(&self, def: &ServerDef) -> RoomReport {
        let (command, args, cwd, env) = match &def.transport {
            Transport::Stdio {
                command,
                args,
                cwd,
                env,
            } => (command, args, cwd, env),
            Transport::Http { url, .. } => {
                return RoomReport {
                    server: def.name.clone(),
                    state: RoomState::Remote,
                    command: vec![url.clone()],
                    mechanism: sandbox::mechanism().to_owned(),
                    settings: None,
                    profile: None,
                    container: None,
                }
            }
        };
        let plain_env = env
            .iter()
            .filter_map(|(k, v)| match v {
                crate::servers::StoredValue::Plain { value } => Some((k.clone(), value.clone())),
                crate::servers::StoredValue::Secret { .. } => None,
            })
            .collect();
        let settings = def.options.sandbox.clone();
        let profile = sandbox::infer(
            command,
            args,
            &settings.clone().unwrap_or_default(),
            &self.room_context(def, cwd.as_deref(), plain_env),
        );
        let container = profile.container.clone();
        let state = self.room_state(def, &profile);
        RoomReport {
            server: def.name.clone(),
            state,
            command: std::iter::once(command.clone())
                .chain(args.iter().cloned())
                .collect(),
            mechanism: sandbox::mechanism().to_owned(),
            settings,
            profile: Some(profile),
            container,
        }
    }

    fn room_state(&self, def: &ServerDef, profile: &sandbox::Profile) -> RoomState {
        if matches!(def.transport, Transport::Http { .. }) {
            return RoomState::Remote;
        }
        if profile.container.is_some() {
            return RoomState::Container;
        }
        match &def.options.sandbox {
            None => RoomState::NotConfinedYet,
            Some(s) if !s.enabled => RoomState::UnconfinedByChoice,
            Some(s) => match self.confinement_available() {
                Err(why) => RoomState::Unavailable { why },
                Ok(()) if s.host_network => RoomState::ConfinedHostNetwork,
                Ok(()) => RoomState::Confined,
            },
        }
    }

    /// Whether this process can confine servers (bubblewrap works, and the
    /// shell runs Airlock's binary as the room's helper).
    pub fn confinement_available(&self) -> Result<(), String> {
        if self.sandbox_helper.is_none() {
            return Err(
                "this program cannot run the room's helper (it was started without one)".into(),
            );
        }
        sandbox::available().map_err(|e| e.0)
    }

    fn room_context(
        &self,
        def: &ServerDef,
        cwd: Option<&str>,
        server_env: std::collections::BTreeMap<String, String>,
    ) -> sandbox::Context {
        let mut env: std::collections::BTreeMap<String, String> =
            crate::mcp::inherited_env::inherited_env(&def.options.inherit_env)
                .into_iter()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect();
        env.extend(server_env);
        let home = env.get("HOME").map(std::path::PathBuf::from);
        sandbox::Context {
            env,
            cwd: cwd.map(std::path::PathBuf::from),
            home,
            data_dir: Some(self.data_dir.clone()),
            package_dir: Some(
                self.trial_packages
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(&def.name)
                    .cloned()
                    .unwrap_or_else(|| super::install::install_dir(&self.data_dir, &def.name)),
            ),
        }
    }

    /// Make one change to `name`'s room; the room as it is then.
    pub fn change_room(&self, name: &str, change: &RoomChange) -> CoreResult<RoomReport> {
        let def = self.get_server(name)?;
        let mut s = def.options.sandbox.clone().unwrap_or_default();
        let said = change.apply(&mut s).map_err(CoreError::BadInput)?;
        self.set_sandbox(name, s, &said)?;
        self.room(name)
    }

    /// Replace `name`'s room (validated, stored, audited as `change`). A
    /// running server keeps its room until it restarts: it is disconnected
    /// so the next use starts it in the new one.
    pub fn set_sandbox(
        &self,
        name: &str,
        settings: SandboxSettings,
        change: &str,
    ) -> CoreResult<()> {
        let mut def = self.get_server(name)?;
        if !matches!(def.transport, Transport::Stdio { .. }) {
            return Err(CoreError::BadInput(format!(
                "{name} is a remote (HTTP) server: it has no process to confine"
            )));
        }
        settings.validate().map_err(CoreError::BadInput)?;
        // The team's policy: no host or path it denies, and confinement
        // kept when it is required.
        for h in &settings.hosts {
            self.check_host_policy(&h.host)?;
        }
        for p in settings.read.iter().chain(&settings.write) {
            self.check_path_policy(std::path::Path::new(&p.path))?;
        }
        def.options.sandbox = Some(settings);
        self.check_def_policy(&def)?;
        let json =
            serde_json::to_string(&def.options).map_err(|e| CoreError::BadInput(e.to_string()))?;
        self.store.set_server_options(name, &json)?;
        let _ = self.store.audit(
            Some(name),
            "sandbox_changed",
            &serde_json::json!({ "change": change }),
        );
        self.disconnect(name);
        Ok(())
    }

    /// The person answered about a host: logged, audited, and "Always"
    /// kept in the room.
    pub(crate) fn host_answered(
        &self,
        server: &str,
        host: &str,
        port: u16,
        decision: HostDecision,
    ) {
        let word = match decision {
            HostDecision::AllowOnce => "allowed once",
            HostDecision::Always => "allowed always",
            HostDecision::Deny => "denied",
        };
        let _ = self.store.audit(
            Some(server),
            "sandbox_host",
            &serde_json::json!({ "host": host, "port": port, "decision": decision }),
        );
        self.log(server, "info", &format!("room: {host}:{port} {word}"));
        if decision == HostDecision::Always {
            let saved = self.get_server(server).ok().and_then(|def| {
                let mut s = def.options.sandbox.clone()?;
                let grant = sandbox::HostGrant {
                    host: host.to_owned(),
                    port: Some(port),
                    source: sandbox::GrantSource::Asked,
                };
                s.allow_host(grant).ok()?;
                let mut options = def.options.clone();
                options.sandbox = Some(s);
                let json = serde_json::to_string(&options).ok()?;
                self.store.set_server_options(server, &json).ok()
            });
            if saved.is_none() {
                self.log(
                    server,
                    "warning",
                    &format!("room: {host}:{port} could not be kept in the room"),
                );
            }
        }
    }

    /// The proxy refused a connection: in the server's log.
    pub(crate) fn host_refused(&self, server: &str, host: &str, port: u16, why: &str) {
        self.log(
            server,
            "warning",
            &format!("room: blocked {host}:{port}: {why}"),
        );
    }

    /// For `open_session`: the wrapped command of a confined stdio server
    /// (`None`: it runs as it is), or why it is not started.
    pub(crate) fn room_launch(
        self: &Arc<Self>,
        def: &ServerDef,
        transport: &Transport<String>,
    ) -> CoreResult<Option<RoomLaunch>> {
        let Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } = transport
        else {
            return Ok(None);
        };
        let Some(settings) = def.options.sandbox.clone().filter(|s| s.enabled) else {
            return Ok(None);
        };
        let ctx = self.room_context(def, cwd.as_deref(), env.clone());
        let profile = sandbox::infer(command, args, &settings, &ctx);
        if profile.container.is_some() {
            return Ok(None);
        }
        if profile.program.is_none() {
            return Err(CoreError::Connect {
                server: def.name.clone(),
                source: ConnectError::CommandNotFound {
                    command: command.clone(),
                },
            });
        }
        let not_started = |detail: String| CoreError::Connect {
            server: def.name.clone(),
            source: ConnectError::Spawn {
                command: command.clone(),
                detail,
            },
        };
        if let Err(why) = self.confinement_available() {
            return Err(not_started(format!(
                "not started: Airlock cannot confine it on this computer ({why}). Airlock never runs a server unconfined without your say: install what is missing, or, if you trust it, run it unconfined with `airlock servers sandbox {} off`",
                def.name
            )));
        }
        let helper = self.sandbox_helper.clone().unwrap_or_default();
        let (home, tmp) = sandbox::private_dirs(&self.data_dir, &def.name);
        let socket = sandbox::proxy_socket(&self.data_dir, &def.name);
        let proxy = if settings.host_network {
            None
        } else {
            let gate = Arc::new(RoomGate {
                server: def.name.clone(),
                consent: self.broker.consent.clone(),
                airlock: Arc::downgrade(self),
            });
            let proxy = sandbox::proxy::Proxy::start(&socket, profile.hosts.clone(), gate)
                .map_err(|e| not_started(format!("its network proxy could not start: {e}")))?;
            Some(proxy)
        };
        let launch = sandbox::Launch {
            command,
            args,
            cwd: cwd.as_deref().map(std::path::Path::new),
            profile: &profile,
            home: ctx.home.as_deref(),
            private_home: &home,
            private_tmp: &tmp,
            proxy_socket: proxy.as_ref().map(|_| socket.as_path()),
            helper: &helper,
        };
        let wrapped = sandbox::wrap(&launch).map_err(|e| not_started(e.0))?;
        Ok(Some(RoomLaunch { wrapped, proxy }))
    }
}
