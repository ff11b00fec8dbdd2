// The desktop API, declared once: every command the UI may invoke (its
// arguments, as the UI names them after Tauri's camelCase mapping, and its
// result), the core plugin calls the UI may make, and every event the shell
// emits with its payload type.
//
// Not a module: `api.rs` includes this file and expands it into the Tauri
// commands, `generate_handler!`, the typed events and the TypeScript map
// (ui/src/lib/bindings/desktopApi.ts); `build.rs` includes it too and reads
// only the names, for the app manifest, the capability
// (capabilities/default.json) and the isolation hook's allow-list
// (isolation/allowed.js). Each command is implemented by the function of the
// same name in `commands.rs`, which takes a `Ctx` and these arguments.
//
// `sync fn` commands run on the main thread, `async fn` ones on the async
// runtime (use it for anything that may wait: network, keychain).
desktop_api! {
    commands {
        /// Name, version and data folder of this build.
        sync fn app_info() -> AppInfo;
        sync fn get_settings() -> Settings;
        sync fn save_settings(settings: Settings) -> Settings;
        /// Every configured server and its live status. Async: the first
        /// look at an HTTP server reads its OAuth state from the keychain.
        async fn list_servers() -> Vec<ServerView>;
        sync fn add_server(input: ServerInput) -> ServerDef;
        sync fn update_server(input: ServerInput) -> ServerDef;
        sync fn remove_server(name: String) -> ();
        /// What importing this client configuration would add, and what it asks for.
        sync fn parse_config(text: String) -> ImportPlan;
        /// Import a client configuration with the answers to its questions; the names added.
        sync fn import_config(text: String, answers: BTreeMap<String, String>) -> Vec<String>;
        async fn connect(name: String) -> ConnectionReport;
        sync fn disconnect(name: String) -> ();
        /// Pause a server (disconnect it; it asks nothing until resumed) or resume it.
        sync fn set_paused(name: String, paused: bool) -> ();
        /// Sign in (MCP authorization): consent to the sign-in page, browser round trip, then connect.
        async fn sign_in(name: String) -> ConnectionReport;
        /// Stop a sign-in waiting for consent or for the browser; whether one was waiting.
        sync fn cancel_sign_in(name: String) -> bool;
        /// Forget the server's OAuth tokens and disconnect; whether any were stored.
        sync fn sign_out(name: String) -> bool;
        /// Set (or with `clientId: null` forget) the OAuth client registered with the provider.
        sync fn set_oauth_client(
            name: String,
            client_id: Option<String>,
            client_secret: Option<String>,
            redirect_port: Option<u16>,
        ) -> ();
        sync fn server_logs(name: String, limit: u32) -> Vec<LogLine>;
        /// Tools, prompts and resources of a server, as it sent them.
        async fn server_details(name: String) -> Capabilities;
        /// Call a tool; `arguments` is a JSON object (or null).
        async fn call_tool(server: String, tool: String, arguments: JsonValue) -> CallOutcome;
        /// The tools of a server the person turned off.
        sync fn tools_off(server: String) -> Vec<String>;
        /// Turn a tool of a server on or off (no app sees a tool that is off); whether it changed.
        sync fn set_tool_on(server: String, tool: String, on: bool) -> bool;
        // The lists below read SQLite: async, so that they never hold up the
        // main thread, which builds the native consent dialogs (a burst of
        // events makes the window read them just as a dialog is due).
        async fn history(filter: HistoryQuery) -> HistoryPage;
        async fn elicitations(server: Option<String>, limit: u32) -> Vec<ElicitationRecord>;
        /// One page of the elicitation history, filtered by the core, newest first (keyset).
        async fn elicitation_page(filter: ElicitationQuery) -> ElicitationPage;
        /// One page of the audit trail, filtered by the core, newest first (keyset).
        async fn audit_page(filter: AuditQuery) -> AuditPage;
        /// Export the audit events the filter selects (all of them) to a file
        /// the person picks in a save dialog Airlock opens; `None`: cancelled.
        async fn export_audit(filter: AuditQuery, format: ExportFormat) -> Option<ExportDone>;
        /// The kinds of audit event on record (the Event filter's menu).
        async fn audit_kinds() -> Vec<String>;
        /// Elicitations waiting for the user.
        async fn pending() -> Vec<PendingView>;
        /// "accept" | "decline" | "cancel"; `false` when nobody waits for this answer any more.
        sync fn answer_consent(record_id: i64, answer: String) -> bool;
        /// "continue" | "cancel"; `false` when nobody waits for this answer any more.
        sync fn answer_late(record_id: i64, answer: String) -> bool;
        /// "accept" with `content`, "decline" or "cancel"; `false` when nobody waits any more.
        sync fn answer_form(record_id: i64, action: String, content: Option<JsonValue>) -> bool;
        /// What a URL really points at, under the current settings.
        sync fn url_check(url: String) -> Inspection;
        /// Every app, one per name: the ones Airlock can connect (detected or
        /// not, connected or not), the ones with a profile, the ones attached
        /// now. Async: it reads every app's config and SQLite.
        async fn apps() -> Vec<AppView>;
        /// What connecting (or disconnecting) an app would change in its MCP config; nothing written.
        sync fn plan_app(app: String, connect: bool, move_servers: bool) -> AppChangeView;
        /// Apply the change whose `diff` was shown; refused when the file changed since.
        sync fn apply_app(app: String, connect: bool, move_servers: bool, diff: String) -> AppChangeDone;
        /// Pause an app (its calls are refused, "paused in Airlock") or resume it.
        sync fn set_app_paused(name: String, paused: bool) -> ();
        /// Which servers (and tools) an app sees.
        sync fn set_app_profile(name: String, profile: AppProfile) -> ();
        /// Requests per day by outcome, domains opened, who asks most.
        sync fn activity(query: ActivityQuery) -> ActivityOverview;
        /// Whether Airlock starts at login.
        sync fn autostart() -> bool;
        /// Start Airlock at login (or not); the new state.
        sync fn set_autostart(enabled: bool) -> bool;
        /// Changes of tools and prompts waiting for review (the newest, oldest first) and how many wait.
        async fn pin_review() -> PinReview;
        /// A server's newest decided changes (history of the review), newest first.
        async fn pin_history(server: String, limit: u32) -> Vec<PinChange>;
        /// How many changes wait for review, per server (the badges).
        async fn pin_counts() -> Vec<PinCount>;
        /// "approve" | "reject" a waiting change; the change as decided.
        async fn decide_pin_change(id: i64, decision: String) -> PinChange;
        /// Resource URIs this server and another both list.
        async fn uri_conflicts(server: String) -> Vec<UriConflict>;
        /// Apps read `uri` ("resource" | "template") from `server` from now on.
        async fn choose_uri_owner(uri: String, kind: String, server: String) -> ();
        /// A stdio server's room: confined or not, what it may read, write
        /// and reach, and where each entry came from.
        sync fn server_room(name: String) -> RoomReport;
        /// One change to a server's room (from its next start); the room then.
        sync fn change_room(name: String, change: RoomChange) -> RoomReport;
        /// Read a registry (empty: the official MCP Registry) into the catalog's cache.
        async fn catalog_refresh(registry: String) -> CatalogRefresh;
        /// Cached catalog entries whose name or description contains `text` (offline).
        async fn catalog_search(text: String, limit: u32) -> Vec<CatalogItem>;
        /// How many entries the catalog's cache holds, and when it was read.
        async fn catalog_size() -> CatalogSize;
        /// Download and lock a catalog entry's package (nothing of it runs): the plan to consent to.
        async fn prepare_install(request: InstallRequest) -> StagedView;
        /// Install what was prepared (the person said yes): the server, confined.
        async fn commit_install(id: u64) -> ServerDef;
        /// Drop what was prepared (the person said no): its download is removed.
        sync fn cancel_install(id: u64) -> ();
        /// Start an installed server in its room; its first tools, each waiting for review.
        async fn first_sight(server: String) -> Vec<PinChange>;
        /// The person has seen an installed server's first tools.
        async fn first_sight_done(server: String) -> ();
        /// What the registries (as last read) say of the installed servers: newer versions, deprecations.
        async fn catalog_updates() -> Vec<UpdateInfo>;
        /// Install a server's newer version beside it, start it once confined, compare its tools: the review.
        async fn prepare_update(server: String) -> StagedUpdateView;
        /// The person approved the update: the server moves to it, its pins to the new tools.
        async fn commit_update(id: u64) -> ServerDef;
        /// The person kept the old version: the new one is removed.
        sync fn cancel_update(id: u64) -> ();
        /// The request for an exception for a server the team's policy refuses (null: it does not refuse it).
        sync fn policy_exception(server: String, reason: String) -> Option<PolicyException>;
        /// The change a notification's Review asked to show, once (null: none).
        sync fn take_review_request() -> Option<i64>;
        /// The window drew its first data (the server list): the shell prints
        /// how long after start, once; the milliseconds (0 after the first).
        sync fn startup_painted() -> u32;
    }
    core_plugins {
        // `listen` / `unlisten` from @tauri-apps/api/event.
        event: [listen, unlisten],
    }
    events {
        /// Every core event: status changes, log lines, elicitation transitions.
        CORE_EVENT = "airlock://event" => CoreEvent;
        /// The inbox changed; the payload is the number of waiting items.
        INBOX_EVENT = "airlock://inbox" => usize;
        /// The shell asks the window to show a page (the tray's "Open requests": `elicitations`).
        NAVIGATE_EVENT = "airlock://navigate" => String;
        /// Show this change in the review (a notification's Review action).
        REVIEW_EVENT = "airlock://review" => i64;
    }
}
