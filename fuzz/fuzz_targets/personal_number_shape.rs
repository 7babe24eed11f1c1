//! The personal-number shape rule: `shape::holds_personal_number(text)`.
//!
//! Properties: no panic; and whenever a window of the text's ASCII digits (10 or 12 of them
//! as a personnummer or samordningsnummer, 11 as an asmens kodas) is one the parsers accept,
//! the rule says the text holds a personal number. The rule judges by shape, so it may say
//! yes to more; it must never say no to a number the parsers take.
#![no_main]

use domain::subjects::identifier::shape::holds_personal_number;
use domain::subjects::identifier::{Identifier, IdentifierType};
use idreg_fuzz::{digit_runs, today};
use libfuzzer_sys::fuzz_target;

const PERSONAL: [(IdentifierType, &[usize]); 3] = [
    (adapters_se::identifiers::PERSONNUMMER, &[10, 12]),
    (adapters_se::identifiers::SAMORDNINGSNUMMER, &[10, 12]),
    (adapters_lt::identifiers::ASMENS_KODAS, &[11]),
];

fuzz_target!(|data: &[u8]| {
    idreg_fuzz::install_schemes();
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let holds = holds_personal_number(text);
    if holds {
        return;
    }
    for run in digit_runs(text) {
        for (ty, lengths) in PERSONAL {
            for &len in lengths {
                for start in 0..=run.len().saturating_sub(len) {
                    let Some(window) = run.get(start..start + len) else {
                        continue;
                    };
                    let wire = format!("{}:{window}", ty.country().prefix());
                    assert!(
                        Identifier::parse(ty, &wire, today()).is_err(),
                        "the shape rule misses a {ty} the parser accepts ({len} digits at \
                         {start} of a run of {})",
                        run.len()
                    );
                }
            }
        }
    }
});
