//! The Swedish registry over real HTTP against `upstream-sandbox` (in process, on
//! 127.0.0.1:0). The happy path also runs through a capturing proxy, so every recorded
//! digest is checked against the bytes that actually crossed the wire.

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use adapters_se::{SeConfig, SeEndpoints, SwedishCompanyRegistry, Timeouts};
use chrono::NaiveDate;
use domain::companies::ports::{CompanyRegistry, DocumentArchive};
use domain::companies::profile::{
    ActivityCode, Address, CompanyStatus, OptionalGroup, ProfileFetch, RegistryFailure, TaxKind,
    TaxRegistrations, UpstreamCall, SNI_2007,
};
use domain::evidence::EvidenceSource;
use domain::subjects::identifier::Identifier;
use sha2::{Digest, Sha256};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use upstream_sandbox::{
    testnr, FaultSpec, RunningSandbox, Sandbox, SandboxConfig, Source, CLIENT_ID, CLIENT_SECRET,
    SCB_API_ID,
};

// ---------------------------------------------------------------------------------------
// Set-up
// ---------------------------------------------------------------------------------------

fn endpoints(base: &str) -> SeEndpoints {
    SeEndpoints {
        vdm_base_url: format!("{base}{}", upstream_sandbox::VDM_PREFIX),
        vdm_token_url: format!("{base}{}/oauth2/token", upstream_sandbox::VDM_PREFIX),
        ssbtgu_url: format!("{base}{}", upstream_sandbox::SSBTGU_PATH),
        scb_base_url: format!("{base}{}", upstream_sandbox::SCB_PREFIX),
    }
}

fn config(base: &str) -> SeConfig {
    let mut c = SeConfig::sandbox(endpoints(base), CLIENT_ID, CLIENT_SECRET)
        .with_timeouts(Timeouts::total(Duration::from_secs(2)));
    c.scb.api_id = Some(SCB_API_ID.to_owned());
    c
}

fn start(sandbox: SandboxConfig) -> (RunningSandbox, SwedishCompanyRegistry) {
    let sb = Sandbox::start(sandbox.with_timeout_hold(Duration::from_secs(8))).expect("sandbox");
    let reg = SwedishCompanyRegistry::new(&config(&sb.base_url)).expect("registry");
    (sb, reg)
}

fn orgnr(s: &str) -> Identifier {
    Identifier::parse_company(s).expect("valid orgnr")
}

fn sha256(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

fn ops(calls: &[UpstreamCall]) -> Vec<&str> {
    calls.iter().map(|c| c.operation.as_str()).collect()
}

const ORG: &str = "POST /organisationer";
const DOKLISTA: &str = "POST /dokumentlista";
const SOAP: &str = "SOAP GetForetagsuppgifter";
const SCB: &str = "POST /api/je/hamtaforetag";

fn call<'a>(f: &'a ProfileFetch, op: &str) -> &'a UpstreamCall {
    f.calls
        .iter()
        .rfind(|c| c.operation == op)
        .unwrap_or_else(|| panic!("no {op} call in {:?}", ops(&f.calls)))
}

// ---------------------------------------------------------------------------------------
// A capturing proxy
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct Captured {
    path: String,
    body: Vec<u8>,
}

struct ProxyState {
    upstream: String,
    client: reqwest::Client,
    log: Arc<Mutex<Vec<Captured>>>,
}

async fn forward(req: HttpRequest, body: web::Bytes, st: web::Data<ProxyState>) -> HttpResponse {
    let url = format!(
        "{}{}",
        st.upstream,
        req.uri()
            .path_and_query()
            .map(|p| p.as_str())
            .unwrap_or("/")
    );
    let method = reqwest::Method::from_bytes(req.method().as_str().as_bytes()).unwrap();
    let mut rb = st.client.request(method, url).body(body.to_vec());
    for (k, v) in req.headers() {
        if !matches!(k.as_str(), "host" | "content-length" | "connection") {
            rb = rb.header(k.as_str(), v.as_bytes());
        }
    }
    let Ok(resp) = rb.send().await else {
        return HttpResponse::BadGateway().finish();
    };
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let bytes = resp.bytes().await.unwrap_or_default().to_vec();
    st.log.lock().unwrap().push(Captured {
        path: req.path().to_owned(),
        body: bytes.clone(),
    });
    let mut out = HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap());
    for (k, v) in &headers {
        if matches!(
            k.as_str(),
            "content-type" | "x-request-id" | "www-authenticate" | "content-disposition"
        ) {
            out.insert_header((k.as_str(), v.as_bytes()));
        }
    }
    out.body(bytes)
}

/// Starts a proxy in front of `upstream`; returns its base URL and its capture log.
fn start_proxy(upstream: &str) -> (String, Arc<Mutex<Vec<Captured>>>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let state = web::Data::new(ProxyState {
        upstream: upstream.to_owned(),
        client: reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap(),
        log: log.clone(),
    });
    let server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .app_data(web::PayloadConfig::new(1 << 20))
            .default_service(web::to(forward))
    })
    .workers(1)
    .disable_signals()
    .bind(("127.0.0.1", 0))
    .unwrap();
    let addr = server.addrs()[0];
    tokio::spawn(server.run());
    (format!("http://{addr}"), log)
}

// ---------------------------------------------------------------------------------------
// Profiles
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn happy_path_maps_every_field_and_records_every_call() {
    adapters_se::identifiers::install();
    let sb = Sandbox::start(SandboxConfig::default()).unwrap();
    let (proxy, captured) = start_proxy(&sb.base_url);
    let reg = SwedishCompanyRegistry::new(&config(&proxy)).unwrap();

    let f = reg.fetch_profile(&orgnr(testnr::AB_TESTBOLAG_4)).await;
    let p = f.outcome.as_ref().expect("profile");

    let latest = sb
        .control()
        .dataset()
        .company(testnr::AB_TESTBOLAG_4)
        .unwrap()
        .annual_reports
        .iter()
        .max_by_key(|r| r.period_tom.clone())
        .unwrap()
        .clone();
    let d = &p.data;
    assert_eq!(d.orgnr, "5560021361");
    assert_eq!(d.name, "Testbolag 4 bokat av SKV Aktiebolag");
    assert_eq!(d.legal_form, "AB");
    assert_eq!(d.status, CompanyStatus::Active);
    assert_eq!(d.registered_at, NaiveDate::from_ymd_opt(1969, 6, 19));
    assert_eq!(
        d.address,
        Address {
            street: Some("Testgatan 1".into()),
            postal_code: Some("85181".into()),
            city: Some("SUNDSVALL".into()),
            country: "SE".into(),
        }
    );
    assert_eq!(
        d.activity_codes,
        [
            ActivityCode::new(SNI_2007, "62010"),
            ActivityCode::new(SNI_2007, "62020")
        ]
    );
    assert_eq!(d.employees_band.as_deref(), Some("5-9"));
    let report = d.latest_annual_report.as_ref().unwrap();
    assert_eq!(report.year, 2025);
    assert_eq!(report.document_id, latest.dokument_id);
    assert_eq!(
        p.tax.as_ref().map(|t| &t.0),
        Some(&TaxRegistrations::of(&[
            (TaxKind::BusinessTax, true),
            (TaxKind::Vat, true),
            (TaxKind::Employer, true),
        ]))
    );

    // Four data calls (the token call is not one), in a fixed order.
    assert_eq!(ops(&f.calls), [ORG, DOKLISTA, SOAP, SCB]);
    assert_eq!(p.main_call, 0);
    assert_eq!(p.tax.as_ref().map(|t| t.1), Some(2));
    let sources: Vec<EvidenceSource> = f.calls.iter().map(|c| c.source).collect();
    assert_eq!(
        sources,
        [
            adapters_se::sources::VARDEFULLA_DATAMANGDER,
            adapters_se::sources::VARDEFULLA_DATAMANGDER,
            adapters_se::sources::SKATTEVERKET_UPPGIFTER,
            adapters_se::sources::SCB_FORETAGSREGISTER,
        ]
    );
    for c in &f.calls {
        assert_eq!(c.status, Some(200), "{}", c.operation);
        assert!(c.usable, "{}", c.operation);
        assert_eq!(c.cost, 0);
        assert!(!c.operation.contains("5560021361"));
        assert!(c.retrieved_at <= chrono::Utc::now());
    }
    let versions: Vec<&str> = f
        .calls
        .iter()
        .map(|c| c.schema_version.as_deref().unwrap())
        .collect();
    assert_eq!(versions, ["vdm-v1", "vdm-v1", "ssbtgu-2.5.0", "scb-je-v1"]);

    // Digests equal sha256 of the bodies that crossed the wire.
    let captured = captured.lock().unwrap().clone();
    let body_of = |suffix: &str| {
        let hits: Vec<&Captured> = captured
            .iter()
            .filter(|c| c.path.ends_with(suffix))
            .collect();
        assert_eq!(hits.len(), 1, "{suffix}");
        hits[0].body.clone()
    };
    assert!(!body_of("/oauth2/token").is_empty());
    for (op, suffix) in [
        (ORG, "/organisationer"),
        (DOKLISTA, "/dokumentlista"),
        (SOAP, upstream_sandbox::SSBTGU_PATH),
        (SCB, "/api/je/hamtaforetag"),
    ] {
        assert_eq!(
            call(&f, op).digest.as_deref(),
            Some(sha256(&body_of(suffix)).as_str()),
            "{op}"
        );
    }

    // Fresh, UUID-shaped request ids; VDM echoes ours as its reference; SSBTGU names its
    // own message id and time stamp.
    let log = sb.control().calls();
    let ids: Vec<String> = log.iter().filter_map(|c| c.request_id.clone()).collect();
    assert_eq!(ids.len(), 5, "token + four data calls: {log:?}");
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 5);
    for id in &ids {
        assert_eq!(id.len(), 36);
        assert_eq!(id.matches('-').count(), 4);
    }
    let org_log = log
        .iter()
        .find(|c| c.path.ends_with("/organisationer"))
        .unwrap();
    assert_eq!(call(&f, ORG).upstream_ref, org_log.request_id);
    let soap = call(&f, SOAP);
    assert!(soap.upstream_ref.as_deref().is_some_and(|r| r.len() == 36));
    assert!(soap.source_timestamp <= soap.retrieved_at + chrono::Duration::seconds(1));
    assert_eq!(call(&f, SCB).upstream_ref, None);
    assert_eq!(call(&f, SCB).source_timestamp, call(&f, SCB).retrieved_at);

    sb.stop().await;
}

#[tokio::test]
async fn other_recorded_companies() {
    adapters_se::identifiers::install();
    let (sb, reg) = start(SandboxConfig::default());
    for (id, form) in [
        (testnr::HB, "HB"),
        (testnr::EK, "EK"),
        (testnr::BRF, "BRF"),
        (testnr::AB_THREE_REPORTS, "AB"),
    ] {
        let f = reg.fetch_profile(&orgnr(id)).await;
        let p = f.outcome.unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(p.data.legal_form, form, "{id}");
    }
    sb.stop().await;
}

#[tokio::test]
async fn missing_at_scb_is_a_profile_without_a_band() {
    adapters_se::identifiers::install();
    let (sb, reg) = start(SandboxConfig::default());
    let f = reg.fetch_profile(&orgnr(testnr::AB_MISSING_AT_SCB)).await;
    let p = f.outcome.as_ref().expect("profile");
    assert_eq!(p.data.name, "Testbolaget Aktiebolag");
    assert_eq!(p.data.employees_band, None);
    assert!(p.data.activity_codes.is_empty());
    assert_eq!(p.data.latest_annual_report, None);
    assert_eq!(
        p.tax.as_ref().map(|t| &t.0),
        Some(&TaxRegistrations::of(&[
            (TaxKind::BusinessTax, true),
            (TaxKind::Vat, true),
            (TaxKind::Employer, false),
        ]))
    );
    assert!(f.calls.iter().all(|c| c.usable && c.status == Some(200)));
    assert_eq!(
        call(&f, SCB).digest.as_deref(),
        Some(sha256(b"[]").as_str())
    );
    sb.stop().await;
}

#[tokio::test]
async fn unknown_company_is_not_found_after_one_call() {
    adapters_se::identifiers::install();
    let (sb, reg) = start(SandboxConfig::default());
    let unknown = sb.control().dataset().unknown_orgnr();
    let f = reg.fetch_profile(&orgnr(&unknown)).await;
    assert_eq!(f.outcome.as_ref().err(), Some(&RegistryFailure::NotFound));
    assert_eq!(ops(&f.calls), [ORG]);
    assert!(f.calls[0].usable);
    assert_eq!(f.calls[0].status, Some(200));
    assert!(sb.control().calls_for(Source::Ssbtgu).is_empty());
    assert!(sb.control().calls_for(Source::Scb).is_empty());
    sb.stop().await;
}

#[tokio::test]
async fn a_personal_number_is_refused_without_a_call() {
    adapters_se::identifiers::install();
    let (sb, reg) = start(SandboxConfig::default());
    let pnr = Identifier::restore(
        adapters_se::identifiers::PERSONNUMMER,
        testnr::SOLE_TRADER_THREE,
    )
    .unwrap();
    let f = reg.fetch_profile(&pnr).await;
    assert_eq!(f.outcome.err(), Some(RegistryFailure::NotFound));
    assert!(f.calls.is_empty());
    assert!(sb.control().calls().is_empty());
    sb.stop().await;
}

// ---------------------------------------------------------------------------------------
// Token
// ---------------------------------------------------------------------------------------

/// A clock the test moves by hand (it stands still otherwise).
struct TestClock(Mutex<chrono::DateTime<chrono::Utc>>);

impl TestClock {
    fn advance(&self, by: chrono::Duration) {
        *self.0.lock().unwrap() += by;
    }
}

impl domain::clock::Clock for TestClock {
    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        *self.0.lock().unwrap()
    }
}

#[tokio::test]
async fn the_token_is_cached_and_renewed_before_it_expires() {
    adapters_se::identifiers::install();
    // A 600 s token with the 60 s margin is used for 540 s, on the connector's clock: the
    // test moves that clock, so however slow the fetches are, none of them renews early.
    let clock = Arc::new(TestClock(Mutex::new(chrono::Utc::now())));
    let (sb, reg) = start(SandboxConfig::default().with_token_ttl(Duration::from_secs(600)));
    let reg = reg.with_clock(clock.clone());
    let tokens = || sb.control().calls_for(Source::BolagsverketToken).len();
    for _ in 0..3 {
        assert!(reg.fetch_profile(&orgnr(testnr::HB)).await.outcome.is_ok());
    }
    assert_eq!(tokens(), 1);
    // Just before the renewal point the cached token is still used.
    clock.advance(chrono::Duration::seconds(539));
    assert!(reg.fetch_profile(&orgnr(testnr::HB)).await.outcome.is_ok());
    assert_eq!(tokens(), 1);
    // At it, a new one is fetched first, and the fetch's calls all succeed with it.
    clock.advance(chrono::Duration::seconds(1));
    let f = reg.fetch_profile(&orgnr(testnr::HB)).await;
    assert!(f.outcome.is_ok());
    assert_eq!(tokens(), 2);
    assert!(f.calls.iter().all(|c| c.status == Some(200)));
    // The new token is cached in turn.
    assert!(reg.fetch_profile(&orgnr(testnr::HB)).await.outcome.is_ok());
    assert_eq!(tokens(), 2);
    sb.stop().await;
}

#[tokio::test]
async fn a_refused_token_is_renewed_once() {
    adapters_se::identifiers::install();
    let (sb, reg) = start(SandboxConfig::default());
    assert!(reg.fetch_profile(&orgnr(testnr::EK)).await.outcome.is_ok());
    sb.control().revoke_tokens();
    let f = reg.fetch_profile(&orgnr(testnr::EK)).await;
    let p = f.outcome.as_ref().expect("profile after renewal");
    assert_eq!(ops(&f.calls), [ORG, ORG, DOKLISTA, SOAP, SCB]);
    assert_eq!(f.calls[0].status, Some(401));
    assert!(!f.calls[0].usable);
    assert!(f.calls[0].digest.is_some());
    assert_eq!(p.main_call, 1);
    assert_eq!(p.tax.as_ref().map(|t| t.1), Some(3));
    assert!(f.calls[1..].iter().all(|c| c.usable));
    assert_eq!(sb.control().calls_for(Source::BolagsverketToken).len(), 2);
    sb.stop().await;
}

#[tokio::test]
async fn a_failing_token_endpoint_is_unavailable_without_data_calls() {
    adapters_se::identifiers::install();
    let (sb, reg) = start(SandboxConfig::default());
    sb.control()
        .inject_fault(Source::BolagsverketToken, FaultSpec::http_5xx(503).times(1))
        .unwrap();
    let f = reg.fetch_profile(&orgnr(testnr::HB)).await;
    assert!(matches!(f.outcome, Err(RegistryFailure::Unavailable(_))));
    assert!(f.calls.is_empty());
    // The next fetch gets a token.
    assert!(reg.fetch_profile(&orgnr(testnr::HB)).await.outcome.is_ok());
    sb.stop().await;
}

#[tokio::test]
async fn wrong_credentials_are_unavailable() {
    adapters_se::identifiers::install();
    let sb = Sandbox::start(SandboxConfig::default()).unwrap();
    let mut c = config(&sb.base_url);
    c.vdm.client_secret = "wrong".into();
    let reg = SwedishCompanyRegistry::new(&c).unwrap();
    let f = reg.fetch_profile(&orgnr(testnr::HB)).await;
    assert!(matches!(f.outcome, Err(RegistryFailure::Unavailable(_))));
    assert!(f.calls.is_empty());
    // Credentials in the form body work as well as HTTP Basic.
    let mut c = config(&sb.base_url);
    c.vdm.client_auth = adapters_se::ClientAuth::Body;
    let reg = SwedishCompanyRegistry::new(&c).unwrap();
    assert!(reg.fetch_profile(&orgnr(testnr::HB)).await.outcome.is_ok());
    sb.stop().await;
}

// ---------------------------------------------------------------------------------------
// Faults
// ---------------------------------------------------------------------------------------

async fn with_fault(source: Source, spec: FaultSpec) -> (ProfileFetch, Duration) {
    let (sb, reg) = start(SandboxConfig::default());
    sb.control().inject_fault(source, spec).unwrap();
    let t0 = Instant::now();
    let f = reg.fetch_profile(&orgnr(testnr::AB_TESTBOLAG_4)).await;
    let took = t0.elapsed();
    sb.stop().await;
    (f, took)
}

fn unavailable(f: &ProfileFetch) -> bool {
    matches!(f.outcome, Err(RegistryFailure::Unavailable(_)))
}

fn garbled(f: &ProfileFetch) -> bool {
    matches!(f.outcome, Err(RegistryFailure::Garbled(_)))
}

#[tokio::test]
async fn server_errors_are_unavailable() {
    adapters_se::identifiers::install();
    let (f, _) = with_fault(Source::Bolagsverket, FaultSpec::http_5xx(503).times(1)).await;
    assert!(unavailable(&f), "{:?}", f.outcome);
    assert_eq!(ops(&f.calls), [ORG]);
    assert_eq!(f.calls[0].status, Some(503));
    assert!(!f.calls[0].usable);
    assert!(f.calls[0].upstream_ref.is_some());

    let (f, _) = with_fault(Source::Ssbtgu, FaultSpec::http_5xx(500)).await;
    assert!(unavailable(&f), "{:?}", f.outcome);
    assert_eq!(ops(&f.calls), [ORG, DOKLISTA, SOAP, SCB]);
    assert!(!call(&f, SOAP).usable);
    assert!(call(&f, ORG).usable && call(&f, SCB).usable && call(&f, DOKLISTA).usable);

    // SCB is optional: the profile is served with its size class unchecked.
    let (f, _) = with_fault(Source::Scb, FaultSpec::http_5xx(503)).await;
    assert_unchecked(&f, &[OptionalGroup::EmployeesBand]);
    assert_eq!(call(&f, SCB).status, Some(503));
    assert!(!call(&f, SCB).usable);
}

/// The fetch succeeded with exactly these optional groups unchecked, their values empty.
fn assert_unchecked(f: &ProfileFetch, groups: &[OptionalGroup]) {
    let profile = f
        .outcome
        .as_ref()
        .expect("served without the optional groups");
    assert_eq!(profile.unchecked, groups);
    if groups.contains(&OptionalGroup::EmployeesBand) {
        assert_eq!(profile.data.employees_band, None);
    }
    if groups.contains(&OptionalGroup::LatestAnnualReport) {
        assert_eq!(profile.data.latest_annual_report, None);
    }
}

#[tokio::test]
async fn a_failed_document_list_leaves_the_annual_report_unchecked() {
    adapters_se::identifiers::install();
    let fault = FaultSpec::http_5xx(503).on_path("/dokumentlista");
    let (f, _) = with_fault(Source::Bolagsverket, fault).await;
    assert_unchecked(&f, &[OptionalGroup::LatestAnnualReport]);
    assert!(call(&f, ORG).usable);
    assert_eq!(call(&f, DOKLISTA).status, Some(503));
    assert!(!call(&f, DOKLISTA).usable);
    // Nothing failed: every group checked.
    let (f, _) = with_fault(Source::Scb, FaultSpec::slow(1)).await;
    assert_unchecked(&f, &[]);
}

#[tokio::test]
async fn timeouts_are_unavailable_within_the_limit() {
    adapters_se::identifiers::install();
    let (f, took) = with_fault(Source::Scb, FaultSpec::timeout()).await;
    assert_unchecked(&f, &[OptionalGroup::EmployeesBand]);
    assert!(took < Duration::from_secs(5), "{took:?}");
    let scb = call(&f, SCB);
    assert_eq!(
        (scb.status, scb.digest.as_deref(), scb.usable),
        (None, None, false)
    );

    let (f, took) = with_fault(Source::Bolagsverket, FaultSpec::timeout()).await;
    assert!(unavailable(&f), "{:?}", f.outcome);
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert_eq!(ops(&f.calls), [ORG]);
    assert_eq!(f.calls[0].status, None);

    let (f, took) = with_fault(Source::Ssbtgu, FaultSpec::timeout()).await;
    assert!(unavailable(&f), "{:?}", f.outcome);
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[tokio::test]
async fn a_slow_answer_within_the_limit_is_fine() {
    adapters_se::identifiers::install();
    let (f, _) = with_fault(Source::Ssbtgu, FaultSpec::slow(500)).await;
    assert!(f.outcome.is_ok(), "{:?}", f.outcome);
}

#[tokio::test]
async fn malformed_bodies_are_garbled() {
    adapters_se::identifiers::install();
    for source in [Source::Bolagsverket, Source::Ssbtgu, Source::Scb] {
        let (f, _) = with_fault(source, FaultSpec::malformed().times(1)).await;
        if source == Source::Scb {
            assert_unchecked(&f, &[OptionalGroup::EmployeesBand]);
        } else {
            assert!(garbled(&f), "{source}: {:?}", f.outcome);
        }
        let bad: Vec<&UpstreamCall> = f.calls.iter().filter(|c| !c.usable).collect();
        assert_eq!(bad.len(), 1, "{source}");
        assert_eq!(bad[0].status, Some(200));
        assert!(bad[0].digest.is_some());
    }
}

#[tokio::test]
async fn field_fel_is_unavailable_and_marks_the_call() {
    adapters_se::identifiers::install();
    for field in [
        "organisationsnamn",
        "Bolagsverket",
        "SCB",
        "naringsgrenOrganisation",
    ] {
        let (f, _) = with_fault(
            Source::Bolagsverket,
            FaultSpec::field_fel("OTILLGANGLIG_UPPGIFTSKALLA", Some(field)).times(1),
        )
        .await;
        assert!(unavailable(&f), "{field}: {:?}", f.outcome);
        assert_eq!(ops(&f.calls), [ORG], "{field}");
        assert!(!f.calls[0].usable);
        assert_eq!(f.calls[0].status, Some(200));
    }
    let (f, _) = with_fault(
        Source::Bolagsverket,
        FaultSpec::field_fel("TIMEOUT", Some("verksamOrganisation")).times(1),
    )
    .await;
    assert!(unavailable(&f), "{:?}", f.outcome);

    let (f, _) = with_fault(
        Source::Ssbtgu,
        FaultSpec::field_fel("OtillgangligUppgiftskalla", Some("UD0029")),
    )
    .await;
    assert!(unavailable(&f), "{:?}", f.outcome);
    assert!(!call(&f, SOAP).usable);
    assert!(call(&f, ORG).usable);

    let (f, _) = with_fault(
        Source::Ssbtgu,
        FaultSpec::field_fel("Timeout", Some("Skatteverket")),
    )
    .await;
    assert!(unavailable(&f), "{:?}", f.outcome);

    // Items the connector does not ask for do not matter.
    let (f, _) = with_fault(Source::Ssbtgu, FaultSpec::field_fel("Timeout", Some("SCB"))).await;
    assert!(f.outcome.is_ok(), "{:?}", f.outcome);
}

#[tokio::test]
async fn finns_ej_from_bolagsverket_is_not_found() {
    adapters_se::identifiers::install();
    let (f, _) = with_fault(
        Source::Bolagsverket,
        FaultSpec::field_fel("ORGANISATION_FINNS_EJ", None).times(1),
    )
    .await;
    assert_eq!(f.outcome.as_ref().err(), Some(&RegistryFailure::NotFound));
    assert!(f.calls[0].usable);
}

// ---------------------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn documents_are_real_zip_archives() {
    adapters_se::identifiers::install();
    let (sb, reg) = start(SandboxConfig::default());
    let profile = reg.fetch_profile(&orgnr(testnr::AB_THREE_REPORTS)).await;
    let report = profile
        .outcome
        .unwrap()
        .data
        .latest_annual_report
        .expect("a report");

    let d = reg.fetch_document(&report.document_id).await;
    let doc = d.outcome.as_ref().expect("document");
    assert_eq!(doc.document_id, report.document_id);
    assert_eq!(doc.filename, format!("{}.zip", report.document_id));
    assert_eq!(doc.content_type, "application/zip");
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(doc.bytes.clone())).unwrap();
    assert!(!archive.is_empty());
    let names: Vec<String> = archive
        .file_names()
        .map(|n| n.unwrap().into_owned())
        .collect();
    assert!(names.iter().any(|n| n.ends_with(".xhtml")), "{names:?}");
    assert!(archive.by_index(0).is_ok());
    assert_eq!(d.calls.len(), 1);
    let c = &d.calls[0];
    assert_eq!(c.operation, "GET /dokument/{dokumentId}");
    assert!(!c.operation.contains(&report.document_id));
    assert_eq!(c.status, Some(200));
    assert!(c.usable);
    assert_eq!(c.digest.as_deref(), Some(sha256(&doc.bytes).as_str()));

    // An unknown (well-shaped) id is a 404: not found, one call.
    let d = reg
        .fetch_document("00000000-0000-4000-8000-000000000000_paket")
        .await;
    assert_eq!(d.outcome.as_ref().err(), Some(&RegistryFailure::NotFound));
    assert_eq!(d.calls.len(), 1);
    assert_eq!(d.calls[0].status, Some(404));

    // Ids that could leave the path are refused without a call.
    let before = sb.control().calls_for(Source::Bolagsverket).len();
    for bad in ["../organisationer", "a/b", "x.zip", "", "a%2F"] {
        let d = reg.fetch_document(bad).await;
        assert_eq!(d.outcome.err(), Some(RegistryFailure::NotFound), "{bad}");
        assert!(d.calls.is_empty());
    }
    assert_eq!(sb.control().calls_for(Source::Bolagsverket).len(), before);

    // A cut archive is garbled.
    sb.control()
        .inject_fault(Source::Bolagsverket, FaultSpec::malformed().times(1))
        .unwrap();
    let d = reg.fetch_document(&report.document_id).await;
    assert!(
        matches!(d.outcome, Err(RegistryFailure::Garbled(_))),
        "{:?}",
        d.outcome
    );
    assert!(!d.calls[0].usable);
    sb.stop().await;
}
