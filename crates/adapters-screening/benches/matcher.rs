//! The matcher's speed in process: every query of the development share (treated UN
//! positives and 10,000 negatives) screened against UN + OFAC SDN + OFAC consolidated loaded
//! together (`adapters_screening::evaluation::reference_matcher`); prints p50, p99 and the
//! worst time per check, and the time to read and index the lists.
//!
//! `cargo bench -p adapters-screening --bench matcher`

use adapters_screening::evaluation::{reference_matcher, testdata};
use domain::screening::matcher::Query;
use domain::screening::sanctions::ListedDate;
use std::time::Instant;

fn main() {
    let built = Instant::now();
    let matcher = reference_matcher(&testdata());
    let build_time = built.elapsed();

    let mut queries = Vec::new();
    for (file, name_col, dob_col) in [
        ("eval/un_treated_vs_original_pairs.csv", 2, 3),
        ("eval/negatives_us.csv", 0, 5),
    ] {
        let mut reader = csv::Reader::from_path(testdata().join(file)).expect("an eval file");
        for row in reader.records() {
            let row = row.expect("a row");
            queries.push(Query {
                name: row[name_col].to_owned(),
                birth_date: ListedDate::from_wire(row[dob_col].trim()),
                ..Query::default()
            });
        }
    }
    let mut times = Vec::with_capacity(queries.len());
    let mut found = 0usize;
    for q in &queries {
        let t = Instant::now();
        let candidates = matcher.screen(q, 0.5, 10);
        times.push(t.elapsed());
        found += candidates.len();
    }
    times.sort();
    let at = |p: f64| times[((times.len() as f64 - 1.0) * p).round() as usize];
    println!(
        "matcher {}: {} entries, {} names (lists read and indexed in {:.1?})",
        domain::screening::matcher::MATCHER_VERSION,
        matcher.index.entries.len(),
        matcher.index.names.len(),
        build_time
    );
    println!(
        "{} checks in process: p50 {:.2?}, p99 {:.2?}, max {:.2?} ({} candidates at 0.5 or more)",
        times.len(),
        at(0.50),
        at(0.99),
        times.last().copied().unwrap_or_default(),
        found
    );
}
