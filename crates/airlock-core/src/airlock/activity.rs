//! The activity overview the window and `airlock activity` show.

use crate::activity::*;
use crate::{Airlock, CoreResult};

impl Airlock {
    /// The activity overview over the last `q.days` days (bounded).
    pub fn activity(&self, q: &ActivityQuery) -> CoreResult<ActivityOverview> {
        self.history.flush()?;
        self.store.activity(q, crate::store::now_ms())
    }
}
