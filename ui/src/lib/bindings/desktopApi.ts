// Generated from src-tauri/src/api_declaration.rs by `cargo test -p airlock-desktop`. Do not edit.
import type { ActivityOverview } from "./ActivityOverview";
import type { ActivityQuery } from "./ActivityQuery";
import type { AppChangeDone } from "./AppChangeDone";
import type { AppChangeView } from "./AppChangeView";
import type { AppInfo } from "./AppInfo";
import type { AppProfile } from "./AppProfile";
import type { AppView } from "./AppView";
import type { AuditFilter } from "./AuditFilter";
import type { AuditPage } from "./AuditPage";
import type { CallOutcome } from "./CallOutcome";
import type { Capabilities } from "./Capabilities";
import type { CatalogItem } from "./CatalogItem";
import type { CatalogRefresh } from "./CatalogRefresh";
import type { CatalogSize } from "./CatalogSize";
import type { ConnectionReport } from "./ConnectionReport";
import type { CoreEvent } from "./CoreEvent";
import type { ElicitationFilter } from "./ElicitationFilter";
import type { ElicitationPage } from "./ElicitationPage";
import type { ElicitationRecord } from "./ElicitationRecord";
import type { ExportDone } from "./ExportDone";
import type { ExportFormat } from "./ExportFormat";
import type { HistoryFilter } from "./HistoryFilter";
import type { HistoryPage } from "./HistoryPage";
import type { ImportPlan } from "./ImportPlan";
import type { Inspection } from "./Inspection";
import type { InstallRequest } from "./InstallRequest";
import type { JsonValue } from "./serde_json/JsonValue";
import type { LogLine } from "./LogLine";
import type { PendingView } from "./PendingView";
import type { PinChange } from "./PinChange";
import type { PinCount } from "./PinCount";
import type { PinReview } from "./PinReview";
import type { PolicyException } from "./PolicyException";
import type { RoomChange } from "./RoomChange";
import type { RoomReport } from "./RoomReport";
import type { ServerDef } from "./ServerDef";
import type { ServerInput } from "./ServerInput";
import type { ServerView } from "./ServerView";
import type { Settings } from "./Settings";
import type { StagedUpdateView } from "./StagedUpdateView";
import type { StagedView } from "./StagedView";
import type { UpdateInfo } from "./UpdateInfo";
import type { UriConflict } from "./UriConflict";

/**
 * Every desktop command by name: its arguments as `invoke` takes them
 * (camelCase, as Tauri maps them) and its result.
 */
export type Commands = {
  /**
   * Name, version and data folder of this build.
   */
  app_info: { args: Record<string, never>; result: AppInfo };
  get_settings: { args: Record<string, never>; result: Settings };
  save_settings: { args: { settings: Settings }; result: Settings };
  /**
   * Every configured server and its live status. Async: the first
   * look at an HTTP server reads its OAuth state from the keychain.
   */
  list_servers: { args: Record<string, never>; result: Array<ServerView> };
  add_server: { args: { input: ServerInput }; result: ServerDef };
  update_server: { args: { input: ServerInput }; result: ServerDef };
  remove_server: { args: { name: string }; result: null };
  /**
   * What importing this client configuration would add, and what it asks for.
   */
  parse_config: { args: { text: string }; result: ImportPlan };
  /**
   * Import a client configuration with the answers to its questions; the names added.
   */
  import_config: { args: { text: string; answers: { [key in string]: string } }; result: Array<string> };
  connect: { args: { name: string }; result: ConnectionReport };
  disconnect: { args: { name: string }; result: null };
  /**
   * Pause a server (disconnect it; it asks nothing until resumed) or resume it.
   */
  set_paused: { args: { name: string; paused: boolean }; result: null };
  /**
   * Sign in (MCP authorization): consent to the sign-in page, browser round trip, then connect.
   */
  sign_in: { args: { name: string }; result: ConnectionReport };
  /**
   * Stop a sign-in waiting for consent or for the browser; whether one was waiting.
   */
  cancel_sign_in: { args: { name: string }; result: boolean };
  /**
   * Forget the server's OAuth tokens and disconnect; whether any were stored.
   */
  sign_out: { args: { name: string }; result: boolean };
  /**
   * Set (or with `clientId: null` forget) the OAuth client registered with the provider.
   */
  set_oauth_client: { args: { name: string; clientId: string | null; clientSecret: string | null; redirectPort: number | null }; result: null };
  server_logs: { args: { name: string; limit: number }; result: Array<LogLine> };
  /**
   * Tools, prompts and resources of a server, as it sent them.
   */
  server_details: { args: { name: string }; result: Capabilities };
  /**
   * Call a tool; `arguments` is a JSON object (or null).
   */
  call_tool: { args: { server: string; tool: string; arguments: JsonValue }; result: CallOutcome };
  /**
   * The tools of a server the person turned off.
   */
  tools_off: { args: { server: string }; result: Array<string> };
  /**
   * Turn a tool of a server on or off (no app sees a tool that is off); whether it changed.
   */
  set_tool_on: { args: { server: string; tool: string; on: boolean }; result: boolean };
  history: { args: { filter: HistoryFilter }; result: HistoryPage };
  elicitations: { args: { server: string | null; limit: number }; result: Array<ElicitationRecord> };
  /**
   * One page of the elicitation history, filtered by the core, newest first (keyset).
   */
  elicitation_page: { args: { filter: ElicitationFilter }; result: ElicitationPage };
  /**
   * One page of the audit trail, filtered by the core, newest first (keyset).
   */
  audit_page: { args: { filter: AuditFilter }; result: AuditPage };
  /**
   * Export the audit events the filter selects (all of them) to a file
   * the person picks in a save dialog Airlock opens; `None`: cancelled.
   */
  export_audit: { args: { filter: AuditFilter; format: ExportFormat }; result: ExportDone | null };
  /**
   * The kinds of audit event on record (the Event filter's menu).
   */
  audit_kinds: { args: Record<string, never>; result: Array<string> };
  /**
   * Elicitations waiting for the user.
   */
  pending: { args: Record<string, never>; result: Array<PendingView> };
  /**
   * "accept" | "decline" | "cancel"; `false` when nobody waits for this answer any more.
   */
  answer_consent: { args: { recordId: number; answer: string }; result: boolean };
  /**
   * "continue" | "cancel"; `false` when nobody waits for this answer any more.
   */
  answer_late: { args: { recordId: number; answer: string }; result: boolean };
  /**
   * "accept" with `content`, "decline" or "cancel"; `false` when nobody waits any more.
   */
  answer_form: { args: { recordId: number; action: string; content: JsonValue | null }; result: boolean };
  /**
   * What a URL really points at, under the current settings.
   */
  url_check: { args: { url: string }; result: Inspection };
  /**
   * Every app, one per name: the ones Airlock can connect (detected or
   * not, connected or not), the ones with a profile, the ones attached
   * now. Async: it reads every app's config and SQLite.
   */
  apps: { args: Record<string, never>; result: Array<AppView> };
  /**
   * What connecting (or disconnecting) an app would change in its MCP config; nothing written.
   */
  plan_app: { args: { app: string; connect: boolean; moveServers: boolean }; result: AppChangeView };
  /**
   * Apply the change whose `diff` was shown; refused when the file changed since.
   */
  apply_app: { args: { app: string; connect: boolean; moveServers: boolean; diff: string }; result: AppChangeDone };
  /**
   * Pause an app (its calls are refused, "paused in Airlock") or resume it.
   */
  set_app_paused: { args: { name: string; paused: boolean }; result: null };
  /**
   * Which servers (and tools) an app sees.
   */
  set_app_profile: { args: { name: string; profile: AppProfile }; result: null };
  /**
   * Requests per day by outcome, domains opened, who asks most.
   */
  activity: { args: { query: ActivityQuery }; result: ActivityOverview };
  /**
   * Whether Airlock starts at login.
   */
  autostart: { args: Record<string, never>; result: boolean };
  /**
   * Start Airlock at login (or not); the new state.
   */
  set_autostart: { args: { enabled: boolean }; result: boolean };
  /**
   * Changes of tools and prompts waiting for review (the newest, oldest first) and how many wait.
   */
  pin_review: { args: Record<string, never>; result: PinReview };
  /**
   * A server's newest decided changes (history of the review), newest first.
   */
  pin_history: { args: { server: string; limit: number }; result: Array<PinChange> };
  /**
   * How many changes wait for review, per server (the badges).
   */
  pin_counts: { args: Record<string, never>; result: Array<PinCount> };
  /**
   * "approve" | "reject" a waiting change; the change as decided.
   */
  decide_pin_change: { args: { id: number; decision: string }; result: PinChange };
  /**
   * Resource URIs this server and another both list.
   */
  uri_conflicts: { args: { server: string }; result: Array<UriConflict> };
  /**
   * Apps read `uri` ("resource" | "template") from `server` from now on.
   */
  choose_uri_owner: { args: { uri: string; kind: string; server: string }; result: null };
  /**
   * A stdio server's room: confined or not, what it may read, write
   * and reach, and where each entry came from.
   */
  server_room: { args: { name: string }; result: RoomReport };
  /**
   * One change to a server's room (from its next start); the room then.
   */
  change_room: { args: { name: string; change: RoomChange }; result: RoomReport };
  /**
   * Read a registry (empty: the official MCP Registry) into the catalog's cache.
   */
  catalog_refresh: { args: { registry: string }; result: CatalogRefresh };
  /**
   * Cached catalog entries whose name or description contains `text` (offline).
   */
  catalog_search: { args: { text: string; limit: number }; result: Array<CatalogItem> };
  /**
   * How many entries the catalog's cache holds, and when it was read.
   */
  catalog_size: { args: Record<string, never>; result: CatalogSize };
  /**
   * Download and lock a catalog entry's package (nothing of it runs): the plan to consent to.
   */
  prepare_install: { args: { request: InstallRequest }; result: StagedView };
  /**
   * Install what was prepared (the person said yes): the server, confined.
   */
  commit_install: { args: { id: number }; result: ServerDef };
  /**
   * Drop what was prepared (the person said no): its download is removed.
   */
  cancel_install: { args: { id: number }; result: null };
  /**
   * Start an installed server in its room; its first tools, each waiting for review.
   */
  first_sight: { args: { server: string }; result: Array<PinChange> };
  /**
   * The person has seen an installed server's first tools.
   */
  first_sight_done: { args: { server: string }; result: null };
  /**
   * What the registries (as last read) say of the installed servers: newer versions, deprecations.
   */
  catalog_updates: { args: Record<string, never>; result: Array<UpdateInfo> };
  /**
   * Install a server's newer version beside it, start it once confined, compare its tools: the review.
   */
  prepare_update: { args: { server: string }; result: StagedUpdateView };
  /**
   * The person approved the update: the server moves to it, its pins to the new tools.
   */
  commit_update: { args: { id: number }; result: ServerDef };
  /**
   * The person kept the old version: the new one is removed.
   */
  cancel_update: { args: { id: number }; result: null };
  /**
   * The request for an exception for a server the team's policy refuses (null: it does not refuse it).
   */
  policy_exception: { args: { server: string; reason: string }; result: PolicyException | null };
  /**
   * The change a notification's Review asked to show, once (null: none).
   */
  take_review_request: { args: Record<string, never>; result: number | null };
  /**
   * The window drew its first data (the server list): the shell prints
   * how long after start, once; the milliseconds (0 after the first).
   */
  startup_painted: { args: Record<string, never>; result: number };
};

/** Every event the desktop shell emits, by name: its payload. */
export type Events = {
  /**
   * Every core event: status changes, log lines, elicitation transitions.
   */
  "airlock://event": CoreEvent;
  /**
   * The inbox changed; the payload is the number of waiting items.
   */
  "airlock://inbox": number;
  /**
   * The shell asks the window to show a page (the tray's "Open requests": `elicitations`).
   */
  "airlock://navigate": string;
  /**
   * Show this change in the review (a notification's Review action).
   */
  "airlock://review": number;
};

/** Event names, by their name in Rust. */
export const EVENT_NAMES = {
  CORE_EVENT: "airlock://event",
  INBOX_EVENT: "airlock://inbox",
  NAVIGATE_EVENT: "airlock://navigate",
  REVIEW_EVENT: "airlock://review",
} as const;
