//! What every company route admits before anything is read: the route's company code, and
//! its country.

use crate::access::caller::Caller;
use crate::error::Failure;
use crate::subjects::identifier::Identifier;

/// The company named by `wire` (a code in identifier wire form, the route's `orgnr`), once
/// it is well formed (else 400 `invalid_identifier` naming `orgnr`) and its country is one
/// the tenant is provisioned for and the grant carries (else 403). Whether the country is
/// served is the registry's question, asked next.
pub(crate) fn company_code(caller: &Caller, wire: &str) -> Result<Identifier, Failure> {
    let orgnr = Identifier::parse_company(wire)
        .map_err(|e| Failure::invalid_identifier(format!("`orgnr`: {e}")))?;
    caller.require_country(orgnr.country())?;
    Ok(orgnr)
}
