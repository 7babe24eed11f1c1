//! The matcher's quality, measured: the figures the evaluation test holds and the quality page
//! (`docs/screening-quality.md`, written by `cargo xtask eval`) reports.
//!
//! - **Treated positives**: rows `original_name, original_dob, treated_name, treated_dob, _,
//!   nationality` (the evaluation set's pairs); the right entry is the UN entry holding the
//!   original name (and birth date); found when it reaches `review`, first when ranked first.
//! - **Negatives**: rows whose first column is a name and sixth a birth date, matching no
//!   listed person; counted when anything reaches `review`.
//! - **Constructed slips**: listed persons' names (two Latin words or more) with one slip of
//!   each kind the held-out misses fell into (a letter doubled, a letter moved across a word
//!   boundary, two adjacent letters transposed), drawn by a fixed sequence, screened by name
//!   alone.
//! - **Speed**: every query above timed in process.
//! - **PEP lists** ([`pep`]): variants of listed PEPs' names and names that are not listed,
//!   against PEP lists loaded alone (a check screens each kind of list on its own).

pub mod pep;

use crate::{read_path, ListFormat};
use domain::screening::matcher::index::{IndexedName, ListIndex};
use domain::screening::matcher::normalise::fold;
use domain::screening::matcher::score::Weights;
use domain::screening::matcher::{Matcher, Query};
use domain::screening::sanctions::{
    EntryKind, ListSource, ListedDate, SourceVersion, SourceVersionId,
};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The reference lists the figures are measured on, in the order they are loaded.
pub const REFERENCE_LISTS: [(&str, ListFormat); 3] = [
    ("un/un_sc_consolidated_2026-02-27.xml", ListFormat::UnXml),
    ("ofac_sdn_2021-07", ListFormat::OfacCsv),
    ("ofac_cons_2025-12", ListFormat::OfacCsv),
];

/// The development share's files under `testdata/`.
pub const DEV_POSITIVES: &str = "eval/un_treated_vs_original_pairs.csv";
pub const DEV_NEGATIVES: &str = "eval/negatives_us.csv";

/// The score from which a candidate is put before a person: the default policy's `review`.
pub fn review() -> f64 {
    domain::screening::policy::PolicyConfig::default().review
}

/// The crate's sample lists and evaluation files.
pub fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

/// A matcher over the reference lists under `testdata`, with the default weights.
pub fn reference_matcher(testdata: &Path) -> Matcher {
    let lists = REFERENCE_LISTS
        .iter()
        .map(|(rel, format)| {
            let read = read_path(&testdata.join(rel), Some(*format)).expect("a reference list");
            let version = SourceVersion {
                id: SourceVersionId::generate(),
                source: read.list.source,
                digest: read.digest,
                published_at: read.list.published_at,
                imported_at: chrono::Utc::now(),
                entry_count: u32::try_from(read.list.entries.len()).unwrap_or(u32::MAX),
                skipped_count: 0,
            };
            (version, read.list.entries)
        })
        .collect();
    Matcher {
        index: ListIndex::build(lists),
        weights: Weights::default(),
    }
}

fn date(s: &str) -> Option<ListedDate> {
    ListedDate::from_wire(s.trim())
}

/// The rows of a CSV file with a header.
pub fn csv_rows(path: &Path) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_path(path)
        .unwrap_or_else(|e| panic!("an evaluation file {}: {e}", path.display()));
    reader
        .records()
        .map(|r| r.expect("a CSV row").iter().map(str::to_owned).collect())
        .collect()
}

/// How a set of positives fared.
#[derive(Debug, Default, Clone)]
pub struct Found {
    /// Cases measured.
    pub cases: usize,
    /// Whose right entry reached review.
    pub found: usize,
    /// Of those, ranked first.
    pub first: usize,
    /// Rows whose right entry is not in the lists (not measured).
    pub unresolved: usize,
    /// The query and why, for the cases not found or not first.
    pub misses: Vec<String>,
    /// Time per query.
    pub times: Vec<Duration>,
}

impl Found {
    pub fn recall(&self) -> f64 {
        share(self.found, self.cases)
    }
    pub fn first_share(&self) -> f64 {
        share(self.first, self.found)
    }

    fn judge(&mut self, matcher: &Matcher, query: &Query, right: &[usize], shown: String) {
        self.cases += 1;
        let started = Instant::now();
        let candidates = matcher.screen(query, review(), 10);
        self.times.push(started.elapsed());
        match candidates.iter().position(|c| right.contains(&c.entry)) {
            Some(0) => {
                self.found += 1;
                self.first += 1;
            }
            Some(rank) => {
                self.found += 1;
                let top = &candidates[0];
                self.misses.push(format!(
                    "{shown}: second to {} ({:.3} against {:.3})",
                    matcher.index.names[top.name].full, top.score, candidates[rank].score
                ));
            }
            None => self.misses.push(shown),
        }
    }
}

/// A percentage.
pub fn share(a: usize, b: usize) -> f64 {
    100.0 * a as f64 / b.max(1) as f64
}

/// The treated positives of `path` (see the module).
pub fn treated_positives(matcher: &Matcher, path: &Path) -> Found {
    let index = &matcher.index;
    let mut out = Found::default();
    for row in csv_rows(path) {
        let (original, original_dob, name, dob, nationality) =
            (&row[0], &row[1], &row[2], &row[3], &row[5]);
        let wanted = fold(original);
        let right: Vec<usize> = index
            .names
            .iter()
            .filter(|n| {
                let e = &index.entries[n.entry];
                index.versions[e.version].source == ListSource::UnConsolidated
                    && fold(&n.full) == wanted
                    && date(original_dob).is_none_or(|d| {
                        e.birth_dates.is_empty() || e.birth_dates.contains(&d) || {
                            let y = d.to_wire()[..4].to_owned();
                            e.birth_dates.iter().any(|b| b.to_wire().starts_with(&y))
                        }
                    })
            })
            .map(|n| n.entry)
            .collect();
        if right.is_empty() {
            out.unresolved += 1;
            continue;
        }
        let query = Query {
            name: name.clone(),
            birth_date: date(dob),
            nationalities: (!nationality.is_empty())
                .then(|| nationality.to_uppercase())
                .into_iter()
                .collect(),
            ..Query::default()
        };
        out.judge(matcher, &query, &right, format!("{name} ({dob})"));
    }
    out
}

/// How a set of negatives fared.
#[derive(Debug, Default, Clone)]
pub struct Flagged {
    pub cases: usize,
    /// `query ~ listed name (score)` for each negative that reached review.
    pub flagged: Vec<String>,
    pub times: Vec<Duration>,
}

impl Flagged {
    pub fn rate(&self) -> f64 {
        share(self.flagged.len(), self.cases)
    }
}

/// The negatives of `path` (see the module).
pub fn negatives(matcher: &Matcher, path: &Path) -> Flagged {
    let mut out = Flagged::default();
    for row in csv_rows(path) {
        assert!(
            !row[0].trim().is_empty(),
            "a negative without a name: {row:?}"
        );
        let query = Query {
            name: row[0].clone(),
            birth_date: date(&row[5]),
            ..Query::default()
        };
        out.cases += 1;
        let started = Instant::now();
        let candidates = matcher.screen(&query, review(), 1);
        out.times.push(started.elapsed());
        if let Some(c) = candidates.first() {
            out.flagged.push(format!(
                "{} ~ {} ({:.2})",
                row[0], matcher.index.names[c.name].full, c.score
            ));
        }
    }
    out
}

/// The kinds of slip the held-out misses fell into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slip {
    /// A letter doubled: `MOHHAMED` for `MOHAMED`.
    Doubled,
    /// A letter moved across a word boundary: `JOH NSMITH` for `JOHN SMITH`.
    Boundary,
    /// Two adjacent letters transposed: `MOHAMEMD` for `MOHAMMED`.
    Transposed,
}

impl Slip {
    pub const ALL: [Slip; 3] = [Slip::Doubled, Slip::Boundary, Slip::Transposed];

    pub fn describe(self) -> &'static str {
        match self {
            Slip::Doubled => "a letter doubled (`MOHHAMED`)",
            Slip::Boundary => "a letter moved across a word boundary (`JOH NSMITH`)",
            Slip::Transposed => "two adjacent letters transposed (`MOHAMEMD`)",
        }
    }
}

/// SplitMix64: a fixed sequence, so every run constructs the same cases.
pub struct Draw(pub u64);

impl Draw {
    pub fn draw(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.draw() % n.max(1) as u64).unwrap_or(0)
    }
}

/// `words` (a listed name, folded) with one slip of `kind`, upper case; `None` when the name
/// has no place for it (no word long enough, a single word for a moved boundary).
pub fn slipped(words: &[String], kind: Slip, draw: &mut Draw) -> Option<String> {
    let mut w: Vec<Vec<char>> = words.iter().map(|w| w.chars().collect()).collect();
    match kind {
        Slip::Doubled => {
            let long: Vec<usize> = (0..w.len()).filter(|&i| w[i].len() >= 4).collect();
            let i = *long.get(draw.below(long.len()))?;
            let at = draw.below(w[i].len());
            let c = w[i][at];
            w[i].insert(at, c);
        }
        Slip::Boundary => {
            let pairs: Vec<usize> = (1..w.len())
                .filter(|&i| w[i - 1].len() >= 3 && w[i].len() >= 3)
                .collect();
            let i = *pairs.get(draw.below(pairs.len()))?;
            if draw.below(2) == 0 {
                let c = w[i - 1].pop()?;
                w[i].insert(0, c);
            } else {
                let c = w[i].remove(0);
                w[i - 1].push(c);
            }
        }
        Slip::Transposed => {
            let long: Vec<usize> = (0..w.len()).filter(|&i| w[i].len() >= 4).collect();
            let i = *long.get(draw.below(long.len()))?;
            let places: Vec<usize> = (0..w[i].len() - 1)
                .filter(|&j| w[i][j] != w[i][j + 1])
                .collect();
            let j = *places.get(draw.below(places.len()))?;
            w[i].swap(j, j + 1);
        }
    }
    Some(
        w.iter()
            .map(|w| w.iter().collect::<String>().to_uppercase())
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The first `limit` persons of `source` (one name each: the first with two Latin words or
/// more), with one slip of `kind` each, screened by name alone; found when an entry holding
/// the same words reaches review.
pub fn constructed_slips(matcher: &Matcher, source: ListSource, kind: Slip, limit: usize) -> Found {
    let index = &matcher.index;
    let mut seen = std::collections::BTreeSet::new();
    let names: Vec<&IndexedName> = index
        .names
        .iter()
        .filter(|n| {
            let e = &index.entries[n.entry];
            index.versions[e.version].source == source
                && e.entry.kind == EntryKind::Person
                && n.words.len() >= 2
                && n.words
                    .iter()
                    .all(|w| w.chars().all(|c| c.is_ascii_lowercase()))
                && seen.insert(n.entry)
        })
        .take(limit)
        .collect();
    // One sequence per list and kind, so adding a list or a kind leaves the others' cases.
    let salt = source.as_str().bytes().fold(kind as u64, |h, b| {
        h.wrapping_mul(31).wrapping_add(u64::from(b))
    });
    let mut draw = Draw(20_261_126 ^ salt);
    // The same person is often listed twice (by the UN and by OFAC, or in two OFAC
    // entries): every entry holding the same words (in any order) is the right one.
    let words_key = |n: &IndexedName| {
        let mut words = n.words.clone();
        words.sort();
        words.join(" ")
    };
    let mut holders: std::collections::HashMap<String, Vec<usize>> =
        std::collections::HashMap::new();
    for n in &index.names {
        let holding = holders.entry(words_key(n)).or_default();
        if !holding.contains(&n.entry) {
            holding.push(n.entry);
        }
    }
    let mut out = Found::default();
    for n in names {
        let Some(name) = slipped(&n.words, kind, &mut draw) else {
            continue;
        };
        let query = Query {
            name: name.clone(),
            ..Query::default()
        };
        let right = holders.get(&words_key(n)).cloned().unwrap_or_default();
        out.judge(matcher, &query, &right, format!("{name} for {}", n.full));
    }
    out
}

/// The `p`-th percentile (0..=100) of `times`.
pub fn percentile(times: &[Duration], p: usize) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) * p / 100).min(sorted.len() - 1)]
}
