//! The Enhetsregisteret client against the sandbox plug-in over real HTTP: entities mapped
//! field by field, deletion and withdrawal, not-found, roles, the update feed after scripted
//! changes, faults, the wire format itself, and the call records evidence is built from.

use adapters_no::brreg::model::{
    Employees, Endringstype, EnhetAnswer, EnhetStatus, Innehaver, OppdateringerEnheter,
    RollerAnswer,
};
use adapters_no::brreg::{media, FeedQuery, OP_ENHET, OP_OPPDATERINGER, OP_ROLLER};
use adapters_no::sandbox::{
    BrregSandbox, ChangeOutcome, CompanyChange, CompanySummary, StatusChange, NAME,
    SYNTHETIC_GIVEN_NAMES, SYNTHETIC_SURNAMES,
};
use adapters_no::{BrregClient, BrregConfig, Orgnr};
use chrono::NaiveDate;
use connector_kit::{Step, Timeouts};
use domain::companies::profile::{RegistryFailure, UpstreamCall};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use upstream_sandbox::{FaultSpec, RunningSandbox, Sandbox, SandboxConfig, Source};

struct Harness {
    sb: RunningSandbox,
    brreg: Arc<BrregSandbox>,
    client: BrregClient,
    http: reqwest::Client,
}

const SOURCE: Source = Source::Plugin(NAME);

fn start() -> Harness {
    let brreg = Arc::new(BrregSandbox::standard());
    let sb = Sandbox::start(
        SandboxConfig::default()
            .with_timeout_hold(Duration::from_secs(3))
            .with_plugin(brreg.clone()),
    )
    .expect("sandbox");
    let client = BrregClient::new(&BrregConfig {
        base_url: sb.plugin_base_url(NAME),
        timeouts: Timeouts::total(Duration::from_secs(1)),
        contact: "idreg-tests@example.invalid".into(),
    })
    .expect("client");
    Harness {
        sb,
        brreg,
        client,
        http: reqwest::Client::new(),
    }
}

fn orgnr(s: &str) -> Orgnr {
    Orgnr::parse(s).expect("a valid organisasjonsnummer")
}

fn date(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("a date")
}

/// The step's one call, checked for what every call record must hold.
fn one_call<T>(step: &Step<T>, op_name: &str) -> UpstreamCall {
    assert_eq!(step.calls.len(), 1);
    let call = step.calls[0].clone();
    assert_eq!(call.source.as_str(), "companyreg.enhetsregisteret");
    assert_eq!(call.operation, op_name);
    assert!(!call.operation.bytes().any(|b| b.is_ascii_digit()));
    assert_eq!(call.cost, 0);
    call
}

fn ok<T: std::fmt::Debug>(step: Step<T>) -> T {
    step.result.expect("an answer")
}

impl Harness {
    async fn enhet(&self, n: &str) -> Step<EnhetAnswer> {
        self.client.fetch_enhet(&orgnr(n)).await
    }

    async fn roller(&self, n: &str) -> Step<RollerAnswer> {
        self.client.fetch_roller(&orgnr(n)).await
    }

    async fn raw(&self, path_and_query: &str, accept: Option<&str>) -> reqwest::Response {
        let mut rb = self.http.get(format!(
            "{}/enhetsregisteret/api{path_and_query}",
            self.sb.plugin_base_url(NAME)
        ));
        if let Some(a) = accept {
            rb = rb.header("accept", a);
        }
        rb.send().await.expect("an answer")
    }

    async fn control_post(&self, orgnr: &str, body: Value) -> reqwest::Response {
        self.http
            .post(format!(
                "{}/plugins/{NAME}/companies/{orgnr}",
                self.sb.control_url()
            ))
            .json(&body)
            .send()
            .await
            .expect("an answer")
    }

    async fn feed(&self, q: &FeedQuery) -> OppdateringerEnheter {
        let step = self.client.fetch_oppdateringer(q).await;
        let call = one_call(&step, OP_OPPDATERINGER.name);
        assert!(call.usable);
        ok(step)
    }

    async fn head(&self) -> u64 {
        let page = self.feed(&FeedQuery::newest().size(1)).await;
        page.oppdateringer[0].oppdateringsid
    }
}

fn active(a: EnhetAnswer) -> adapters_no::Enhet {
    match a {
        EnhetAnswer::Enhet(e) => *e,
        other => panic!("not an active entity: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_recorded_company_reads_field_by_field_from_one_recorded_call() {
    let h = start();
    let step = h.enhet("923609016").await;
    let call = one_call(&step, "GET /enhetsregisteret/api/enheter/{orgnr}");
    assert_eq!(call.status, Some(200));
    assert!(call.usable);
    assert!(call.digest.as_deref().unwrap().starts_with("sha256:"));
    // The pinned media type was asked for and answered.
    assert_eq!(call.schema_version.as_deref(), Some(media::ENHET_V2));
    let e = active(ok(step));
    assert_eq!(e.navn, "EQUINOR ASA");
    assert_eq!(
        (
            e.organisasjonsform.kode.as_str(),
            e.organisasjonsform.beskrivelse.as_str()
        ),
        ("ASA", "Allmennaksjeselskap")
    );
    assert_eq!(e.registreringsdato_enhetsregisteret, date("1995-03-12"));
    assert_eq!(e.stiftelsesdato, Some(date("1972-09-18")));
    let fa = e.forretningsadresse.as_ref().unwrap();
    assert_eq!(fa.street().as_deref(), Some("Forusbeen 50"));
    assert_eq!(
        (fa.postnummer.as_deref(), fa.poststed.as_deref()),
        (Some("4035"), Some("STAVANGER"))
    );
    assert_eq!(fa.kommunenummer.as_deref(), Some("1103"));
    assert_eq!(
        e.postadresse.as_ref().unwrap().street().as_deref(),
        Some("Postboks 8500")
    );
    let codes: Vec<&str> = e
        .naeringskoder()
        .iter()
        .filter_map(|k| k.kode.as_deref())
        .collect();
    assert_eq!(codes, ["06.100", "06.200", "19.200"]);
    assert_eq!(e.employees(), Employees::Count(21239));
    assert_eq!(e.vat_number().as_deref(), Some("NO923609016MVA"));
    assert_eq!(e.status(), EnhetStatus::Active);
    assert_eq!(e.kapital.as_ref().unwrap().belop, 5_976_872_600.0);
    assert_eq!(e.historiske_navn.len(), 4);
    // The sandbox logged the call under the plug-in's name, with the request id sent.
    let calls = h.sb.control().calls_for(SOURCE);
    assert_eq!(calls.len(), 1);
    assert_eq!(
        calls[0].path,
        "/no-brreg/enhetsregisteret/api/enheter/923609016"
    );
    assert!(calls[0].request_id.is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn synthetic_companies_map_field_by_field_to_what_the_sandbox_holds() {
    let h = start();
    let handy = h.brreg.handy();
    for n in [
        &handy.active_as,
        &handy.active_asa,
        &handy.active_enk,
        &handy.active_nuf,
        &handy.active_ans,
        &handy.one_to_four_employees,
        &handy.no_employees,
        &handy.new_in_feed,
    ] {
        let want = h.brreg.enhet_json(n).expect("held");
        let e = active(ok(h.enhet(n).await));
        assert_eq!(e.organisasjonsnummer, *n);
        assert_eq!(e.navn, want["navn"]);
        assert_eq!(e.organisasjonsform.kode, want["organisasjonsform"]["kode"]);
        assert_eq!(
            e.organisasjonsform.beskrivelse,
            want["organisasjonsform"]["beskrivelse"]
        );
        assert_eq!(
            e.registreringsdato_enhetsregisteret.to_string(),
            want["registreringsdatoEnhetsregisteret"]
        );
        let fa = e.forretningsadresse.as_ref().unwrap();
        let wa = &want["forretningsadresse"];
        assert_eq!(fa.adresse, wa["adresse"].as_array().unwrap().clone());
        assert_eq!(fa.poststed.as_deref(), wa["poststed"].as_str());
        assert_eq!(fa.postnummer.as_deref(), wa["postnummer"].as_str());
        assert_eq!(fa.kommunenummer.as_deref(), wa["kommunenummer"].as_str());
        assert_eq!(fa.landkode.as_deref(), wa["landkode"].as_str());
        assert_eq!(
            e.postadresse.as_ref().map(|p| p.adresse.clone()),
            want["postadresse"]["adresse"]
                .as_array()
                .map(|a| a.iter().map(|l| l.as_str().unwrap().to_owned()).collect())
        );
        let nace = e.naeringskode1.as_ref().unwrap();
        assert_eq!(nace.kode.as_deref(), want["naeringskode1"]["kode"].as_str());
        assert_eq!(
            nace.beskrivelse.as_deref(),
            want["naeringskode1"]["beskrivelse"].as_str()
        );
        // The employees rule: a count, the flag without a count (1-4), or neither.
        let expected = match (
            want["antallAnsatte"].as_u64(),
            want["harRegistrertAntallAnsatte"].as_bool().unwrap(),
        ) {
            (Some(n), _) => Employees::Count(n),
            (None, true) => Employees::OneToFour,
            (None, false) => Employees::None,
        };
        assert_eq!(e.employees(), expected, "{n}");
        assert_eq!(
            e.registrert_i_mvaregisteret,
            want["registrertIMvaregisteret"] == true
        );
        assert_eq!(e.vat_number().is_some(), e.registrert_i_mvaregisteret);
        assert_eq!(
            e.stiftelsesdato.map(|d| d.to_string()),
            want["stiftelsesdato"].as_str().map(str::to_owned)
        );
        assert_eq!(
            e.kapital.as_ref().map(|k| k.belop),
            want["kapital"]["belop"].as_f64()
        );
        assert_eq!(e.status(), EnhetStatus::Active);
    }
    // The categories are what they say.
    let by = |n: &str| h.brreg.enhet_json(n).unwrap();
    assert_eq!(
        by(&handy.one_to_four_employees)["harRegistrertAntallAnsatte"],
        true
    );
    assert!(by(&handy.one_to_four_employees)
        .get("antallAnsatte")
        .is_none());
    let nuf = active(ok(h.enhet(&handy.active_nuf).await));
    assert!(nuf.forretningsadresse.as_ref().unwrap().is_foreign());
    let new = active(ok(h.enhet(&handy.new_in_feed).await));
    assert!(new.naeringskoder().is_empty(), "00.000 is no industry code");
    let enk = active(ok(h.enhet(&handy.active_enk).await));
    assert_eq!(enk.organisasjonsform.kode, "ENK");
}

#[tokio::test(flavor = "multi_thread")]
async fn statuses_are_derived_from_the_flags() {
    let h = start();
    let handy = h.brreg.handy();
    let summary = |n: &str| h.brreg.company(n).unwrap();
    let since = |n: &str| summary(n).status_date.map(|d| date(&d));
    let status = |a: EnhetAnswer| a.status().expect("a status");

    let s = status(ok(h.enhet(&handy.bankrupt).await));
    assert_eq!(
        s,
        EnhetStatus::Bankrupt {
            since: since(&handy.bankrupt)
        }
    );
    let s = status(ok(h.enhet(&handy.winding_up).await));
    assert_eq!(
        s,
        EnhetStatus::WindingUp {
            since: since(&handy.winding_up)
        }
    );
    let s = status(ok(h.enhet(&handy.compulsory_dissolution).await));
    assert_eq!(s.name(), "compulsory_dissolution");
    assert_eq!(s.since(), since(&handy.compulsory_dissolution));
    let r = active(ok(h.enhet(&handy.restructuring).await));
    assert_eq!(r.status(), EnhetStatus::Active);
    assert!(r.restructuring_since().is_some());

    // The recorded ones.
    let s = status(ok(h.enhet("915330193").await));
    assert_eq!(
        s,
        EnhetStatus::Bankrupt {
            since: Some(date("2026-08-26"))
        }
    );
    let s = status(ok(h.enhet("931744682").await));
    assert_eq!(s.since(), Some(date("2026-06-04")));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deleted_company_is_a_slettet_enhet_and_has_no_roles() {
    let h = start();
    let handy = h.brreg.handy();
    for (n, on) in [
        ("989566733".to_owned(), Some(date("2026-09-15"))),
        (
            handy.deleted.clone(),
            h.brreg
                .company(&handy.deleted)
                .unwrap()
                .status_date
                .map(|d| date(&d)),
        ),
    ] {
        let step = h.enhet(&n).await;
        let call = one_call(&step, OP_ENHET.name);
        assert_eq!(call.status, Some(200));
        assert!(call.usable);
        let a = ok(step);
        let EnhetAnswer::Slettet(s) = &a else {
            panic!("not deleted: {a:?}");
        };
        assert_eq!(s.organisasjonsnummer, n);
        assert!(!s.navn.is_empty());
        assert_eq!(
            a.status(),
            Some(EnhetStatus::Deleted {
                on: on.expect("a date")
            })
        );
        let r = ok(h.roller(&n).await);
        assert_eq!(
            r,
            RollerAnswer::Roller(adapters_no::Roller {
                rollegrupper: Vec::new()
            })
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_number_is_not_found_and_usable() {
    let h = start();
    let unknown = h.brreg.handy().unknown;
    let step = h.enhet(&unknown).await;
    let call = one_call(&step, OP_ENHET.name);
    assert_eq!(call.status, Some(404));
    assert!(call.usable, "a definite not-found is a usable answer");
    // No body: the digest is of nothing.
    assert_eq!(
        call.digest.as_deref(),
        Some("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    );
    assert_eq!(step.result.unwrap_err(), RegistryFailure::NotFound);
    let step = h.roller(&unknown).await;
    assert!(one_call(&step, OP_ROLLER.name).usable);
    assert_eq!(step.result.unwrap_err(), RegistryFailure::NotFound);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_withdrawn_company_is_gone_not_deleted() {
    let h = start();
    let handy = h.brreg.handy();
    for n in [handy.gone.clone(), handy.recorded_gone.clone()] {
        let step = h.enhet(&n).await;
        let call = one_call(&step, OP_ENHET.name);
        assert_eq!(call.status, Some(410));
        assert!(call.usable);
        let a = ok(step);
        let EnhetAnswer::Gone(g) = &a else {
            panic!("not gone: {a:?}");
        };
        assert_eq!(g.organisasjonsnummer, n);
        assert!(g.slettedato.is_some());
        assert_eq!(a.status(), None, "a withdrawn entity is not shown");
        let step = h.roller(&n).await;
        assert_eq!(one_call(&step, OP_ROLLER.name).status, Some(410));
        assert_eq!(ok(step), RollerAnswer::Gone);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn roles_carry_persons_with_names_and_birth_dates_only() {
    let h = start();
    let handy = h.brreg.handy();
    let roller = |a: RollerAnswer| match a {
        RollerAnswer::Roller(r) => r,
        RollerAnswer::Gone => panic!("gone"),
    };
    let synthetic = |r: &adapters_no::Roller| {
        for (_, p) in r.persons() {
            assert!(SYNTHETIC_GIVEN_NAMES.contains(&p.navn.fornavn.as_str()));
            assert!(SYNTHETIC_SURNAMES.contains(&p.navn.etternavn.as_str()));
            assert!(p.fodselsdato > date("1940-01-01") && p.fodselsdato < date("2010-01-01"));
        }
    };

    let step = h.roller(&handy.active_as).await;
    let call = one_call(&step, "GET /enhetsregisteret/api/enheter/{orgnr}/roller");
    assert_eq!(call.schema_version.as_deref(), Some(media::ROLLE_V1));
    let r = roller(ok(step));
    synthetic(&r);
    assert_eq!(r.current("DAGL").len(), 1);
    assert_eq!(r.current("LEDE").len(), 1);
    let revi = r.current("REVI");
    let Innehaver::Enhet(auditor) = &revi[0].innehaver else {
        panic!("the auditor is an entity");
    };
    assert_eq!(
        auditor.godkjenningsstatus.as_deref(),
        Some("Godkjent revisjonsforetak")
    );
    let firm = active(ok(h.enhet(&auditor.organisasjonsnummer).await));
    assert_eq!(firm.navn, auditor.name());

    // A sole proprietorship's owner is the person its name names.
    let enk = active(ok(h.enhet(&handy.active_enk).await));
    let r = roller(ok(h.roller(&handy.active_enk).await));
    let owner = r.current("INNH");
    let Innehaver::Person(p) = &owner[0].innehaver else {
        panic!("an ENK's owner is a person");
    };
    assert!(enk
        .navn
        .starts_with(&format!("{} {}", p.navn.fornavn, p.navn.etternavn).to_uppercase()));

    let r = roller(ok(h.roller(&handy.active_ans).await));
    assert!(r.current("DTSO").len() >= 2);
    synthetic(&r);
    let r = roller(ok(h.roller(&handy.bankrupt).await));
    assert!(matches!(
        r.current("BOBE")[0].innehaver,
        Innehaver::Bostyrer(_)
    ));

    // The recorded roles of a listed company, persons synthetic.
    let r = roller(ok(h.roller("923609016").await));
    synthetic(&r);
    assert_eq!(r.persons().len(), 15);
    let recorded_bankrupt = roller(ok(h.roller("915330193").await));
    synthetic(&recorded_bankrupt);

    // What the wire carries about a person: a name and a birth date, never a number.
    for n in [&handy.active_as, &handy.active_enk, &"923609016".to_owned()] {
        let body: Value = h
            .raw(&format!("/enheter/{n}/roller"), Some(media::ROLLE_V1))
            .await
            .json()
            .await
            .unwrap();
        for g in body["rollegrupper"].as_array().unwrap() {
            for role in g["roller"].as_array().unwrap() {
                if let Some(p) = role.get("person") {
                    let mut keys: Vec<&str> =
                        p.as_object().unwrap().keys().map(String::as_str).collect();
                    keys.sort_unstable();
                    assert_eq!(keys, ["erDoed", "fodselsdato", "navn"]);
                }
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_update_feed_reports_scripted_changes_and_reset_undoes_them() {
    let h = start();
    let handy = h.brreg.handy();
    let target = handy.active_as.clone();
    let head = h.head().await;
    assert_eq!(head, h.brreg.last_oppdateringsid());
    let old_name = h.brreg.company(&target).unwrap().navn;

    // A name and a bankruptcy, scripted over the control route.
    let r = h
        .control_post(
            &target,
            json!({"name": "PRØVESTAD OMSTILLING AS", "status": "bankrupt", "status_date": "2026-11-20"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let outcome: ChangeOutcome = r.json().await.unwrap();
    assert_eq!(outcome.oppdateringer, [head + 1, head + 2]);
    assert_eq!(outcome.company.status, "bankrupt");

    let page = h
        .feed(&FeedQuery::from_oppdateringsid(head + 1).include_changes())
        .await;
    assert_eq!(page.oppdateringer.len(), 2);
    assert!(page.is_last());
    assert_eq!(page.next_oppdateringsid(), Some(head + 3));
    let (rename, bankrupt) = (&page.oppdateringer[0], &page.oppdateringer[1]);
    for o in [rename, bankrupt] {
        assert_eq!(o.organisasjonsnummer, target);
        assert_eq!(o.endringstype, Endringstype::Endring);
    }
    assert!(rename.dato < bankrupt.dato);
    let paths = |o: &adapters_no::brreg::model::Oppdatering| -> Vec<String> {
        o.endringer
            .as_ref()
            .unwrap()
            .iter()
            .map(|p| p.path.clone())
            .collect()
    };
    assert_eq!(paths(rename)[0], "/navn");
    assert_eq!(paths(bankrupt), ["/konkurs", "/konkursdato"]);
    // Without includeChanges there is no patch.
    let bare = h.feed(&FeedQuery::from_oppdateringsid(head + 1)).await;
    assert!(bare.oppdateringer.iter().all(|o| o.endringer.is_none()));

    // Re-fetching the entity shows the new state.
    let e = active(ok(h.enhet(&target).await));
    assert_eq!(e.navn, "PRØVESTAD OMSTILLING AS");
    assert_eq!(
        e.status(),
        EnhetStatus::Bankrupt {
            since: Some(date("2026-11-20"))
        }
    );
    assert_eq!(e.historiske_navn.last().unwrap().navn, old_name);
    let trustees = match ok(h.roller(&target).await) {
        RollerAnswer::Roller(r) => r.current("BOBE").len(),
        RollerAnswer::Gone => 0,
    };
    assert_eq!(trustees, 1, "a bankruptcy brings a trustee");

    // Deletion and withdrawal.
    let r = h
        .control_post(
            &target,
            json!({"status": "deleted", "status_date": "2026-11-25"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let other = handy.active_asa.clone();
    let r = h.control_post(&other, json!({"status": "gone"})).await;
    assert_eq!(r.status(), 200);
    let page = h.feed(&FeedQuery::from_oppdateringsid(head + 3)).await;
    let kinds: Vec<(&str, &Endringstype)> = page
        .oppdateringer
        .iter()
        .map(|o| (o.organisasjonsnummer.as_str(), &o.endringstype))
        .collect();
    assert_eq!(
        kinds,
        [
            (target.as_str(), &Endringstype::Sletting),
            (other.as_str(), &Endringstype::Fjernet)
        ]
    );
    assert_eq!(
        ok(h.enhet(&target).await).status(),
        Some(EnhetStatus::Deleted {
            on: date("2026-11-25")
        })
    );
    assert!(matches!(ok(h.enhet(&other).await), EnhetAnswer::Gone(_)));
    // A deleted entity is final.
    let r = h.control_post(&target, json!({"status": "active"})).await;
    assert_eq!(r.status(), 409);
    // Caught up: the next id gives an empty page.
    let caught_up = h.feed(&FeedQuery::from_oppdateringsid(head + 5)).await;
    assert!(caught_up.oppdateringer.is_empty());

    // A reset puts the register and the feed back.
    let r = h
        .http
        .post(format!("{}/reset", h.sb.control_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(h.head().await, head);
    assert_eq!(
        active(ok(h.enhet(&target).await)).status(),
        EnhetStatus::Active
    );
    assert!(matches!(ok(h.enhet(&other).await), EnhetAnswer::Enhet(_)));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_feed_pages_by_oppdateringsid_and_filters_by_time_and_entity() {
    let h = start();
    // From the very first entry, pages of 25 until caught up.
    let first = h.feed(&FeedQuery::from_oppdateringsid(1).size(25)).await;
    let total = first.page.unwrap().total_elements;
    assert!(total > 30, "{total}");
    let mut ids: Vec<u64> = first
        .oppdateringer
        .iter()
        .map(|o| o.oppdateringsid)
        .collect();
    let mut next = first.next_oppdateringsid();
    while let Some(from) = next {
        let page = h.feed(&FeedQuery::from_oppdateringsid(from).size(25)).await;
        ids.extend(page.oppdateringer.iter().map(|o| o.oppdateringsid));
        next = page.next_oppdateringsid();
    }
    assert_eq!(ids.len() as u64, total);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    // The recorded entries come first, with their real ids.
    assert_eq!(ids[0], 24_146_813);

    // By time and entity: the recorded empty page's question gets the same empty answer.
    let since = chrono::DateTime::parse_from_rfc3339("2026-09-20T00:00:00.000Z")
        .unwrap()
        .with_timezone(&chrono::Utc);
    let none = h
        .feed(
            &FeedQuery::from_dato(since)
                .for_entities(&[orgnr("984851006")])
                .include_changes(),
        )
        .await;
    assert!(none.oppdateringer.is_empty());
    assert_eq!(none.page.unwrap().total_elements, 0);
    let later = h.feed(&FeedQuery::from_dato(since).size(1000)).await;
    assert!(later.oppdateringer.iter().all(|o| o.dato >= since));
    assert!(!later.oppdateringer.is_empty());
    let equinor = h
        .feed(&FeedQuery::from_oppdateringsid(1).for_entities(&[orgnr("923609016")]))
        .await;
    assert_eq!(equinor.oppdateringer.len(), 8);
}

#[tokio::test(flavor = "multi_thread")]
async fn faults_are_classified_and_recorded_unusable() {
    let h = start();
    let n = "923609016";
    for (spec, unavailable) in [
        (FaultSpec::http_5xx(500), true),
        (FaultSpec::http_5xx(503), true),
        (FaultSpec::timeout(), true),
        (FaultSpec::malformed(), false),
    ] {
        let kind = format!("{:?}", spec.kind);
        h.sb.control()
            .inject_fault(SOURCE, spec.clone().times(1))
            .unwrap();
        let step = h.enhet(n).await;
        let call = one_call(&step, OP_ENHET.name);
        assert!(!call.usable, "{kind}");
        let failure = step.result.unwrap_err();
        match &failure {
            RegistryFailure::Unavailable(_) => assert!(unavailable, "{kind}"),
            RegistryFailure::Garbled(_) => assert!(!unavailable, "{kind}"),
            RegistryFailure::NotFound | RegistryFailure::Withdrawn => {
                panic!("a fault read as not found")
            }
        }
        let why = failure.to_string();
        assert!(why.contains(OP_ENHET.name), "{why}");
        assert!(!why.contains(n), "{why}");
        if spec.kind == upstream_sandbox::FaultKind::Timeout {
            assert_eq!(call.status, None, "no answer within the limit");
            assert_eq!(call.digest, None);
        } else {
            assert!(call.status.is_some());
        }
    }
    // The roles and the feed are classified the same way.
    h.sb.control()
        .inject_fault(SOURCE, FaultSpec::malformed().times(1))
        .unwrap();
    let step = h.roller(n).await;
    assert!(!one_call(&step, OP_ROLLER.name).usable);
    assert!(matches!(step.result, Err(RegistryFailure::Garbled(_))));
    h.sb.control()
        .inject_fault(SOURCE, FaultSpec::http_5xx(502).times(1))
        .unwrap();
    let step = h.client.fetch_oppdateringer(&FeedQuery::newest()).await;
    assert!(!one_call(&step, OP_OPPDATERINGER.name).usable);
    assert!(matches!(step.result, Err(RegistryFailure::Unavailable(_))));
    // Once the faults are spent, the register answers again.
    assert!(h.enhet(n).await.result.is_ok());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_wire_format_is_the_registers() {
    let h = start();
    let base = h.sb.plugin_base_url(NAME);
    let ct = |r: &reqwest::Response| {
        r.headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_owned())
    };

    // Content negotiation.
    let r = h.raw("/enheter/923609016", Some(media::ENHET_V2)).await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        ct(&r).as_deref(),
        Some("application/vnd.brreg.enhetsregisteret.enhet.v2+json;charset=UTF-8")
    );
    // Served byte for byte, its links pointed at the sandbox.
    let recorded = include_str!("../testdata/entity/enhet-923609016-equinor.json").replace(
        "https://data.brreg.no/enhetsregisteret/api",
        &format!("{base}/enhetsregisteret/api"),
    );
    assert_eq!(r.text().await.unwrap(), recorded);
    let r = h.raw("/enheter/923609016", None).await;
    assert_eq!(ct(&r).as_deref(), Some("application/json"));
    let r = h
        .raw(
            "/enheter/923609016",
            Some("application/vnd.brreg.enhetsregisteret.enhet.v1+json"),
        )
        .await;
    assert_eq!(r.status(), 406);
    let r = h.raw("/enheter/923609016/roller", Some("text/html")).await;
    assert_eq!(r.status(), 415);
    let r = h
        .raw("/oppdateringer/enheter", Some(media::OPPDATERING_ENHET_V1))
        .await;
    assert_eq!(
        ct(&r).as_deref(),
        Some("application/vnd.brreg.enhetsregisteret.oppdatering.enhet.v1+json;charset=UTF-8")
    );

    // A synthetic entity is HAL with links to the sandbox, and absent keys, not nulls.
    let n = h.brreg.handy().no_employees;
    let body: Value = h
        .raw(&format!("/enheter/{n}"), Some(media::ENHET_V2))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        body["_links"]["self"]["href"],
        format!("{base}/enhetsregisteret/api/enheter/{n}")
    );
    assert_eq!(body["respons_klasse"], "Enhet");
    assert!(body.get("antallAnsatte").is_none());
    assert!(body.as_object().unwrap().values().all(|v| !v.is_null()));

    // 400 for a number that is not nine digits, in the register's shape.
    let r = h.raw("/enheter/9ECD01011/roller", None).await;
    assert_eq!(r.status(), 400);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["status"], 400);
    assert_eq!(body["feilmelding"], "Feilaktig forespørsel");
    assert_eq!(
        body["sti"],
        "/enhetsregisteret/api/enheter/9ECD01011/roller"
    );
    assert_eq!(body["antallFeil"], 1);
    assert_eq!(body["valideringsfeil"][0]["feilaktigVerdi"], "9ECD01011");
    assert!(body["tidsstempel"].as_i64().unwrap() > 1_600_000_000_000);
    // A wrong check digit is only "not found": the register checks the shape.
    let r = h.raw("/enheter/923609017", None).await;
    assert_eq!(r.status(), 404);
    assert!(r.bytes().await.unwrap().is_empty());

    // 410 carries a GoneEnhet.
    let r = h
        .raw(&format!("/enheter/{}", h.brreg.handy().gone), None)
        .await;
    assert_eq!(r.status(), 410);
    let body: Value = r.json().await.unwrap();
    let mut keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, ["_links", "organisasjonsnummer", "slettedato"]);

    // The recorded feed question gets the recorded entries (hrefs aside).
    let q = "/oppdateringer/enheter?organisasjonsnummer=923609016&dato=2026-03-25T00:00:00.000Z&includeChanges=true&size=100&sort=id,DESC";
    let got: Value = h.raw(q, None).await.json().await.unwrap();
    let want: Value = serde_json::from_str(
        &include_str!("../testdata/feeds/oppdateringer-enheter-923609016-includeChanges.json")
            .replace(
                "https://data.brreg.no/enhetsregisteret/api",
                &format!("{base}/enhetsregisteret/api"),
            ),
    )
    .unwrap();
    assert_eq!(got, want);
    // An empty page has no `_embedded`.
    let q = "/oppdateringer/enheter?organisasjonsnummer=984851006&dato=2026-09-20T00:00:00.000Z&includeChanges=true&size=100&sort=id,DESC";
    let got: Value = h.raw(q, None).await.json().await.unwrap();
    let want: Value = serde_json::from_str(
        &include_str!("../testdata/feeds/oppdateringer-enheter-empty-page.json").replace(
            "https://data.brreg.no/enhetsregisteret/api",
            &format!("{base}/enhetsregisteret/api"),
        ),
    )
    .unwrap();
    assert_eq!(got, want);
    // A page of several has Spring's paging links.
    let got: Value = h
        .raw(
            "/oppdateringer/enheter?oppdateringsid=1&size=5&page=1",
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    for link in ["first", "prev", "self", "next", "last"] {
        assert!(
            got["_links"][link]["href"]
                .as_str()
                .unwrap()
                .starts_with(&base),
            "{link}"
        );
    }
    assert_eq!(got["page"]["number"], 1);
    let r = h.raw("/oppdateringer/enheter?size=0", None).await;
    assert_eq!(r.status(), 400);

    // An injected 500 in Spring's shape.
    h.sb.control()
        .inject_fault(SOURCE, FaultSpec::http_5xx(500).times(1))
        .unwrap();
    let r = h.raw("/enheter/923609016", None).await;
    assert_eq!(r.status(), 500);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"], "Internal Server Error");
    assert_eq!(body["path"], "/enhetsregisteret/api/enheter/923609016");
    assert_eq!(body["trace"].as_str().unwrap().len(), 36);
    assert!(body["timestamp"].as_str().unwrap().ends_with("+0000"));

    // Unknown routes and methods.
    let r = h.raw("/kommuner", None).await;
    assert_eq!(r.status(), 404);
    let r = h
        .http
        .post(format!("{base}/enhetsregisteret/api/enheter/923609016"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 405);
}

#[tokio::test(flavor = "multi_thread")]
async fn control_routes_list_show_and_refuse() {
    let h = start();
    let control = format!("{}/plugins/{NAME}", h.sb.control_url());
    let list: Value = h
        .http
        .get(format!(
            "{control}/companies?form=NUF&status=active&limit=3"
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let list: Vec<CompanySummary> = serde_json::from_value(list["companies"].clone()).unwrap();
    assert_eq!(list.len(), 3);
    assert!(list
        .iter()
        .all(|c| c.organisasjonsform == "NUF" && c.status == "active" && !c.recorded));
    let recorded: Value = h
        .http
        .get(format!("{control}/companies?recorded=true"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(recorded["companies"].as_array().unwrap().len(), 9);
    let handy: Value = h
        .http
        .get(format!("{control}/handy"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(handy["recorded_active"], "923609016");
    let one: CompanySummary = h
        .http
        .get(format!("{control}/companies/923609016"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(one.navn, "EQUINOR ASA");
    assert!(one.recorded);

    let handy = h.brreg.handy();
    let r = h
        .control_post(&handy.active_as, json!({"colour": "red"}))
        .await;
    assert_eq!(r.status(), 400);
    let r = h
        .control_post(&handy.active_as, json!({"status": "asleep"}))
        .await;
    assert_eq!(r.status(), 400);
    let r = h
        .control_post(&handy.unknown, json!({"status": "bankrupt"}))
        .await;
    assert_eq!(r.status(), 404);
    let r = h
        .control_post(&handy.gone, json!({"name": "NYTT NAVN AS"}))
        .await;
    assert_eq!(r.status(), 409);
    let r = h
        .http
        .get(format!("{control}/nothing"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    // In process as over HTTP.
    let out = h
        .brreg
        .change(
            &handy.winding_up,
            &CompanyChange {
                status: Some(StatusChange::Active),
                ..CompanyChange::default()
            },
        )
        .unwrap();
    assert_eq!(out.company.status, "active");
    // Nothing here reached the register's routes but the control ones.
    assert!(h.sb.control().calls_for(SOURCE).is_empty());
}
