//! The portal assistant over real HTTP, its model the sandbox's (the Anthropic Messages wire
//! format over HTTP, scripted through the sandbox's control API): a question answered with a
//! tool call and its evidence, every request the model received read for personal numbers,
//! a model's tool call holding a raw number refused, 429 and 529 retried then surfaced, the
//! round cap, a member's and an admin's bounds, and another person's conversation as 404.

use blackbox::TestApp;
use domain::subjects::identifier::shape::holds_personal_number;
use serde_json::{json, Value};
use upstream_sandbox::spar::persons;

/// A signed-in person's browser: cookies kept, and the session's CSRF token.
struct Person {
    http: reqwest::Client,
    csrf: String,
    portal: String,
}

/// One server-sent event: its name and its data.
#[derive(Debug)]
struct Event {
    name: String,
    data: Value,
}

impl Person {
    async fn sign_in(app: &TestApp, tenant: &str, email: &str, role: &str) -> Person {
        let s = blackbox::portal::sign_in(app, tenant, email, role).await;
        Person {
            http: s.http,
            csrf: s.csrf,
            portal: s.portal,
        }
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        let r = self
            .http
            .get(format!("{}{path}", self.portal))
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    fn write(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.portal))
            .header("origin", &self.portal)
            .header("x-csrf-token", &self.csrf)
    }

    /// Starts a conversation under `grant`; its id.
    async fn start(&self, grant: &str) -> String {
        let r = self
            .write(reqwest::Method::POST, "/v1/assistant/conversations")
            .json(&json!({ "grant_id": grant }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        let body: Value = r.json().await.unwrap();
        body["id"].as_str().unwrap().to_owned()
    }

    /// Sends a message: the stream's events, or the refusal's status and body.
    async fn ask(&self, conversation: &str, message: &str) -> Result<Vec<Event>, (u16, Value)> {
        let r = self
            .write(
                reqwest::Method::POST,
                &format!("/v1/assistant/conversations/{conversation}/messages"),
            )
            .json(&json!({ "message": message }))
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        if status != 200 {
            return Err((status, r.json().await.unwrap_or(Value::Null)));
        }
        assert_eq!(
            r.headers()["content-type"].to_str().unwrap(),
            "text/event-stream"
        );
        let text = r.text().await.unwrap();
        Ok(text
            .split("\n\n")
            .filter(|f| !f.trim().is_empty())
            .map(|frame| {
                let mut name = String::new();
                let mut data = String::new();
                for line in frame.lines() {
                    if let Some(n) = line.strip_prefix("event: ") {
                        name = n.to_owned();
                    } else if let Some(d) = line.strip_prefix("data: ") {
                        data.push_str(d);
                    }
                }
                Event {
                    name,
                    data: serde_json::from_str(&data).unwrap(),
                }
            })
            .collect())
    }
}

/// Whether what a model was sent holds a number shaped like a personal identity number, read
/// leaf by leaf (a tool result's content, itself JSON, read the same way). Opaque tokens are
/// not read for numbers: a SHA-256 digest's hex and a UUID are random, so their digit runs
/// take any shape now and then (`...5648099035463...` holds a coordination number's shape),
/// and they are evidence the body carries, not anything a person wrote.
fn sent_holds_personal_number(sent: &Value) -> bool {
    match sent {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(inner @ (Value::Object(_) | Value::Array(_))) => sent_holds_personal_number(&inner),
            _ => !opaque_token(s) && holds_personal_number(s),
        },
        Value::Number(n) => holds_personal_number(&n.to_string()),
        Value::Array(items) => items.iter().any(sent_holds_personal_number),
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| holds_personal_number(k) || sent_holds_personal_number(v)),
        Value::Bool(_) | Value::Null => false,
    }
}

/// A SHA-256 digest as the evidence writes it, or a UUID.
fn opaque_token(s: &str) -> bool {
    let hex = |t: &str, len: usize| t.len() == len && t.bytes().all(|b| b.is_ascii_hexdigit());
    if let Some(digest) = s.strip_prefix("sha256:") {
        return hex(digest, 64);
    }
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, len)| hex(g, len))
}

#[test]
fn only_digests_and_uuids_are_passed_over() {
    // The digest that once read as a coordination number, inside a tool result's JSON.
    let digest = "sha256:72b70fd7b50dbcafecd24735f00fce8364ef98f6f5648099035463b2fc01ed88";
    assert!(holds_personal_number(digest));
    let content = json!({ "evidence": [{ "digest": digest }] }).to_string();
    assert!(!sent_holds_personal_number(
        &json!([{ "content": content }])
    ));
    assert!(!sent_holds_personal_number(&json!(
        "4c3b99f1-743c-46d1-886a-216433660023"
    )));
    // A number anywhere else is found, however deep, in a key or in a JSON number.
    let n = persons::ORDINARY;
    let nested = json!({ "owners": [{ "note": format!("born {n}") }] }).to_string();
    assert!(sent_holds_personal_number(&json!([{ "content": nested }])));
    assert!(sent_holds_personal_number(&json!({ n: 1 })));
    assert!(sent_holds_personal_number(&json!(n
        .parse::<u64>()
        .unwrap())));
    assert!(sent_holds_personal_number(&json!(format!("sha256:{n}"))));
}

fn last(events: &[Event]) -> &Event {
    events.last().expect("events")
}

fn named<'a>(events: &'a [Event], name: &str) -> Vec<&'a Event> {
    events.iter().filter(|e| e.name == name).collect()
}

/// An active company of the sandbox's data set.
fn company() -> String {
    upstream_sandbox::Dataset::standard()
        .active_ab_with_reports(1)
        .expect("an active company")
        .orgnr10()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_is_answered_with_a_tool_call_and_its_evidence_cited() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let p = Person::sign_in(&app, &c.tenant_id, "analyst@example.se", "member").await;
    let (status, about) = p.get("/v1/assistant").await;
    assert_eq!(status, 200);
    assert_eq!(about["enabled"], true);
    assert!(about["grants"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["grant_id"] == c.grant_id.as_str()));
    let conversation = p.start(&c.grant_id).await;
    // The sandbox's own model: it calls the company tool for an organisation number, then
    // answers citing the call records it was given.
    let orgnr = company();
    let events = p
        .ask(&conversation, &format!("Is {orgnr} still active?"))
        .await
        .unwrap();
    assert_eq!(events[0].name, "accepted");
    let call = named(&events, "tool_call");
    assert_eq!(call[0].data["name"], "get_company_profile", "{events:?}");
    let result = named(&events, "tool_result");
    assert_eq!(result[0].data["ok"], true, "{events:?}");
    let done = last(&events);
    assert_eq!(done.name, "done", "{events:?}");
    assert_eq!(done.data["stop"], "answered");
    let cited = done.data["cited"].as_array().unwrap();
    let call_ref = cited
        .iter()
        .find_map(|c| c["call_ref"].as_str())
        .expect("a call record cited");
    let text: String = named(&events, "text")
        .iter()
        .map(|e| e.data["text"].as_str().unwrap())
        .collect();
    assert!(text.contains(call_ref), "{text}");

    // Kept: the conversation reads back with its turns; audited as the person's tool call.
    let (status, read) = p
        .get(&format!("/v1/assistant/conversations/{conversation}"))
        .await;
    assert_eq!(status, 200);
    assert!(read["turns"].as_array().unwrap().len() >= 4, "{read}");
    assert!(read["title"].as_str().unwrap().starts_with("Is "));
    let rows = app
        .db
        .rows(&format!(
            "SELECT route, tool, portal_user_id, conversation_id FROM audit_log \
             WHERE tenant_id = '{}' AND surface = 'assistant' ORDER BY occurred_at",
            c.tenant_id
        ))
        .await;
    assert!(
        rows.iter().any(|r| r["tool"] == "get_company_profile"
            && r["conversation_id"] == conversation.as_str()
            && r["portal_user_id"].is_string()),
        "{rows:?}"
    );
    assert!(
        rows.iter().any(|r| r["route"] == "/v1/companies/{orgnr}"),
        "the route's own row beside the tool's: {rows:?}"
    );
    // The person sees their assistant's calls on the audit page, and the tenant's model
    // calls (a tool round and the answer) on the usage page.
    let page = |path: &str| {
        let (http, url) = (p.http.clone(), format!("{}{path}", p.portal));
        async move { http.get(url).send().await.unwrap().text().await.unwrap() }
    };
    let audit = page("/audit").await;
    assert!(audit.contains("tool get_company_profile"), "{audit}");
    assert!(
        audit.contains(&format!("assistant ({conversation})")),
        "{audit}"
    );
    let usage = page("/usage").await;
    assert!(usage.contains("id=\"assistant-calls\">2 of 200"), "{usage}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_personal_number_never_reaches_the_model_or_the_store() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read kyc:read", "SE", "SE").await;
    crate::persons::set_permit(&app, &c, -30, 365, "active").await;
    let p = Person::sign_in(&app, &c.tenant_id, "lead@example.se", "admin").await;
    let conversation = p.start(&c.grant_id).await;
    app.sandbox().clear_model();
    let n = persons::ORDINARY;
    let dashed = format!("{}-{}", &n[..8], &n[8..]);
    let events = p
        .ask(&conversation, &format!("Who is {dashed}? And {}?", &n[2..]))
        .await
        .unwrap();
    let accepted = &events[0].data["message"];
    assert!(
        accepted.as_str().unwrap().contains("identifier_ref idr_"),
        "{accepted}"
    );
    // The sandbox's model read the reference and asked for the person's profile by it.
    assert_eq!(
        named(&events, "tool_call")[0].data["name"],
        "get_person_profile",
        "{events:?}"
    );
    let requests = app.sandbox().model_requests();
    assert!(!requests.is_empty());
    for r in &requests {
        assert!(!sent_holds_personal_number(r), "{r}");
    }
    // Nor does the store: the turns are sealed, the audit rows name routes (the whole
    // database dumped as text).
    let dump = app.db.dump_text().await;
    assert!(dump.contains("assistant_turns"), "the dump is real");
    for written in [n.to_owned(), n[2..].to_owned(), dashed.clone()] {
        assert!(!dump.contains(&written), "the dump holds the number");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_tool_call_holding_a_raw_number_is_refused_and_nothing_is_looked_up() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read kyc:read", "SE", "SE").await;
    crate::persons::set_permit(&app, &c, -30, 365, "active").await;
    let p = Person::sign_in(&app, &c.tenant_id, "lead@example.se", "admin").await;
    let conversation = p.start(&c.grant_id).await;
    let spar_before = app
        .sandbox()
        .calls_for(upstream_sandbox::Source::Personsokning)
        .len();
    app.sandbox().model_script(vec![
        json!({"tool_calls": [{"name": "get_person_profile", "input": {"ref": persons::ORDINARY}}]}),
        json!({"text": "I cannot look that up without a reference."}),
    ]).unwrap();
    let events = p.ask(&conversation, "look the person up").await.unwrap();
    let result = named(&events, "tool_result");
    assert_eq!(result[0].data["ok"], false);
    assert_eq!(result[0].data["error"], "identifier_in_argument");
    assert_eq!(last(&events).name, "done");
    assert_eq!(
        app.sandbox()
            .calls_for(upstream_sandbox::Source::Personsokning)
            .len(),
        spar_before,
        "nothing looked up"
    );
    // The model was told, in the tool's result, to use a reference; the number it wrote is
    // withheld from what it is sent back, from the stream and from the store.
    let requests = app.sandbox().model_requests();
    let told = requests.last().unwrap().to_string();
    assert!(told.contains("identifier_in_argument"), "{told}");
    assert!(told.contains("identifier_ref"), "{told}");
    for r in &requests {
        assert!(!sent_holds_personal_number(r), "{r}");
    }
    let call = named(&events, "tool_call");
    assert!(!holds_personal_number(&call[0].data.to_string()));
    let dump = app.db.dump_text().await;
    let n = persons::ORDINARY;
    for written in [n.to_owned(), n[2..].to_owned()] {
        assert!(!dump.contains(&written), "the store holds the number");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn overload_and_rate_limits_are_retried_then_surfaced_and_the_rounds_are_capped() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let p = Person::sign_in(&app, &c.tenant_id, "lead@example.se", "admin").await;
    let conversation = p.start(&c.grant_id).await;

    // One 429 and one 529: retried, then answered.
    app.sandbox()
        .model_script(vec![
            json!({"status": 429}),
            json!({"status": 529}),
            json!({"text": "answered after the retries"}),
        ])
        .unwrap();
    let events = p.ask(&conversation, "hello").await.unwrap();
    assert_eq!(last(&events).name, "done", "{events:?}");

    // Overloaded past the retries: an error event with the API's code, then nothing.
    app.sandbox()
        .model_script(vec![
            json!({"status": 529}),
            json!({"status": 529}),
            json!({"status": 529}),
        ])
        .unwrap();
    let events = p.ask(&conversation, "again").await.unwrap();
    assert_eq!(last(&events).name, "error", "{events:?}");
    assert_eq!(last(&events).data["error"], "upstream_unavailable");
    // Rate limited past the retries: 429's code.
    app.sandbox()
        .model_script(vec![
            json!({"status": 429}),
            json!({"status": 429}),
            json!({"status": 429}),
        ])
        .unwrap();
    let events = p.ask(&conversation, "and again").await.unwrap();
    assert_eq!(last(&events).data["error"], "rate_limited", "{events:?}");

    // A model that keeps calling tools is stopped at the round cap.
    let orgnr = company();
    app.sandbox().model_script(
        (0..10)
            .map(|_| json!({"tool_calls": [{"name": "get_company_profile", "input": {"orgnr": orgnr}}]}))
            .collect(),
    ).unwrap();
    let events = p.ask(&conversation, "loop").await.unwrap();
    let done = last(&events);
    assert_eq!(done.name, "done", "{events:?}");
    assert_eq!(done.data["stop"], "round_limit");
    assert_eq!(
        named(&events, "tool_result")
            .iter()
            .filter(|r| r.data["ok"] == true)
            .count(),
        domain::assistant::bounds::ROUND_CAP as usize - 1
    );
    app.sandbox().clear_model();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_member_reads_companies_an_admin_also_persons_and_others_see_nothing() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read kyc:read", "SE", "SE").await;
    crate::persons::set_permit(&app, &c, -30, 365, "active").await;
    let member = Person::sign_in(&app, &c.tenant_id, "member@example.se", "member").await;
    let (_, about) = member.get("/v1/assistant").await;
    let grant = about["grants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["grant_id"] == c.grant_id.as_str())
        .unwrap()
        .clone();
    assert_eq!(grant["scopes"], json!(["kyb:read"]), "{grant}");
    let conversation = member.start(&c.grant_id).await;
    // A member's message naming a person is refused: resolving needs kyc:read.
    let n = persons::ORDINARY;
    let (status, body) = member
        .ask(&conversation, &format!("who is {n}"))
        .await
        .unwrap_err();
    assert_eq!(status, 403, "{body}");

    // Another person of the tenant, and a person of another tenant: 404.
    let other = Person::sign_in(&app, &c.tenant_id, "other@example.se", "admin").await;
    let (status, _) = other
        .get(&format!("/v1/assistant/conversations/{conversation}"))
        .await;
    assert_eq!(status, 404);
    let d = app.provision("kyb:read", "SE", "SE").await;
    let stranger = Person::sign_in(&app, &d.tenant_id, "stranger@example.se", "admin").await;
    let (status, _) = stranger
        .get(&format!("/v1/assistant/conversations/{conversation}"))
        .await;
    assert_eq!(status, 404);
    let (status, _) = stranger.ask(&conversation, "hello").await.unwrap_err();
    assert_eq!(status, 404);
    // Another tenant's grant cannot be picked.
    let r = stranger
        .write(reqwest::Method::POST, "/v1/assistant/conversations")
        .json(&json!({ "grant_id": c.grant_id }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);

    // Writes need the CSRF token; the person deletes their own conversation.
    let r = member
        .http
        .delete(format!(
            "{}/v1/assistant/conversations/{conversation}",
            member.portal
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let r = member
        .write(
            reqwest::Method::DELETE,
            &format!("/v1/assistant/conversations/{conversation}"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let (status, _) = member
        .get(&format!("/v1/assistant/conversations/{conversation}"))
        .await;
    assert_eq!(status, 404);
}

/// Arguments for each tool the assistant may be offered: real ones where the tool reads
/// people's data (a company with officers and owners, a person's ref, their subjects).
fn arguments(name: &str, orgnr: &str, person_ref: &str, person: &str, company: &str) -> Value {
    match name {
        "get_company_profile"
        | "get_officers"
        | "get_signatories"
        | "get_beneficial_owners"
        | "lookup_company" => json!({ "orgnr": orgnr }),
        "get_person_profile" | "get_person_engagements" => json!({ "ref": person_ref }),
        "get_subject" => json!({ "id": person }),
        "screen_subject" => json!({ "subject_id": company }),
        "list_screening_checks" => json!({ "subject_id": person }),
        "get_screening_check" | "get_subscription" | "get_webhook" => {
            json!({ "id": "chk_01ARZ3NDEKTSV4RRFFQ69G5FAV" })
        }
        "list_webhook_deliveries" => json!({ "id": "whk_01ARZ3NDEKTSV4RRFFQ69G5FAV" }),
        "list_events" | "list_changes" => json!({ "cursor": "0" }),
        _ => json!({}),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn no_tool_result_sent_to_the_model_holds_a_personal_number() {
    let app = TestApp::spawn().await;
    let scopes = "kyb:read kyc:read monitoring:read events:read screening:read screening:run";
    let c = app.provision(scopes, "SE", "SE").await;
    crate::persons::set_permit(&app, &c, -30, 365, "active").await;
    let token = app.token(&c).await;
    // A company whose officers and owners are people (Skatteverket's test numbers), and a
    // person of the tenant, resolved through the API beforehand.
    let orgnr = "5560021361";
    let company = app.resolve(&token, "orgnr", orgnr, None).await;
    let n = persons::ORDINARY;
    let person = app
        .resolve(
            &token,
            "personnummer",
            &format!("{}-{}", &n[..8], &n[8..]),
            None,
        )
        .await;
    assert_eq!(person.status, 200, "{}", person.text);
    let (person_ref, person_id) = (
        person.body["identifier_ref"].as_str().unwrap().to_owned(),
        person.body["subject_id"].as_str().unwrap().to_owned(),
    );
    let company_id = company.body["subject_id"].as_str().unwrap().to_owned();

    let p = Person::sign_in(&app, &c.tenant_id, "lead@example.se", "admin").await;
    let conversation = p.start(&c.grant_id).await;
    // Every tool the assistant is offered here, called with its arguments, eight a round.
    let held = domain::access::scope::ScopeSet::parse_list(scopes).unwrap();
    let bounded = domain::assistant::bounds::scopes(domain::portal::user::PortalRole::Admin, &held);
    let offered: Vec<String> = app
        .app
        .assistant
        .tools
        .offered(&bounded)
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert!(offered.len() >= 15, "{offered:?}");
    assert!(!offered.contains(&"lookup_person".to_owned()));
    let mut turns: Vec<Value> = offered
        .chunks(domain::assistant::bounds::CALLS_PER_ROUND)
        .map(|names| {
            let calls: Vec<Value> = names
                .iter()
                .map(|name| {
                    json!({"name": name, "input": arguments(name, orgnr, &person_ref, &person_id, &company_id)})
                })
                .collect();
            json!({ "tool_calls": calls })
        })
        .collect();
    assert!(turns.len() < domain::assistant::bounds::ROUND_CAP as usize);
    turns.push(json!({"text": "That is everything."}));
    app.sandbox().clear_model();
    app.sandbox().model_script(turns).unwrap();
    let events = p.ask(&conversation, "tell me everything").await.unwrap();
    assert_eq!(last(&events).name, "done", "{events:?}");
    let results = named(&events, "tool_result");
    assert_eq!(results.len(), offered.len());
    // The reads of people's data answered (not refused), so their results were sent.
    for name in [
        "get_officers",
        "get_beneficial_owners",
        "get_person_profile",
        "get_subject",
    ] {
        assert!(
            results
                .iter()
                .any(|r| r.data["name"] == name && r.data["ok"] == true),
            "{name}: {results:?}"
        );
    }
    let requests = app.sandbox().model_requests();
    let sent = requests.last().unwrap().to_string();
    assert!(sent.contains("personal_number_ref") || sent.contains("identifier_ref"));
    for r in &requests {
        assert!(!sent_holds_personal_number(r), "{r}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_conversation_is_kept_for_its_retention_then_purged() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let p = Person::sign_in(&app, &c.tenant_id, "lead@example.se", "admin").await;
    let old = p.start(&c.grant_id).await;
    p.ask(&old, "hello").await.unwrap();
    // 29 days later another conversation is used; at 31 days the first one is past the
    // retention (30 days after it was last used) and goes, the second stays.
    app.clock.advance(chrono::Duration::days(29));
    let p = Person::sign_in(&app, &c.tenant_id, "later@example.se", "admin").await;
    let recent = p.start(&c.grant_id).await;
    p.ask(&recent, "hello again").await.unwrap();
    app.clock.advance(chrono::Duration::days(2));
    let purged = app.app.assistant.purge().await.unwrap();
    assert_eq!(purged, 1);
    assert_eq!(
        app.db
            .count(
                "assistant_conversations",
                &format!("conversation_id = '{old}'")
            )
            .await,
        0
    );
    assert_eq!(
        app.db
            .count("assistant_turns", &format!("conversation_id = '{old}'"))
            .await,
        0,
        "its turns go with it"
    );
    assert_eq!(
        app.db
            .count(
                "assistant_conversations",
                &format!("conversation_id = '{recent}'")
            )
            .await,
        1,
        "a conversation used within the retention stays"
    );
}
