//! The sandbox's answers for Bolagsverket's TEST numbers against the recorded TEST
//! responses: field by field and in field order. Recorded samples carry no request ids or
//! time stamps, so nothing is ignored.

use crate::common::*;
use serde_json::Value;
use upstream_sandbox::testnr;

/// The object keys of a JSON text in document order (structure and order check).
pub fn key_sequence(text: &str) -> Vec<String> {
    let v: Vec<char> = text.chars().collect();
    let mut keys = Vec::new();
    let mut i = 0;
    while i < v.len() {
        if v[i] == '"' {
            let mut j = i + 1;
            let mut s = String::new();
            while j < v.len() && v[j] != '"' {
                if v[j] == '\\' {
                    s.push(v[j]);
                    j += 1;
                }
                s.push(v[j]);
                j += 1;
            }
            let mut k = j + 1;
            while k < v.len() && v[k].is_whitespace() {
                k += 1;
            }
            if k < v.len() && v[k] == ':' {
                keys.push(s);
            }
            i = j + 1;
        } else {
            i += 1;
        }
    }
    keys
}

/// Every difference between two JSON values, as `path: expected != actual`.
fn diff(path: &str, want: &Value, got: &Value, out: &mut Vec<String>) {
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                match b.get(k) {
                    Some(vb) => diff(&format!("{path}.{k}"), va, vb, out),
                    None => out.push(format!("{path}.{k}: missing")),
                }
            }
            for k in b.keys().filter(|k| !a.contains_key(*k)) {
                out.push(format!("{path}.{k}: unexpected"));
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                out.push(format!("{path}: {} elements != {}", a.len(), b.len()));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff(&format!("{path}[{i}]"), x, y, out);
            }
        }
        _ if want != got => out.push(format!("{path}: {want} != {got}")),
        _ => {}
    }
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/../adapters-se/testdata/vdm/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

async fn compare(op: &str, id: &str, file: &str) {
    let sb = start();
    let c = client();
    let t = token(&sb, &c).await;
    let resp = post_vdm(&sb, &c, &t, op, id).await;
    assert_eq!(resp.status(), 200, "{op} {id}");
    let got_text = resp.text().await.unwrap();
    let want_text = fixture(file);
    let got: Value = serde_json::from_str(&got_text).unwrap();
    let want: Value = serde_json::from_str(&want_text).unwrap();
    let mut out = Vec::new();
    diff("$", &want, &got, &mut out);
    assert!(
        out.is_empty(),
        "{file}: {} differences:\n{}",
        out.len(),
        out.join("\n")
    );
    assert_eq!(
        key_sequence(&got_text),
        key_sequence(&want_text),
        "{file}: field order"
    );
    sb.stop().await;
}

#[tokio::test]
async fn hb_9124001992() {
    compare(
        "organisationer",
        testnr::HB,
        "organisationer-9124001992-hb.json",
    )
    .await;
}

#[tokio::test]
async fn ek_7020008350() {
    compare(
        "organisationer",
        testnr::EK,
        "organisationer-7020008350-ek.json",
    )
    .await;
}

#[tokio::test]
async fn ab_missing_at_scb_5567223705() {
    compare(
        "organisationer",
        testnr::AB_MISSING_AT_SCB,
        "organisationer-5567223705-ab-scb-finns-ej.json",
    )
    .await;
}

#[tokio::test]
async fn not_registered_198101032384() {
    compare(
        "organisationer",
        testnr::NOT_REGISTERED,
        "organisationer-198101032384-finns-ej.json",
    )
    .await;
}

#[tokio::test]
async fn sole_trader_three_198101052382() {
    compare(
        "organisationer",
        testnr::SOLE_TRADER_THREE,
        "organisationer-198101052382-enskild-three.json",
    )
    .await;
}

#[tokio::test]
async fn dokumentlista_5561890038() {
    compare(
        "dokumentlista",
        testnr::AB_THREE_REPORTS,
        "dokumentlista-5561890038.json",
    )
    .await;
}

#[tokio::test]
async fn the_other_test_numbers_answer() {
    let sb = start();
    let c = client();
    let t = token(&sb, &c).await;
    let v = organisationer(&sb, &c, &t, testnr::AB_TESTBOLAG_4).await;
    assert_eq!(
        v["organisationer"][0]["organisationsnamn"]["organisationsnamnLista"][0]["namn"],
        "Testbolag 4 bokat av SKV Aktiebolag"
    );
    let v = organisationer(&sb, &c, &t, testnr::BRF).await;
    assert_eq!(v["organisationer"][0]["organisationsform"]["kod"], "BRF");
    let v = organisationer(&sb, &c, &t, testnr::SOLE_TRADER_DEREGISTERED_TWO).await;
    let orgs = v["organisationer"].as_array().unwrap();
    assert_eq!(orgs.len(), 2);
    for o in orgs {
        assert!(o["avregistreradOrganisation"]["avregistreringsdatum"].is_string());
        assert_eq!(o["organisationsidentitet"]["typ"]["kod"], "PERSON");
    }
    // TEST answers 400 here; the sandbox gives a normal profile.
    let v = organisationer(&sb, &c, &t, testnr::AB_THREE_REPORTS).await;
    assert_eq!(v["organisationer"][0]["organisationsform"]["kod"], "AB");
    sb.stop().await;
}
