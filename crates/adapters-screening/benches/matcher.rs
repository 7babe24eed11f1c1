//! The matcher's speed in process: every query of the development share (treated UN
//! positives and 10,000 negatives) screened against UN + OFAC SDN + OFAC consolidated loaded
//! together; prints p50, p99 and the worst time per check, and the index's build time.
//!
//! `cargo bench -p adapters-screening --bench matcher`

use adapters_screening::{read_path, ListFormat};
use domain::screening::matcher::index::ListIndex;
use domain::screening::matcher::score::Weights;
use domain::screening::matcher::{Matcher, Query};
use domain::screening::sanctions::{ListedDate, SourceVersion, SourceVersionId};
use std::path::PathBuf;
use std::time::Instant;

fn testdata(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(rel)
}

fn main() {
    let started = Instant::now();
    let mut lists = Vec::new();
    for (rel, format) in [
        ("un/un_sc_consolidated_2026-02-27.xml", ListFormat::UnXml),
        ("ofac_sdn_2021-07", ListFormat::OfacCsv),
        ("ofac_cons_2025-12", ListFormat::OfacCsv),
    ] {
        let read = read_path(&testdata(rel), Some(format)).expect("a sample list");
        let version = SourceVersion {
            id: SourceVersionId::generate(),
            source: read.list.source,
            digest: read.digest,
            published_at: read.list.published_at,
            imported_at: chrono::Utc::now(),
            entry_count: u32::try_from(read.list.entries.len()).unwrap_or(u32::MAX),
            skipped_count: 0,
        };
        lists.push((version, read.list.entries));
    }
    let read_time = started.elapsed();
    let built = Instant::now();
    let matcher = Matcher {
        index: ListIndex::build(lists),
        weights: Weights::default(),
    };
    let build_time = built.elapsed();

    let mut queries = Vec::new();
    for (file, name_col, dob_col) in [
        ("eval/un_treated_vs_original_pairs.csv", 2, 3),
        ("eval/negatives_us.csv", 0, 5),
    ] {
        let mut reader = csv::Reader::from_path(testdata(file)).expect("an eval file");
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
        "matcher {}: {} entries, {} names (read {:.1?}, index built in {:.1?})",
        domain::screening::matcher::MATCHER_VERSION,
        matcher.index.entries.len(),
        matcher.index.names.len(),
        read_time,
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
