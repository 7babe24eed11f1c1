//! Norway as the service names it: the country `NO` and its one identifier scheme,
//! `organisasjonsnummer`, the number Enhetsregisteret gives every legal entity (a sole
//! proprietorship, ENK, included: its number names the business, not the person).
//!
//! In the wire form `no:<nine digits>`: the digits only, as every other scheme takes them
//! (the register's printed grouping `923 609 016` would put spaces inside an identifier, which
//! the wire form refuses everywhere), the last one the modulo-11 check digit ([`orgnr`]). No
//! prefix means Sweden, so a Norwegian number always carries `no:`. Norway's national
//! identity number (fødselsnummer) is not a scheme here: the open register never gives it,
//! and idreg serves no Norwegian person register.
//!
//! [`orgnr`]: crate::orgnr

use crate::orgnr::{self, OrgnrError};
use chrono::NaiveDate;
use domain::countries::country::Country;
use domain::subjects::identifier::{
    scheme, IdentifierError, IdentifierScheme, IdentifierType, SubjectKind,
};

/// Norway.
pub const NO: Country = Country::declare("NO", "no");

/// Norway's organisation numbers: `organisasjonsnummer`.
pub struct Organisasjonsnummer;

/// `organisasjonsnummer`.
pub const ORGANISASJONSNUMMER: IdentifierType = IdentifierType::of(&Organisasjonsnummer);

/// Norway's schemes, in the order the interface documents them.
pub const SCHEMES: [IdentifierType; 1] = [ORGANISASJONSNUMMER];

/// Makes Norway's scheme known to this process (harmless twice).
pub fn install() {
    scheme::install(&SCHEMES);
}

impl IdentifierScheme for Organisasjonsnummer {
    fn name(&self) -> &'static str {
        "organisasjonsnummer"
    }

    fn country(&self) -> Country {
        NO
    }

    fn kind(&self) -> SubjectKind {
        SubjectKind::Company
    }

    fn canonical(&self, value: &str, _today: NaiveDate) -> Result<String, IdentifierError> {
        // Digits only in the wire form; the register's grouping is for people reading it.
        if !value.bytes().all(|b| b.is_ascii_digit()) {
            return Err(IdentifierError::Malformed(ORGANISASJONSNUMMER));
        }
        orgnr::canonical(value).map_err(|e| match e {
            OrgnrError::CheckDigit => IdentifierError::CheckDigit(ORGANISASJONSNUMMER),
            OrgnrError::Empty | OrgnrError::NotDigits | OrgnrError::Shape => {
                IdentifierError::Malformed(ORGANISASJONSNUMMER)
            }
        })
    }

    fn value_pattern(&self) -> &'static str {
        "[0-9]{9}"
    }

    fn format_description(&self) -> &'static str {
        "A Norwegian organisation number in wire form (`no:` and 9 digits) whose last digit is the mod-11 check digit of the first eight (weights 3, 2, 7, 6, 5, 4, 3, 2)."
    }

    fn check_summary(&self) -> &'static str {
        "a Norwegian organisation number (`no:`, 9 digits) passes the mod-11 check"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::subjects::identifier::Identifier;
    use proptest::prelude::*;

    fn parse(wire: &str) -> Result<String, IdentifierError> {
        install();
        Identifier::parse_company(wire).map(|id| id.expose_canonical().to_owned())
    }

    #[test]
    fn a_prefixed_number_is_a_norwegian_company() {
        install();
        let id = Identifier::parse_company("no:923609016").unwrap();
        assert_eq!(id.id_type(), ORGANISASJONSNUMMER);
        assert_eq!(id.country(), NO);
        assert_eq!(id.expose_wire(), "no:923609016");
        assert_eq!(
            IdentifierType::parse("organisasjonsnummer"),
            Some(ORGANISASJONSNUMMER)
        );
        assert_eq!(
            IdentifierType::company_scheme(NO),
            Some(ORGANISASJONSNUMMER)
        );
        assert_eq!(Country::from_code("no"), Some(NO));
    }

    #[test]
    fn the_wire_form_is_nine_digits_and_nothing_else() {
        for wire in [
            "no:923 609 016",
            "no:NO923609016MVA",
            "no:92360901",
            "no:9236090160",
            "no:",
            "no:92360901６",
        ] {
            assert_eq!(
                parse(wire),
                Err(IdentifierError::Malformed(ORGANISASJONSNUMMER)),
                "{wire:?}"
            );
        }
        assert_eq!(
            parse("no:923609017"),
            Err(IdentifierError::CheckDigit(ORGANISASJONSNUMMER))
        );
        // An upper-case prefix is no prefix the service knows.
        assert_eq!(parse("NO:923609016"), Err(IdentifierError::UnknownPrefix));
    }

    #[test]
    fn the_pattern_says_what_the_wire_form_takes() {
        install();
        assert_eq!(ORGANISASJONSNUMMER.pattern(), "^no:[0-9]{9}$");
    }

    proptest! {
        /// Every stem with a check digit reads back as itself; every other last digit is a
        /// check-digit refusal, and no refusal repeats the number.
        #[test]
        fn every_issued_number_parses_and_every_other_last_digit_is_refused(
            stem in proptest::array::uniform8(0u8..10),
            other in 0u8..10,
        ) {
            let digits: String = stem.iter().map(|d| char::from(b'0' + d)).collect();
            match orgnr::check_digit(stem) {
                Some(check) => {
                    let number = format!("{digits}{check}");
                    prop_assert_eq!(parse(&format!("no:{number}")), Ok(number));
                    if other != check {
                        let wrong = format!("no:{digits}{other}");
                        let e = parse(&wrong).unwrap_err();
                        prop_assert_eq!(&e, &IdentifierError::CheckDigit(ORGANISASJONSNUMMER));
                        prop_assert!(!e.to_string().contains(&digits));
                    }
                }
                None => {
                    let refused = parse(&format!("no:{digits}{other}"));
                    prop_assert_eq!(refused, Err(IdentifierError::CheckDigit(ORGANISASJONSNUMMER)));
                }
            }
        }
    }
}
