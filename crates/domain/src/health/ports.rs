//! What readiness asks of the store.

use crate::error::StoreError;
pub use crate::health::keys::KeyFingerprints;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

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

/// The store's connections as this process holds them, summed over its pools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolUse {
    /// The most connections the pools may open.
    pub max: u64,
    /// Connections open now (in use or idle).
    pub open: u64,
    /// Connections handed out to a request now.
    pub in_use: u64,
    /// Requests waiting for a connection.
    pub waiting: u64,
    /// Statements this process has run on its connections since it started (a
    /// transaction's `BEGIN` and `COMMIT` each count; opening a connection does not): per
    /// request, the work a request costs the store.
    pub statements: u64,
}

/// Monitoring runs due and not claimed by any replica: the scheduler's backlog.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    pub due: u64,
    /// The due time of the longest-waiting run.
    pub oldest_due_at: Option<DateTime<Utc>>,
}

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait StoreProbe: Send + Sync {
    /// Asks the store for its newest applied migration: it answers, or it is unreachable.
    async fn schema(&self) -> Result<SchemaState, StoreError>;

    /// The connections this process holds, without asking the store (no round trip).
    fn pool_use(&self) -> PoolUse;

    /// Active subscriptions whose run is due at `now` and not claimed under a lease, in one
    /// round trip (the claim's own predicate, counted).
    async fn backlog(&self, now: DateTime<Utc>) -> Result<Backlog, StoreError>;

    /// The fingerprints of the keys the store was first used with; `None` before first use.
    async fn key_fingerprints(&self) -> Result<Option<KeyFingerprints>, StoreError>;

    /// Records `keys` as the store's when it holds none, atomically (replicas starting
    /// together: the first wins); answers the record the store holds afterwards.
    async fn adopt_key_fingerprints(
        &self,
        keys: &KeyFingerprints,
    ) -> Result<KeyFingerprints, StoreError>;

    /// A signing-key rotation: replaces the signing key's fingerprint when the store's master
    /// fingerprint is `keys.master`. Answers whether it did (no record, or another master: no).
    async fn replace_signing_fingerprint(&self, keys: &KeyFingerprints)
        -> Result<bool, StoreError>;
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
