//! How a command fails: a message and the exit code it maps to.

use airlock_core::CoreError;

/// A failure with the exit code it maps to.
pub(crate) struct Failure {
    pub(crate) code: u8,
    pub(crate) message: String,
    pub(crate) error_code: &'static str,
}

impl From<CoreError> for Failure {
    fn from(e: CoreError) -> Self {
        Failure {
            code: if e.is_usage() { 2 } else { 1 },
            message: e.to_string(),
            error_code: e.code(),
        }
    }
}

/// Bad usage: exit code 2.
pub(crate) fn usage(message: impl Into<String>) -> Failure {
    Failure {
        code: 2,
        message: message.into(),
        error_code: "bad_usage",
    }
}
