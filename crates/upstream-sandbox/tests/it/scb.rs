use crate::common::*;
use upstream_sandbox::{testnr, Dataset};

#[tokio::test]
async fn hamtaforetag_rows() {
    let sb = start();
    let c = client();
    let ds = Dataset::standard();
    let ab = ds.active_ab_with_reports(2).unwrap();
    let resp = scb_hamta(&sb, &c, &ab.id).await;
    assert_eq!(resp.status(), 200);
    let rows: serde_json::Value = resp.json().await.unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 1);
    let r = rows[0].as_object().unwrap();
    assert!(r.values().all(|v| v.is_string()), "all values are strings");
    assert_eq!(r["OrgNr"], ab.id.as_str());
    assert_eq!(r["PeOrgNr"], format!("16{}", ab.id));
    assert_eq!(r["Företagsnamn"], ab.name().unwrap());
    assert_eq!(r["Juridisk form, kod"], "49");
    assert_eq!(r["Företagsstatus, kod"], "1");
    for k in [
        "PostAdress",
        "PostNr",
        "PostOrt",
        "Stkl, kod",
        "Storleksklass",
        "Registreringsdatum",
        "Bransch_1, kod",
        "Bransch_5, kod",
    ] {
        assert!(r.contains_key(k), "{k}");
    }

    // A sole trader by the last ten digits of the personnummer.
    let rows: serde_json::Value = scb_hamta(&sb, &c, &testnr::SOLE_TRADER_THREE[2..])
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(rows[0]["PeOrgNr"], testnr::SOLE_TRADER_THREE);
    assert_eq!(rows[0]["Juridisk form, kod"], "10");
    assert_eq!(rows[0]["Bransch_1, kod"], "02200");
    assert_eq!(rows[0]["Bransch_2, kod"], "     ");

    // Missing at SCB and unknown: [].
    for id in [testnr::AB_MISSING_AT_SCB.to_owned(), ds.unknown_orgnr()] {
        let rows: serde_json::Value = scb_hamta(&sb, &c, &id).await.json().await.unwrap();
        assert_eq!(rows, serde_json::json!([]), "{id}");
    }
    // Företagsstatus 1 filters out companies that are not verksam.
    let dereg = ds.deregistered().unwrap();
    let rows: serde_json::Value = scb_hamta(&sb, &c, &dereg.id).await.json().await.unwrap();
    assert_eq!(rows, serde_json::json!([]));
    sb.stop().await;
}

#[tokio::test]
async fn api_id_paths_and_counting() {
    let sb = start();
    let c = client();
    let body = serde_json::json!({"variabler": [{"Variabel": "OrgNr (10 siffror)", "Operator": "ArLikaMed", "Varde1": testnr::HB, "Varde2": ""}]});
    let resp = c
        .post(format!("{}/api/je/hamtaforetag", sb.scb_base_url()))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401, "api-id is required");

    // Real-style path, capitalised, "Variabler" key.
    let resp = c
        .post(format!("{}/nv0101/v1/sokpavar/api/Je/HamtaForetag", sb.scb_base_url()))
        .header("api-id", "A00001")
        .json(&serde_json::json!({"Variabler": [{"Variabel": "OrgNr (10 siffror)", "Operator": "ArLikaMed", "Varde1": testnr::HB}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let rows: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(rows[0]["OrgNr"], testnr::HB);

    let resp = c
        .post(format!("{}/api/je/raknaforetag", sb.scb_base_url()))
        .header("api-id", "A00001")
        .json(&serde_json::json!({"variabler": [{"Variabel": "Namn", "Operator": "Innehaller", "Varde1": "Testbolag"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let n: u64 = resp.json().await.unwrap();
    assert!(n >= 3);

    let resp = c
        .post(format!("{}/api/je/hamtaforetag", sb.scb_base_url()))
        .header("api-id", "A00001")
        .body("{broken")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    sb.stop().await;
}
