//! Quota visibility: the `RateLimit-Policy` and `RateLimit` fields of metered answers
//! (parsed as Structured Fields) followed down to a 429 with `Retry-After`, `GET /v1/usage`,
//! and the same numbers in a metered MCP tool's `structuredContent`.

use crate::mcp::call_tool;
use crate::persons::{person_ref, with_permit};
use blackbox::{Answer, TestApp};
use serde_json::json;
use sfv::{BareItem, List, ListEntry, Parser};
use upstream_sandbox::spar::persons;
use upstream_sandbox::Dataset;

/// One policy's parameters from a field, by policy name: `(name, [(key, integer)])`.
fn field(answer: &Answer, name: &str) -> Vec<(String, Vec<(String, i64)>)> {
    let text = answer
        .headers
        .get(name)
        .unwrap_or_else(|| panic!("{name} missing: {:?}", answer.headers))
        .to_str()
        .unwrap();
    let list: List = Parser::new(text).parse().expect("a Structured Fields list");
    list.iter()
        .map(|entry| {
            let ListEntry::Item(item) = entry else {
                panic!("an item: {text}")
            };
            let BareItem::String(policy) = &item.bare_item else {
                panic!("a String policy name (draft-10): {text}")
            };
            let params = item
                .params
                .iter()
                .map(|(k, v)| {
                    let BareItem::Integer(i) = v else {
                        panic!("an integer parameter: {text}")
                    };
                    (k.as_str().to_owned(), i64::from(*i))
                })
                .collect();
            (policy.as_str().to_owned(), params)
        })
        .collect()
}

fn param(answer: &Answer, name: &str, policy: &str, key: &str) -> i64 {
    field(answer, name)
        .into_iter()
        .find(|(p, _)| p == policy)
        .and_then(|(_, params)| params.into_iter().find(|(k, _)| k == key))
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("{name} has no {policy};{key}"))
}

fn officers(orgnr: &str) -> String {
    format!("/v1/companies/{orgnr}/officers")
}

fn companies_with_roles(n: usize) -> Vec<String> {
    Dataset::standard()
        .companies()
        .iter()
        .filter(|c| !c.officers.is_empty())
        .take(n)
        .map(|c| c.id.clone())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_paid_budget_is_followed_down_to_a_429_that_says_when_to_retry() {
    let app = TestApp::spawn_with_sandbox().await;
    let c = app
        .provision("kyb:read kyb:refresh events:read", "SE", "SE")
        .await;
    // Six a day, half reserved for monitoring: three on-demand paid calls.
    app.admin(&[
        "budget",
        "set",
        &c.tenant_id,
        "--daily-paid",
        "6",
        "--monitoring-share",
        "0.5",
    ])
    .await
    .unwrap();
    let token = app.token(&c).await;
    let orgnrs = companies_with_roles(4);

    // A free read states no quota.
    let free = app
        .get(&format!("/v1/companies/{}", orgnrs[0]), Some(&token))
        .await;
    assert_eq!(free.status, 200, "{}", free.text);
    assert!(free.headers.get("ratelimit").is_none());
    assert!(free.headers.get("ratelimit-policy").is_none());

    let mut remaining = Vec::new();
    for orgnr in &orgnrs[..3] {
        let a = app.get(&officers(orgnr), Some(&token)).await;
        assert_eq!(a.status, 200, "{}", a.text);
        assert_eq!(
            field(&a, "ratelimit-policy"),
            vec![(
                "paid".to_owned(),
                vec![("q".to_owned(), 3), ("w".to_owned(), 86_400)]
            )]
        );
        let t = param(&a, "ratelimit", "paid", "t");
        assert!((1..=25 * 3600).contains(&t), "{t}");
        remaining.push(param(&a, "ratelimit", "paid", "r"));
    }
    assert_eq!(remaining, [2, 1, 0]);

    // The fourth paid read is refused: the same fields, and when the budget renews.
    let refused = app.get(&officers(&orgnrs[3]), Some(&token)).await;
    assert_eq!(
        (refused.status, refused.error_code()),
        (429, "budget_exceeded")
    );
    assert_eq!(param(&refused, "ratelimit", "paid", "r"), 0);
    let t = param(&refused, "ratelimit", "paid", "t");
    let retry: i64 = refused.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(retry, t);

    // A refresh is metered by the same budget (and refused the same way).
    let refresh = app
        .post_json(
            &format!("/v1/companies/{}/refresh", orgnrs[0]),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(refresh.status, 429, "{}", refresh.text);
    assert_eq!(param(&refresh, "ratelimit", "paid", "r"), 0);

    // The usage read agrees, to the day and the second.
    let usage = app.get("/v1/usage", Some(&token)).await;
    assert_eq!(usage.status, 200, "{}", usage.text);
    let u = &usage.body;
    assert_eq!(u["time_zone"], "Europe/Stockholm");
    assert_eq!(u["paid_calls"]["daily_limit"], 6);
    assert_eq!(u["paid_calls"]["monitoring_share"], 0.5);
    assert_eq!(
        u["paid_calls"]["on_demand"],
        json!({"limit": 3, "used": 3, "remaining": 0})
    );
    assert_eq!(
        u["paid_calls"]["scheduled"],
        json!({"limit": 3, "used": 0, "remaining": 3})
    );
    assert_eq!(u["person_lookups"]["used"], 0);
    let paid = u["quotas"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["policy"] == "paid")
        .unwrap();
    assert_eq!(paid["quota"], 3);
    assert_eq!(paid["remaining"], 0);
    assert_eq!(paid["window_seconds"], 86_400);
    assert!((paid["reset_seconds"].as_i64().unwrap() - t).abs() <= 2);
    // The renewal is midnight in Stockholm (UTC+1 in winter, UTC+2 in summer) after `day`.
    let resets_at = chrono::DateTime::parse_from_rfc3339(u["resets_at"].as_str().unwrap())
        .unwrap()
        .naive_utc();
    let day = chrono::NaiveDate::parse_from_str(u["day"].as_str().unwrap(), "%Y-%m-%d").unwrap();
    let midnight = day.succ_opt().unwrap().and_hms_opt(0, 0, 0).unwrap();
    assert!(
        [1, 2].contains(&(midnight - resets_at).num_hours()),
        "{resets_at} is not midnight after {day} in Stockholm"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_person_ceiling_is_stated_on_person_reads_and_in_usage() {
    let app = TestApp::spawn().await;
    let (c, token) = with_permit(&app, "kyc:read kyb:read").await;
    app.admin(&["budget", "set", &c.tenant_id, "--person-ceiling", "1"])
        .await
        .unwrap();
    let token = {
        drop(token);
        app.token(&c).await
    };
    let first = person_ref(&app, &token, persons::RECORDED[0]).await;
    let second = person_ref(&app, &token, persons::RECORDED[1]).await;
    let a = app.get(&format!("/v1/persons/{first}"), Some(&token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert_eq!(param(&a, "ratelimit-policy", "person_lookups", "q"), 1);
    assert_eq!(param(&a, "ratelimit", "person_lookups", "r"), 0);
    let b = app
        .get(&format!("/v1/persons/{second}"), Some(&token))
        .await;
    assert_eq!((b.status, b.error_code()), (429, "budget_exceeded"));
    assert!(b.headers.get("retry-after").is_some());
    let usage = app.get("/v1/usage", Some(&token)).await;
    assert_eq!(
        usage.body["person_lookups"],
        json!({"limit": 1, "used": 1, "remaining": 0})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_metered_tool_carries_the_quota_in_its_structured_content() {
    let app = TestApp::spawn_with_sandbox().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    app.admin(&[
        "budget",
        "set",
        &c.tenant_id,
        "--daily-paid",
        "10",
        "--monitoring-share",
        "0.5",
    ])
    .await
    .unwrap();
    let token = app.token(&c).await;
    let orgnr = &companies_with_roles(1)[0];
    let result = call_tool(&app, &token, "get_officers", json!({"orgnr": orgnr})).await;
    assert_eq!(result["isError"], false, "{result}");
    let quota = result["structuredContent"]["quota"].as_array().unwrap();
    assert_eq!(quota.len(), 1, "{result}");
    let reset = quota[0]["reset_seconds"].as_i64().unwrap();
    assert!((1..=25 * 3600).contains(&reset), "{reset}");
    assert_eq!(
        quota[0],
        json!({
            "policy": "paid",
            "quota": 5,
            "remaining": 4,
            "window_seconds": 86_400,
            "reset_seconds": reset,
        })
    );
    // The same numbers as the usage read right after.
    let usage = app.get("/v1/usage", Some(&token)).await;
    assert_eq!(usage.body["paid_calls"]["on_demand"]["remaining"], 4);
    // content[1] stays the REST body byte for byte: the quota is not in it.
    assert!(!result["content"][1]["text"]
        .as_str()
        .unwrap()
        .contains("\"quota\""));
    // A free tool carries none.
    let free = call_tool(&app, &token, "get_company_profile", json!({"orgnr": orgnr})).await;
    assert!(free["structuredContent"].get("quota").is_none(), "{free}");
}

#[tokio::test(flavor = "multi_thread")]
async fn usage_is_open_to_any_scope_and_shows_only_the_callers_tenant() {
    let app = TestApp::spawn_with_sandbox().await;
    let spender = app.provision("kyb:read", "SE", "SE").await;
    let other = app.provision("events:read", "SE", "SE").await;
    let spender_token = app.token(&spender).await;
    let orgnr = &companies_with_roles(1)[0];
    assert_eq!(
        app.get(&officers(orgnr), Some(&spender_token)).await.status,
        200
    );

    let other_token = app.token(&other).await;
    let theirs = app.get("/v1/usage", Some(&other_token)).await;
    assert_eq!(theirs.status, 200, "{}", theirs.text);
    assert_eq!(theirs.body["paid_calls"]["on_demand"]["used"], 0);
    let mine = app.get("/v1/usage", Some(&spender_token)).await;
    assert_eq!(mine.body["paid_calls"]["on_demand"]["used"], 1);
    // Free: reading it spends nothing, and it carries no quota fields of its own.
    assert!(mine.headers.get("ratelimit").is_none());
    let again = app.get("/v1/usage", Some(&spender_token)).await;
    assert_eq!(again.body["paid_calls"], mine.body["paid_calls"]);

    let anonymous = app.get("/v1/usage", None).await;
    assert_eq!(anonymous.status, 401);
    // Audited like every consumer read.
    assert!(
        app.db
            .count(
                "audit_log",
                &format!(
                    "route = '/v1/usage' AND tenant_id = '{}'",
                    spender.tenant_id
                )
            )
            .await
            >= 2
    );
}
