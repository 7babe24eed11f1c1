//! What the readers' unit tests share.

use crate::ReadError;
use chrono::NaiveDate;
use domain::screening::sanctions::{
    ListedCountry, ListedIdentifier, ListedName, NameQuality, ParsedList,
};

pub(crate) fn strong(s: &str) -> ListedName {
    ListedName {
        full: s.into(),
        quality: NameQuality::Strong,
    }
}

pub(crate) fn weak(s: &str) -> ListedName {
    ListedName {
        full: s.into(),
        quality: NameQuality::Weak,
    }
}

pub(crate) fn country(code: Option<&str>, name: &str) -> ListedCountry {
    ListedCountry {
        code: code.map(Into::into),
        name: name.into(),
    }
}

pub(crate) fn id(kind: &str, value: &str, country: Option<&str>) -> ListedIdentifier {
    ListedIdentifier {
        kind: kind.into(),
        value: value.into(),
        country: country.map(Into::into),
    }
}

/// The skipped records are exactly these, in order, each named as it begins.
pub(crate) fn assert_skipped(skipped: &[String], prefixes: &[&str]) {
    for (i, prefix) in prefixes.iter().enumerate() {
        assert!(
            skipped.get(i).is_some_and(|s| s.starts_with(prefix)),
            "{:?} does not start with {prefix:?}",
            skipped.get(i)
        );
    }
    assert_eq!(skipped.len(), prefixes.len(), "{skipped:#?}");
}

pub(crate) fn day(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

/// Whether a read was refused as not a valid `format` file.
pub(crate) fn is_malformed_as(r: Result<ParsedList, ReadError>, format: &str) -> bool {
    matches!(r, Err(ReadError::Malformed { format: f, .. }) if f == format)
}

/// The bytes of a file under `testdata/`.
pub(crate) fn testdata(rel: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata")
            .join(rel),
    )
    .unwrap()
}

/// A small deterministic generator (xorshift), for inputs no one wrote by hand.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A reader of one format.
pub(crate) type Read = fn(&[u8]) -> Result<ParsedList, ReadError>;

/// Asserts that `read` refuses, as not a valid `format` file, copies of `full` cut short: at
/// `parts - 1` places spread over it (the `i`th at `len * i / parts + i * shift`, landing in
/// tags, attributes, text and multi-byte characters alike), and `short` bytes from its end.
pub(crate) fn assert_cuts_malformed(
    read: Read,
    format: &str,
    full: &[u8],
    (parts, shift): (usize, usize),
    short: usize,
) {
    for i in 1..parts {
        let cut = full.len() * i / parts + i * shift;
        assert!(is_malformed_as(read(&full[..cut]), format), "cut at {cut}");
    }
    assert!(is_malformed_as(read(&full[..full.len() - short]), format));
}

/// Random bytes are never a list, and after `framing` (the start of a plausible file)
/// never make `read` panic.
pub(crate) fn random_bytes_never_panic(read: Read, rng: &mut Rng, framing: &[u8]) {
    for _ in 0..300 {
        let len = (rng.next() % 256) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        assert!(read(&bytes).is_err());
        let mut framed = framing.to_vec();
        framed.append(&mut bytes);
        let _ = read(&framed);
    }
}

/// `full` (a sample of `records` records) with bytes flipped, dropped and markup characters
/// sprayed in: every outcome is a list or an error, never a panic; a list never holds a
/// nameless entry.
pub(crate) fn mutants_never_panic(read: Read, rng: &mut Rng, full: &[u8], records: usize) {
    for round in 0..600 {
        let mut bytes = full.to_vec();
        for _ in 0..(1 + rng.next() % 8) {
            let at = (rng.next() as usize) % bytes.len();
            match rng.next() % 5 {
                0 => bytes[at] = rng.next() as u8,
                1 => {
                    bytes.remove(at);
                }
                2 => bytes[at] = b"<>&/;\"'=:#"[(rng.next() % 10) as usize],
                3 => bytes.insert(at, b'&'),
                _ => {
                    // A digit or a letter swapped: dates, codes and flags go odd.
                    bytes[at] = b"0123456789yZx-"[(rng.next() % 14) as usize];
                }
            }
        }
        if let Ok(list) = read(&bytes) {
            assert!(
                list.entries.len() + list.skipped.len() <= records,
                "round {round}"
            );
            for e in &list.entries {
                assert!(!e.names.is_empty() && !e.source_entry_id.is_empty());
            }
        }
    }
}
