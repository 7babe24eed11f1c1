//! Bolagsverket "API för att hämta företagsinformation" (v4, paid): officers and the
//! signatory rule (`POST /organisationer` with `organisationInformationsmangd`
//! `FUNKTIONARER` and `FIRMATECKNING`), and a person's engagements (`POST
//! /organisationsengagemang`, paged).
//!
//! Tokens come from Bolagsverket's gateway (the same token endpoint as VDM, scope
//! `foretagsinformation:read`). Every call carries a fresh `X-Request-Id`. Errors are RFC
//! 7807 problems with a `code`: 404 means "personal or company data is missing" (not
//! found); other statuses map as for every source. Each data call with an identifier is a
//! billable transaction: its operation carries cost 1, recorded once the call reached the
//! upstream (a token the gateway refused, 401, is not billed).

use crate::config::{ForetagsinformationConfig, SeConfigError};
use crate::gateway::{Gateway, GatewayAuth};
use crate::USER_AGENT;
use chrono::NaiveDate;
use connector_kit::{
    build_client, read_json, status_failure, Answer, Operation, Step, MAX_DATA_BYTES,
};
use domain::companies::paid::{
    Engagement, EngagementPage, FetchedOfficer, FetchedOfficers, NamedParty,
};
use domain::companies::profile::RegistryFailure;
use domain::subjects::identifier::Identifier;
use reqwest::header::ACCEPT;
use serde_json::Value;

const SCHEMA: &str = "foretagsinformation-v4";

pub(crate) const OP_ORGANISATIONER: Operation = Operation {
    source: crate::sources::FORETAGSINFORMATION,
    name: "POST /organisationer",
    schema_version: SCHEMA,
    cost: 1,
};
pub(crate) const OP_ENGAGEMANG: Operation = Operation {
    source: crate::sources::FORETAGSINFORMATION,
    name: "POST /organisationsengagemang",
    schema_version: SCHEMA,
    cost: 1,
};

/// The company information connector.
pub(crate) struct ForetagsinformationClient {
    gateway: Gateway,
    organisationer_url: String,
    engagemang_url: String,
    page_size: u32,
}

impl ForetagsinformationClient {
    pub fn new(c: &ForetagsinformationConfig) -> Result<Self, SeConfigError> {
        let base = c.base_url.trim_end_matches('/');
        Ok(ForetagsinformationClient {
            gateway: Gateway::new(
                build_client("foretagsinformation", USER_AGENT, c.timeouts, &c.tls)?,
                GatewayAuth {
                    label: "companyreg.foretagsinformation",
                    token_url: c.token_url.clone(),
                    client_id: c.client_id.clone(),
                    client_secret: c.client_secret.clone(),
                    scope: c.scope.clone(),
                    client_auth: c.client_auth,
                    refresh_margin: c.token_refresh_margin,
                },
            ),
            organisationer_url: format!("{base}{}", c.organisationer_path),
            engagemang_url: format!("{base}{}", c.engagemang_path),
            page_size: c.page_size,
        })
    }

    /// Officers and the signatory rule of an organisation (one billable call).
    pub async fn officers(&self, orgnr: &str) -> Step<FetchedOfficers> {
        let body = serde_json::json!({
            "identitetsbeteckning": orgnr,
            "organisationInformationsmangd": ["FUNKTIONARER", "FIRMATECKNING"],
        });
        self.gateway
            .call(
                &OP_ORGANISATIONER,
                MAX_DATA_BYTES,
                None,
                |http| {
                    http.post(&self.organisationer_url)
                        .header(ACCEPT, "application/json")
                        .json(&body)
                },
                |a| match a.status {
                    200 => read_officers(&a.body, orgnr),
                    s => Err(problem_failure(&OP_ORGANISATIONER, a, s)),
                },
            )
            .await
    }

    /// One page (from 1) of a person's engagements (one billable call).
    pub async fn engagements(&self, person: &str, page: u32) -> Step<EngagementPage> {
        let body = serde_json::json!({
            "identitetsbeteckning": person,
            "paginering": { "sida": page, "antalPerSida": self.page_size },
        });
        self.gateway
            .call(
                &OP_ENGAGEMANG,
                MAX_DATA_BYTES,
                None,
                |http| {
                    http.post(&self.engagemang_url)
                        .header(ACCEPT, "application/json")
                        .json(&body)
                },
                |a| match a.status {
                    200 => read_engagements(&a.body, page),
                    s => Err(problem_failure(&OP_ENGAGEMANG, a, s)),
                },
            )
            .await
    }
}

/// The failure an error status stands for; a 404 is "data is missing" (not found).
pub(crate) fn problem_failure(op: &Operation, a: &Answer, status: u16) -> RegistryFailure {
    if status == 404 {
        return RegistryFailure::NotFound;
    }
    let code = serde_json::from_slice::<Value>(&a.body)
        .ok()
        .and_then(|v| v.get("code")?.as_str().map(str::to_owned));
    match (status_failure(&op.label(), status), code) {
        (RegistryFailure::Unavailable(m), Some(c)) => {
            RegistryFailure::Unavailable(format!("{m} (code {c})"))
        }
        (RegistryFailure::Garbled(m), Some(c)) => {
            RegistryFailure::Garbled(format!("{m} (code {c})"))
        }
        (f, _) => f,
    }
}

fn garbled(op: &Operation, why: &str) -> RegistryFailure {
    RegistryFailure::Garbled(format!("{}: {why}", op.label()))
}

fn text<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for p in path {
        cur = cur.get(p)?;
    }
    cur.as_str().map(str::trim).filter(|s| !s.is_empty())
}

/// A date of the register (`YYYY-MM-DD`); anything else makes the answer unusable.
fn date(v: Option<&Value>, op: &Operation) -> Result<Option<NaiveDate>, RegistryFailure> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => NaiveDate::parse_from_str(s.get(..10).unwrap_or(s), "%Y-%m-%d")
            .map(Some)
            .map_err(|_| garbled(op, "a date is not YYYY-MM-DD")),
        Some(_) => Err(garbled(op, "a date is not a string")),
    }
}

/// A party as the register names it: a person (`personnamn`) or an organisation
/// (`organisationsnamn`), with its identity. A personal or coordination number is validated
/// (a wrong one makes the whole answer unusable rather than point at someone else).
pub(crate) fn party(v: &Value, op: &Operation) -> Result<NamedParty, RegistryFailure> {
    let name = match (
        text(v, &["personnamn", "fornamn"]),
        text(v, &["personnamn", "efternamn"]),
        text(v, &["organisationsnamn", "namn"]),
    ) {
        (Some(f), Some(e), _) => format!("{f} {e}"),
        (Some(n), None, _) | (None, Some(n), _) => n.to_owned(),
        (None, None, Some(org)) => org.to_owned(),
        (None, None, None) => return Err(garbled(op, "a party has no name")),
    };
    let kind = text(v, &["identitet", "typ", "kod"]);
    let number = text(v, &["identitet", "identitetsbeteckning"]);
    let person = match (kind, number) {
        (Some(k @ ("PERSONNUMMER" | "SAMORDNINGSNUMMER")), Some(nr)) => {
            let ty = if k == "PERSONNUMMER" {
                crate::identifiers::PERSONNUMMER
            } else {
                crate::identifiers::SAMORDNINGSNUMMER
            };
            Some(
                Identifier::restore(ty, nr)
                    .map_err(|_| garbled(op, "a person's identity number is not valid"))?,
            )
        }
        (Some("PERSONNUMMER" | "SAMORDNINGSNUMMER"), None) => {
            return Err(garbled(op, "a person's identity has no number"))
        }
        // An organisation, or a party without a Swedish number.
        _ => None,
    };
    Ok(NamedParty { name, person })
}

/// One role as the register writes it: text, code and the registration date.
type RoleEntry = (String, Option<String>, Option<NaiveDate>);

/// Roles (`funktionarsroller[]`).
fn roles(v: &Value, op: &Operation) -> Result<Vec<RoleEntry>, RegistryFailure> {
    let list = v
        .get("funktionarsroller")
        .and_then(Value::as_array)
        .ok_or_else(|| garbled(op, "a funktionär has no funktionarsroller"))?;
    list.iter()
        .map(|r| {
            let code = text(r, &["kod"]).map(str::to_owned);
            let role = text(r, &["klartext"])
                .map(str::to_owned)
                .or_else(|| code.clone())
                .ok_or_else(|| garbled(op, "a role has neither text nor code"))?;
            Ok((role, code, date(r.get("registreringsdatum"), op)?))
        })
        .collect()
}

/// Reads `POST /organisationer`: the array's organisation with the asked number.
pub(crate) fn read_officers(body: &[u8], orgnr: &str) -> Result<FetchedOfficers, RegistryFailure> {
    let op = &OP_ORGANISATIONER;
    let v: Value = read_json(&op.label(), body)?;
    let list = v
        .as_array()
        .ok_or_else(|| garbled(op, "the answer is not an array of organisations"))?;
    let Some(org) = list
        .iter()
        .find(|o| text(o, &["identitet", "identitetsbeteckning"]) == Some(orgnr))
    else {
        return if list.is_empty() {
            Err(RegistryFailure::NotFound)
        } else {
            Err(garbled(op, "the answer names another organisation"))
        };
    };
    let funktionarer = match org.get("funktionarer") {
        Some(Value::Array(a)) => a.as_slice(),
        None | Some(Value::Null) => &[],
        Some(_) => return Err(garbled(op, "funktionarer is not a list")),
    };
    let mut officers = Vec::new();
    for f in funktionarer {
        let p = party(f, op)?;
        for (role, role_code, appointed_at) in roles(f, op)? {
            officers.push(FetchedOfficer {
                role,
                role_code,
                party: p.clone(),
                appointed_at,
            });
        }
    }
    let signatory_rule_text = match org.get("firmateckning") {
        None | Some(Value::Null) => None,
        Some(f @ Value::Object(_)) => text(f, &["klartext"]).map(str::to_owned),
        Some(_) => return Err(garbled(op, "firmateckning is not an object")),
    };
    Ok(FetchedOfficers {
        orgnr: orgnr.to_owned(),
        officers,
        signatory_rule_text,
    })
}

/// Reads one page of `POST /organisationsengagemang`.
pub(crate) fn read_engagements(body: &[u8], page: u32) -> Result<EngagementPage, RegistryFailure> {
    let op = &OP_ENGAGEMANG;
    let v: Value = read_json(&op.label(), body)?;
    let total = v
        .get("totaltAntalTraffar")
        .and_then(Value::as_u64)
        .ok_or_else(|| garbled(op, "the answer has no totaltAntalTraffar"))?;
    let per_page = v
        .get("antalPerSida")
        .and_then(Value::as_u64)
        .filter(|n| *n > 0)
        .ok_or_else(|| garbled(op, "the answer has no antalPerSida"))?;
    let items = v
        .get("funktionarsOrganisationsengagemang")
        .and_then(Value::as_array)
        .ok_or_else(|| garbled(op, "the answer has no funktionarsOrganisationsengagemang"))?;
    let mut engagements = Vec::new();
    for item in items {
        let orgnr = text(item, &["organisation", "identitet", "identitetsbeteckning"])
            .ok_or_else(|| garbled(op, "an engagement names no organisation"))?;
        if !orgnr.bytes().all(|b| b.is_ascii_digit()) {
            return Err(garbled(
                op,
                "an engagement's organisation number is malformed",
            ));
        }
        match orgnr.len() {
            10 => {}
            // A sole trader's business is named by its holder's personal number, which is
            // never handed out: such an engagement is left out (it is the person's own firm).
            12 => {
                tracing::debug!("an engagement in a sole trader's business left out");
                continue;
            }
            _ => {
                return Err(garbled(
                    op,
                    "an engagement's organisation number is malformed",
                ))
            }
        }
        let funktionar = item
            .get("funktionar")
            .ok_or_else(|| garbled(op, "an engagement has no funktionar"))?;
        for (role, role_code, since) in roles(funktionar, op)? {
            engagements.push(Engagement {
                orgnr: orgnr.to_owned(),
                role,
                role_code,
                since,
            });
        }
    }
    let seen = u64::from(page.saturating_sub(1)) * per_page + items.len() as u64;
    Ok(EngagementPage {
        engagements,
        more: !items.is_empty() && seen < total,
    })
}
