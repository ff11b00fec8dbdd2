//! A team's policy for Airlock (issue 36): one file, set by administrators,
//! that every path through Airlock obeys (the window, the CLI, import, the
//! apps' moved servers, the catalog, the gateway), and that explains itself
//! when it says no.
//!
//! This crate is the pure part: the file's types and JSON Schema
//! (`policy.schema.json`), reading the files from where administrators put
//! them ([`default_locations`], [`load_default`]), merging them, deciding
//! ([`Policy::check_server`] and the other checks, each returning a
//! [`Verdict`] that names the rule), the exception request
//! ([`exception_request`], [`mailto`]) and the managed settings for the apps
//! ([`export_claude_code`], [`export_vscode`]). Watching the files and
//! enforcing the verdicts belong to the core.
//!
//! # Reading
//!
//! `policy.json`, then `policy.d/*.json` in name order. A file the user
//! could write (not owned by root, or writable by group or others, or in
//! such a folder) is refused with a warning and its rules do not apply. A
//! file that cannot be read or parsed (bad JSON, an unknown key, a bad value,
//! over a bound) makes the whole policy **fail closed**: every server is
//! refused with "the policy file X cannot be read: ..." until it is fixed,
//! since a broken policy must not silently admit everything.
//!
//! # Merging
//!
//! Lists are concatenated, each item keeping its file and index for the
//! explanation (`deniedServers[2]` in `/etc/airlock/policy.d/10-team.json`).
//! Scalars (`pinMode`, `audit`, `contact`): a later file overrides. A
//! restriction turned on (`onlyListedServers`, `requireConfinement`) cannot
//! be turned off by a later file: deny and restrict win.
//!
//! # Not covered yet
//!
//! The Windows registry key `HKLM\SOFTWARE\Policies\Airlock` and macOS
//! managed preferences are not read ([`load_default`] adds a note), and on
//! Windows the files' owner is not checked.

mod decide;
mod exception;
mod export;
mod load;
mod model;
mod pattern;

pub use decide::{Origin, Policy, Refusal, ServerFacts, Verdict};
pub use exception::{exception_request, mailto};
pub use export::{
    export_claude_code, export_claude_code_settings, export_copilot, export_vscode, ENTRY_NAME,
};
pub use load::{
    default_locations, load, load_default, load_from_root, load_with_trusted_owner, parse_policy,
    FileError, FileWarning, LoadProblem, Loaded, ParseError, MAX_DROP_IN_FILES,
};
pub use model::{
    ApprovedTool, Apps, Audit, Contact, ElicitationDomains, PinMode, PolicyFile, ServerRule,
    MAX_FILE_BYTES, MAX_HEADERS, MAX_LIST_ITEMS, MAX_STRING_BYTES,
};
