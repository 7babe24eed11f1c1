//! SCB's företagsregister ("Sök på var"): `POST {base}/api/je/hamtaforetag` with one
//! `OrgNr (10 siffror)` condition. The answer is a flat JSON array of rows with Swedish
//! keys; only the employee size class (`Stkl, kod` / `Storleksklass`) is used.

use crate::config::{ScbConfig, SeConfigError};
use crate::USER_AGENT;
use connector_kit::{
    build_client, conclude, new_request_id, read_json, send, status_failure, Answer, AnswerMeta,
    Operation, Step, MAX_DATA_BYTES, REQUEST_ID,
};
use domain::companies::profile::RegistryFailure;
use reqwest::header::{HeaderName, HeaderValue, ACCEPT};
use serde_json::{Map, Value};

pub(crate) const OP_HAMTAFORETAG: Operation = Operation {
    source: crate::sources::SCB_FORETAGSREGISTER,
    name: "POST /api/je/hamtaforetag",
    schema_version: "scb-je-v1",
    cost: 0,
};

pub(crate) struct ScbClient {
    http: reqwest::Client,
    url: String,
    api_id: Option<(HeaderName, HeaderValue)>,
}

impl ScbClient {
    pub fn new(c: &ScbConfig) -> Result<Self, SeConfigError> {
        let api_id = match &c.api_id {
            None => None,
            Some(v) => {
                let name =
                    HeaderName::from_bytes(c.api_id_header.trim().as_bytes()).map_err(|_| {
                        SeConfigError::Invalid {
                            setting: "scb.api_id_header",
                            reason: "not a valid HTTP header name".into(),
                        }
                    })?;
                let mut value =
                    HeaderValue::from_str(v.trim()).map_err(|_| SeConfigError::Invalid {
                        setting: "scb.api_id",
                        reason: "not a valid HTTP header value".into(),
                    })?;
                value.set_sensitive(true);
                Some((name, value))
            }
        };
        Ok(ScbClient {
            http: build_client("scb", USER_AGENT, c.timeouts, &c.tls)?,
            url: format!("{}/api/je/hamtaforetag", c.base_url.trim_end_matches('/')),
            api_id,
        })
    }

    /// The employee size class SCB holds for an organisationsnummer (None when SCB does
    /// not know the company or has no class for it).
    pub async fn employees_band(&self, orgnr: &str) -> Step<Option<String>> {
        let op = &OP_HAMTAFORETAG;
        let request_id = new_request_id();
        let mut rb = self
            .http
            .post(&self.url)
            .header(REQUEST_ID, &request_id)
            .header(ACCEPT, "application/json")
            .json(&request_body(orgnr));
        if let Some((name, value)) = &self.api_id {
            rb = rb.header(name.clone(), value.clone());
        }
        let outcome = send(rb, MAX_DATA_BYTES).await;
        let (call, result) = conclude(op, &request_id, outcome, |a| {
            let result = match a.status {
                200 => read_hamtaforetag(&a.body, orgnr),
                s => Err(status_failure(&op.label(), s)),
            };
            (result, scb_meta(a))
        });
        Step {
            calls: vec![call],
            result,
        }
    }
}

/// The lookup of one legal entity by organisationsnummer (registered, active units).
pub(crate) fn request_body(orgnr: &str) -> Value {
    serde_json::json!({
        "Företagsstatus": "1",
        "Registreringsstatus": "1",
        "variabler": [{
            "Variabel": "OrgNr (10 siffror)",
            "Operator": "ArLikaMed",
            "Varde1": orgnr,
            "Varde2": "",
        }],
    })
}

fn scb_meta(a: &Answer) -> AnswerMeta {
    AnswerMeta {
        upstream_ref: a.header(REQUEST_ID).map(str::to_owned),
        ..AnswerMeta::default()
    }
}

fn garbled(why: &str) -> RegistryFailure {
    RegistryFailure::Garbled(format!("{}: {why}", OP_HAMTAFORETAG.label()))
}

/// A value as text (SCB sends strings; numbers are tolerated).
fn text(row: &Map<String, Value>, key: &str) -> Option<String> {
    match row.get(key)? {
        Value::String(s) => Some(s.trim().to_owned()).filter(|s| !s.is_empty()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Reads a `hamtaforetag` answer: `[]` means SCB does not know the company.
pub(crate) fn read_hamtaforetag(
    body: &[u8],
    orgnr: &str,
) -> Result<Option<String>, RegistryFailure> {
    let v: Value = read_json(&OP_HAMTAFORETAG.label(), body)?;
    let rows = v
        .as_array()
        .ok_or_else(|| garbled("the answer is not an array"))?;
    let mut rows_ok = Vec::with_capacity(rows.len());
    for r in rows {
        rows_ok.push(
            r.as_object()
                .ok_or_else(|| garbled("a row is not an object"))?,
        );
    }
    let Some(first) = rows_ok.first() else {
        return Ok(None);
    };
    let id_of = |row: &Map<String, Value>| {
        text(row, "OrgNr").or_else(|| {
            text(row, "PeOrgNr").map(|p| match p.strip_prefix("16") {
                Some(rest) if rest.len() == 10 => rest.to_owned(),
                _ => p,
            })
        })
    };
    let row = match rows_ok.iter().find(|r| id_of(r).as_deref() == Some(orgnr)) {
        Some(r) => *r,
        None if rows_ok.iter().all(|r| id_of(r).is_none()) => *first,
        None => return Err(garbled("the answer is about another organisation")),
    };
    let klass_text = text(row, "Storleksklass");
    let klass_kod = text(row, "Stkl, kod");
    if klass_text.is_none() && klass_kod.is_none() {
        if row.contains_key("Storleksklass") || row.contains_key("Stkl, kod") {
            return Ok(None);
        }
        return Err(garbled(
            "the row has no size class (Stkl, kod / Storleksklass)",
        ));
    }
    Ok(klass_text
        .as_deref()
        .and_then(band_from_text)
        .or_else(|| klass_kod.as_deref().and_then(band_from_code)))
}

/// `10-19 anställda` → `10-19`; `0 anställda` → `0`; `10000- anställda` → `10000-`.
/// Anything else (`Uppgift saknas`) is no band.
pub(crate) fn band_from_text(s: &str) -> Option<String> {
    let s = s.trim();
    let core = s
        .strip_suffix("anställda")
        .or_else(|| s.strip_suffix("Anställda"))
        .unwrap_or(s)
        .trim();
    let (lo, hi) = match core.split_once('-') {
        Some((lo, hi)) => (lo.trim(), Some(hi.trim())),
        None => (core, None),
    };
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    if !digits(lo) {
        return None;
    }
    match hi {
        None => Some(lo.to_owned()),
        Some("") => Some(format!("{lo}-")),
        Some(h) if digits(h) => Some(format!("{lo}-{h}")),
        Some(_) => None,
    }
}

/// SCB's size-class codes (`Stkl, kod`) as bands, for rows without the text.
pub(crate) fn band_from_code(code: &str) -> Option<String> {
    let band = match code.trim() {
        "1" => "0",
        "2" => "1-4",
        "3" => "5-9",
        "4" => "10-19",
        "5" => "20-49",
        "6" => "50-99",
        "7" => "100-199",
        "8" => "200-499",
        "9" => "500-999",
        "10" => "1000-1499",
        "11" => "1500-1999",
        "12" => "2000-2999",
        "13" => "3000-3999",
        "14" => "4000-4999",
        "15" => "5000-9999",
        "16" => "10000-",
        _ => return None,
    };
    Some(band.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_shape() {
        let b = request_body("5560021361");
        assert_eq!(b["Företagsstatus"], "1");
        assert_eq!(b["variabler"][0]["Variabel"], "OrgNr (10 siffror)");
        assert_eq!(b["variabler"][0]["Operator"], "ArLikaMed");
        assert_eq!(b["variabler"][0]["Varde1"], "5560021361");
    }

    #[test]
    fn bands() {
        assert_eq!(band_from_text("10-19 anställda").as_deref(), Some("10-19"));
        assert_eq!(band_from_text("0 anställda").as_deref(), Some("0"));
        assert_eq!(
            band_from_text("10000- anställda").as_deref(),
            Some("10000-")
        );
        assert_eq!(band_from_text("Uppgift saknas"), None);
        assert_eq!(band_from_code("4").as_deref(), Some("10-19"));
        assert_eq!(band_from_code("0"), None);
    }

    #[test]
    fn rows() {
        let body = r#"[{"PeOrgNr":"165560021361","OrgNr":"5560021361","Företagsnamn":"X AB",
            "Stkl, kod":"3","Storleksklass":"5-9 anställda","Bransch_1, kod":"62010",
            "Bransch_2, kod":"     "}]"#;
        assert_eq!(
            read_hamtaforetag(body.as_bytes(), "5560021361")
                .unwrap()
                .as_deref(),
            Some("5-9")
        );
        let code_only = r#"[{"OrgNr":"5560021361","Stkl, kod":"4"}]"#;
        assert_eq!(
            read_hamtaforetag(code_only.as_bytes(), "5560021361")
                .unwrap()
                .as_deref(),
            Some("10-19")
        );
        assert_eq!(read_hamtaforetag(b"[]", "5560021361").unwrap(), None);
        assert!(matches!(
            read_hamtaforetag(br#"[{"OrgNr":"5567223705","Stkl, kod":"4"}]"#, "5560021361"),
            Err(RegistryFailure::Garbled(_))
        ));
        assert!(matches!(
            read_hamtaforetag(br#"[{"OrgNr":"5560021361"}]"#, "5560021361"),
            Err(RegistryFailure::Garbled(_))
        ));
        assert!(matches!(
            read_hamtaforetag(br#"[{"OrgNr":"55600"#, "5560021361"),
            Err(RegistryFailure::Garbled(_))
        ));
        assert!(matches!(
            read_hamtaforetag(br#"{"OrgNr":"5560021361"}"#, "5560021361"),
            Err(RegistryFailure::Garbled(_))
        ));
    }
}
