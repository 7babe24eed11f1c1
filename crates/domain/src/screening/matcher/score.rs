//! The pairwise scorer: a query against one candidate name of one entry, giving a score in
//! 0..=1 and the reasons for it.
//!
//! - **Names** decide: the query's words are aligned with the name's words (each pair scored
//!   by spelling, with `?` matching any one letter, and by phonetic key; two adjacent words
//!   may meet one written together, `abd allah` / `abdallah`); the name score weighs how much
//!   of the query the name covers and how much of the name the query covers. Word order does
//!   not matter (`SALEK, ABDULHAI` is `ABDULHAI SALEK`).
//! - **Birth dates** are evidence, never a veto: the same day adds, the same year or month
//!   adds a little, off by one year or one month (a common copying slip) is neutral weak
//!   evidence, further apart takes off a little.
//! - **Nationality and country** agreeing adds a little; a nationality the entry does not
//!   have takes off a little.
//! - **Identifiers**: a registration number (orgnr) equal to one the list gives is a hit.
//! - A **weak alias** (too broad to identify alone) takes off.

use crate::screening::matcher::index::{IndexedEntry, IndexedName};
use crate::screening::matcher::phonetic::key;
use crate::screening::matcher::words::Words;
use crate::screening::sanctions::{ListedDate, NameQuality};
use chrono::Datelike;

/// Which way a reason moved the score.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Contribution {
    Up,
    Down,
    Neutral,
}

impl Contribution {
    pub fn as_str(self) -> &'static str {
        match self {
            Contribution::Up => "up",
            Contribution::Down => "down",
            Contribution::Neutral => "neutral",
        }
    }
}

/// One reason of a candidate's score.
#[derive(Clone, Debug, PartialEq)]
pub struct Reason {
    pub code: &'static str,
    pub detail: String,
    pub contributes: Contribution,
}

/// The facts of a query, prepared.
#[derive(Clone, Debug, Default)]
pub struct PreparedQuery {
    pub words: Vec<String>,
    /// The words prepared for alignment.
    pub prepared: Words,
    pub birth_date: Option<ListedDate>,
    /// ISO codes.
    pub nationalities: Vec<String>,
    pub country: Option<String>,
    /// A registration number in identifier form.
    pub identifier: Option<String>,
}

/// How much each kind of evidence weighs (the policy's weights).
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    pub birth_date_exact: f64,
    pub birth_date_partial: f64,
    pub birth_date_mismatch: f64,
    pub nationality_match: f64,
    pub nationality_mismatch: f64,
    pub country_match: f64,
    pub weak_alias: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            birth_date_exact: 0.08,
            birth_date_partial: 0.03,
            birth_date_mismatch: 0.12,
            nationality_match: 0.03,
            nationality_mismatch: 0.04,
            country_match: 0.02,
            weak_alias: 0.12,
        }
    }
}

/// A scored name.
#[derive(Clone, Debug, PartialEq)]
pub struct Scored {
    pub score: f64,
    pub reasons: Vec<Reason>,
}

/// Scores a query against one name of an entry.
pub fn score(
    query: &PreparedQuery,
    name: &IndexedName,
    entry: &IndexedEntry,
    weights: &Weights,
) -> Scored {
    let mut reasons = Vec::new();
    let (name_score, matched) = name_similarity(&query.prepared, &name.prepared);
    reasons.push(Reason {
        code: if name_score >= 0.999 {
            "name_exact"
        } else {
            "name_similar"
        },
        detail: format!(
            "{matched} of {} query words match {} of the listed name `{}` (name score {:.2})",
            query.words.len(),
            name.words.len(),
            name.full,
            name_score
        ),
        contributes: if name_score > 0.0 {
            Contribution::Up
        } else {
            Contribution::Neutral
        },
    });
    let mut total = name_score;
    if name.quality == NameQuality::Weak {
        total -= weights.weak_alias;
        reasons.push(Reason {
            code: "weak_alias",
            detail: "the matching name is a weak alias of the entry".into(),
            contributes: Contribution::Down,
        });
    }
    if let Some(b) = query.birth_date {
        let (delta, reason) = birth_date_evidence(b, &entry.birth_dates, weights);
        total += delta;
        reasons.push(reason);
    }
    for n in &query.nationalities {
        if entry.nationality_codes.contains(n) {
            total += weights.nationality_match;
            reasons.push(Reason {
                code: "nationality_match",
                detail: format!("nationality {n} is listed"),
                contributes: Contribution::Up,
            });
        } else if !entry.nationality_codes.is_empty() {
            total -= weights.nationality_mismatch;
            reasons.push(Reason {
                code: "nationality_mismatch",
                detail: format!("nationality {n} is not among the listed ones"),
                contributes: Contribution::Down,
            });
        }
    }
    if let Some(c) = &query.country {
        if entry.country_codes.contains(c) || entry.nationality_codes.contains(c) {
            total += weights.country_match;
            reasons.push(Reason {
                code: "country_match",
                detail: format!("country {c} is tied to the entry"),
                contributes: Contribution::Up,
            });
        }
    }
    if let Some(id) = &query.identifier {
        if entry.identifiers.contains(id) {
            total = 1.0;
            reasons.push(Reason {
                code: "identifier_match",
                detail: "the registration number equals one the list gives".into(),
                contributes: Contribution::Up,
            });
        }
    }
    Scored {
        score: total.clamp(0.0, 1.0),
        reasons,
    }
}

/// Birth-date evidence: the best agreement between the query's date and any listed one.
fn birth_date_evidence(query: ListedDate, listed: &[ListedDate], w: &Weights) -> (f64, Reason) {
    if listed.is_empty() {
        return (
            0.0,
            Reason {
                code: "birth_date_unknown",
                detail: "the list gives no birth date".into(),
                contributes: Contribution::Neutral,
            },
        );
    }
    let best = listed
        .iter()
        .map(|l| date_agreement(query, *l))
        .max()
        .unwrap_or(DateAgreement::Apart);
    match best {
        DateAgreement::SameDay => (
            w.birth_date_exact,
            reason(
                "birth_date_exact",
                "the birth date is listed",
                Contribution::Up,
            ),
        ),
        DateAgreement::Within => (
            w.birth_date_partial,
            reason(
                "birth_date_partial",
                "the birth date agrees as far as the list gives it",
                Contribution::Up,
            ),
        ),
        DateAgreement::Near => (
            0.0,
            reason(
                "birth_date_near",
                "the birth date is off by one year or one month: weak evidence either way",
                Contribution::Neutral,
            ),
        ),
        DateAgreement::Apart => (
            -w.birth_date_mismatch,
            reason(
                "birth_date_mismatch",
                "the birth date is not among the listed ones",
                Contribution::Down,
            ),
        ),
    }
}

fn reason(code: &'static str, detail: &str, contributes: Contribution) -> Reason {
    Reason {
        code,
        detail: detail.to_owned(),
        contributes,
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum DateAgreement {
    Apart,
    Near,
    Within,
    SameDay,
}

/// The span of days a date covers, as (first year, first month, first day) .. last.
fn span(d: ListedDate) -> ((i32, u32, u32), (i32, u32, u32)) {
    match d {
        ListedDate::Day(x) => (
            (x.year(), x.month(), x.day()),
            (x.year(), x.month(), x.day()),
        ),
        ListedDate::Month { year, month } => ((year, month, 1), (year, month, 31)),
        ListedDate::Year(y) => ((y, 1, 1), (y, 12, 31)),
        ListedDate::Years { from, to } => ((from, 1, 1), (to, 12, 31)),
    }
}

fn date_agreement(q: ListedDate, l: ListedDate) -> DateAgreement {
    if let (ListedDate::Day(a), ListedDate::Day(b)) = (q, l) {
        if a == b {
            return DateAgreement::SameDay;
        }
    }
    let ((qs, qe), (ls, le)) = (span(q), span(l));
    if qs <= le && ls <= qe {
        return DateAgreement::Within;
    }
    // One year, or one month, apart.
    let months = |(y, m, _): (i32, u32, u32)| i64::from(y) * 12 + i64::from(m);
    let gap_months = if qe < ls {
        months(ls) - months(qe)
    } else {
        months(qs) - months(le)
    };
    let same_day_month = matches!((q, l), (ListedDate::Day(a), ListedDate::Day(b))
        if a.month() == b.month() && a.day() == b.day() && (a.year() - b.year()).abs() == 1);
    if gap_months <= 1 || same_day_month || gap_months <= 12 {
        DateAgreement::Near
    } else {
        DateAgreement::Apart
    }
}

/// How alike two words are, 0..=1: spelling (edit distance with adjacent swaps, `?` any
/// letter), lifted when the phonetic keys agree.
pub fn word_similarity(a: &str, b: &str) -> f64 {
    word_likeness(a, &key(a), b, &key(b))
}

/// [`word_similarity`] with the words' phonetic keys already known.
pub fn word_likeness(a: &str, a_key: &str, b: &str, b_key: &str) -> f64 {
    if a == b {
        return 1.0;
    }
    let (la, lb) = (a.chars().count(), b.chars().count());
    let longest = la.max(lb);
    if longest == 0 {
        return 0.0;
    }
    // Sounding alike counts for words of some length whose keys say more than one sound.
    let sounds = if la.min(lb) >= 3 && a_key.len() >= 2 && a_key == b_key {
        SOUND_LIKENESS
    } else {
        0.0
    };
    // The distance is at least the difference in length: skip what cannot reach a pair.
    let bound = 1.0 - la.abs_diff(lb) as f64 / longest as f64;
    if bound < PAIR_FLOOR {
        return sounds;
    }
    let distance = edit_distance(a, b);
    let spelled = 1.0 - distance / longest as f64;
    // Short words must be spelled alike: one letter off is another word.
    let spelled = if longest <= 3 && distance > 0.0 {
        0.0
    } else {
        spelled
    };
    spelled.max(sounds)
}

/// The likeness of two adjacent words whose letters are the name's two words, the boundary
/// between them moved (`joh nsmith` for `john smith`).
const BOUNDARY_LIKENESS: f64 = 0.95;
/// A pair of words less alike than this is not a pair.
const PAIR_FLOOR: f64 = 0.7;
/// The likeness of two words that only sound alike.
const SOUND_LIKENESS: f64 = 0.85;
/// The most a name can score when its words only sound like the query's.
const SOUNDS_ONLY_CAP: f64 = 0.7;
/// Words longer than this compare by their first letters (no name part is this long).
const MAX_WORD: usize = 48;

/// The cost of a slip of typing: a letter doubled (or a double written once), or two
/// adjacent letters transposed. Half an edit: such a pair is nearer than one with a letter
/// changed, so a listed name spelled with the slip undone ranks before another listed name
/// one ordinary edit away.
#[cfg(test)]
const SLIP_COST: f64 = SLIP as f64 / EDIT as f64;
/// An edit and a slip in half edits, as [`edit_distance`] counts them.
const EDIT: u16 = 2;
const SLIP: u16 = 1;

/// Damerau-Levenshtein (optimal string alignment) distance, slips at [`SLIP_COST`]; `?`
/// equals any letter. Counted in half edits on three rolling rows on the stack, each
/// letter's insertion cost worked out once: no allocation, no float, per comparison.
fn edit_distance(a: &str, b: &str) -> f64 {
    let mut ab = ['\0'; MAX_WORD];
    let mut bb = ['\0'; MAX_WORD];
    let n = fill(&mut ab, a);
    let m = fill(&mut bb, b);
    let (a, b) = (&ab[..n], &bb[..m]);
    let same = |x: char, y: char| x == y || x == '?' || y == '?';
    // Inserting (or deleting) a letter that doubles the one before or after it is a slip.
    let costs = |s: &[char], out: &mut [u16; MAX_WORD]| {
        for k in 0..s.len() {
            let doubles =
                (k > 0 && same(s[k], s[k - 1])) || (k + 1 < s.len() && same(s[k], s[k + 1]));
            out[k] = if doubles { SLIP } else { EDIT };
        }
    };
    let (mut ca, mut cb) = ([EDIT; MAX_WORD], [EDIT; MAX_WORD]);
    costs(a, &mut ca);
    costs(b, &mut cb);
    let mut two_back = [0u16; MAX_WORD + 1];
    let mut prev = [0u16; MAX_WORD + 1];
    let mut cur = [0u16; MAX_WORD + 1];
    for j in 1..=m {
        prev[j] = prev[j - 1] + cb[j - 1];
    }
    for i in 1..=n {
        cur[0] = prev[0] + ca[i - 1];
        for j in 1..=m {
            let substitute = if same(a[i - 1], b[j - 1]) { 0 } else { EDIT };
            let mut best = (prev[j] + ca[i - 1])
                .min(cur[j - 1] + cb[j - 1])
                .min(prev[j - 1] + substitute);
            if i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]) {
                best = best.min(two_back[j - 2] + SLIP);
            }
            cur[j] = best;
        }
        two_back = prev;
        prev = cur;
    }
    // Half edits to edits (a slip is SLIP_COST).
    f64::from(prev[m]) / f64::from(EDIT)
}

fn fill(buf: &mut [char; MAX_WORD], s: &str) -> usize {
    let mut n = 0;
    for c in s.chars().take(MAX_WORD) {
        buf[n] = c;
        n += 1;
    }
    n
}

/// Aligns the query's words with the name's words; the name score and the words matched.
///
/// Pairs are taken greedily from the most alike (ties by position, so the result is the
/// same every time); two adjacent words on either side may stand for one written together.
/// The score is 0.6 × how much of the query (by letters) is matched + 0.4 × how much of the
/// name is, each weighted by the pair's likeness; when no pair is spelled alike (only
/// sounds), it is at most 0.7.
pub fn name_similarity(query: &Words, name: &Words) -> (f64, usize) {
    if query.is_empty() || name.is_empty() || query.letters == 0 || name.letters == 0 {
        return (0.0, 0);
    }
    let (qi, ni) = (&query.items, &name.items);
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for (a, qa) in qi.iter().enumerate() {
        for (b, nb) in ni.iter().enumerate() {
            // A joined pair only meets a single word, or a joined pair of the same letters
            // split elsewhere (a letter moved across the boundary: `joh nsmith`).
            let s = if qa.1 != qa.2 && nb.1 != nb.2 {
                if qa.0 != nb.0 {
                    continue;
                }
                BOUNDARY_LIKENESS
            } else {
                word_likeness(&qa.0, &qa.3, &nb.0, &nb.3)
            };
            if s >= PAIR_FLOOR {
                pairs.push((s, a, b));
            }
        }
    }
    pairs.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    // A name whose words only sound alike, none spelled alike, is not the same name.
    let spelled_pair = pairs.iter().any(|p| p.0 > SOUND_LIKENESS);
    let mut q_used = vec![false; query.len()];
    let mut n_used = vec![false; name.len()];
    let (mut q_matched, mut n_matched, mut count) = (0.0, 0.0, 0);
    for (s, a, b) in pairs {
        let (qa, nb) = (&qi[a], &ni[b]);
        if (qa.1..=qa.2).any(|i| q_used[i]) || (nb.1..=nb.2).any(|j| n_used[j]) {
            continue;
        }
        for (used, len) in q_used[qa.1..=qa.2].iter_mut().zip(&query.lens[qa.1..=qa.2]) {
            *used = true;
            q_matched += s * *len as f64;
        }
        for (used, len) in n_used[nb.1..=nb.2].iter_mut().zip(&name.lens[nb.1..=nb.2]) {
            *used = true;
            n_matched += s * *len as f64;
        }
        count += qa.2 - qa.1 + 1;
    }
    let score = 0.6 * q_matched / query.letters as f64 + 0.4 * n_matched / name.letters as f64;
    let score = if spelled_pair {
        score
    } else {
        score.min(SOUNDS_ONLY_CAP)
    };
    (score, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Words {
        Words::new(&crate::screening::matcher::normalise::tokens(s))
    }

    #[test]
    fn word_order_punctuation_and_copying_slips_do_not_hide_a_name() {
        let listed = words("ABDULHAI SALEK");
        for query in [
            "SALEK, ABDULHAI",
            "ABDULHIA SALEK",
            "ABDULHAI SALLEK",
            "ABDULH?I SALEK",
        ] {
            let (s, _) = name_similarity(&words(query), &listed);
            assert!(s > 0.85, "{query}: {s}");
        }
        let (s, _) = name_similarity(&words("ABDALLAH MOHAMED"), &words("ABD ALLAH MOHAMED"));
        assert!(s > 0.95, "{s}");
        let (s, _) = name_similarity(&words("Kathryn Barr"), &listed);
        assert!(s < 0.2, "{s}");
    }

    /// Each kind of typing slip is a rule: a doubled letter and a transposition cost half an
    /// edit, so the name the slip was made from ranks before another name one ordinary edit
    /// away; a letter moved across a boundary joins the same letters.
    #[test]
    fn slips_of_typing_rank_the_name_they_were_made_from_first() {
        // A letter doubled: `kyonng` is nearer `kyong` than `kyang` is.
        assert_eq!(edit_distance("kyonng", "kyong"), SLIP_COST);
        assert!(word_similarity("kyonng", "kyong") > word_similarity("kyang", "kyong"));
        // A double written once costs the same.
        assert_eq!(edit_distance("mohamed", "mohammed"), SLIP_COST);
        // Two letters transposed: `nzmabamwita` is nearer `nzambamwita` (a swap) than
        // `nzabamwita` (a letter dropped).
        assert_eq!(edit_distance("nzmabamwita", "nzambamwita"), SLIP_COST);
        assert!(
            word_similarity("nzmabamwita", "nzambamwita")
                > word_similarity("nzmabamwita", "nzabamwita")
        );
        // An ordinary edit still costs a whole one.
        assert_eq!(edit_distance("antonia", "antonio"), 1.0);
        assert!(word_similarity("ana", "anna") > word_similarity("anna", "anne"));
        // A boundary moved: the two words meet the name's two words as one.
        let listed = words("JOHN SMITH");
        let (s, count) = name_similarity(&words("JOH NSMITH"), &listed);
        assert!(s >= BOUNDARY_LIKENESS - 1e-9, "{s}");
        assert_eq!(count, 2);
        // Other letters split elsewhere are not the same words.
        let (s, _) = name_similarity(&words("JOHAN SMIT"), &listed);
        assert!(s < BOUNDARY_LIKENESS, "{s}");
    }

    #[test]
    fn dates_agree_as_far_as_they_go_and_near_misses_are_neutral() {
        let day = |y, m, d| ListedDate::Day(chrono::NaiveDate::from_ymd_opt(y, m, d).unwrap());
        assert_eq!(
            date_agreement(day(1972, 5, 25), day(1972, 5, 25)),
            DateAgreement::SameDay
        );
        assert_eq!(
            date_agreement(day(1972, 5, 25), ListedDate::Year(1972)),
            DateAgreement::Within
        );
        assert_eq!(
            date_agreement(day(1973, 5, 25), day(1972, 5, 25)),
            DateAgreement::Near
        );
        assert_eq!(
            date_agreement(day(1972, 6, 25), day(1972, 5, 25)),
            DateAgreement::Near
        );
        assert_eq!(
            date_agreement(ListedDate::Year(1966), ListedDate::Year(1965)),
            DateAgreement::Near
        );
        assert_eq!(
            date_agreement(day(1980, 1, 1), day(1972, 5, 25)),
            DateAgreement::Apart
        );
    }
}
