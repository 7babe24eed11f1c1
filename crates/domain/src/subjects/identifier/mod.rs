//! Registry identifiers: the wire form `[<cc>:]<value>`, the identifier types (each a
//! country's [`IdentifierScheme`], see [`scheme`]), and one canonical form per identifier.
//!
//! A parsed [`Identifier`] can only exist validated. Its value is a personal number for
//! persons, so the type has no `Serialize` and its `Debug` hides the value: the only way to
//! read the number is [`Identifier::expose_canonical`], which stands out in review.
//!
//! # Wire form
//!
//! `[<cc>:]<value>`. The prefix `<cc>` is a known country's lower-case code (`se`, `lt`, ...),
//! lower case exactly; no prefix means `se:` ([`Country::DEFAULT`]). Whitespace around the
//! whole wire string is ignored (trimmed); whitespace anywhere inside it is not (`se: 556...`
//! and `556002 1361` are refused). An unknown or upper-case prefix is
//! [`IdentifierError::UnknownPrefix`]; a prefix of another country than the type's is
//! [`IdentifierError::TypeCountryMismatch`]; an empty value is [`IdentifierError::Malformed`].
//! Everything after the prefix is the scheme's to judge: its shapes, check digits and
//! calendar, and its canonical form, live in the country's crate.
//!
//! The century of a ten-digit personal number depends on the date it is read:
//! [`Identifier::parse`] reads it as of the `today` its caller passes.

pub mod digits;
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
        let asked = Identifier::restore(crate::fixtures::schemes::PNR, "195704133106").unwrap();
        assert!(EchoedNumber::new("195704133106").is(&asked));
        assert!(!EchoedNumber::new("5704133106").is(&asked));
        assert!(!EchoedNumber::new("195704133107").is(&asked));
        let shown = format!("{:?}", EchoedNumber::new("195704133106"));
        assert!(!shown.contains("5704133106"), "{shown}");
    }
}
