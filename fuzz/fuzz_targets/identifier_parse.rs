//! The identifier parsers, all five types: `Identifier::parse(ty, wire, today)`.
//!
//! Input: two bytes choosing `today`, then the wire string. Properties: no panic; what parses
//! has the type asked for, and re-parses to the same canonical form from its prefixed wire
//! form (and, for the Swedish types, from the bare canonical value), and restores from it; a
//! refusal's message never repeats three digits of the input in a row.
#![no_main]

use domain::subjects::identifier::Identifier;
use idreg_fuzz::{date_from, digit_runs};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    idreg_fuzz::install_schemes();
    let (today, wire) = match data {
        [a, b, rest @ ..] => (date_from([*a, *b]), String::from_utf8_lossy(rest)),
        _ => return,
    };
    // Every three-digit window of the input: a message holding one would be echoing it.
    let windows: Vec<&str> = digit_runs(&wire)
        .flat_map(|run| (0..run.len().saturating_sub(2)).map(move |i| &run[i..i + 3]))
        .collect();
    for &ty in domain::subjects::identifier::scheme::known() {
        match Identifier::parse(ty, &wire, today) {
            Ok(id) => {
                assert_eq!(id.id_type(), ty);
                let canonical = id.expose_canonical();
                assert!(
                    !canonical.is_empty() && canonical.bytes().all(|b| b.is_ascii_digit()),
                    "{ty}: a canonical value is digits only"
                );
                let wire_form = id.expose_wire();
                assert_eq!(
                    wire_form,
                    format!("{}:{canonical}", ty.country().prefix()),
                    "{ty}: the wire form is the prefix and the canonical value"
                );
                let again = Identifier::parse(ty, &wire_form, today).unwrap_or_else(|e| {
                    panic!("{ty}: the prefixed canonical form is refused: {e}")
                });
                assert_eq!(again, id, "{ty}: re-parsing the prefixed canonical form");
                if ty.country().prefix() == "se" {
                    let bare = Identifier::parse(ty, canonical, today).unwrap_or_else(|e| {
                        panic!("{ty}: the bare canonical form is refused: {e}")
                    });
                    assert_eq!(bare, id, "{ty}: re-parsing the bare canonical form");
                }
                let restored = Identifier::restore(ty, canonical)
                    .unwrap_or_else(|e| panic!("{ty}: the canonical form does not restore: {e}"));
                assert_eq!(restored, id, "{ty}: restoring the canonical form");
            }
            Err(e) => {
                let message = e.to_string();
                assert!(!e.reason().is_empty());
                for w in &windows {
                    assert!(
                        !message.contains(w),
                        "{ty}: the refusal `{message}` repeats digits of the input"
                    );
                }
            }
        }
    }
});
