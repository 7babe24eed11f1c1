//! A screening check: what was asked, under which versions, and what the lists said. A check
//! is an append-only row; it names every version it ran under (policy, override, each list's
//! source version, matcher), so running the same input again under the same versions gives
//! the same candidates, scores, reasons and bands.
//!
//! The input is kept sealed under the tenant's key (`SealedCheckInput`), never in clear. On
//! a check of a person subject the register's name and birth date are not kept at all: the
//! keyed `input_hash` stands for them, so a whitelist entry can name the input without the
//! service storing it.

use crate::countries::country::Country;
use crate::ids::{
    GrantId, OverrideVersionId, PolicyVersionId, ScreeningCheckId, SourceVersionId, SubjectId,
    TenantId, WhitelistEntryId,
};
use crate::screening::matcher::score::Contribution;
use crate::screening::policy::Band;
use crate::screening::sanctions::{ListEntry, ListSource, NameQuality};
use chrono::{DateTime, Utc};

/// Whether a check screened a subject the tenant knows or an ad-hoc identity.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InputKind {
    Subject,
    Adhoc,
}

impl InputKind {
    pub fn as_str(self) -> &'static str {
        match self {
            InputKind::Subject => "subject",
            InputKind::Adhoc => "adhoc",
        }
    }

    pub fn parse(s: &str) -> Option<InputKind> {
        [InputKind::Subject, InputKind::Adhoc]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

/// A `POST /v1/screening/checks` body after the surface has parsed its JSON (values not yet
/// validated).
#[derive(Clone, Debug, Default)]
pub struct CheckRequest {
    pub subject_id: Option<String>,
    pub name: Option<String>,
    pub birth_date: Option<String>,
    pub nationalities: Option<Vec<String>>,
    pub orgnr: Option<String>,
    pub country: Option<String>,
}

/// `GET /v1/screening/checks` query values, as sent.
#[derive(Clone, Debug, Default)]
pub struct ChecksRequest {
    pub limit: Option<String>,
    pub subject_id: Option<String>,
}

/// The input a check ran on, as kept (sealed). On a person check `name` and `birth_date` are
/// `None`: they were read from the register and are not kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckInput {
    pub name: Option<String>,
    /// `YYYY-MM-DD`, `YYYY-MM` or `YYYY`.
    pub birth_date: Option<String>,
    /// ISO 3166-1 alpha-2 codes, upper case, in the order given.
    pub nationalities: Vec<String>,
    /// An organisation number in wire form (`se:5560360793`).
    pub orgnr: Option<String>,
    /// ISO 3166-1 alpha-2 code of the screened party's country, upper case.
    pub country: Option<String>,
}

/// The input as stored: opaque bytes only the tenant's key opens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SealedCheckInput(pub Vec<u8>);

/// One reason of a candidate's score.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckReason {
    pub code: String,
    pub detail: String,
    pub contributes: Contribution,
}

/// Where a candidate's data comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateEvidence {
    /// `sha256:<hex>` of the imported list file.
    pub digest: String,
    pub published_at: Option<DateTime<Utc>>,
    pub imported_at: DateTime<Utc>,
    /// The entry's name that scored best, as the list writes it.
    pub matched_name: String,
    pub matched_name_quality: NameQuality,
}

/// One list entry found for a check.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckCandidate {
    /// Stable for one entry of one version: `<source_version_id>:<source_entry_id>`.
    pub id: String,
    /// Stable for one entry across a list's versions: `<source_id>:<source_entry_id>`.
    pub entity_id: String,
    pub source: ListSource,
    pub source_entry_id: String,
    pub source_version_id: SourceVersionId,
    /// Rounded to four decimals.
    pub score: f64,
    pub band: Band,
    pub reasons: Vec<CheckReason>,
    /// The entry as the list gives it.
    pub listing: ListEntry,
    pub evidence: CandidateEvidence,
    pub whitelisted: bool,
    pub whitelist_id: Option<WhitelistEntryId>,
    /// On a check of a company that screened its officers and beneficial owners too: the
    /// party the candidate concerns (`None`: the company itself), as
    /// [`Party::kept`](crate::companies::paid::Party::kept) keeps it (by the handle of the
    /// personal number, never the number; by name only when there is none).
    pub concerns: Option<crate::companies::paid::Party>,
}

/// A check as stored (the input sealed).
#[derive(Clone, Debug, PartialEq)]
pub struct StoredCheck {
    pub id: ScreeningCheckId,
    pub tenant_id: TenantId,
    /// The credential that ran it (for the record; not served); [`GrantId::MONITORING`] for
    /// a check the service made on its own (ongoing screening), which stores keep as no
    /// grant.
    pub grant_id: GrantId,
    /// The subject screened. As written: its canonical id at the time of the check. As read
    /// back: its canonical id now (a later merge followed one hop), so a check made before
    /// a merge names the merged subject.
    pub subject_id: Option<SubjectId>,
    /// The ids merged into `subject_id` (each a valid alias), as of the read; not stored.
    pub aliases: Vec<SubjectId>,
    /// The country that bounds who may read it: the subject's, or the ad-hoc `orgnr`'s;
    /// `None` for a check on a name alone, which every grant of the tenant may read.
    pub visibility: Option<Country>,
    pub input_kind: InputKind,
    pub sealed_input: SealedCheckInput,
    /// Whether the orgnr field of the input is present (so a reader without `kyc:read`
    /// learns it was masked without the service opening the input).
    pub has_identifier: bool,
    /// A person check: name and birth date were read from the register and not kept.
    pub person_fields_masked: bool,
    pub input_hash: Option<String>,
    /// The screened values were read from a register, not typed by the consumer.
    pub input_verified: bool,
    pub band: Band,
    pub policy_version_id: PolicyVersionId,
    pub tenant_override_version_id: Option<OverrideVersionId>,
    pub source_version_ids: Vec<SourceVersionId>,
    /// Lists whose latest import failed (their older active version was used).
    pub degraded_sources: Vec<String>,
    /// Lists whose active version was stored without some records of its file.
    pub truncated_datasets: Vec<String>,
    pub matcher_version: String,
    pub checked_at: DateTime<Utc>,
    pub candidates: Vec<CheckCandidate>,
}

impl StoredCheck {
    /// What a whitelist entry made from this check clears (`NewWhitelistEntry`'s
    /// `subject_id` or `input_hash`): the subject a subject check screened, for its later
    /// checks too; else the ad-hoc input, by its keyed hash.
    pub fn whitelist_target(&self) -> Option<String> {
        self.subject_id
            .map(|s| s.to_string())
            .or_else(|| self.input_hash.clone())
    }
}

/// A check as a reader sees it: the input opened and masked for the reader's scopes.
#[derive(Clone, Debug, PartialEq)]
pub struct ServedCheck {
    pub check: StoredCheck,
    /// The input, with what the reader may not see removed.
    pub input: CheckInput,
    /// The orgnr was present and removed for this reader (no `kyc:read`).
    pub identifier_masked: bool,
}
