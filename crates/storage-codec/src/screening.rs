//! A screening check's candidates as the stores keep them (`screening_checks.candidates`):
//! each candidate's listing, score, reasons and evidence, as the check saw them.

use crate::sanctions::StoredExposure;
use crate::{corrupt, parse_id};
use chrono::{DateTime, NaiveDate, Utc};
use domain::companies::paid::{Party, PartyRole};
use domain::error::StoreError;
use domain::screening::check::{CandidateEvidence, CheckCandidate, CheckReason};
use domain::screening::matcher::score::Contribution;
use domain::screening::policy::Band;
use domain::screening::sanctions::{
    EntryKind, ListEntry, ListSource, ListedCountry, ListedDate, ListedIdentifier, ListedName,
    NameQuality,
};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
pub struct StoredCandidate {
    id: String,
    entity_id: String,
    source: String,
    source_entry_id: String,
    source_version_id: String,
    /// `f64`'s shortest round-trip decimal (`Display`), parsed back with `str::parse`.
    score: String,
    band: String,
    reasons: Vec<StoredReason>,
    listing: StoredListing,
    evidence: StoredEvidence,
    whitelisted: bool,
    whitelist_id: Option<String>,
    /// The company's party the candidate concerns (absent: the subject itself; checks
    /// written before 1.8.0 have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    concerns: Option<StoredParty>,
}

/// A party as a check keeps it: the handle of the personal number, or the name when there
/// is none.
#[derive(Serialize, Deserialize)]
pub struct StoredParty {
    role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    personal_number_ref: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    name: String,
}

#[derive(Serialize, Deserialize)]
pub struct StoredReason {
    code: String,
    detail: String,
    contributes: String,
}

#[derive(Serialize, Deserialize)]
pub struct StoredEvidence {
    digest: String,
    published_at: Option<DateTime<Utc>>,
    imported_at: DateTime<Utc>,
    matched_name: String,
    matched_name_quality: String,
}

#[derive(Serialize, Deserialize)]
pub struct StoredListing {
    source_entry_id: String,
    kind: String,
    names: Vec<StoredName>,
    birth_dates: Vec<StoredDate>,
    nationalities: Vec<StoredCountry>,
    countries: Vec<StoredCountry>,
    identifiers: Vec<StoredIdentifier>,
    programs: Vec<String>,
    listed_on: Option<NaiveDate>,
    /// A PEP list's candidate: what made the person exposed (checks written before PEP lists
    /// have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    exposure: Option<StoredExposure>,
}

#[derive(Serialize, Deserialize)]
pub struct StoredName {
    full: String,
    quality: String,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "precision", rename_all = "snake_case")]
pub enum StoredDate {
    Day { date: NaiveDate },
    Month { year: i32, month: u32 },
    Year { year: i32 },
    Years { from: i32, to: i32 },
}

#[derive(Serialize, Deserialize)]
pub struct StoredCountry {
    code: Option<String>,
    name: String,
}

#[derive(Serialize, Deserialize)]
pub struct StoredIdentifier {
    kind: String,
    value: String,
    country: Option<String>,
}

fn contribution_of(s: &str) -> Result<Contribution, StoreError> {
    [Contribution::Up, Contribution::Down, Contribution::Neutral]
        .into_iter()
        .find(|c| c.as_str() == s)
        .ok_or_else(|| corrupt("reason contribution"))
}

fn quality_of(s: &str) -> Result<NameQuality, StoreError> {
    [NameQuality::Strong, NameQuality::Weak]
        .into_iter()
        .find(|q| q.as_str() == s)
        .ok_or_else(|| corrupt("name quality"))
}

fn stored_country(c: &ListedCountry) -> StoredCountry {
    StoredCountry {
        code: c.code.clone(),
        name: c.name.clone(),
    }
}

fn country_of(c: StoredCountry) -> ListedCountry {
    ListedCountry {
        code: c.code,
        name: c.name,
    }
}

impl StoredListing {
    pub fn from_domain(e: &ListEntry) -> StoredListing {
        StoredListing {
            source_entry_id: e.source_entry_id.clone(),
            kind: e.kind.as_str().to_owned(),
            names: e
                .names
                .iter()
                .map(|n| StoredName {
                    full: n.full.clone(),
                    quality: n.quality.as_str().to_owned(),
                })
                .collect(),
            birth_dates: e
                .birth_dates
                .iter()
                .map(|d| match *d {
                    ListedDate::Day(date) => StoredDate::Day { date },
                    ListedDate::Month { year, month } => StoredDate::Month { year, month },
                    ListedDate::Year(year) => StoredDate::Year { year },
                    ListedDate::Years { from, to } => StoredDate::Years { from, to },
                })
                .collect(),
            nationalities: e.nationalities.iter().map(stored_country).collect(),
            countries: e.countries.iter().map(stored_country).collect(),
            identifiers: e
                .identifiers
                .iter()
                .map(|i| StoredIdentifier {
                    kind: i.kind.clone(),
                    value: i.value.clone(),
                    country: i.country.clone(),
                })
                .collect(),
            programs: e.programs.clone(),
            listed_on: e.listed_on,
            exposure: e.exposure.as_ref().map(StoredExposure::from_domain),
        }
    }

    pub fn into_domain(self) -> Result<ListEntry, StoreError> {
        Ok(ListEntry {
            source_entry_id: self.source_entry_id,
            kind: EntryKind::parse(&self.kind).ok_or_else(|| corrupt("entry kind"))?,
            names: self
                .names
                .into_iter()
                .map(|n| {
                    Ok(ListedName {
                        quality: quality_of(&n.quality)?,
                        full: n.full,
                    })
                })
                .collect::<Result<_, StoreError>>()?,
            birth_dates: self
                .birth_dates
                .into_iter()
                .map(|d| match d {
                    StoredDate::Day { date } => ListedDate::Day(date),
                    StoredDate::Month { year, month } => ListedDate::Month { year, month },
                    StoredDate::Year { year } => ListedDate::Year(year),
                    StoredDate::Years { from, to } => ListedDate::Years { from, to },
                })
                .collect(),
            nationalities: self.nationalities.into_iter().map(country_of).collect(),
            countries: self.countries.into_iter().map(country_of).collect(),
            identifiers: self
                .identifiers
                .into_iter()
                .map(|i| ListedIdentifier {
                    kind: i.kind,
                    value: i.value,
                    country: i.country,
                })
                .collect(),
            programs: self.programs,
            listed_on: self.listed_on,
            exposure: self.exposure.map(StoredExposure::into_domain).transpose()?,
        })
    }
}

impl StoredCandidate {
    pub fn from_domain(c: &CheckCandidate) -> StoredCandidate {
        StoredCandidate {
            id: c.id.clone(),
            entity_id: c.entity_id.clone(),
            source: c.source.as_str().to_owned(),
            source_entry_id: c.source_entry_id.clone(),
            source_version_id: c.source_version_id.to_string(),
            score: c.score.to_string(),
            band: c.band.as_str().to_owned(),
            reasons: c
                .reasons
                .iter()
                .map(|r| StoredReason {
                    code: r.code.clone(),
                    detail: r.detail.clone(),
                    contributes: r.contributes.as_str().to_owned(),
                })
                .collect(),
            listing: StoredListing::from_domain(&c.listing),
            evidence: StoredEvidence {
                digest: c.evidence.digest.clone(),
                published_at: c.evidence.published_at,
                imported_at: c.evidence.imported_at,
                matched_name: c.evidence.matched_name.clone(),
                matched_name_quality: c.evidence.matched_name_quality.as_str().to_owned(),
            },
            whitelisted: c.whitelisted,
            whitelist_id: c.whitelist_id.map(|w| w.to_string()),
            concerns: c.concerns.as_ref().map(|p| {
                let kept = p.kept();
                StoredParty {
                    role: kept.role.as_str().to_owned(),
                    personal_number_ref: kept.personal_number_ref.map(|r| r.to_string()),
                    name: kept.name,
                }
            }),
        }
    }

    pub fn into_domain(self) -> Result<CheckCandidate, StoreError> {
        Ok(CheckCandidate {
            id: self.id,
            entity_id: self.entity_id,
            source: ListSource::parse(&self.source).ok_or_else(|| corrupt("list source"))?,
            source_entry_id: self.source_entry_id,
            source_version_id: parse_id(&self.source_version_id, "source version id")?,
            score: self.score.parse().map_err(|_| corrupt("candidate score"))?,
            band: Band::parse(&self.band).ok_or_else(|| corrupt("band"))?,
            reasons: self
                .reasons
                .into_iter()
                .map(|r| {
                    Ok(CheckReason {
                        contributes: contribution_of(&r.contributes)?,
                        code: r.code,
                        detail: r.detail,
                    })
                })
                .collect::<Result<_, StoreError>>()?,
            listing: self.listing.into_domain()?,
            evidence: CandidateEvidence {
                matched_name_quality: quality_of(&self.evidence.matched_name_quality)?,
                digest: self.evidence.digest,
                published_at: self.evidence.published_at,
                imported_at: self.evidence.imported_at,
                matched_name: self.evidence.matched_name,
            },
            whitelisted: self.whitelisted,
            whitelist_id: self
                .whitelist_id
                .as_deref()
                .map(|w| parse_id(w, "whitelist entry id"))
                .transpose()?,
            concerns: self
                .concerns
                .map(|p| {
                    Ok::<_, StoreError>(Party {
                        role: PartyRole::parse(&p.role).ok_or_else(|| corrupt("party role"))?,
                        personal_number_ref: p
                            .personal_number_ref
                            .as_deref()
                            .map(|r| parse_id(r, "personal number ref"))
                            .transpose()?,
                        name: p.name,
                    })
                })
                .transpose()?,
        })
    }
}
