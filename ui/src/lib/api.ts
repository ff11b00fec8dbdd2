// The one place the UI talks to the Rust shell. Every command name and payload
// type lives here, so the rest of the UI never calls `invoke` directly.
import { invoke } from "@tauri-apps/api/core";

/** Mirrors `AppInfo` in src-tauri/src/commands.rs. */
export interface AppInfo {
  name: string;
  version: string;
}

/** A failed command, as a sentence a person can read. */
export class ApiError extends Error {
  readonly command: string;

  constructor(command: string, cause: unknown) {
    super(`${command} failed: ${describe(cause)}`);
    this.name = "ApiError";
    this.command = command;
  }
}

function describe(cause: unknown): string {
  if (cause instanceof Error) return cause.message;
  if (typeof cause === "string") return cause;
  return JSON.stringify(cause);
}

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (cause) {
    throw new ApiError(command, cause);
  }
}

export function appInfo(): Promise<AppInfo> {
  return call<AppInfo>("app_info");
}
