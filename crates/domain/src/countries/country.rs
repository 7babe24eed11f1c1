//! Countries, and sets of them.
//!
//! A country is a checked two-letter code that a country's crate declares
//! ([`Country::declare`]); the countries the service knows, and how countries sort, are
//! [`super::known`]'s. Storage keeps the
//! code as text, so a new country is never a schema change.

use std::collections::BTreeSet;
use std::fmt;

/// A country: its wire spelling is the upper-case ISO 3166-1 alpha-2 code (`SE`), its
/// identifier prefix the lower-case one (`se:`).
///
/// Countries order as the known ones were installed (Sweden first), then unknown ones by
/// code, so every rendering of a set is stable.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Country {
    code: &'static str,
    prefix: &'static str,
}

#[allow(non_upper_case_globals)]
impl Country {
    /// Sweden, the country of an unprefixed identifier.
    pub const Se: Country = Country::declare("SE", "se");

    /// The country of an identifier written without a prefix (the specification's rule:
    /// no prefix means `se:`).
    pub const DEFAULT: Country = Country::Se;

    /// A country by its upper-case code and its lower-case prefix, for the crate that
    /// serves it. Anything but two ASCII letters, upper case and the same in lower case, does
    /// not compile (in a `const`) or panics.
    pub const fn declare(code: &'static str, prefix: &'static str) -> Country {
        let (c, p) = (code.as_bytes(), prefix.as_bytes());
        assert!(
            c.len() == 2 && p.len() == 2,
            "a country code has two letters"
        );
        assert!(
            c[0].is_ascii_uppercase() && c[1].is_ascii_uppercase(),
            "a country code is upper case"
        );
        assert!(
            p[0] == c[0].to_ascii_lowercase() && p[1] == c[1].to_ascii_lowercase(),
            "a country prefix is its code in lower case"
        );
        Country { code, prefix }
    }

    /// Upper-case code as it appears in responses and grants: `SE`.
    pub fn code(self) -> &'static str {
        self.code
    }

    /// Lower-case identifier prefix: `se`.
    pub fn prefix(self) -> &'static str {
        self.prefix
    }
}

impl fmt::Debug for Country {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code)
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

#[cfg(test)]
mod declare_tests {
    use super::*;
    use crate::fixtures::schemes::LT;

    #[test]
    fn countries_sort_as_installed_then_by_code() {
        let norway = Country::declare("NO", "no");
        let finland = Country::declare("FI", "fi");
        let mut list = vec![norway, LT, finland, Country::Se];
        list.sort();
        assert_eq!(list, vec![Country::Se, LT, finland, norway]);
        // Only an installed country is read from a code or a prefix.
        assert_eq!(Country::from_code("lt"), Some(LT));
        assert_eq!(Country::from_code("NO"), None);
        assert_eq!(Country::from_prefix("no"), None);
    }

    #[test]
    #[should_panic(expected = "upper case")]
    fn a_lower_case_code_is_refused() {
        let _ = Country::declare("se", "se");
    }

    #[test]
    #[should_panic(expected = "its code in lower case")]
    fn a_prefix_other_than_the_code_is_refused() {
        let _ = Country::declare("SE", "sv");
    }

    #[test]
    #[should_panic(expected = "two letters")]
    fn a_code_of_three_letters_is_refused() {
        let _ = Country::declare("SWE", "swe");
    }
}
