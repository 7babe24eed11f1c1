//! What an operator's scrape reads at the moment it asks: the store's connections, the
//! monitoring scheduler's backlog, and how old each active sanctions list's version is. The
//! counters (requests, upstream calls, spends, events, checks) are kept by the
//! [`crate::meter::Meter`] as things happen; these are levels, so they are read, not counted.

use crate::clock::Clock;
use crate::health::ports::{Backlog, PoolUse, StoreProbe};
use crate::screening::ports::SanctionsListStore;
use std::sync::Arc;
use std::time::Duration;

/// How old the active version of one list is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListAge {
    /// The list's source name (`un_sc`).
    pub list: &'static str,
    /// Since the version was imported (its data is as old as the import, or older).
    pub since_import: Duration,
    /// A list whose latest import failed: the version served is older than wanted.
    pub import_failing: bool,
}

/// The levels at one moment. A part the store could not answer is `None` (the scrape still
/// answers with the rest: a dashboard sees the store's outage, not a failed scrape).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gauges {
    pub pool: PoolUse,
    pub backlog: Option<Backlog>,
    /// How late the longest-waiting due run is now.
    pub backlog_lag: Option<Duration>,
    pub lists: Option<Vec<ListAge>>,
}

pub struct GaugeService {
    pub store: Arc<dyn StoreProbe>,
    pub lists: Arc<dyn SanctionsListStore>,
    pub clock: Arc<dyn Clock>,
}

impl GaugeService {
    /// Two reads: the backlog and the active lists.
    pub async fn read(&self) -> Gauges {
        let now = self.clock.now();
        let backlog = self.store.backlog(now).await.ok();
        let backlog_lag = backlog
            .and_then(|b| b.oldest_due_at)
            .map(|due| (now - due).to_std().unwrap_or_default());
        let lists = self.lists.active_lists().await.ok().map(|lists| {
            let mut ages: Vec<ListAge> = lists
                .iter()
                .map(|l| ListAge {
                    list: l.version.source.as_str(),
                    since_import: (now - l.version.imported_at).to_std().unwrap_or_default(),
                    import_failing: l.failed_since.is_some(),
                })
                .collect();
            ages.sort_by_key(|a| a.list);
            ages
        });
        Gauges {
            pool: self.store.pool_use(),
            backlog,
            backlog_lag,
            lists,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::StoreError;
    use crate::fixtures::FixedClock;
    use crate::health::ports::MockStoreProbe;
    use crate::screening::ports::MockSanctionsListStore;
    use chrono::{TimeZone, Utc};

    #[tokio::test]
    async fn reads_the_levels_and_reports_a_part_the_store_cannot_answer_as_missing() {
        let now = Utc.with_ymd_and_hms(2026, 11, 25, 12, 0, 0).unwrap();
        let mut store = MockStoreProbe::new();
        store.expect_pool_use().return_const(PoolUse {
            max: 8,
            open: 3,
            in_use: 1,
            waiting: 0,
            statements: 12,
        });
        store.expect_backlog().returning(move |_| {
            Ok(Backlog {
                due: 4,
                oldest_due_at: Some(now - chrono::Duration::seconds(90)),
            })
        });
        let mut lists = MockSanctionsListStore::new();
        lists
            .expect_active_lists()
            .returning(|| Err(StoreError::Unavailable("down".into())));
        let service = GaugeService {
            store: Arc::new(store),
            lists: Arc::new(lists),
            clock: Arc::new(FixedClock(now)),
        };
        let gauges = service.read().await;
        assert_eq!(gauges.pool.open, 3);
        assert_eq!(gauges.backlog.map(|b| b.due), Some(4));
        assert_eq!(gauges.backlog_lag, Some(Duration::from_secs(90)));
        assert_eq!(gauges.lists, None);
    }
}
