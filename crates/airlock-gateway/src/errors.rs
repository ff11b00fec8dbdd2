//! Errors as an app gets them, from whichever layer answers it: a core
//! error on a prompt, a resource read or a subscription.

use rmcp::model::ErrorData;

/// A core error on a prompt or resource (not a tool call) as a JSON-RPC error.
pub(crate) fn core_error(e: &airlock_core::CoreError) -> ErrorData {
    if e.is_usage() {
        ErrorData::invalid_params(format!("Airlock: {e}"), None)
    } else {
        ErrorData::internal_error(format!("Airlock: {e}"), None)
    }
}
