//! What readiness asks of the store.

use crate::error::StoreError;
use async_trait::async_trait;

/// The store's schema as the store reports it, in one round trip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaState {
    /// The newest migration applied to the store (`None`: none, or no migration table).
    pub applied: Option<String>,
    /// The newest migration this build carries.
    pub head: String,
}

impl SchemaState {
    /// Every migration this build needs is applied. A store migrated further by a newer
    /// build (a rolling upgrade) also serves this one: migrations only add.
    pub fn at_head(&self) -> bool {
        self.applied
            .as_deref()
            .is_some_and(|applied| applied >= self.head.as_str())
    }
}

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait StoreProbe: Send + Sync {
    /// Asks the store for its newest applied migration: it answers, or it is unreachable.
    async fn schema(&self) -> Result<SchemaState, StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(applied: Option<&str>, head: &str) -> SchemaState {
        SchemaState {
            applied: applied.map(str::to_owned),
            head: head.to_owned(),
        }
    }

    #[test]
    fn at_head_when_every_migration_of_the_build_is_applied() {
        assert!(state(Some("20261125000002"), "20261125000002").at_head());
        // A newer build migrated further (a rolling upgrade): this build is served.
        assert!(state(Some("20261201000001"), "20261125000002").at_head());
        assert!(!state(Some("20261125000001"), "20261125000002").at_head());
        assert!(!state(None, "20261125000002").at_head());
    }
}
