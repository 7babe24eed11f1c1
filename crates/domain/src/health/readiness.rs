//! The readiness check: each thing a request needs, checked, named and explained.

use crate::health::ports::StoreProbe;
use crate::screening::service::{IndexState, ScreeningService};
use std::sync::Arc;

/// One readiness check's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// `store`, `migrations`, `keys` or `screening_index`.
    pub name: &'static str,
    pub ok: bool,
    /// For the operator: what was found (never a tenant's data, never a connection string).
    pub detail: String,
}

/// Every check, in a fixed order; ready when all pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Readiness {
    pub checks: Vec<Check>,
    /// The active lists' index is missing or older than the active versions, and no build is
    /// under way: the caller starts one ([`ScreeningService::warm`]), so a probe polled
    /// after a list import made by another process sees the index become ready.
    pub index_wanted: bool,
}

impl Readiness {
    pub fn ready(&self) -> bool {
        self.checks.iter().all(|c| c.ok)
    }
}

pub struct ReadinessService {
    pub store: Arc<dyn StoreProbe>,
    pub screening: Arc<ScreeningService>,
}

fn check(name: &'static str, ok: bool, detail: impl Into<String>) -> Check {
    Check {
        name,
        ok,
        detail: detail.into(),
    }
}

impl ReadinessService {
    /// Two reads at most: the store's schema, then the active lists (skipped when the store
    /// is unreachable).
    pub async fn check(&self) -> Readiness {
        let mut checks = Vec::with_capacity(4);
        let mut index_wanted = false;
        let reachable = match self.store.schema().await {
            Ok(schema) => {
                checks.push(check("store", true, "answers"));
                checks.push(if schema.at_head() {
                    check(
                        "migrations",
                        true,
                        format!("at {}", schema.applied.as_deref().unwrap_or_default()),
                    )
                } else {
                    check(
                        "migrations",
                        false,
                        format!(
                            "applied {}, this build needs {}",
                            schema.applied.as_deref().unwrap_or("none"),
                            schema.head
                        ),
                    )
                });
                true
            }
            Err(_) => {
                checks.push(check("store", false, "unreachable"));
                checks.push(check(
                    "migrations",
                    false,
                    "unknown: the store is unreachable",
                ));
                false
            }
        };
        // The service holds its signing and master keys from start: a process without them
        // does not start serving, so a process that answers has them.
        checks.push(check("keys", true, "signing and master keys loaded"));
        checks.push(if !reachable {
            check(
                "screening_index",
                false,
                "unknown: the store is unreachable",
            )
        } else {
            let state = self.screening.index_state().await;
            index_wanted = matches!(
                state,
                Ok(IndexState::NotBuilt) | Ok(IndexState::Built { current: false, .. })
            ) && !self.screening.is_building();
            match state {
                Ok(IndexState::NoLists) => {
                    check("screening_index", true, "no sanctions list is active")
                }
                Ok(IndexState::Built { entries, current }) => check(
                    "screening_index",
                    true,
                    if current {
                        format!("{entries} entries indexed")
                    } else {
                        format!("{entries} entries indexed; a newer list version is being indexed")
                    },
                ),
                Ok(IndexState::NotBuilt) => check(
                    "screening_index",
                    false,
                    "sanctions lists are active and their index is not built yet",
                ),
                Err(_) => check(
                    "screening_index",
                    false,
                    "the active lists could not be read",
                ),
            }
        });
        Readiness {
            checks,
            index_wanted,
        }
    }
}
