//! Registry identifiers: the wire form `[<cc>:]<value>`, the five identifier types and their
//! check rules, and one canonical form per identifier.
//!
//! A parsed [`Identifier`] can only exist validated. Its value is a personal number for
//! persons, so the type has no `Serialize` and its `Debug` hides the value: the only way to
//! read the number is [`Identifier::expose_canonical`], which stands out in review.
//!
//! # Wire form
//!
//! `[<cc>:]<value>`. The prefix `<cc>` is `se` or `lt`, lower case exactly; no prefix means
//! `se:`. Whitespace around the whole wire string is ignored (trimmed); whitespace anywhere
//! inside it is not (`se: 556...` and `556002 1361` are refused). An unknown or upper-case
//! prefix is [`IdentifierError::UnknownPrefix`]; a prefix of another country than the type's
//! is [`IdentifierError::TypeCountryMismatch`]; an empty value is
//! [`IdentifierError::Malformed`].
//!
//! # Types and canonical forms
//!
//! | type | accepted | canonical | rules |
//! |---|---|---|---|
//! | `personnummer` | `YYMMDD[-+]NNNC`, `YYMMDDNNNC`, `YYYYMMDD[-+]NNNC`, `YYYYMMDDNNNC` | `YYYYMMDDNNNC` | see [`personnummer`] |
//! | `samordningsnummer` | as `personnummer`, day + 60 | `YYYYMMDDNNNC` | see [`personnummer`] |
//! | `orgnr` | `NNNNNN[-]NNNN`, `16NNNNNN[-]NNNN` | `NNNNNNNNNN` | see [`orgnr`] |
//! | `imones-kodas` | 9 digits | the same | see [`lithuania`] |
//! | `asmens-kodas` | 11 digits | the same | see [`lithuania`] |
//!
//! The century of a ten-digit personal number depends on the date it is read:
//! [`Identifier::parse`] reads it today (UTC), [`Identifier::parse_at`] on a given date.

pub mod digits;
pub mod lithuania;
mod luhn;
pub mod orgnr;
pub mod personnummer;
pub mod scheme;
pub mod shape;

use crate::countries::country::Country;
use chrono::NaiveDate;
use std::fmt;

pub use scheme::{company_code_pattern, IdentifierScheme, IdentifierType, WrittenShape};

/// What an identifier designates: a natural person or a company.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SubjectKind {
    Person,
    Company,
}

impl SubjectKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SubjectKind::Person => "person",
            SubjectKind::Company => "company",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "person" => Some(SubjectKind::Person),
            "company" => Some(SubjectKind::Company),
            _ => None,
        }
    }
}

/// The identifier types of the spec.
#[allow(non_upper_case_globals)]
impl IdentifierType {
    pub const Personnummer: IdentifierType = IdentifierType::of(&personnummer::PERSONNUMMER);
    pub const Samordningsnummer: IdentifierType =
        IdentifierType::of(&personnummer::SAMORDNINGSNUMMER);
    pub const Orgnr: IdentifierType = IdentifierType::of(&orgnr::Orgnr);
    pub const ImonesKodas: IdentifierType = IdentifierType::of(&lithuania::ImonesKodas);
    pub const AsmensKodas: IdentifierType = IdentifierType::of(&lithuania::AsmensKodas);
}

/// The schemes known when none were installed.
pub(crate) const BUILTIN: [IdentifierType; 5] = [
    IdentifierType::Personnummer,
    IdentifierType::Samordningsnummer,
    IdentifierType::Orgnr,
    IdentifierType::ImonesKodas,
    IdentifierType::AsmensKodas,
];

/// Why an identifier was refused. Messages never repeat the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdentifierError {
    #[error(
        "unknown country prefix (prefixes are lower-case two-letter codes such as `se:` or `lt:`)"
    )]
    UnknownPrefix,
    #[error("the identifier type `{ty}` does not belong to the country of the prefix `{prefix}:`")]
    TypeCountryMismatch {
        ty: IdentifierType,
        prefix: &'static str,
    },
    #[error("not a well-formed {0}")]
    Malformed(IdentifierType),
    #[error("the check digit of the {0} is wrong")]
    CheckDigit(IdentifierType),
    #[error("the {0} does not contain a real calendar date, or the date is in the future")]
    Date(IdentifierType),
    /// The value has the shape of another identifier type (a samordningsnummer day given as
    /// a personnummer and the reverse; a personal-number "month" in an orgnr).
    #[error("the value is shaped like a {shape}, not like a {ty}")]
    WrongKind {
        ty: IdentifierType,
        shape: IdentifierType,
    },
    /// A rule of the scheme's own that the value breaks (an orgnr's group number 0 or 4, not
    /// in use): `reason` is its stable machine-readable name, `rule` the sentence saying it.
    #[error("{rule}")]
    Rule {
        reason: &'static str,
        rule: &'static str,
    },
}

impl IdentifierError {
    /// A stable machine-readable reason: `unknown-prefix`, `type-country-mismatch`,
    /// `malformed`, `check-digit`, `date`, `wrong-kind`, or a scheme's own rule's (an orgnr's
    /// `orgnr-group`).
    pub fn reason(&self) -> &'static str {
        match self {
            IdentifierError::UnknownPrefix => "unknown-prefix",
            IdentifierError::TypeCountryMismatch { .. } => "type-country-mismatch",
            IdentifierError::Malformed(_) => "malformed",
            IdentifierError::CheckDigit(_) => "check-digit",
            IdentifierError::Date(_) => "date",
            IdentifierError::WrongKind { .. } => "wrong-kind",
            IdentifierError::Rule { reason, .. } => reason,
        }
    }
}

/// A validated identifier in its one canonical form.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Identifier {
    ty: IdentifierType,
    canonical: String,
}

impl Identifier {
    /// Parses a wire-form identifier of a given type (`[<cc>:]<value>`, unprefixed means
    /// `se:`) as of the date `today`, which picks the century of a ten-digit personnummer or
    /// samordningsnummer and bounds birth dates (none may be after `today`). The caller reads
    /// `today` from its clock: the rules never read the wall clock themselves.
    pub fn parse(
        ty: IdentifierType,
        wire: &str,
        today: NaiveDate,
    ) -> Result<Identifier, IdentifierError> {
        let (country, value) = split_prefix(wire)?;
        if country != ty.country() {
            return Err(IdentifierError::TypeCountryMismatch {
                ty,
                prefix: country.prefix(),
            });
        }
        Ok(Identifier {
            ty,
            canonical: canonical_value(ty, value, today)?,
        })
    }

    /// Parses the identifier of a company route: the prefix picks the country and the
    /// country's company-code scheme (`orgnr` for `se:`, `imones-kodas` for `lt:`). Company
    /// codes carry no date, so no `today` is needed.
    pub fn parse_company(wire: &str) -> Result<Identifier, IdentifierError> {
        let (country, value) = split_prefix(wire)?;
        let ty = IdentifierType::company_scheme(country).ok_or(IdentifierError::UnknownPrefix)?;
        if value.is_empty() {
            return Err(IdentifierError::Malformed(ty));
        }
        let canonical = ty.canonical(value, NaiveDate::MAX)?;
        Ok(Identifier { ty, canonical })
    }

    /// An identifier this service validated and stored before, read back in its canonical
    /// form (the vault's plaintext). Its check digits are verified again; no date applies,
    /// as a canonical value holds its full birth year and was within bounds when stored. A
    /// value that is not in canonical form is refused.
    pub fn restore(ty: IdentifierType, canonical: &str) -> Result<Identifier, IdentifierError> {
        let value = canonical_value(ty, canonical, NaiveDate::MAX)?;
        if value == canonical {
            Ok(Identifier {
                ty,
                canonical: value,
            })
        } else {
            Err(IdentifierError::Malformed(ty))
        }
    }

    pub fn id_type(&self) -> IdentifierType {
        self.ty
    }

    pub fn country(&self) -> Country {
        self.ty.country()
    }

    /// The canonical value (digits only). For persons this is a personal number: use it only
    /// to encrypt, to compute a blind index, or to call an upstream.
    pub fn expose_canonical(&self) -> &str {
        &self.canonical
    }

    /// The wire form of a company code (`se:5560021361`), for handing a stored company to
    /// the use cases that take one; a raw value like every `expose_*`, never for an answer.
    pub fn company_wire(&self) -> String {
        format!("{}:{}", self.country().prefix(), self.canonical)
    }

    /// Wire form with an explicit prefix: `se:5560021361`.
    pub fn expose_wire(&self) -> String {
        format!("{}:{}", self.country().prefix(), self.canonical)
    }
}

impl fmt::Debug for Identifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Identifier({}, <redacted>)", self.ty)
    }
}

/// The canonical form of an unprefixed value of type `ty`, read as of `today`.
fn canonical_value(
    ty: IdentifierType,
    value: &str,
    today: NaiveDate,
) -> Result<String, IdentifierError> {
    if value.is_empty() {
        return Err(IdentifierError::Malformed(ty));
    }
    ty.canonical(value, today)
}

/// Splits the optional country prefix after trimming whitespace around the whole wire
/// string. No prefix means Sweden. The prefix must be lower case exactly (`SE:` is
/// [`IdentifierError::UnknownPrefix`]); the value is returned as is (possibly empty).
pub fn split_prefix(wire: &str) -> Result<(Country, &str), IdentifierError> {
    let wire = wire.trim();
    match wire.split_once(':') {
        None => Ok((Country::DEFAULT, wire)),
        Some((prefix, value)) => Country::from_prefix(prefix)
            .map(|c| (c, value))
            .ok_or(IdentifierError::UnknownPrefix),
    }
}

/// The pattern of an identifier type's wire form: the shape (the format adds the check digit
/// and the calendar).
pub fn identifier_pattern(ty: IdentifierType) -> String {
    ty.pattern()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const PNR: IdentifierType = IdentifierType::Personnummer;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()
    }

    fn parse(ty: IdentifierType, wire: &str) -> Result<String, IdentifierError> {
        Identifier::parse(ty, wire, today()).map(|i| i.expose_canonical().to_owned())
    }

    #[test]
    fn type_names_round_trip() {
        for &ty in scheme::known() {
            assert_eq!(IdentifierType::parse(ty.as_str()), Some(ty));
            assert_eq!(ty.to_string(), ty.as_str());
        }
        assert_eq!(IdentifierType::parse("Personnummer"), None);
    }

    #[test]
    fn no_prefix_means_sweden() {
        assert_eq!(
            split_prefix("5560021361").unwrap(),
            (Country::Se, "5560021361")
        );
        assert_eq!(
            parse(IdentifierType::Orgnr, "5560021361"),
            parse(IdentifierType::Orgnr, "se:5560021361")
        );
    }

    #[test]
    fn uppercase_prefix_is_refused() {
        for wire in ["SE:5560021361", "Se:5560021361", "LT:110443493"] {
            assert_eq!(
                parse(IdentifierType::Orgnr, wire),
                Err(IdentifierError::UnknownPrefix),
                "{wire}"
            );
            assert_eq!(
                Identifier::parse_company(wire),
                Err(IdentifierError::UnknownPrefix)
            );
        }
    }

    #[test]
    fn unknown_prefix_is_refused() {
        for wire in [
            "no:5560021361",
            "fi:5560021361",
            ":5560021361",
            "sweden:5560021361",
            "se :5560021361",
        ] {
            assert_eq!(
                parse(IdentifierType::Orgnr, wire),
                Err(IdentifierError::UnknownPrefix),
                "{wire}"
            );
        }
    }

    #[test]
    fn type_of_another_country_is_refused() {
        assert_eq!(
            parse(PNR, "lt:198112199289"),
            Err(IdentifierError::TypeCountryMismatch {
                ty: PNR,
                prefix: "lt"
            })
        );
        assert_eq!(
            parse(IdentifierType::ImonesKodas, "se:110443493"),
            Err(IdentifierError::TypeCountryMismatch {
                ty: IdentifierType::ImonesKodas,
                prefix: "se"
            })
        );
    }

    #[test]
    fn empty_or_blank_values_are_malformed() {
        for &ty in scheme::known() {
            let prefix = ty.country().prefix();
            for wire in [
                format!("{prefix}:"),
                format!("  {prefix}:  "),
                format!("{prefix}:\t"),
            ] {
                assert_eq!(
                    parse(ty, &wire),
                    Err(IdentifierError::Malformed(ty)),
                    "{ty} {wire:?}"
                );
            }
        }
        for wire in ["", "   ", "\n"] {
            assert_eq!(parse(PNR, wire), Err(IdentifierError::Malformed(PNR)));
        }
    }

    #[test]
    fn outer_whitespace_is_trimmed_and_inner_whitespace_refused() {
        assert_eq!(
            parse(IdentifierType::Orgnr, " \tse:556002-1361\n").as_deref(),
            Ok("5560021361")
        );
        assert_eq!(
            parse(IdentifierType::Orgnr, "se: 5560021361"),
            Err(IdentifierError::Malformed(IdentifierType::Orgnr))
        );
        assert_eq!(
            parse(IdentifierType::Orgnr, "556002 1361"),
            Err(IdentifierError::Malformed(IdentifierType::Orgnr))
        );
    }

    #[test]
    fn a_second_prefix_is_malformed() {
        assert_eq!(
            parse(IdentifierType::Orgnr, "se:se:5560021361"),
            Err(IdentifierError::Malformed(IdentifierType::Orgnr))
        );
    }

    #[test]
    fn parse_company_picks_the_scheme_from_the_prefix() {
        let se = Identifier::parse_company("556002-1361").unwrap();
        assert_eq!(se.id_type(), IdentifierType::Orgnr);
        assert_eq!(se.country(), Country::Se);
        assert_eq!(se.expose_wire(), "se:5560021361");
        let lt = Identifier::parse_company("lt:110443493").unwrap();
        assert_eq!(lt.id_type(), IdentifierType::ImonesKodas);
        assert_eq!(lt.country(), Country::Lt);
        assert!(Identifier::parse_company("se:8112199289").is_err());
    }

    #[test]
    fn parse_reads_as_of_today() {
        // A twelve-digit number does not depend on the date it is read.
        let n = Identifier::parse(PNR, "19811219-9289", today()).unwrap();
        assert_eq!(n.expose_canonical(), "198112199289");
        assert_eq!(n.id_type(), PNR);
        assert_eq!(n.country(), Country::Se);
    }

    #[test]
    fn the_century_of_a_ten_digit_number_depends_on_the_reading_date() {
        let ten = "811219-9289";
        let in_2026 = Identifier::parse(PNR, ten, today()).unwrap();
        assert_eq!(in_2026.expose_canonical(), "198112199289");
        let in_2090 = NaiveDate::from_ymd_opt(2090, 1, 1).unwrap();
        let read_later = Identifier::parse(PNR, ten, in_2090).unwrap();
        assert_eq!(read_later.expose_canonical(), "208112199289");
    }

    #[test]
    fn a_stored_canonical_value_is_restored_without_a_date() {
        let n = Identifier::restore(PNR, "198112199289").unwrap();
        assert_eq!(n.expose_canonical(), "198112199289");
        let lt = Identifier::restore(IdentifierType::ImonesKodas, "110443493").unwrap();
        assert_eq!(lt.expose_wire(), "lt:110443493");
        // Only the canonical form: a ten-digit or separated form is not a stored value.
        assert!(Identifier::restore(PNR, "8112199289").is_err());
        assert!(Identifier::restore(PNR, "19811219-9289").is_err());
        // The check digit is verified again.
        assert!(Identifier::restore(PNR, "198112199288").is_err());
    }

    #[test]
    fn debug_hides_the_value() {
        let n = Identifier::parse(PNR, "198112199289", today()).unwrap();
        let debug = format!("{n:?}");
        assert!(!debug.contains("8112199289"), "{debug}");
        assert!(debug.contains("personnummer"));
    }

    #[test]
    fn error_messages_name_the_rule_not_the_value() {
        let cases = [
            (PNR, "lt:198112199289"),
            (PNR, "XX:198112199289"),
            (PNR, "198112199288"),
            (PNR, "198113189876"),
            (PNR, "198112799289"),
            (IdentifierType::Orgnr, "4560021361"),
            (IdentifierType::Orgnr, "abc"),
        ];
        for (ty, wire) in cases {
            let e = parse(ty, wire).unwrap_err();
            let message = e.to_string();
            let digits: String = wire.chars().filter(char::is_ascii_digit).collect();
            assert!(digits.is_empty() || !message.contains(&digits), "{message}");
            assert!(!message.contains(wire), "{message}");
            assert!(!e.reason().is_empty());
        }
    }

    /// Wire strings of every kind: anything at all, digit strings of identifier lengths
    /// with and without prefixes and separators, the same written with other scripts' digits,
    /// NUL and spaces mixed in, and valid numbers (Skatteverket's test numbers, real company
    /// codes) with one character changed or added.
    fn wire_inputs() -> impl Strategy<Value = String> {
        let valid = prop_oneof![
            Just("198112199289"),
            Just("811219-9289"),
            Just("19570413-3106"),
            Just("5560021361"),
            Just("556002-1361"),
            Just("lt:38703181745"),
            Just("lt:304656794"),
            Just("se:198111852383"),
        ];
        prop_oneof![
            "\\PC{0,20}",
            "(se:|lt:|SE:|)[0-9]{9,12}",
            "(se:|lt:|)[0-9]{6,8}[-+]?[0-9]{4}",
            "(se:|lt:| |)[0-9\\-+ \\x00\u{0660}-\u{0669}\u{FF10}-\u{FF19}\u{0966}-\u{096F}]{6,14}",
            (valid.clone(), any::<usize>(), "\\PC").prop_map(|(v, at, c)| {
                let mut chars: Vec<char> = v.chars().collect();
                let at = at % chars.len();
                chars[at] = c.chars().next().unwrap_or('0');
                chars.into_iter().collect()
            }),
            (
                valid,
                any::<usize>(),
                "[\\x00 \u{FF10}-\u{FF19}\u{0660}-\u{0669}]"
            )
                .prop_map(|(v, at, c)| {
                    let mut s = v.to_owned();
                    let at = (at % (s.len() + 1)).min(s.len());
                    let at = (0..=at).rev().find(|i| s.is_char_boundary(*i)).unwrap_or(0);
                    s.insert_str(at, &c);
                    s
                }),
            Just("198112199289".to_owned()),
        ]
    }

    /// What parses is written in ASCII digits with at most a `-` or `+` (after a prefix):
    /// never with a NUL, a space inside or another script's digits.
    fn written_in_ascii(wire: &str) -> bool {
        let value = wire.trim().split_once(':').map_or(wire.trim(), |(_, v)| v);
        value
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'-' || b == b'+')
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn any_input_is_refused_or_canonical(wire in wire_inputs(), which in 0usize..5) {
            // Whatever comes in, parsing does not panic, and what parses is stable.
            let ty = BUILTIN[which];
            match parse(ty, &wire) {
                Ok(canonical) => {
                    prop_assert!(written_in_ascii(&wire), "accepted {:?}", wire);
                    prop_assert!(!canonical.is_empty());
                    prop_assert!(canonical.bytes().all(|b| b.is_ascii_digit()));
                    let again = parse(ty, &format!("{}:{canonical}", ty.country().prefix()));
                    prop_assert_eq!(again.as_ref(), Ok(&canonical));
                }
                Err(e) => {
                    let digits: String = wire.chars().filter(char::is_ascii_digit).collect();
                    let message = e.to_string();
                    prop_assert!(digits.len() < 4 || !message.contains(&digits), "{}", message);
                }
            }
        }
    }

    /// The strategy above reaches both branches: a fair share of its inputs parse.
    #[test]
    fn the_any_input_strategy_reaches_accepted_values() {
        use proptest::strategy::ValueTree;
        use proptest::test_runner::TestRunner;
        let mut runner = TestRunner::deterministic();
        let strategy = wire_inputs();
        let (mut accepted, mut refused) = (0, 0);
        for _ in 0..4000 {
            let wire = strategy.new_tree(&mut runner).unwrap().current();
            let parses = scheme::known().iter().any(|ty| parse(*ty, &wire).is_ok());
            if parses {
                accepted += 1;
            } else {
                refused += 1;
            }
        }
        assert!(accepted >= 200, "{accepted} of 4000 inputs parse");
        assert!(refused >= 2000, "{refused} of 4000 inputs are refused");
    }
}

/// A number as an upstream echoed it in an answer (the person the answer is about): compared
/// with the number asked for and never shown. It is not validated (an upstream may echo
/// anything), so it is not an [`Identifier`]; like one, its `Debug` is redacted and it has no
/// `Display` or `Serialize`.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct EchoedNumber(String);

impl EchoedNumber {
    pub fn new(echoed: impl Into<String>) -> EchoedNumber {
        EchoedNumber(echoed.into())
    }

    /// Whether the upstream echoed exactly the canonical form of `asked`.
    pub fn is(&self, asked: &Identifier) -> bool {
        self.0 == asked.canonical
    }
}

impl fmt::Debug for EchoedNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("EchoedNumber(<redacted>)")
    }
}

#[cfg(test)]
mod echoed_tests {
    use super::*;

    #[test]
    fn an_echoed_number_matches_only_the_canonical_form_asked_and_never_shows() {
        let asked = Identifier::restore(IdentifierType::Personnummer, "195704133106").unwrap();
        assert!(EchoedNumber::new("195704133106").is(&asked));
        assert!(!EchoedNumber::new("5704133106").is(&asked));
        assert!(!EchoedNumber::new("195704133107").is(&asked));
        let shown = format!("{:?}", EchoedNumber::new("195704133106"));
        assert!(!shown.contains("5704133106"), "{shown}");
    }
}
