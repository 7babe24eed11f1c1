//! A sanctions-list entry as the stores keep it (`sanctions_entries.entry`).

use crate::corrupt;
use chrono::NaiveDate;
use domain::error::StoreError;
use domain::screening::sanctions::{
    EntryKind, Exposure, ExposureRole, HeldPosition, ListEntry, ListedCountry, ListedDate,
    ListedIdentifier, ListedName, NameQuality, PepRelation, RelationKind, TermStatus,
};
use serde::{Deserialize, Serialize};

/// An entry as stored in `sanctions_entries.entry`. Private to storage; both stores keep this very document.
#[derive(Serialize, Deserialize)]
pub struct StoredEntry {
    names: Vec<(String, bool)>,
    birth_dates: Vec<String>,
    nationalities: Vec<(Option<String>, String)>,
    countries: Vec<(Option<String>, String)>,
    identifiers: Vec<(String, String, Option<String>)>,
    programs: Vec<String>,
    listed_on: Option<NaiveDate>,
    /// A PEP list's entry: what makes the person exposed (absent on sanctions entries, and
    /// on every entry stored before PEP lists).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    exposure: Option<StoredExposure>,
}

/// [`Exposure`] as both stores keep it, in an entry and in a check's candidate alike.
#[derive(Serialize, Deserialize)]
pub struct StoredExposure {
    roles: Vec<String>,
    positions: Vec<StoredPosition>,
    relations: Vec<StoredRelation>,
}

#[derive(Serialize, Deserialize)]
pub struct StoredPosition {
    title: String,
    country: Option<String>,
    /// [`ListedDate::to_wire`].
    start: Option<String>,
    end: Option<String>,
    status: String,
}

#[derive(Serialize, Deserialize)]
pub struct StoredRelation {
    kind: String,
    relationship: Option<String>,
    pep_entry_id: String,
    pep_name: String,
    pep_positions: Vec<StoredPosition>,
}

impl StoredPosition {
    fn from_domain(p: &HeldPosition) -> StoredPosition {
        StoredPosition {
            title: p.title.clone(),
            country: p.country.clone(),
            start: p.start.map(ListedDate::to_wire),
            end: p.end.map(ListedDate::to_wire),
            status: p.status.as_str().to_owned(),
        }
    }

    fn into_domain(self) -> Result<HeldPosition, StoreError> {
        let date = |d: Option<String>| {
            d.map(|d| ListedDate::from_wire(&d).ok_or_else(|| corrupt("term date")))
                .transpose()
        };
        Ok(HeldPosition {
            title: self.title,
            country: self.country,
            start: date(self.start)?,
            end: date(self.end)?,
            status: TermStatus::parse(&self.status).ok_or_else(|| corrupt("term status"))?,
        })
    }
}

impl StoredExposure {
    pub fn from_domain(e: &Exposure) -> StoredExposure {
        StoredExposure {
            roles: e.roles.iter().map(|r| r.as_str().to_owned()).collect(),
            positions: e
                .positions
                .iter()
                .map(StoredPosition::from_domain)
                .collect(),
            relations: e
                .relations
                .iter()
                .map(|r| StoredRelation {
                    kind: r.kind.as_str().to_owned(),
                    relationship: r.relationship.clone(),
                    pep_entry_id: r.pep_entry_id.clone(),
                    pep_name: r.pep_name.clone(),
                    pep_positions: r
                        .pep_positions
                        .iter()
                        .map(StoredPosition::from_domain)
                        .collect(),
                })
                .collect(),
        }
    }

    pub fn into_domain(self) -> Result<Exposure, StoreError> {
        let positions = |p: Vec<StoredPosition>| {
            p.into_iter()
                .map(StoredPosition::into_domain)
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(Exposure {
            roles: self
                .roles
                .iter()
                .map(|r| ExposureRole::parse(r).ok_or_else(|| corrupt("exposure role")))
                .collect::<Result<_, _>>()?,
            positions: positions(self.positions)?,
            relations: self
                .relations
                .into_iter()
                .map(|r| {
                    Ok(PepRelation {
                        kind: RelationKind::parse(&r.kind)
                            .ok_or_else(|| corrupt("relation kind"))?,
                        relationship: r.relationship,
                        pep_entry_id: r.pep_entry_id,
                        pep_name: r.pep_name,
                        pep_positions: positions(r.pep_positions)?,
                    })
                })
                .collect::<Result<_, StoreError>>()?,
        })
    }
}

fn country_pair(c: &ListedCountry) -> (Option<String>, String) {
    (c.code.clone(), c.name.clone())
}

fn country_of((code, name): (Option<String>, String)) -> ListedCountry {
    ListedCountry { code, name }
}

impl StoredEntry {
    pub fn from_domain(e: &ListEntry) -> StoredEntry {
        StoredEntry {
            names: e
                .names
                .iter()
                .map(|n| (n.full.clone(), n.quality == NameQuality::Weak))
                .collect(),
            birth_dates: e.birth_dates.iter().map(|d| d.to_wire()).collect(),
            nationalities: e.nationalities.iter().map(country_pair).collect(),
            countries: e.countries.iter().map(country_pair).collect(),
            identifiers: e
                .identifiers
                .iter()
                .map(|i| (i.kind.clone(), i.value.clone(), i.country.clone()))
                .collect(),
            programs: e.programs.clone(),
            listed_on: e.listed_on,
            exposure: e.exposure.as_ref().map(StoredExposure::from_domain),
        }
    }

    pub fn into_domain(self, source_entry_id: String, kind: &str) -> Result<ListEntry, StoreError> {
        Ok(ListEntry {
            source_entry_id,
            kind: EntryKind::parse(kind).ok_or_else(|| corrupt("entry kind"))?,
            names: self
                .names
                .into_iter()
                .map(|(full, weak)| ListedName {
                    full,
                    quality: if weak {
                        NameQuality::Weak
                    } else {
                        NameQuality::Strong
                    },
                })
                .collect(),
            birth_dates: self
                .birth_dates
                .iter()
                .map(|d| ListedDate::from_wire(d).ok_or_else(|| corrupt("listed date")))
                .collect::<Result<_, _>>()?,
            nationalities: self.nationalities.into_iter().map(country_of).collect(),
            countries: self.countries.into_iter().map(country_of).collect(),
            identifiers: self
                .identifiers
                .into_iter()
                .map(|(kind, value, country)| ListedIdentifier {
                    kind,
                    value,
                    country,
                })
                .collect(),
            programs: self.programs,
            listed_on: self.listed_on,
            exposure: self.exposure.map(StoredExposure::into_domain).transpose()?,
        })
    }
}
