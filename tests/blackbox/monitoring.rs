//! Scheduled monitoring, driven through the scheduler with the test's clock (days pass in
//! milliseconds): baselines and change events with `trigger: scheduled`, light checks and
//! metered full refreshes, `refresh.deferred` at the monitoring share, ending cancels queued
//! work (the sandbox's call log shows no call), the permit's lapse suspends person
//! subscriptions, and the purge after the tenant's retention keeps envelopes and cursors.

use crate::persons::set_permit;
use blackbox::{Consumer, TestApp};
use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};
use upstream_sandbox::spar::persons::ORDINARY;
use upstream_sandbox::{CompanyPatch, Source};

const TEST_AB: &str = "5560021361";
const ANNUAL_REPORTS_AB: &str = "5561890038";
const SCOPES: &str = "kyb:read kyc:read monitoring:subscribe monitoring:read events:read";

/// The whole log, read page by page from cursor 0.
async fn log(app: &TestApp, token: &str) -> Vec<Value> {
    let (mut cursor, mut all) = (0_i64, Vec::new());
    loop {
        let a = app
            .get(
                &format!("/v1/events?limit=1000&cursor={cursor}"),
                Some(token),
            )
            .await;
        assert_eq!(a.status, 200, "{}", a.text);
        let page = a.body["events"].as_array().unwrap().clone();
        let next = a.body["next_cursor"].as_i64().unwrap();
        if page.is_empty() && next == cursor {
            return all;
        }
        all.extend(page);
        cursor = next;
    }
}

fn of_subscription<'a>(events: &'a [Value], id: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["data"]["subscription_id"] == id)
        .collect()
}

fn types(events: &[&Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_owned())
        .collect()
}

async fn company_subject(app: &TestApp, token: &str, orgnr: &str) -> String {
    let a = app
        .get(&format!("/v1/companies/{orgnr}"), Some(token))
        .await;
    assert_eq!(a.status, 200, "{}", a.text);
    a.body["data"]["subject_id"].as_str().unwrap().to_owned()
}

async fn subscribe(app: &TestApp, token: &str, body: Value) -> String {
    let a = app.post_json("/v1/subscriptions", Some(token), &body).await;
    assert_eq!(a.status, 201, "{}", a.text);
    a.body["subscription_id"].as_str().unwrap().to_owned()
}

async fn subscription(app: &TestApp, token: &str, id: &str) -> Value {
    let a = app
        .get(&format!("/v1/subscriptions/{id}"), Some(token))
        .await;
    assert_eq!(a.status, 200, "{}", a.text);
    a.body.clone()
}

fn time(v: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(v.as_str().expect("a timestamp"))
        .unwrap()
        .with_timezone(&Utc)
}

/// The register renames the company (a scripted change in the sandbox).
fn rename(app: &TestApp, orgnr: &str, name: &str) {
    app.sandbox()
        .patch_company(
            orgnr,
            &CompanyPatch {
                name: Some(name.into()),
                ..CompanyPatch::default()
            },
        )
        .unwrap();
}

/// Moves the clock and hands back a token valid at the new time.
async fn pass_time(app: &TestApp, c: &Consumer, by: Duration) -> String {
    app.clock.advance(by);
    app.token(c).await
}

#[tokio::test(flavor = "multi_thread")]
async fn scheduled_runs_take_a_baseline_then_log_each_move_once() {
    let app = TestApp::spawn().await;
    let c = app.provision(SCOPES, "SE", "SE").await;
    let token = app.token(&c).await;
    let subject = company_subject(&app, &token, TEST_AB).await;
    let id = subscribe(
        &app,
        &token,
        json!({"subject_id": subject, "kind": "company", "legal_basis": "aml_cdd",
               "check_days": 1, "full_refresh_days": 7}),
    )
    .await;

    // Due at once: the first run is the baseline, a full reading, and logs no change.
    let report = app.run_scheduler().await;
    assert_eq!((report.claimed, report.checked), (1, 1), "{report:?}");
    let events = log(&app, &token).await;
    let mine = of_subscription(&events, &id);
    assert_eq!(types(&mine), ["subscription.created", "refresh.completed"]);
    let completed = mine[1];
    assert_eq!(completed["data"]["trigger"], "scheduled");
    assert_eq!(completed["data"]["baseline"], true);
    assert_eq!(completed["data"]["scope"], "full");
    assert_eq!(completed["subject_id"], subject.as_str());
    assert_eq!(completed["country"], "SE");
    // Not due again until a day later.
    assert_eq!(app.run_scheduler().await.claimed, 0);
    let s = subscription(&app, &token, &id).await;
    let next = time(&s["next_run_at"]);
    assert!(
        (next - time(&s["created_at"]) - Duration::days(1))
            .num_seconds()
            .abs()
            < 60,
        "{s}"
    );

    // The register renames the company; the next day's light check logs it, once.
    rename(&app, TEST_AB, "Omdöpt Testbolag AB");
    let token = pass_time(&app, &c, Duration::hours(25)).await;
    let report = app.run_scheduler().await;
    assert_eq!((report.claimed, report.checked), (1, 1), "{report:?}");
    let events = log(&app, &token).await;
    let mine = of_subscription(&events, &id);
    assert_eq!(
        types(&mine[2..]),
        ["company.changed", "refresh.completed"],
        "{mine:?}"
    );
    let changed = mine[2];
    assert_eq!(changed["data"]["trigger"], "scheduled");
    assert_eq!(
        changed["evidence"]["source"],
        "companyreg.vardefulla-datamangder"
    );
    let name = changed["data"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["field"] == "name")
        .expect("a name change");
    assert_eq!(name["new"], "Omdöpt Testbolag AB");
    assert_ne!(name["old"], name["new"]);
    assert_eq!(mine[3]["data"]["scope"], "light");
    assert_eq!(mine[3]["data"]["baseline"], false);

    // A consumer's own read in between (which refreshes the tenant's cache) does not hide
    // the next move from monitoring: the baseline is monitoring's own.
    rename(&app, TEST_AB, "Tredje Namnet AB");
    let token = pass_time(&app, &c, Duration::hours(25)).await;
    let read = app
        .get(&format!("/v1/companies/{TEST_AB}"), Some(&token))
        .await;
    assert_eq!(read.body["data"]["name"], "Tredje Namnet AB");
    app.run_scheduler().await;
    let events = log(&app, &token).await;
    let mine = of_subscription(&events, &id);
    assert_eq!(types(&mine[4..]), ["company.changed", "refresh.completed"]);
    let name = &mine[4]["data"]["changes"][0];
    assert_eq!(name["field"], "name");
    assert_eq!(name["old"], "Omdöpt Testbolag AB");
    assert_eq!(name["new"], "Tredje Namnet AB");

    // Nothing moved: only refresh.completed. A week on, the run is a full refresh again.
    let token = pass_time(&app, &c, Duration::hours(25)).await;
    app.run_scheduler().await;
    let token = {
        let _ = token;
        pass_time(&app, &c, Duration::days(5)).await
    };
    app.run_scheduler().await;
    let events = log(&app, &token).await;
    let mine = of_subscription(&events, &id);
    assert_eq!(
        types(&mine[6..]),
        ["refresh.completed", "refresh.completed"]
    );
    assert_eq!(mine[6]["data"]["scope"], "light");
    assert_eq!(mine[7]["data"]["scope"], "full");
    // The log stays gap-free.
    let seqs: Vec<i64> = events.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert_eq!(seqs, (1..=seqs.len() as i64).collect::<Vec<_>>());
}

#[tokio::test(flavor = "multi_thread")]
async fn full_refreshes_take_only_the_monitoring_share_and_defer_at_it() {
    let app = TestApp::spawn().await;
    let c = app.provision(SCOPES, "SE", "SE").await;
    // 4 paid calls a day, half of them for monitoring: one full refresh (2 calls) fits.
    app.admin(&[
        "budget",
        "set",
        &c.tenant_id,
        "--daily-paid",
        "4",
        "--monitoring-share",
        "0.5",
    ])
    .await
    .unwrap();
    let token = app.token(&c).await;
    let mut ids = Vec::new();
    for orgnr in [TEST_AB, ANNUAL_REPORTS_AB] {
        let subject = company_subject(&app, &token, orgnr).await;
        ids.push(
            subscribe(
                &app,
                &token,
                json!({"subject_id": subject, "kind": "company", "legal_basis": "contract"}),
            )
            .await,
        );
    }
    let paid_calls = || {
        app.sandbox().calls_for(Source::Foretagsinformation).len()
            + app.sandbox().calls_for(Source::VerkligaHuvudman).len()
    };
    let paid_before = paid_calls();

    let report = app.run_scheduler().await;
    assert_eq!(
        (report.claimed, report.checked, report.deferred),
        (2, 2, 1),
        "{report:?}"
    );
    // Exactly one full refresh's paid calls were made, and only the monitoring share spent.
    assert_eq!(paid_calls() - paid_before, 2);
    let budget = app.admin(&["budget", "show", &c.tenant_id]).await.unwrap();
    assert_eq!(budget["scheduled"]["used"], 2, "{budget}");
    assert_eq!(budget["on_demand"]["used"], 0, "{budget}");

    let events = log(&app, &token).await;
    let deferred: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "refresh.deferred")
        .collect();
    assert_eq!(deferred.len(), 1);
    let late = deferred[0]["data"]["subscription_id"].as_str().unwrap();
    assert_eq!(deferred[0]["data"]["reason"], "monitoring_share_reached");
    let resumes = time(&deferred[0]["data"]["resumes_at"]);
    let late_events = of_subscription(&events, late);
    assert_eq!(
        types(&late_events),
        [
            "subscription.created",
            "refresh.deferred",
            "refresh.completed"
        ]
    );
    // The light part was still checked; the paid parts wait for the next budget day.
    assert_eq!(late_events[2]["data"]["scope"], "light");
    let s = subscription(&app, &token, late).await;
    assert_eq!(time(&s["next_run_at"]), resumes);
    assert!(resumes > app.clock_now() && resumes - app.clock_now() <= Duration::days(1));

    // The next window: the deferred refresh runs in full; the other is not due for paid work.
    let token = pass_time(&app, &c, resumes - app.clock_now() + Duration::minutes(1)).await;
    let report = app.run_scheduler().await;
    assert_eq!(report.deferred, 0, "{report:?}");
    let events = log(&app, &token).await;
    let late_events = of_subscription(&events, late);
    let last = late_events.last().unwrap();
    assert_eq!(last["type"], "refresh.completed");
    assert_eq!(last["data"]["scope"], "full");
}

#[tokio::test(flavor = "multi_thread")]
async fn ending_cancels_queued_work_and_no_upstream_call_follows() {
    let app = TestApp::spawn().await;
    let c = app.provision(SCOPES, "SE", "SE").await;
    let token = app.token(&c).await;
    let subject = company_subject(&app, &token, TEST_AB).await;
    let id = subscribe(
        &app,
        &token,
        json!({"subject_id": subject, "kind": "company", "legal_basis": "aml_cdd"}),
    )
    .await;
    // Ended before its first run: the queue never hands it out.
    let ended = app
        .post_json(
            &format!("/v1/subscriptions/{id}/end"),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(ended.status, 200, "{}", ended.text);
    assert_eq!(ended.body["next_run_at"], Value::Null);
    app.sandbox().clear_calls();
    for _ in 0..3 {
        pass_time(&app, &c, Duration::days(2)).await;
        assert_eq!(app.run_scheduler().await.claimed, 0);
    }
    assert!(
        app.sandbox().calls().is_empty(),
        "{:?}",
        app.sandbox().calls()
    );
    let token = app.token(&c).await;
    let events = log(&app, &token).await;
    assert_eq!(
        types(&of_subscription(&events, &id)),
        ["subscription.created", "subscription.ended"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn person_subscriptions_follow_the_permit() {
    let app = TestApp::spawn().await;
    let c = app.provision(SCOPES, "SE", "SE").await;
    set_permit(&app, &c, -1, 2, "active").await;
    let token = app.token(&c).await;
    let r = app.resolve(&token, "personnummer", ORDINARY, None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let person = r.body["subject_id"].as_str().unwrap().to_owned();
    let id = subscribe(
        &app,
        &token,
        json!({"subject_id": person, "kind": "person", "legal_basis": "aml_cdd"}),
    )
    .await;

    // A run checks the permit and calls no register (it tracks the permit, not the person).
    app.sandbox().clear_calls();
    let report = app.run_scheduler().await;
    assert_eq!((report.claimed, report.checked), (1, 1), "{report:?}");
    assert!(app.sandbox().calls_for(Source::Personsokning).is_empty());

    // Suspended by the operator: the subscription is suspended at once; reinstated (a new
    // permit), it resumes.
    set_permit(&app, &c, -1, 2, "suspended").await;
    let s = subscription(&app, &token, &id).await;
    assert_eq!(s["status"], "suspended", "{s}");
    assert_eq!(s["next_run_at"], Value::Null);
    set_permit(&app, &c, -1, 2, "active").await;
    let s = subscription(&app, &token, &id).await;
    assert_eq!(s["status"], "active", "{s}");

    // The permit lapses by its dates: the next run suspends the subscription.
    let token = pass_time(&app, &c, Duration::days(4)).await;
    let report = app.run_scheduler().await;
    assert_eq!(report.suspended, 1, "{report:?}");
    let s = subscription(&app, &token, &id).await;
    assert_eq!(s["status"], "suspended");
    let events = log(&app, &token).await;
    let mine = of_subscription(&events, &id);
    assert_eq!(
        types(&mine),
        [
            "subscription.created",
            "subscription.suspended",
            "subscription.resumed",
            "subscription.suspended"
        ]
    );
    for e in [mine[1], mine[3]] {
        assert_eq!(e["data"]["reason"], "permit_lapsed");
    }
    assert!(events.iter().all(|e| e["type"] != "person.changed"));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_purge_after_retention_keeps_envelopes_and_cursors() {
    let app = TestApp::spawn().await;
    let c = app.provision(SCOPES, "SE", "SE").await;
    let set = app
        .admin(&["tenant", "retention", &c.tenant_id, "--days", "2"])
        .await
        .unwrap();
    assert_eq!(set["retention_days"], 2);
    for bad in ["0", "-3", "3651"] {
        let refused = app
            .admin(&["tenant", "retention", &c.tenant_id, "--days", bad])
            .await
            .unwrap_err();
        assert_eq!(refused["error"], "bad_request", "{refused}");
    }
    let token = app.token(&c).await;
    let subject = company_subject(&app, &token, TEST_AB).await;
    let id = subscribe(
        &app,
        &token,
        json!({"subject_id": subject, "kind": "company", "legal_basis": "aml_cdd"}),
    )
    .await;
    app.run_scheduler().await;
    // Another subject's subscription, which stays: its data survives the purge.
    let other_subject = company_subject(&app, &token, ANNUAL_REPORTS_AB).await;
    let other = subscribe(
        &app,
        &token,
        json!({"subject_id": other_subject, "kind": "company", "legal_basis": "aml_cdd"}),
    )
    .await;
    app.run_scheduler().await;
    let before = log(&app, &token).await;
    let cursor = before.last().unwrap()["seq"].as_i64().unwrap();

    let ended = app
        .post_json(
            &format!("/v1/subscriptions/{id}/end"),
            Some(&token),
            &json!({}),
        )
        .await;
    let purge_after = time(&ended.body["purge_after"]);
    assert_eq!(
        purge_after - time(&ended.body["ended_at"]),
        Duration::days(2)
    );

    // Not yet: a day later nothing is purged.
    pass_time(&app, &c, Duration::days(1)).await;
    assert_eq!(app.run_scheduler().await.purged, 0);
    let tenant = &c.tenant_id;
    let baselines = |sub: &str| format!("tenant_id = '{tenant}' AND subscription_id = '{sub}'");
    assert!(app.db.count("monitoring_baselines", &baselines(&id)).await > 0);

    let token = pass_time(&app, &c, Duration::days(2)).await;
    let report = app.run_scheduler().await;
    assert_eq!(report.purged, 1, "{report:?}");
    let after = log(&app, &token).await;
    assert!(
        after.len() > before.len(),
        "the end event and the other's runs"
    );
    // The ended subscription's events before the purge: what the loop below checks is there.
    let purged = of_subscription(&before, &id);
    assert_eq!(
        types(&purged),
        ["subscription.created", "refresh.completed"],
        "{purged:?}"
    );
    for e in purged {
        let now = after
            .iter()
            .find(|a| a["id"] == e["id"])
            .expect("the envelope stays");
        assert_eq!(now["data"], json!({"purged": true}));
        for field in [
            "seq",
            "type",
            "subject_id",
            "country",
            "occurred_at",
            "evidence",
        ] {
            assert_eq!(now[field], e[field], "{field}");
        }
    }
    let ended_event = after
        .iter()
        .find(|e| e["type"] == "subscription.ended")
        .unwrap();
    assert_eq!(ended_event["data"], json!({"purged": true}));
    // The other subscription's events keep their data (found by it: none was purged).
    let kept = of_subscription(&after, &other);
    assert!(
        kept.len() >= 2,
        "the other's events keep their data: {kept:?}"
    );
    assert_eq!(
        types(&kept[..2]),
        ["subscription.created", "refresh.completed"],
        "{kept:?}"
    );
    assert_eq!(kept[1]["data"]["baseline"], true, "{kept:?}");
    assert!(kept.iter().all(|e| e["data"] != json!({"purged": true})));
    // The tenant-private data held only for that subject is gone; the other's stays.
    assert_eq!(
        app.db.count("monitoring_baselines", &baselines(&id)).await,
        0
    );
    assert!(
        app.db
            .count("monitoring_baselines", &baselines(&other))
            .await
            > 0
    );
    let cached = |s: &str| format!("tenant_id = '{tenant}' AND subject_id = '{s}'");
    assert_eq!(app.db.count("company_profiles", &cached(&subject)).await, 0);
    assert_eq!(
        app.db
            .count("company_profiles", &cached(&other_subject))
            .await,
        1
    );
    // Purged once.
    assert_eq!(app.run_scheduler().await.purged, 0);

    // Cursors still work: one from before the purge, and the newest.
    let page = app
        .get(&format!("/v1/events?cursor={cursor}"), Some(&token))
        .await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert_eq!(
        page.body["events"].as_array().unwrap().len(),
        after.len() - before.len()
    );
    let last = after.last().unwrap()["seq"].as_i64().unwrap();
    let page = app
        .get(&format!("/v1/events?cursor={last}"), Some(&token))
        .await;
    assert_eq!(page.body["events"], json!([]));
    assert_eq!(page.body["next_cursor"], last);
}
