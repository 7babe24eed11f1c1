//! Running a write once per key.

use crate::access::caller::Caller;
use crate::clock::Clock;
use crate::error::{ErrorCode, Failure};
use crate::idempotency::key::{HeldRights, IdempotencyKey, KeptAnswer, RequestPrint, StoredAnswer};
use crate::idempotency::ports::{ClaimOutcome, IdempotencyStore, IdempotencyVault, KeyClaim};
use crate::operation::Operation;
use chrono::Duration;
use std::sync::Arc;

/// How long a key and its answer are kept from the first request.
pub const RETENTION_HOURS: i64 = 24;
/// How long a running first request holds its key before a retry may take it over: longer
/// than any request runs (upstream time limits included).
pub const LEASE_SECONDS: i64 = 120;

pub struct IdempotencyService {
    pub store: Arc<dyn IdempotencyStore>,
    pub vault: Arc<dyn IdempotencyVault>,
    pub clock: Arc<dyn Clock>,
    /// The deployment's calendar (the budget's day).
    pub calendar: crate::companies::budget::BudgetCalendar,
}

/// What to do with a request under a key.
#[derive(Debug)]
pub enum Begin {
    /// Run it, then [`IdempotencyService::finish`] with its outcome.
    Run(Ticket),
    /// Do not run it: answer what its first time answered.
    Replay(Result<String, Failure>),
}

/// A running request's hold on its key.
#[derive(Debug)]
pub struct Ticket {
    key_hash: String,
    fingerprint: String,
}

impl IdempotencyService {
    /// Claims `key` for the request, or finds its first answer. The caller must still hold a
    /// scope that opens `op` (a replay is answered only to whom the route would answer, and
    /// the gate has found the credential's grant live), and every right the kept answer was
    /// made under (its scopes, countries and the permit: [`HeldRights`]); the fingerprint binds
    /// the credential, so another grant of the tenant reusing the key is refused rather than
    /// served. One store statement.
    pub async fn begin(
        &self,
        caller: &Caller,
        op: Operation,
        key: &IdempotencyKey,
        print: &RequestPrint<'_>,
    ) -> Result<Begin, Failure> {
        caller.require_operation(op)?;
        let crypto = |_| Failure::internal("idempotency key material could not be derived");
        let key_hash = self
            .vault
            .key_hash(&caller.tenant_id, &caller.data_key, key)
            .map_err(crypto)?;
        let mut material =
            format!("{}\n{} {}\n", caller.grant_id, print.method, print.target).into_bytes();
        material.extend_from_slice(print.body);
        let fingerprint = self
            .vault
            .fingerprint(&caller.tenant_id, &caller.data_key, &material)
            .map_err(crypto)?;
        let now = self.clock.now();
        let claim = KeyClaim {
            key_hash,
            fingerprint,
            now,
            lease_until: now + Duration::seconds(LEASE_SECONDS),
            expires_at: now + Duration::hours(RETENTION_HOURS),
        };
        match self
            .store
            .claim(&caller.tenant_id, &claim)
            .await
            .map_err(Failure::internal)?
        {
            ClaimOutcome::Claimed => Ok(Begin::Run(Ticket {
                key_hash: claim.key_hash,
                fingerprint: claim.fingerprint,
            })),
            ClaimOutcome::InUse => Err(Failure::new(
                ErrorCode::IdempotencyKeyInUse,
                "the first request with this Idempotency-Key is still running; retry in a moment to receive its answer",
            )),
            ClaimOutcome::Reused => Err(Failure::new(
                ErrorCode::IdempotencyKeyReused,
                "this Idempotency-Key was used for a different request (body, path or credential) in the last 24 hours; use a new key",
            )),
            ClaimOutcome::Answered(sealed) => {
                let kept = self
                    .vault
                    .open_answer(&caller.tenant_id, &caller.data_key, &sealed)
                    .map_err(|_| Failure::internal("a kept answer does not open"))?;
                // The answer was made under rights the credential may have lost since.
                if let Some(lost) = kept
                    .held
                    .as_ref()
                    .and_then(|held| held.lost_since(&self.held_now(caller)))
                {
                    return Err(Failure::new(
                        ErrorCode::Forbidden,
                        format!(
                            "the answer kept under this Idempotency-Key was made under rights this \
                             credential no longer holds ({lost}); it is not replayed"
                        ),
                    ));
                }
                Ok(Begin::Replay(kept.answer.into_outcome()))
            }
        }
    }

    /// What the caller holds now: its scopes and countries (the token's within the grant's,
    /// as the gate found them) and whether the tenant's permit is in force today.
    fn held_now(&self, caller: &Caller) -> HeldRights {
        HeldRights {
            scopes: caller.scopes.clone(),
            countries: caller.countries.clone(),
            permit_in_force: crate::access::tenant::Permit::standing(
                caller.tenant.permit.as_ref(),
                self.calendar.day(self.clock.now()),
            ) == crate::access::tenant::PermitStanding::InForce,
        }
    }

    /// Keeps the outcome under the ticket's key (or frees the key when the outcome is not
    /// kept: [`StoredAnswer::of`]). When the store cannot take it the claim runs out its
    /// lease; the surface logs the failure and still sends the answer it made.
    pub async fn finish(
        &self,
        caller: &Caller,
        ticket: Ticket,
        outcome: Result<&str, &Failure>,
    ) -> Result<(), Failure> {
        let result = match StoredAnswer::of(outcome) {
            Some(answer) => {
                let answer = KeptAnswer {
                    answer,
                    held: Some(self.held_now(caller)),
                };
                match self
                    .vault
                    .seal_answer(&caller.tenant_id, &caller.data_key, &answer)
                {
                    Ok(sealed) => {
                        self.store
                            .complete(
                                &caller.tenant_id,
                                &ticket.key_hash,
                                &ticket.fingerprint,
                                &sealed,
                            )
                            .await
                    }
                    Err(_) => {
                        self.store
                            .release(&caller.tenant_id, &ticket.key_hash, &ticket.fingerprint)
                            .await
                    }
                }
            }
            None => {
                self.store
                    .release(&caller.tenant_id, &ticket.key_hash, &ticket.fingerprint)
                    .await
            }
        };
        result.map_err(Failure::internal)
    }

    /// Forgets expired keys (the scheduler's pass calls it); how many.
    pub async fn purge_expired(&self, limit: u32) -> Result<u64, Failure> {
        self.store
            .purge_expired(self.clock.now(), limit)
            .await
            .map_err(Failure::internal)
    }
}
