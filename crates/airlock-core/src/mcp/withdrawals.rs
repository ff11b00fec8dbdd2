//! The server's requests Airlock is asking the user about (forms, and URLs
//! on the request path), by id, so that the server withdrawing one
//! (`notifications/cancelled`) is told apart from its connection going away:
//! both stop the request (rmcp cancels its token), only the first is
//! recorded `withdrawn`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{ErrorData, RequestId};
use tokio_util::sync::CancellationToken;

use crate::elicitation::Withdrawal;

/// How long after a request was stopped its withdrawal notice may still
/// arrive (rmcp stops the request first, then hands the notice on). With
/// no notice by then, the connection went away.
pub const NOTICE_GRACE: Duration = Duration::from_secs(2);

/// The requests followed now.
#[derive(Clone, Default)]
pub(crate) struct Withdrawals(Arc<Mutex<HashMap<RequestId, Withdrawal>>>);

/// One request followed; no longer when dropped.
pub(crate) struct Followed {
    all: Withdrawals,
    id: RequestId,
    pub withdrawal: Withdrawal,
}

impl Drop for Followed {
    fn drop(&mut self) {
        let mut all = self.all.0.lock().unwrap_or_else(|e| e.into_inner());
        // Only this one: a server may reuse an id.
        if all
            .get(&self.id)
            .is_some_and(|w| w.same_as(&self.withdrawal))
        {
            all.remove(&self.id);
        }
    }
}

impl Withdrawals {
    pub(crate) fn follow(&self, id: RequestId) -> Followed {
        let withdrawal = Withdrawal::default();
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone(), withdrawal.clone());
        Followed {
            all: self.clone(),
            id,
            withdrawal,
        }
    }

    /// The server withdrew request `id` (one not followed: nothing).
    pub(crate) fn withdrawn(&self, id: &RequestId) {
        if let Some(w) = self.0.lock().unwrap_or_else(|e| e.into_inner()).get(id) {
            w.happened();
        }
    }
}

/// Run a question to the user until the server's request is stopped (`ct`:
/// the server withdrew it, or the connection ended); then, once it is known
/// which (at most [`NOTICE_GRACE`]), the question is dropped, which closes
/// its dialog and records it `withdrawn` or `connection_lost`.
pub(crate) async fn until_withdrawn<T>(
    ct: &CancellationToken,
    withdrawal: &Withdrawal,
    question: impl std::future::Future<Output = T>,
) -> Result<T, ErrorData> {
    let stopped = async {
        ct.cancelled().await;
        withdrawal.heard_within(NOTICE_GRACE).await
    };
    tokio::select! {
        answer = question => Ok(answer),
        withdrawn = stopped => Err(ErrorData::internal_error(
            if withdrawn {
                "the server withdrew the request before the user answered"
            } else {
                "the connection ended before the user answered"
            },
            None,
        )),
    }
}
