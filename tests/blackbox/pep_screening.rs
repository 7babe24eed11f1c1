//! PEP screening over real HTTP and the real store, with the UN list and a FollowTheMoney
//! PEP list (the synthetic sample of invented people, plus dated records written relative to
//! the app's clock) imported as the operator imports them: a PEP, a relative and an
//! associate found with why they are listed and never as hits; a former PEP inside and
//! outside the policy's window; a person subject found on a PEP list with the register's
//! fields masked; a tenant whose policy leaves PEP lists out; and an officer of a monitored
//! company added to (then dropped from) a PEP list version giving one outcome change each,
//! delivered by webhook.

use crate::ongoing_screening::{
    company_subject, events_of, monitored_officer, rescreen, subscribe,
};
use crate::persons::with_permit;
use crate::screening::{check, checked, consumer, import_un, publish_policy};
use crate::webhooks::{create, dispatch, Receiver};
use adapters_screening::{read_path, ListFormat};
use blackbox::TestApp;
use chrono::{Duration, NaiveDate};
use domain::screening::policy::OverrideConfig;
use domain::screening::sanctions::SourceVersion;
use serde_json::{json, Value};
use upstream_sandbox::spar::persons;

const SAMPLE: &str = "../crates/adapters-screening/testdata/pep/synthetic-peps.ftm.json";
const SCOPES: &str = "screening:run screening:read kyb:read";
/// The sandbox's ordinary person (a Skatteverket test identity), as the register names them.
const PERSON_NAME: &str = "Christina Birgitta Ulrika Thomeaus Efternamn3542";

/// An FtM line.
fn line(v: Value) -> String {
    format!("{v}\n")
}

/// A person with `role.pep` holding `office` from 2018 to `left` (`None`: still in office).
fn pep_lines(id: &str, name: &str, birth: &str, left: Option<NaiveDate>) -> String {
    let mut occupancy = json!({"holder": [id], "post": ["t-pos-parliament"], "startDate": ["2018-09-24"],
        "status": [if left.is_some() { "ended" } else { "current" }]});
    if let Some(left) = left {
        occupancy["endDate"] = json!([left.to_string()]);
    }
    line(
        json!({"id": id, "schema": "Person", "target": true, "properties": {
        "name": [name], "birthDate": [birth], "country": ["se"], "topics": ["role.pep"]}}),
    ) + &line(
        json!({"id": format!("{id}-occ"), "schema": "Occupancy", "target": false,
            "properties": occupancy}),
    )
}

/// The sample with a former member of parliament who left six months ago (inside the
/// default 12-month window) and one who left thirty months ago (outside it), plus `extra`.
fn pep_file(today: NaiveDate, extra: &str) -> Vec<u8> {
    let sample = std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE))
        .expect("the PEP sample");
    let mut text = String::from_utf8(sample).unwrap();
    text += &line(
        json!({"id": "t-pos-parliament", "schema": "Position", "target": false,
        "properties": {"name": ["Member of the Test Parliament of Sweden"], "country": ["se"]}}),
    );
    text += &pep_lines(
        "t-greta",
        "Greta Formersson",
        "1961-03-03",
        Some(today - Duration::days(183)),
    );
    text += &pep_lines(
        "t-bertil",
        "Bertil Lapsedsson",
        "1955-05-05",
        Some(today - Duration::days(915)),
    );
    text += extra;
    text.into_bytes()
}

/// Imports a PEP file as the operator would (`idreg lists import --format ftm-pep`).
async fn import_peps(app: &TestApp, bytes: Vec<u8>) -> SourceVersion {
    let path = std::env::temp_dir().join(format!(
        "idreg-peps-{}.ftm.json",
        ulid::Ulid::generate().to_string().to_lowercase()
    ));
    std::fs::write(&path, bytes).unwrap();
    let read = {
        let path = path.clone();
        tokio::task::spawn_blocking(move || read_path(&path, Some(ListFormat::FtmPep)))
            .await
            .unwrap()
            .expect("the PEP file reads")
    };
    let _ = std::fs::remove_file(&path);
    assert_eq!(read.list.skipped, Vec::<String>::new());
    app.app
        .services
        .lists
        .import(read.list, &read.digest)
        .await
        .expect("importing the PEP list")
        .version()
        .clone()
}

async fn ready() -> (TestApp, SourceVersion, SourceVersion) {
    let app = TestApp::spawn().await;
    let un = import_un(&app).await;
    let peps = import_peps(&app, pep_file(app.clock_now().date_naive(), "")).await;
    publish_policy(&app).await;
    (app, un, peps)
}

/// The candidates of a check from the PEP list.
fn pep_candidates(check: &Value) -> Vec<&Value> {
    check["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["list_kind"] == "pep")
        .collect()
}

fn reason<'a>(candidate: &'a Value, code: &str) -> &'a str {
    candidate["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["code"] == code)
        .unwrap_or_else(|| panic!("no reason {code}: {candidate}"))["detail"]
        .as_str()
        .unwrap()
}

fn codes(candidate: &Value) -> Vec<&str> {
    candidate["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["code"].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pep_her_relatives_and_associates_are_found_with_why_and_never_as_hits() {
    let (app, un, peps) = ready().await;
    let (who, token) = consumer(&app, SCOPES).await;

    // The minister, her name and birth date exact: a full score, and still `review`.
    let a = checked(
        &app,
        &token,
        json!({"name": "Astrid Provholm", "birth_date": "1968-04-09"}),
    )
    .await;
    let k = &a.body;
    assert_eq!(k["band"], "review", "{}", a.text);
    let found = pep_candidates(k);
    assert_eq!(found.len(), 1, "{}", a.text);
    let c = found[0];
    assert_eq!(c["source_id"], "ftm_peps");
    assert_eq!(c["entity_id"], "ftm_peps:synth-se-p-provholm-astrid");
    assert_eq!(c["band"], "review");
    assert_eq!(c["score"], 1.0);
    assert_eq!(
        reason(c, "pep_position"),
        "Minister of Test Affairs (SE), in office since 2022-10-18"
    );
    assert!(reason(c, "pep_not_sanction").contains("at most `review`"));
    let exposure = &c["listing"]["exposure"];
    assert_eq!(exposure["roles"], json!(["pep"]));
    assert_eq!(
        exposure["positions"][0],
        json!({"title": "Minister of Test Affairs", "country": "SE", "start": "2022-10-18",
               "end": null, "status": "current"})
    );
    assert_eq!(exposure["positions"][1]["status"], "ended");
    assert_eq!(c["listing"]["programs"], json!([]));
    // The check ran under both lists' versions, and says so.
    let versions = k["source_version_ids"].as_array().unwrap();
    assert!(versions.contains(&json!(un.id.to_string())));
    assert!(versions.contains(&json!(peps.id.to_string())));
    // A sanctions candidate has no exposure and says it is one.
    let un_check = checked(&app, &token, json!({"name": "Germain Katanga"})).await;
    let sanction = &un_check.body["candidates"][0];
    assert_eq!(sanction["list_kind"], "sanctions");
    assert!(sanction["listing"].get("exposure").is_none());
    assert_eq!(un_check.body["band"], "hit");

    // Her spouse: whose relative and how, with her office.
    let spouse = checked(&app, &token, json!({"name": "Henrik Provholm"})).await;
    let c = pep_candidates(&spouse.body)[0];
    assert_eq!(c["band"], "review");
    assert_eq!(
        reason(c, "pep_relative"),
        "a family member (spouse) of Astrid Provholm: Minister of Test Affairs (SE), in office \
         since 2022-10-18"
    );
    assert_eq!(
        c["listing"]["exposure"]["relations"][0]["pep_entry_id"],
        "synth-se-p-provholm-astrid"
    );
    // Her business partner.
    let a = checked(&app, &token, json!({"name": "Magnus Exempelsson"})).await;
    let c = pep_candidates(&a.body)[0];
    assert!(reason(c, "pep_associate")
        .starts_with("a close associate (business partner (joint beneficial owner of a company)) of Astrid Provholm"));
    // A Lithuanian member of the Seimas, written without her diacritics.
    let a = checked(&app, &token, json!({"name": "Ruta Bandymaite"})).await;
    let c = pep_candidates(&a.body)[0];
    assert_eq!(c["entity_id"], "ftm_peps:synth-lt-p-bandymaite-ruta");
    assert!(reason(c, "pep_position").starts_with("Member of the Test Seimas of Lithuania (LT)"));

    // A councillor below the PEP threshold is no PEP.
    let a = checked(&app, &token, json!({"name": "Nils Övningsberg"})).await;
    assert!(pep_candidates(&a.body).is_empty(), "{}", a.text);

    // An analyst opening the spouse's check in the portal reads the same: which kind of list,
    // and whose relative with which office.
    app.app
        .services
        .portal_admin
        .create_user(&who.tenant_id, "analyst@example.se", "member", None)
        .await
        .expect("a portal user");
    let analyst = blackbox::portal::sign_in_as(&app, "analyst@example.se").await;
    let page = analyst
        .http
        .get(format!(
            "{}/screening/{}",
            analyst.portal,
            spouse.body["id"].as_str().unwrap()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let page = page.text().await.unwrap();
    assert!(
        page.contains(r#"<dd class="list-kind">politically exposed person (PEP)</dd>"#),
        "{page}"
    );
    assert!(
        page.contains(
            "Family member (spouse) of Astrid Provholm: Minister of Test Affairs (SE), current"
        ),
        "{page}"
    );
    assert!(page.contains("pep_not_sanction"), "{page}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_former_pep_counts_through_the_window_then_is_clear() {
    let (app, _, _) = ready().await;
    let (_, token) = consumer(&app, SCOPES).await;
    let today = app.clock_now().date_naive();

    let a = checked(&app, &token, json!({"name": "Greta Formersson"})).await;
    let c = pep_candidates(&a.body)[0];
    assert_eq!(c["band"], "review");
    let left = today - Duration::days(183);
    let detail = reason(c, "pep_former");
    assert!(
        detail.contains(&format!("left {left}"))
            && detail.contains("12 months after leaving office"),
        "{detail}"
    );
    assert_eq!(a.body["band"], "review");

    // Left thirty months ago: shown, explained, and clear.
    let a = checked(&app, &token, json!({"name": "Bertil Lapsedsson"})).await;
    let c = pep_candidates(&a.body)[0];
    assert_eq!(c["band"], "clear");
    assert_eq!(
        codes(c)[codes(c).len() - 2..],
        ["pep_former_lapsed", "pep_lapsed"]
    );
    assert_eq!(a.body["band"], "clear", "{}", a.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_person_subject_on_a_pep_list_is_found_with_the_registers_fields_masked() {
    let app = TestApp::spawn().await;
    import_un(&app).await;
    let today = app.clock_now().date_naive();
    let extra = pep_lines("t-christina", PERSON_NAME, "1957-04-13", None);
    import_peps(&app, pep_file(today, &extra)).await;
    publish_policy(&app).await;
    let (_, token) = with_permit(&app, "screening:run kyc:read kyb:read").await;
    let dashed = format!("{}-{}", &persons::ORDINARY[..8], &persons::ORDINARY[8..]);
    let r = app.resolve(&token, "personnummer", &dashed, None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let person = r.body["subject_id"].as_str().unwrap().to_owned();

    let a = checked(&app, &token, json!({"subject_id": person})).await;
    let k = &a.body;
    assert_eq!(k["band"], "review", "{}", a.text);
    let c = pep_candidates(k)[0];
    assert_eq!(c["entity_id"], "ftm_peps:t-christina");
    // Name and birth date matched exactly, and the office says why.
    assert!(codes(c).contains(&"birth_date_exact"), "{c}");
    assert!(reason(c, "pep_position").starts_with("Member of the Test Parliament of Sweden (SE)"));
    // As for sanctions: the register's values are neither kept nor shown in the snapshot.
    let s = &k["input_snapshot"];
    assert_eq!(s["person_fields_masked"], true);
    assert!(s["name"].is_null() && s["birth_date"].is_null(), "{s}");
    assert!(!a.text.contains(persons::ORDINARY));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tenant_whose_policy_leaves_peps_out_is_screened_against_sanctions_alone() {
    let (app, un, peps) = ready().await;
    let (out, out_token) = consumer(&app, SCOPES).await;
    let (_, other_token) = consumer(&app, SCOPES).await;
    let admin = &app.app.services.screening_admin;
    let config = OverrideConfig {
        peps_screened: Some(false),
        ..OverrideConfig::default()
    };
    let proposed = admin
        .propose_override(&out.tenant_id, config, "ops-a")
        .await
        .unwrap();
    let id = proposed.id.to_string();
    // Four eyes: the proposer cannot approve it.
    assert!(admin
        .approve_override(&out.tenant_id, &id, "ops-a")
        .await
        .is_err());
    admin
        .approve_override(&out.tenant_id, &id, "ops-b")
        .await
        .unwrap();
    admin.activate_override(&out.tenant_id, &id).await.unwrap();
    let shown = app.get("/v1/screening/overrides", Some(&out_token)).await;
    assert_eq!(shown.status, 200, "{}", shown.text);
    assert_eq!(shown.body["versions"][0]["config"]["peps_screened"], false);

    let a = checked(&app, &out_token, json!({"name": "Astrid Provholm"})).await;
    assert!(pep_candidates(&a.body).is_empty(), "{}", a.text);
    assert_eq!(a.body["band"], "clear");
    assert_eq!(
        a.body["source_version_ids"],
        json!([un.id.to_string()]),
        "the check ran under the sanctions list alone"
    );
    assert_eq!(a.body["tenant_override_version_id"], id.as_str());
    // Sanctions are screened as before.
    let hit = checked(&app, &out_token, json!({"name": "Germain Katanga"})).await;
    assert_eq!(hit.body["band"], "hit");
    // Another tenant under the service's policy still sees her.
    let b = checked(&app, &other_token, json!({"name": "Astrid Provholm"})).await;
    assert_eq!(pep_candidates(&b.body).len(), 1, "{}", b.text);
    assert!(b.body["source_version_ids"]
        .as_array()
        .unwrap()
        .contains(&json!(peps.id.to_string())));
}

#[tokio::test(flavor = "multi_thread")]
async fn only_pep_lists_and_a_policy_leaving_them_out_screen_nothing_and_store_nothing() {
    let app = TestApp::spawn().await;
    import_peps(&app, pep_file(app.clock_now().date_naive(), "")).await;
    publish_policy(&app).await;
    let (c, token) = consumer(&app, SCOPES).await;
    // PEP lists alone are screened under the service's policy.
    let a = checked(&app, &token, json!({"name": "Astrid Provholm"})).await;
    assert_eq!(pep_candidates(&a.body).len(), 1);
    let admin = &app.app.services.screening_admin;
    let o = admin
        .propose_override(
            &c.tenant_id,
            OverrideConfig {
                peps_screened: Some(false),
                ..OverrideConfig::default()
            },
            "ops-a",
        )
        .await
        .unwrap()
        .id
        .to_string();
    admin
        .approve_override(&c.tenant_id, &o, "ops-b")
        .await
        .unwrap();
    admin.activate_override(&c.tenant_id, &o).await.unwrap();
    let refused = check(&app, &token, json!({"name": "Astrid Provholm"})).await;
    assert_eq!(
        (refused.status, refused.error_code()),
        (503, "screening_unavailable"),
        "{}",
        refused.text
    );
    let listed = app.get("/v1/screening/checks", Some(&token)).await;
    assert_eq!(listed.body["checks"].as_array().unwrap().len(), 1);
}

/// An officer of a monitored company becomes a PEP in a new list version: one outcome
/// change, delivered signed to the tenant's webhook; the version without them: one more.
#[tokio::test(flavor = "multi_thread")]
async fn an_officer_who_becomes_a_pep_is_one_outcome_change_delivered_by_webhook() {
    let python = blackbox::test_python("standardwebhooks");
    let app = crate::webhooks::spawn(&[2], Duration::hours(1)).await;
    import_un(&app).await;
    let today = app.clock_now().date_naive();
    import_peps(&app, pep_file(today, "")).await;
    publish_policy(&app).await;
    rescreen(&app).await;
    let scopes = "kyb:read kyb:refresh kyc:read monitoring:subscribe monitoring:read events:read \
                  screening:read";
    let c = app.provision(scopes, "SE", "SE").await;
    app.admin(&["budget", "set", &c.tenant_id, "--daily-paid", "1000"])
        .await
        .unwrap();
    let token = app.token(&c).await;
    let subject = company_subject(&app, &token).await;
    subscribe(&app, &token, &subject, "company").await;
    let receiver = match &python {
        Some(python) => {
            let receiver = Receiver::start(python).await;
            let made = create(
                &app,
                &token,
                json!({"url": format!("{}/hook", receiver.url), "types": ["screening.changed"]}),
            )
            .await;
            receiver
                .control(json!({"secret": made["secret"].as_str().unwrap()}))
                .await;
            Some(receiver)
        }
        None => None,
    };
    // The refresh reads the officers: monitoring's baseline.
    let officer = monitored_officer(&app, &token).await;
    let officer_name = officer["name"].as_str().unwrap().to_owned();
    assert_eq!(rescreen(&app).await.logged, 0);

    // The next PEP list version names the officer as a member of parliament.
    let extra = pep_lines("t-officer", &officer_name, "1960", None);
    import_peps(&app, pep_file(today, &extra)).await;
    let report = rescreen(&app).await;
    assert_eq!(report.logged, 1, "{report:?}");
    let logged = events_of(&app, &token, "screening.changed").await;
    assert_eq!(logged.len(), 1);
    let d = &logged[0]["data"];
    assert_eq!(d["cause"], "list_changed");
    let appeared = d["appeared"].as_array().unwrap();
    assert_eq!(appeared.len(), 1, "{d}");
    assert_eq!(appeared[0]["entity_id"], "ftm_peps:t-officer");
    assert_eq!(appeared[0]["band"], "review");
    assert_eq!(appeared[0]["list_kind"], "pep");
    assert_eq!(appeared[0]["concerns"]["role"], "officer");
    assert_eq!(
        appeared[0]["concerns"]["personal_number_ref"],
        officer["personal_number_ref"]
    );

    // The version without them: they stopped being listed, one more change.
    import_peps(&app, pep_file(today, "")).await;
    assert_eq!(rescreen(&app).await.logged, 1);
    let logged = events_of(&app, &token, "screening.changed").await;
    assert_eq!(logged.len(), 2);
    assert_eq!(
        logged[1]["data"]["disappeared"][0]["entity_id"],
        "ftm_peps:t-officer"
    );
    assert_eq!(logged[1]["data"]["disappeared"][0]["list_kind"], "pep");

    if let Some(receiver) = receiver {
        let sent = dispatch(&app).await;
        assert_eq!((sent.delivered, sent.failed), (2, 0), "{sent:?}");
        let received = receiver.received().await;
        let accepted = received["accepted"].as_array().unwrap();
        assert_eq!(accepted.len(), 2, "{received}");
        assert_eq!(
            accepted[0]["data"]["appeared"][0]["entity_id"],
            "ftm_peps:t-officer"
        );
    }
}
