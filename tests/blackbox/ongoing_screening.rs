//! Ongoing screening over real HTTP and the real store: a monitored company and a monitored
//! person are screened again when a sanctions list's active version changes. A version adding
//! a listing of them logs `screening.changed` with the candidate that appeared and the check
//! made; the same version again logs nothing; the version delisting them logs the candidate
//! that disappeared; a change far from them logs nothing; a person whose tenant has no permit
//! in force is not read at all.

use crate::screening::{import_un, publish_policy, un_list};
use blackbox::TestApp;
use domain::screening::ongoing::service::RescreenReport;
use domain::screening::sanctions::{
    EntryKind, ListEntry, ListedDate, ListedName, NameQuality, ParsedList,
};
use serde_json::{json, Value};
use upstream_sandbox::{spar::persons, Source};

/// The company the sandbox registry serves.
const TEST_AB: &str = "5560021361";
const TEST_AB_NAME: &str = "Testbolag 4 bokat av SKV Aktiebolag";
/// The sandbox's ordinary person (a Skatteverket test identity): the register's name.
const PERSON_NAME: &str = "Christina Birgitta Ulrika Thomeaus Efternamn3542";
const PERSON_BIRTH: (i32, u32, u32) = (1957, 4, 13);
const SCOPES: &str =
    "kyb:read kyc:read monitoring:subscribe monitoring:read events:read screening:read";

/// A synthetic listing (ids the UN list does not use).
pub(crate) fn listing(
    id: &str,
    kind: EntryKind,
    name: &str,
    birth: Option<(i32, u32, u32)>,
) -> ListEntry {
    ListEntry {
        source_entry_id: id.to_owned(),
        kind,
        names: vec![ListedName {
            full: name.to_owned(),
            quality: NameQuality::Strong,
        }],
        birth_dates: birth
            .map(|(y, m, d)| ListedDate::Day(chrono::NaiveDate::from_ymd_opt(y, m, d).unwrap()))
            .into_iter()
            .collect(),
        nationalities: vec![],
        countries: vec![],
        identifiers: vec![],
        programs: vec!["TEST".to_owned()],
        listed_on: None,
        exposure: None,
    }
}

/// Imports the UN list with `extra` entries as a new version (its digest names the extras).
pub(crate) async fn import_un_with(app: &TestApp, extra: Vec<ListEntry>) {
    let mut list: ParsedList = un_list().list.clone();
    let tag: Vec<String> = extra.iter().map(|e| e.source_entry_id.clone()).collect();
    list.entries.extend(extra);
    let digest = format!("{}+{}", un_list().digest, tag.join(","));
    app.app
        .services
        .lists
        .import(list, &digest)
        .await
        .expect("importing a UN version");
}

pub(crate) async fn rescreen(app: &TestApp) -> RescreenReport {
    app.app
        .services
        .ongoing
        .tick()
        .await
        .expect("an ongoing screening pass")
}

pub(crate) async fn events_of(app: &TestApp, token: &str, kind: &str) -> Vec<Value> {
    let a = app
        .get(
            &format!("/v1/events?limit=1000&cursor=0&types={kind}"),
            Some(token),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.text);
    a.body["events"].as_array().unwrap().clone()
}

fn entity_ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|c| c["entity_id"].as_str().unwrap().to_owned())
        .collect()
}

/// The sandbox company's subject, read by the tenant.
pub(crate) async fn company_subject(app: &TestApp, token: &str) -> String {
    let company = app
        .get(&format!("/v1/companies/{TEST_AB}"), Some(token))
        .await;
    assert_eq!(company.status, 200, "{}", company.text);
    assert_eq!(company.body["data"]["name"], TEST_AB_NAME);
    company.body["data"]["subject_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The sandbox company's first refresh under its subscription (monitoring's baseline of its
/// officers), then an officer it names with a personal number, as the officers route
/// shows them.
pub(crate) async fn monitored_officer(app: &TestApp, token: &str) -> Value {
    let first = app
        .post_json(
            &format!("/v1/companies/{TEST_AB}/refresh"),
            Some(token),
            &json!({}),
        )
        .await;
    assert_eq!(first.status, 200, "{}", first.text);
    let officers = app
        .get(&format!("/v1/companies/{TEST_AB}/officers"), Some(token))
        .await;
    assert_eq!(officers.status, 200, "{}", officers.text);
    officers.body["data"]["officers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["personal_number_ref"].is_string())
        .expect("an officer with a personal number")
        .clone()
}

/// Subscribes to the subject (`kind` `company` or `person`): the subscription id.
pub(crate) async fn subscribe(app: &TestApp, token: &str, subject: &str, kind: &str) -> String {
    let sub = app
        .post_json(
            "/v1/subscriptions",
            Some(token),
            &json!({"subject_id": subject, "kind": kind, "legal_basis": "aml_cdd"}),
        )
        .await;
    assert_eq!(sub.status, 201, "{}", sub.text);
    sub.body["subscription_id"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_listing_and_a_delisting_of_a_monitored_company_are_each_logged_once() {
    let app = TestApp::spawn().await;
    let first = import_un(&app).await;
    publish_policy(&app).await;
    // The list's first version is worked too (nothing is monitored yet).
    let report = rescreen(&app).await;
    assert!(report.done && report.screened == 0, "{report:?}");

    let c = app.provision(SCOPES, "SE", "SE").await;
    let token = app.token(&c).await;
    let subject = company_subject(&app, &token).await;
    let sub_id = subscribe(&app, &token, &subject, "company").await;

    // Nothing changed: no pass has work.
    assert_eq!(rescreen(&app).await, RescreenReport::default());

    // A version listing the company: one event, naming the candidate and a readable check.
    import_un_with(
        &app,
        vec![listing(
            "TEST.001",
            EntryKind::Organisation,
            TEST_AB_NAME,
            None,
        )],
    )
    .await;
    let report = rescreen(&app).await;
    assert_eq!(
        (report.added, report.changed_entries, report.removed),
        (1, 0, 0),
        "{report:?}"
    );
    assert_eq!(
        (report.screened, report.touched, report.logged, report.done),
        (1, 1, 1, true),
        "{report:?}"
    );
    let logged = events_of(&app, &token, "screening.changed").await;
    assert_eq!(logged.len(), 1, "{logged:?}");
    let e = &logged[0];
    assert_eq!(e["subject_id"], subject.as_str());
    assert_eq!(e["country"], "SE");
    let d = &e["data"];
    assert_eq!(d["trigger"], "scheduled");
    assert_eq!(d["subscription_id"], sub_id.as_str());
    assert!(d["check_id_before"].is_null(), "{d}");
    assert_eq!(entity_ids(&d["appeared"]), ["un_sc:TEST.001"]);
    assert_eq!(d["appeared"][0]["band"], "hit");
    assert!(d["disappeared"].as_array().unwrap().is_empty());
    assert_eq!(d["list"]["source_id"], "un_sc");
    assert_eq!(d["list"]["from_version_id"], first.id.to_string());
    assert!(d["policy_version_id"].is_string());
    assert!(d["matcher_version"]
        .as_str()
        .unwrap()
        .starts_with("idreg-matcher/"));
    let check_id = d["check_id"].as_str().unwrap().to_owned();
    let check = app
        .get(&format!("/v1/screening/checks/{check_id}"), Some(&token))
        .await;
    assert_eq!(check.status, 200, "{}", check.text);
    assert_eq!(check.body["subject_id"], subject.as_str());
    assert_eq!(check.body["band"], "hit");
    assert_eq!(check.body["input_kind"], "subject");
    assert!(check.text.contains("TEST.001"));
    assert!(check.body["source_version_ids"]
        .as_array()
        .unwrap()
        .contains(&d["list"]["to_version_id"]));

    // Worked once: another pass finds nothing.
    assert_eq!(rescreen(&app).await, RescreenReport::default());

    // The first version made active again: the listing is gone, and so is the candidate.
    import_un(&app).await;
    let report = rescreen(&app).await;
    assert_eq!((report.removed, report.logged), (1, 1), "{report:?}");
    let logged = events_of(&app, &token, "screening.changed").await;
    assert_eq!(logged.len(), 2);
    let d = &logged[1]["data"];
    assert_eq!(d["check_id_before"], check_id.as_str());
    assert!(d["appeared"].as_array().unwrap().is_empty());
    assert_eq!(entity_ids(&d["disappeared"]), ["un_sc:TEST.001"]);
    assert_eq!(d["disappeared"][0]["entry"], "removed");
    assert_eq!(d["disappeared"][0]["band_before"], "hit");
    assert_eq!(d["band"], "clear");
    assert_eq!(d["list"]["to_version_id"], first.id.to_string());

    // A change far from the company: screened against it, nothing logged.
    import_un_with(
        &app,
        vec![listing(
            "TEST.002",
            EntryKind::Person,
            "Zebulon Quartermaine",
            None,
        )],
    )
    .await;
    let report = rescreen(&app).await;
    assert_eq!(
        (report.added, report.screened, report.touched, report.logged),
        (1, 1, 0, 0),
        "{report:?}"
    );
    assert_eq!(events_of(&app, &token, "screening.changed").await.len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_monitored_person_is_screened_with_the_register_only_under_a_permit_in_force() {
    let app = TestApp::spawn().await;
    import_un(&app).await;
    publish_policy(&app).await;
    rescreen(&app).await;
    let (c, token) = crate::persons::with_permit(&app, SCOPES).await;
    let dashed = format!("{}-{}", &persons::ORDINARY[..8], &persons::ORDINARY[8..]);
    let r = app.resolve(&token, "personnummer", &dashed, None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let person = r.body["subject_id"].as_str().unwrap().to_owned();
    subscribe(&app, &token, &person, "person").await;

    // Listed with the register's name and birth date: a hit, logged without the person's
    // data in the event.
    import_un_with(
        &app,
        vec![listing(
            "TEST.101",
            EntryKind::Person,
            PERSON_NAME,
            Some(PERSON_BIRTH),
        )],
    )
    .await;
    let report = rescreen(&app).await;
    assert_eq!(report.logged, 1, "{report:?}");
    let logged = events_of(&app, &token, "screening.changed").await;
    assert_eq!(logged.len(), 1);
    assert_eq!(logged[0]["subject_id"], person.as_str());
    assert_eq!(
        entity_ids(&logged[0]["data"]["appeared"]),
        ["un_sc:TEST.101"]
    );
    let text = logged[0].to_string();
    assert!(!text.contains("Efternamn3542") && !text.contains("1957-04-13"));
    assert!(!text.contains(persons::ORDINARY));

    // The permit suspended: the delisting screens no one and reads no person data.
    crate::persons::set_permit(&app, &c, -30, 30, "suspended").await;
    let register_calls = app.sandbox().calls_for(Source::Personsokning).len();
    import_un(&app).await;
    let report = rescreen(&app).await;
    assert_eq!(
        (report.screened, report.logged, report.done),
        (0, 0, true),
        "{report:?}"
    );
    assert_eq!(
        app.sandbox().calls_for(Source::Personsokning).len(),
        register_calls
    );
}

/// A monitored company's officers are screened with it, each candidate naming its officer
/// by the handle of their personal number; an officer the next refresh finds new is
/// screened at once.
#[tokio::test(flavor = "multi_thread")]
async fn a_companys_officers_are_screened_with_it_and_a_newcomer_at_the_next_refresh() {
    let app = TestApp::spawn().await;
    import_un(&app).await;
    publish_policy(&app).await;
    rescreen(&app).await;
    let c = app
        .provision(&format!("{SCOPES} kyb:refresh"), "SE", "SE")
        .await;
    app.admin(&["budget", "set", &c.tenant_id, "--daily-paid", "1000"])
        .await
        .unwrap();
    let token = app.token(&c).await;
    let subject = company_subject(&app, &token).await;
    subscribe(&app, &token, &subject, "company").await;
    let refresh = format!("/v1/companies/{TEST_AB}/refresh");
    let officer = monitored_officer(&app, &token).await;
    let officer_name = officer["name"].as_str().unwrap().to_owned();
    let officer_ref = officer["personal_number_ref"].as_str().unwrap().to_owned();

    // A list version naming the officer: the company's outcome moves, by the officer.
    import_un_with(
        &app,
        vec![listing("TEST.201", EntryKind::Person, &officer_name, None)],
    )
    .await;
    let report = rescreen(&app).await;
    assert_eq!(report.logged, 1, "{report:?}");
    let logged = events_of(&app, &token, "screening.changed").await;
    let d = &logged[0]["data"];
    assert_eq!(d["cause"], "list_changed");
    assert_eq!(entity_ids(&d["appeared"]), ["un_sc:TEST.201"]);
    let concerns = &d["appeared"][0]["concerns"];
    assert_eq!(concerns["role"], "officer");
    assert_eq!(concerns["personal_number_ref"], officer_ref.as_str());
    assert!(concerns["name"].is_null(), "{concerns}");
    let check = app
        .get(
            &format!("/v1/screening/checks/{}", d["check_id"].as_str().unwrap()),
            Some(&token),
        )
        .await;
    let by_officer: Vec<&Value> = check.body["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["entity_id"] == "un_sc:TEST.201")
        .collect();
    assert_eq!(by_officer.len(), 1, "{}", check.text);
    assert_eq!(
        by_officer[0]["concerns"]["personal_number_ref"],
        officer_ref.as_str()
    );
    // The officer is named by the handle alone (the name shown is the list's own).
    assert!(by_officer[0]["concerns"]["name"].is_null());

    // A listing of someone not (yet) an officer: nothing moves.
    import_un_with(
        &app,
        vec![
            listing("TEST.201", EntryKind::Person, &officer_name, None),
            listing("TEST.202", EntryKind::Person, "Ny Ledamot", None),
        ],
    )
    .await;
    let report = rescreen(&app).await;
    assert_eq!((report.added, report.logged), (1, 0), "{report:?}");

    // The register adds them as an officer: the next refresh screens the newcomer at once.
    app.sandbox()
        .patch_company(
            TEST_AB,
            &upstream_sandbox::CompanyPatch {
                add_officer: Some(upstream_sandbox::OfficerPatch {
                    fornamn: "Ny".into(),
                    efternamn: "Ledamot".into(),
                    // An official test number not among the sandbox's officers.
                    nummer: "196202103138".into(),
                    role: "LE".into(),
                }),
                ..upstream_sandbox::CompanyPatch::default()
            },
        )
        .unwrap();
    let moved = app.post_json(&refresh, Some(&token), &json!({})).await;
    assert_eq!(moved.status, 200, "{}", moved.text);
    let logged = events_of(&app, &token, "screening.changed").await;
    assert_eq!(logged.len(), 2, "{logged:?}");
    let d = &logged[1]["data"];
    assert_eq!(
        (&d["cause"], &d["trigger"]),
        (&json!("party_added"), &json!("on_demand"))
    );
    assert!(d["list"].is_null());
    assert_eq!(entity_ids(&d["appeared"]), ["un_sc:TEST.202"]);
    assert_eq!(d["appeared"][0]["concerns"]["role"], "officer");
    assert!(d["appeared"][0]["concerns"]["personal_number_ref"].is_string());
    assert!(!logged[1].to_string().contains("196202103138"));
    // The same refresh again: the officer is no newcomer any more.
    let again = app.post_json(&refresh, Some(&token), &json!({})).await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert_eq!(events_of(&app, &token, "screening.changed").await.len(), 2);
}

/// A list change is first screened against the names monitoring holds of each company (its
/// cached profile, its baseline's parties), read for a page at once; a company whose cached
/// profile is stale is read again from its register, so a name the register changed meanwhile
/// is the name screened, and a listing of the new name is not passed by.
#[tokio::test(flavor = "multi_thread")]
async fn a_company_whose_cached_name_is_stale_is_read_again_and_its_new_name_screened() {
    let app = TestApp::spawn().await;
    import_un(&app).await;
    publish_policy(&app).await;
    rescreen(&app).await;
    let c = app.provision(SCOPES, "SE", "SE").await;
    let token = app.token(&c).await;
    let subject = company_subject(&app, &token).await;
    subscribe(&app, &token, &subject, "company").await;

    // The register renames the company; the tenant's cached profile still has the old name.
    const NEW_NAME: &str = "Omdöpta Xylandergruppen Aktiebolag";
    let mut company = upstream_sandbox::Dataset::standard()
        .companies()
        .iter()
        .find(|c| c.id == TEST_AB)
        .expect("the sandbox company")
        .clone();
    upstream_sandbox::control::apply_patch(
        &mut company,
        &upstream_sandbox::CompanyPatch {
            name: Some(NEW_NAME.into()),
            ..upstream_sandbox::CompanyPatch::default()
        },
    )
    .unwrap();
    app.sandbox().upsert_company(company);

    // A change far from it, while the cache is fresh: passed by on the names held.
    import_un_with(
        &app,
        vec![listing(
            "TEST.302",
            EntryKind::Person,
            "Zebulon Quartermaine",
            None,
        )],
    )
    .await;
    let report = rescreen(&app).await;
    assert_eq!(
        (report.screened, report.touched, report.logged),
        (1, 0, 0),
        "{report:?}"
    );

    // A day on, the cached profile is stale, and a version lists the new name: the company
    // is read from its register again (the cached name is nowhere near the listing) and
    // its new name meets it.
    app.clock
        .advance(chrono::Duration::days(1) + chrono::Duration::minutes(1));
    import_un_with(
        &app,
        vec![
            listing("TEST.302", EntryKind::Person, "Zebulon Quartermaine", None),
            listing("TEST.301", EntryKind::Organisation, NEW_NAME, None),
        ],
    )
    .await;
    let report = rescreen(&app).await;
    assert_eq!(
        (report.screened, report.touched, report.logged),
        (1, 1, 1),
        "{report:?}"
    );
    let token = app.token(&c).await;
    let logged = events_of(&app, &token, "screening.changed").await;
    assert_eq!(
        entity_ids(&logged[0]["data"]["appeared"]),
        ["un_sc:TEST.301"]
    );
}
