//! Sweden's identifier schemes: personal identity numbers (`personnummer`), coordination
//! numbers (`samordningsnummer`) and organisation numbers (`orgnr`), each an
//! [`IdentifierScheme`](domain::subjects::identifier::IdentifierScheme) the binary installs
//! at start.
//!
//! | type | accepted | canonical | rules |
//! |---|---|---|---|
//! | `personnummer` | `YYMMDD[-+]NNNC`, `YYMMDDNNNC`, `YYYYMMDD[-+]NNNC`, `YYYYMMDDNNNC` | `YYYYMMDDNNNC` | see [`personnummer`] |
//! | `samordningsnummer` | as `personnummer`, day + 60 | `YYYYMMDDNNNC` | see [`personnummer`] |
//! | `orgnr` | `NNNNNN[-]NNNN`, `16NNNNNN[-]NNNN` | `NNNNNNNNNN` | see [`orgnr`] |
//!
//! An unprefixed identifier is Swedish (the specification's rule, which the domain keeps as
//! `Country::DEFAULT`).

pub mod luhn;
pub mod orgnr;
pub mod personnummer;

use domain::subjects::identifier::{scheme, IdentifierType};

/// `personnummer`.
pub const PERSONNUMMER: IdentifierType = IdentifierType::of(&personnummer::PERSONNUMMER);
/// `samordningsnummer`.
pub const SAMORDNINGSNUMMER: IdentifierType = IdentifierType::of(&personnummer::SAMORDNINGSNUMMER);
/// `orgnr`.
pub const ORGNR: IdentifierType = IdentifierType::of(&orgnr::Orgnr);

/// Sweden's schemes, in the order the interface documents them.
pub const SCHEMES: [IdentifierType; 3] = [PERSONNUMMER, SAMORDNINGSNUMMER, ORGNR];

/// Makes Sweden's schemes known to this process (harmless twice).
pub fn install() {
    scheme::install(&SCHEMES);
}
