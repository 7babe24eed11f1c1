//! Bolagsverket's beneficial-owners API (VerkligaHuvudmän v1): `POST /organisationer`, over
//! mutual TLS with the client certificate Bolagsverket issued.
//!
//! The stored reference material has no response schema for this API; the shape read here
//! is inferred (see the crate README) and the sandbox serves the same: `uppgiftSaknas` (no
//! beneficial owner reported) and `verkligaHuvudman[]` with `personnamn`, `identitet`,
//! `kontroll` (how control is held) and `omfattning` (the share band). Errors are RFC 7807
//! problems; 404 means the organisation is unknown.

use crate::config::{SeConfigError, VerkligaHuvudmanConfig};
use crate::foretagsinformation::{party, problem_failure};
use crate::gateway::gateway_meta;
use crate::USER_AGENT;
use connector_kit::{
    build_client, conclude, new_request_id, read_json, send, Operation, Step, MAX_DATA_BYTES,
    REQUEST_ID,
};
use domain::companies::paid::{FetchedOwner, FetchedOwners, ShareBand};
use domain::companies::profile::RegistryFailure;
use reqwest::header::ACCEPT;
use serde_json::Value;

pub(crate) const OP_ORGANISATIONER: Operation = Operation {
    source: crate::sources::FORETAGSINFORMATION,
    name: "POST /verkliga-huvudman/organisationer",
    schema_version: "verkliga-huvudman-v1",
    cost: 1,
};

pub(crate) struct VerkligaHuvudmanClient {
    http: reqwest::Client,
    url: String,
}

impl VerkligaHuvudmanClient {
    /// Reads the client certificate now: a missing or unusable one is a start-up error that
    /// names the setting.
    pub fn new(c: &VerkligaHuvudmanConfig) -> Result<Self, SeConfigError> {
        if !c.tls.has_client_identity() {
            return Err(SeConfigError::Missing(
                "verkliga_huvudman.client_identity (a PEM file or a PKCS#12 keystore)",
            ));
        }
        Ok(VerkligaHuvudmanClient {
            http: build_client(
                "verkliga_huvudman.client_identity",
                USER_AGENT,
                c.timeouts,
                &c.tls,
            )?,
            url: format!(
                "{}{}",
                c.base_url.trim_end_matches('/'),
                c.organisationer_path
            ),
        })
    }

    /// The beneficial owners of an organisation (one billable call).
    pub async fn owners(&self, orgnr: &str) -> Step<FetchedOwners> {
        let request_id = new_request_id();
        let request = self
            .http
            .post(&self.url)
            .header(REQUEST_ID, &request_id)
            .header(ACCEPT, "application/json")
            .json(&serde_json::json!({ "identitetsbeteckning": orgnr }));
        let outcome = send(request, MAX_DATA_BYTES).await;
        let (call, result) = conclude(&OP_ORGANISATIONER, &request_id, outcome, |a| {
            let result = match a.status {
                200 => read_owners(&a.body, orgnr),
                s => Err(problem_failure(&OP_ORGANISATIONER, a, s)),
            };
            (result, gateway_meta(a))
        });
        Step {
            calls: vec![call],
            result,
        }
    }
}

fn garbled(why: &str) -> RegistryFailure {
    RegistryFailure::Garbled(format!("{}: {why}", OP_ORGANISATIONER.label()))
}

/// The band of the register's `omfattning` code; no code (control by other means) or an
/// unknown one is `unknown`.
pub(crate) fn share_band(code: Option<&str>) -> ShareBand {
    match code {
        Some("OVER_25_TILL_50") => ShareBand::From25To50,
        Some("OVER_50_TILL_75") => ShareBand::From50To75,
        Some("OVER_75_TILL_100" | "HELA") => ShareBand::From75To100,
        _ => ShareBand::Unknown,
    }
}

pub(crate) fn read_owners(body: &[u8], orgnr: &str) -> Result<FetchedOwners, RegistryFailure> {
    let v: Value = read_json(&OP_ORGANISATIONER.label(), body)?;
    let named = v
        .get("organisation")
        .and_then(|o| o.get("identitetsbeteckning"))
        .and_then(Value::as_str)
        .ok_or_else(|| garbled("the answer names no organisation"))?;
    if named != orgnr {
        return Err(garbled("the answer names another organisation"));
    }
    let none_reported = v
        .get("uppgiftSaknas")
        .and_then(Value::as_bool)
        .ok_or_else(|| garbled("the answer has no uppgiftSaknas"))?;
    let list = match v.get("verkligaHuvudman") {
        Some(Value::Array(a)) => a.as_slice(),
        None | Some(Value::Null) => &[],
        Some(_) => return Err(garbled("verkligaHuvudman is not a list")),
    };
    let mut owners = Vec::with_capacity(list.len());
    for o in list {
        let p = party(o, &OP_ORGANISATIONER)?;
        let control = o.get("kontroll");
        let nature_of_control = control
            .and_then(|c| c.get("klartext").or_else(|| c.get("kod")))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| garbled("an owner has no kontroll"))?
            .to_owned();
        let band = o
            .get("omfattning")
            .and_then(|b| b.get("kod"))
            .and_then(Value::as_str);
        owners.push(FetchedOwner {
            party: p,
            nature_of_control,
            share_band: share_band(band),
        });
    }
    Ok(FetchedOwners {
        orgnr: orgnr.to_owned(),
        no_ubo_reported: none_reported || owners.is_empty(),
        owners,
    })
}
