use crate::common::*;
use std::io::Read;
use std::time::Duration;
use upstream_sandbox::{testnr, Dataset, SandboxConfig, CLIENT_ID, CLIENT_SECRET, VDM_SCOPES};

#[tokio::test]
async fn token_flow_form_basic_and_errors() {
    let sb = start();
    let c = client();
    // Form credentials.
    let v: serde_json::Value = c
        .post(sb.vdm_token_url())
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form_body(&[
            ("grant_type", "client_credentials"),
            ("client_id", CLIENT_ID),
            ("client_secret", CLIENT_SECRET),
            ("scope", VDM_SCOPES),
        ]))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["token_type"], "Bearer");
    assert_eq!(v["expires_in"], 3600);
    assert_eq!(v["scope"], VDM_SCOPES);
    assert!(v["access_token"].as_str().unwrap().len() >= 32);

    // HTTP Basic.
    let resp = c
        .post(sb.vdm_token_url())
        .basic_auth(CLIENT_ID, Some(CLIENT_SECRET))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("grant_type=client_credentials&scope=vardefulla-datamangder%3Aread")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let v: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(v["scope"], "vardefulla-datamangder:read");

    // Wrong secret.
    let resp = c
        .post(sb.vdm_token_url())
        .basic_auth(CLIENT_ID, Some("wrong"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("grant_type=client_credentials")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);
    let v: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(v["error"], "invalid_client");

    // Wrong grant type.
    let resp = c
        .post(sb.vdm_token_url())
        .basic_auth(CLIENT_ID, Some(CLIENT_SECRET))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("grant_type=password")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    let v: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(v["error"], "unsupported_grant_type");
    sb.stop().await;
}

#[tokio::test]
async fn data_routes_need_a_valid_token_with_scope() {
    let sb = start();
    let c = client();
    let body = serde_json::json!({"identitetsbeteckning": testnr::AB_TESTBOLAG_4});
    let url = format!("{}/organisationer", sb.vdm_base_url());

    let resp = c.post(&url).json(&body).send().await.unwrap();
    assert_eq!(resp.status(), 401);
    let v: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(
        v["detail"],
        "Anroparen saknar giltiga autentiseringsuppgifter."
    );

    let resp = c
        .post(&url)
        .bearer_auth("not-a-token")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);

    // A token without the read scope ("default") is refused with 403.
    let v: serde_json::Value = c
        .post(sb.vdm_token_url())
        .basic_auth(CLIENT_ID, Some(CLIENT_SECRET))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("grant_type=client_credentials")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["scope"], "default");
    let t = v["access_token"].as_str().unwrap();
    let resp = c
        .post(&url)
        .bearer_auth(t)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);

    // isalive needs the ping scope.
    let t = token(&sb, &c).await;
    let resp = c
        .get(format!("{}/isalive", sb.vdm_base_url()))
        .bearer_auth(&t)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.text().await.unwrap(), "OK");

    // Revoked tokens stop working.
    sb.control().revoke_tokens();
    let resp = c
        .post(&url)
        .bearer_auth(&t)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);
    sb.stop().await;
}

#[tokio::test]
async fn tokens_expire() {
    let sb = start_with(SandboxConfig::default().with_token_ttl(Duration::from_millis(700)));
    let c = client();
    let t = token(&sb, &c).await;
    let resp = post_vdm(&sb, &c, &t, "organisationer", testnr::EK).await;
    assert_eq!(resp.status(), 200);
    tokio::time::sleep(Duration::from_millis(900)).await;
    let resp = post_vdm(&sb, &c, &t, "organisationer", testnr::EK).await;
    assert_eq!(resp.status(), 401);
    sb.stop().await;
}

#[tokio::test]
async fn organisationer_happy_path_for_a_synthetic_ab() {
    let sb = start();
    let c = client();
    let t = token(&sb, &c).await;
    let ds = Dataset::standard();
    let ab = ds.active_ab_with_reports(1).unwrap();
    let v = organisationer(&sb, &c, &t, &ab.id).await;
    let orgs = v["organisationer"].as_array().unwrap();
    assert_eq!(orgs.len(), 1);
    let o = &orgs[0];
    assert_eq!(
        o["organisationsidentitet"]["identitetsbeteckning"],
        ab.id.as_str()
    );
    assert_eq!(o["organisationsidentitet"]["typ"]["kod"], "ORGNR");
    assert_eq!(o["organisationsform"]["kod"], "AB");
    assert_eq!(o["organisationsform"]["dataproducent"], "Bolagsverket");
    assert!(o["organisationsform"]["fel"].is_null());
    assert_eq!(
        o["organisationsnamn"]["organisationsnamnLista"][0]["namn"],
        ab.name().unwrap()
    );
    assert_eq!(o["juridiskForm"]["kod"], "49");
    assert_eq!(
        o["naringsgrenOrganisation"]["sni"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
    assert_eq!(o["verksamOrganisation"]["kod"], "JA");
    assert_eq!(o["registreringsland"]["kod"], "SE-LAND");
    assert!(o["avregistreradOrganisation"].is_null());
    assert!(o["pagaendeAvvecklingsEllerOmstruktureringsforfarande"].is_null());
    sb.stop().await;
}

#[tokio::test]
async fn organisationer_shows_states() {
    let sb = start();
    let c = client();
    let t = token(&sb, &c).await;
    let ds = Dataset::standard();

    let kk = ds.bankrupt().unwrap();
    let v = organisationer(&sb, &c, &t, &kk.id).await;
    let p = &v["organisationer"][0]["pagaendeAvvecklingsEllerOmstruktureringsforfarande"];
    assert_eq!(
        p["pagaendeAvvecklingsEllerOmstruktureringsforfarandeLista"][0]["kod"],
        "KK"
    );

    let li = ds.in_liquidation().unwrap();
    let v = organisationer(&sb, &c, &t, &li.id).await;
    let p = &v["organisationer"][0]["pagaendeAvvecklingsEllerOmstruktureringsforfarande"];
    assert_eq!(
        p["pagaendeAvvecklingsEllerOmstruktureringsforfarandeLista"][0]["kod"],
        "LI"
    );

    let dereg = ds.deregistered().unwrap();
    let v = organisationer(&sb, &c, &t, &dereg.id).await;
    let o = &v["organisationer"][0];
    assert!(o["avregistreradOrganisation"]["avregistreringsdatum"].is_string());
    assert!(o["avregistreringsorsak"]["kod"].is_string());
    assert_eq!(o["verksamOrganisation"]["kod"], "NEJ");

    let st = ds.sole_trader_with_several_businesses().unwrap();
    let v = organisationer(&sb, &c, &t, &st.id).await;
    let orgs = v["organisationer"].as_array().unwrap();
    assert_eq!(orgs.len(), st.business_count());
    for (i, o) in orgs.iter().enumerate() {
        assert_eq!(o["namnskyddslopnummer"], i as u64 + 1);
        assert_eq!(o["organisationsidentitet"]["typ"]["kod"], "PERSON");
    }

    let scb_only = ds.only_at_scb().unwrap();
    let v = organisationer(&sb, &c, &t, &scb_only.id).await;
    let o = &v["organisationer"][0];
    assert_eq!(
        o["organisationsform"]["fel"]["typ"],
        "ORGANISATION_FINNS_EJ"
    );
    assert_eq!(o["organisationsnamn"]["dataproducent"], "SCB");
    sb.stop().await;
}

#[tokio::test]
async fn unknown_organisation_is_200_with_finns_ej() {
    let sb = start();
    let c = client();
    let t = token(&sb, &c).await;
    let unknown = Dataset::standard().unknown_orgnr();
    let v = organisationer(&sb, &c, &t, &unknown).await;
    let o = &v["organisationer"][0];
    assert_eq!(
        o["organisationsidentitet"]["identitetsbeteckning"],
        unknown.as_str()
    );
    assert!(o["organisationsidentitet"]["typ"].is_null());
    for g in [
        "organisationsform",
        "avregistreringsorsak",
        "verksamhetsbeskrivning",
        "organisationsnamn",
    ] {
        assert_eq!(o[g]["fel"]["typ"], "ORGANISATION_FINNS_EJ", "{g}");
        assert_eq!(o[g]["dataproducent"], "Bolagsverket", "{g}");
    }
    for g in [
        "juridiskForm",
        "naringsgrenOrganisation",
        "verksamOrganisation",
    ] {
        assert_eq!(o[g]["fel"]["typ"], "ORGANISATION_FINNS_EJ", "{g}");
        assert_eq!(o[g]["dataproducent"], "SCB", "{g}");
    }
    sb.stop().await;
}

#[tokio::test]
async fn bad_check_digit_and_malformed_body_are_400() {
    let sb = start();
    let c = client();
    let t = token(&sb, &c).await;
    let resp = post_vdm(&sb, &c, &t, "organisationer", "5560021362").await;
    assert_eq!(resp.status(), 400);
    assert_eq!(
        resp.headers()["x-request-id"],
        "8c3f2a4e-1111-4222-8333-944455556666"
    );
    let text = resp.text().await.unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["type"], "about:blank");
    assert_eq!(v["instance"], "client.error");
    assert_eq!(v["status"], 400);
    assert_eq!(v["title"], "Bad Request");
    assert_eq!(
        v["detail"],
        "Identitetsbeteckning har ogiltig kontrollsiffra."
    );
    assert_eq!(v["requestId"], "8c3f2a4e-1111-4222-8333-944455556666");
    assert!(v["timestamp"].as_str().unwrap().ends_with('Z'));
    // Same keys, same order as the recorded TEST 400.
    let recorded = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../adapters-se/testdata/vdm/dokumentlista-400-not-in-test-allowlist.json"
    ))
    .unwrap();
    assert_eq!(
        crate::samples::key_sequence(&text),
        crate::samples::key_sequence(&recorded)
    );

    // dokumentlista validates the same way.
    let resp = post_vdm(&sb, &c, &t, "dokumentlista", "198101052383").await;
    assert_eq!(resp.status(), 400);

    // Malformed JSON, missing field: same shape, generated request id.
    for body in ["{not json", "{\"orgnr\":\"5560021361\"}"] {
        let resp = c
            .post(format!("{}/organisationer", sb.vdm_base_url()))
            .bearer_auth(&t)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 400);
        let v: serde_json::Value = resp.json().await.unwrap();
        assert_eq!(v["status"], 400);
        assert_eq!(v["instance"], "client.error");
        assert_eq!(v["requestId"].as_str().unwrap().len(), 36);
    }
    sb.stop().await;
}

#[tokio::test]
async fn dokumentlista_and_dokument_serve_real_zips() {
    let sb = start();
    let c = client();
    let t = token(&sb, &c).await;
    let ds = Dataset::standard();
    let ab = ds.active_ab_with_reports(2).unwrap();
    let v: serde_json::Value = post_vdm(&sb, &c, &t, "dokumentlista", &ab.id)
        .await
        .json()
        .await
        .unwrap();
    let docs = v["dokument"].as_array().unwrap();
    assert_eq!(docs.len(), 2);
    assert!(
        docs[0]["rapporteringsperiodTom"].as_str() > docs[1]["rapporteringsperiodTom"].as_str()
    );
    let id = docs[0]["dokumentId"].as_str().unwrap();
    assert!(id.ends_with("_paket"));
    assert_eq!(docs[0]["filformat"], "application/zip");

    let get = || async {
        c.get(format!("{}/dokument/{id}", sb.vdm_base_url()))
            .bearer_auth(&t)
            .header("accept", "application/zip")
            .send()
            .await
            .unwrap()
    };
    let resp = get().await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "application/zip");
    let bytes = resp.bytes().await.unwrap();
    assert_eq!(
        bytes,
        get().await.bytes().await.unwrap(),
        "deterministic bytes"
    );
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let mut found = false;
    for i in 0..z.len() {
        let mut f = z.by_index(i).unwrap();
        if f.name().unwrap().ends_with(".xhtml") {
            let mut s = String::new();
            f.read_to_string(&mut s).unwrap();
            assert!(s.contains("<ix:nonFraction name=\"se-gen-base:Nettoomsattning\""));
            assert!(s.contains("<ix:nonFraction name=\"se-gen-base:MedelantaletAnstallda\""));
            assert!(s.contains(&ab.id));
            found = true;
        }
    }
    assert!(found);

    // No reports: empty list. Unknown document: 404.
    let none = ds.active_ab_with_reports(0).unwrap();
    let v: serde_json::Value = post_vdm(&sb, &c, &t, "dokumentlista", &none.id)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(v["dokument"].as_array().unwrap().len(), 0);
    let resp = c
        .get(format!(
            "{}/dokument/00000000-0000-4000-8000-000000000000_paket",
            sb.vdm_base_url()
        ))
        .bearer_auth(&t)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
    let v: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(v["detail"], "Dokument kunde inte hittas.");
    assert_eq!(v["title"], "Not Found");
    sb.stop().await;
}

/// The default sandbox serves the pinned standard data set: a synthetic company generated
/// from the standard seed, under the number and name every process generates for it.
#[tokio::test]
async fn the_default_sandbox_serves_the_pinned_data_set() {
    let sb = start();
    let c = client();
    let t = token(&sb, &c).await;
    let v = organisationer(&sb, &c, &t, "5589901825").await;
    let o = &v["organisationer"][0];
    assert_eq!(o["organisationsform"]["kod"], "AB");
    assert_eq!(
        o["organisationsnamn"]["organisationsnamnLista"][0]["namn"],
        "Sjöbris Fastigheter AB"
    );
    // Another seed's first synthetic company is not in it.
    let v = organisationer(&sb, &c, &t, "5579051854").await;
    assert_eq!(
        v["organisationer"][0]["organisationsnamn"]["fel"]["typ"],
        "ORGANISATION_FINNS_EJ"
    );
    sb.stop().await;
}

#[test]
fn start_on_thread_serves_without_a_runtime() {
    use std::io::Write;
    let sb = upstream_sandbox::Sandbox::start_on_thread(SandboxConfig::default()).unwrap();
    let mut s = std::net::TcpStream::connect(sb.addr).unwrap();
    s.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    assert!(out.contains("/bolagsverket/vdm"));
    sb.stop_blocking();
}

/// The service starts the sandbox inside its own actix runtime: that must work too.
#[test]
fn starts_inside_an_actix_runtime() {
    actix_web::rt::System::new().block_on(async {
        let sb = upstream_sandbox::Sandbox::start(SandboxConfig::default()).unwrap();
        let c = client();
        let t = token(&sb, &c).await;
        let v = organisationer(&sb, &c, &t, testnr::HB).await;
        assert_eq!(v["organisationer"][0]["organisationsform"]["kod"], "HB");
        sb.stop().await;
    });
}
