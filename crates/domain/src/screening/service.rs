//! The screening use cases of consumers: run a check (`POST /v1/screening/checks`), read
//! checks, and read the tenant's override versions and whitelist.
//!
//! A check runs in this order, and nothing is stored unless it completes:
//! 1. the scope (`screening:run`);
//! 2. the body: an ad-hoc `name` holding a number shaped like a personal identity number is
//!    refused first (400 `name_is_identifier`, the value never echoed), then the other
//!    fields (400, 400 `invalid_identifier` for the orgnr, 403 for an orgnr of a country the
//!    credential lacks);
//! 3. the policy and the lists: no active policy version or no list loaded is 503
//!    `screening_unavailable`, before any register is asked;
//! 4. a subject's identity: a person's name and birth date from the population register
//!    (`kyc:read` and the permit, metered against the person ceiling), a company's name
//!    and number from its profile;
//! 5. the matcher over the active list versions, the policy (with the tenant's override)
//!    banding each candidate, the whitelist marking the candidates it clears;
//! 6. the check appended, its input sealed under the tenant's key.
//!
//! Checks are never served from a cache: each `POST` runs the matcher again.

use crate::access::caller::Caller;
use crate::access::scope::Scope;
use crate::clock::Clock;
use crate::companies::service::CompanyService;
use crate::countries::country::Country;
use crate::countries::registry::Countries;
use crate::error::StoreError;
use crate::error::{ErrorCode, Failure};
use crate::ids::{ScreeningCheckId, SourceVersionId, SubjectId};
use crate::operation::Operation;
use crate::persons::service::PersonService;
use crate::screening::check::{
    CandidateEvidence, CheckCandidate, CheckInput, CheckReason, CheckRequest, ChecksRequest,
    InputKind, ServedCheck, StoredCheck,
};
use crate::screening::exposure;
use crate::screening::matcher::index::ListIndex;
use crate::screening::matcher::normalise::tokens;
use crate::screening::matcher::{self, Query, MATCHER_VERSION};
use crate::screening::policy::{Band, OverrideVersion, PolicyConfig};
use crate::screening::ports::{
    SanctionsListStore, ScreeningContext, ScreeningStore, ScreeningVault,
};
use crate::screening::sanctions::{ActiveList, ListKind, ListSource, ListedDate};
use crate::screening::whitelist::WhitelistEntry;
use crate::subjects::identifier::shape::holds_personal_number;
use crate::subjects::identifier::{Identifier, SubjectKind};
use crate::subjects::ports::SubjectStore;
use crate::subjects::service::SubjectService;
use chrono::{DateTime, Datelike, Utc};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The most candidates a check keeps.
pub const MAX_CANDIDATES: usize = 25;
/// How far below the policy's `review` threshold a candidate is still shown (as `clear`),
/// so a reviewer sees the near misses too.
pub const NEAR_MISS_MARGIN: f64 = 0.10;
/// `GET /v1/screening/checks`: default and largest `limit`.
pub const DEFAULT_CHECKS_LIMIT: u32 = 50;
pub const MAX_CHECKS_LIMIT: u32 = 200;
/// The longest ad-hoc name accepted.
pub const MAX_NAME_CHARS: usize = 300;
/// The most nationalities an ad-hoc check may name.
pub const MAX_NATIONALITIES: usize = 20;

pub struct ScreeningService {
    /// Where what this use case does is counted for operators.
    pub meter: Arc<dyn crate::meter::Meter>,
    pub store: Arc<dyn ScreeningStore>,
    pub lists: Arc<dyn SanctionsListStore>,
    pub vault: Arc<dyn ScreeningVault>,
    pub subject_store: Arc<dyn SubjectStore>,
    pub subjects: Arc<SubjectService>,
    pub companies: Arc<CompanyService>,
    pub persons: Arc<PersonService>,
    pub clock: Arc<dyn Clock>,
    /// The index of the active list versions, rebuilt when they change.
    pub loaded: Mutex<Option<Arc<LoadedLists>>>,
    /// Set while one request builds a new index.
    pub building: AtomicBool,
}

/// The one builder of a new index; the flag drops when it ends (or fails).
struct Building<'a>(&'a AtomicBool);

impl<'a> Building<'a> {
    fn start(flag: &'a AtomicBool) -> Option<Building<'a>> {
        flag.compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .ok()
            .map(|_| Building(flag))
    }
}

impl Drop for Building<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// How the index of the active lists stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexState {
    /// No list is active: checks answer `screening_unavailable`, nothing to index.
    NoLists,
    /// An index is held; `current` when it is of the active versions (else checks use it
    /// until the index of the newer versions is built).
    Built { entries: usize, current: bool },
    /// Lists are active and no index is held: the first check would build it.
    NotBuilt,
}

/// The active list versions, indexed for the matcher.
pub struct LoadedLists {
    /// The versions indexed, in `ListSource` order (the index's order).
    pub version_ids: Vec<SourceVersionId>,
    pub index: ListIndex,
}

/// A validated request.
enum Plan {
    Subject(SubjectId),
    Adhoc(Box<AdhocPlan>),
}

struct AdhocPlan {
    input: CheckInput,
    query: Query,
    orgnr: Option<Identifier>,
}

/// A subject's identity (or an ad-hoc one), read for a check.
pub(crate) struct Screened {
    pub(crate) input: CheckInput,
    pub(crate) query: Query,
    pub(crate) subject_id: Option<SubjectId>,
    /// The ids merged into the subject when it was screened.
    pub(crate) aliases: Vec<SubjectId>,
    pub(crate) visibility: Option<Country>,
    pub(crate) input_kind: InputKind,
    pub(crate) input_verified: bool,
    pub(crate) person: bool,
    /// A company's officers and beneficial owners screened with it (ongoing screening of a
    /// monitored company); empty otherwise.
    pub(crate) parties: Vec<crate::companies::paid::Party>,
}

/// What a tenant's checks run under now.
pub(crate) struct Setting {
    pub(crate) policy: crate::screening::policy::PolicyVersion,
    /// The policy with the tenant's override applied.
    pub(crate) config: PolicyConfig,
    pub(crate) context: ScreeningContext,
    /// The active lists, in `ListSource` order.
    pub(crate) lists: Vec<ActiveList>,
    pub(crate) loaded: Arc<LoadedLists>,
}

/// A whitelist entry as a reader sees it, with whether it is in effect now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhitelistView {
    pub entry: WhitelistEntry,
    pub effective: bool,
}

fn unavailable(message: &str) -> Failure {
    Failure::new(ErrorCode::ScreeningUnavailable, message)
}

/// Two ASCII letters, upper-cased: an ISO 3166-1 alpha-2 code by shape.
fn country_code(field: &str, value: &str) -> Result<String, Failure> {
    let v = value.trim();
    if v.len() == 2 && v.bytes().all(|b| b.is_ascii_alphabetic()) {
        Ok(v.to_ascii_uppercase())
    } else {
        Err(Failure::bad_request(
            field,
            "must be an ISO 3166-1 alpha-2 country code (two letters, `SE`)",
        ))
    }
}

/// A birth date as people know it: a day, a month or a year.
fn birth_date(value: &str, today: DateTime<Utc>) -> Result<ListedDate, Failure> {
    let problem = || {
        Failure::bad_request(
            "birth_date",
            "must be a date `YYYY-MM-DD`, a month `YYYY-MM` or a year `YYYY`, not in the future",
        )
    };
    let date = ListedDate::from_wire(value.trim()).ok_or_else(problem)?;
    let year = match date {
        ListedDate::Day(d) => d.year(),
        ListedDate::Month { year, .. } | ListedDate::Year(year) => year,
        ListedDate::Years { .. } => return Err(problem()),
    };
    if !(1850..=today.year()).contains(&year) {
        return Err(problem());
    }
    if let ListedDate::Day(d) = date {
        if d > today.date_naive() {
            return Err(problem());
        }
    }
    Ok(date)
}

/// The canonical text an input's keyed hash is taken of: the name's folded words in order
/// of spelling (so word order and case do not matter), the birth date, the nationalities
/// sorted, the orgnr, the country.
pub fn canonical_input(query: &Query) -> String {
    let mut words = tokens(&query.name);
    words.sort();
    let mut nationalities = query.nationalities.clone();
    nationalities.sort();
    nationalities.dedup();
    format!(
        "v1|name={}|birth_date={}|nationalities={}|orgnr={}|country={}",
        words.join(" "),
        query
            .birth_date
            .map(ListedDate::to_wire)
            .unwrap_or_default(),
        nationalities.join(","),
        query.registration_number.as_deref().unwrap_or(""),
        query.country.as_deref().unwrap_or(""),
    )
}

/// A score as checks carry it: four decimals.
pub(crate) fn rounded(score: f64) -> f64 {
    (score * 10_000.0).round() / 10_000.0
}

/// The lowest raw score that [`rounded`] brings to `threshold` or above (half a unit of the
/// fourth decimal below it).
pub(crate) fn lowest_rounding_to(threshold: f64) -> f64 {
    threshold - 0.000_05
}

impl ScreeningService {
    /// `POST /v1/screening/checks`.
    pub async fn run(
        &self,
        caller: &Caller,
        request: CheckRequest,
    ) -> Result<ServedCheck, Failure> {
        caller.require_operation(Operation::RunScreeningCheck)?;
        let plan = self.validate(caller, request)?;
        let now = self.clock.now();
        let setting = self.setting(caller, now).await?;

        let screened = match plan {
            Plan::Adhoc(adhoc) => {
                let AdhocPlan {
                    input,
                    query,
                    orgnr,
                } = *adhoc;
                Screened {
                    input,
                    query,
                    subject_id: None,
                    aliases: Vec::new(),
                    visibility: orgnr.map(|o| o.country()),
                    input_kind: InputKind::Adhoc,
                    input_verified: false,
                    person: false,
                    parties: Vec::new(),
                }
            }
            Plan::Subject(id) => self.read_subject(caller, &id).await?,
        };
        let check = self.assemble(caller, &setting, &screened, now)?;
        self.store
            .insert_check(&check)
            .await
            .map_err(Failure::internal)?;
        self.meter.screening_check(check.band.as_str());
        Ok(self.mask(caller, check, screened.input))
    }

    /// What a check of the tenant runs under (step 3): the policy with the tenant's
    /// override, the whitelist, the active lists and their index. No active policy, or no
    /// list loaded, is 503 `screening_unavailable`.
    pub(crate) async fn setting(
        &self,
        caller: &Caller,
        now: DateTime<Utc>,
    ) -> Result<Setting, Failure> {
        let context = self
            .store
            .screening_context(&caller.tenant_id, now)
            .await
            .map_err(Failure::internal)?;
        let mut lists = self.lists.active_lists().await.map_err(Failure::internal)?;
        let Some(policy) = context.policy.clone() else {
            return Err(unavailable(
                "no screening policy version is active; nothing was checked or stored",
            ));
        };
        if lists.is_empty() {
            return Err(unavailable(
                "no sanctions list is loaded; nothing was checked or stored",
            ));
        }
        lists.sort_by_key(|l| l.version.source);
        let config = match &context.override_version {
            Some(o) => o.config.apply(&policy.config).map_err(Failure::internal)?,
            None => policy.config.clone(),
        };
        if !lists
            .iter()
            .any(|l| config.screens(l.version.source.kind()))
        {
            return Err(unavailable(
                "no sanctions list is loaded and the tenant's policy leaves PEP lists out; \
                 nothing was checked or stored",
            ));
        }
        let loaded = self.loaded(&lists).await?;
        Ok(Setting {
            policy,
            config,
            context,
            lists,
            loaded,
        })
    }

    /// The check of `screened` under `setting` (steps 5 and 6, short of storing it): the
    /// candidates banded and whitelisted, the input sealed, every version named.
    pub(crate) fn assemble(
        &self,
        caller: &Caller,
        setting: &Setting,
        screened: &Screened,
        now: DateTime<Utc>,
    ) -> Result<StoredCheck, Failure> {
        let loaded = &setting.loaded;
        let screened_kind = |s: ListSource| setting.config.screens(s.kind());
        let input_hash = self.input_hash(caller, screened)?;
        let candidates = self.candidates(
            loaded,
            &setting.config,
            &setting.context,
            screened,
            &input_hash,
            now,
        );
        let band = candidates
            .iter()
            .filter(|c| !c.whitelisted)
            .map(|c| c.band)
            .max()
            .unwrap_or(Band::Clear);
        let sealed_input = self
            .vault
            .seal_check_input(&caller.tenant_id, &caller.data_key, &screened.input)
            .map_err(Failure::internal)?;
        Ok(StoredCheck {
            id: ScreeningCheckId::generate(),
            tenant_id: caller.tenant_id,
            grant_id: caller.grant_id,
            subject_id: screened.subject_id,
            aliases: screened.aliases.clone(),
            visibility: screened.visibility,
            input_kind: screened.input_kind,
            sealed_input,
            has_identifier: screened.input.orgnr.is_some(),
            person_fields_masked: screened.person,
            input_hash: Some(input_hash),
            input_verified: screened.input_verified,
            band,
            policy_version_id: setting.policy.id,
            tenant_override_version_id: setting.context.override_version.as_ref().map(|o| o.id),
            // The versions screened: a policy that leaves PEP lists out ran under none of
            // theirs.
            source_version_ids: loaded
                .index
                .versions
                .iter()
                .filter(|v| screened_kind(v.source))
                .map(|v| v.id)
                .collect(),
            // A list whose latest import failed, or whose newest version is still being
            // indexed (the check ran on the version before it, and names that one).
            degraded_sources: setting
                .lists
                .iter()
                .filter(|l| screened_kind(l.version.source))
                .filter(|l| l.failed_since.is_some() || !loaded.version_ids.contains(&l.version.id))
                .map(|l| l.version.source.as_str().to_owned())
                .collect(),
            truncated_datasets: loaded
                .index
                .versions
                .iter()
                .filter(|v| v.skipped_count > 0 && screened_kind(v.source))
                .map(|v| v.source.as_str().to_owned())
                .collect(),
            matcher_version: MATCHER_VERSION.to_owned(),
            checked_at: now,
            candidates,
        })
    }

    /// The keyed hash that names the screened input under the tenant's key.
    pub(crate) fn input_hash(
        &self,
        caller: &Caller,
        screened: &Screened,
    ) -> Result<String, Failure> {
        self.vault
            .input_hash(
                &caller.tenant_id,
                &caller.data_key,
                &canonical_input(&screened.query),
            )
            .map_err(Failure::internal)
    }

    /// The body's rules (step 2), before anything is read or stored.
    fn validate(&self, caller: &Caller, r: CheckRequest) -> Result<Plan, Failure> {
        // First of all: a personal number in a name is never looked at further.
        if r.name.as_deref().is_some_and(holds_personal_number) {
            return Err(Failure::new(
                ErrorCode::NameIsIdentifier,
                "`name` holds a number shaped like a personal identity number; nothing was \
                 looked up or stored. Resolve the person and screen by `subject_id`",
            ));
        }
        let adhoc = r.name.is_some()
            || r.birth_date.is_some()
            || r.nationalities.is_some()
            || r.orgnr.is_some()
            || r.country.is_some();
        if let Some(id) = r.subject_id {
            if adhoc {
                return Err(Failure::bad_request(
                    "subject_id",
                    "send either `subject_id` or an ad-hoc identity (`name`, `birth_date`, \
                     `nationalities`, `orgnr`, `country`), not both",
                ));
            }
            let id = id
                .trim()
                .parse::<SubjectId>()
                .map_err(|_| Failure::not_found("subject"))?;
            return Ok(Plan::Subject(id));
        }
        let name = r
            .name
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty());
        if let Some(n) = &name {
            if n.chars().count() > MAX_NAME_CHARS {
                return Err(Failure::bad_request(
                    "name",
                    &format!("must be at most {MAX_NAME_CHARS} characters"),
                ));
            }
            if tokens(n).is_empty() {
                return Err(Failure::bad_request(
                    "name",
                    "must hold at least one letter or digit",
                ));
            }
        }
        let orgnr = match r.orgnr.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(wire) => Some(crate::companies::admission::company_code(caller, wire)?),
        };
        if name.is_none() && orgnr.is_none() {
            return Err(Failure::bad_request(
                "name",
                "send `subject_id`, or an ad-hoc identity with at least a `name` or an `orgnr`",
            ));
        }
        let now = self.clock.now();
        let birth = r
            .birth_date
            .as_deref()
            .map(|b| birth_date(b, now))
            .transpose()?;
        let sent = r.nationalities.unwrap_or_default();
        // Counted as sent, so that the bound is one a schema can state (`maxItems`).
        if sent.len() > MAX_NATIONALITIES {
            return Err(Failure::bad_request(
                "nationalities",
                &format!("at most {MAX_NATIONALITIES} countries"),
            ));
        }
        let mut nationalities = Vec::new();
        for n in sent {
            let code = country_code("nationalities", &n)?;
            if !nationalities.contains(&code) {
                nationalities.push(code);
            }
        }
        let country = r
            .country
            .as_deref()
            .map(|c| country_code("country", c))
            .transpose()?;
        let input = CheckInput {
            name: name.clone(),
            birth_date: birth.map(ListedDate::to_wire),
            nationalities: nationalities.clone(),
            orgnr: orgnr.as_ref().map(Identifier::company_wire),
            country: country.clone(),
        };
        let query = Query {
            name: name.unwrap_or_default(),
            birth_date: birth,
            nationalities,
            country,
            registration_number: orgnr.as_ref().map(|o| o.expose_canonical().to_owned()),
        };
        Ok(Plan::Adhoc(Box::new(AdhocPlan {
            input,
            query,
            orgnr,
        })))
    }

    /// A subject's identity for a check (step 4).
    pub(crate) async fn read_subject(
        &self,
        caller: &Caller,
        id: &SubjectId,
    ) -> Result<Screened, Failure> {
        let not_found = || Failure::not_found("subject");
        let record = match self.subject_store.subject(&caller.tenant_id, id).await {
            Ok(r) => r,
            Err(StoreError::NotFound) => return Err(not_found()),
            Err(e) => return Err(Failure::internal(e)),
        };
        match record.kind {
            SubjectKind::Person => {
                // Person data: `kyc:read` is needed besides `screening:run`.
                caller.require_any_scope(&[Scope::KycRead])?;
                let identity = self.persons.screening_identity(caller, id).await?;
                let Some(name) = identity.name else {
                    return Err(Failure::bad_request(
                        "subject_id",
                        "the population register gives no name for this person (protected \
                         identity); there is nothing to screen",
                    ));
                };
                Ok(Screened {
                    // The register's name and birth date are not kept (the hash stands for
                    // them).
                    input: CheckInput::default(),
                    query: Query {
                        name,
                        birth_date: identity.birth_date.map(ListedDate::Day),
                        ..Query::default()
                    },
                    subject_id: Some(identity.subject.subject_id),
                    aliases: identity.subject.aliases.clone(),
                    visibility: Some(identity.country),
                    input_kind: InputKind::Subject,
                    input_verified: true,
                    person: true,
                    parties: Vec::new(),
                })
            }
            SubjectKind::Company => {
                let visible = caller.visible_countries();
                let mut identifiers: Vec<_> = record
                    .identifiers
                    .iter()
                    .filter(|i| i.valid_to.is_none() && visible.contains(i.country))
                    .collect();
                // A country whose companies are screened first, then the newest identifier.
                let countries = &self.companies.countries;
                identifiers.sort_by_key(|i| {
                    (
                        !countries.screens(SubjectKind::Company, i.country),
                        std::cmp::Reverse(i.valid_from),
                    )
                });
                let chosen = identifiers.first().ok_or_else(not_found)?;
                if !countries.screens(SubjectKind::Company, chosen.country) {
                    return Err(Countries::not_screened(
                        SubjectKind::Company,
                        chosen.country,
                    ));
                }
                let holder = self
                    .subjects
                    .holder(caller, &chosen.identifier_ref)
                    .await?
                    .ok_or_else(not_found)?;
                let orgnr = self.subjects.reveal(caller, &holder)?;
                let served = self.companies.screening_profile(caller, &orgnr).await?;
                let country = orgnr.country().code().to_owned();
                Ok(Screened {
                    input: CheckInput {
                        name: Some(served.profile.data.name.clone()),
                        orgnr: Some(orgnr.company_wire()),
                        country: Some(country.clone()),
                        ..CheckInput::default()
                    },
                    query: Query {
                        name: served.profile.data.name.clone(),
                        country: Some(country),
                        registration_number: Some(orgnr.expose_canonical().to_owned()),
                        ..Query::default()
                    },
                    subject_id: Some(served.subject.subject_id),
                    aliases: served.subject.aliases.clone(),
                    visibility: Some(orgnr.country()),
                    input_kind: InputKind::Subject,
                    input_verified: true,
                    person: false,
                    parties: Vec::new(),
                })
            }
        }
    }

    /// The matcher's candidates as a check keeps them (step 5).
    pub(crate) fn candidates(
        &self,
        loaded: &LoadedLists,
        config: &PolicyConfig,
        context: &ScreeningContext,
        screened: &Screened,
        input_hash: &str,
        now: DateTime<Utc>,
    ) -> Vec<CheckCandidate> {
        let floor = (config.review - NEAR_MISS_MARGIN).max(0.5);
        // The subject first, then each of its parties (a company's officers and beneficial
        // owners, by name), each with its own candidates.
        let parties = screened.parties.iter().map(|p| {
            (
                Some(p),
                Query {
                    name: p.name.clone(),
                    ..Query::default()
                },
            )
        });
        let queries = std::iter::once((None, screened.query.clone())).chain(parties);
        let today = now.date_naive();
        let kinds: Vec<ListKind> = [ListKind::Sanctions, ListKind::Pep]
            .into_iter()
            .filter(|k| config.screens(*k))
            .collect();
        let index = &loaded.index;
        queries
            .flat_map(|(party, query)| {
                // Each kind of list screened on its own, so neither crowds the other out;
                // then the findings first (hits, reviews), best score first.
                let mut found: Vec<(Band, matcher::Candidate)> = kinds
                    .iter()
                    .flat_map(|kind| {
                        matcher::screen_within(
                            index,
                            &config.weights,
                            &query,
                            floor,
                            MAX_CANDIDATES,
                            |e| index.versions[e.version].source.kind() == *kind,
                        )
                    })
                    .map(|c| {
                        let kind = index.versions[index.entries[c.entry].version].source.kind();
                        (exposure::ceiling(kind, config.band(rounded(c.score))), c)
                    })
                    .collect();
                found.sort_by(|(ba, a), (bb, b)| {
                    bb.cmp(ba)
                        .then(b.score.total_cmp(&a.score))
                        .then(a.entry.cmp(&b.entry))
                });
                found.truncate(MAX_CANDIDATES);
                found.into_iter().map(move |(_, c)| (party, c))
            })
            .map(|(party, c)| {
                let indexed = &loaded.index.entries[c.entry];
                let version = &loaded.index.versions[indexed.version];
                let entry = &indexed.entry;
                let name = &loaded.index.names[c.name];
                let score = rounded(c.score);
                // A PEP list's candidate: what makes the person exposed today, and a band of
                // at most `review`.
                let mut band = config.band(score);
                let mut reasons: Vec<CheckReason> = c
                    .reasons
                    .into_iter()
                    .map(|r| CheckReason {
                        code: r.code.to_owned(),
                        detail: r.detail,
                        contributes: r.contributes,
                    })
                    .collect();
                if version.source.kind() == ListKind::Pep {
                    let exposure = entry.exposure.clone().unwrap_or_default();
                    let assessed =
                        exposure::assess(&exposure, today, config.peps.after_office_months);
                    band = assessed.cap(band);
                    reasons.extend(assessed.reasons);
                }
                let whitelist = context.whitelist.iter().find(|w| {
                    w.effective(now)
                        && w.covers(
                            version.source,
                            &entry.source_entry_id,
                            screened.subject_id.as_ref(),
                            Some(input_hash),
                        )
                });
                CheckCandidate {
                    id: format!("{}:{}", version.id, entry.source_entry_id),
                    entity_id: format!("{}:{}", version.source, entry.source_entry_id),
                    source: version.source,
                    source_entry_id: entry.source_entry_id.clone(),
                    source_version_id: version.id,
                    score,
                    band,
                    reasons,
                    listing: entry.clone(),
                    evidence: CandidateEvidence {
                        digest: version.digest.clone(),
                        published_at: version.published_at,
                        imported_at: version.imported_at,
                        matched_name: name.full.clone(),
                        matched_name_quality: name.quality,
                    },
                    whitelisted: whitelist.is_some(),
                    whitelist_id: whitelist.map(|w| w.id),
                    concerns: party.map(crate::companies::paid::Party::kept),
                }
            })
            .collect()
    }

    /// The index of `lists` (sorted by source), built once per set of active versions. While
    /// one request builds the index of a new set, the others keep using the previous index
    /// (their checks name the versions it holds), so an import never stalls every request.
    async fn loaded(&self, lists: &[ActiveList]) -> Result<Arc<LoadedLists>, Failure> {
        let ids: Vec<SourceVersionId> = lists.iter().map(|l| l.version.id).collect();
        let current = self.current();
        if let Some(current) = current.as_ref().filter(|l| l.version_ids == ids) {
            return Ok(current.clone());
        }
        let Some(_building) = Building::start(&self.building) else {
            if let Some(current) = current {
                return Ok(current);
            }
            return Err(unavailable(
                "the sanctions lists are being loaded; retry in a few seconds",
            ));
        };
        let mut versions = Vec::with_capacity(lists.len());
        for list in lists {
            let entries = self
                .lists
                .version_entries(&list.version.id)
                .await
                .map_err(Failure::internal)?;
            versions.push((list.version.clone(), entries));
        }
        let loaded = Arc::new(LoadedLists {
            version_ids: ids,
            index: ListIndex::build(versions),
        });
        if let Ok(mut slot) = self.loaded.lock() {
            *slot = Some(loaded.clone());
        }
        Ok(loaded)
    }

    /// How the index of the active lists stands (for readiness): one read of the active
    /// lists, compared with the index held.
    pub async fn index_state(&self) -> Result<IndexState, Failure> {
        let mut lists = self.lists.active_lists().await.map_err(Failure::internal)?;
        if lists.is_empty() {
            return Ok(IndexState::NoLists);
        }
        lists.sort_by_key(|l| l.version.source);
        let ids: Vec<SourceVersionId> = lists.iter().map(|l| l.version.id).collect();
        Ok(match self.current() {
            Some(loaded) => IndexState::Built {
                entries: loaded.index.entries.len(),
                current: loaded.version_ids == ids,
            },
            None => IndexState::NotBuilt,
        })
    }

    /// The index held is of a set of versions that includes `version`.
    pub fn holds_version(&self, version: &SourceVersionId) -> bool {
        self.current()
            .is_some_and(|l| l.version_ids.contains(version))
    }

    /// A request (or a warm-up) is building an index now.
    pub fn is_building(&self) -> bool {
        self.building.load(Ordering::Acquire)
    }

    fn current(&self) -> Option<Arc<LoadedLists>> {
        self.loaded.lock().ok().and_then(|slot| slot.clone())
    }

    /// Builds the index of the active lists now (at start-up and after an import), so the
    /// first check after it does not wait for it. Nothing loaded is not an error here.
    pub async fn warm(&self) -> Result<usize, Failure> {
        let mut lists = self.lists.active_lists().await.map_err(Failure::internal)?;
        if lists.is_empty() {
            return Ok(0);
        }
        lists.sort_by_key(|l| l.version.source);
        Ok(self.loaded(&lists).await?.index.entries.len())
    }

    /// The input as this caller may see it: the orgnr removed without `kyc:read`.
    fn mask(&self, caller: &Caller, check: StoredCheck, mut input: CheckInput) -> ServedCheck {
        let identifier_masked =
            input.orgnr.is_some() && !caller.scopes.contains_any(&[Scope::KycRead]);
        if identifier_masked {
            input.orgnr = None;
        }
        ServedCheck {
            check,
            input,
            identifier_masked,
        }
    }

    fn serve(&self, caller: &Caller, check: StoredCheck) -> Result<ServedCheck, Failure> {
        let input = self
            .vault
            .open_check_input(&caller.tenant_id, &caller.data_key, &check.sealed_input)
            .map_err(Failure::internal)?;
        Ok(self.mask(caller, check, input))
    }

    /// `GET /v1/screening/checks/{id}`: 404 for an unknown id or a check in a country
    /// outside the credential's.
    pub async fn get(&self, caller: &Caller, id: &str) -> Result<ServedCheck, Failure> {
        caller.require_operation(Operation::GetScreeningCheck)?;
        let not_found = || Failure::not_found("screening check");
        let id: ScreeningCheckId = id.parse().map_err(|_| not_found())?;
        let check = self
            .store
            .check(&caller.tenant_id, &id)
            .await
            .map_err(Failure::internal)?
            .ok_or_else(not_found)?;
        let visible = caller.visible_countries();
        if check.visibility.is_some_and(|c| !visible.contains(c)) {
            return Err(not_found());
        }
        self.serve(caller, check)
    }

    /// `GET /v1/screening/checks`: newest first, `limit` 1 to 200 (default 50), of one
    /// subject when `subject_id` is given.
    pub async fn list(
        &self,
        caller: &Caller,
        request: &ChecksRequest,
    ) -> Result<Vec<ServedCheck>, Failure> {
        caller.require_operation(Operation::ListScreeningChecks)?;
        let limit = match request.limit.as_deref() {
            None => DEFAULT_CHECKS_LIMIT,
            Some(l) => l
                .parse::<u32>()
                .ok()
                .filter(|l| (1..=MAX_CHECKS_LIMIT).contains(l))
                .ok_or_else(|| {
                    Failure::bad_request(
                        "limit",
                        &format!("must be a whole number from 1 to {MAX_CHECKS_LIMIT}"),
                    )
                })?,
        };
        let subject = request
            .subject_id
            .as_deref()
            .map(|s| {
                s.parse::<SubjectId>()
                    .map_err(|_| Failure::bad_request("subject_id", "is not a subject id"))
            })
            .transpose()?;
        let checks = self
            .store
            .checks(
                &caller.tenant_id,
                subject,
                &caller.visible_countries(),
                limit,
            )
            .await
            .map_err(Failure::internal)?;
        checks.into_iter().map(|c| self.serve(caller, c)).collect()
    }

    /// `GET /v1/screening/overrides`: the tenant's override versions, newest first.
    pub async fn overrides(&self, caller: &Caller) -> Result<Vec<OverrideVersion>, Failure> {
        caller.require_operation(Operation::ListScreeningOverrides)?;
        self.store
            .overrides(&caller.tenant_id)
            .await
            .map_err(Failure::internal)
    }

    /// `GET /v1/screening/whitelist`: the tenant's entries, newest first, each with whether
    /// it is in effect now.
    pub async fn whitelist(&self, caller: &Caller) -> Result<Vec<WhitelistView>, Failure> {
        caller.require_operation(Operation::ListScreeningWhitelist)?;
        let now = self.clock.now();
        let entries = self
            .store
            .whitelist(&caller.tenant_id)
            .await
            .map_err(Failure::internal)?;
        Ok(entries
            .into_iter()
            .map(|entry| WhitelistView {
                effective: entry.effective(now),
                entry,
            })
            .collect())
    }
}
