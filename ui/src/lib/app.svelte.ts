// Shared, reactive app state: servers with live status, the inbox of waiting
// elicitations, the current page, and counters that pages watch to refetch
// when the core reports a change.
import * as api from "./api";
import type { AppInfo, ConnStatus, CoreEvent, PendingView, ServerView } from "./api";
import { isNews } from "./catalog";
import { coalesced } from "./coalesce";

/**
 * Events come in bursts (a server can send a request every few ms): lists
 * refetch at most once per this many ms, and once more after the last event.
 */
export const EVENT_GAP_MS = 50;

export type Page = "servers" | "catalog" | "review" | "apps" | "elicitations" | "history" | "settings";

export type Route =
  | { page: "servers" }
  | { page: "server"; name: string; tab?: ServerTab }
  /** Servers from MCP registries: search, install. */
  | { page: "catalog" }
  /** Changes of tools and prompts waiting for review; `change` or `server`: shown first. */
  | { page: "review"; change?: number; server?: string }
  | { page: "apps" }
  | { page: "elicitations" }
  /** `tab`: the tab shown first (else Tool calls). */
  | { page: "history"; tab?: HistoryTab }
  | { page: "settings" };

export type ServerTab = "tools" | "prompts" | "resources" | "logs";

export type HistoryTab = "calls" | "audit" | "activity";

class AppState {
  info = $state<AppInfo | null>(null);
  servers = $state<ServerView[]>([]);
  serversLoaded = $state(false);
  serversError = $state<string | null>(null);
  pending = $state<PendingView[]>([]);
  route = $state<Route>({ page: "servers" });
  /** History's tool calls open filtered to this app (set by the Apps page). */
  historyApp = $state<string | null>(null);
  /** History's tool calls open with this search (set by the command palette). */
  historySearch = $state<string | null>(null);
  /** Wall clock, ticking every second, for elapsed times. */
  now = $state(Date.now());
  /** Bumped after elicitation transitions: at most once per EVENT_GAP_MS, and after the last. */
  elicitationTick = $state(0);
  /** Per server: bumped on every log line. */
  logTicks = $state<Record<string, number>>({});
  /** Bumped when a server says its tools, prompts or resources changed (its page lists them again). */
  listTicks = $state<Record<string, number>>({});
  /** Per server: how many changes of its tools and prompts wait for review. */
  pinCounts = $state<Record<string, number>>({});
  /** Bumped when changes waiting for review appear or are decided (the Review page lists them again). */
  pinTick = $state(0);
  /** A short message shown at the bottom (saved, removed...). */
  toast = $state<{ text: string; tone: "ok" | "bad"; id: number } | null>(null);

  consentCount = $derived(this.pending.filter((p) => p.kind === "consent").length);
  formCount = $derived(this.pending.filter((p) => p.kind === "form").length);
  /** Changes waiting for review, every server. */
  pinTotal = $derived(Object.values(this.pinCounts).reduce((a, b) => a + b, 0));
  /** Installed servers the registries have news of (a newer version, deprecated, deleted). */
  catalogNews = $state(0);

  #started = false;
  /** Refreshes of the server list, newest last: an older answer never overwrites a newer one. */
  #listRequests = 0;
  #listApplied = 0;
  /** Counts status events; with the last status event of each server. */
  #statusEvents = 0;
  #liveStatus = new Map<string, { status: ConnStatus; event: number }>();
  #toastTimer: ReturnType<typeof setTimeout> | undefined;
  /** One inbox refetch for a burst of inbox events. */
  #pendingSoon = coalesced(() => this.refreshPending(), EVENT_GAP_MS);
  /** One review refetch for a burst of pin events. */
  #pinSoon = coalesced(() => {
    this.pinTick += 1;
  }, EVENT_GAP_MS);
  /** One tick for a burst of elicitation events. */
  #elicitationSoon = coalesced(() => {
    this.elicitationTick += 1;
  }, EVENT_GAP_MS);

  get page(): Page {
    return this.route.page === "server" ? "servers" : this.route.page;
  }

  go(route: Route): void {
    this.route = route;
  }

  notify(text: string, tone: "ok" | "bad" = "ok"): void {
    clearTimeout(this.#toastTimer);
    this.toast = { text, tone, id: Date.now() };
    this.#toastTimer = setTimeout(() => {
      this.toast = null;
    }, 5000);
  }

  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    // Milestones of the start for the benchmark (tests/e2e/bench/start.mjs).
    performance.mark("airlock:start");
    setInterval(() => {
      this.now = Date.now();
    }, 1000);
    await Promise.all([
      api.onCoreEvent((e) => this.#onEvent(e)),
      api.onInboxChanged(() => this.#pendingSoon()),
      api.onNavigate((page) => {
        if (page === "elicitations" || page === "apps" || page === "review") this.go({ page });
      }),
      api.onReview((change) => this.showChange(change)),
    ]).catch(() => undefined);
    performance.mark("airlock:listening");
    api
      .appInfo()
      .then((i) => (this.info = i))
      .catch(() => undefined);
    await Promise.all([this.refreshServers(), this.refreshPending()]);
    performance.mark("airlock:listed");
    void this.refreshPinCounts();
    void this.refreshCatalogNews();
    // The daemon reads the registries at most daily; the badge follows.
    setInterval(() => void this.refreshCatalogNews(), 5 * 60 * 1000);
    // Opened by a notification's Review (a daemon's starts the app with it).
    api
      .takeReviewRequest()
      .then((change) => {
        if (change !== null) this.showChange(change);
      })
      .catch(() => undefined);
  }

  /** The badge from updates already read (the Catalog page's). */
  noteUpdates(updates: api.UpdateInfo[]): void {
    this.catalogNews = updates.filter(isNews).length;
  }

  /** How many installed servers the registries (as last read) have news of. */
  async refreshCatalogNews(): Promise<void> {
    try {
      this.noteUpdates(await api.catalogUpdates());
    } catch {
      // The badge waits for the next look.
    }
  }

  /** Open the review on one change. */
  showChange(change: number): void {
    this.go({ page: "review", change });
    this.pinTick += 1;
  }

  async refreshPinCounts(): Promise<void> {
    try {
      const counts: Record<string, number> = {};
      for (const c of await api.pinCounts()) counts[c.server] = c.pending;
      this.pinCounts = counts;
    } catch {
      // The next pin event sets the counts it carries.
    }
  }

  async refreshServers(): Promise<void> {
    const request = ++this.#listRequests;
    const eventsBefore = this.#statusEvents;
    try {
      const list = await api.listServers();
      if (request < this.#listApplied) return;
      this.#listApplied = request;
      // A status event that came while the list was read is newer than the list.
      for (const v of list) {
        const live = this.#liveStatus.get(v.def.name);
        if (live && live.event > eventsBefore) v.status = live.status;
      }
      this.servers = list;
      this.serversError = null;
    } catch (e) {
      this.serversError = api.errorText(e);
    } finally {
      this.serversLoaded = true;
    }
  }

  async refreshPending(): Promise<void> {
    try {
      this.pending = await api.pending();
    } catch {
      // The next inbox event retries.
    }
  }

  server(name: string): ServerView | undefined {
    return this.servers.find((s) => s.def.name === name);
  }

  #onEvent(e: CoreEvent): void {
    switch (e.kind) {
      case "status": {
        this.#liveStatus.set(e.server, { status: e.status, event: ++this.#statusEvents });
        const s = this.servers.find((v) => v.def.name === e.server);
        if (s) s.status = e.status;
        else void this.refreshServers();
        break;
      }
      case "log":
        this.logTicks[e.server] = (this.logTicks[e.server] ?? 0) + 1;
        break;
      case "elicitation":
        this.#elicitationSoon();
        break;
      case "lists_changed":
        this.listTicks[e.server] = (this.listTicks[e.server] ?? 0) + 1;
        break;
      case "pin_changes":
        this.pinCounts[e.server] = e.pending;
        this.#pinSoon();
        break;
    }
  }
}

export const app = new AppState();
