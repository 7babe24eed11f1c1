//! `SubjectService`: resolve (scope, validation, country, reference conflicts) and read by id
//! (only the caller's countries are visible).

use crate::access::caller::Caller;
use crate::countries::country::Country;
use crate::error::StoreError;
use crate::error::{ErrorCode, Failure};
use crate::evidence::Evidence;
use crate::fixtures::{caller, clock, data_key, now};
use crate::ids::{CallRef, IdentifierRef, SubjectId};
use crate::subjects::identifier::{IdentifierType, SubjectKind};
use crate::subjects::ports::{MockIdentifierVault, MockSubjectStore};
use crate::subjects::service::SubjectService;
use crate::subjects::subject::{
    BlindIndex, ProtectedIdentifier, Resolution, ResolveRequest, SubjectIdentifier, SubjectRecord,
};
use chrono::Duration;
use std::sync::Arc;

const ORGNR: &str = "5560021361";
const BAD_ORGNR: &str = "5560021362";
const LT_COMPANY: &str = "lt:110443493";

fn service(store: MockSubjectStore, vault: MockIdentifierVault) -> SubjectService {
    SubjectService {
        store: Arc::new(store),
        vault: Arc::new(vault),
        clock: clock(),
    }
}

/// Ports that must not be touched: the request fails before any storage or crypto.
fn untouched() -> (MockSubjectStore, MockIdentifierVault) {
    let mut store = MockSubjectStore::new();
    store.expect_resolve_or_create_subject().never();
    store.expect_subject().never();
    let mut vault = MockIdentifierVault::new();
    vault.expect_protect().never();
    (store, vault)
}

fn resolve_request(id_type: &str, value: &str, customer_ref: Option<&str>) -> ResolveRequest {
    ResolveRequest {
        id_type: id_type.to_owned(),
        value: value.to_owned(),
        customer_ref: customer_ref.map(str::to_owned),
    }
}

fn protected(id_type: IdentifierType) -> ProtectedIdentifier {
    ProtectedIdentifier {
        id_type,
        country: id_type.country(),
        blind_index: BlindIndex(vec![1, 2, 3]),
        sealed: vec![9, 9, 9],
    }
}

/// A vault protecting exactly one identifier of `id_type` for `c` with canonical `canonical`.
fn protecting(c: &Caller, id_type: IdentifierType, canonical: &'static str) -> MockIdentifierVault {
    let tenant_id = c.tenant_id;
    let mut vault = MockIdentifierVault::new();
    vault
        .expect_protect()
        .withf(move |tenant, key, identifier| {
            *tenant == tenant_id
                && *key == data_key()
                && identifier.id_type() == id_type
                && identifier.expose_canonical() == canonical
        })
        .times(1)
        .returning(move |_, _, _| Ok(protected(id_type)));
    vault
}

fn resolution(created: bool) -> Resolution {
    Resolution {
        subject_id: SubjectId::generate(),
        aliases: vec![],
        identifier_ref: IdentifierRef::generate(),
        created,
    }
}

async fn resolve(
    service: &SubjectService,
    c: &Caller,
    request: ResolveRequest,
) -> Result<Resolution, Failure> {
    service.resolve(c, request).await
}

// --- resolve ---

#[tokio::test]
async fn resolve_needs_kyb_read_or_kyc_read() {
    let c = caller("SE", "events:read identity:read", "SE");
    let (store, vault) = untouched();
    let failure = resolve(
        &service(store, vault),
        &c,
        resolve_request("orgnr", ORGNR, None),
    )
    .await
    .unwrap_err();
    assert_eq!(failure.code, ErrorCode::Forbidden);
    assert!(failure.message.contains("kyb:read"), "{}", failure.message);
    assert!(failure.message.contains("kyc:read"), "{}", failure.message);
}

#[tokio::test]
async fn kyc_read_alone_may_resolve() {
    let c = caller("SE", "kyc:read", "SE");
    let mut store = MockSubjectStore::new();
    let answer = resolution(true);
    let expected = answer.clone();
    store
        .expect_resolve_or_create_subject()
        .times(1)
        .return_once(move |_, _, _, _| Ok(answer));
    let vault = protecting(&c, crate::fixtures::schemes::ORG, ORGNR);
    let resolved = resolve(
        &service(store, vault),
        &c,
        resolve_request("orgnr", ORGNR, None),
    )
    .await
    .expect("resolved");
    assert_eq!(resolved, expected);
}

#[tokio::test]
async fn an_unknown_identifier_type_is_a_bad_request_naming_type() {
    let c = caller("SE", "kyb:read", "SE");
    let (store, vault) = untouched();
    let failure = resolve(
        &service(store, vault),
        &c,
        resolve_request("vat-number", ORGNR, None),
    )
    .await
    .unwrap_err();
    assert_eq!(failure.code, ErrorCode::BadRequest);
    assert!(failure.message.contains("`type`"), "{}", failure.message);
}

#[tokio::test]
async fn an_invalid_number_is_invalid_identifier_without_repeating_it() {
    let c = caller("SE", "kyb:read kyc:read", "SE");
    for (id_type, value) in [
        ("orgnr", BAD_ORGNR),
        ("personnummer", "19811218-9875"),
        ("orgnr", "se:55600213"),
    ] {
        let (store, vault) = untouched();
        let failure = resolve(
            &service(store, vault),
            &c,
            resolve_request(id_type, value, None),
        )
        .await
        .unwrap_err();
        assert_eq!(failure.code, ErrorCode::InvalidIdentifier, "{value}");
        assert_eq!(failure.status(), 400);
        let digits: String = value.chars().filter(char::is_ascii_digit).collect();
        assert!(!failure.message.contains(value), "{}", failure.message);
        assert!(!failure.message.contains(&digits), "{}", failure.message);
        assert!(failure.message.contains("`value`"), "{}", failure.message);
    }
}

#[tokio::test]
async fn a_blank_or_overlong_ref_is_a_bad_request_naming_ref() {
    let c = caller("SE", "kyb:read", "SE");
    for bad in ["   ".to_owned(), "r".repeat(201)] {
        let (store, vault) = untouched();
        let failure = resolve(
            &service(store, vault),
            &c,
            resolve_request("orgnr", ORGNR, Some(&bad)),
        )
        .await
        .unwrap_err();
        assert_eq!(failure.code, ErrorCode::BadRequest);
        assert!(failure.message.contains("`ref`"), "{}", failure.message);
    }
}

#[tokio::test]
async fn an_identifier_of_a_country_outside_the_grant_is_not_granted_and_never_stored() {
    // The tenant holds LT; the grant does not.
    let c = caller("SE,LT", "kyb:read", "SE");
    let (store, vault) = untouched();
    let failure = resolve(
        &service(store, vault),
        &c,
        resolve_request("imones-kodas", LT_COMPANY, None),
    )
    .await
    .unwrap_err();
    assert_eq!(failure.code, ErrorCode::CountryNotGranted);
    assert_eq!(failure.status(), 403);
}

#[tokio::test]
async fn an_identifier_of_a_country_the_tenant_lacks_is_not_provisioned() {
    let c = caller("SE", "kyb:read", "SE,LT");
    let (store, vault) = untouched();
    let failure = resolve(
        &service(store, vault),
        &c,
        resolve_request("imones-kodas", LT_COMPANY, None),
    )
    .await
    .unwrap_err();
    assert_eq!(failure.code, ErrorCode::CountryNotProvisioned);
}

#[tokio::test]
async fn a_resolve_hands_the_store_the_protected_identifier_ref_and_fresh_ids() {
    let c = caller("SE,LT", "kyb:read", "SE,LT");
    let tenant_id = c.tenant_id;
    let mut store = MockSubjectStore::new();
    let answer = resolution(false);
    let expected = answer.clone();
    store
        .expect_resolve_or_create_subject()
        .withf(move |tenant, identifier, customer_ref, fresh| {
            *tenant == tenant_id
                && *identifier == protected(crate::fixtures::schemes::IMONES)
                && *customer_ref == Some("crm-42")
                && fresh.kind == SubjectKind::Company
                && fresh.at == now()
        })
        .times(1)
        .return_once(move |_, _, _, _| Ok(answer));
    let vault = protecting(&c, crate::fixtures::schemes::IMONES, "110443493");
    let resolved = resolve(
        &service(store, vault),
        &c,
        resolve_request("imones-kodas", LT_COMPANY, Some("crm-42")),
    )
    .await
    .expect("resolved");
    assert_eq!(resolved, expected);
}

#[tokio::test]
async fn a_person_number_creates_a_person() {
    let c = caller("SE", "kyc:read", "SE");
    let mut store = MockSubjectStore::new();
    store
        .expect_resolve_or_create_subject()
        .withf(|_, _, customer_ref, fresh| {
            customer_ref.is_none() && fresh.kind == SubjectKind::Person
        })
        .times(1)
        .returning(|_, _, _, _| Ok(resolution(true)));
    let vault = protecting(&c, crate::fixtures::schemes::PNR, "198112199289");
    resolve(
        &service(store, vault),
        &c,
        resolve_request("personnummer", "19811219-9289", None),
    )
    .await
    .expect("resolved");
}

#[tokio::test]
async fn a_ref_attached_to_another_subject_is_a_409_ref_conflict() {
    let c = caller("SE", "kyb:read", "SE");
    let mut store = MockSubjectStore::new();
    store
        .expect_resolve_or_create_subject()
        .times(1)
        .returning(|_, _, _, _| Err(StoreError::RefConflict));
    let vault = protecting(&c, crate::fixtures::schemes::ORG, ORGNR);
    let failure = resolve(
        &service(store, vault),
        &c,
        resolve_request("orgnr", ORGNR, Some("crm-42")),
    )
    .await
    .unwrap_err();
    assert_eq!(failure.code, ErrorCode::RefConflict);
    assert_eq!(failure.status(), 409);
    assert!(failure.message.contains("`ref`"), "{}", failure.message);
}

#[tokio::test]
async fn a_store_failure_on_resolve_is_an_internal_error() {
    let c = caller("SE", "kyb:read", "SE");
    let mut store = MockSubjectStore::new();
    store
        .expect_resolve_or_create_subject()
        .returning(|_, _, _, _| Err(StoreError::Backend("down".into())));
    let vault = protecting(&c, crate::fixtures::schemes::ORG, ORGNR);
    let failure = resolve(
        &service(store, vault),
        &c,
        resolve_request("orgnr", ORGNR, None),
    )
    .await
    .unwrap_err();
    assert_eq!(failure.code, ErrorCode::InternalError);
    assert_eq!(failure.message, "internal error");
}

// --- get ---

fn identifier(country: Country) -> SubjectIdentifier {
    SubjectIdentifier {
        identifier_ref: IdentifierRef::generate(),
        id_type: IdentifierType::company_scheme(country).expect("a company scheme"),
        country,
        valid_from: now() - Duration::days(3),
        valid_to: None,
    }
}

fn record(id: SubjectId, countries: &[Country]) -> SubjectRecord {
    SubjectRecord {
        subject_id: id,
        kind: SubjectKind::Company,
        created_at: now() - Duration::days(3),
        identifiers: countries.iter().map(|c| identifier(*c)).collect(),
        refs: vec![],
        aliases: vec![],
        evidence: Evidence::identity_event(CallRef::generate(), now() - Duration::days(3)),
    }
}

/// A store holding `stored` for `c`'s tenant under its id.
fn holding(c: &Caller, stored: SubjectRecord) -> MockSubjectStore {
    let (tenant_id, id) = (c.tenant_id, stored.subject_id);
    let mut store = MockSubjectStore::new();
    store
        .expect_subject()
        .withf(move |tenant, asked| *tenant == tenant_id && *asked == id)
        .times(1)
        .return_once(move |_, _| Ok(stored));
    store
}

fn no_vault() -> MockIdentifierVault {
    let mut vault = MockIdentifierVault::new();
    vault.expect_protect().never();
    vault.expect_reveal().never();
    vault
}

#[tokio::test]
async fn identifiers_outside_the_caller_countries_are_not_shown() {
    let c = caller("SE,LT", "kyb:read", "SE");
    let id = SubjectId::generate();
    let stored = record(id, &[Country::Se, crate::fixtures::schemes::LT]);
    let se_ref = stored.identifiers[0].identifier_ref;
    let got = service(holding(&c, stored), no_vault())
        .get(&c, &id.to_string())
        .await
        .expect("found");
    assert_eq!(got.identifiers.len(), 1);
    assert_eq!(got.identifiers[0].identifier_ref, se_ref);
    assert_eq!(got.identifiers[0].country, Country::Se);
}

#[tokio::test]
async fn identifiers_of_a_country_the_tenant_dropped_are_not_shown() {
    // The grant still carries LT, the tenant no longer provisions it.
    let c = caller("SE", "kyb:read", "SE,LT");
    let id = SubjectId::generate();
    let got = service(
        holding(&c, record(id, &[Country::Se, crate::fixtures::schemes::LT])),
        no_vault(),
    )
    .get(&c, &id.to_string())
    .await
    .expect("found");
    let shown: Vec<Country> = got.identifiers.iter().map(|i| i.country).collect();
    assert_eq!(shown, [Country::Se]);
}

#[tokio::test]
async fn a_subject_with_no_visible_identifier_is_not_found() {
    let c = caller("SE,LT", "kyb:read", "SE");
    let id = SubjectId::generate();
    let failure = service(
        holding(&c, record(id, &[crate::fixtures::schemes::LT])),
        no_vault(),
    )
    .get(&c, &id.to_string())
    .await
    .unwrap_err();
    assert_eq!(failure, Failure::not_found("subject"));
}

#[tokio::test]
async fn a_malformed_subject_id_is_not_found_without_a_lookup() {
    let c = caller("SE", "kyb:read", "SE");
    for malformed in [
        "nope",
        "01arz3ndektsv4rrffq69g5fav",
        "idr_01ARZ3NDEKTSV4RRFFQ69G5FAV",
    ] {
        let (store, vault) = untouched();
        let failure = service(store, vault).get(&c, malformed).await.unwrap_err();
        assert_eq!(failure, Failure::not_found("subject"), "{malformed}");
    }
}

#[tokio::test]
async fn an_unknown_subject_is_not_found() {
    let c = caller("SE", "kyb:read", "SE");
    let mut store = MockSubjectStore::new();
    store
        .expect_subject()
        .times(1)
        .returning(|_, _| Err(StoreError::NotFound));
    let failure = service(store, no_vault())
        .get(&c, &SubjectId::generate().to_string())
        .await
        .unwrap_err();
    assert_eq!(failure, Failure::not_found("subject"));
}

#[tokio::test]
async fn reading_a_subject_needs_kyb_read() {
    let c = caller("SE", "kyc:read", "SE");
    let (store, vault) = untouched();
    let failure = service(store, vault)
        .get(&c, &SubjectId::generate().to_string())
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::Forbidden);
    assert!(failure.message.contains("kyb:read"), "{}", failure.message);
}
