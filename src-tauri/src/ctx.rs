//! What every command works with, whatever page it serves: the app's
//! state, the `Ctx` each command gets besides its declared arguments, and
//! the error the UI sees when a command fails. It names no command module:
//! `api.rs` builds a `Ctx` for each call, the command modules take it.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use airlock_core::elicitation::form::FieldError;
use airlock_core::{Airlock, CoreError};
use serde::Serialize;
use tauri::AppHandle;
use ts_rs::TS;

use crate::inbox::Inbox;
use crate::settings::Settings;

pub struct AppState {
    pub core: Arc<Airlock>,
    pub inbox: Arc<Inbox>,
    pub settings: Arc<RwLock<Settings>>,
    pub data_dir: PathBuf,
}

/// What every command gets besides its declared arguments.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    pub app: &'a AppHandle,
    pub state: &'a AppState,
}

/// An error as the UI sees it: a stable code and a sentence to act on.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ApiError {
    pub code: String,
    pub message: String,
    /// `invalid_form` only: what is wrong with each field, by property name.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub fields: Option<Vec<FieldError>>,
}

impl ApiError {
    /// A `bad_input` error: the window sent something Airlock will not take.
    pub fn bad_input(message: impl Into<String>) -> Self {
        ApiError {
            code: "bad_input".into(),
            message: message.into(),
            fields: None,
        }
    }
}

impl From<CoreError> for ApiError {
    fn from(e: CoreError) -> Self {
        ApiError {
            code: e.code().to_owned(),
            message: e.to_string(),
            fields: None,
        }
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
