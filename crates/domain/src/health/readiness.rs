//! The readiness check: each thing a request needs, checked, named and explained.

use crate::health::ports::StoreProbe;
use crate::screening::service::{IndexState, ScreeningService};
use std::sync::Arc;

/// One readiness check's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// `store`, `migrations`, `keys`, `screening_index`, or a note (`mail`).
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
    /// This process's key fingerprints, compared with the store's at every probe (a replica
    /// whose keys no longer match the store's record, as after a signing-key rotation it
    /// missed, is taken out of rotation). `None` in unit tests built without keys.
    pub keys: Option<crate::health::keys::KeyFingerprints>,
    /// What this process knows from its configuration and reports without reading anything
    /// (the portal's mail transport): each passes, its detail says what an operator should
    /// know.
    pub notes: Vec<Check>,
}

fn check(name: &'static str, ok: bool, detail: impl Into<String>) -> Check {
    Check {
        name,
        ok,
        detail: detail.into(),
    }
}

impl ReadinessService {
    /// Three reads at most: the store's schema, its key record, then the active lists (the
    /// latter two skipped when the store is unreachable).
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
        // The service holds its signing and master keys from start (a process without them,
        // or with others than the store's, does not start); they are compared with the
        // store's record again, which a signing-key rotation may have moved.
        checks.push(match (&self.keys, reachable) {
            (None, _) => check("keys", true, "signing and master keys loaded"),
            (Some(_), false) => check("keys", false, "unknown: the store is unreachable"),
            (Some(mine), true) => match self.store.key_fingerprints().await {
                Ok(Some(stored)) => match crate::health::keys::compare(&stored, mine) {
                    Ok(()) => check(
                        "keys",
                        true,
                        format!(
                            "signing and master keys loaded, the store's (signing {}, master {})",
                            mine.signing, mine.master
                        ),
                    ),
                    Err(mismatch) => check("keys", false, mismatch.to_string()),
                },
                Ok(None) => check(
                    "keys",
                    false,
                    "the store holds no record of its keys: it was emptied or replaced under a running process",
                ),
                Err(_) => check("keys", false, "the store's key record could not be read"),
            },
        });
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
        checks.extend(self.notes.iter().cloned());
        Readiness {
            checks,
            index_wanted,
        }
    }
}
