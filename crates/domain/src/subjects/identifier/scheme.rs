//! What an identifier scheme is, and which ones this process knows.
//!
//! A scheme is a country's way of numbering persons or companies (`personnummer`, `orgnr`,
//! `imones-kodas`, ...): its wire name, its country, whether it names a person or a company,
//! its check rules and canonical form, the pattern the interface documents for it, and how its
//! numbers are written inside free text (the shapes [`super::shape`] looks for). The domain
//! knows schemes only through [`IdentifierScheme`]; the rules themselves live with the
//! country.
//!
//! The known schemes are a process-wide list, filled once at start from every country's list
//! ([`install`]) and read everywhere a wire name, a prefix or a free text is judged. The order
//! of installation is the order the interface documents them in.

use super::{IdentifierError, SubjectKind};
use crate::countries::country::Country;
use chrono::NaiveDate;
use std::sync::RwLock;

/// A country's numbering of persons or of companies.
///
/// Implementations are pure functions of their input (and of `today`, which the caller reads
/// from its clock). Their errors never repeat the value.
pub trait IdentifierScheme: Send + Sync + 'static {
    /// The wire name of the type: `personnummer`, `imones-kodas`, ...
    fn name(&self) -> &'static str;

    /// The country whose scheme this is.
    fn country(&self) -> Country;

    /// Whether its numbers name persons or companies.
    fn kind(&self) -> SubjectKind;

    /// The canonical form of `value` (no prefix, not empty), read as of `today`: the date
    /// that picks the century of a short form and bounds birth dates. A canonical value given
    /// back with `today` = [`NaiveDate::MAX`] must come back unchanged.
    fn canonical(&self, value: &str, today: NaiveDate) -> Result<String, IdentifierError>;

    /// The pattern of a value as written after the prefix, without anchors (a regular
    /// expression in the subset JSON Schema's `pattern` and every common engine read). It
    /// describes the shape; the check digit and the calendar are [`Self::canonical`]'s.
    fn value_pattern(&self) -> &'static str;

    /// How the scheme's numbers look in free text, if they are personal numbers a text must
    /// never carry. Company schemes have none.
    fn written_shapes(&self) -> &'static [WrittenShape] {
        &[]
    }

    /// What the interface document says the scheme's `format` means: one or two sentences
    /// naming the country, the shape and the check rules.
    fn format_description(&self) -> &'static str;

    /// For a company scheme, the clause the `company-code` format gives it ("a Swedish
    /// organisation number passes the Luhn check (mod 10)").
    fn check_summary(&self) -> &'static str {
        ""
    }
}

/// One way a personal number is written in free text: a run of `digits` digit values that
/// `shaped` accepts by the scheme's own rules before the check digit, the calendar and today
/// are asked (a wider net than the parser, never a narrower one).
#[derive(Copy, Clone)]
pub struct WrittenShape {
    /// How many digits the form has.
    pub digits: usize,
    /// Whether digit values (0 to 9, `digits` of them) are written as the scheme could write
    /// them.
    pub shaped: fn(&[u8]) -> bool,
    /// Where the parser wants a separator (`-`, or `+` when a plus sign stood there), as the
    /// number of digits before it, if the form has one.
    pub separator_after: Option<usize>,
}

/// A scheme the service can name and compare: a copyable handle on a country's
/// [`IdentifierScheme`]. Two handles are equal when their wire names are.
#[derive(Copy, Clone)]
pub struct IdentifierType(&'static dyn IdentifierScheme);

impl IdentifierType {
    /// The handle of a scheme, for the country that provides it.
    pub const fn of(scheme: &'static dyn IdentifierScheme) -> IdentifierType {
        IdentifierType(scheme)
    }

    /// Wire spelling: `personnummer`, `imones-kodas`, ...
    pub fn as_str(self) -> &'static str {
        self.0.name()
    }

    /// The known scheme of this wire name.
    pub fn parse(s: &str) -> Option<IdentifierType> {
        known().iter().copied().find(|t| t.as_str() == s)
    }

    /// The country whose scheme this is.
    pub fn country(self) -> Country {
        self.0.country()
    }

    /// Whether the identifier names a person or a company.
    pub fn subject_kind(self) -> SubjectKind {
        self.0.kind()
    }

    /// The company-code scheme of a country (what a company route reads), if it has one.
    pub fn company_scheme(country: Country) -> Option<IdentifierType> {
        known()
            .iter()
            .copied()
            .find(|t| t.country() == country && t.subject_kind() == SubjectKind::Company)
    }

    /// The pattern of the wire form, prefix included (unprefixed is allowed for the default
    /// country only), anchored.
    pub fn pattern(self) -> String {
        format!(
            "^{}{}$",
            prefix_pattern(self.country()),
            self.0.value_pattern()
        )
    }

    /// What the interface document says the scheme's `format` means.
    pub fn format_description(self) -> &'static str {
        self.0.format_description()
    }

    /// How the scheme's numbers are written in free text (none for company schemes).
    pub fn written_shapes(self) -> &'static [WrittenShape] {
        self.0.written_shapes()
    }

    pub(super) fn canonical(
        self,
        value: &str,
        today: NaiveDate,
    ) -> Result<String, IdentifierError> {
        self.0.canonical(value, today)
    }
}

/// The prefix part of a wire pattern: optional for the country an unprefixed value belongs
/// to, required for the others.
fn prefix_pattern(country: Country) -> String {
    if country == Country::DEFAULT {
        format!("(?:{}:)?", country.prefix())
    } else {
        format!("{}:", country.prefix())
    }
}

impl PartialEq for IdentifierType {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for IdentifierType {}

impl std::hash::Hash for IdentifierType {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl std::fmt::Debug for IdentifierType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Display for IdentifierType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The schemes this process knows, in the order they were installed, and their countries. A
/// new list replaces the old one whole (installing happens a few times at start, reading on
/// every request).
static KNOWN: RwLock<Known> = RwLock::new(Known {
    schemes: &[],
    countries: &[],
});

#[derive(Copy, Clone)]
struct Known {
    schemes: &'static [IdentifierType],
    countries: &'static [Country],
}

fn read() -> Known {
    *KNOWN.read().unwrap_or_else(|e| e.into_inner())
}

/// Adds schemes to the known ones (a scheme already known is skipped, so installing one list
/// twice is harmless). Two schemes sharing a wire name, or a country's second company scheme,
/// are a programming error and panic at start.
pub fn install(schemes: &[IdentifierType]) {
    let mut known = KNOWN.write().unwrap_or_else(|e| e.into_inner());
    let mut list: Vec<IdentifierType> = known.schemes.to_vec();
    for &scheme in schemes {
        if let Some(same) = list.iter().find(|k| k.as_str() == scheme.as_str()) {
            assert!(
                same.country() == scheme.country() && same.subject_kind() == scheme.subject_kind(),
                "two identifier schemes are named `{}`",
                scheme.as_str()
            );
            continue;
        }
        assert!(
            scheme.subject_kind() == SubjectKind::Person
                || !list
                    .iter()
                    .any(|k| k.country() == scheme.country()
                        && k.subject_kind() == SubjectKind::Company),
            "{} has a second company scheme `{}`",
            scheme.country(),
            scheme.as_str()
        );
        list.push(scheme);
    }
    if list.len() != known.schemes.len() {
        let mut countries: Vec<Country> = Vec::new();
        for scheme in &list {
            if !countries.contains(&scheme.country()) {
                countries.push(scheme.country());
            }
        }
        *known = Known {
            schemes: Vec::leak(list),
            countries: Vec::leak(countries),
        };
    }
}

fn known_list() -> Known {
    // The domain's own unit tests cannot install the country crates' schemes (those depend
    // on this crate), so they read stand-ins with the same names.
    #[cfg(test)]
    if read().schemes.is_empty() {
        install(&crate::fixtures::schemes::ALL);
    }
    let known = read();
    assert!(
        !known.schemes.is_empty(),
        "no identifier schemes are installed: the binary installs its countries' schemes at \
         start, and a test installs those it reads (for example adapters_se::identifiers::install)"
    );
    known
}

/// Every known scheme, in installation order.
pub fn known() -> &'static [IdentifierType] {
    known_list().schemes
}

/// The countries of the known schemes, in installation order: the countries an identifier
/// prefix may name.
pub fn known_countries() -> &'static [Country] {
    known_list().countries
}

/// What the `company-code` format means: every known company scheme's check, in turn.
pub fn company_code_description() -> String {
    let clauses: Vec<&str> = known()
        .iter()
        .filter(|t| t.subject_kind() == SubjectKind::Company && !t.0.check_summary().is_empty())
        .map(|t| t.0.check_summary())
        .collect();
    format!(
        "A company code in wire form whose check digit is right: {}.",
        clauses.join("; ")
    )
}

/// The pattern of a company code (a company route's path, a check's identifier): every
/// known company scheme's wire pattern, one alternative each.
pub fn company_code_pattern() -> String {
    let alternatives: Vec<String> = known()
        .iter()
        .filter(|t| t.subject_kind() == SubjectKind::Company)
        .map(|t| format!("{}{}", prefix_pattern(t.country()), t.0.value_pattern()))
        .collect();
    format!("^(?:{})$", alternatives.join("|"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::schemes::{IMONES, LT, ORG, PNR};

    #[test]
    fn the_known_schemes_are_found_by_name_country_and_kind() {
        assert_eq!(IdentifierType::parse("personnummer"), Some(PNR));
        assert_eq!(IdentifierType::parse("Personnummer"), None);
        assert_eq!(IdentifierType::company_scheme(Country::Se), Some(ORG));
        assert_eq!(IdentifierType::company_scheme(LT), Some(IMONES));
        let norway = Country::declare("NO", "no");
        assert_eq!(IdentifierType::company_scheme(norway), None);
        assert_eq!(known_countries(), &[Country::Se, LT]);
    }

    #[test]
    fn installing_a_known_list_again_changes_nothing() {
        let before = known().len();
        install(&crate::fixtures::schemes::ALL);
        assert_eq!(known().len(), before);
    }

    #[test]
    #[should_panic(expected = "two identifier schemes are named `orgnr`")]
    fn a_second_scheme_by_a_known_name_is_refused() {
        // The stand-in personnummer's rules under the name `orgnr`: another kind.
        struct Impostor;
        impl IdentifierScheme for Impostor {
            fn name(&self) -> &'static str {
                "orgnr"
            }
            fn country(&self) -> Country {
                Country::Se
            }
            fn kind(&self) -> SubjectKind {
                SubjectKind::Person
            }
            fn canonical(&self, value: &str, _: NaiveDate) -> Result<String, IdentifierError> {
                Ok(value.to_owned())
            }
            fn value_pattern(&self) -> &'static str {
                "[0-9]+"
            }
            fn format_description(&self) -> &'static str {
                "An impostor."
            }
        }
        let _ = known();
        install(&[IdentifierType::of(&Impostor)]);
    }

    #[test]
    fn patterns_take_the_prefix_the_country_needs() {
        // The default country's prefix may be left out; another's may not.
        assert_eq!(PNR.pattern(), "^(?:se:)?[0-9-+]+$");
        assert_eq!(IMONES.pattern(), "^lt:[0-9-+]+$");
        assert_eq!(company_code_pattern(), "^(?:(?:se:)?[0-9-+]+|lt:[0-9-+]+)$");
    }
}
