//! Writes the screening quality page: the matcher's figures on the development share of the
//! evaluation set (and on held-out files named by `IDREG_EVAL_POSITIVES` and
//! `IDREG_EVAL_NEGATIVES`), on slips of each kind constructed from each list's persons, and
//! its speed in process, with the versions they were measured at and the date.
//!
//! `cargo xtask eval` runs it in release and writes `docs/screening-quality.md`;
//! `cargo run --release -p adapters-screening --example eval -- [--out FILE]` by hand.

use adapters_screening::evaluation::{
    constructed_slips, negatives, pep, percentile, reference_matcher, review, testdata,
    treated_positives, Found, Slip, DEV_NEGATIVES, DEV_POSITIVES,
};
use domain::screening::matcher::MATCHER_VERSION;
use domain::screening::policy::PolicyConfig;
use domain::screening::sanctions::ListSource;
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from);

    let matcher = reference_matcher(&testdata());
    let policy = PolicyConfig::default();
    let mut page = String::new();
    let w = &mut page;
    let _ = writeln!(w, "# Screening quality\n");
    let _ = writeln!(
        w,
        "Written by `cargo xtask eval` on {} (UTC) with matcher `{MATCHER_VERSION}`, the \
         default policy (review from {:.2}, hit from {:.2}) and these list versions loaded \
         together:\n",
        chrono::Utc::now().format("%Y-%m-%d"),
        policy.review,
        policy.hit,
    );
    versions_table(w, &matcher);

    let _ = writeln!(w, "\n## Evaluation sets\n");
    let _ = writeln!(
        w,
        "A positive is found when its listed entry reaches review, and first when it ranks \
         first; a negative counts when anything reaches review.\n"
    );
    let _ = writeln!(
        w,
        "| Set | Cases | In review | First when found | Not measured |"
    );
    let _ = writeln!(w, "|---|---|---|---|---|");
    let mut times = Vec::new();
    let mut sets = vec![(
        "treated UN positives, development share".to_owned(),
        testdata().join(DEV_POSITIVES),
    )];
    if let Some(p) = std::env::var_os("IDREG_EVAL_POSITIVES") {
        sets.push(("treated positives, held out".to_owned(), PathBuf::from(p)));
    }
    for (label, path) in sets {
        let f = treated_positives(&matcher, &path);
        row(w, &label, &f);
        times.extend(f.times);
    }
    let mut negative_sets = vec![(
        "US negatives, development share".to_owned(),
        testdata().join(DEV_NEGATIVES),
    )];
    if let Some(p) = std::env::var_os("IDREG_EVAL_NEGATIVES") {
        negative_sets.push(("negatives, held out".to_owned(), PathBuf::from(p)));
    }
    for (label, path) in negative_sets {
        let f = negatives(&matcher, &path);
        let _ = writeln!(
            w,
            "| {label} | {} | {} ({:.2}%) | | |",
            f.cases,
            f.flagged.len(),
            f.rate()
        );
        times.extend(f.times);
    }

    let set_times = std::mem::take(&mut times);
    let _ = writeln!(w, "\n## Slips, per list and kind\n");
    let _ = writeln!(
        w,
        "The first 400 persons of each list with two Latin words or more, one slip each \
         (drawn by a fixed sequence), screened by name alone; found when an entry holding \
         the same words reaches review.\n"
    );
    let _ = writeln!(w, "| List | Kind | Cases | In review | First when found |");
    let _ = writeln!(w, "|---|---|---|---|---|");
    for source in [
        ListSource::UnConsolidated,
        ListSource::OfacSdn,
        ListSource::OfacConsolidated,
    ] {
        for kind in Slip::ALL {
            let f = constructed_slips(&matcher, source, kind, 400);
            if f.cases == 0 {
                continue;
            }
            let label = format!("{} | {}", source.as_str(), kind.describe());
            let _ = writeln!(w, "| {label} | {} |", found_cells(&f));
            times.extend(f.times);
        }
    }

    let slip_times = std::mem::take(&mut times);
    pep_section(w, &mut times);

    let _ = writeln!(w, "\n## Speed\n");
    let _ = writeln!(
        w,
        "Screened in process one after another on the machine that wrote this page (review at \
         {:.2}):\n",
        review()
    );
    let _ = writeln!(w, "| Queries | Checks | p50 | p99 | max |");
    let _ = writeln!(w, "|---|---|---|---|---|");
    for (label, t) in [
        ("the evaluation sets", &set_times),
        ("the constructed slips", &slip_times),
        ("the PEP lists' cases", &times),
    ] {
        let _ = writeln!(
            w,
            "| {label} | {} | {:.2} ms | {:.2} ms | {:.2} ms |",
            t.len(),
            ms(percentile(t, 50)),
            ms(percentile(t, 99)),
            ms(percentile(t, 100)),
        );
    }

    match out {
        Some(path) => {
            std::fs::write(&path, &page).expect("writing the quality page");
            eprintln!("eval: wrote {}", path.display());
        }
        None => print!("{page}"),
    }
}

/// The PEP lists: variants of listed PEPs' names, and names not listed.
fn pep_section(w: &mut String, times: &mut Vec<std::time::Duration>) {
    let matcher = pep::pep_matcher(&testdata());
    let _ = writeln!(w, "\n## PEP lists\n");
    let _ = writeln!(
        w,
        "PEP lists loaded alone, as a check screens them (each kind of list on its own): the \
         synthetic FollowTheMoney sample and Riksdag member list under \
         `crates/adapters-screening/testdata/pep/`, and {} persons drawn by a fixed sequence \
         from pools of common Swedish and Lithuanian given names and surnames (no real PEP \
         data is published in the repository; see `evaluation/pep.rs`). A PEP candidate is at \
         most `review`, so found means reaching review.\n",
        pep::SYNTHETIC_PEPS
    );
    let _ = writeln!(
        w,
        "In service the PEP lists come from the Swedish Riksdag's open member data \
         (`se_riksdagen`: free reuse, commercial too, credited \"Source: The Swedish \
         Parliament\") and from a FollowTheMoney PEP feed the operator licenses (`ftm_peps`, \
         e.g. OpenSanctions' PEP data: CC BY-NC 4.0, a commercial service needs its data \
         licence); idreg bundles none. The figures here are of the matcher on names shaped as \
         those lists write them.\n"
    );
    versions_table(w, &matcher);
    let _ = writeln!(
        w,
        "\n| Variant of a listed PEP's name | Cases | In review | First when found |"
    );
    let _ = writeln!(w, "|---|---|---|---|");
    for variant in pep::Variant::ALL {
        let f = pep::variants(&matcher, variant);
        let _ = writeln!(w, "| {} | {} |", variant.describe(), found_cells(&f));
        times.extend(f.times);
    }
    let _ = writeln!(w, "\n| Names not listed | Cases | In review |");
    let _ = writeln!(w, "|---|---|---|");
    let near = pep::neighbours(&matcher, 2_000);
    let us = negatives(&matcher, &testdata().join(DEV_NEGATIVES));
    for (label, f) in [
        (
            "the same name pools, a given name and surname pair no PEP bears",
            near,
        ),
        ("US negatives, development share", us),
    ] {
        let _ = writeln!(
            w,
            "| {label} | {} | {} ({:.2}%) |",
            f.cases,
            f.flagged.len(),
            f.rate()
        );
        times.extend(f.times);
    }
}

/// The list versions a matcher holds, one row each.
fn versions_table(w: &mut String, matcher: &domain::screening::matcher::Matcher) {
    let _ = writeln!(w, "| List | Published | Entries | Digest (SHA-256) |");
    let _ = writeln!(w, "|---|---|---|---|");
    for v in &matcher.index.versions {
        let _ = writeln!(
            w,
            "| {} | {} | {} | `{}…` |",
            v.source.as_str(),
            v.published_at
                .map(|d| d.format("%Y-%m-%d").to_string())
                .unwrap_or_else(|| "not stated".into()),
            v.entry_count,
            &v.digest[..v.digest.len().min(23)],
        );
    }
}

/// A set of positives' cells: cases, in review, first when found.
fn found_cells(f: &Found) -> String {
    format!(
        "{} | {}/{} ({:.1}%) | {}/{} ({:.1}%)",
        f.cases,
        f.found,
        f.cases,
        f.recall(),
        f.first,
        f.found,
        f.first_share()
    )
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn row(w: &mut String, label: &str, f: &Found) {
    let _ = writeln!(w, "| {label} | {} | {} |", found_cells(f), f.unresolved);
}
