//! Which countries the service knows: those whose identifier schemes are installed
//! ([`crate::subjects::identifier::scheme`]), in the order they were installed. A country is
//! read from a code or a prefix only if it is known, and countries sort as installed (Sweden
//! first), then unknown ones by code, so every rendering of a set is stable.

use crate::countries::country::Country;
use crate::subjects::identifier::scheme::known_countries;
use std::cmp::Ordering;

impl Country {
    /// A known country by its upper-case code (`SE`). Operators may type lower case; both
    /// are accepted.
    pub fn from_code(code: &str) -> Option<Country> {
        known_countries()
            .iter()
            .copied()
            .find(|c| c.code().eq_ignore_ascii_case(code.trim()))
    }

    /// A known country by its identifier prefix, which must be lower case exactly.
    pub fn from_prefix(prefix: &str) -> Option<Country> {
        known_countries()
            .iter()
            .copied()
            .find(|c| c.prefix() == prefix)
    }

    /// Every known country, Sweden first.
    pub fn known() -> &'static [Country] {
        known_countries()
    }

    /// Where the country stands among the known ones (unknown ones after them).
    fn rank(self) -> usize {
        known_countries()
            .iter()
            .position(|c| *c == self)
            .unwrap_or(usize::MAX)
    }
}

impl Ord for Country {
    fn cmp(&self, other: &Self) -> Ordering {
        if self == other {
            return Ordering::Equal;
        }
        self.rank()
            .cmp(&other.rank())
            .then_with(|| self.code().cmp(other.code()))
    }
}

impl PartialOrd for Country {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
