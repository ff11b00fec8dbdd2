// The one place the UI talks to the Rust shell, so the rest of the UI never
// calls `invoke` (or `listen`) directly. Command and event names, argument
// names and payload types come from the map generated from the Rust
// declaration (src-tauri/src/api_declaration.rs -> bindings/desktopApi.ts,
// by `cargo test -p airlock-desktop`): a wrong name, argument or result type
// here fails `npm run check`.
import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";

import { EVENT_NAMES, type Commands, type Events } from "./bindings/desktopApi";

import type { ApiError as ApiErrorPayload } from "./bindings/ApiError";
import type { AppChangeDone } from "./bindings/AppChangeDone";
import type { AppConfigView } from "./bindings/AppConfigView";
import type { AppChangeView } from "./bindings/AppChangeView";
import type { AppInfo } from "./bindings/AppInfo";
import type { AppView } from "./bindings/AppView";
import type { AuditEvent } from "./bindings/AuditEvent";
import type { AuditFilter } from "./bindings/AuditFilter";
import type { ExportDone } from "./bindings/ExportDone";
import type { ExportFormat } from "./bindings/ExportFormat";
import type { AuditPage } from "./bindings/AuditPage";
import type { CallOutcome } from "./bindings/CallOutcome";
import type { Capabilities } from "./bindings/Capabilities";
import type { CatalogItem } from "./bindings/CatalogItem";
import type { CatalogRefresh } from "./bindings/CatalogRefresh";
import type { CatalogSize } from "./bindings/CatalogSize";
import type { InstallRequest } from "./bindings/InstallRequest";
import type { StagedView } from "./bindings/StagedView";
import type { UpdateInfo } from "./bindings/UpdateInfo";
import type { StagedUpdateView } from "./bindings/StagedUpdateView";
import type { PolicyException } from "./bindings/PolicyException";
import type { ActivityOverview } from "./bindings/ActivityOverview";
import type { ActivityQuery } from "./bindings/ActivityQuery";
import type { AppProfile } from "./bindings/AppProfile";
import type { ConnectionReport } from "./bindings/ConnectionReport";
import type { CoreEvent } from "./bindings/CoreEvent";
import type { ElicitationFilter } from "./bindings/ElicitationFilter";
import type { ElicitationPage } from "./bindings/ElicitationPage";
import type { ElicitationRecord } from "./bindings/ElicitationRecord";
import type { FieldError } from "./bindings/FieldError";
import type { FormSchema } from "./bindings/FormSchema";
import type { HistoryFilter } from "./bindings/HistoryFilter";
import type { HistoryPage } from "./bindings/HistoryPage";
import type { ImportPlan } from "./bindings/ImportPlan";
import type { Inspection } from "./bindings/Inspection";
import type { LogLine } from "./bindings/LogLine";
import type { PendingView } from "./bindings/PendingView";
import type { PinChange } from "./bindings/PinChange";
import type { PinCount } from "./bindings/PinCount";
import type { PinReview } from "./bindings/PinReview";
import type { ReviewItem } from "./bindings/ReviewItem";
import type { RoomChange } from "./bindings/RoomChange";
import type { RoomReport } from "./bindings/RoomReport";
import type { UriConflict } from "./bindings/UriConflict";
import type { UriKind } from "./bindings/UriKind";
import type { ServerDef } from "./bindings/ServerDef";
import type { ServerInput } from "./bindings/ServerInput";
import type { ServerView } from "./bindings/ServerView";
import type { Settings } from "./bindings/Settings";
import type { JsonValue } from "./bindings/serde_json/JsonValue";

export type {
  ActivityOverview,
  ActivityQuery,
  AppProfile,
  AppChangeDone,
  AppChangeView,
  AppConfigView,
  AppInfo,
  AppView,
  AuditEvent,
  AuditFilter,
  AuditPage,
  CallOutcome,
  Capabilities,
  ConnectionReport,
  CoreEvent,
  ElicitationFilter,
  ElicitationPage,
  ElicitationRecord,
  FieldError,
  FormSchema,
  HistoryFilter,
  HistoryPage,
  ImportPlan,
  Inspection,
  JsonValue,
  LogLine,
  PendingView,
  PinChange,
  PinCount,
  PinReview,
  ReviewItem,
  RoomChange,
  RoomReport,
  ServerDef,
  ServerInput,
  ServerView,
  Settings,
  UriConflict,
  UriKind,
};
export type { ChangeKind } from "./bindings/ChangeKind";
export type { ExportDone, ExportFormat };
export type { EntryOrigin } from "./bindings/EntryOrigin";
export type { PathEntry } from "./bindings/PathEntry";
export type { ChangeState } from "./bindings/ChangeState";
export type { CatalogItem, CatalogRefresh, CatalogSize, InstallRequest, StagedView, UpdateInfo, StagedUpdateView };
export type { UpdatePlan } from "./bindings/UpdatePlan";
export type { PolicyException };
export type { CatalogEntry } from "./bindings/CatalogEntry";
export type { CatalogPackage } from "./bindings/CatalogPackage";
export type { InstallPlan } from "./bindings/InstallPlan";
export type { AskedVar } from "./bindings/AskedVar";
export type { DiffLine } from "./bindings/DiffLine";
export type { Finding } from "./bindings/Finding";
export type { FindingKind } from "./bindings/FindingKind";
export type { PinKind } from "./bindings/PinKind";
export type { PinPolicy } from "./bindings/PinPolicy";
export type { Severity } from "./bindings/Severity";
export type { ConnStatus } from "./bindings/ConnStatus";
export type { InputPrompt } from "./bindings/InputPrompt";
export type { InputValue } from "./bindings/InputValue";
export type { StoredValue } from "./bindings/StoredValue";
export type { ToolCallOutcome } from "./bindings/ToolCallOutcome";
export type { ToolCallRecord } from "./bindings/ToolCallRecord";
export type { Transport } from "./bindings/Transport";
export type { Warning } from "./bindings/Warning";
export type { BlockReason } from "./bindings/BlockReason";
export type { Choice } from "./bindings/Choice";
export type { FieldKind } from "./bindings/FieldKind";
export type { FormField } from "./bindings/FormField";
export type { StringFormat } from "./bindings/StringFormat";
export type { ConsentView } from "./bindings/ConsentView";
export type { Part } from "./bindings/Part";
export type { Split } from "./bindings/Split";
export type { ViewAction } from "./bindings/ViewAction";
export type { ViewButton } from "./bindings/ViewButton";
export type { ViewLine } from "./bindings/ViewLine";
export type { ViewWarning } from "./bindings/ViewWarning";

/** A failed command: the stable `code` from Rust and a sentence a person can read. */
export class ApiError extends Error {
  readonly command: string;
  readonly code: string;
  /** `invalid_form`: what is wrong with each field of the form. */
  readonly fields: FieldError[];

  constructor(command: string, cause: unknown) {
    const payload = asPayload(cause);
    super(payload.message);
    this.name = "ApiError";
    this.command = command;
    this.code = payload.code;
    this.fields = payload.fields ?? [];
  }
}

function isFieldError(v: unknown): v is FieldError {
  if (typeof v !== "object" || v === null) return false;
  const f = v as { field?: unknown; message?: unknown };
  return typeof f.field === "string" && typeof f.message === "string";
}

function asPayload(cause: unknown): ApiErrorPayload {
  if (typeof cause === "object" && cause !== null && "message" in cause) {
    const c = cause as { code?: unknown; message?: unknown; fields?: unknown };
    return {
      code: typeof c.code === "string" ? c.code : "error",
      message: String(c.message),
      fields: Array.isArray(c.fields) ? c.fields.filter(isFieldError) : undefined,
    };
  }
  if (typeof cause === "string") return { code: "error", message: cause };
  return { code: "error", message: JSON.stringify(cause) };
}

/** The message of any error, for display. */
export function errorText(cause: unknown): string {
  if (cause instanceof Error) return cause.message;
  return asPayload(cause).message;
}

type CommandName = keyof Commands;
type ArgsOf<C extends CommandName> = Commands[C]["args"];
type ResultOf<C extends CommandName> = Commands[C]["result"];
/** A command without arguments is called without an argument object. */
type CallArgs<C extends CommandName> = ArgsOf<C> extends Record<string, never> ? [] : [args: ArgsOf<C>];

/** Invoke a declared command with its declared arguments; its declared result. */
async function call<C extends CommandName>(command: C, ...args: CallArgs<C>): Promise<ResultOf<C>> {
  try {
    return await invoke<ResultOf<C>>(command, args[0]);
  } catch (cause) {
    throw new ApiError(command, cause);
  }
}

/** Listen to a declared event with its declared payload. */
function on<E extends keyof Events>(event: E, handler: (payload: Events[E]) => void): Promise<UnlistenFn> {
  return listen<Events[E]>(event, (e) => handler(e.payload));
}

// ----- app and settings -----

export function appInfo(): Promise<AppInfo> {
  return call("app_info");
}

/** The window drew its first data; the shell prints how long after start. */
export function startupPainted(): Promise<number> {
  return call("startup_painted");
}

export function getSettings(): Promise<Settings> {
  return call("get_settings");
}

export function saveSettings(settings: Settings): Promise<Settings> {
  return call("save_settings", { settings });
}

// ----- servers -----

export function listServers(): Promise<ServerView[]> {
  return call("list_servers");
}

export function addServer(input: ServerInput): Promise<ServerDef> {
  return call("add_server", { input });
}

export function updateServer(input: ServerInput): Promise<ServerDef> {
  return call("update_server", { input });
}

export async function removeServer(name: string): Promise<void> {
  await call("remove_server", { name });
}

export function parseConfig(text: string): Promise<ImportPlan> {
  return call("parse_config", { text });
}

export function importConfig(text: string, answers: Record<string, string>): Promise<string[]> {
  return call("import_config", { text, answers });
}

export function connect(name: string): Promise<ConnectionReport> {
  return call("connect", { name });
}

/** The tools of a server the person turned off. */
export function toolsOff(server: string): Promise<string[]> {
  return call("tools_off", { server });
}

/** Turn a tool on or off: no app sees a tool that is off, and no call reaches it. */
export function setToolOn(server: string, tool: string, on: boolean): Promise<boolean> {
  return call("set_tool_on", { server, tool, on });
}

/** Export audit events to a file the person picks in Airlock's save dialog; null when cancelled. */
export function exportAudit(filter: AuditFilter, format: ExportFormat): Promise<ExportDone | null> {
  return call("export_audit", { filter, format });
}

export async function setPaused(name: string, paused: boolean): Promise<void> {
  await call("set_paused", { name, paused });
}

export async function disconnect(name: string): Promise<void> {
  await call("disconnect", { name });
}

/** Sign in (MCP authorization): consent to the sign-in page, browser round trip, then connect. */
export function signIn(name: string): Promise<ConnectionReport> {
  return call("sign_in", { name });
}

export function cancelSignIn(name: string): Promise<boolean> {
  return call("cancel_sign_in", { name });
}

/** Set (or with `clientId: null` forget) the OAuth client registered with the provider. */
export async function setOAuthClient(name: string, clientId: string | null, clientSecret: string | null, redirectPort: number | null): Promise<void> {
  await call("set_oauth_client", { name, clientId, clientSecret, redirectPort });
}

/** Forget the server's OAuth tokens; whether any were stored. */
export function signOut(name: string): Promise<boolean> {
  return call("sign_out", { name });
}

export function serverLogs(name: string, limit: number): Promise<LogLine[]> {
  return call("server_logs", { name, limit });
}

export function serverDetails(name: string): Promise<Capabilities> {
  return call("server_details", { name });
}

export function callTool(
  server: string,
  tool: string,
  args: { [key: string]: JsonValue },
): Promise<CallOutcome> {
  return call("call_tool", { server, tool, arguments: args });
}

// ----- history -----

export function history(filter: HistoryFilter): Promise<HistoryPage> {
  return call("history", { filter });
}

export function elicitations(server: string | null, limit: number): Promise<ElicitationRecord[]> {
  return call("elicitations", { server, limit });
}

/** One page of the elicitation history, filtered by the core, newest first (keyset: `before_id`). */
export function elicitationPage(filter: ElicitationFilter): Promise<ElicitationPage> {
  return call("elicitation_page", { filter });
}

/** One page of the audit trail, filtered by the core, newest first (keyset: `before_id`). */
export function auditPage(filter: AuditFilter): Promise<AuditPage> {
  return call("audit_page", { filter });
}

/** The kinds of audit event on record (the Event filter's menu). */
export function auditKinds(): Promise<string[]> {
  return call("audit_kinds");
}

// ----- elicitations waiting for the user -----

export function pending(): Promise<PendingView[]> {
  return call("pending");
}

export type ConsentAnswer = "accept" | "decline" | "cancel";
export type LateAnswer = "continue" | "cancel";

/** `false` when nobody waits for this answer any more (answered elsewhere). */
export function answerConsent(recordId: number, answer: ConsentAnswer): Promise<boolean> {
  return call("answer_consent", { recordId, answer });
}

export function answerLate(recordId: number, answer: LateAnswer): Promise<boolean> {
  return call("answer_late", { recordId, answer });
}

export type FormAction = "accept" | "decline" | "cancel";

/**
 * Answer a form: "accept" with the answers, or "decline" / "cancel". An
 * accept that does not fit the form fails with code `invalid_form` and
 * `fields`, and the form stays pending. `false` when nobody waits for this
 * answer any more (answered elsewhere, or the request ended).
 */
export function answerForm(
  recordId: number,
  action: FormAction,
  content: { [key: string]: JsonValue } | null,
): Promise<boolean> {
  return call("answer_form", { recordId, action, content });
}

export function urlCheck(url: string): Promise<Inspection> {
  return call("url_check", { url });
}

// ----- apps: connecting them, what they see, pausing them -----

/**
 * Every app, one per name: the ones Airlock can connect (detected or not,
 * connected or not), the ones with a profile, the ones attached now.
 */
export function apps(): Promise<AppView[]> {
  return call("apps");
}

/** What connecting (or disconnecting) an app would change; nothing is written. */
export function planApp(app: string, connect: boolean, moveServers: boolean): Promise<AppChangeView> {
  return call("plan_app", { app, connect, moveServers });
}

/** Apply the change whose diff was shown; refused (`changed_since_shown`) when the file changed since. */
export function applyApp(app: string, connect: boolean, moveServers: boolean, diff: string): Promise<AppChangeDone> {
  return call("apply_app", { app, connect, moveServers, diff });
}

/** Pause an app (its calls are refused, "paused in Airlock") or resume it. */
export async function setAppPaused(name: string, paused: boolean): Promise<void> {
  await call("set_app_paused", { name, paused });
}

/** Which servers (and tools) an app sees; an app without a profile gets one. */
export async function setAppProfile(name: string, profile: AppProfile): Promise<void> {
  await call("set_app_profile", { name, profile });
}

// ----- the review of changed tools and prompts (pins), owners of URIs -----

/** Changes waiting for review: the newest (oldest first), and how many wait in all. */
export function pinReview(): Promise<PinReview> {
  return call("pin_review");
}

/** A server's newest decided changes, newest first. */
export function pinHistory(server: string, limit: number): Promise<PinChange[]> {
  return call("pin_history", { server, limit });
}

/** How many changes wait for review, per server. */
export function pinCounts(): Promise<PinCount[]> {
  return call("pin_counts");
}

export type PinDecision = "approve" | "reject";

/** Approve (apps see the new version) or reject (it stays withdrawn) a waiting change. */
export function decidePinChange(id: number, decision: PinDecision): Promise<PinChange> {
  return call("decide_pin_change", { id, decision });
}

/** Read a registry (empty: the official MCP Registry) into the catalog's cache. */
export function catalogRefresh(registry: string): Promise<CatalogRefresh> {
  return call("catalog_refresh", { registry });
}

/** Cached catalog entries whose name or description contains `text` (offline). */
export function catalogSearch(text: string, limit: number): Promise<CatalogItem[]> {
  return call("catalog_search", { text, limit });
}

/** How many entries the catalog's cache holds, and when it was read. */
export function catalogSize(): Promise<CatalogSize> {
  return call("catalog_size");
}

/** Download and lock an entry's package (nothing of it runs): the plan to consent to. */
export function prepareInstall(request: InstallRequest): Promise<StagedView> {
  return call("prepare_install", { request });
}

/** The person said yes: the server is added, confined. */
export function commitInstall(id: number): Promise<ServerDef> {
  return call("commit_install", { id });
}

/** The person said no: the download is removed. */
export async function cancelInstall(id: number): Promise<void> {
  await call("cancel_install", { id });
}

/** Start an installed server in its room: its first tools, each waiting for review. */
export function firstSight(server: string): Promise<PinChange[]> {
  return call("first_sight", { server });
}

/** The person has seen an installed server's first tools. */
export async function firstSightDone(server: string): Promise<void> {
  await call("first_sight_done", { server });
}

/** What the registries (as last read) say of the installed servers. */
export function catalogUpdates(): Promise<UpdateInfo[]> {
  return call("catalog_updates");
}

/** Install a server's newer version beside it, start it once confined, compare its tools. */
export function prepareUpdate(server: string): Promise<StagedUpdateView> {
  return call("prepare_update", { server });
}

/** The person approved the update. */
export function commitUpdate(id: number): Promise<ServerDef> {
  return call("commit_update", { id });
}

/** The person kept the old version: the new one is removed. */
export async function cancelUpdate(id: number): Promise<void> {
  await call("cancel_update", { id });
}

/** The request for an exception for a server the team's policy refuses (null: it does not). */
export function policyException(server: string, reason: string): Promise<PolicyException | null> {
  return call("policy_exception", { server, reason });
}

/** Resource URIs this server and another both list. */
/** A stdio server's room: confined or not, what it may read, write and reach. */
export function serverRoom(name: string): Promise<RoomReport> {
  return call("server_room", { name });
}

/** One change to a server's room (from its next start); the room then. */
export function changeRoom(name: string, change: RoomChange): Promise<RoomReport> {
  return call("change_room", { name, change });
}

export function uriConflicts(server: string): Promise<UriConflict[]> {
  return call("uri_conflicts", { server });
}

/** Apps read `uri` from `server` from now on. */
export async function chooseUriOwner(uri: string, kind: UriKind, server: string): Promise<void> {
  await call("choose_uri_owner", { uri, kind, server });
}

/** The change a notification's Review asked to show, once. */
export function takeReviewRequest(): Promise<number | null> {
  return call("take_review_request");
}

// ----- events -----

/** Status changes, log lines and elicitation transitions. */
export function onCoreEvent(handler: (event: CoreEvent) => void): Promise<UnlistenFn> {
  return on(EVENT_NAMES.CORE_EVENT, handler);
}

/** The shell asks for a page (the tray's "Open requests"). */
export function onNavigate(handler: (page: string) => void): Promise<UnlistenFn> {
  return on(EVENT_NAMES.NAVIGATE_EVENT, handler);
}

/** A notification's Review: show this change. */
export function onReview(handler: (change: number) => void): Promise<UnlistenFn> {
  return on(EVENT_NAMES.REVIEW_EVENT, handler);
}

/** The inbox changed; the payload is the number of waiting items. */
export function onInboxChanged(handler: (count: number) => void): Promise<UnlistenFn> {
  return on(EVENT_NAMES.INBOX_EVENT, handler);
}

// ----- the activity overview, start at login -----

/** Requests and calls per day, domains opened, who asks most (History's Activity tab). */
export function activity(query: ActivityQuery): Promise<ActivityOverview> {
  return call("activity", { query });
}

export function autostart(): Promise<boolean> {
  return call("autostart");
}

export function setAutostart(enabled: boolean): Promise<boolean> {
  return call("set_autostart", { enabled });
}
