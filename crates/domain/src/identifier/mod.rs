//! Registry identifiers: the wire form `[<cc>:]<value>`, the five identifier types and their
//! check rules, and one canonical form per identifier.
//!
//! A parsed [`Identifier`] can only exist validated. Its value is a personal number for
//! persons, so the type has no `Serialize` and its `Debug` hides the value: the only way to
//! read the number is [`Identifier::expose_canonical`], which stands out in review.
//!
//! INTERFACE NOTE (being completed): the check rules of each type live in submodules.

use crate::country::Country;
use crate::subject::SubjectKind;
use std::fmt;

/// The identifier types of the spec.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IdentifierType {
    Personnummer,
    Samordningsnummer,
    Orgnr,
    ImonesKodas,
    AsmensKodas,
}

impl IdentifierType {
    pub const ALL: [IdentifierType; 5] = [
        IdentifierType::Personnummer,
        IdentifierType::Samordningsnummer,
        IdentifierType::Orgnr,
        IdentifierType::ImonesKodas,
        IdentifierType::AsmensKodas,
    ];

    /// Wire spelling: `personnummer`, `imones-kodas`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            IdentifierType::Personnummer => "personnummer",
            IdentifierType::Samordningsnummer => "samordningsnummer",
            IdentifierType::Orgnr => "orgnr",
            IdentifierType::ImonesKodas => "imones-kodas",
            IdentifierType::AsmensKodas => "asmens-kodas",
        }
    }

    pub fn parse(s: &str) -> Option<IdentifierType> {
        IdentifierType::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// The country whose scheme this is.
    pub fn country(self) -> Country {
        match self {
            IdentifierType::Personnummer
            | IdentifierType::Samordningsnummer
            | IdentifierType::Orgnr => Country::Se,
            IdentifierType::ImonesKodas | IdentifierType::AsmensKodas => Country::Lt,
        }
    }

    /// Whether the identifier names a person or a company.
    pub fn subject_kind(self) -> SubjectKind {
        match self {
            IdentifierType::Personnummer
            | IdentifierType::Samordningsnummer
            | IdentifierType::AsmensKodas => SubjectKind::Person,
            IdentifierType::Orgnr | IdentifierType::ImonesKodas => SubjectKind::Company,
        }
    }

    /// The company-code scheme of a country (what a company route reads).
    pub fn company_scheme(country: Country) -> IdentifierType {
        match country {
            Country::Se => IdentifierType::Orgnr,
            Country::Lt => IdentifierType::ImonesKodas,
        }
    }
}

impl fmt::Display for IdentifierType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
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
    #[error("the {0} does not contain a real calendar date")]
    Date(IdentifierType),
}

/// A validated identifier in its one canonical form.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Identifier {
    ty: IdentifierType,
    canonical: String,
}

impl Identifier {
    /// Parses a wire-form identifier of a given type: `[<cc>:]<value>`, unprefixed means `se:`.
    pub fn parse(ty: IdentifierType, wire: &str) -> Result<Identifier, IdentifierError> {
        let (country, value) = split_prefix(wire)?;
        if country != ty.country() {
            return Err(IdentifierError::TypeCountryMismatch {
                ty,
                prefix: country.prefix(),
            });
        }
        let canonical = match ty {
            _ => {
                if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(IdentifierError::Malformed(ty));
                }
                value.to_owned()
            }
        };
        Ok(Identifier { ty, canonical })
    }

    /// Parses the identifier of a company route: the prefix picks the country and the
    /// country's company-code scheme (`orgnr` for `se:`, `imones-kodas` for `lt:`).
    pub fn parse_company(wire: &str) -> Result<Identifier, IdentifierError> {
        let (country, _) = split_prefix(wire)?;
        Identifier::parse(IdentifierType::company_scheme(country), wire)
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

/// Splits the optional country prefix. No prefix means Sweden.
pub fn split_prefix(wire: &str) -> Result<(Country, &str), IdentifierError> {
    match wire.split_once(':') {
        None => Ok((Country::Se, wire)),
        Some((prefix, value)) => Country::from_prefix(prefix)
            .map(|c| (c, value))
            .ok_or(IdentifierError::UnknownPrefix),
    }
}
