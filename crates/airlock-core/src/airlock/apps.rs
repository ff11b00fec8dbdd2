//! Apps and their profiles: what each app attached to the gateway may see and call.

use std::sync::atomic::Ordering;
use std::time::Instant;

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::apps::*;
use crate::secrets::SecretValue;
use crate::{Airlock, CoreError, CoreResult};

impl Airlock {
    fn token_ref(&self, name: &str) -> CoreResult<String> {
        Ok(format!(
            "gateway-client:{}:{name}",
            self.store.instance_id()?
        ))
    }

    /// Every app with a name in Airlock, by name.
    pub fn apps(&self) -> CoreResult<Vec<AppInfo>> {
        Ok(self
            .store
            .list_apps(MAX_APPS)?
            .into_iter()
            .map(info)
            .collect())
    }

    pub fn app(&self, name: &str) -> CoreResult<Option<AppInfo>> {
        Ok(self.store.get_app(name)?.map(info))
    }

    /// Add an app by name. With `with_token`, a new HTTP bearer token goes to the
    /// keychain and is returned: the only time anyone sees it.
    pub fn add_app(&self, name: &str, with_token: bool) -> CoreResult<Option<SecretValue>> {
        check_app_name(name)?;
        if self.store.count_apps()? >= MAX_APPS {
            return Err(CoreError::BadInput(format!(
                "at most {MAX_APPS} apps; remove one first"
            )));
        }
        if self.store.get_app(name)?.is_some() {
            return Err(CoreError::BadInput(format!(
                "an app named {name:?} already exists; remove it first or pick another name"
            )));
        }
        let token = if with_token {
            let t = new_token()?;
            self.keychain.set(&self.token_ref(name)?, &t)?;
            Some(t)
        } else {
            None
        };
        let set_at = token.as_ref().map(|_| crate::store::now_ms());
        if !self.store.insert_app(name, set_at)? {
            return Err(CoreError::BadInput(format!(
                "an app named {name:?} already exists"
            )));
        }
        let _ = self.store.audit(
            None,
            "client_added",
            &serde_json::json!({"client": name, "token": with_token}),
        );
        Ok(token)
    }

    /// Set which servers and tools `name` sees.
    pub fn set_app_profile(&self, name: &str, profile: &AppProfile) -> CoreResult<()> {
        profile.check()?;
        let json = if *profile == AppProfile::default() {
            None
        } else {
            Some(serde_json::to_string(profile).map_err(|e| CoreError::BadInput(e.to_string()))?)
        };
        if !self.store.set_app_profile(name, json.as_deref())? {
            return Err(unknown(name));
        }
        let _ = self.store.audit(
            None,
            "client_profile",
            &serde_json::json!({"client": name, "profile": profile}),
        );
        Ok(())
    }

    /// Pause an app (its calls are refused, and recorded as refused) or
    /// resume it. An app with no row (a stdio app naming itself)
    /// gets one: no token, every server.
    pub fn set_app_paused(&self, name: &str, paused: bool) -> CoreResult<()> {
        check_app_name(name)?;
        if self.store.get_app(name)?.is_none() && self.store.count_apps()? >= MAX_APPS {
            return Err(CoreError::BadInput(format!(
                "at most {MAX_APPS} apps; remove one first"
            )));
        }
        self.store.set_app_paused(name, paused)?;
        let _ = self.store.audit(
            None,
            if paused {
                "client_paused"
            } else {
                "client_resumed"
            },
            &serde_json::json!({"client": name}),
        );
        Ok(())
    }

    /// Record a call the gateway refused without asking a server (the
    /// app is paused): it shows in history as failed, with `why`.
    pub fn record_refused_call(
        &self,
        app: &str,
        server: &str,
        tool: &str,
        arguments: Option<&serde_json::Map<String, serde_json::Value>>,
        why: &str,
    ) -> CoreResult<()> {
        let arguments_json = arguments.map_or_else(
            || "null".to_owned(),
            |a| serde_json::to_string(a).unwrap_or_default(),
        );
        let arguments_json = self.redact(server, &arguments_json);
        self.history.record(crate::store::NewToolCall {
            app: Some(app.to_owned()),
            server: server.to_owned(),
            tool: tool.to_owned(),
            arguments_json,
            result_json: None,
            outcome: crate::store::ToolCallOutcome::Failed,
            error: Some(why.to_owned()),
            started_at: crate::store::now_ms(),
            duration_ms: 0,
        })?;
        Ok(())
    }

    /// Remove an app's name, profile and token.
    pub fn remove_app(&self, name: &str) -> CoreResult<()> {
        let Some(row) = self.store.get_app(name)? else {
            return Err(unknown(name));
        };
        if row.token_set_at.is_some() {
            self.keychain.delete(&self.token_ref(name)?)?;
        }
        self.store.delete_app(name)?;
        let _ = self
            .store
            .audit(None, "client_removed", &serde_json::json!({"client": name}));
        Ok(())
    }

    /// The app whose token `presented` is, if any. Every app's token
    /// is compared, each in constant time. A wrong token seen before is
    /// answered from memory (no SQLite, no keychain): a token is 256 fresh
    /// random bits, so one refused once cannot become an app's later.
    pub fn app_for_token(&self, cache: &TokenCache, presented: &str) -> CoreResult<Option<String>> {
        self.app_for_token_at(cache, presented, Instant::now())
    }

    fn app_for_token_at(
        &self,
        cache: &TokenCache,
        presented: &str,
        now: Instant,
    ) -> CoreResult<Option<String>> {
        let hash: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        {
            let mut state = cache.lock();
            // A change made in this process clears the wrong tokens at once
            // (memory only); another process's is seen below.
            if state
                .stamp
                .is_some_and(|s| s.own_writes() != self.store.app_writes())
            {
                state.unknown.clear();
            }
            if state.unknown.contains(&hash) {
                return Ok(None);
            }
        }
        self.refresh_apps(cache)?;
        // Keychain reads happen outside the cache's lock (they can be slow).
        let wanted: Vec<(String, i64)> = {
            let state = cache.lock();
            state
                .apps
                .iter()
                .filter(|(name, _)| {
                    !state.tokens.contains_key(name)
                        && state
                            .unreadable
                            .get(name)
                            .is_none_or(|at| now.duration_since(*at) >= TOKEN_KEYCHAIN_RETRY)
                })
                .cloned()
                .collect()
        };
        let mut read = Vec::with_capacity(wanted.len());
        for (name, at) in wanted {
            cache.read_store();
            let reference = self.token_ref(&name)?;
            cache.keychain_reads.fetch_add(1, Ordering::Relaxed);
            read.push((name, at, self.keychain.get(&reference).ok()));
        }
        let mut state = cache.lock();
        for (name, at, token) in read {
            // The list may have changed while the keychain answered.
            if !state.apps.iter().any(|(n, a)| *n == name && *a == at) {
                continue;
            }
            match token {
                Some(t) => {
                    state.unreadable.remove(&name);
                    state.tokens.insert(name, (at, t));
                }
                None => {
                    state.unreadable.insert(name, now);
                }
            }
        }
        let mut found = None;
        for (name, _) in &state.apps {
            if let Some((_, t)) = state.tokens.get(name) {
                if bool::from(t.expose().as_bytes().ct_eq(presented.as_bytes())) {
                    found = Some(name.clone());
                }
            }
        }
        // Wrong for sure only when every app's token was compared.
        let complete = state
            .apps
            .iter()
            .all(|(name, _)| state.tokens.contains_key(name));
        if found.is_none() && complete {
            state.unknown.insert(hash);
        }
        Ok(found)
    }

    /// Read the apps again when the store says they may have changed.
    fn refresh_apps(&self, cache: &TokenCache) -> CoreResult<()> {
        cache.read_store();
        let stamp = self.store.apps_stamp()?;
        if cache.lock().stamp == Some(stamp) {
            return Ok(());
        }
        cache.read_store();
        let apps: Vec<(String, i64)> = self
            .store
            .list_apps(MAX_APPS)?
            .into_iter()
            .filter_map(|r| Some((r.name, r.token_set_at?)))
            .collect();
        let mut state = cache.lock();
        if state.apps != apps {
            // Every verdict about a token is void when the apps change.
            state.unknown.clear();
            state.unreadable.clear();
            state
                .tokens
                .retain(|name, (at, _)| apps.iter().any(|(n, a)| n == name && a == at));
            state.apps = apps;
        }
        state.stamp = Some(stamp);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::tool_budget::ToolBudget;

    #[test]
    fn a_tool_budget_is_stored_with_the_profile_within_its_bounds() {
        use crate::tool_budget::{MAX_TOOL_BUDGET, MIN_TOOL_BUDGET};
        let (core, _dir) = open();
        core.add_app("cursor", false).unwrap();
        assert_eq!(
            core.app("cursor")
                .unwrap()
                .unwrap()
                .profile
                .tool_budget_for("cursor"),
            Some(crate::tool_budget::CURSOR_TOOL_CAP),
            "the app's default"
        );
        let mut p = AppProfile::servers(["a"]);
        for n in [MIN_TOOL_BUDGET, MAX_TOOL_BUDGET] {
            p.tool_budget = Some(ToolBudget::Tools(n));
            core.set_app_profile("cursor", &p).unwrap();
            let c = core.app("cursor").unwrap().unwrap();
            assert_eq!(c.profile, p);
            assert_eq!(c.profile.tool_budget_for("cursor"), Some(n));
        }
        for n in [MIN_TOOL_BUDGET - 1, MAX_TOOL_BUDGET + 1] {
            p.tool_budget = Some(ToolBudget::Tools(n));
            let e = core.set_app_profile("cursor", &p).unwrap_err();
            assert!(e.to_string().contains("tool budget"), "{e}");
        }
        p.tool_budget = Some(ToolBudget::Off);
        core.set_app_profile("cursor", &p).unwrap();
        let c = core.app("cursor").unwrap().unwrap();
        assert_eq!(c.profile.tool_budget_for("cursor"), None, "none: no budget");
    }

    #[test]
    fn add_token_profile_remove_round_trip() {
        use crate::test_support::{open_core, RecordingOpener, ScriptedConsent};
        let (core, dir) = open_core(
            ScriptedConsent::accepting(),
            RecordingOpener::new(),
            Default::default(),
        );
        let token = core.add_app("cursor", true).unwrap().unwrap();
        assert!(core.add_app("stdio-app", false).unwrap().is_none());
        assert!(core.add_app("cursor", false).is_err());
        assert!(core.add_app("bad\nname", false).is_err());
        let cache = TokenCache::default();
        assert_eq!(
            core.app_for_token(&cache, token.expose())
                .unwrap()
                .as_deref(),
            Some("cursor")
        );
        assert_eq!(core.app_for_token(&cache, "airlock_gw_00").unwrap(), None);
        assert_eq!(core.app_for_token(&cache, "").unwrap(), None);
        core.set_app_profile("cursor", &AppProfile::servers(["github"]))
            .unwrap();
        let c = core.app("cursor").unwrap().unwrap();
        assert!(c.has_token && !c.profile.allows_server("other"));
        assert!(core
            .set_app_profile("nobody", &AppProfile::default())
            .is_err());
        core.remove_app("cursor").unwrap();
        assert_eq!(core.app_for_token(&cache, token.expose()).unwrap(), None);
        assert_eq!(core.apps().unwrap().len(), 1);
        // The token never reaches the data dir.
        for entry in std::fs::read_dir(dir.path()).unwrap().flatten() {
            if entry.path().is_file() {
                let bytes = std::fs::read(entry.path()).unwrap();
                let needle = token.expose().as_bytes();
                assert!(!bytes.windows(needle.len()).any(|w| w == needle));
            }
        }
    }

    fn open() -> (std::sync::Arc<Airlock>, tempfile::TempDir) {
        use crate::test_support::{open_core, RecordingOpener, ScriptedConsent};
        open_core(
            ScriptedConsent::accepting(),
            RecordingOpener::new(),
            Default::default(),
        )
    }

    #[test]
    fn a_wrong_token_hammered_costs_no_sqlite_or_keychain_read() {
        let (core, _dir) = open();
        let good = core.add_app("good", true).unwrap().unwrap();
        core.add_app("other", true).unwrap();
        core.add_app("stdio-only", false).unwrap();
        let cache = TokenCache::default();
        assert_eq!(
            core.app_for_token(&cache, good.expose())
                .unwrap()
                .as_deref(),
            Some("good")
        );
        // One stamp, one list, and each token once (with its reference).
        let warm = cache.reads();
        assert_eq!(warm.keychain, 2, "{warm:?}");
        let wrong = format!("{TOKEN_PREFIX}{}", "0".repeat(64));
        assert_eq!(core.app_for_token(&cache, &wrong).unwrap(), None);
        let first = cache.reads();
        assert_eq!(first.keychain, warm.keychain, "{first:?}");
        assert_eq!(first.store, warm.store + 1, "one stamp read: {first:?}");
        for _ in 0..1000 {
            assert_eq!(core.app_for_token(&cache, &wrong).unwrap(), None);
        }
        assert_eq!(cache.reads(), first, "the hammer read nothing");
        // The right token still works, and only checks the stamp.
        assert_eq!(
            core.app_for_token(&cache, good.expose())
                .unwrap()
                .as_deref(),
            Some("good")
        );
        assert_eq!(cache.reads().keychain, first.keychain);
    }

    #[test]
    fn apps_added_or_removed_by_another_process_are_seen_at_the_next_request() {
        let (core, dir) = open();
        let a = core.add_app("a", true).unwrap().unwrap();
        let cache = TokenCache::default();
        let wrong = format!("{TOKEN_PREFIX}{}", "1".repeat(64));
        assert_eq!(core.app_for_token(&cache, &wrong).unwrap(), None);
        assert_eq!(
            core.app_for_token(&cache, a.expose()).unwrap().as_deref(),
            Some("a")
        );
        // `airlock apps remove a` in another process: its own connection.
        let other = crate::store::Store::open_in(dir.path()).unwrap();
        assert!(other.delete_app("a").unwrap());
        assert_eq!(core.app_for_token(&cache, a.expose()).unwrap(), None);
        // `airlock apps add b --token` there (the keychain is shared).
        let b = new_token().unwrap();
        core.keychain
            .set(&core.token_ref("b").unwrap(), &b)
            .unwrap();
        assert!(other.insert_app("b", Some(7)).unwrap());
        assert_eq!(
            core.app_for_token(&cache, b.expose()).unwrap().as_deref(),
            Some("b")
        );
        // A change of the apps voids what was known about wrong tokens.
        assert_eq!(cache.lock().unknown.len(), 0);
        assert_eq!(core.app_for_token(&cache, &wrong).unwrap(), None);
        assert_eq!(cache.lock().unknown.len(), 1);
        // An app added in this process clears them at once.
        core.add_app("c", false).unwrap();
        let before = cache.reads();
        assert_eq!(core.app_for_token(&cache, &wrong).unwrap(), None);
        assert!(cache.reads().store > before.store, "asked the store again");
    }

    #[test]
    fn a_token_the_keychain_did_not_give_is_asked_again_after_the_retry_time_only() {
        let (core, _dir) = open();
        let token = core.add_app("locked", true).unwrap().unwrap();
        let reference = core.token_ref("locked").unwrap();
        core.keychain.delete(&reference).unwrap();
        let cache = TokenCache::default();
        let t0 = Instant::now();
        let wrong = format!("{TOKEN_PREFIX}{}", "2".repeat(64));
        for _ in 0..10 {
            assert_eq!(core.app_for_token_at(&cache, &wrong, t0).unwrap(), None);
        }
        assert_eq!(cache.reads().keychain, 1, "asked once, not per request");
        // Not remembered as wrong: it was not compared with every token.
        assert_eq!(cache.lock().unknown.len(), 0);
        core.keychain.set(&reference, &token).unwrap();
        let just_before = t0 + TOKEN_KEYCHAIN_RETRY.saturating_sub(Duration::from_millis(1));
        assert_eq!(
            core.app_for_token_at(&cache, token.expose(), just_before)
                .unwrap(),
            None
        );
        assert_eq!(cache.reads().keychain, 1);
        assert_eq!(
            core.app_for_token_at(&cache, token.expose(), t0 + TOKEN_KEYCHAIN_RETRY)
                .unwrap()
                .as_deref(),
            Some("locked")
        );
        assert_eq!(cache.reads().keychain, 2);
    }
}
