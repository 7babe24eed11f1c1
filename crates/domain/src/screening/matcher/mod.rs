//! The screening matcher: deterministic, explainable, versioned. A name (and the facts that
//! come with it) is compared with list entries in two stages: a candidate index
//! ([`index::ListIndex`]) narrows the lists to the names sharing a word or a phonetic key
//! with the query, then a pairwise scorer ([`score::score`]) gives each candidate a score
//! with its reasons. The same input under the same versions (matcher, weights, source
//! versions) gives the same result, byte for byte: no randomness, no hash-order iteration
//! in anything that reaches a result, ties broken by list order.

pub mod index;
pub mod normalise;
pub mod phonetic;
pub mod score;
pub mod slips;
pub mod words;

use crate::screening::sanctions::ListedDate;
use index::{identifier_form, IndexedEntry, ListIndex};
use score::{PreparedQuery, Reason, Weights};

/// The matcher's version, recorded on every check (`matcher_version`). Any change that can
/// move a score changes it.
pub const MATCHER_VERSION: &str = "idreg-matcher/0.3.0";

/// What a check asks about.
#[derive(Clone, Debug, Default)]
pub struct Query {
    pub name: String,
    pub birth_date: Option<ListedDate>,
    /// ISO 3166-1 alpha-2 codes.
    pub nationalities: Vec<String>,
    pub country: Option<String>,
    /// A company registration number to compare with the lists' identifiers.
    pub registration_number: Option<String>,
}

/// One entry found, with the name of it that scored best.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// Index into [`ListIndex::entries`].
    pub entry: usize,
    /// Index into [`ListIndex::names`].
    pub name: usize,
    pub score: f64,
    pub reasons: Vec<Reason>,
}

/// The index of the loaded lists and the weights to score with.
pub struct Matcher {
    pub index: ListIndex,
    pub weights: Weights,
}

impl Matcher {
    /// The entries scoring at least `floor`, best first (ties by list order), at most `limit`.
    pub fn screen(&self, query: &Query, floor: f64, limit: usize) -> Vec<Candidate> {
        screen(&self.index, &self.weights, query, floor, limit)
    }
}

/// Screens `query` against `index` with `weights` (a check's policy): the entries scoring at
/// least `floor`, best first (ties by list order), at most `limit`.
pub fn screen(
    index: &ListIndex,
    weights: &Weights,
    query: &Query,
    floor: f64,
    limit: usize,
) -> Vec<Candidate> {
    screen_within(index, weights, query, floor, limit, |_| true)
}

/// [`screen`] over the entries `keep` admits (one kind of list), the others never scored.
pub fn screen_within(
    index: &ListIndex,
    weights: &Weights,
    query: &Query,
    floor: f64,
    limit: usize,
    keep: impl Fn(&IndexedEntry) -> bool,
) -> Vec<Candidate> {
    screen_prepared(index, weights, &prepare(query), floor, limit, keep)
}

/// A query's name split, folded and prepared for alignment, and its facts in the forms the
/// scorer compares: done once for a query screened against several indexes.
pub fn prepare(query: &Query) -> PreparedQuery {
    let words = normalise::tokens(&query.name);
    PreparedQuery {
        prepared: words::Words::new(&words),
        words,
        birth_date: query.birth_date,
        nationalities: query.nationalities.clone(),
        country: query.country.clone(),
        identifier: query
            .registration_number
            .as_deref()
            .map(identifier_form)
            .filter(|i| i.len() >= 4),
    }
}

/// [`screen_within`] of a query already [`prepare`]d. An index without entries (a list
/// change that removed nothing has no departed records) finds nothing and costs nothing.
pub fn screen_prepared(
    index: &ListIndex,
    weights: &Weights,
    prepared: &PreparedQuery,
    floor: f64,
    limit: usize,
    keep: impl Fn(&IndexedEntry) -> bool,
) -> Vec<Candidate> {
    if index.entries.is_empty() {
        return Vec::new();
    }
    let mut best: Vec<Option<Candidate>> = Vec::new();
    let mut consider = |entry: usize, name: usize| {
        if !keep(&index.entries[entry]) {
            return;
        }
        let scored = score::score(prepared, &index.names[name], &index.entries[entry], weights);
        if best.len() <= entry {
            best.resize(entry + 1, None);
        }
        if best[entry].as_ref().is_none_or(|b| scored.score > b.score) {
            best[entry] = Some(Candidate {
                entry,
                name,
                score: scored.score,
                reasons: scored.reasons,
            });
        }
    };
    for n in index.candidate_names(&prepared.words) {
        consider(index.names[n].entry, n);
    }
    if let Some(id) = &prepared.identifier {
        for e in index.entries_with_identifier(id) {
            if let Some(n) = index.names.iter().position(|n| n.entry == e) {
                consider(e, n);
            }
        }
    }
    let mut found: Vec<Candidate> = best
        .into_iter()
        .flatten()
        .filter(|c| c.score >= floor)
        .collect();
    found.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.entry.cmp(&b.entry)));
    found.truncate(limit);
    found
}
