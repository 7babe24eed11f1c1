//! Wire types of sanctions screening: a check (`POST /v1/screening/checks`,
//! `GET /v1/screening/checks/{id}`), the tenant's override versions and whitelist entries.
//!
//! These bodies are bare objects, not `{stale, data}`: a check is a result the service
//! computed and kept, never upstream data served from a cache.
//!
//! Every body is deterministic: fields in a fixed order, lists in the order the domain gives
//! them (candidates by score, then list order), scores rounded to four decimals, timestamps
//! at millisecond precision. The same check read twice is the same bytes; two checks of the
//! same input under the same versions differ only in `id` and `checked_at`.

use super::timestamp;
use domain::screening::check::{CheckCandidate, ServedCheck};
use domain::screening::policy::{OverrideConfig, OverrideVersion, WeightOverrides};
use domain::screening::service::WhitelistView;
use serde::Serialize;

/// The input a check ran on, as this reader may see it.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ScreeningInputSnapshotDto {
    /// The name screened; `null` when none was sent, and always on a check of a person
    /// subject (`person_fields_masked`).
    #[schema(required = true)]
    pub name: Option<String>,
    /// `YYYY-MM-DD`, `YYYY-MM` or `YYYY`; `null` when none was sent, and always on a check
    /// of a person subject.
    #[schema(required = true)]
    pub birth_date: Option<String>,
    /// ISO 3166-1 alpha-2 code of the screened party's country, as sent (or the company
    /// subject's).
    #[schema(required = true)]
    pub country: Option<String>,
    /// The organisation number in identifier wire form (`se:5560360793`); `null` when none
    /// was screened, or when it was and this reader lacks `kyc:read` (`identifier_masked`).
    #[schema(required = true)]
    pub orgnr: Option<String>,
    /// ISO 3166-1 alpha-2 codes, upper case, in the order sent.
    pub nationalities: Vec<String>,
    /// An organisation number was screened and is hidden from this reader (no `kyc:read`).
    pub identifier_masked: bool,
    /// A check of a person subject: the register's name and birth date were screened and are
    /// not kept (`name` and `birth_date` are `null` for that reason, not because they were
    /// absent).
    pub person_fields_masked: bool,
    /// The keyed hash of the input (`hmac-sha256:` + 64 hex digits): the tenant's
    /// whitelist entries name an ad-hoc input by it, without the service keeping the input.
    #[schema(required = true)]
    pub input_hash: Option<String>,
}

/// One reason of a candidate's score.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ScreeningReasonDto {
    /// What was compared (`name_exact`, `name_similar`, `weak_alias`, `birth_date_exact`,
    /// `nationality_match`, `identifier_match`, ...); open: a new matcher version may add
    /// codes.
    pub code: String,
    /// The comparison in words, naming the listed values it used.
    pub detail: String,
    #[schema(schema_with = crate::schema::contribution)]
    pub contributes: &'static str,
}

/// A name of a list entry, as the list writes it.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ListedNameDto {
    pub name: String,
    #[schema(schema_with = crate::schema::name_quality)]
    pub quality: &'static str,
}

/// A country a list ties to an entry.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ListedCountryDto {
    /// ISO 3166-1 alpha-2, when the list's words map to one.
    #[schema(required = true)]
    pub code: Option<String>,
    /// The country as the list writes it.
    pub name: String,
}

/// An identifying number a list gives for an entry.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ListedIdentifierDto {
    /// What the number is, in the list's words, lower case (`passport`, `registration
    /// number`).
    pub kind: String,
    pub value: String,
    /// The issuing country (ISO 3166-1 alpha-2), when known.
    #[schema(required = true)]
    pub country: Option<String>,
}

/// The list entry as its list gives it (public list data).
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ScreeningListingDto {
    #[schema(schema_with = crate::schema::entry_kind)]
    pub kind: &'static str,
    /// The primary name first, then the aliases.
    pub names: Vec<ListedNameDto>,
    /// As precise as the list gives them: `1971-05-02`, `1971-05`, `1971`, or a span of
    /// years `1969..1972`.
    pub birth_dates: Vec<String>,
    pub nationalities: Vec<ListedCountryDto>,
    /// Other countries the list ties to the entry (addresses, places of birth,
    /// incorporation).
    pub countries: Vec<ListedCountryDto>,
    pub identifiers: Vec<ListedIdentifierDto>,
    /// The sanctions programmes or regimes the entry is listed under.
    pub programs: Vec<String>,
    /// `YYYY-MM-DD`, when the list says.
    #[schema(required = true)]
    pub listed_on: Option<String>,
    /// On a PEP list's entry (`list_kind` `pep`): what makes the person exposed, as the list
    /// says it. Absent on a sanctions list's entry. Added in 1.9.0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exposure: Option<ExposureDto>,
}

/// Why a PEP list names a person: the offices held, and the PEPs the person is a family
/// member or close associate of.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ExposureDto {
    /// What the list calls the person: `pep` (holds or held a prominent public function),
    /// `rca` (a relative or close associate of one), or both.
    #[schema(schema_with = crate::schema::exposure_roles)]
    pub roles: Vec<&'static str>,
    /// The person's offices and terms.
    pub positions: Vec<HeldPositionDto>,
    /// The PEPs the person is tied to, each with the PEP's offices.
    pub relations: Vec<PepRelationDto>,
}

/// One term in one office, as the list gives it.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct HeldPositionDto {
    /// The office in the list's words.
    pub title: String,
    /// The office's country (ISO 3166-1 alpha-2), when the list gives one.
    #[schema(required = true)]
    pub country: Option<String>,
    /// As precise as the list gives it: `2022-10-18`, `2022-10`, `2022`.
    #[schema(required = true)]
    pub start: Option<String>,
    /// The end of the person's own term: in the past, when they left office; in the future,
    /// the running term's scheduled end.
    #[schema(required = true)]
    pub end: Option<String>,
    /// `current`, `ended`, or `unknown` when the list does not say.
    #[schema(schema_with = crate::schema::term_status)]
    pub status: &'static str,
}

/// A relative's or close associate's tie to a PEP.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct PepRelationDto {
    /// `family` or `associate`.
    #[schema(schema_with = crate::schema::relation_kind)]
    pub kind: &'static str,
    /// What the person is to the PEP, in the list's words (`spouse`, `business partner`).
    #[schema(required = true)]
    pub relationship: Option<String>,
    /// The PEP's id in the same list (a `source_entry_id`).
    pub pep_entry_id: String,
    pub pep_name: String,
    /// The PEP's offices.
    pub pep_positions: Vec<HeldPositionDto>,
}

fn held_position(p: &domain::screening::sanctions::HeldPosition) -> HeldPositionDto {
    HeldPositionDto {
        title: p.title.clone(),
        country: p.country.clone(),
        start: p.start.map(|d| d.to_wire()),
        end: p.end.map(|d| d.to_wire()),
        status: p.status.as_str(),
    }
}

impl From<&domain::screening::sanctions::Exposure> for ExposureDto {
    fn from(e: &domain::screening::sanctions::Exposure) -> Self {
        ExposureDto {
            roles: e.roles.iter().map(|r| r.as_str()).collect(),
            positions: e.positions.iter().map(held_position).collect(),
            relations: e
                .relations
                .iter()
                .map(|r| PepRelationDto {
                    kind: r.kind.as_str(),
                    relationship: r.relationship.clone(),
                    pep_entry_id: r.pep_entry_id.clone(),
                    pep_name: r.pep_name.clone(),
                    pep_positions: r.pep_positions.iter().map(held_position).collect(),
                })
                .collect(),
        }
    }
}

/// Where a candidate's data comes from.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ScreeningEvidenceDto {
    /// The list's source id (the candidate's `source_id`).
    #[schema(schema_with = crate::schema::list_source)]
    pub source: &'static str,
    /// The immutable list version the entry was read from.
    pub source_version_id: String,
    /// `sha256:` + hex of the imported list file.
    pub digest: String,
    /// When the publisher generated the file, if it says.
    #[schema(required = true)]
    pub published_at: Option<String>,
    /// When the service imported the file.
    pub imported_at: String,
    /// The entry's name that scored best, as the list writes it.
    pub matched_name: String,
    #[schema(schema_with = crate::schema::name_quality)]
    pub matched_name_quality: &'static str,
    /// The matcher version that scored it (the check's `matcher_version`).
    pub matcher_version: String,
}

/// One list entry found for a check.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ScreeningCandidateDto {
    /// Stable for one entry of one list version: `<source_version_id>:<source_entry_id>`.
    pub id: String,
    /// Stable for one entry across a list's versions: `<source_id>:<source_entry_id>`.
    pub entity_id: String,
    #[schema(schema_with = crate::schema::list_source)]
    pub source_id: &'static str,
    /// What the list is: `sanctions`, or `pep` (politically exposed persons, their family
    /// members and close associates). A `pep` candidate is at most `review`: being exposed
    /// is not a sanction. Added in 1.9.0.
    #[schema(schema_with = crate::schema::list_kind)]
    pub list_kind: &'static str,
    /// The list's own id of the entry (UN reference number, OFAC `ent_num`, ...).
    pub source_entry_id: String,
    pub source_version_id: String,
    /// 0 to 1, four decimals.
    pub score: f64,
    #[schema(schema_with = crate::schema::screening_band)]
    pub band: &'static str,
    pub reasons: Vec<ScreeningReasonDto>,
    pub listing: ScreeningListingDto,
    pub evidence: ScreeningEvidenceDto,
    /// An effective whitelist entry of the tenant clears this candidate for this subject or
    /// input: it stays in the result and no longer raises the check's band.
    pub whitelisted: bool,
    #[schema(required = true)]
    pub whitelist_id: Option<String>,
    /// Present on a check of a monitored company that screened its officers and beneficial
    /// owners with it (ongoing screening): the party this candidate concerns. Absent: the
    /// screened subject itself. Added in 1.8.0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concerns: Option<ScreeningPartyDto>,
}

/// The officer or beneficial owner of a company a candidate concerns: by the handle of their
/// personal number (never the number), or by the register's name when there is none.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ScreeningPartyDto {
    /// `officer` or `beneficial_owner`.
    #[schema(schema_with = crate::schema::party_role)]
    pub role: &'static str,
    /// The `identifier_ref` of the party's personal number, when the register gives one.
    #[schema(required = true)]
    pub personal_number_ref: Option<String>,
    /// The register's name, only when there is no `personal_number_ref`.
    #[schema(required = true)]
    pub name: Option<String>,
}

/// A screening check: what was screened, under which versions, and what the lists said.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ScreeningCheckDto {
    /// `chk_` + 26 characters.
    pub id: String,
    /// The subject screened, by its canonical id now (a check made before a merge names the
    /// merged subject); `null` for an ad-hoc check.
    #[schema(required = true)]
    pub subject_id: Option<String>,
    #[schema(schema_with = crate::schema::input_kind)]
    pub input_kind: &'static str,
    pub input_snapshot: ScreeningInputSnapshotDto,
    /// The screened values were read from a register (a subject check), not typed by the
    /// consumer.
    pub input_verified: bool,
    /// The highest band of the candidates not whitelisted; `clear` when none remains.
    #[schema(schema_with = crate::schema::screening_band)]
    pub band: &'static str,
    /// The number of `candidates`.
    pub candidate_count: u32,
    /// The service's policy version the check ran under.
    pub policy_version_id: String,
    /// The tenant's override version applied, if one was active.
    #[schema(required = true)]
    pub tenant_override_version_id: Option<String>,
    /// Every list version the check ran against.
    pub source_version_ids: Vec<String>,
    /// Source ids of lists whose latest import failed or is still being indexed (an older
    /// version was used, and is named in `source_version_ids`).
    pub degraded_sources: Vec<String>,
    /// Source ids of lists whose version was stored without some records of its file.
    pub truncated_datasets: Vec<String>,
    pub matcher_version: String,
    pub checked_at: String,
    /// Best score first, at most 25: every candidate in `review` or `hit`, and near misses
    /// (as `clear`) down to 0.10 below the `review` threshold.
    pub candidates: Vec<ScreeningCandidateDto>,
    /// Additive: the country that bounds who may read the check (the subject's, or the
    /// ad-hoc `orgnr`'s); `null` for a check on a name alone, which every grant of the
    /// tenant may read.
    #[schema(required = true, schema_with = crate::schema::nullable_country_code)]
    pub country: Option<&'static str>,
    /// Additive: the version of this body's shape.
    pub schema_version: &'static str,
    /// Additive: older subject ids merged into `subject_id` (each a valid alias; empty for an
    /// ad-hoc check).
    pub aliases: Vec<String>,
    /// Additive.
    pub tenant_id: String,
}

impl From<&ServedCheck> for ScreeningCheckDto {
    fn from(served: &ServedCheck) -> Self {
        let c = &served.check;
        let input = &served.input;
        ScreeningCheckDto {
            id: c.id.to_string(),
            subject_id: c.subject_id.map(|s| s.to_string()),
            input_kind: c.input_kind.as_str(),
            input_snapshot: ScreeningInputSnapshotDto {
                name: input.name.clone(),
                birth_date: input.birth_date.clone(),
                country: input.country.clone(),
                orgnr: input.orgnr.clone(),
                nationalities: input.nationalities.clone(),
                identifier_masked: served.identifier_masked,
                person_fields_masked: c.person_fields_masked,
                input_hash: c.input_hash.clone(),
            },
            input_verified: c.input_verified,
            band: c.band.as_str(),
            candidate_count: u32::try_from(c.candidates.len()).unwrap_or(u32::MAX),
            policy_version_id: c.policy_version_id.to_string(),
            tenant_override_version_id: c.tenant_override_version_id.map(|o| o.to_string()),
            source_version_ids: c.source_version_ids.iter().map(|v| v.to_string()).collect(),
            degraded_sources: c.degraded_sources.clone(),
            truncated_datasets: c.truncated_datasets.clone(),
            matcher_version: c.matcher_version.clone(),
            checked_at: timestamp(c.checked_at),
            candidates: c
                .candidates
                .iter()
                .map(|k| candidate(k, &c.matcher_version))
                .collect(),
            country: c.visibility.map(|v| v.code()),
            schema_version: domain::evidence::SCHEMA_VERSION,
            aliases: c.aliases.iter().map(ToString::to_string).collect(),
            tenant_id: c.tenant_id.to_string(),
        }
    }
}

fn candidate(k: &CheckCandidate, matcher_version: &str) -> ScreeningCandidateDto {
    let l = &k.listing;
    let countries = |cs: &[domain::screening::sanctions::ListedCountry]| {
        cs.iter()
            .map(|c| ListedCountryDto {
                code: c.code.clone(),
                name: c.name.clone(),
            })
            .collect()
    };
    ScreeningCandidateDto {
        id: k.id.clone(),
        entity_id: k.entity_id.clone(),
        source_id: k.source.as_str(),
        list_kind: k.source.kind().as_str(),
        source_entry_id: k.source_entry_id.clone(),
        source_version_id: k.source_version_id.to_string(),
        score: k.score,
        band: k.band.as_str(),
        reasons: k
            .reasons
            .iter()
            .map(|r| ScreeningReasonDto {
                code: r.code.clone(),
                detail: r.detail.clone(),
                contributes: r.contributes.as_str(),
            })
            .collect(),
        listing: ScreeningListingDto {
            kind: l.kind.as_str(),
            names: l
                .names
                .iter()
                .map(|n| ListedNameDto {
                    name: n.full.clone(),
                    quality: n.quality.as_str(),
                })
                .collect(),
            birth_dates: l.birth_dates.iter().map(|d| d.to_wire()).collect(),
            nationalities: countries(&l.nationalities),
            countries: countries(&l.countries),
            identifiers: l
                .identifiers
                .iter()
                .map(|i| ListedIdentifierDto {
                    kind: i.kind.clone(),
                    value: i.value.clone(),
                    country: i.country.clone(),
                })
                .collect(),
            programs: l.programs.clone(),
            listed_on: l.listed_on.map(|d| d.to_string()),
            exposure: l.exposure.as_ref().map(ExposureDto::from),
        },
        evidence: ScreeningEvidenceDto {
            source: k.source.as_str(),
            source_version_id: k.source_version_id.to_string(),
            digest: k.evidence.digest.clone(),
            published_at: k.evidence.published_at.map(timestamp),
            imported_at: timestamp(k.evidence.imported_at),
            matched_name: k.evidence.matched_name.clone(),
            matched_name_quality: k.evidence.matched_name_quality.as_str(),
            matcher_version: matcher_version.to_owned(),
        },
        whitelisted: k.whitelisted,
        whitelist_id: k.whitelist_id.map(|w| w.to_string()),
        concerns: k.concerns.as_ref().map(|p| ScreeningPartyDto {
            role: p.role.as_str(),
            personal_number_ref: p.personal_number_ref.map(|r| r.to_string()),
            name: p.shown_name().map(str::to_owned),
        }),
    }
}

/// Screening checks, newest first.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ScreeningCheckListDto {
    pub checks: Vec<ScreeningCheckDto>,
}

/// The weights an override sets (only those; the policy's apply to the others). Each is
/// 0 to 1.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct OverrideWeightsDto {
    /// Added for a listed birth date equal to the one screened.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    #[schemars(with = "f64")]
    pub birth_date_exact: Option<f64>,
    /// Added for a listed year or month that holds the date screened.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    #[schemars(with = "f64")]
    pub birth_date_partial: Option<f64>,
    /// Taken off when every listed birth date is far from the one screened.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    #[schemars(with = "f64")]
    pub birth_date_mismatch: Option<f64>,
    /// Added for a listed nationality among those screened.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    #[schemars(with = "f64")]
    pub nationality_match: Option<f64>,
    /// Taken off when the entry's nationalities exclude those screened.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    #[schemars(with = "f64")]
    pub nationality_mismatch: Option<f64>,
    /// Added for a listed country equal to the one screened.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    #[schemars(with = "f64")]
    pub country_match: Option<f64>,
    /// Taken off when the name that matched is a weak alias.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    #[schemars(with = "f64")]
    pub weak_alias: Option<f64>,
}

impl From<&WeightOverrides> for OverrideWeightsDto {
    fn from(w: &WeightOverrides) -> Self {
        OverrideWeightsDto {
            birth_date_exact: w.birth_date_exact,
            birth_date_partial: w.birth_date_partial,
            birth_date_mismatch: w.birth_date_mismatch,
            nationality_match: w.nationality_match,
            nationality_mismatch: w.nationality_mismatch,
            country_match: w.country_match,
            weak_alias: w.weak_alias,
        }
    }
}

/// What an override changes: the thresholds (both or neither) and any weights.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct OverrideConfigDto {
    /// The score from which a candidate is put before a person; present only when the
    /// override sets the thresholds.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    #[schemars(with = "f64")]
    pub review: Option<f64>,
    /// The score from which a candidate is a hit; present only when the override sets the
    /// thresholds.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    #[schemars(with = "f64")]
    pub hit: Option<f64>,
    pub weights: OverrideWeightsDto,
    /// Whether the tenant's checks screen PEP lists; present only when the override says.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    #[schemars(with = "bool")]
    pub peps_screened: Option<bool>,
    /// How many months after leaving office a position still makes its holder (and the
    /// holder's relatives and associates) exposed, 12 to 600; present only when the override
    /// says.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, minimum = 12, maximum = 600)]
    #[schemars(with = "u32", range(min = 12, max = 600))]
    pub pep_after_office_months: Option<u32>,
}

impl From<&OverrideConfig> for OverrideConfigDto {
    fn from(c: &OverrideConfig) -> Self {
        OverrideConfigDto {
            review: c.thresholds.map(|(review, _)| review),
            hit: c.thresholds.map(|(_, hit)| hit),
            weights: OverrideWeightsDto::from(&c.weights),
            peps_screened: c.peps_screened,
            pep_after_office_months: c.pep_after_office_months,
        }
    }
}

/// One version of the tenant's override of the service's screening policy.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct OverrideVersionDto {
    /// `ovr_` + 26 characters.
    pub id: String,
    /// 1, 2, 3, ... per tenant, in proposing order.
    pub version: u32,
    pub config: OverrideConfigDto,
    /// The operator who proposed it.
    pub proposed_by: String,
    /// The operator who approved it (never the proposer).
    #[schema(required = true)]
    pub approved_by: Option<String>,
    #[schema(schema_with = crate::schema::override_status)]
    pub status: &'static str,
    /// When it became active; `null` until then.
    #[schema(required = true)]
    pub effective_from: Option<String>,
    pub created_at: String,
}

impl From<&OverrideVersion> for OverrideVersionDto {
    fn from(o: &OverrideVersion) -> Self {
        OverrideVersionDto {
            id: o.id.to_string(),
            version: o.version,
            config: OverrideConfigDto::from(&o.config),
            proposed_by: o.proposed_by.clone(),
            approved_by: o.approved_by.clone(),
            status: o.status.as_str(),
            effective_from: o.effective_from.map(timestamp),
            created_at: timestamp(o.created_at),
        }
    }
}

/// The tenant's override versions, newest first.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct OverrideVersionListDto {
    pub versions: Vec<OverrideVersionDto>,
}

/// One entry of the tenant's screening whitelist: a list entry that is not the subject (or
/// the ad-hoc input) it names.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct WhitelistEntryDto {
    /// `wle_` + 26 characters.
    pub id: String,
    /// The subject it clears the list entry for; `null` when it names an input instead.
    #[schema(required = true)]
    pub subject_id: Option<String>,
    /// The check's `input_snapshot.input_hash` it clears the list entry for; `null` when it
    /// names a subject instead.
    #[schema(required = true)]
    pub input_hash: Option<String>,
    #[schema(schema_with = crate::schema::list_source)]
    pub source_id: &'static str,
    pub source_entry_id: String,
    pub reason: String,
    pub created_by: String,
    /// The operator who approved it (never its maker); `null` while it waits.
    #[schema(required = true)]
    pub approved_by: Option<String>,
    pub created_at: String,
    pub expires_at: String,
    #[schema(required = true)]
    pub revoked_at: Option<String>,
    /// In effect now: approved, not revoked, not expired.
    pub effective: bool,
}

impl From<&WhitelistView> for WhitelistEntryDto {
    fn from(v: &WhitelistView) -> Self {
        let e = &v.entry;
        WhitelistEntryDto {
            id: e.id.to_string(),
            subject_id: e.subject_id.map(|s| s.to_string()),
            input_hash: e.input_hash.clone(),
            source_id: e.source.as_str(),
            source_entry_id: e.source_entry_id.clone(),
            reason: e.reason.clone(),
            created_by: e.created_by.clone(),
            approved_by: e.approved_by.clone(),
            created_at: timestamp(e.created_at),
            expires_at: timestamp(e.expires_at),
            revoked_at: e.revoked_at.map(timestamp),
            effective: v.effective,
        }
    }
}

/// The tenant's whitelist entries, newest first.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct WhitelistDto {
    pub entries: Vec<WhitelistEntryDto>,
}
