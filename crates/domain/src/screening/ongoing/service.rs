//! `OngoingScreening`: the runner that screens monitored subjects again when a list changes.
//!
//! A pass ([`OngoingScreening::tick`]) claims the oldest list change not yet worked (one
//! replica at a time, with a lease), reads the two versions and takes their
//! [`ListDelta`](super::delta::ListDelta), then pages through every active subscription
//! across tenants in `(tenant, subscription)` order, recording its cursor after each page,
//! so a crash resumes where it stopped. For each subscription:
//!
//! 1. the subject's identity is read as a check of it reads it (a company's name and number
//!    from its profile; a person's name and birth date from the population register, only
//!    under the tenant's permit in force: without one, no person data is read and the
//!    subscription is passed over);
//! 2. it is screened against the change alone: the departed records (what the old version
//!    said) and the arrived records (what the new one says), two indexes of the change's
//!    size. When neither gives a candidate that counts (`review` or `hit`, not
//!    whitelisted), nothing can have changed and nothing more is done;
//! 3. otherwise an ordinary check is made against the active lists (the same path as
//!    `POST /v1/screening/checks`, under the tenant's policy, override and whitelist), and
//!    its candidates among the change's entities are compared with the old records'
//!    standing ([`OutcomeChange`]). Nothing moved: nothing is stored. Something moved: the
//!    check is appended with one `screening.changed` event, in one transaction, keyed by
//!    subscription and list change, so work redone after a crash logs nothing twice.
//!
//! The "before" of a comparison is what the old records give under the tenant's policy now,
//! so a change of policy or whitelist between two checks is never reported as a list
//! change.
//!
//! **Reads.** Most subjects are nowhere near a change, and reading each one's identity to
//! learn so was what a pass spent its time on (four reads per subscription). So a page's
//! monitored companies are first screened against the change by the names monitoring
//! already holds of them ([`KnownNames`]: the cached profiles' names and numbers, the
//! baseline's officers and owners), read for the whole page at once: two reads per page. A
//! company whose names come near nothing of the change (no candidate reaching `review`,
//! whitelists not applied) is passed over without another read; one that comes near, one
//! whose cached profile is stale (the check would read its register again and might find
//! another name) or one with no cached profile is read and screened as step 1 says. Persons
//! are always read (their names are the register's, read under the permit). Between two
//! subscriptions the pass yields to the runtime's other tasks, so requests are not held up
//! behind a page of matching.

use crate::access::caller::Caller;
use crate::access::ports::TenantStore;
use crate::access::tenant::TenantStatus;
use crate::clock::Clock;
use crate::companies::paid::{OfficerList, OwnerList, Party};
use crate::error::{ErrorCode, Failure};
use crate::evidence::Evidence;
use crate::ids::{EventId, ListChangeId, TenantId};
use crate::monitoring::event::Trigger;
use crate::monitoring::event::{EventData, EventType, NewEvent};
use crate::monitoring::party_screening::PartyScreening;
use crate::monitoring::ports::SubscriptionStore;
use crate::monitoring::subscription::{KnownNames, Subscription, SubscriptionKind};
use crate::screening::check::StoredCheck;
use crate::screening::matcher::{self, Query};
use crate::screening::ongoing::delta::ListDelta;
use crate::screening::ongoing::outcome::{standings, OutcomeChange, Standing};
use crate::screening::ports::SanctionsListStore;
use crate::screening::sanctions::{ClaimedListChange, ListChange, RescreenCursor};
use crate::screening::service::{LoadedLists, ScreeningService, Setting};
use chrono::{DateTime, Duration, SubsecRound, Utc};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// How long a list change whose work could not go on (a register that cannot answer, the
/// new version's index still being built) waits before it is tried again.
pub const RETRY_AFTER_SECONDS: i64 = 60;

/// How ongoing screening claims and pages its work.
#[derive(Clone, Debug)]
pub struct OngoingSettings {
    /// How long a claimed list change is held before another replica may take it over;
    /// renewed after every page.
    pub lease: Duration,
    /// Subscriptions read per page.
    pub page: u32,
}

impl Default for OngoingSettings {
    fn default() -> Self {
        OngoingSettings {
            lease: Duration::minutes(5),
            page: 200,
        }
    }
}

pub struct OngoingScreening {
    /// Where what this use case does is counted for operators.
    pub meter: Arc<dyn crate::meter::Meter>,
    pub screening: Arc<ScreeningService>,
    pub lists: Arc<dyn SanctionsListStore>,
    pub subscriptions: Arc<dyn SubscriptionStore>,
    pub tenants: Arc<dyn TenantStore>,
    pub clock: Arc<dyn Clock>,
    pub settings: OngoingSettings,
}

/// What one pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RescreenReport {
    /// The list change worked, if one was claimed.
    pub change: Option<ListChangeId>,
    /// Entries added, changed and removed by it.
    pub added: u32,
    pub changed_entries: u32,
    pub removed: u32,
    /// Subscriptions screened against the change.
    pub screened: u32,
    /// Of those, the subjects the change came near (an ordinary check was made).
    pub touched: u32,
    /// Outcome changes logged (`screening.changed`).
    pub logged: u32,
    /// Subscriptions passed over by rule: no permit in force for a person, a subject the
    /// register names no one for, a country whose subjects are not screened, a tenant not
    /// active.
    pub passed_over: u32,
    /// The change's work is complete.
    pub done: bool,
    /// The work stopped and is tried again after [`RETRY_AFTER_SECONDS`]: the first reason.
    pub waiting: Option<String>,
}

/// How one subscription's re-screening ended.
enum Rescreened {
    /// The change came near nothing the subject is.
    Untouched,
    /// A check was made and the outcome did not move: nothing stored.
    Unchanged,
    /// The check and its event were stored.
    Logged,
    /// Not screened, by rule.
    PassedOver,
}

/// A tenant's principal and what its checks run under, read once per pass.
struct TenantWork {
    caller: Caller,
    setting: Setting,
}

/// The change's two small indexes and its entity ids.
struct ChangeIndexes {
    delta: ListDelta,
    before: LoadedLists,
    after: LoadedLists,
    entities: BTreeSet<String>,
}

fn retry_later(reason: &str) -> Failure {
    Failure::new(ErrorCode::ScreeningUnavailable, reason)
}

impl OngoingScreening {
    /// One pass: claims a list change and works it to its end, or until it cannot go on.
    ///
    /// # Errors
    /// A storage failure; the change's lease then runs out and a later pass resumes it from
    /// its cursor.
    pub async fn tick(&self) -> Result<RescreenReport, Failure> {
        let now = self.clock.now();
        let Some(mut claim) = self
            .lists
            .claim_list_change(now, (now + self.settings.lease).trunc_subsecs(6))
            .await
            .map_err(Failure::internal)?
        else {
            return Ok(RescreenReport::default());
        };
        let mut report = RescreenReport {
            change: Some(claim.change.id),
            ..RescreenReport::default()
        };
        let indexes = self.indexes(&claim.change).await?;
        let (added, changed, removed) = indexes.delta.counts();
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        report.added = count(added);
        report.changed_entries = count(changed);
        report.removed = count(removed);
        if indexes.delta.is_empty() {
            report.done = self.advance(&mut claim, None, true).await?;
            return Ok(report);
        }
        if let Err(wait) = self.index_ready(&claim.change).await {
            report.waiting = Some(wait.message);
            self.hold(&claim).await?;
            return Ok(report);
        }

        let mut tenants: HashMap<TenantId, Option<TenantWork>> = HashMap::new();
        loop {
            let page = self
                .subscriptions
                .active_subscriptions_after(claim.after, self.settings.page)
                .await
                .map_err(Failure::internal)?;
            if page.is_empty() {
                let last = claim.after;
                report.done = self.advance(&mut claim, last, true).await?;
                return Ok(report);
            }
            let companies: Vec<(TenantId, crate::ids::SubscriptionId)> = page
                .iter()
                .filter(|(_, s)| s.kind == SubscriptionKind::Company)
                .map(|(t, s)| (*t, s.id))
                .collect();
            let known: HashMap<crate::ids::SubscriptionId, KnownNames> = self
                .subscriptions
                .known_names(&companies)
                .await
                .map_err(Failure::internal)?
                .into_iter()
                .map(|(_, id, names)| (id, names))
                .collect();
            let mut cursor = claim.after;
            for (tenant_id, sub) in &page {
                // Requests waiting for the runtime go first.
                YieldNow(false).await;
                let work = match tenants.get(tenant_id) {
                    Some(work) => work,
                    None => {
                        let work = self.tenant_work(tenant_id).await?;
                        tenants.entry(*tenant_id).or_insert(work)
                    }
                };
                let outcome = match work {
                    None => Ok(Rescreened::PassedOver),
                    Some(work) => {
                        self.rescreen(work, sub, &claim.change, &indexes, known.get(&sub.id))
                            .await
                    }
                };
                match outcome {
                    Ok(Rescreened::Untouched) => report.screened += 1,
                    Ok(Rescreened::Unchanged) => {
                        report.screened += 1;
                        report.touched += 1;
                    }
                    Ok(Rescreened::Logged) => {
                        report.screened += 1;
                        report.touched += 1;
                        report.logged += 1;
                    }
                    Ok(Rescreened::PassedOver) => report.passed_over += 1,
                    Err(f) => {
                        // Progress up to the subscription before this one is kept; this one
                        // is screened again when the change is tried again.
                        self.advance(&mut claim, cursor, false).await?;
                        if f.code == ErrorCode::InternalError {
                            return Err(f);
                        }
                        report.waiting = Some(f.message);
                        self.hold(&claim).await?;
                        return Ok(report);
                    }
                }
                cursor = Some((*tenant_id, sub.id));
            }
            if !self.advance(&mut claim, cursor, false).await? {
                // Another replica took the change over after this one's lease ran out.
                return Ok(report);
            }
        }
    }

    /// The change's delta, read from the two stored versions.
    async fn indexes(&self, change: &ListChange) -> Result<ChangeIndexes, Failure> {
        let active = self.lists.active_lists().await.map_err(Failure::internal)?;
        let version = |id| async move {
            self.lists
                .version_entries(id)
                .await
                .map_err(Failure::internal)
        };
        let to_entries = version(&change.to).await?;
        let to = self
            .version_of(&active, change, &change.to, to_entries.len())
            .await?;
        let from = match &change.from {
            Some(id) => {
                let entries = version(id).await?;
                let v = self.version_of(&active, change, id, entries.len()).await?;
                Some((v, entries))
            }
            None => None,
        };
        let delta = ListDelta::between(from, (to, to_entries));
        let before = LoadedLists {
            version_ids: delta.from.iter().map(|v| v.id).collect(),
            index: delta.before_index(),
        };
        let after = LoadedLists {
            version_ids: vec![delta.to.id],
            index: delta.after_index(),
        };
        Ok(ChangeIndexes {
            entities: delta.entity_ids(),
            delta,
            before,
            after,
        })
    }

    /// A version's record: the active list's when it is the active one, else the one the
    /// store names among the list's versions (its digest and dates are what candidates
    /// cite).
    async fn version_of(
        &self,
        active: &[crate::screening::sanctions::ActiveList],
        change: &ListChange,
        id: &crate::ids::SourceVersionId,
        entries: usize,
    ) -> Result<crate::screening::sanctions::SourceVersion, Failure> {
        if let Some(a) = active.iter().find(|a| a.version.id == *id) {
            return Ok(a.version.clone());
        }
        self.lists
            .source_version(id)
            .await
            .map_err(Failure::internal)?
            .ok_or_else(|| {
                Failure::internal(format!(
                    "list change {} names version {id} of {}, which is not stored ({entries} \
                     entries read)",
                    change.id, change.source
                ))
            })
    }

    /// The service's index holds the change's version (while it is the active one), so the
    /// checks made name it; otherwise the index is still being built and the change waits.
    async fn index_ready(&self, change: &ListChange) -> Result<(), Failure> {
        let active = self.lists.active_lists().await.map_err(Failure::internal)?;
        let still_active = active.iter().any(|a| a.version.id == change.to);
        if !still_active {
            // A newer version replaced it since: the checks name the newer one.
            return Ok(());
        }
        self.screening.warm().await?;
        if self.screening.holds_version(&change.to) {
            Ok(())
        } else {
            Err(retry_later(
                "the index of the new list version is still being built",
            ))
        }
    }

    async fn tenant_work(&self, tenant_id: &TenantId) -> Result<Option<TenantWork>, Failure> {
        let (tenant, data_key) = match self.tenants.tenant_with_key(tenant_id).await {
            Ok(t) => t,
            Err(crate::error::StoreError::NotFound) => return Ok(None),
            Err(e) => return Err(Failure::internal(e)),
        };
        if tenant.status != TenantStatus::Active {
            return Ok(None);
        }
        let now = self.clock.now();
        let caller = Caller::ongoing_screening(tenant, data_key, now);
        match self.screening.setting(&caller, now).await {
            Ok(setting) => Ok(Some(TenantWork { caller, setting })),
            // No policy active, or no list: nothing can be screened for anyone.
            Err(f) if f.code == ErrorCode::ScreeningUnavailable => Ok(None),
            Err(f) => Err(f),
        }
    }

    async fn rescreen(
        &self,
        work: &TenantWork,
        sub: &Subscription,
        change: &ListChange,
        indexes: &ChangeIndexes,
        known: Option<&KnownNames>,
    ) -> Result<Rescreened, Failure> {
        let TenantWork { caller, setting } = work;
        let now = self.clock.now();
        if sub.kind == SubscriptionKind::Company
            && known.is_some_and(|k| self.passes_by(setting, k, indexes, now))
        {
            return Ok(Rescreened::Untouched);
        }
        let mut screened = match self.screening.read_subject(caller, &sub.subject_id).await {
            Ok(s) => s,
            Err(f) => {
                return match f.code {
                    ErrorCode::InternalError | ErrorCode::UpstreamUnavailable => Err(f),
                    // By rule: no permit in force, a subject gone or without a name, a
                    // country whose subjects are not screened.
                    _ => Ok(Rescreened::PassedOver),
                };
            }
        };
        if sub.kind == SubscriptionKind::Company {
            // The officers and owners monitoring last read (full refreshes, paid from the
            // monitoring share): screened with the company, no further call.
            screened.parties = self.parties_seen(&caller.tenant_id, sub).await?;
        }
        let hash = self.screening.input_hash(caller, &screened)?;
        let near = |loaded: &LoadedLists| -> BTreeMap<String, Standing> {
            standings(
                &self.screening.candidates(
                    loaded,
                    &setting.config,
                    &setting.context,
                    &screened,
                    &hash,
                    now,
                ),
                None,
            )
        };
        let before = near(&indexes.before);
        if before.is_empty() && near(&indexes.after).is_empty() {
            return Ok(Rescreened::Untouched);
        }
        let check = self.screening.assemble(caller, setting, &screened, now)?;
        let after = standings(&check.candidates, Some(&indexes.entities));
        let Some(moved) = OutcomeChange::between(&before, &after, &indexes.delta) else {
            return Ok(Rescreened::Unchanged);
        };
        let previous = self.latest_check(caller, &check).await?;
        let cause = Cause::ListChanged {
            change,
            delta: &indexes.delta,
        };
        let event = changed_event(sub, &cause, &check, previous, &moved, now);
        let written = self
            .screening
            .store
            .record_screening_change(
                &caller.tenant_id,
                &sub.id,
                &check,
                std::slice::from_ref(&event),
            )
            .await
            .map_err(Failure::internal)?;
        if written.is_none() {
            // The subscription ended meanwhile: no change event outlives it.
            return Ok(Rescreened::PassedOver);
        }
        self.meter.screening_check(check.band.as_str());
        crate::monitoring::event::meter_appended(self.meter.as_ref(), [&event]);
        Ok(Rescreened::Logged)
    }

    /// Whether the change comes near none of the names monitoring holds of a company, so it
    /// need not be read: only when it has a cached profile and every one is fresh (a stale
    /// one would be read from its register again by the check, which might find another
    /// name), and no name (a profile's, with its number and country; an officer's; an
    /// owner's) gives a candidate reaching `review` against the change's departed or arrived
    /// records. Whitelists are not applied and a PEP candidate is not capped, so it never
    /// passes by a subject whose full check would log a change.
    fn passes_by(
        &self,
        setting: &Setting,
        known: &KnownNames,
        indexes: &ChangeIndexes,
        now: DateTime<Utc>,
    ) -> bool {
        let fresh = |fetched_at: DateTime<Utc>| {
            now - fetched_at < self.screening.companies.revalidate_after
        };
        if known.profiles.is_empty() || !known.profiles.iter().all(|p| fresh(p.fetched_at)) {
            return false;
        }
        let config = &setting.config;
        let (before, after) = (&indexes.before.index, &indexes.after.index);
        // A score that rounds up to `review` counts.
        let floor = crate::screening::service::lowest_rounding_to(config.review);
        // Each name is prepared once and screened against both records of the change.
        let near = |query: Query| {
            let prepared = matcher::prepare(&query);
            [before, after].into_iter().any(|index| {
                !matcher::screen_prepared(index, &config.weights, &prepared, floor, 1, |e| {
                    config.screens(index.versions[e.version].source.kind())
                })
                .is_empty()
            })
        };
        let profiles = known.profiles.iter().map(|p| Query {
            name: p.name.clone(),
            country: Some(p.country.code().to_owned()),
            registration_number: Some(p.orgnr.clone()),
            ..Query::default()
        });
        let parties = known
            .officers
            .iter()
            .flat_map(OfficerList::parties)
            .chain(known.owners.iter().flat_map(OwnerList::parties))
            .map(|p| Query {
                name: p.name,
                ..Query::default()
            });
        !profiles.chain(parties).any(near)
    }

    /// The subject's latest check before `check` (the event's `check_id_before`).
    async fn latest_check(
        &self,
        caller: &Caller,
        check: &StoredCheck,
    ) -> Result<Option<crate::ids::ScreeningCheckId>, Failure> {
        Ok(self
            .screening
            .store
            .checks(
                &caller.tenant_id,
                check.subject_id,
                &caller.visible_countries(),
                1,
            )
            .await
            .map_err(Failure::internal)?
            .into_iter()
            .next()
            .map(|c| c.id))
    }

    /// The officers and beneficial owners of a monitored company as monitoring last read
    /// them.
    async fn parties_seen(
        &self,
        tenant: &TenantId,
        sub: &Subscription,
    ) -> Result<Vec<Party>, Failure> {
        let baseline = self
            .subscriptions
            .baseline(tenant, &sub.id)
            .await
            .map_err(Failure::internal)?;
        let mut parties = baseline
            .officers
            .as_ref()
            .map(OfficerList::parties)
            .unwrap_or_default();
        parties.extend(
            baseline
                .owners
                .as_ref()
                .map(OwnerList::parties)
                .unwrap_or_default(),
        );
        Ok(parties)
    }

    /// Records progress (and completion); renews the lease. False when the claim no longer
    /// holds.
    async fn advance(
        &self,
        claim: &mut ClaimedListChange,
        after: Option<RescreenCursor>,
        done: bool,
    ) -> Result<bool, Failure> {
        let now = self.clock.now();
        // Stores keep microseconds: the lease is compared as stored.
        let lease = (now + self.settings.lease).trunc_subsecs(6);
        let held = self
            .lists
            .advance_list_change(claim, after, lease, done.then_some(now))
            .await
            .map_err(Failure::internal)?;
        if held {
            claim.after = after;
            claim.lease_until = lease;
        }
        Ok(held)
    }

    /// Keeps the change claimed until it is tried again, after [`RETRY_AFTER_SECONDS`].
    async fn hold(&self, claim: &ClaimedListChange) -> Result<(), Failure> {
        let until = (self.clock.now() + Duration::seconds(RETRY_AFTER_SECONDS)).trunc_subsecs(6);
        self.lists
            .advance_list_change(claim, claim.after, until, None)
            .await
            .map_err(Failure::internal)?;
        Ok(())
    }
}

/// Returns `Pending` once, waking itself: the task goes to the back of the runtime's queue,
/// and the requests waiting for a worker run first.
struct YieldNow(bool);

impl std::future::Future for YieldNow {
    type Output = ();

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            std::task::Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    }
}

/// What moved a subscription's outcome.
enum Cause<'a> {
    /// A list's active version changed.
    ListChanged {
        change: &'a ListChange,
        delta: &'a ListDelta,
    },
    /// A reading of the company found a new officer or beneficial owner.
    PartyAdded {
        reading_key: &'a str,
        trigger: Trigger,
    },
}

/// The `screening.changed` event of one subscription's outcome moved.
fn changed_event(
    sub: &Subscription,
    cause: &Cause<'_>,
    check: &StoredCheck,
    previous: Option<crate::ids::ScreeningCheckId>,
    moved: &OutcomeChange,
    at: DateTime<Utc>,
) -> NewEvent {
    let text = |s: String| EventData::Text(s);
    let (trigger, cause_name, key, list, evidence) = match cause {
        Cause::ListChanged { change, delta } => (
            Trigger::Scheduled,
            "list_changed",
            change.id.to_string(),
            EventData::Object(vec![
                (
                    "source_id".to_owned(),
                    text(change.source.as_str().to_owned()),
                ),
                (
                    "from_version_id".to_owned(),
                    change.from.map_or(EventData::Null, |v| text(v.to_string())),
                ),
                ("to_version_id".to_owned(), text(change.to.to_string())),
            ]),
            Evidence {
                source_timestamp: delta.to.published_at.unwrap_or(delta.to.imported_at),
                upstream_ref: Some(delta.to.id.to_string()),
                digest: Some(delta.to.digest.clone()),
                ..Evidence::derived(at)
            },
        ),
        Cause::PartyAdded {
            reading_key,
            trigger,
        } => (
            *trigger,
            "party_added",
            (*reading_key).to_owned(),
            EventData::Null,
            Evidence::derived(at),
        ),
    };
    let mut data = vec![
        ("trigger".to_owned(), text(trigger.as_str().to_owned())),
        ("cause".to_owned(), text(cause_name.to_owned())),
        ("subscription_id".to_owned(), text(sub.id.to_string())),
        (
            "aliases".to_owned(),
            EventData::List(check.aliases.iter().map(|a| text(a.to_string())).collect()),
        ),
        (
            "check_id_before".to_owned(),
            previous.map_or(EventData::Null, |p| text(p.to_string())),
        ),
        ("check_id".to_owned(), text(check.id.to_string())),
        ("band".to_owned(), text(check.band.as_str().to_owned())),
    ];
    data.extend(moved.data());
    data.push(("list".to_owned(), list));
    data.push((
        "source_version_ids".to_owned(),
        EventData::List(
            check
                .source_version_ids
                .iter()
                .map(|v| text(v.to_string()))
                .collect(),
        ),
    ));
    data.push((
        "policy_version_id".to_owned(),
        text(check.policy_version_id.to_string()),
    ));
    data.push((
        "tenant_override_version_id".to_owned(),
        check
            .tenant_override_version_id
            .map_or(EventData::Null, |o| text(o.to_string())),
    ));
    data.push((
        "matcher_version".to_owned(),
        text(check.matcher_version.clone()),
    ));
    NewEvent {
        id: EventId::generate(),
        idempotency_key: format!("{}:{key}:{}", sub.id, EventType::ScreeningChanged.name()),
        type_name: EventType::ScreeningChanged.name().to_owned(),
        country: sub.country,
        subject_id: check.subject_id.or(Some(sub.subject_id)),
        subject_ref: None,
        subscription_id: Some(sub.id),
        occurred_at: at,
        data: EventData::Object(data),
        evidence,
    }
}

#[async_trait::async_trait]
impl PartyScreening for OngoingScreening {
    async fn screen_newcomers(
        &self,
        caller: &Caller,
        subscription: &Subscription,
        parties: Vec<Party>,
        newcomers: Vec<Party>,
        reading_key: &str,
        trigger: Trigger,
    ) -> Result<bool, Failure> {
        let now = self.clock.now();
        let caller = Caller::ongoing_screening(caller.tenant.clone(), caller.data_key.clone(), now);
        let setting = match self.screening.setting(&caller, now).await {
            Ok(s) => s,
            Err(f) if f.code == ErrorCode::ScreeningUnavailable => return Ok(false),
            Err(f) => return Err(f),
        };
        let mut screened = match self
            .screening
            .read_subject(&caller, &subscription.subject_id)
            .await
        {
            Ok(s) => s,
            Err(f) if f.code == ErrorCode::InternalError => return Err(f),
            // By rule (a company no longer served or screened): nothing to screen.
            Err(_) => return Ok(false),
        };
        screened.parties = parties;
        let check = self.screening.assemble(&caller, &setting, &screened, now)?;
        let appeared: Vec<Standing> = standings(&check.candidates, None)
            .into_values()
            .filter(|s| {
                s.concerns
                    .as_ref()
                    .is_some_and(|p| newcomers.iter().any(|n| n.same(p)))
            })
            .collect();
        if appeared.is_empty() {
            return Ok(false);
        }
        let moved = OutcomeChange {
            appeared,
            ..OutcomeChange::default()
        };
        let previous = self.latest_check(&caller, &check).await?;
        let cause = Cause::PartyAdded {
            reading_key,
            trigger,
        };
        let event = changed_event(subscription, &cause, &check, previous, &moved, now);
        let written = self
            .screening
            .store
            .record_screening_change(
                &caller.tenant_id,
                &subscription.id,
                &check,
                std::slice::from_ref(&event),
            )
            .await
            .map_err(Failure::internal)?;
        if written.is_none() {
            return Ok(false);
        }
        self.meter.screening_check(check.band.as_str());
        crate::monitoring::event::meter_appended(self.meter.as_ref(), [&event]);
        Ok(true)
    }
}
