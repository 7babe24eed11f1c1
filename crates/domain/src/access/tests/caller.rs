//! `Caller`: the scope and country rules every use case applies.

use crate::access::scope::Scope;
use crate::countries::country::Country;
use crate::error::ErrorCode;
use crate::fixtures::caller;

#[test]
fn a_country_the_tenant_is_not_provisioned_for_is_not_provisioned_even_if_granted() {
    // The grant (and token) still carry LT, but the tenant has since dropped it.
    let c = caller("SE", "kyb:read", "SE,LT");
    let failure = c.require_country(crate::fixtures::schemes::LT).unwrap_err();
    assert_eq!(failure.code, ErrorCode::CountryNotProvisioned);
    assert_eq!(failure.status(), 403);
    assert!(failure.message.contains("LT"), "{}", failure.message);
}

#[test]
fn a_provisioned_country_outside_the_grant_is_not_granted() {
    let c = caller("SE,LT", "kyb:read", "SE");
    let failure = c.require_country(crate::fixtures::schemes::LT).unwrap_err();
    assert_eq!(failure.code, ErrorCode::CountryNotGranted);
    assert_eq!(failure.status(), 403);
}

#[test]
fn a_provisioned_and_granted_country_passes() {
    let c = caller("SE,LT", "kyb:read", "SE,LT");
    assert_eq!(c.require_country(Country::Se), Ok(()));
    assert_eq!(c.require_country(crate::fixtures::schemes::LT), Ok(()));
}

#[test]
fn visible_countries_are_the_granted_ones_the_tenant_still_provisions() {
    let c = caller("SE", "kyb:read", "SE,LT");
    assert_eq!(c.visible_countries(), crate::fixtures::countries("SE"));
}

#[test]
fn any_one_of_the_required_scopes_suffices() {
    let c = caller("SE", "kyc:read", "SE");
    assert_eq!(
        c.require_any_scope(&[Scope::KybRead, Scope::KycRead]),
        Ok(())
    );
}

#[test]
fn a_missing_scope_is_forbidden_and_named() {
    let c = caller("SE", "kyc:read", "SE");
    let failure = c.require_any_scope(&[Scope::KybRead]).unwrap_err();
    assert_eq!(failure.code, ErrorCode::Forbidden);
    assert_eq!(failure.status(), 403);
    assert!(failure.message.contains("kyb:read"), "{}", failure.message);
}
