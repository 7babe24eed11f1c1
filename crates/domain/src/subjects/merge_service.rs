//! The operator's merge of two subjects of a tenant (`idreg admin subject merge`): checks
//! both, plans which subscriptions follow and which end, and has the store carry out the
//! [`SubjectMerge`] in one transaction.

use crate::access::ports::TenantStore;
use crate::clock::Clock;
use crate::error::{Failure, StoreError};
use crate::ids::TenantId;
use crate::monitoring::ports::SubscriptionStore;
use crate::subjects::merge::SubjectMerge;
use crate::subjects::ports::SubjectStore;
use crate::subjects::subject::SubjectRecord;
use chrono::{DateTime, Utc};
use std::sync::Arc;

/// The operator's merge of two subjects of a tenant (`idreg admin subject merge`).
pub struct MergeService {
    pub tenants: Arc<dyn TenantStore>,
    pub subjects: Arc<dyn SubjectStore>,
    /// The subscriptions that follow the merge, or end with it.
    pub subscriptions: Arc<dyn SubscriptionStore>,
    /// Where the events a merge logs are counted.
    pub meter: Arc<dyn crate::meter::Meter>,
    pub clock: Arc<dyn Clock>,
}

/// A store failure as the operator reads it: a missing `what` is not found.
fn store_failure(what: &str) -> impl Fn(StoreError) -> Failure + '_ {
    move |e| match e {
        StoreError::NotFound => Failure::not_found(what),
        other => Failure::internal(other),
    }
}

fn parse_tenant_id(id: &str) -> Result<TenantId, Failure> {
    id.parse().map_err(|_| Failure::not_found("tenant"))
}

impl MergeService {
    /// `idreg admin subject merge <tenant> <from> <into>`: the two subjects are one. `from`
    /// (and any id merged into it) becomes an alias of `into`, resolving one hop; everything
    /// keyed by `from` follows it to `into` (identifiers, customer references, subscriptions
    /// and their baselines, cached data, document ids, whitelist entries; screening checks
    /// are found through the alias); a `subject.merged` event is logged under `into`'s
    /// country (the tenant's own when it holds no identifier). Both must be canonical
    /// subjects of the tenant, of one kind. Answers the merged subject.
    ///
    /// One unended subscription per subject and kind holds across the merge: where both
    /// subjects had one of a kind, `into`'s survives and `from`'s ends with it
    /// (`subscription.ended`, `reason` `subject_merged`, naming the survivor).
    pub async fn merge(
        &self,
        tenant: &str,
        from: &str,
        into: &str,
    ) -> Result<SubjectRecord, Failure> {
        use crate::evidence::{Evidence, EvidenceSource, SCHEMA_VERSION};
        use crate::ids::{CallRef, EventId, SubjectId};
        use crate::monitoring::event::{EventData, EventType, NewEvent};
        let id = parse_tenant_id(tenant)?;
        let tenant = self
            .tenants
            .tenant(&id)
            .await
            .map_err(store_failure("tenant"))?;
        let parse = |field: &str, v: &str| -> Result<SubjectId, Failure> {
            v.trim()
                .parse()
                .map_err(|_| Failure::bad_request(field, "is not a subject id"))
        };
        let (from_id, into_id) = (parse("from", from)?, parse("into", into)?);
        if from_id == into_id {
            return Err(Failure::bad_request(
                "into",
                "must be another subject than `from`",
            ));
        }
        let load = |sid: SubjectId| {
            let subjects = self.subjects.clone();
            async move {
                subjects
                    .subject(&id, &sid)
                    .await
                    .map_err(store_failure("subject"))
            }
        };
        let (from_rec, into_rec) = (load(from_id).await?, load(into_id).await?);
        if from_rec.subject_id != from_id {
            return Err(Failure::bad_request(
                "from",
                "is already merged into another subject",
            ));
        }
        if into_rec.subject_id != into_id {
            return Err(Failure::bad_request(
                "into",
                "is an alias; merge into its canonical subject",
            ));
        }
        if from_rec.kind != into_rec.kind {
            return Err(Failure::bad_request(
                "into",
                "is of another kind (a person and a company are never one subject)",
            ));
        }
        let now = self.clock.now();
        let country = into_rec
            .identifiers
            .iter()
            .chain(&from_rec.identifiers)
            .find(|i| i.valid_to.is_none())
            .map_or(tenant.own_country, |i| i.country);
        let event = NewEvent {
            id: EventId::generate(),
            idempotency_key: format!("merge:{from_id}:{into_id}"),
            type_name: EventType::SubjectMerged.name().to_owned(),
            country,
            subject_id: Some(into_id),
            subject_ref: None,
            subscription_id: None,
            occurred_at: now,
            data: EventData::Object(vec![
                (
                    "merged_subject_id".to_owned(),
                    EventData::Text(from_id.to_string()),
                ),
                (
                    "subject_id".to_owned(),
                    EventData::Text(into_id.to_string()),
                ),
            ]),
            evidence: Evidence {
                source: EvidenceSource::SERVICE_MERGE,
                source_timestamp: now,
                call_ref: CallRef::generate(),
                upstream_ref: None,
                digest: None,
                schema_version: Some(SCHEMA_VERSION.to_owned()),
                retrieved_at: now,
            },
        };
        let retention = chrono::Duration::days(i64::from(tenant.retention_days));
        // A subscription made on either subject between the plan and the merge's
        // transaction can clash with one left unended: the store refuses, and the merge is
        // planned again from what is stored then.
        let mut attempts = 0;
        loop {
            attempts += 1;
            let merge = SubjectMerge {
                from: from_id,
                into: into_id,
                event: event.clone(),
                ended: self
                    .subscriptions_ended_by_merge(&id, from_id, into_id, now, retention)
                    .await?,
            };
            match self.subjects.merge_subjects(&id, &merge).await {
                Ok(()) => {
                    crate::monitoring::event::meter_appended(
                        self.meter.as_ref(),
                        std::iter::once(&merge.event).chain(merge.ended.iter().map(|(_, e)| e)),
                    );
                    break;
                }
                Err(StoreError::SubscriptionExists) if attempts < 3 => continue,
                Err(e) => return Err(store_failure("subject")(e)),
            }
        }
        load(into_id).await
    }

    /// `from`'s unended subscriptions of a kind `into` also has an unended one of, as they
    /// end with the merge, each with its `subscription.ended` event (`reason`
    /// `subject_merged`, the surviving subscription named).
    async fn subscriptions_ended_by_merge(
        &self,
        tenant: &TenantId,
        from: crate::ids::SubjectId,
        into: crate::ids::SubjectId,
        now: DateTime<Utc>,
        retention: chrono::Duration,
    ) -> Result<
        Vec<(
            crate::monitoring::subscription::Subscription,
            crate::monitoring::event::NewEvent,
        )>,
        Failure,
    > {
        use crate::monitoring::event::EventData;
        let unended = |s| {
            let store = self.subscriptions.clone();
            async move {
                store
                    .unended_subscriptions(tenant, &s)
                    .await
                    .map_err(Failure::internal)
            }
        };
        let (of_from, of_into) = (unended(from).await?, unended(into).await?);
        let mut ended = Vec::new();
        for sub in of_from {
            let Some(survivor) = of_into.iter().find(|s| s.kind == sub.kind) else {
                continue;
            };
            let mut gone = sub.ended(now, retention);
            gone.subject_id = into;
            let mut event =
                crate::monitoring::subscription_service::lifecycle_event(&gone, "ended", now);
            if let EventData::Object(fields) = &mut event.data {
                fields.push((
                    "reason".to_owned(),
                    EventData::Text(crate::monitoring::subscription::ENDED_BY_MERGE.to_owned()),
                ));
                fields.push((
                    "surviving_subscription_id".to_owned(),
                    EventData::Text(survivor.id.to_string()),
                ));
            }
            ended.push((gone, event));
        }
        Ok(ended)
    }
}
