//! Which apps are attached to this host now (issue 13): the desktop's
//! Apps page shows them. Bounded by [`crate::limits::MAX_APPS`] (an app
//! is listed only while it holds one of those places).
//!
//! ```ignore
//! let attachments = Arc::new(Attachments::default());
//! let options = HostOptions { attachments: Some(attachments.clone()), ..Default::default() };
//! // ... serve; later:
//! for app in attachments.list() { println!("{} since {}", app.app, app.since_ms) }
//! ```

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// One attached app.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AttachedApp {
    /// The app name its calls are recorded under.
    pub app: String,
    /// When it attached (ms since the epoch).
    pub since_ms: i64,
}

/// The apps attached now, shared with whoever shows them.
#[derive(Debug, Default)]
pub struct Attachments {
    apps: Mutex<BTreeMap<u64, AttachedApp>>,
}

impl Attachments {
    /// Every attached app, oldest first.
    pub fn list(&self) -> Vec<AttachedApp> {
        self.apps
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .cloned()
            .collect()
    }

    /// List `app` until the returned guard is dropped.
    pub(crate) fn add(self: &Arc<Self>, id: u64, app: String) -> Listed {
        let app = AttachedApp {
            app,
            since_ms: airlock_core::store::now_ms(),
        };
        self.apps
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, app);
        Listed {
            attachments: self.clone(),
            id,
        }
    }
}

/// Keeps an app listed while alive.
pub(crate) struct Listed {
    attachments: Arc<Attachments>,
    id: u64,
}

impl Drop for Listed {
    fn drop(&mut self) {
        self.attachments
            .apps
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.id);
    }
}
