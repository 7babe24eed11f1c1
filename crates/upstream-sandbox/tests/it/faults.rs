use crate::common::*;
use serde_json::json;
use std::time::{Duration, Instant};
use upstream_sandbox::ssbtgu::example_request;
use upstream_sandbox::{testnr, FaultKind, FaultSpec, SandboxConfig, Source};

async fn arm(
    sb: &upstream_sandbox::RunningSandbox,
    c: &reqwest::Client,
    source: &str,
    spec: serde_json::Value,
) -> reqwest::Response {
    c.post(format!("{}/faults/{source}", sb.control_url()))
        .json(&spec)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn http_5xx_for_n_requests_then_normal() {
    let sb = start();
    let c = client();
    let t = token(&sb, &c).await;
    let resp = arm(
        &sb,
        &c,
        "bolagsverket",
        serde_json::json!({"kind": "http_5xx", "status": 503, "times": 2}),
    )
    .await;
    assert_eq!(resp.status(), 200);
    for _ in 0..2 {
        let resp = post_vdm(&sb, &c, &t, "organisationer", testnr::EK).await;
        assert_eq!(resp.status(), 503);
        let v: serde_json::Value = resp.json().await.unwrap();
        assert_eq!(v["status"], 503);
        assert_eq!(v["title"], "Service Unavailable");
    }
    let resp = post_vdm(&sb, &c, &t, "organisationer", testnr::EK).await;
    assert_eq!(resp.status(), 200);

    // Until cleared, then DELETE.
    arm(
        &sb,
        &c,
        "scb",
        serde_json::json!({"kind": "http_5xx", "status": 500}),
    )
    .await;
    for _ in 0..3 {
        assert_eq!(scb_hamta(&sb, &c, testnr::EK).await.status(), 500);
    }
    let resp = c
        .delete(format!("{}/faults/scb", sb.control_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 204);
    assert_eq!(scb_hamta(&sb, &c, testnr::EK).await.status(), 200);

    // The token endpoint is its own source.
    arm(
        &sb,
        &c,
        "bolagsverket-token",
        serde_json::json!({"kind": "http_5xx", "times": 1}),
    )
    .await;
    let resp = c
        .post(sb.vdm_token_url())
        .basic_auth(
            upstream_sandbox::CLIENT_ID,
            Some(upstream_sandbox::CLIENT_SECRET),
        )
        .header("content-type", "application/x-www-form-urlencoded")
        .body("grant_type=client_credentials")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 503);

    // SSBTGU answers a SOAP fault; LT a Spinta error.
    arm(
        &sb,
        &c,
        "ssbtgu",
        serde_json::json!({"kind": "http_5xx", "status": 500, "times": 1}),
    )
    .await;
    let (status, body) = ssbtgu(&sb, &c, example_request(testnr::EK, &["UD0029"], None)).await;
    assert_eq!(status, 500);
    assert!(body.contains("<soap:Fault>") && body.contains("Servicefel"));
    arm(
        &sb,
        &c,
        "lt",
        serde_json::json!({"kind": "http_5xx", "status": 502, "times": 1}),
    )
    .await;
    let resp = c
        .get(format!(
            "{}/datasets/gov/rc/jar/iregistruoti/JuridinisAsmuo?ja_kodas=110443493",
            sb.lt_base_url()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 502);
    let v: serde_json::Value = resp.json().await.unwrap();
    assert!(v["errors"].is_array());

    // The call log shows what happened.
    let calls = sb.control().calls_for(Source::Bolagsverket);
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[0].fault, Some(FaultKind::Http5xx));
    assert_eq!(calls[0].status, Some(503));
    assert_eq!(calls[2].fault, None);
    assert_eq!(calls[2].status, Some(200));
    assert_eq!(
        calls[0].request_id.as_deref(),
        Some("8c3f2a4e-1111-4222-8333-944455556666")
    );
    sb.stop().await;
}

#[tokio::test]
async fn timeout_holds_longer_than_the_client_waits() {
    let sb = start_with(SandboxConfig::default().with_timeout_hold(Duration::from_secs(20)));
    let c = client();
    sb.control()
        .inject_fault(Source::Lt, FaultSpec::timeout().times(1))
        .unwrap();
    let impatient = reqwest::Client::builder()
        .timeout(Duration::from_millis(400))
        .build()
        .unwrap();
    let url = format!(
        "{}/datasets/gov/rc/jar/iregistruoti/JuridinisAsmuo?ja_kodas=110443493",
        sb.lt_base_url()
    );
    let started = Instant::now();
    let err = impatient.get(&url).send().await.unwrap_err();
    assert!(err.is_timeout(), "{err}");
    assert!(started.elapsed() < Duration::from_secs(5));
    // The fault was used up: the next request answers.
    assert_eq!(c.get(&url).send().await.unwrap().status(), 200);

    // A short hold ends in 504.
    sb.control()
        .inject_fault(
            Source::Scb,
            FaultSpec {
                delay_ms: Some(200),
                ..FaultSpec::timeout()
            }
            .times(1),
        )
        .unwrap();
    assert_eq!(scb_hamta(&sb, &c, testnr::EK).await.status(), 504);

    // Stopping the sandbox releases a held request quickly.
    sb.control()
        .inject_fault(Source::Lt, FaultSpec::timeout())
        .unwrap();
    let held = tokio::spawn({
        let c = c.clone();
        let url = url.clone();
        async move { c.get(&url).send().await.map(|r| r.status().as_u16()) }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    sb.stop().await;
    // Cut short, the hold answers 503 (a hold that ran out would be 504), and at once: the
    // hold is 30 s and the client's own timeout 20 s.
    let status = held
        .await
        .expect("the held request's task")
        .expect("an answer");
    assert_eq!(status, 503);
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn slow_delays_then_answers() {
    let sb = start();
    let c = client();
    sb.control()
        .inject_fault(Source::Ssbtgu, FaultSpec::slow(500).times(1))
        .unwrap();
    let started = Instant::now();
    let (status, body) = ssbtgu(&sb, &c, example_request(testnr::EK, &["UD0029"], None)).await;
    assert!(started.elapsed() >= Duration::from_millis(500));
    assert_eq!(status, 200);
    assert!(body.contains("<ns3:Skatteform>Ja</ns3:Skatteform>"));
    sb.stop().await;
}

#[tokio::test]
async fn malformed_is_200_with_a_broken_body() {
    let sb = start();
    let c = client();
    let t = token(&sb, &c).await;
    sb.control()
        .inject_fault(Source::Bolagsverket, FaultSpec::malformed().times(1))
        .unwrap();
    let resp = post_vdm(&sb, &c, &t, "organisationer", testnr::EK).await;
    assert_eq!(resp.status(), 200);
    assert!(resp.json::<serde_json::Value>().await.is_err());

    // A broken zip.
    let ab = upstream_sandbox::Dataset::standard();
    let rep = &ab.company(testnr::AB_THREE_REPORTS).unwrap().annual_reports[0];
    sb.control()
        .inject_fault(Source::Bolagsverket, FaultSpec::malformed().times(1))
        .unwrap();
    let resp = c
        .get(format!(
            "{}/dokument/{}",
            sb.vdm_base_url(),
            rep.dokument_id
        ))
        .bearer_auth(&t)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let bytes = resp.bytes().await.unwrap();
    assert!(zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).is_err());

    // SCB and LT bodies are broken JSON too.
    sb.control()
        .inject_fault(Source::Scb, FaultSpec::malformed().times(1))
        .unwrap();
    let resp = scb_hamta(&sb, &c, testnr::EK).await;
    assert_eq!(resp.status(), 200);
    assert!(resp.json::<serde_json::Value>().await.is_err());
    sb.stop().await;
}

#[tokio::test]
async fn field_fel_on_vdm_groups() {
    let sb = start();
    let c = client();
    let t = token(&sb, &c).await;

    // One group.
    arm(&sb, &c, "bolagsverket", serde_json::json!({
        "kind": "field_fel", "fel_typ": "OTILLGANGLIG_UPPGIFTSKALLA", "field": "organisationsnamn", "times": 1
    })).await;
    let v = organisationer(&sb, &c, &t, testnr::EK).await;
    let o = &v["organisationer"][0];
    assert_eq!(
        o["organisationsnamn"]["fel"]["typ"],
        "OTILLGANGLIG_UPPGIFTSKALLA"
    );
    assert_eq!(
        o["organisationsnamn"]["fel"]["felBeskrivning"],
        "Uppkoppling mot Bolagsverket misslyckades. Efterfrågade uppgifter kunde inte hämtas."
    );
    assert!(o["organisationsnamn"]["organisationsnamnLista"].is_null());
    assert!(o["organisationsform"]["fel"].is_null());

    // All SCB fields.
    arm(
        &sb,
        &c,
        "bolagsverket",
        serde_json::json!({"kind": "field_fel", "fel_typ": "TIMEOUT", "field": "SCB", "times": 1}),
    )
    .await;
    let v = organisationer(&sb, &c, &t, testnr::EK).await;
    let o = &v["organisationer"][0];
    for g in [
        "juridiskForm",
        "naringsgrenOrganisation",
        "verksamOrganisation",
    ] {
        assert_eq!(o[g]["fel"]["typ"], "TIMEOUT", "{g}");
        assert_eq!(o[g]["dataproducent"], "SCB");
    }
    assert!(o["organisationsnamn"]["fel"].is_null());

    // Bolagsverket as a whole (the spec's example shape).
    arm(
        &sb,
        &c,
        "bolagsverket",
        serde_json::json!({"kind": "field_fel", "times": 1}),
    )
    .await;
    let v = organisationer(&sb, &c, &t, testnr::SOLE_TRADER_THREE).await;
    let orgs = v["organisationer"].as_array().unwrap();
    assert_eq!(orgs.len(), 1);
    assert!(orgs[0]["organisationsidentitet"].is_null());
    assert_eq!(
        orgs[0]["avregistreradOrganisation"]["fel"]["typ"],
        "OTILLGANGLIG_UPPGIFTSKALLA"
    );
    assert_eq!(
        orgs[0]["postadressOrganisation"]["fel"]["typ"],
        "OTILLGANGLIG_UPPGIFTSKALLA"
    );

    // Refused for sources without fields, and for unknown fields.
    let resp = arm(&sb, &c, "scb", serde_json::json!({"kind": "field_fel"})).await;
    assert_eq!(resp.status(), 400);
    let resp = arm(
        &sb,
        &c,
        "bolagsverket",
        serde_json::json!({"kind": "field_fel", "field": "nope"}),
    )
    .await;
    assert_eq!(resp.status(), 400);
    let resp = arm(&sb, &c, "nowhere", serde_json::json!({"kind": "slow"})).await;
    assert_eq!(resp.status(), 404);
    sb.stop().await;
}

#[tokio::test]
async fn field_fel_on_ssbtgu_items() {
    let sb = start();
    let c = client();
    sb.control()
        .inject_fault(
            Source::Ssbtgu,
            FaultSpec::field_fel("OtillgangligUppgiftskalla", Some("UD0029")).times(1),
        )
        .unwrap();
    let (status, body) = ssbtgu(
        &sb,
        &c,
        example_request(testnr::EK, &["UD0029", "UD0031"], None),
    )
    .await;
    assert_eq!(status, 200);
    let ud29 = item(&body, "UD0029").unwrap();
    assert!(
        ud29.contains("<ns5:Fel Typ=\"OtillgangligUppgiftskalla\" Kalla=\"Formedlare\">"),
        "{ud29}"
    );
    assert!(item(&body, "UD0031")
        .unwrap()
        .contains("<ns3:Momsregistrerad>Ja</ns3:Momsregistrerad>"));

    sb.control()
        .inject_fault(
            Source::Ssbtgu,
            FaultSpec::field_fel("TIMEOUT", Some("Skatteverket")).times(1),
        )
        .unwrap();
    let (_, body) = ssbtgu(
        &sb,
        &c,
        example_request(testnr::EK, &["UD0001", "UD0029", "UD0033"], None),
    )
    .await;
    assert!(item(&body, "UD0029").unwrap().contains("Typ=\"Timeout\""));
    assert!(item(&body, "UD0033")
        .unwrap()
        .contains("<ns5:FelKod>14</ns5:FelKod>"));
    assert!(item(&body, "UD0001").unwrap().contains("<ns3:ForetagNamn>"));
    sb.stop().await;
}

#[tokio::test]
async fn field_fel_is_checked_against_the_source_it_is_armed_for() {
    let sb = start();
    let c = client();
    let cases = [
        (
            "bolagsverket",
            json!({"kind": "field_fel", "fel_typ": "TIMEOUT", "field": "SCB"}),
            200,
        ),
        (
            "bolagsverket",
            json!({"kind": "field_fel", "fel_typ": "NOPE"}),
            400,
        ),
        (
            "bolagsverket",
            json!({"kind": "field_fel", "field": "UD0029"}),
            400,
        ),
        (
            "ssbtgu",
            json!({"kind": "field_fel", "fel_typ": "TIMEOUT", "field": "UD0029"}),
            200,
        ),
        (
            "ssbtgu",
            json!({"kind": "field_fel", "field": "organisationsnamn"}),
            400,
        ),
        ("scb", json!({"kind": "field_fel"}), 400),
        ("lt", json!({"kind": "field_fel"}), 400),
        ("bolagsverket-token", json!({"kind": "field_fel"}), 400),
        ("scb", json!({"kind": "http_5xx", "status": 404}), 400),
    ];
    for (source, spec, want) in cases {
        let resp = arm(&sb, &c, source, spec.clone()).await;
        assert_eq!(resp.status(), want, "{source} {spec}");
    }
    // Only the two accepted specs are armed.
    let armed: Vec<Source> = sb.control().faults().iter().map(|f| f.source).collect();
    assert_eq!(armed, vec![Source::Bolagsverket, Source::Ssbtgu]);
}

#[tokio::test]
async fn each_source_fails_in_its_own_error_shape() {
    let sb = start();
    let c = client();
    for source in ["scb", "bolagsverket-token"] {
        let resp = arm(&sb, &c, source, json!({"kind": "http_5xx", "status": 503})).await;
        assert_eq!(resp.status(), 200);
    }
    let scb = scb_hamta(&sb, &c, testnr::EK).await;
    assert_eq!(scb.status(), 503);
    assert!(scb.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    let token = c
        .post(sb.vdm_token_url())
        .header("content-type", "application/x-www-form-urlencoded")
        .body("grant_type=client_credentials")
        .send()
        .await
        .unwrap();
    assert_eq!(token.status(), 503);
    let body: serde_json::Value = token.json().await.unwrap();
    assert_eq!(body["error"], "temporarily_unavailable");
}
