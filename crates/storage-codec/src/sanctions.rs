//! A sanctions-list entry as the stores keep it (`sanctions_entries.entry`).

use crate::corrupt;
use chrono::NaiveDate;
use domain::error::StoreError;
use domain::screening::sanctions::{
    EntryKind, ListEntry, ListedCountry, ListedDate, ListedIdentifier, ListedName, NameQuality,
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
        })
    }
}
