use std::time::Duration;
use upstream_sandbox::{
    RunningSandbox, Sandbox, SandboxConfig, CLIENT_ID, CLIENT_SECRET, VDM_SCOPES,
};

pub fn start() -> RunningSandbox {
    start_with(SandboxConfig::default())
}

pub fn start_with(config: SandboxConfig) -> RunningSandbox {
    Sandbox::start(config).expect("sandbox starts")
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

pub fn form_body(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", v.replace(' ', "+").replace(':', "%3A")))
        .collect::<Vec<_>>()
        .join("&")
}

/// A token with both scopes.
pub async fn token(sb: &RunningSandbox, c: &reqwest::Client) -> String {
    let resp = c
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
        .unwrap();
    assert_eq!(resp.status(), 200);
    let v: serde_json::Value = resp.json().await.unwrap();
    v["access_token"].as_str().unwrap().to_owned()
}

pub async fn post_vdm(
    sb: &RunningSandbox,
    c: &reqwest::Client,
    token: &str,
    op: &str,
    id: &str,
) -> reqwest::Response {
    c.post(format!("{}/{op}", sb.vdm_base_url()))
        .bearer_auth(token)
        .header("x-request-id", "8c3f2a4e-1111-4222-8333-944455556666")
        .json(&serde_json::json!({ "identitetsbeteckning": id }))
        .send()
        .await
        .unwrap()
}

pub async fn organisationer(
    sb: &RunningSandbox,
    c: &reqwest::Client,
    token: &str,
    id: &str,
) -> serde_json::Value {
    let resp = post_vdm(sb, c, token, "organisationer", id).await;
    assert_eq!(resp.status(), 200, "organisationer {id}");
    resp.json().await.unwrap()
}

pub async fn scb_hamta(
    sb: &RunningSandbox,
    c: &reqwest::Client,
    orgnr10: &str,
) -> reqwest::Response {
    c.post(format!("{}/api/je/hamtaforetag", sb.scb_base_url()))
        .header("api-id", upstream_sandbox::SCB_API_ID)
        .json(&serde_json::json!({
            "Företagsstatus": "1",
            "Registreringsstatus": "1",
            "variabler": [{"Variabel": "OrgNr (10 siffror)", "Operator": "ArLikaMed", "Varde1": orgnr10, "Varde2": ""}]
        }))
        .send()
        .await
        .unwrap()
}

pub async fn ssbtgu(sb: &RunningSandbox, c: &reqwest::Client, xml: String) -> (u16, String) {
    let resp = c
        .post(sb.ssbtgu_url())
        .header("content-type", "text/xml; charset=utf-8")
        .header("soapaction", "\"urn:GetForetagsuppgifter\"")
        .body(xml)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.text().await.unwrap())
}

/// The content of one answered item (`<ns2:UDnnnn>…</ns2:UDnnnn>`).
pub fn item<'a>(xml: &'a str, ud: &str) -> Option<&'a str> {
    let open = format!("<ns2:{ud}>");
    let close = format!("</ns2:{ud}>");
    let start = xml.find(&open)? + open.len();
    let end = start + xml[start..].find(&close)?;
    Some(&xml[start..end])
}
