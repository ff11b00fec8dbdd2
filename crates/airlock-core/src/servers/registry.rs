//! Airlock's server definitions: add, import (all or nothing), edit,
//! remove, export; secret values go to the keychain, SQLite keeps references.

use crate::servers::{ServerDef, StoredValue};

pub(crate) fn secret_refs(def: &ServerDef) -> Vec<String> {
    def.transport
        .values()
        .values()
        .filter_map(|v| match v {
            StoredValue::Secret { secret_ref } => Some(secret_ref.clone()),
            StoredValue::Plain { .. } => None,
        })
        .collect()
}
