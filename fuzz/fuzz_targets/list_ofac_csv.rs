//! The sanctions-list reader of OFAC's legacy CSV sets: `read_ofac_csv`.
//!
//! Input: the set's four files separated by NUL bytes (which no CSV file holds): primary,
//! aliases, addresses, remark continuations; an absent part is an absent file. An even
//! input length reads it as the SDN set, odd as the consolidated one. Seeded with cuts of
//! both official samples under the crate's `testdata`. Property: no panic; the set is read
//! or refused, and what is read holds only named entries.
#![no_main]

use adapters_screening::read_ofac_csv;
use domain::screening::sanctions::ListSource;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    idreg_fuzz::install_schemes();
    let mut parts = data.split(|&b| b == 0);
    let primary = parts.next().unwrap_or_default();
    let (aliases, addresses, comments) = (parts.next(), parts.next(), parts.next());
    let source = if data.len().is_multiple_of(2) {
        ListSource::OfacSdn
    } else {
        ListSource::OfacConsolidated
    };
    if let Ok(list) = read_ofac_csv(source, primary, aliases, addresses, comments) {
        idreg_fuzz::check_list(&list);
    }
});
