//! Importing sanctions lists: a complete read becomes a new immutable source version and the
//! list's active one; a failed or empty read never replaces the active version and is
//! recorded, so checks run meanwhile report the list as degraded.
//!
//! Reading the official formats is `adapters-screening`'s work (the operator command line
//! and the scheduled import hand its result in here); this use case holds the rules.

use crate::clock::Clock;
use crate::error::Failure;
use crate::screening::ports::SanctionsListStore;
use crate::screening::sanctions::{
    ActiveList, FailedImport, ImportOutcome, ListSource, ParsedList, SourceVersion, SourceVersionId,
};
use std::sync::Arc;

pub struct ListService {
    pub store: Arc<dyn SanctionsListStore>,
    pub clock: Arc<dyn Clock>,
}

impl ListService {
    /// Stores a complete read of a list (`digest` of its bytes) as a new version, active at
    /// once. A read with no entry, or an entry with no name, is refused whole (and recorded
    /// as a failed import): a version is never partial.
    pub async fn import(&self, list: ParsedList, digest: &str) -> Result<ImportOutcome, Failure> {
        let now = self.clock.now();
        let refuse = |reason: String| FailedImport {
            source: list.source,
            attempted_at: now,
            reason,
        };
        let problem = if list.entries.is_empty() {
            Some("the file holds no entries".to_owned())
        } else {
            list.entries
                .iter()
                .find(|e| e.names.iter().all(|n| n.full.trim().is_empty()))
                .map(|e| format!("entry {} has no name", e.source_entry_id))
        };
        if let Some(reason) = problem {
            let failure = refuse(reason.clone());
            self.record_failure(&failure).await?;
            return Err(Failure::bad_request("list", &reason));
        }
        let version = SourceVersion {
            id: SourceVersionId::generate(),
            source: list.source,
            digest: digest.to_owned(),
            published_at: list.published_at,
            imported_at: now,
            entry_count: u32::try_from(list.entries.len()).unwrap_or(u32::MAX),
            skipped_count: u32::try_from(list.skipped.len()).unwrap_or(u32::MAX),
        };
        self.store
            .import_version(&version, &list.entries)
            .await
            .map_err(Failure::internal)
    }

    /// Records an import that could not even be read (the active version stays).
    pub async fn record_unreadable(&self, source: ListSource, reason: &str) -> Result<(), Failure> {
        self.record_failure(&FailedImport {
            source,
            attempted_at: self.clock.now(),
            reason: reason.to_owned(),
        })
        .await
    }

    async fn record_failure(&self, failure: &FailedImport) -> Result<(), Failure> {
        self.store
            .record_failed_import(failure)
            .await
            .map_err(Failure::internal)
    }

    /// Every list's active version and its standing.
    pub async fn active(&self) -> Result<Vec<ActiveList>, Failure> {
        self.store.active_lists().await.map_err(Failure::internal)
    }
}
