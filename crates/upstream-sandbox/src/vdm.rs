//! Bolagsverket "API för värdefulla datamängder" (VDM v1), under [`crate::VDM_PREFIX`].
//!
//! `POST /oauth2/token` (client credentials, form or HTTP Basic), `GET /isalive`,
//! `POST /organisationer`, `POST /dokumentlista`, `GET /dokument/{dokumentId}`.
//! Shapes follow Bolagsverket's OpenAPI 3.0.3 document and the recorded TEST responses,
//! including field order, the `dataproducent`/`fel` wrappers and SCB's padding of SNI
//! lists to five entries.

use crate::data::{Company, Dataset, KodKlartext, Postadress, ScbRecord};
use crate::faults::{FaultSpec, FieldFel, Source, Upstream};
use crate::state::{IssuedToken, SandboxState};
use crate::util::lock;
use crate::util::{luhn_valid, now_utc_seconds, random_uuid};
use crate::{CLIENT_ID, CLIENT_SECRET, VDM_PREFIX};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use base64::Engine;
use serde::Serialize;
use std::collections::HashMap;
use std::time::Instant;

/// Scope for `/organisationer`, `/dokumentlista` and `/dokument`.
pub const SCOPE_READ: &str = "vardefulla-datamangder:read";
/// Scope for `/isalive`.
pub const SCOPE_PING: &str = "vardefulla-datamangder:ping";

const BV: &str = "Bolagsverket";
const SCB: &str = "SCB";

/// Bolagsverket's text for ORGANISATION_FINNS_EJ (recorded).
pub const FINNS_EJ_BOLAGSVERKET: &str = "Begärd organisation finns inte registrerad i sökbar form hos aktuell dataproducent. Observera att en organisation ändå kan existera och eventuellt också finnas registrerad i sökbar form hos en annan dataproducent trots detta fel.";
/// SCB's text for ORGANISATION_FINNS_EJ (recorded).
pub const FINNS_EJ_SCB: &str = "Den efterfrågade informationen gick inte att hitta.";

/// The `fel.typ` values of the VDM spec.
pub const FEL_TYPER: [&str; 4] = [
    "ORGANISATION_FINNS_EJ",
    "OGILTIG_BEGARAN",
    "OTILLGANGLIG_UPPGIFTSKALLA",
    "TIMEOUT",
];

/// Field groups whose producer is Bolagsverket (when Bolagsverket knows the organisation).
pub const BOLAGSVERKET_GROUPS: [&str; 8] = [
    "avregistreradOrganisation",
    "avregistreringsorsak",
    "organisationsdatum",
    "organisationsform",
    "organisationsnamn",
    "pagaendeAvvecklingsEllerOmstruktureringsforfarande",
    "postadressOrganisation",
    "verksamhetsbeskrivning",
];

/// Field groups whose producer is SCB.
pub const SCB_GROUPS: [&str; 4] = [
    "juridiskForm",
    "naringsgrenOrganisation",
    "verksamOrganisation",
    "reklamsparr",
];

/// VDM's data routes as the fault injector sees them.
pub(crate) const DATA: Upstream = Upstream {
    source: Source::Bolagsverket,
    error: server_error,
    field_fel: Some(validate_field_fel),
};

/// VDM's token endpoint as the fault injector sees it.
pub(crate) const TOKEN: Upstream = Upstream {
    source: Source::BolagsverketToken,
    error: token_error,
    field_fel: None,
};

pub(crate) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope(VDM_PREFIX)
            .route("/oauth2/token", web::post().to(token))
            .route("/isalive", web::get().to(isalive))
            .route("/organisationer", web::post().to(organisationer))
            .route("/dokumentlista", web::post().to(dokumentlista))
            .route("/dokument/{dokumentId}", web::get().to(dokument)),
    );
}

// ---------------------------------------------------------------------------------------
// Errors (RFC 7807 `ApiError`)
// ---------------------------------------------------------------------------------------

#[derive(Serialize)]
struct ApiError {
    r#type: &'static str,
    instance: &'static str,
    status: u16,
    title: &'static str,
    detail: String,
    #[serde(rename = "requestId")]
    request_id: Option<String>,
    timestamp: Option<String>,
}

fn request_id_header(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

fn with_request_id(mut resp: HttpResponse, req: &HttpRequest) -> HttpResponse {
    if let Some(v) = req.headers().get("x-request-id") {
        resp.headers_mut()
            .insert(header::HeaderName::from_static("x-request-id"), v.clone());
    }
    resp
}

fn api_error(
    status: StatusCode,
    r#type: &'static str,
    instance: &'static str,
    detail: &str,
    req: &HttpRequest,
) -> HttpResponse {
    let body = ApiError {
        r#type,
        instance,
        status: status.as_u16(),
        title: status.canonical_reason().unwrap_or("Error"),
        detail: detail.to_owned(),
        request_id: Some(request_id_header(req).unwrap_or_else(random_uuid)),
        timestamp: Some(now_utc_seconds()),
    };
    with_request_id(HttpResponse::build(status).json(body), req)
}

fn bad_request(detail: &str, req: &HttpRequest) -> HttpResponse {
    api_error(
        StatusCode::BAD_REQUEST,
        "about:blank",
        "client.error",
        detail,
        req,
    )
}

/// The 5xx answer of the gateway (used by fault injection).
/// The token endpoint's answer when it fails (RFC 6749 error shape).
fn token_error(status: StatusCode, _: &HttpRequest) -> HttpResponse {
    HttpResponse::build(status).json(serde_json::json!({
        "error": "temporarily_unavailable",
        "error_description": "The authorization server is currently unable to handle the request."
    }))
}

pub(crate) fn server_error(status: StatusCode, req: &HttpRequest) -> HttpResponse {
    match status.as_u16() {
        504 => api_error(
            status,
            "urn:bolagsverket:error:network",
            "network.timeout",
            "Tidsgränsen för anropet överskreds.",
            req,
        ),
        502 | 503 => api_error(
            status,
            "urn:bolagsverket:error:network",
            "network.error",
            "Tjänsten är för tillfället inte tillgänglig.",
            req,
        ),
        _ => api_error(
            status,
            "about:blank",
            "server.error",
            "Ett ohanterat fel har uppstått.",
            req,
        ),
    }
}

fn unauthorized(req: &HttpRequest) -> HttpResponse {
    let body = ApiError {
        r#type: "about:blank",
        instance: "client.error",
        status: 401,
        title: "Unauthorized",
        detail: "Anroparen saknar giltiga autentiseringsuppgifter.".into(),
        request_id: request_id_header(req),
        timestamp: None,
    };
    with_request_id(
        HttpResponse::Unauthorized()
            .insert_header((
                header::WWW_AUTHENTICATE,
                "Bearer realm=\"vardefulla-datamangder\", error=\"invalid_token\"",
            ))
            .json(body),
        req,
    )
}

fn forbidden(req: &HttpRequest) -> HttpResponse {
    api_error(
        StatusCode::FORBIDDEN,
        "about:blank",
        "client.error",
        "Anroparen saknar behörighet till resursen.",
        req,
    )
}

// ---------------------------------------------------------------------------------------
// OAuth2
// ---------------------------------------------------------------------------------------

fn oauth_error(status: StatusCode, error: &str, description: &str) -> HttpResponse {
    let mut b = HttpResponse::build(status);
    b.insert_header((header::CACHE_CONTROL, "no-store"));
    if status == StatusCode::UNAUTHORIZED {
        b.insert_header((header::WWW_AUTHENTICATE, "Basic realm=\"oauth2\""));
    }
    b.json(serde_json::json!({ "error": error, "error_description": description }))
}

fn basic_credentials(req: &HttpRequest) -> Option<(String, String)> {
    let v = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, rest) = v.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let raw = base64::engine::general_purpose::STANDARD
        .decode(rest.trim())
        .ok()?;
    let s = String::from_utf8(raw).ok()?;
    let (id, secret) = s.split_once(':')?;
    Some((id.to_owned(), secret.to_owned()))
}

async fn token(state: web::Data<SandboxState>, req: HttpRequest, body: web::Bytes) -> HttpResponse {
    let st = state.clone();
    let r = req.clone();
    state
        .faults
        .guarded(
            &TOKEN,
            &req,
            move |_| async move { issue_token(&st, &r, &body) },
        )
        .await
}

fn issue_token(state: &SandboxState, req: &HttpRequest, body: &[u8]) -> HttpResponse {
    let text = std::str::from_utf8(body).unwrap_or("");
    let form: HashMap<String, String> = web::Query::<HashMap<String, String>>::from_query(text)
        .map(|q| q.into_inner())
        .unwrap_or_default();
    let creds = basic_credentials(req).or_else(|| {
        Some((
            form.get("client_id")?.clone(),
            form.get("client_secret")?.clone(),
        ))
    });
    match creds {
        Some((id, secret)) if id == CLIENT_ID && secret == CLIENT_SECRET => {}
        _ => {
            return oauth_error(
                StatusCode::UNAUTHORIZED,
                "invalid_client",
                "Client Authentication failed.",
            )
        }
    }
    match form.get("grant_type").map(String::as_str) {
        Some("client_credentials") => {}
        _ => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "unsupported_grant_type",
                "Unsupported grant_type value",
            )
        }
    }
    let mut scopes: Vec<String> = form
        .get("scope")
        .map(|s| {
            s.split_whitespace()
                .filter(|x| *x == SCOPE_READ || *x == SCOPE_PING)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    scopes.dedup();
    let scope_text = if scopes.is_empty() {
        "default".to_owned()
    } else {
        scopes.join(" ")
    };
    let access_token = random_uuid();
    let ttl = state.token_ttl;
    lock(&state.tokens).insert(
        access_token.clone(),
        IssuedToken {
            expires_at: Instant::now() + ttl,
            scopes,
        },
    );
    let expires_in = ttl.as_secs() + u64::from(ttl.subsec_nanos() > 0);
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(serde_json::json!({
            "access_token": access_token,
            "scope": scope_text,
            "token_type": "Bearer",
            "expires_in": expires_in,
        }))
}

/// Checks the bearer token and its scope.
fn authorize(
    state: &SandboxState,
    req: &HttpRequest,
    scope: &str,
) -> Result<(), Box<HttpResponse>> {
    let token = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, rest) = v.split_once(' ')?;
            scheme
                .eq_ignore_ascii_case("bearer")
                .then(|| rest.trim().to_owned())
        })
        .ok_or_else(|| Box::new(unauthorized(req)))?;
    let mut tokens = lock(&state.tokens);
    let issued = match tokens.get(&token) {
        Some(t) if t.expires_at > Instant::now() => t.clone(),
        Some(_) => {
            tokens.remove(&token);
            return Err(Box::new(unauthorized(req)));
        }
        None => return Err(Box::new(unauthorized(req))),
    };
    drop(tokens);
    if state.enforce_scopes && !issued.scopes.iter().any(|s| s == scope) {
        return Err(Box::new(forbidden(req)));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------

async fn isalive(state: web::Data<SandboxState>, req: HttpRequest) -> HttpResponse {
    let st = state.clone();
    let r = req.clone();
    state
        .faults
        .guarded(&DATA, &req, move |_| async move {
            if let Err(resp) = authorize(&st, &r, SCOPE_PING) {
                return *resp;
            }
            HttpResponse::Ok().content_type("text/plain").body("OK")
        })
        .await
}

/// Validates an identitetsbeteckning as the service does: the spec pattern, then the
/// Luhn check digit. Returns the 400 `detail` on failure.
pub fn validate_identitetsbeteckning(id: &str) -> Result<(), &'static str> {
    const FORMAT: &str = "Identitetsbeteckning har felaktigt format.";
    if !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(FORMAT);
    }
    match id.len() {
        10 => {}
        11 if id.starts_with("302") => return Ok(()),
        12 => {
            let b = id.as_bytes();
            let century_ok = &id[..2] == "19" || &id[..2] == "20";
            let month: u32 = id[4..6].parse().unwrap_or(0);
            let (d1, d2) = (b[6], b[7]);
            let day_ok = match d1 {
                b'0' | b'6' => d2 != b'0',
                b'1' | b'2' | b'7' | b'8' => true,
                b'3' | b'9' => d2 == b'0' || d2 == b'1',
                _ => false,
            };
            if !century_ok || !(1..=12).contains(&month) || !day_ok {
                return Err(FORMAT);
            }
        }
        _ => return Err(FORMAT),
    }
    if luhn_valid(id) {
        Ok(())
    } else {
        Err("Identitetsbeteckning har ogiltig kontrollsiffra.")
    }
}

/// Reads `{"identitetsbeteckning": "..."}`; on error the 400 response.
fn read_identitetsbeteckning(body: &[u8], req: &HttpRequest) -> Result<String, Box<HttpResponse>> {
    let v: serde_json::Value =
        serde_json::from_slice(body).map_err(|_| Box::new(bad_request("JSON parse error", req)))?;
    let id = v
        .get("identitetsbeteckning")
        .and_then(|x| x.as_str())
        .ok_or_else(|| Box::new(bad_request("Identitetsbeteckning saknas i begäran.", req)))?;
    validate_identitetsbeteckning(id).map_err(|d| Box::new(bad_request(d, req)))?;
    Ok(id.to_owned())
}

async fn organisationer(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    let st = state.clone();
    let r = req.clone();
    state
        .faults
        .guarded(&DATA, &req, move |ff| async move {
            if let Err(resp) = authorize(&st, &r, SCOPE_READ) {
                return *resp;
            }
            let id = match read_identitetsbeteckning(&body, &r) {
                Ok(id) => id,
                Err(resp) => return *resp,
            };
            let mut svar = organisationer_svar(&st.read(), &id);
            if let Some(ff) = ff {
                apply_field_fel(&mut svar, &ff);
            }
            with_request_id(HttpResponse::Ok().json(svar), &r)
        })
        .await
}

async fn dokumentlista(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    let st = state.clone();
    let r = req.clone();
    state
        .faults
        .guarded(&DATA, &req, move |_| async move {
            if let Err(resp) = authorize(&st, &r, SCOPE_READ) {
                return *resp;
            }
            let id = match read_identitetsbeteckning(&body, &r) {
                Ok(id) => id,
                Err(resp) => return *resp,
            };
            let svar = dokumentlista_svar(st.read().company(&id));
            with_request_id(HttpResponse::Ok().json(svar), &r)
        })
        .await
}

async fn dokument(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    path: web::Path<String>,
) -> HttpResponse {
    let st = state.clone();
    let r = req.clone();
    let id = path.into_inner();
    state
        .faults
        .guarded(&DATA, &req, move |_| async move {
            if let Err(resp) = authorize(&st, &r, SCOPE_READ) {
                return *resp;
            }
            let zip = {
                let ds = st.read();
                ds.document(&id)
                    .map(|(c, rep)| crate::annual_report::package(c, rep))
            };
            match zip {
                Some(Ok(bytes)) => with_request_id(
                    HttpResponse::Ok()
                        .content_type("application/zip")
                        .insert_header((
                            header::CONTENT_DISPOSITION,
                            HeaderValue::from_str(&format!("attachment; filename=\"{id}.zip\""))
                                .unwrap_or(HeaderValue::from_static("attachment")),
                        ))
                        .body(bytes),
                    &r,
                ),
                Some(Err(e)) => {
                    tracing::error!(error = %e, "building the annual report package failed");
                    server_error(StatusCode::INTERNAL_SERVER_ERROR, &r)
                }
                None => api_error(
                    StatusCode::NOT_FOUND,
                    "about:blank",
                    "client.error",
                    "Dokument kunde inte hittas.",
                    &r,
                ),
            }
        })
        .await
}

// ---------------------------------------------------------------------------------------
// Response model (field order as on the wire)
// ---------------------------------------------------------------------------------------

/// `fel`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fel {
    pub typ: String,
    #[serde(rename = "felBeskrivning")]
    pub fel_beskrivning: String,
}

fn fel(typ: &str, text: &str) -> Option<Fel> {
    Some(Fel {
        typ: typ.to_owned(),
        fel_beskrivning: text.to_owned(),
    })
}

/// The fel description the service uses for `typ` from `producer`.
pub fn fel_beskrivning(typ: &str, producer: &str) -> String {
    match typ {
        "ORGANISATION_FINNS_EJ" if producer == SCB => FINNS_EJ_SCB.to_owned(),
        "ORGANISATION_FINNS_EJ" => FINNS_EJ_BOLAGSVERKET.to_owned(),
        "OTILLGANGLIG_UPPGIFTSKALLA" => format!(
            "Uppkoppling mot {producer} misslyckades. Efterfrågade uppgifter kunde inte hämtas."
        ),
        "TIMEOUT" => {
            format!("Tidsgränsen överskreds vid hämtning av uppgifter från {producer}.")
        }
        _ => format!("Ogiltig begäran till {producer}."),
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct OrganisationerSvar {
    pub organisationer: Vec<Organisation>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Organisation {
    pub avregistrerad_organisation: Option<AvregistreradOrganisation>,
    pub avregistreringsorsak: Option<KodGrupp>,
    pub juridisk_form: Option<KodGrupp>,
    pub namnskyddslopnummer: Option<u32>,
    pub naringsgren_organisation: Option<NaringsgrenOrganisation>,
    pub organisationsdatum: Option<Organisationsdatum>,
    pub organisationsform: Option<KodGrupp>,
    pub organisationsidentitet: Option<Organisationsidentitet>,
    pub organisationsnamn: Option<Organisationsnamn>,
    pub pagaende_avvecklings_eller_omstruktureringsforfarande: Option<Pagaende>,
    pub postadress_organisation: Option<PostadressOrganisation>,
    pub registreringsland: Option<KodKlartext>,
    pub reklamsparr: Option<JaNejGrupp>,
    pub verksam_organisation: Option<JaNejGrupp>,
    pub verksamhetsbeskrivning: Option<Verksamhetsbeskrivning>,
}

#[derive(Clone, Debug, Serialize)]
pub struct AvregistreradOrganisation {
    pub avregistreringsdatum: Option<String>,
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
}

/// `{kod, klartext, dataproducent, fel}` (avregistreringsorsak, juridiskForm, organisationsform).
#[derive(Clone, Debug, Serialize)]
pub struct KodGrupp {
    pub kod: Option<String>,
    pub klartext: Option<String>,
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
}

/// `{kod: JA|NEJ, dataproducent, fel}` (reklamsparr, verksamOrganisation).
#[derive(Clone, Debug, Serialize)]
pub struct JaNejGrupp {
    pub kod: Option<String>,
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
}

#[derive(Clone, Debug, Serialize)]
pub struct NaringsgrenOrganisation {
    pub sni: Vec<KodKlartext>,
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Organisationsdatum {
    pub registreringsdatum: Option<String>,
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
    pub infort_hos_scb: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Organisationsidentitet {
    pub identitetsbeteckning: String,
    pub typ: Option<KodKlartext>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Organisationsnamn {
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
    pub organisationsnamn_lista: Option<Vec<NamnObjekt>>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NamnObjekt {
    pub namn: String,
    pub organisationsnamntyp: Option<KodKlartext>,
    pub registreringsdatum: Option<String>,
    pub verksamhetsbeskrivning_sarskilt_foretagsnamn: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pagaende {
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
    pub pagaende_avvecklings_eller_omstruktureringsforfarande_lista: Option<Vec<PagaendeObjekt>>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PagaendeObjekt {
    pub kod: String,
    pub klartext: String,
    pub from_datum: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct PostadressOrganisation {
    pub postadress: Option<PostadressUt>,
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PostadressUt {
    pub postnummer: Option<String>,
    pub co_adress: Option<String>,
    pub land: Option<String>,
    pub postort: Option<String>,
    pub utdelningsadress: Option<String>,
}

impl From<&Postadress> for PostadressUt {
    fn from(p: &Postadress) -> Self {
        PostadressUt {
            postnummer: p.postnummer.clone(),
            co_adress: p.co_adress.clone(),
            land: p.land.clone(),
            postort: p.postort.clone(),
            utdelningsadress: p.utdelningsadress.clone(),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Verksamhetsbeskrivning {
    pub beskrivning: Option<String>,
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
}

#[derive(Clone, Debug, Serialize)]
pub struct DokumentlistaSvar {
    pub dokument: Vec<DokumentInfo>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DokumentInfo {
    pub dokument_id: String,
    pub filformat: &'static str,
    pub rapporteringsperiod_tom: String,
    pub registreringstidpunkt: String,
}

// ---------------------------------------------------------------------------------------
// Building answers from the data set
// ---------------------------------------------------------------------------------------

fn kod_fel(producer: &'static str, f: Option<Fel>) -> KodGrupp {
    KodGrupp {
        kod: None,
        klartext: None,
        dataproducent: producer,
        fel: f,
    }
}

fn scb_juridisk_form(scb: Option<&ScbRecord>) -> Option<KodGrupp> {
    Some(match scb {
        Some(s) => KodGrupp {
            kod: Some(s.juridisk_form.kod.clone()),
            klartext: Some(s.juridisk_form.klartext.clone()),
            dataproducent: SCB,
            fel: None,
        },
        None => kod_fel(SCB, fel("ORGANISATION_FINNS_EJ", FINNS_EJ_SCB)),
    })
}

fn scb_naringsgren(scb: Option<&ScbRecord>) -> Option<NaringsgrenOrganisation> {
    Some(match scb {
        Some(s) => {
            let mut sni: Vec<KodKlartext> = s.sni.iter().take(5).cloned().collect();
            while sni.len() < 5 {
                sni.push(KodKlartext::new("     ", ""));
            }
            NaringsgrenOrganisation {
                sni,
                dataproducent: SCB,
                fel: None,
            }
        }
        None => NaringsgrenOrganisation {
            sni: Vec::new(),
            dataproducent: SCB,
            fel: fel("ORGANISATION_FINNS_EJ", FINNS_EJ_SCB),
        },
    })
}

fn ja_nej(b: bool) -> Option<String> {
    Some(if b { "JA" } else { "NEJ" }.to_owned())
}

fn scb_verksam(scb: Option<&ScbRecord>) -> Option<JaNejGrupp> {
    Some(match scb {
        Some(s) => JaNejGrupp {
            kod: ja_nej(s.verksam),
            dataproducent: SCB,
            fel: None,
        },
        None => JaNejGrupp {
            kod: None,
            dataproducent: SCB,
            fel: fel("ORGANISATION_FINNS_EJ", FINNS_EJ_SCB),
        },
    })
}

/// The `/organisationer` answer for an identitetsbeteckning (already validated).
pub fn organisationer_svar(ds: &Dataset, id: &str) -> OrganisationerSvar {
    let company = ds.company(id);
    OrganisationerSvar {
        organisationer: build_organisationer(company, id),
    }
}

fn build_organisationer(company: Option<&Company>, id: &str) -> Vec<Organisation> {
    let scb = company.and_then(|c| c.scb.as_ref());
    let regs = company.map(|c| c.registrations.as_slice()).unwrap_or(&[]);
    if regs.is_empty() {
        return vec![not_at_bolagsverket(id, scb)];
    }
    regs.iter()
        .map(|r| Organisation {
            avregistrerad_organisation: r.deregistration.as_ref().map(|d| {
                AvregistreradOrganisation {
                    avregistreringsdatum: Some(d.datum.clone()),
                    dataproducent: BV,
                    fel: None,
                }
            }),
            avregistreringsorsak: r.deregistration.as_ref().map(|d| KodGrupp {
                kod: Some(d.orsak.kod.clone()),
                klartext: Some(d.orsak.klartext.clone()),
                dataproducent: BV,
                fel: None,
            }),
            juridisk_form: scb_juridisk_form(scb),
            namnskyddslopnummer: r.namnskyddslopnummer,
            naringsgren_organisation: scb_naringsgren(scb),
            organisationsdatum: Some(Organisationsdatum {
                registreringsdatum: r.registreringsdatum.clone(),
                dataproducent: BV,
                fel: None,
                infort_hos_scb: scb.and_then(|s| s.infort_hos_scb.clone()),
            }),
            organisationsform: Some(KodGrupp {
                kod: Some(r.organisationsform.kod.clone()),
                klartext: Some(r.organisationsform.klartext.clone()),
                dataproducent: BV,
                fel: None,
            }),
            organisationsidentitet: Some(Organisationsidentitet {
                identitetsbeteckning: id.to_owned(),
                typ: r.identitetstyp.clone(),
            }),
            organisationsnamn: Some(Organisationsnamn {
                dataproducent: BV,
                fel: None,
                organisationsnamn_lista: Some(
                    r.names
                        .iter()
                        .map(|n| NamnObjekt {
                            namn: n.namn.clone(),
                            organisationsnamntyp: n.typ.clone(),
                            registreringsdatum: n.registreringsdatum.clone(),
                            verksamhetsbeskrivning_sarskilt_foretagsnamn: n
                                .verksamhetsbeskrivning
                                .clone(),
                        })
                        .collect(),
                ),
            }),
            pagaende_avvecklings_eller_omstruktureringsforfarande: (!r.proceedings.is_empty())
                .then(|| Pagaende {
                    dataproducent: BV,
                    fel: None,
                    pagaende_avvecklings_eller_omstruktureringsforfarande_lista: Some(
                        r.proceedings
                            .iter()
                            .map(|p| PagaendeObjekt {
                                kod: p.kod.clone(),
                                klartext: p.klartext.clone(),
                                from_datum: p.from_datum.clone(),
                            })
                            .collect(),
                    ),
                }),
            postadress_organisation: r.postadress.as_ref().map(|p| PostadressOrganisation {
                postadress: Some(p.into()),
                dataproducent: BV,
                fel: None,
            }),
            registreringsland: r.registreringsland.clone(),
            reklamsparr: None,
            verksam_organisation: scb_verksam(scb),
            verksamhetsbeskrivning: Some(Verksamhetsbeskrivning {
                beskrivning: r.verksamhetsbeskrivning.clone(),
                dataproducent: BV,
                fel: None,
            }),
        })
        .collect()
}

/// The answer when Bolagsverket does not know the identitetsbeteckning (SCB may).
fn not_at_bolagsverket(id: &str, scb: Option<&ScbRecord>) -> Organisation {
    let bv_fel = || fel("ORGANISATION_FINNS_EJ", FINNS_EJ_BOLAGSVERKET);
    Organisation {
        avregistrerad_organisation: Some(AvregistreradOrganisation {
            avregistreringsdatum: None,
            dataproducent: BV,
            fel: bv_fel(),
        }),
        avregistreringsorsak: Some(kod_fel(BV, bv_fel())),
        juridisk_form: scb_juridisk_form(scb),
        namnskyddslopnummer: None,
        naringsgren_organisation: scb_naringsgren(scb),
        organisationsdatum: Some(match scb {
            Some(s) => Organisationsdatum {
                registreringsdatum: None,
                dataproducent: SCB,
                fel: None,
                infort_hos_scb: s.infort_hos_scb.clone(),
            },
            None => Organisationsdatum {
                registreringsdatum: None,
                dataproducent: BV,
                fel: bv_fel(),
                infort_hos_scb: None,
            },
        }),
        organisationsform: Some(kod_fel(BV, bv_fel())),
        organisationsidentitet: Some(Organisationsidentitet {
            identitetsbeteckning: id.to_owned(),
            typ: None,
        }),
        organisationsnamn: Some(match scb {
            Some(s) => Organisationsnamn {
                dataproducent: SCB,
                fel: None,
                organisationsnamn_lista: Some(vec![NamnObjekt {
                    namn: s.namn.clone(),
                    organisationsnamntyp: None,
                    registreringsdatum: None,
                    verksamhetsbeskrivning_sarskilt_foretagsnamn: None,
                }]),
            },
            None => Organisationsnamn {
                dataproducent: BV,
                fel: bv_fel(),
                organisationsnamn_lista: Some(Vec::new()),
            },
        }),
        pagaende_avvecklings_eller_omstruktureringsforfarande: Some(Pagaende {
            dataproducent: BV,
            fel: bv_fel(),
            pagaende_avvecklings_eller_omstruktureringsforfarande_lista: Some(Vec::new()),
        }),
        postadress_organisation: Some(match scb {
            Some(s) => PostadressOrganisation {
                postadress: Some((&s.postadress).into()),
                dataproducent: SCB,
                fel: None,
            },
            None => PostadressOrganisation {
                postadress: None,
                dataproducent: BV,
                fel: bv_fel(),
            },
        }),
        registreringsland: None,
        reklamsparr: scb.map(|s| JaNejGrupp {
            kod: ja_nej(s.reklamsparr),
            dataproducent: SCB,
            fel: None,
        }),
        verksam_organisation: scb_verksam(scb),
        verksamhetsbeskrivning: Some(Verksamhetsbeskrivning {
            beskrivning: None,
            dataproducent: BV,
            fel: bv_fel(),
        }),
    }
}

/// The `/dokumentlista` answer (newest first; empty when the company is unknown).
pub fn dokumentlista_svar(company: Option<&Company>) -> DokumentlistaSvar {
    let mut dokument: Vec<DokumentInfo> = company
        .map(|c| {
            c.annual_reports
                .iter()
                .map(|r| DokumentInfo {
                    dokument_id: r.dokument_id.clone(),
                    filformat: "application/zip",
                    rapporteringsperiod_tom: r.period_tom.clone(),
                    registreringstidpunkt: r.registreringstidpunkt.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    dokument.sort_by(|a, b| b.rapporteringsperiod_tom.cmp(&a.rapporteringsperiod_tom));
    DokumentlistaSvar { dokument }
}

// ---------------------------------------------------------------------------------------
// field_fel
// ---------------------------------------------------------------------------------------

fn validate_field_fel(spec: &FaultSpec) -> Result<(), String> {
    if let Some(t) = &spec.fel_typ {
        if !FEL_TYPER.contains(&t.as_str()) {
            return Err(format!("fel_typ must be one of {FEL_TYPER:?}"));
        }
    }
    if let Some(f) = &spec.field {
        let ok = f == BV
            || f == SCB
            || BOLAGSVERKET_GROUPS.contains(&f.as_str())
            || SCB_GROUPS.contains(&f.as_str());
        if !ok {
            return Err(format!(
                "field must be Bolagsverket, SCB or one of {BOLAGSVERKET_GROUPS:?} {SCB_GROUPS:?}"
            ));
        }
    }
    Ok(())
}

impl Organisation {
    /// The producer a field group has in this answer.
    fn producer_of(&self, group: &str) -> &'static str {
        match group {
            "juridiskForm" | "naringsgrenOrganisation" | "verksamOrganisation" | "reklamsparr" => {
                SCB
            }
            "organisationsnamn" => self
                .organisationsnamn
                .as_ref()
                .map_or(BV, |g| g.dataproducent),
            "postadressOrganisation" => self
                .postadress_organisation
                .as_ref()
                .map_or(BV, |g| g.dataproducent),
            "organisationsdatum" => self
                .organisationsdatum
                .as_ref()
                .map_or(BV, |g| g.dataproducent),
            _ => BV,
        }
    }

    /// Replaces a field group by its failed form.
    fn set_fel(&mut self, group: &str, typ: &str, text: Option<&str>) {
        let p = self.producer_of(group);
        let f = fel(
            typ,
            &text.map_or_else(|| fel_beskrivning(typ, p), str::to_owned),
        );
        match group {
            "avregistreradOrganisation" => {
                self.avregistrerad_organisation = Some(AvregistreradOrganisation {
                    avregistreringsdatum: None,
                    dataproducent: p,
                    fel: f,
                })
            }
            "avregistreringsorsak" => self.avregistreringsorsak = Some(kod_fel(p, f)),
            "juridiskForm" => self.juridisk_form = Some(kod_fel(p, f)),
            "organisationsform" => self.organisationsform = Some(kod_fel(p, f)),
            "naringsgrenOrganisation" => {
                self.naringsgren_organisation = Some(NaringsgrenOrganisation {
                    sni: Vec::new(),
                    dataproducent: p,
                    fel: f,
                })
            }
            "organisationsdatum" => {
                self.organisationsdatum = Some(Organisationsdatum {
                    registreringsdatum: None,
                    dataproducent: p,
                    fel: f,
                    infort_hos_scb: None,
                })
            }
            "organisationsnamn" => {
                self.organisationsnamn = Some(Organisationsnamn {
                    dataproducent: p,
                    fel: f,
                    organisationsnamn_lista: None,
                })
            }
            "pagaendeAvvecklingsEllerOmstruktureringsforfarande" => {
                self.pagaende_avvecklings_eller_omstruktureringsforfarande = Some(Pagaende {
                    dataproducent: p,
                    fel: f,
                    pagaende_avvecklings_eller_omstruktureringsforfarande_lista: None,
                })
            }
            "postadressOrganisation" => {
                self.postadress_organisation = Some(PostadressOrganisation {
                    postadress: None,
                    dataproducent: p,
                    fel: f,
                })
            }
            "reklamsparr" => {
                self.reklamsparr = Some(JaNejGrupp {
                    kod: None,
                    dataproducent: p,
                    fel: f,
                })
            }
            "verksamOrganisation" => {
                self.verksam_organisation = Some(JaNejGrupp {
                    kod: None,
                    dataproducent: p,
                    fel: f,
                })
            }
            "verksamhetsbeskrivning" => {
                self.verksamhetsbeskrivning = Some(Verksamhetsbeskrivning {
                    beskrivning: None,
                    dataproducent: p,
                    fel: f,
                })
            }
            _ => {}
        }
    }
}

/// Applies a `field_fel` fault to an answer.
fn apply_field_fel(svar: &mut OrganisationerSvar, ff: &FieldFel) {
    let typ = ff.typ.as_deref().unwrap_or("OTILLGANGLIG_UPPGIFTSKALLA");
    let text = ff.beskrivning.as_deref();
    let target = ff.field.as_deref().unwrap_or(BV);
    match target {
        // Bolagsverket as a whole failed: one element, identity unknown (spec example
        // "organisationer-fel-fran-en-uppgiftskalla-svar").
        BV => {
            svar.organisationer.truncate(1);
            for org in &mut svar.organisationer {
                let groups: Vec<&str> = BOLAGSVERKET_GROUPS
                    .iter()
                    .copied()
                    .filter(|g| org.producer_of(g) == BV)
                    .collect();
                for g in groups {
                    org.set_fel(g, typ, text);
                }
                org.organisationsidentitet = None;
                org.namnskyddslopnummer = None;
                org.registreringsland = None;
            }
        }
        SCB => {
            for org in &mut svar.organisationer {
                for g in [
                    "juridiskForm",
                    "naringsgrenOrganisation",
                    "verksamOrganisation",
                ] {
                    org.set_fel(g, typ, text);
                }
                if org.reklamsparr.is_some() {
                    org.set_fel("reklamsparr", typ, text);
                }
                for g in [
                    "organisationsnamn",
                    "postadressOrganisation",
                    "organisationsdatum",
                ] {
                    if org.producer_of(g) == SCB {
                        org.set_fel(g, typ, text);
                    }
                }
                if let Some(d) = org.organisationsdatum.as_mut() {
                    d.infort_hos_scb = None;
                }
            }
        }
        group => {
            for org in &mut svar.organisationer {
                org.set_fel(group, typ, text);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identitetsbeteckning_rules() {
        assert!(validate_identitetsbeteckning("5560021361").is_ok());
        assert!(validate_identitetsbeteckning("198101052382").is_ok());
        assert_eq!(
            validate_identitetsbeteckning("5560021362"),
            Err("Identitetsbeteckning har ogiltig kontrollsiffra.")
        );
        assert!(validate_identitetsbeteckning("556002-1361").is_err());
        assert!(validate_identitetsbeteckning("191313121212").is_err());
        assert!(validate_identitetsbeteckning("12345").is_err());
    }

    #[test]
    fn sni_is_padded_to_five() {
        let ds = Dataset::standard();
        let svar = organisationer_svar(&ds, crate::data::testnr::HB);
        let v = serde_json::to_value(&svar).unwrap();
        let sni = v["organisationer"][0]["naringsgrenOrganisation"]["sni"]
            .as_array()
            .unwrap();
        assert_eq!(sni.len(), 5);
        assert_eq!(sni[4]["kod"], "     ");
    }

    #[test]
    fn field_fel_on_one_group() {
        let ds = Dataset::standard();
        let mut svar = organisationer_svar(&ds, crate::data::testnr::EK);
        apply_field_fel(
            &mut svar,
            &FieldFel {
                typ: Some("OTILLGANGLIG_UPPGIFTSKALLA".into()),
                beskrivning: None,
                field: Some("organisationsnamn".into()),
            },
        );
        let v = serde_json::to_value(&svar).unwrap();
        let g = &v["organisationer"][0]["organisationsnamn"];
        assert_eq!(g["fel"]["typ"], "OTILLGANGLIG_UPPGIFTSKALLA");
        assert!(g["organisationsnamnLista"].is_null());
        assert_eq!(g["dataproducent"], "Bolagsverket");
        assert!(v["organisationer"][0]["organisationsform"]["fel"].is_null());
    }
}
