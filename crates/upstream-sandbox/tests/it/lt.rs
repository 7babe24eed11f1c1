use crate::common::*;

fn url(sb: &upstream_sandbox::RunningSandbox, q: &str) -> String {
    format!(
        "{}/datasets/gov/rc/jar/iregistruoti/JuridinisAsmuo?{q}",
        sb.lt_base_url()
    )
}

#[tokio::test]
async fn juridinis_asmuo_by_code() {
    let sb = start();
    let c = client();
    let v: serde_json::Value = c
        .get(url(&sb, "ja_kodas=110443493"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let data = v["_data"].as_array().unwrap();
    assert_eq!(data.len(), 1);
    let r = &data[0];
    assert_eq!(
        r["_type"],
        "datasets/gov/rc/jar/iregistruoti/JuridinisAsmuo"
    );
    assert_eq!(r["ja_kodas"], 110443493);
    assert!(r["ja_kodas"].is_u64(), "ja_kodas is an integer");
    assert!(r["_id"].as_str().unwrap().len() == 36);
    assert!(r["forma"]["_id"].is_string());
    assert!(r["statusas"]["_id"].is_string());
    assert!(r["reg_data"].is_string());
    assert!(v["_page"].is_object());

    // The status reference resolves through the classifier.
    let sid = r["statusas"]["_id"].as_str().unwrap();
    let s: serde_json::Value = c
        .get(format!(
            "{}/datasets/gov/rc/jar/formos_statusai/Statusas/{sid}",
            sb.lt_base_url()
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(s["kodas"], 0);

    // Unknown code: empty _data.
    let v: serde_json::Value = c
        .get(url(&sb, "ja_kodas=123456780"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["_data"], serde_json::json!([]));

    // select() with a reference property.
    let v: serde_json::Value = c
        .get(url(
            &sb,
            "ja_kodas=110443493&select(ja_kodas,ja_pavadinimas,statusas.pavadinimas)",
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let r = &v["_data"][0];
    assert_eq!(
        r["statusas"]["pavadinimas"],
        "Teisinis statusas neįregistruotas"
    );
    assert!(r.get("reg_data").is_none());

    // A deregistered company carries isreg_data and status 10.
    let ds = upstream_sandbox::Dataset::standard();
    let dereg = ds.lt_companies().iter().find(|c| c.statusas == 10).unwrap();
    let v: serde_json::Value = c
        .get(url(
            &sb,
            &format!(
                "ja_kodas={}&select(ja_kodas,isreg_data,statusas.kodas)",
                dereg.ja_kodas
            ),
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(v["_data"][0]["isreg_data"].is_string());
    assert_eq!(v["_data"][0]["statusas"]["kodas"], 10);

    let resp = c.get(url(&sb, "ja_kodas=abc")).send().await.unwrap();
    assert_eq!(resp.status(), 400);
    sb.stop().await;
}
