//! The event-log cursor: `event::parse_cursor`.
//!
//! Properties: no panic; a refusal is `invalid_cursor`; an accepted cursor is a `seq` (not
//! negative) whose decimal spelling is exactly the input, and every `seq` spelled in decimal
//! is accepted back as itself.
#![no_main]

use domain::error::ErrorCode;
use domain::monitoring::event::parse_cursor;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    idreg_fuzz::install_schemes();
    let text = String::from_utf8_lossy(data);
    match parse_cursor(&text) {
        Ok(seq) => {
            assert!(seq >= 0);
            assert_eq!(
                seq.to_string(),
                text,
                "an accepted cursor is spelled exactly"
            );
        }
        Err(failure) => assert_eq!(failure.code, ErrorCode::InvalidCursor),
    }
    // The other way round: any seq the log can hand out reads back as itself.
    if let Some(bytes) = data.get(..8) {
        let seq = i64::from_le_bytes(bytes.try_into().unwrap()).unsigned_abs() >> 1;
        let seq = i64::try_from(seq).unwrap();
        assert_eq!(parse_cursor(&seq.to_string()).ok(), Some(seq));
    }
});
