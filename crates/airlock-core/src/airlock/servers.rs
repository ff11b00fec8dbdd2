//! Server entries: add, edit, remove, with their secrets in the keychain.

use crate::mcp;
use crate::secrets::{Redactor, SecretValue};
use crate::servers::registry::*;
use crate::servers::{
    self, secret_ref, DefinitionError, ExportedConfig, InputValue, ServerDef, ServerInput,
    ServerOptions, StoredValue, Transport,
};
use crate::store::{self, StoreError};
use crate::{auth, Airlock, CoreError, CoreResult};

impl Airlock {
    fn parse_def(row: &store::ServerRow) -> CoreResult<ServerDef> {
        let corrupt =
            |e: serde_json::Error| StoreError::Corrupt(format!("server {:?}: {e}", row.name));
        let transport: Transport<StoredValue> =
            serde_json::from_str(&row.config_json).map_err(corrupt)?;
        let options: ServerOptions = serde_json::from_str(&row.options_json).map_err(corrupt)?;
        Ok(ServerDef {
            name: row.name.clone(),
            transport,
            options,
            protocol_learned: row.protocol_learned.clone(),
            paused: row.paused,
        })
    }

    pub fn list_servers(&self) -> CoreResult<Vec<ServerDef>> {
        self.store
            .list_servers()?
            .iter()
            .map(Self::parse_def)
            .collect()
    }

    pub fn get_server(&self, name: &str) -> CoreResult<ServerDef> {
        let row = self
            .store
            .get_server(name)?
            .ok_or_else(|| CoreError::UnknownServer(name.to_owned()))?;
        Self::parse_def(&row)
    }

    /// Validate and move secret values into the keychain. On error, the
    /// secrets already written are removed again.
    fn store_secrets(&self, input: &ServerInput) -> CoreResult<(ServerDef, Vec<String>)> {
        input.validate()?;
        let mut guarded = input.clone();
        let moved = guarded.guard_secrets()?;
        if !moved.is_empty() {
            let _ = self.store.audit(
                Some(&input.name),
                "secrets_found",
                &serde_json::json!({"moved_to_keychain": moved}),
            );
        }
        let input = &guarded;
        if let Transport::Http { headers, .. } = &input.transport {
            if let Some(h) = headers.keys().find(|h| mcp::header_is_reserved(h)) {
                return Err(DefinitionError::Invalid {
                    server: input.name.clone(),
                    detail: format!(
                        "header {h:?} is set by the MCP transport and cannot be configured"
                    ),
                }
                .into());
            }
        }
        let kind = match input.transport {
            Transport::Stdio { .. } => "env",
            Transport::Http { .. } => "header",
        };
        let instance = self.store.instance_id()?;
        let mut written = Vec::new();
        let result = input.transport.try_map(|key, v: &InputValue| {
            if v.secret {
                let r = secret_ref(&instance, &input.name, kind, key);
                self.keychain.set(&r, &SecretValue::new(v.value.clone()))?;
                written.push(r.clone());
                Ok::<_, CoreError>(StoredValue::Secret { secret_ref: r })
            } else {
                Ok(StoredValue::Plain {
                    value: v.value.clone(),
                })
            }
        });
        match result {
            Ok(transport) => Ok((
                ServerDef {
                    name: input.name.clone(),
                    transport,
                    options: input.options.clone(),
                    protocol_learned: None,
                    paused: false,
                },
                written,
            )),
            Err(e) => {
                self.forget_secrets(&written);
                Err(e)
            }
        }
    }

    /// What the policy knows of a server added by hand: its command or URL
    /// and room, never a registry's name (an install row left under the same
    /// name says nothing of it).
    fn manual_facts(&self, input: &ServerInput) -> airlock_policy::ServerFacts {
        let mut f = self.policy_facts(&super::policy::def_of(input));
        f.registry_name = None;
        f.version = None;
        f.artifact_sha256 = None;
        f
    }

    fn forget_secrets(&self, refs: &[String]) {
        for r in refs {
            let _ = self.keychain.delete(r);
        }
    }

    pub(super) fn row(def: &ServerDef) -> store::NewServerRow {
        store::NewServerRow {
            name: def.name.clone(),
            transport: def.transport.kind().to_owned(),
            config_json: serde_json::to_string(&def.transport).unwrap_or_default(),
            options_json: serde_json::to_string(&def.options).unwrap_or_else(|_| "{}".into()),
        }
    }

    pub fn add_server(&self, input: &ServerInput) -> CoreResult<ServerDef> {
        self.import_servers(std::slice::from_ref(input))?;
        self.get_server(&input.name)
    }

    /// Add several servers: all land or none does (names checked first,
    /// secrets rolled back if the database write fails).
    /// Every stdio server added gets a room, confined, unless its input
    /// says otherwise (`--no-sandbox`: the person's explicit choice).
    pub fn import_servers(&self, inputs: &[ServerInput]) -> CoreResult<Vec<String>> {
        self.import_checked(inputs, None)
    }

    /// [`Self::import_servers`], with what the policy knows of an installed
    /// server (`installed`: its registry name, version and locked hash).
    pub(crate) fn import_checked(
        &self,
        inputs: &[ServerInput],
        installed: Option<&airlock_policy::ServerFacts>,
    ) -> CoreResult<Vec<String>> {
        let inputs: Vec<ServerInput> = inputs
            .iter()
            .cloned()
            .map(|mut i| {
                if matches!(i.transport, Transport::Stdio { .. }) && i.options.sandbox.is_none() {
                    i.options.sandbox = Some(airlock_sandbox::SandboxSettings::default());
                }
                i
            })
            .collect();
        let inputs = inputs.as_slice();
        let mut seen = std::collections::HashSet::new();
        for input in inputs {
            input.validate()?;
            if !seen.insert(input.name.clone()) || self.store.get_server(&input.name)?.is_some() {
                return Err(CoreError::ServerExists(input.name.clone()));
            }
            // The team's policy, before anything is kept.
            match installed.filter(|f| f.name == input.name) {
                Some(facts) => self.check_server_policy(facts)?,
                None => self.check_server_policy(&self.manual_facts(input))?,
            }
        }
        let mut rows = Vec::new();
        let mut written = Vec::new();
        for input in inputs {
            match self.store_secrets(input) {
                Ok((def, w)) => {
                    written.extend(w);
                    rows.push(Self::row(&def));
                }
                Err(e) => {
                    self.forget_secrets(&written);
                    return Err(e);
                }
            }
        }
        if let Err(e) = self.store.insert_servers(&rows) {
            self.forget_secrets(&written);
            return Err(e.into());
        }
        for input in inputs {
            let confined = input.options.sandbox.as_ref().map(|s| s.enabled);
            let _ = self.store.audit(
                Some(&input.name),
                "server_added",
                &match confined {
                    Some(c) => serde_json::json!({ "confined": c }),
                    None => serde_json::json!({}),
                },
            );
        }
        Ok(rows.into_iter().map(|r| r.name).collect())
    }

    /// Replace a server's definition. Secrets no longer used are deleted.
    /// An edit that says nothing of the room keeps the one stored.
    pub fn update_server(&self, input: &ServerInput) -> CoreResult<ServerDef> {
        let old = self.get_server(&input.name)?;
        let mut input = input.clone();
        match (&input.transport, &old.transport) {
            (Transport::Stdio { .. }, Transport::Stdio { .. }) => {
                if input.options.sandbox.is_none() {
                    input.options.sandbox = old.options.sandbox.clone();
                }
            }
            // A server that becomes a stdio one is confined like a new one.
            (Transport::Stdio { .. }, Transport::Http { .. }) => {
                if input.options.sandbox.is_none() {
                    input.options.sandbox = Some(airlock_sandbox::SandboxSettings::default());
                }
            }
            (Transport::Http { .. }, _) => input.options.sandbox = None,
        }
        let input = &input;
        // The policy sees the server as it would be (an installed one keeps
        // its registry facts).
        self.check_def_policy(&super::policy::def_of(input))?;
        let (def, written) = self.store_secrets(input)?;
        if let Err(e) = self.store.update_server(&Self::row(&def)) {
            self.forget_secrets(&written);
            return Err(e.into());
        }
        let stale: Vec<String> = secret_refs(&old)
            .into_iter()
            .filter(|r| !written.contains(r))
            .collect();
        self.forget_secrets(&stale);
        let _ = self
            .store
            .audit(Some(&def.name), "server_updated", &serde_json::json!({}));
        Ok(def)
    }

    pub fn remove_server(&self, name: &str) -> CoreResult<()> {
        let def = self.get_server(name)?;
        self.disconnect(name);
        self.store.delete_server(name)?;
        self.forget_install(name);
        // A server added again later under this name is seen afresh.
        let _ = self.store.forget_pins(name);
        self.forget_secrets(&secret_refs(&def));
        if let Ok(instance) = self.store.instance_id() {
            self.forget_secrets(&[
                auth::store::credentials_ref(&instance, name),
                auth::store::client_secret_ref(&instance, name),
                auth::store::client_ref(&instance, name),
            ]);
        }
        self.oauth_changed(name);
        let _ = self
            .store
            .audit(Some(name), "server_removed", &serde_json::json!({}));
        Ok(())
    }

    pub fn export_servers(&self) -> CoreResult<ExportedConfig> {
        Ok(servers::export_mcp_servers(&self.list_servers()?))
    }

    /// Fetch secrets from the keychain: the transport with plain values, and a
    /// redactor that masks those values in logs.
    pub(crate) fn resolve(&self, def: &ServerDef) -> CoreResult<(Transport<String>, Redactor)> {
        let mut secrets = Vec::new();
        let transport = def.transport.try_map(|_, v| match v {
            StoredValue::Plain { value } => Ok::<_, CoreError>(value.clone()),
            StoredValue::Secret { secret_ref } => {
                let s = self.keychain.get(secret_ref)?;
                secrets.push(s.clone());
                Ok(s.expose().to_owned())
            }
        })?;
        Ok((transport, Redactor::new(secrets)))
    }
}
