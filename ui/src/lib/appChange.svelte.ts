// Planning, re-planning and applying the change to an app's MCP config (the
// Apps page and Get started share it): the change shown for confirmation,
// with the choice it was planned with, and whether a step is under way. The
// diff applied is always the one shown (apply sends it back; the shell
// refuses a file that changed since).
import * as api from "./api";
import type { AppChangeDone, AppChangeView } from "./api";

export class AppChange {
  shown = $state<{ change: AppChangeView; moveServers: boolean } | null>(null);
  busy = $state(false);
  #failed: (app: string, text: string) => void;

  /** `failed`: told the app and the error of a step that failed. */
  constructor(failed: (app: string, text: string) => void) {
    this.#failed = failed;
  }

  async #step<T>(app: string, run: () => Promise<T>): Promise<T | null> {
    this.busy = true;
    try {
      return await run();
    } catch (e) {
      this.#failed(app, api.errorText(e));
      this.shown = null;
      return null;
    } finally {
      this.busy = false;
    }
  }

  /** Plan connecting (or disconnecting) `app` and show it; the plan, or null when it failed. */
  async plan(app: string, connect: boolean, moveServers: boolean): Promise<AppChangeView | null> {
    this.shown = null;
    const change = await this.#step(app, () => api.planApp(app, connect, moveServers));
    if (change) this.shown = { change, moveServers };
    return change;
  }

  /** Connect with or without the app's own servers: planned again. */
  async replan(moveServers: boolean): Promise<void> {
    const id = this.shown?.change.id;
    if (id !== undefined) await this.plan(id, true, moveServers);
  }

  /** Write the change shown; what was done, or null. */
  async apply(): Promise<AppChangeDone | null> {
    const shown = this.shown;
    if (!shown) return null;
    const { change, moveServers } = shown;
    const done = await this.#step(change.id, () => api.applyApp(change.id, change.connect, moveServers, change.diff));
    if (done) this.shown = null;
    return done;
  }
}
