//! Countries the service knows, and sets of them.
//!
//! A country is data plus connectors: adding one adds a variant here and an adapter crate,
//! never a schema change (storage keeps the two-letter code as text).

use std::collections::BTreeSet;
use std::fmt;

/// A country the service knows. Its wire spelling is the upper-case ISO code (`SE`), its
/// identifier prefix the lower-case one (`se:`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Country {
    Se,
    Lt,
}

impl Country {
    pub const ALL: [Country; 2] = [Country::Se, Country::Lt];

    /// The country of an identifier written without a prefix (the specification's rule:
    /// no prefix means `se:`).
    pub const DEFAULT: Country = Country::Se;

    /// Upper-case code as it appears in responses and grants: `SE`.
    pub fn code(self) -> &'static str {
        match self {
            Country::Se => "SE",
            Country::Lt => "LT",
        }
    }

    /// Lower-case identifier prefix: `se`.
    pub fn prefix(self) -> &'static str {
        match self {
            Country::Se => "se",
            Country::Lt => "lt",
        }
    }

    /// Parses an upper-case code (`SE`). Operators may type lower case; both are accepted.
    pub fn from_code(code: &str) -> Option<Country> {
        Country::ALL
            .into_iter()
            .find(|c| c.code().eq_ignore_ascii_case(code.trim()))
    }

    /// Parses an identifier prefix, which must be lower case exactly.
    pub fn from_prefix(prefix: &str) -> Option<Country> {
        Country::ALL.into_iter().find(|c| c.prefix() == prefix)
    }
}

impl fmt::Display for Country {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// An ordered set of countries (ordered so that every rendering of it is stable).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CountrySet(BTreeSet<Country>);

impl CountrySet {
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses a comma- or space-separated list such as `SE,LT`. An unknown code is an error
    /// naming it; an empty list gives an empty set (callers decide whether that is allowed).
    pub fn parse_list(list: &str) -> Result<CountrySet, String> {
        let mut set = CountrySet::new();
        for part in list
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|p| !p.is_empty())
        {
            let country =
                Country::from_code(part).ok_or_else(|| format!("unknown country code `{part}`"))?;
            set.insert(country);
        }
        Ok(set)
    }

    pub fn insert(&mut self, c: Country) -> bool {
        self.0.insert(c)
    }
    pub fn contains(&self, c: Country) -> bool {
        self.0.contains(&c)
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn iter(&self) -> impl Iterator<Item = Country> + '_ {
        self.0.iter().copied()
    }
    pub fn is_subset(&self, other: &CountrySet) -> bool {
        self.0.is_subset(&other.0)
    }
    pub fn intersection(&self, other: &CountrySet) -> CountrySet {
        CountrySet(self.0.intersection(&other.0).copied().collect())
    }
    pub fn difference(&self, other: &CountrySet) -> CountrySet {
        CountrySet(self.0.difference(&other.0).copied().collect())
    }
    /// Codes in order: `["LT", "SE"]`.
    pub fn codes(&self) -> Vec<&'static str> {
        self.iter().map(Country::code).collect()
    }
}

impl FromIterator<Country> for CountrySet {
    fn from_iter<I: IntoIterator<Item = Country>>(iter: I) -> Self {
        CountrySet(iter.into_iter().collect())
    }
}

impl fmt::Display for CountrySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.codes().join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_lower_case_only() {
        assert_eq!(Country::from_prefix("se"), Some(Country::Se));
        assert_eq!(Country::from_prefix("SE"), None);
        assert_eq!(Country::from_prefix("xx"), None);
    }

    #[test]
    fn lists_parse_and_render_in_order() {
        let set = CountrySet::parse_list("LT, se").unwrap();
        assert_eq!(set.to_string(), "SE,LT");
        assert!(CountrySet::parse_list("SE,XX").is_err());
    }
}
