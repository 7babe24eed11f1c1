//! The matcher on the development share of the evaluation set and on slips constructed from
//! listed names, over the UN, OFAC SDN and OFAC consolidated lists loaded together
//! (`adapters_screening::evaluation`): the share of positives whose right entry reaches
//! `review`, the share ranked first, and the share of negatives that reach `review`. Prints
//! the figures (`--nocapture`) and holds the levels the issue set, so a change that loses
//! quality fails. Speed is measured by the benchmark; the quality page
//! (`docs/screening-quality.md`) is written by `cargo xtask eval`.
//!
//! Another share of the same shape (a held-out one) is measured by naming its files:
//! `IDREG_EVAL_POSITIVES=<pairs.csv> IDREG_EVAL_NEGATIVES=<negatives.csv> cargo test --release
//! -p adapters-screening --test matcher_eval -- --nocapture`.

use adapters_screening::evaluation::{
    constructed_slips, negatives, reference_matcher, share, testdata, treated_positives, Slip,
    DEV_NEGATIVES, DEV_POSITIVES,
};
use domain::screening::sanctions::ListSource;
use std::path::PathBuf;

/// The evaluation file named by `var`, else the development share's `rel`.
fn eval_file(var: &str, rel: &str) -> PathBuf {
    std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| testdata().join(rel))
}

#[test]
fn the_development_share_is_found_and_negatives_stay_clear() {
    let matcher = reference_matcher(&testdata());
    let held_out = std::env::var_os("IDREG_EVAL_POSITIVES").is_some();
    let positives = treated_positives(&matcher, &eval_file("IDREG_EVAL_POSITIVES", DEV_POSITIVES));

    // A share too small to show a 0.1% rate (or an empty or headers-only file) measures
    // nothing, so it fails rather than passes.
    let negatives = negatives(&matcher, &eval_file("IDREG_EVAL_NEGATIVES", DEV_NEGATIVES));
    let held_out_negatives = std::env::var_os("IDREG_EVAL_NEGATIVES").is_some();
    let least = if held_out_negatives { 1_000 } else { 10_000 };
    assert!(
        negatives.cases >= least,
        "{} negatives, at least {least} needed to measure a 0.1% rate",
        negatives.cases
    );

    println!(
        "matcher {}: positives {}/{} in review or hit ({:.1}%), first {}/{} ({:.1}%), {} rows \
         without their UN entry; negatives {}/{} in review ({:.2}%)",
        domain::screening::matcher::MATCHER_VERSION,
        positives.found,
        positives.cases,
        positives.recall(),
        positives.first,
        positives.found,
        positives.first_share(),
        positives.unresolved,
        negatives.flagged.len(),
        negatives.cases,
        negatives.rate(),
    );
    for m in positives.misses.iter().take(20) {
        println!("  missed: {m}");
    }
    for f in negatives.flagged.iter().take(20) {
        println!("  flagged: {f}");
    }
    // The targets: at least 99.5% of treated positives in review or hit, at least
    // 99.5% of those first, at most 0.1% of negatives in review.
    let least = if held_out { 100 } else { 200 };
    assert!(
        positives.cases >= least,
        "the share resolves to its UN entries ({}, at least {least} needed)",
        positives.cases
    );
    assert!(positives.recall() >= 99.5, "recall fell");
    assert!(positives.first_share() >= 99.5, "ranking fell");
    assert!(negatives.rate() <= 0.1, "false alarms rose");
}

/// Cases constructed beside the development share: listed persons of the UN and OFAC SDN
/// lists with one slip of each kind, screened by name alone; each kind at least 99.5% in
/// review and 99.5% of those first.
#[test]
fn constructed_slips_of_each_kind_are_found_and_first() {
    let matcher = reference_matcher(&testdata());
    for source in [ListSource::UnConsolidated, ListSource::OfacSdn] {
        for kind in Slip::ALL {
            let found = constructed_slips(&matcher, source, kind, 400);
            println!(
                "slip {kind:?} on {}: {}/{} in review ({:.1}%), first {}/{}",
                source.as_str(),
                found.found,
                found.cases,
                found.recall(),
                found.first,
                found.found
            );
            for m in found.misses.iter().take(10) {
                println!("  missed: {m}");
            }
            assert!(found.cases >= 300, "{kind:?}: only {} cases", found.cases);
            assert!(found.recall() >= 99.5, "{kind:?} on {source:?}: recall");
            assert!(
                share(found.first, found.found) >= 99.5,
                "{kind:?} on {source:?}: ranking"
            );
        }
    }
}

/// PEP lists, measured as sanctions lists are (`evaluation::pep`): every variant of a listed
/// PEP's name found; ranked first but where a second given name is left out (a shorter name
/// meets listed names one letter from it as closely: the known weakness this level holds);
/// names that are not listed: the US negatives as rarely as against the sanctions lists, and
/// the hard neighbours of a national list (common names, surnames one letter apart:
/// `Persson` and `Pettersson`) held where they are.
#[test]
fn pep_variants_are_found_and_names_not_listed_stay_clear() {
    use adapters_screening::evaluation::pep::{neighbours, pep_matcher, variants, Variant};
    let matcher = pep_matcher(&testdata());
    for variant in Variant::ALL {
        let f = variants(&matcher, variant);
        println!(
            "PEP variant {variant:?}: {}/{} in review ({:.1}%), first {}/{} ({:.1}%)",
            f.found,
            f.cases,
            f.recall(),
            f.first,
            f.found,
            f.first_share()
        );
        for m in f.misses.iter().take(5) {
            println!("  {m}");
        }
        assert!(f.cases >= 100, "{variant:?}: only {} cases", f.cases);
        assert!(f.recall() >= 99.5, "{variant:?}: recall");
        let first = if variant == Variant::OneGivenName {
            70.0
        } else {
            99.5
        };
        assert!(f.first_share() >= first, "{variant:?}: ranking");
    }
    let near = neighbours(&matcher, 2_000);
    println!(
        "PEP neighbours: {}/{} in review ({:.2}%)",
        near.flagged.len(),
        near.cases,
        near.rate()
    );
    assert_eq!(near.cases, 2_000);
    assert!(near.rate() <= 25.0, "false reviews of neighbours rose");
    let us = negatives(&matcher, &testdata().join(DEV_NEGATIVES));
    assert!(
        us.rate() <= 0.1,
        "false reviews of US negatives on PEP lists"
    );
}
