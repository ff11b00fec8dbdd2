//! One module per command group; `run` in main.rs dispatches to them.

pub(crate) mod app_configs;
pub(crate) mod apps;
pub(crate) mod auth;
pub(crate) mod calls;
pub(crate) mod catalog;
pub(crate) mod gateway;
pub(crate) mod history;
pub(crate) mod install;
pub(crate) mod pin_notices;
pub(crate) mod pins;
pub(crate) mod policy;
pub(crate) mod servers;

use airlock_core::url_safety::{inspect_with_text, Policy};

use crate::output::{self, print_json};

/// `url-check`: inspect a URL the way a consent prompt does (no network
/// access), with the message that came with it. Exit code 1 when the URL
/// would be blocked.
pub(crate) fn url_check(
    url: &str,
    message: Option<&str>,
    no_http_loopback: bool,
    json: bool,
) -> u8 {
    let report = inspect_with_text(
        url,
        message.unwrap_or_default(),
        &Policy {
            allow_http_loopback: !no_http_loopback,
        },
    );
    if json {
        print_json(&report);
    } else {
        output::print_inspection(&report);
    }
    if report.block_reason.is_some() {
        1
    } else {
        0
    }
}
