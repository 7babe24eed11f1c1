use crate::common::*;
use std::net::{IpAddr, SocketAddr, UdpSocket};
use upstream_sandbox::ssbtgu::example_request;
use upstream_sandbox::{testnr, Dataset, FaultSpec, SandboxConfig, Source};

#[tokio::test]
async fn scripted_change_is_visible_in_the_next_answer_and_reset_undoes_it() {
    let sb = start();
    let c = client();
    let t = token(&sb, &c).await;
    let ds = Dataset::standard();
    let ab = ds.active_ab_with_reports(1).unwrap();

    let resp = c
        .post(format!("{}/companies/{}", sb.control_url(), ab.id))
        .json(&serde_json::json!({
            "name": "Omdöpt Sandlåda AB",
            "status": "bankruptcy",
            "status_date": "2026-09-15",
            "address": {"utdelningsadress": "Nygatan 7", "postnummer": "11122", "postort": "STOCKHOLM"},
            "sni": ["62010", {"kod": "62020", "klartext": "Datakonsultverksamhet"}],
            "tax": {"f_skatt": false, "arbetsgivare": false},
            "employees_class": "5"
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let after: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(after["id"], ab.id.as_str());

    // VDM.
    let v = organisationer(&sb, &c, &t, &ab.id).await;
    let o = &v["organisationer"][0];
    assert_eq!(
        o["organisationsnamn"]["organisationsnamnLista"][0]["namn"],
        "Omdöpt Sandlåda AB"
    );
    assert_eq!(
        o["organisationsnamn"]["organisationsnamnLista"][0]["registreringsdatum"],
        "2026-09-15"
    );
    let p = &o["pagaendeAvvecklingsEllerOmstruktureringsforfarande"]
        ["pagaendeAvvecklingsEllerOmstruktureringsforfarandeLista"][0];
    assert_eq!(p["kod"], "KK");
    assert_eq!(p["fromDatum"], "2026-09-15T00:00:00.000+00:00");
    assert_eq!(
        o["postadressOrganisation"]["postadress"]["utdelningsadress"],
        "Nygatan 7"
    );
    assert_eq!(o["naringsgrenOrganisation"]["sni"][0]["kod"], "62010");
    assert_eq!(
        o["naringsgrenOrganisation"]["sni"][0]["klartext"],
        "Dataprogrammering"
    );

    // SCB.
    let rows: serde_json::Value = scb_hamta(&sb, &c, &ab.id).await.json().await.unwrap();
    assert_eq!(rows[0]["Företagsnamn"], "Omdöpt Sandlåda AB");
    assert_eq!(rows[0]["Stkl, kod"], "5");
    assert_eq!(rows[0]["Fskattstatus, kod"], "0");

    // SSBTGU.
    let (_, body) = ssbtgu(
        &sb,
        &c,
        example_request(&ab.id, &["UD0001", "UD0027", "UD0029"], None),
    )
    .await;
    assert!(item(&body, "UD0029").unwrap().contains(">Nej<"));
    assert!(item(&body, "UD0027").unwrap().contains("Typ=\"Konkurs\""));
    assert!(item(&body, "UD0001")
        .unwrap()
        .contains("Omdöpt Sandlåda AB"));

    // Deregistration after the bankruptcy.
    sb.control()
        .patch_company(
            &ab.id,
            &serde_json::from_value(serde_json::json!({"status": "deregistered"})).unwrap(),
        )
        .unwrap();
    let v = organisationer(&sb, &c, &t, &ab.id).await;
    assert_eq!(
        v["organisationer"][0]["avregistreringsorsak"]["kod"],
        "KKAV"
    );
    assert_eq!(v["organisationer"][0]["verksamOrganisation"]["kod"], "NEJ");

    // Reset: data, faults and the call log back to the start.
    sb.control()
        .inject_fault(Source::Lt, FaultSpec::http_5xx(503))
        .unwrap();
    let resp = c
        .post(format!("{}/reset", sb.control_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 204);
    let v = organisationer(&sb, &c, &t, &ab.id).await;
    assert_eq!(
        v["organisationer"][0]["organisationsnamn"]["organisationsnamnLista"][0]["namn"],
        ab.name().unwrap()
    );
    assert!(v["organisationer"][0]["pagaendeAvvecklingsEllerOmstruktureringsforfarande"].is_null());
    assert!(sb.control().faults().is_empty());
    assert_eq!(sb.control().dataset(), ds);
    sb.stop().await;
}

#[tokio::test]
async fn unknown_and_invalid_patches_are_refused() {
    let sb = start();
    let c = client();
    let unknown = Dataset::standard().unknown_orgnr();
    let resp = c
        .post(format!("{}/companies/{unknown}", sb.control_url()))
        .json(&serde_json::json!({"name": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
    let resp = c
        .post(format!("{}/companies/{}", sb.control_url(), testnr::EK))
        .json(&serde_json::json!({"status": "asleep"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    let resp = c
        .post(format!(
            "{}/companies/{}",
            sb.control_url(),
            testnr::AB_MISSING_AT_SCB
        ))
        .json(&serde_json::json!({"employees_class": "3"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 409);
    sb.stop().await;
}

#[tokio::test]
async fn at_scb_false_makes_a_company_missing_at_scb() {
    let sb = start();
    let c = client();
    let t = token(&sb, &c).await;
    let resp = c
        .post(format!("{}/companies/{}", sb.control_url(), testnr::EK))
        .json(&serde_json::json!({"at_scb": false}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let rows: serde_json::Value = scb_hamta(&sb, &c, testnr::EK).await.json().await.unwrap();
    assert_eq!(rows, serde_json::json!([]));
    let v = organisationer(&sb, &c, &t, testnr::EK).await;
    assert_eq!(
        v["organisationer"][0]["juridiskForm"]["fel"]["typ"],
        "ORGANISATION_FINNS_EJ"
    );
    sb.stop().await;
}

#[tokio::test]
async fn call_log_and_listings() {
    let sb = start();
    let c = client();
    let t = token(&sb, &c).await;
    organisationer(&sb, &c, &t, testnr::HB).await;
    c.get(format!(
        "{}/datasets/gov/rc/jar/iregistruoti/JuridinisAsmuo?ja_kodas=110443493",
        sb.lt_base_url()
    ))
    .send()
    .await
    .unwrap();

    let v: serde_json::Value = c
        .get(format!("{}/calls?source=bolagsverket", sb.control_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let calls = v["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["method"], "POST");
    assert_eq!(calls[0]["path"], "/bolagsverket/vdm/organisationer");
    assert_eq!(
        calls[0]["request_id"],
        "8c3f2a4e-1111-4222-8333-944455556666"
    );
    assert_eq!(calls[0]["status"], 200);
    assert!(calls[0]["time"].is_string());

    let v: serde_json::Value = c
        .get(format!("{}/calls", sb.control_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let all = v["calls"].as_array().unwrap();
    assert_eq!(all.len(), 3, "token, organisationer, lt");
    assert_eq!(all[2]["source"], "lt");
    assert_eq!(all[2]["query"], "ja_kodas=110443493");
    let resp = c
        .delete(format!("{}/calls", sb.control_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 204);
    assert!(sb.control().calls().is_empty());

    let v: serde_json::Value = c
        .get(format!(
            "{}/companies?form=AB&status=bankruptcy",
            sb.control_url()
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(v["count"].as_u64().unwrap() >= 1);
    assert!(v["companies"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["legal_form"] == "AB" && c["status"] == "bankruptcy"));
    let v: serde_json::Value = c
        .get(format!(
            "{}/companies/{}",
            sb.control_url(),
            testnr::SOLE_TRADER_THREE
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["registrations"].as_array().unwrap().len(), 3);
    let v: serde_json::Value = c
        .get(sb.control_url())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(v["bolagsverket_vdm"]
        .as_str()
        .unwrap()
        .ends_with("/bolagsverket/vdm"));
    sb.stop().await;
}

/// A non-loopback address of this machine, if it has one.
fn non_loopback_ip() -> Option<IpAddr> {
    let s = UdpSocket::bind("0.0.0.0:0").ok()?;
    s.connect("192.0.2.1:9").ok()?;
    let ip = s.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

#[tokio::test]
async fn control_refuses_non_loopback_peers() {
    let Some(ip) = non_loopback_ip() else {
        eprintln!("no non-loopback interface: covered by the unit test of is_loopback_peer");
        return;
    };
    let sb = start_with(
        SandboxConfig::default().with_listen(SocketAddr::new("0.0.0.0".parse().unwrap(), 0)),
    );
    let c = client();
    let port = sb.addr.port();
    let resp = c
        .get(format!("http://{ip}:{port}/control/faults"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    let resp = c
        .post(format!("http://{ip}:{port}/control/reset"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    let resp = c
        .get(format!("http://127.0.0.1:{port}/control/faults"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    // The upstream routes themselves answer anyone.
    let resp = c
        .get(format!("http://{ip}:{port}/lt/datasets/gov/rc/jar/iregistruoti/JuridinisAsmuo?ja_kodas=110443493"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    sb.stop().await;
}

#[tokio::test]
async fn the_mutual_tls_sources_judge_the_listener_not_a_forwarded_header() {
    // SPAR and the beneficial-owners API answer on the TLS listener only; a plain-HTTP
    // request claiming `https` in forwarding headers is refused as any plain request is.
    let sb = start();
    let c = client();
    for (path, forbidden) in [
        (upstream_sandbox::SPAR_PATH.to_owned(), 403),
        (
            format!("{}/organisationer", upstream_sandbox::BO_PREFIX),
            403,
        ),
    ] {
        let resp = c
            .post(format!("{}{path}", sb.base_url))
            .header("x-forwarded-proto", "https")
            .header("forwarded", "proto=https")
            .header("content-type", "application/json")
            .body("{}")
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), forbidden, "{path}");
    }
    sb.stop().await;
}
