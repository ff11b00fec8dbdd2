//! What every attached app sees, each server in a room of its own.
//!
//! Each server's lists are kept in its room: refreshed by a task of its
//! own when the server connects, reconnects, drops or says its lists
//! changed; one refresh at a time per server, at most one per
//! [`REFRESH_MIN_INTERVAL`], each list bounded in time
//! ([`fetch::LIST_TIMEOUT`]). The last good list keeps serving while a
//! refresh is slow or fails. No lock here is held across I/O to a server:
//! an app's list or call reads the current [`View`] at once, whatever any
//! server is doing, so a slow or flooding server costs only itself.
//!
//! After each list comes in, its tools and prompts are compared with their
//! pins ([`airlock_core::pins`]: changed or added ones held until the user
//! approves them, hidden characters removed, poisoned ones held at first
//! sight), its resource URIs and templates with their owners ([`owners`]),
//! its instructions fenced ([`instructions`]); then the view is rebuilt
//! ([`view`]) and, if what apps see changed, they are told (list_changed);
//! the tool search ([`search`]) follows each view. What one app sees of a
//! view is its app's profile's ([`profile`]).

pub mod apps;
pub mod fetch;
pub mod instructions;
pub mod names;
pub mod owners;
pub mod profile;
pub mod search;
pub mod templates;
pub mod view;

use std::collections::{BTreeMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use airlock_core::owners::{UriConflict, UriKind};
use airlock_core::pins::PinKind;
use airlock_core::status::ConnStatus;
use airlock_core::Airlock;
use rmcp::model::{Resource, ResourceTemplate, Tool};
use tokio::sync::{broadcast, watch};

use fetch::ServerItems;
pub use view::{HeldRoute, Route, Served, View};

/// Least time between two refreshes of one server: a server that says its
/// lists changed all the time is listed at most this often.
pub const REFRESH_MIN_INTERVAL: Duration = Duration::from_secs(1);
/// Changes buffered for slow apps; one that lags still gets one list_changed.
pub const CHANGE_CHANNEL_CAPACITY: usize = 16;

/// One line in the host's log (its stderr).
pub(crate) fn log(text: &str) {
    eprintln!("airlock daemon: {text}");
}

/// One server's room.
#[derive(Default)]
struct Room {
    /// The last good lists, as the server sent them.
    raw: Option<Arc<ServerItems>>,
    /// A fingerprint of `raw`: an unchanged list is not reconciled again.
    raw_print: u64,
    /// What the apps see of it.
    served: Option<Arc<Served>>,
    /// A refresh task runs; `again`: run once more when it ends (`fetch`:
    /// list the server again, else only apply decisions to `raw`).
    running: bool,
    again: Option<bool>,
    /// Its first refresh ended (apps attaching at start wait for it, bounded).
    settled: bool,
    last: Option<Instant>,
}

pub struct Catalog {
    core: Arc<Airlock>,
    separator: String,
    rooms: Mutex<BTreeMap<String, Room>>,
    view: Mutex<Arc<View>>,
    book: Mutex<owners::Book>,
    /// The conflicts last recorded (written again only when they change).
    conflicts: Mutex<Vec<UriConflict>>,
    changes: broadcast::Sender<()>,
    /// Bumped when a room settles or a view is built.
    settled: watch::Sender<u64>,
    /// Words over the served tools (`airlock__find_tools`).
    search: search::ToolSearch,
}

/// A fingerprint of a server's lists (its bytes as JSON).
fn print(items: &ServerItems) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for part in [
        serde_json::to_vec(&items.tools),
        serde_json::to_vec(&items.prompts),
        serde_json::to_vec(&items.resources),
        serde_json::to_vec(&items.templates),
    ] {
        part.unwrap_or_default().hash(&mut h);
    }
    items.instructions.hash(&mut h);
    h.finish()
}

/// A fingerprint of what apps see.
fn print_view(v: &View) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for part in [
        serde_json::to_vec(&v.tools),
        serde_json::to_vec(&v.prompts),
        serde_json::to_vec(&v.resources),
        serde_json::to_vec(&v.templates),
    ] {
        part.unwrap_or_default().hash(&mut h);
    }
    v.instructions.hash(&mut h);
    h.finish()
}

impl Catalog {
    pub fn new(core: Arc<Airlock>, separator: impl Into<String>) -> Arc<Self> {
        let (changes, _) = broadcast::channel(CHANGE_CHANNEL_CAPACITY);
        let book = match core.uri_owners() {
            Ok(o) => owners::Book::from_owners(o),
            Err(e) => {
                log(&format!("cannot read the owners of resource URIs: {e}"));
                owners::Book::default()
            }
        };
        let separator = separator.into();
        let empty = build_view(&BTreeMap::new(), &separator, &book);
        Arc::new(Self {
            core,
            separator,
            rooms: Mutex::new(BTreeMap::new()),
            view: Mutex::new(Arc::new(empty)),
            book: Mutex::new(book),
            conflicts: Mutex::new(Vec::new()),
            changes,
            settled: watch::channel(0).0,
            search: search::ToolSearch::new(),
        })
    }

    fn rooms(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Room>> {
        self.rooms.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A message each time what apps see changed.
    pub fn subscribe(&self) -> broadcast::Receiver<()> {
        self.changes.subscribe()
    }

    /// The view now: never waits for a server.
    pub fn view(&self) -> Arc<View> {
        self.view.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// At most `limit` served tools matching `query` that `allowed` lets
    /// through (exposed names), best first ([`search`]).
    pub fn find_tools(
        &self,
        view: &View,
        query: &search::Query,
        limit: usize,
        allowed: impl Fn(&str) -> bool,
    ) -> Result<Vec<String>, search::SearchError> {
        self.search.find(view, query, limit, allowed)
    }

    /// The server recorded as owning the resource `uri` (it may not be
    /// connected now).
    pub fn recorded_owner(&self, uri: &str) -> Option<String> {
        self.book
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .owner(UriKind::Resource, uri)
            .map(|o| o.server.clone())
    }

    /// The instructions of the view now (for `get_info`).
    pub fn instructions(&self) -> String {
        self.view().instructions.clone()
    }

    /// `server` connected, disconnected, reconnected or said its lists
    /// changed: list it again, on its own.
    pub fn server_changed(self: &Arc<Self>, server: &str) {
        self.schedule(server, true);
    }

    /// Decisions were made (pins approved or rejected, owners chosen),
    /// maybe in another process: apply them to every server's last lists.
    pub fn decisions_changed(self: &Arc<Self>) {
        match self.core.uri_owners() {
            Ok(o) => {
                *self.book.lock().unwrap_or_else(|e| e.into_inner()) = owners::Book::from_owners(o)
            }
            Err(e) => log(&format!("cannot read the owners of resource URIs: {e}")),
        }
        let servers: Vec<String> = self.rooms().keys().cloned().collect();
        for s in servers {
            self.schedule(&s, false);
        }
    }

    /// Events were lost: list every server the core knows again.
    pub fn resync(self: &Arc<Self>, servers: &[String]) {
        let mut all: HashSet<String> = self.rooms().keys().cloned().collect();
        all.extend(servers.iter().cloned());
        for s in all {
            self.schedule(&s, true);
        }
    }

    /// Wait (at most `within`) until every server that is ready now has
    /// finished its first refresh, so that an app attaching at start-up
    /// sees every server that answers in time.
    pub async fn first_lists(&self, ready: &[String], within: Duration) {
        let mut settled = self.settled.subscribe();
        let all_settled = |this: &Self| {
            let rooms = this.rooms();
            ready
                .iter()
                .all(|s| rooms.get(s).is_none_or(|r| r.settled || !r.running))
        };
        let _ = tokio::time::timeout(within, async {
            while !all_settled(self) {
                if settled.changed().await.is_err() {
                    return;
                }
            }
        })
        .await;
    }

    fn schedule(self: &Arc<Self>, server: &str, fetch: bool) {
        let mut rooms = self.rooms();
        let room = rooms.entry(server.to_owned()).or_default();
        if room.running {
            room.again = Some(room.again.unwrap_or(false) || fetch);
            return;
        }
        room.running = true;
        drop(rooms);
        let (this, server) = (self.clone(), server.to_owned());
        tokio::spawn(async move { this.refresh(server, fetch).await });
    }

    /// The refresh task of one server's room (see the module docs).
    async fn refresh(self: Arc<Self>, server: String, mut fetch: bool) {
        loop {
            let wait =
                self.rooms().get(&server).and_then(|r| r.last).map(|at| {
                    (at + REFRESH_MIN_INTERVAL).saturating_duration_since(Instant::now())
                });
            if let Some(wait) = wait.filter(|w| !w.is_zero()) {
                tokio::time::sleep(wait).await;
            }
            self.refresh_once(&server, fetch).await;
            let mut rooms = self.rooms();
            let Some(room) = rooms.get_mut(&server) else {
                return;
            };
            room.last = Some(Instant::now());
            room.settled = true;
            let again = room.again.take();
            if again.is_none() {
                room.running = false;
                if room.raw.is_none() {
                    rooms.remove(&server);
                }
            }
            drop(rooms);
            self.settled.send_modify(|n| *n += 1);
            match again {
                Some(next) => fetch = next,
                None => return,
            }
        }
    }

    /// Is `server` to be served: connected and not paused.
    fn is_served(&self, server: &str) -> bool {
        matches!(self.core.status(server), ConnStatus::Ready { .. })
            && !self.core.get_server(server).is_ok_and(|d| d.paused)
    }

    async fn refresh_once(self: &Arc<Self>, server: &str, fetch: bool) {
        if !self.is_served(server) {
            let had = {
                let mut rooms = self.rooms();
                let room = rooms.entry(server.to_owned()).or_default();
                room.raw = None;
                room.raw_print = 0;
                room.served.take().is_some()
            };
            if had {
                self.rebuild();
                self.tools_changed_beside(server);
            }
            return;
        }
        let last = self.rooms().get(server).and_then(|r| r.raw.clone());
        let raw = if fetch {
            match fetch::fetch(&self.core, server, last.as_deref()).await {
                Some(items) => {
                    let p = print(&items);
                    let same = self
                        .rooms()
                        .get(server)
                        .is_some_and(|r| r.raw_print == p && r.served.is_some());
                    if same {
                        return;
                    }
                    let items = Arc::new(items);
                    let mut rooms = self.rooms();
                    let room = rooms.entry(server.to_owned()).or_default();
                    room.raw = Some(items.clone());
                    room.raw_print = p;
                    items
                }
                None => return,
            }
        } else {
            match last {
                Some(raw) => raw,
                None => return,
            }
        };
        // Scanning, pinning and recording a list is database work that
        // grows with the list: off the runtime's thread (the daemon has
        // one), so no other server's calls wait on it.
        let (this, name) = (self.clone(), server.to_owned());
        let served = match tokio::task::spawn_blocking(move || this.serve(&name, &raw)).await {
            Ok(served) => served,
            Err(e) => {
                log(&format!("{server}: checking its lists failed: {e}"));
                return;
            }
        };
        let served = Arc::new(served);
        let before = self
            .rooms()
            .entry(server.to_owned())
            .or_default()
            .served
            .replace(served.clone());
        self.rebuild();
        if tool_names(before.as_deref()) != tool_names(Some(&served)) {
            self.tools_changed_beside(server);
        }
    }

    /// `server`'s tools changed (or it came or went): every other server's
    /// definitions are checked again against the new set of tools (a text
    /// naming another server's tool is caught whichever was listed first),
    /// from their last lists, without asking them.
    fn tools_changed_beside(self: &Arc<Self>, server: &str) {
        let others: Vec<String> = self
            .rooms()
            .iter()
            .filter(|(name, room)| name.as_str() != server && room.raw.is_some())
            .map(|(name, _)| name.clone())
            .collect();
        for other in others {
            self.schedule(&other, false);
        }
    }

    /// What the apps may see of `raw` (one server's lists): pins applied,
    /// URI claims recorded, everything cleaned of hidden characters.
    fn serve(&self, server: &str, raw: &ServerItems) -> Served {
        let tools = self.tool_index(server, raw);
        let limit = self
            .core
            .get_server(server)
            .map(|d| d.options.definition_limit())
            .unwrap_or(airlock_core::limits::MAX_DEFINITION_BYTES.default as usize);
        let mut served = Served::default();
        let reconcile = |kind: PinKind, items: Vec<serde_json::Value>| {
            self.core
                .reconcile_pins(server, kind, items, &tools, limit)
                .map_err(|e| {
                    log(&format!(
                        "{server}: cannot check its {} against their pins: {e}; none served",
                        kind.as_str()
                    ))
                })
                .ok()
        };
        let as_json = |items: &[Tool]| {
            items
                .iter()
                .filter_map(|t| serde_json::to_value(t).ok())
                .collect()
        };
        if let Some(mut r) = reconcile(PinKind::Tool, as_json(&raw.tools)) {
            // Tools the person turned off: withheld with the reason, so an
            // app that still calls one is told why.
            let off = self.core.tools_off(server).unwrap_or_default();
            if !off.is_empty() {
                r.served.retain(|(name, _)| {
                    let keep = !off.contains(name);
                    if !keep {
                        r.held.push(airlock_core::pins::Held {
                            name: name.clone(),
                            why: airlock_core::tool_switches::tool_off_reason(server, name),
                        });
                    }
                    keep
                });
            }
            served.tools = typed(r.served);
            served.held_tools = r.held;
        }
        let prompts: Vec<serde_json::Value> = raw
            .prompts
            .iter()
            .filter_map(|p| serde_json::to_value(p).ok())
            .collect();
        if let Some(r) = reconcile(PinKind::Prompt, prompts) {
            served.prompts = typed(r.served);
            served.held_prompts = r.held;
        }
        served.resources = scanned(
            server,
            "resource",
            cleaned_with_uri(server, &raw.resources, |r: &Resource| r.uri.clone()),
        );
        served.templates = scanned(
            server,
            "resource template",
            cleaned_with_uri(server, &raw.templates, |t: &ResourceTemplate| {
                t.uri_template.clone()
            }),
        );
        self.claim(
            server,
            UriKind::Resource,
            served.resources.iter().map(|r| r.uri.clone()).collect(),
        );
        self.claim(
            server,
            UriKind::Template,
            served
                .templates
                .iter()
                .map(|t| t.uri_template.clone())
                .collect(),
        );
        served.section = raw.instructions.as_deref().and_then(|own| {
            instructions::section(server, &names::prefix(server), &self.separator, own, &tools)
        });
        served
    }

    /// Every server's tools as the scanner's shadowing check needs them:
    /// the others' from the view now, `server`'s own from `raw`.
    fn tool_index(&self, server: &str, raw: &ServerItems) -> airlock_scan::ToolIndex {
        let view = self.view();
        let prefix = names::prefix(server);
        let own: Vec<(String, String)> = raw
            .tools
            .iter()
            .map(|t| {
                let exposed = format!("{prefix}{}{}", self.separator, t.name);
                (t.name.to_string(), exposed)
            })
            .collect();
        let others = view
            .tool_routes()
            .filter(|(_, r)| r.server != server)
            .map(|(exposed, r)| (r.server.as_str(), r.name.as_str(), exposed.as_str()));
        let mine = own.iter().map(|(n, e)| (server, n.as_str(), e.as_str()));
        airlock_scan::ToolIndex::new(others.chain(mine))
    }

    /// Record `server`'s claims on `uris` and learn their owners.
    fn claim(&self, server: &str, kind: UriKind, uris: Vec<String>) {
        match self.core.sync_uri_claims(server, kind, &uris) {
            Ok(owners) => self
                .book
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .update(server, kind, &uris, owners),
            Err(e) => log(&format!(
                "{server}: cannot record its {}s' owners: {e}",
                kind.as_str()
            )),
        }
    }

    /// Build the view from every room; tell the apps if what they see changed.
    fn rebuild(&self) {
        let rooms: BTreeMap<String, Arc<Served>> = self
            .rooms()
            .iter()
            .filter_map(|(s, r)| r.served.clone().map(|v| (s.clone(), v)))
            .collect();
        let mut view = {
            let book = self.book.lock().unwrap_or_else(|e| e.into_inner());
            build_view(&rooms, &self.separator, &book)
        };
        self.record_conflicts(&view.conflicts);
        let (changed, view) = {
            let mut current = self.view.lock().unwrap_or_else(|e| e.into_inner());
            let changed =
                print_view(&current) != print_view(&view) || current.servers != view.servers;
            view.generation = current.generation + 1;
            let view = Arc::new(view);
            *current = view.clone();
            (changed, view)
        };
        if let Err(e) = self.search.sync(&view) {
            log(&e.to_string());
        }
        self.settled.send_modify(|n| *n += 1);
        if changed {
            let _ = self.changes.send(());
        }
    }

    /// Record the conflicts when they differ from the last recorded, and
    /// log the new ones.
    fn record_conflicts(&self, now: &[UriConflict]) {
        let mut now: Vec<UriConflict> = now.to_vec();
        now.sort();
        now.dedup_by(|a, b| a.uri == b.uri && a.kind == b.kind && a.server == b.server);
        let mut last = self.conflicts.lock().unwrap_or_else(|e| e.into_inner());
        let same = last.len() == now.len()
            && last.iter().zip(&now).all(|(a, b)| {
                a.uri == b.uri && a.kind == b.kind && a.server == b.server && a.owner == b.owner
            });
        if same {
            return;
        }
        for c in now.iter().filter(|c| {
            !last
                .iter()
                .any(|l| l.uri == c.uri && l.kind == c.kind && l.server == c.server)
        }) {
            log(&format!(
                "{} {:?} of {} is not served: {} owns it (choose with `airlock resources owner`)",
                c.kind.as_str(),
                airlock_core::url_safety::neutralize_for_display(&c.uri, 200),
                c.server,
                c.owner
            ));
        }
        if let Err(e) = self.core.set_uri_conflicts(&now) {
            log(&format!("cannot record resource URI conflicts: {e}"));
        }
        *last = now;
    }
}

/// Definitions as JSON (cleaned) back into the SDK's types; one that no
/// longer parses is left out (and logged).
fn typed<T: serde::de::DeserializeOwned>(
    items: Vec<(String, serde_json::Value)>,
) -> Vec<(String, T)> {
    items
        .into_iter()
        .filter_map(|(name, v)| match serde_json::from_value(v) {
            Ok(t) => Some((name, t)),
            Err(e) => {
                log(&format!("{name:?} is not served: {e}"));
                None
            }
        })
        .collect()
}

/// Resources or templates with their hidden characters removed; one whose
/// URI had any is left out (a URI with hidden characters is not the URI
/// it looks like).
fn cleaned_with_uri<T>(server: &str, items: &[T], uri: impl Fn(&T) -> String) -> Vec<T>
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    items
        .iter()
        .filter_map(|item| {
            let before = uri(item);
            let mut v = serde_json::to_value(item).ok()?;
            airlock_scan::clean_json(&mut v);
            let cleaned: T = serde_json::from_value(v).ok()?;
            if uri(&cleaned) != before {
                log(&format!(
                    "{server}: resource {:?} is not served: its URI has hidden characters",
                    airlock_scan::visible(&before)
                ));
                return None;
            }
            Some(cleaned)
        })
        .collect()
}

/// The own names of the tools `served` serves, sorted.
fn tool_names(served: Option<&Served>) -> Vec<&str> {
    let mut names: Vec<&str> = served
        .map(|s| s.tools.iter().map(|(n, _)| n.as_str()).collect())
        .unwrap_or_default();
    names.sort_unstable();
    names
}

/// Resources (or templates) as the scanner lets them reach apps: one whose
/// title or description has a serious finding (directives aimed at the
/// model, secret paths, hidden text) is served with that text replaced by
/// a note saying Airlock withheld it; one still serious after that (its
/// name, say) is not served. Each is logged.
fn scanned<T>(server: &str, what: &str, items: Vec<T>) -> Vec<T>
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let ctx = airlock_scan::Context::alone(server);
    let serious = |v: &serde_json::Value| {
        airlock_scan::scan_resource(v, &ctx)
            .into_iter()
            .find(|f| f.severity == airlock_scan::Severity::Serious)
    };
    items
        .into_iter()
        .filter_map(|item| {
            let mut v = serde_json::to_value(&item).ok()?;
            let Some(found) = serious(&v) else {
                return Some(item);
            };
            let shown = airlock_scan::visible(
                v.get("uri")
                    .or_else(|| v.get("uriTemplate"))
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or_default(),
            );
            // The finding's kind, not its detail: the detail may quote it.
            let note = format!(
                "(Airlock withheld this text: {})",
                found.kind.as_str().replace('_', " ")
            );
            if let Some(o) = v.as_object_mut() {
                for field in ["description", "title"] {
                    if o.contains_key(field) {
                        o.insert(field.to_owned(), serde_json::Value::String(note.clone()));
                    }
                }
            }
            if let Some(still) = serious(&v) {
                log(&format!(
                    "{server}: {what} {shown:?} is not served: {}",
                    still.detail
                ));
                return None;
            }
            log(&format!(
                "{server}: {what} {shown:?}: its description withheld from apps: {}",
                found.detail
            ));
            serde_json::from_value(v).ok()
        })
        .collect()
}

/// The view of `rooms`: names, owners and pins ([`view::build`]), then
/// where each tool's MCP App may lead ([`apps::link`]).
pub fn build_view(
    rooms: &BTreeMap<String, Arc<Served>>,
    separator: &str,
    book: &owners::Book,
) -> view::View {
    let mut view = view::build(rooms, separator, book);
    view.app_routes = apps::link(&mut view, book);
    view
}

#[cfg(test)]
mod tests;
