// Generated from airlock_core::limits by `cargo test -p airlock-desktop`. Do not edit.

export type Bound = { default: number; min: number; max: number };

/** The largest message from a server, in bytes. */
export const MAX_MESSAGE_BYTES: Bound = { default: 16777216, min: 65536, max: 1073741824 };

/** The largest tool or prompt definition, in bytes. */
export const MAX_DEFINITION_BYTES: Bound = { default: 65536, min: 1024, max: 1048576 };
