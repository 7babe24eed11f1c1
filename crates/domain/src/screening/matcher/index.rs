//! The candidate index: every name of every entry of the loaded list versions, by folded word
//! and by phonetic key, so a check compares the query with the few entries that share a word
//! or a sound with it, never with every entry.
//!
//! A key shared by very many names (`al`, `mohammed`, `co`) still finds candidates, but only
//! together with another of the query's keys: a name is a candidate when it shares a rare key
//! with the query, or at least two common ones.

use crate::screening::matcher::normalise::tokens;
use crate::screening::matcher::phonetic::key;
use crate::screening::matcher::slips;
use crate::screening::sanctions::{ListEntry, ListedDate, NameQuality, SourceVersion};
use std::collections::{BTreeMap, HashMap};

/// A key in more names than this is common: alone it does not make a candidate.
const COMMON_KEY_POSTINGS: usize = 400;
/// The most names one check scores.
const MAX_CANDIDATE_NAMES: usize = 256;

/// One name of one entry, prepared for comparing.
#[derive(Clone, Debug)]
pub struct IndexedName {
    pub entry: usize,
    pub full: String,
    pub words: Vec<String>,
    pub keys: Vec<String>,
    /// The words prepared for the scorer's alignment.
    pub prepared: crate::screening::matcher::words::Words,
    pub quality: NameQuality,
}

/// One entry with what the scorer reads of it.
#[derive(Clone, Debug)]
pub struct IndexedEntry {
    pub version: usize,
    pub entry: ListEntry,
    /// ISO codes of the entry's nationalities and other countries.
    pub nationality_codes: Vec<String>,
    pub country_codes: Vec<String>,
    pub birth_dates: Vec<ListedDate>,
    /// Identifier values with letters and digits only, upper case.
    pub identifiers: Vec<String>,
}

/// Every loaded list version, indexed. Built once per set of active versions; read by every
/// check concurrently.
#[derive(Clone, Debug, Default)]
pub struct ListIndex {
    pub versions: Vec<SourceVersion>,
    pub entries: Vec<IndexedEntry>,
    pub names: Vec<IndexedName>,
    postings: HashMap<String, Vec<u32>>,
}

/// Letters and digits of an identifier, upper case: the form identifiers compare in.
pub fn identifier_form(value: &str) -> String {
    value
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

impl ListIndex {
    /// Indexes `lists` (each version with its entries), in the order given.
    pub fn build(lists: Vec<(SourceVersion, Vec<ListEntry>)>) -> ListIndex {
        let mut index = ListIndex::default();
        for (v, (version, entries)) in lists.into_iter().enumerate() {
            index.versions.push(version);
            for entry in entries {
                let e = index.entries.len();
                for name in &entry.names {
                    let words = tokens(&name.full);
                    if words.is_empty() {
                        continue;
                    }
                    let keys: Vec<String> = words.iter().map(|w| key(w)).collect();
                    index.names.push(IndexedName {
                        entry: e,
                        full: name.full.clone(),
                        prepared: crate::screening::matcher::words::Words::new(&words),
                        words,
                        keys,
                        quality: name.quality,
                    });
                }
                let codes = |cs: &[crate::screening::sanctions::ListedCountry]| {
                    cs.iter().filter_map(|c| c.code.clone()).collect::<Vec<_>>()
                };
                index.entries.push(IndexedEntry {
                    version: v,
                    nationality_codes: codes(&entry.nationalities),
                    country_codes: codes(&entry.countries),
                    birth_dates: entry.birth_dates.clone(),
                    identifiers: entry
                        .identifiers
                        .iter()
                        .map(|i| identifier_form(&i.value))
                        .filter(|i| i.len() >= 4)
                        .collect(),
                    entry,
                });
            }
        }
        for (n, name) in index.names.iter().enumerate() {
            let n = u32::try_from(n).unwrap_or(u32::MAX);
            let mut seen: Vec<&str> = Vec::new();
            for k in name.keys.iter().chain(name.words.iter()) {
                if !k.is_empty() && !seen.contains(&k.as_str()) {
                    seen.push(k);
                    index.postings.entry(k.clone()).or_default().push(n);
                }
            }
        }
        index
    }

    /// The names worth scoring against a query of these words, in index order.
    pub fn candidate_names(&self, words: &[String]) -> Vec<usize> {
        let mut lookups: Vec<String> = Vec::new();
        let push = |probe: String, lookups: &mut Vec<String>| {
            if !probe.is_empty() && !lookups.contains(&probe) {
                lookups.push(probe);
            }
        };
        for w in words {
            // The word, its key, and the key with its first two letters swapped (a slip at
            // the start changes the key: `afiz` is `faiz`).
            let mut swapped: Vec<char> = w.chars().collect();
            if swapped.len() >= 3 {
                swapped.swap(0, 1);
            }
            let swapped: String = swapped.into_iter().collect();
            for probe in [w.clone(), key(w), key(&swapped)] {
                push(probe, &mut lookups);
            }
            // A word no listed name has, as it was before a slip of typing: a doubled letter
            // written once, two adjacent letters in their order (as words, not keys: a slip's
            // neighbours are looked up by spelling only).
            if !self.postings.contains_key(w) {
                for probe in slips::undone(w) {
                    push(probe, &mut lookups);
                }
            }
        }
        // A letter moved across the boundary of two adjacent words (`joh nsmith`), one of
        // them unknown to the lists: the two words split again one or two letters either side.
        for pair in words.windows(2) {
            if self.postings.contains_key(&pair[0]) && self.postings.contains_key(&pair[1]) {
                continue;
            }
            for (a, b) in slips::resplit(&pair[0], &pair[1]) {
                push(a, &mut lookups);
                push(b, &mut lookups);
            }
        }
        // Count, per name, the rare and common keys it shares with the query.
        let mut shared: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
        for probe in &lookups {
            let Some(list) = self.postings.get(probe) else {
                continue;
            };
            let common = list.len() > COMMON_KEY_POSTINGS;
            for n in list {
                let counts = shared.entry(*n).or_default();
                if common {
                    counts.1 += 1;
                } else {
                    counts.0 += 1;
                }
            }
        }
        let mut found: Vec<(u32, u32, u32)> = shared
            .into_iter()
            .filter(|(_, (rare, common))| *rare > 0 || *common >= 2)
            .map(|(n, (rare, common))| (n, rare, common))
            .collect();
        // The names sharing most with the query, at most MAX_CANDIDATE_NAMES of them, so a
        // check's cost has a ceiling however common its words are.
        found.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0)));
        found.truncate(MAX_CANDIDATE_NAMES);
        found.sort_by_key(|f| f.0);
        found
            .into_iter()
            .filter_map(|(n, _, _)| usize::try_from(n).ok())
            .collect()
    }

    /// The entries holding an identifier of this form.
    pub fn entries_with_identifier(&self, form: &str) -> Vec<usize> {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.identifiers.iter().any(|i| i == form))
            .map(|(i, _)| i)
            .collect()
    }
}
