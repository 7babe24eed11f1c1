//! Small helpers shared by the upstream modules: check digits, identifiers, time stamps,
//! XML escaping, an insertion-ordered JSON object and a poison-tolerant lock.

use rand::RngCore;
use serde::ser::{Serialize, SerializeMap, Serializer};
use sha2::{Digest, Sha256};
use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, ignoring poisoning (a panicking handler must not wedge the sandbox).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Luhn check over the last ten digits of a Swedish organisation or personal number.
/// Returns false for anything that is not 10 or 12 ASCII digits.
pub fn luhn_valid(id: &str) -> bool {
    if !(id.len() == 10 || id.len() == 12) || !id.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let ten = &id.as_bytes()[id.len() - 10..];
    let sum: u32 = ten
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0') * if i % 2 == 0 { 2 } else { 1 };
            d / 10 + d % 10
        })
        .sum();
    sum.is_multiple_of(10)
}

/// The Luhn check digit for nine digits (the tenth digit of an orgnr).
pub fn luhn_check_digit(nine: &str) -> char {
    debug_assert_eq!(nine.len(), 9);
    let sum: u32 = nine
        .bytes()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0') * if i % 2 == 0 { 2 } else { 1 };
            d / 10 + d % 10
        })
        .sum();
    char::from(b'0' + ((10 - sum % 10) % 10) as u8)
}

/// Check digit of a Lithuanian 9-digit company code (the same modulo-11 rule as the
/// personal code: weights 1..8, then 3..10 when the first pass gives 10).
pub fn lt_check_digit(eight: &str) -> u32 {
    let digits: Vec<u32> = eight.bytes().map(|b| u32::from(b - b'0')).collect();
    let first: u32 = digits
        .iter()
        .enumerate()
        .map(|(i, d)| d * (i as u32 + 1))
        .sum::<u32>()
        % 11;
    if first != 10 {
        return first;
    }
    let second: u32 = digits
        .iter()
        .enumerate()
        .map(|(i, d)| d * (i as u32 + 3))
        .sum::<u32>()
        % 11;
    if second == 10 {
        0
    } else {
        second
    }
}

/// True when a 9-digit Lithuanian company code carries a correct check digit.
pub fn lt_code_valid(code: &str) -> bool {
    code.len() == 9
        && code.bytes().all(|b| b.is_ascii_digit())
        && lt_check_digit(&code[..8]) == u32::from(code.as_bytes()[8] - b'0')
}

fn format_uuid(mut b: [u8; 16]) -> String {
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex::encode(b);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// A random version-4 UUID.
pub fn random_uuid() -> String {
    let mut b = [0u8; 16];
    rand::thread_rng().fill_bytes(&mut b);
    format_uuid(b)
}

/// A version-4-shaped UUID derived from a seed string (deterministic).
pub fn uuid_from_seed(seed: &str) -> String {
    let digest = Sha256::digest(seed.as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(&digest[..16]);
    format_uuid(b)
}

/// Now as `2024-09-18T09:32:24Z` (the VDM error time-stamp format).
pub fn now_utc_seconds() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Now as `2022-10-03T09:11:02.908+02:00`-style local-offset time (SOAP metadata).
pub fn now_xml_datetime() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.3f+00:00")
        .to_string()
}

/// Escapes text for XML element content and attribute values.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// A JSON object that keeps its keys in insertion order (serde_json's own map sorts them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OrderedObject(pub Vec<(String, serde_json::Value)>);

impl OrderedObject {
    pub fn new() -> Self {
        OrderedObject(Vec::new())
    }

    pub fn push(&mut self, key: impl Into<String>, value: impl Into<serde_json::Value>) {
        self.0.push((key.into(), value.into()));
    }
}

impl Serialize for OrderedObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// A tiny deterministic PRNG (SplitMix64): stable across platforms and crate versions,
/// which is what a reproducible synthetic data set needs.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next_u64() % items.len() as u64) as usize]
    }

    /// `n` random decimal digits.
    pub fn digits(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b'0' + (self.next_u64() % 10) as u8))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luhn_known_numbers() {
        for ok in [
            "5560021361",
            "5567223705",
            "9124001992",
            "7164099017",
            "7020008350",
            "198101032384",
            "193403223328",
            "198101052382",
            "5561890038",
        ] {
            assert!(luhn_valid(ok), "{ok}");
        }
        assert!(!luhn_valid("5560021362"));
        assert!(!luhn_valid("556002136"));
        assert!(!luhn_valid("55600213a1"));
        assert_eq!(luhn_check_digit("556002136"), '1');
    }

    #[test]
    fn lt_check_digits() {
        assert!(lt_code_valid("110443493"));
        assert!(!lt_code_valid("110443494"));
    }

    #[test]
    fn seeded_uuid_is_stable_and_v4_shaped() {
        // The first 16 bytes of SHA-256("x") with the version and variant bits set
        // (computed apart from this code).
        assert_eq!(uuid_from_seed("x"), "2d711642-b726-4044-8162-7ca9fbac32f5");
        let other = uuid_from_seed("y");
        assert_ne!(other, uuid_from_seed("x"));
        assert_eq!(other.len(), 36);
        assert_eq!(&other[14..15], "4");
        assert!(matches!(&other[19..20], "8" | "9" | "a" | "b"), "{other}");
    }
}
