//! A session's errors in Airlock's words: an SDK error becomes a
//! [`CoreError`] naming the server, and a broken transport closes the
//! session so its supervisor reconnects.

use rmcp::service::ServiceError;

use crate::mcp::Session;
use crate::CoreError;

/// A transport failure means the connection is gone (HTTP has no pipe whose
/// end we would notice otherwise): close the session so the supervisor
/// reconnects, and report the error.
pub(crate) fn session_error(session: &Session, e: ServiceError) -> CoreError {
    if too_large(&e) {
        // One answer over the server's limit (rmcp's HTTP client refused
        // it): the connection itself is fine.
        return protocol(
            &session.server,
            format!(
                "its answer was larger than Airlock's limit per message, so it was not read (`airlock servers edit {} --max-message-bytes N` changes the limit): {e}",
                session.server
            ),
        );
    }
    if matches!(
        e,
        ServiceError::TransportSend(_) | ServiceError::TransportClosed
    ) {
        session.close();
    }
    service_error(&session.server, e)
}

/// An answer refused for its size (rmcp's HTTP client's words).
fn too_large(e: &ServiceError) -> bool {
    matches!(e, ServiceError::TransportSend(_))
        && e.to_string().contains("exceeded the maximum size")
}

pub(crate) fn service_error(server: &str, e: ServiceError) -> CoreError {
    match e {
        ServiceError::McpError(data) => CoreError::Mcp {
            server: server.to_owned(),
            code: data.code.0,
            message: crate::url_safety::neutralize_for_display(&data.message, 2000),
        },
        other => CoreError::Protocol {
            server: server.to_owned(),
            message: other.to_string(),
        },
    }
}

pub(crate) fn protocol(server: &str, message: impl Into<String>) -> CoreError {
    CoreError::Protocol {
        server: server.to_owned(),
        message: message.into(),
    }
}
