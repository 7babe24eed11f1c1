//! Bolagsverket "API för att hämta företagsinformation" (v4, paid), under
//! [`crate::FI_PREFIX`]: `POST /organisationer` (with `organisationInformationsmangd`
//! `FUNKTIONARER` and `FIRMATECKNING`) and `POST /organisationsengagemang` (a person's
//! engagements, paged). Access tokens come from the same token endpoint as VDM's, with the
//! scope `foretagsinformation:read`.
//!
//! Shapes follow the dev-portal console clipping described in the reference notes: an
//! array of organisation objects, RFC 7807 errors carrying `code` and `source`, and 404
//! "data is missing". Where the clipping is silent (the per-role `registreringsdatum`) the
//! sandbox serves what the connector's README marks as inferred.

use crate::data::{Company, Dataset, Officer, Role};
use crate::faults::{Source, Upstream};
use crate::state::SandboxState;
use crate::util::{now_utc_seconds, random_uuid};
use crate::vdm::{authorize, request_id_header, validate_identitetsbeteckning, with_request_id};
use crate::FI_PREFIX;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use serde_json::{json, Value};

/// The scope of the company information API.
pub const SCOPE_READ: &str = crate::vdm::FORETAGSINFORMATION_SCOPE;

/// Largest page the engagements operation serves (`antalPerSida`).
pub const MAX_PAGE_SIZE: u64 = 100;

pub(crate) const UPSTREAM: Upstream = Upstream {
    source: Source::Foretagsinformation,
    error: problem_for_status,
    field_fel: None,
};

pub(crate) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope(FI_PREFIX)
            .route("/organisationer", web::post().to(organisationer))
            .route(
                "/organisationsengagemang",
                web::post().to(organisationsengagemang),
            ),
    );
}

/// An RFC 7807 problem with Bolagsverket's `code` and `source` members.
pub(crate) fn problem(
    status: StatusCode,
    kind: &str,
    code: &str,
    detail: &str,
    source: Option<&str>,
    req: &HttpRequest,
) -> HttpResponse {
    let body = json!({
        "type": format!("urn:bolagsverket:error:{kind}"),
        "instance": format!("{kind}.client"),
        "status": status.as_u16(),
        "timestamp": now_utc_seconds(),
        "requestId": request_id_header(req).unwrap_or_else(random_uuid),
        "title": status.canonical_reason().unwrap_or("Error"),
        "detail": detail,
        "code": code,
        "source": source,
    });
    with_request_id(
        HttpResponse::build(status)
            .content_type("application/problem+json")
            .body(body.to_string()),
        req,
    )
}

/// The gateway's answer for a failing status (used by fault injection).
pub(crate) fn problem_for_status(status: StatusCode, req: &HttpRequest) -> HttpResponse {
    problem(
        status,
        "server",
        "SERVER_ERROR",
        "Tjänsten är för närvarande inte tillgänglig.",
        None,
        req,
    )
}

pub(crate) fn not_found(req: &HttpRequest) -> HttpResponse {
    problem(
        StatusCode::NOT_FOUND,
        "not-found",
        "NOT_FOUND",
        "Personuppgifter eller företagsuppgifter saknas.",
        None,
        req,
    )
}

/// Reads and validates `identitetsbeteckning` of a JSON body; on error the 400 problem.
pub(crate) fn read_request(
    body: &[u8],
    req: &HttpRequest,
) -> Result<(String, Value), Box<HttpResponse>> {
    let v: Value = serde_json::from_slice(body).map_err(|_| {
        Box::new(problem(
            StatusCode::BAD_REQUEST,
            "validation",
            "FM001",
            "Begäran kunde inte tolkas.",
            None,
            req,
        ))
    })?;
    let id = v
        .get("identitetsbeteckning")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            Box::new(problem(
                StatusCode::BAD_REQUEST,
                "validation",
                "FM002",
                "Identitetsbeteckning saknas.",
                Some("identitetsbeteckning"),
                req,
            ))
        })?
        .to_owned();
    validate_identitetsbeteckning(&id).map_err(|_| {
        Box::new(problem(
            StatusCode::BAD_REQUEST,
            "validation",
            "FM003",
            "Identitetsbeteckning måste vara 10 eller 12 siffror med giltig kontrollsiffra.",
            Some("identitetsbeteckning.identitet.id"),
            req,
        ))
    })?;
    Ok((id, v))
}

fn kod(kod: &str, klartext: &str) -> Value {
    json!({ "kod": kod, "klartext": klartext })
}

fn identitet(typ: &str, nr: &str) -> Value {
    let text = match typ {
        "PERSONNUMMER" => "Personnummer",
        "SAMORDNINGSNUMMER" => "Samordningsnummer",
        _ => "Organisationsnummer",
    };
    json!({ "typ": kod(typ, text), "identitetsbeteckning": nr })
}

fn roles_json(roles: &[&Role]) -> Value {
    Value::Array(
        roles
            .iter()
            .map(|r| {
                let mut v = kod(&r.kod, &r.klartext);
                if let Some(d) = &r.registreringsdatum {
                    v["registreringsdatum"] = json!(d);
                }
                v
            })
            .collect(),
    )
}

fn officer_json(o: &Officer) -> Value {
    let mut v = json!({});
    if let Some(p) = &o.person {
        v["personnamn"] = json!({ "fornamn": p.fornamn, "efternamn": p.efternamn });
    }
    if let Some(n) = &o.organisation_name {
        v["organisationsnamn"] = json!({ "namn": n });
    }
    if let Some(i) = &o.identitet {
        v["identitet"] = identitet(&i.typ, &i.nummer);
    } else {
        v["utlandskBosattning"] = json!(true);
    }
    let roles: Vec<&Role> = o.roles.iter().collect();
    v["funktionarsroller"] = roles_json(&roles);
    v
}

/// The organisation object's identity part, always present.
fn organisation_head(c: &Company) -> Value {
    let reg = c.registrations.first();
    json!({
        "identitet": identitet("ORGANISATIONSNUMMER", &c.id),
        "namnskyddslopnummer": reg.and_then(|r| r.namnskyddslopnummer),
        "organisationsnamn": {
            "typ": kod("FORETAGSNAMN", "Företagsnamn"),
            "namn": c.name().unwrap_or_default(),
        },
        "organisationsform": reg.map(|r| json!(r.organisationsform)).unwrap_or(Value::Null),
        "organisationsstatusar": [],
    })
}

/// `POST /organisationer`: an array with the organisation, carrying the requested groups.
pub fn organisationer_svar(ds: &Dataset, id: &str, groups: &[String]) -> Option<Value> {
    let c = ds.company(id).filter(|c| c.is_at_bolagsverket())?;
    let mut org = organisation_head(c);
    org["arende"] = json!({ "arendenummer": null, "avslutatTidpunkt": null });
    let wants = |g: &str| groups.is_empty() || groups.iter().any(|x| x == g);
    if wants("FUNKTIONARER") {
        org["funktionarer"] = Value::Array(c.officers.iter().map(officer_json).collect());
        let count = |k: &str| {
            c.officers
                .iter()
                .filter(|o| o.roles.iter().any(|r| r.kod == k))
                .count()
        };
        org["antalValdaFunktionarer"] =
            json!({ "ledamoter": count("LE"), "suppleanter": count("SU") });
    }
    if wants("FIRMATECKNING") {
        org["firmateckning"] = match &c.signatory {
            Some(s) => json!({ "kodad": [], "klartext": s.klartext, "prokuratext": s.prokuratext }),
            None => Value::Null,
        };
    }
    Some(Value::Array(vec![org]))
}

/// `POST /organisationsengagemang`: one page of the person's engagements.
pub fn engagemang_svar(ds: &Dataset, nr: &str, sida: u64, per_sida: u64) -> Value {
    let all: Vec<(&Company, Vec<&Role>)> = ds
        .companies()
        .iter()
        .filter_map(|c| c.roles_of(nr))
        .collect();
    let start = ((sida.max(1) - 1) * per_sida) as usize;
    let page: Vec<Value> = all
        .iter()
        .skip(start)
        .take(per_sida as usize)
        .map(|(c, roles)| {
            let officer = c
                .officers
                .iter()
                .find(|o| o.identitet.as_ref().is_some_and(|i| i.nummer == nr));
            let signs = roles.iter().any(|r| matches!(r.kod.as_str(), "VD" | "OF" | "FTR"));
            json!({
                "organisation": organisation_head(c),
                "funktionar": {
                    "personnamn": officer.and_then(|o| o.person.as_ref()).map(|p| json!({
                        "fornamn": p.fornamn, "efternamn": p.efternamn
                    })),
                    "identitet": identitet(
                        officer.and_then(|o| o.identitet.as_ref()).map_or("PERSONNUMMER", |i| i.typ.as_str()),
                        nr,
                    ),
                    "funktionarsroller": roles_json(roles),
                    "arFirmatecknare": if signs { "JA" } else { "NEJ" },
                }
            })
        })
        .collect();
    json!({
        "totaltAntalTraffar": all.len(),
        "sida": sida.max(1),
        "antalPerSida": per_sida,
        "funktionarsOrganisationsengagemang": page,
    })
}

/// Who may call a route: a bearer token with a scope, or a client certificate.
pub(crate) type Admit = fn(&SandboxState, &HttpRequest) -> Result<(), Box<HttpResponse>>;

/// What a route answers for a valid identitetsbeteckning and the request's JSON.
pub(crate) type Respond = fn(&SandboxState, &HttpRequest, &str, &Value) -> HttpResponse;

/// One JSON route of Bolagsverket's paid APIs, under fault injection and the call log:
/// admits the caller, validates `identitetsbeteckning`, then answers.
pub(crate) async fn json_route(
    upstream: &'static Upstream,
    state: web::Data<SandboxState>,
    req: HttpRequest,
    body: web::Bytes,
    admit: Admit,
    respond: Respond,
) -> HttpResponse {
    let st = state.clone();
    let r = req.clone();
    state
        .faults
        .guarded(upstream, &req, move |_| async move {
            if let Err(resp) = admit(&st, &r) {
                return *resp;
            }
            match read_request(&body, &r) {
                Ok((id, v)) => respond(&st, &r, &id, &v),
                Err(resp) => *resp,
            }
        })
        .await
}

fn token_with_scope(state: &SandboxState, req: &HttpRequest) -> Result<(), Box<HttpResponse>> {
    authorize(state, req, SCOPE_READ)
}

async fn organisationer(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    json_route(
        &UPSTREAM,
        state,
        req,
        body,
        token_with_scope,
        |st, r, id, v| {
            let groups: Vec<String> = v
                .get("organisationInformationsmangd")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default();
            match organisationer_svar(&st.read(), id, &groups) {
                Some(svar) => with_request_id(HttpResponse::Ok().json(svar), r),
                None => not_found(r),
            }
        },
    )
    .await
}

async fn organisationsengagemang(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    json_route(
        &UPSTREAM,
        state,
        req,
        body,
        token_with_scope,
        |st, r, id, v| {
            if id.len() != 12 {
                return problem(
                    StatusCode::BAD_REQUEST,
                    "validation",
                    "FM004",
                    "Identitetsbeteckning måste vara ett person- eller samordningsnummer.",
                    Some("identitetsbeteckning"),
                    r,
                );
            }
            let paging = v.get("paginering");
            let sida = paging
                .and_then(|p| p.get("sida"))
                .and_then(Value::as_u64)
                .unwrap_or(1);
            let per = paging
                .and_then(|p| p.get("antalPerSida"))
                .and_then(Value::as_u64)
                .unwrap_or(MAX_PAGE_SIZE)
                .clamp(1, MAX_PAGE_SIZE);
            with_request_id(
                HttpResponse::Ok().json(engagemang_svar(&st.read(), id, sida, per)),
                r,
            )
        },
    )
    .await
}
