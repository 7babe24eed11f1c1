//! The register as the upstream sandbox serves it: [`BrregSandbox`], a
//! [`SandboxPlugin`] named `no-brreg`, answering under `/no-brreg` what
//! `https://data.brreg.no` answers (the client's base URL is the sandbox's
//! `plugin_base_url("no-brreg")`):
//!
//! | Route | Answers |
//! |---|---|
//! | `GET /enhetsregisteret/api/enheter/{orgnr}` | 200 `Enhet` or `SlettetEnhet` (`application/vnd.brreg.enhetsregisteret.enhet.v2+json;charset=UTF-8`, or `application/json` when asked for it or for nothing), 400 for a number that is not 9 digits (the register's `BadRequest` body), 404 without a body for an unknown number (a wrong check digit included: the register checks the shape only), 410 `GoneEnhet` for a withdrawn entity, 406 for another media type |
//! | `GET /enhetsregisteret/api/enheter/{orgnr}/roller` | 200 `Roller` (`…rolle.v1+json`; a deleted entity, or one without recorded roles, has no groups), 400, 404, 410, 415 for another media type |
//! | `GET /enhetsregisteret/api/oppdateringer/enheter` | a HAL page (`…oppdatering.enhet.v1+json`) with `dato`, `updatedBefore`, `oppdateringsid`, `organisasjonsnummer`, `includeChanges`, `page`, `size` (1 to 10 000, default 20; `(page+1)*size` at most 10 000) and `sort=id,ASC|id,DESC`; no `_embedded` when empty; 400 for a bad parameter; 415 |
//!
//! Any other path is Spring's 404 body, another method 405. Injected faults answer in
//! Spring's error shape (`timestamp`, `status`, `error`, `message`, `path`, `trace`).
//! Every `_links` href points at the sandbox itself, so a client following HAL links stays
//! in it; otherwise a recorded entity is served byte for byte until a control route changes
//! it.
//!
//! Control (`/control/plugins/no-brreg/...`, loopback only like all of `/control`):
//!
//! | Route | Effect |
//! |---|---|
//! | `GET /companies?form=AS&status=bankrupt&recorded=false&limit=20` | summaries (every filter optional) |
//! | `GET /companies/{orgnr}` | one summary |
//! | `POST /companies/{orgnr}` `{"name": "...", "status": "active\|bankrupt\|winding_up\|compulsory_dissolution\|deleted\|gone", "status_date": "2026-11-01", "ground": "manglende_regnskap"}` | changes the name and/or status and appends the matching feed entries (`Endring`, `Sletting`, `Fjernet`); a deleted or withdrawn entity is not changed (409) |
//! | `GET /handy` | a number for each kind of entity ([`HandyNumbers`]) |
//! | `GET /feed` | the feed's last `oppdateringsid` and its length |
//!
//! `POST /control/reset` puts the register and the feed back to the start.

mod data;
mod wire;

pub use data::{HandyNumbers, AS_OF, SYNTHETIC_GIVEN_NAMES, SYNTHETIC_SURNAMES};

use crate::brreg::{media, API_PATH};
use actix_web::http::header::{ALLOW, CONTENT_TYPE};
use actix_web::http::{Method, StatusCode};
use actix_web::{HttpRequest, HttpResponse};
use chrono::{DateTime, Duration, NaiveDate, Utc};
use data::{Company, FeedEntry, Register, RECORDED_GONE};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use upstream_sandbox::SandboxPlugin;
use wire::{Href, Links, Patch, REAL_API};

/// The plug-in's name: its path prefix, fault and call-log key, and control path.
pub const NAME: &str = "no-brreg";

/// The most entries a feed page may hold, and the deepest a page may reach.
const MAX_FEED_WINDOW: u64 = 10_000;

/// Brønnøysundregistrene's Enhetsregisteret, imitated (see the module documentation).
pub struct BrregSandbox {
    initial: Register,
    state: Mutex<Register>,
}

impl std::fmt::Debug for BrregSandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrregSandbox")
            .field("companies", &self.initial.companies.len())
            .finish_non_exhaustive()
    }
}

/// An entity as the control routes list it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompanySummary {
    pub orgnr: String,
    pub navn: String,
    /// The legal form's code (`AS`, `ASA`, `ENK`, `NUF`, `ANS`, ...).
    pub organisasjonsform: String,
    /// `active`, `winding_up`, `compulsory_dissolution`, `bankrupt`, `deleted` or `gone`.
    pub status: String,
    /// When the status began (none for `active`).
    pub status_date: Option<String>,
    /// One of the recorded real entities.
    pub recorded: bool,
    /// How many roles are served (none for deleted or withdrawn entities).
    pub roles: usize,
}

/// A status a control route sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusChange {
    /// Clears bankruptcy, winding-up and compulsory dissolution.
    Active,
    Bankrupt,
    WindingUp,
    CompulsoryDissolution,
    /// Struck off: served as `SlettetEnhet` from then on (a `Sletting` entry).
    Deleted,
    /// Withdrawn from open data: 410 from then on (a `Fjernet` entry).
    Gone,
}

/// The ground of a compulsory dissolution, spelt `manglende_sletting`,
/// `manglende_daglig_leder`, `manglende_revisor`, `manglende_regnskap` (the default) or
/// `mangelfullt_styre` in a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ground {
    ManglendeSletting,
    ManglendeDagligLeder,
    ManglendeRevisor,
    ManglendeRegnskap,
    MangelfulltStyre,
}

impl Ground {
    fn path(self) -> &'static str {
        match self {
            Ground::ManglendeSletting => "/tvangsavvikletPgaManglendeSlettingDato",
            Ground::ManglendeDagligLeder => "/tvangsopplostPgaManglendeDagligLederDato",
            Ground::ManglendeRevisor => "/tvangsopplostPgaManglendeRevisorDato",
            Ground::ManglendeRegnskap => "/tvangsopplostPgaManglendeRegnskapDato",
            Ground::MangelfulltStyre => "/tvangsopplostPgaMangelfulltStyreDato",
        }
    }

    fn field(self, e: &mut wire::Enhet) -> &mut Option<String> {
        match self {
            Ground::ManglendeSletting => &mut e.tvangsavviklet_pga_manglende_sletting_dato,
            Ground::ManglendeDagligLeder => &mut e.tvangsopplost_pga_manglende_daglig_leder_dato,
            Ground::ManglendeRevisor => &mut e.tvangsopplost_pga_manglende_revisor_dato,
            Ground::ManglendeRegnskap => &mut e.tvangsopplost_pga_manglende_regnskap_dato,
            Ground::MangelfulltStyre => &mut e.tvangsopplost_pga_mangelfullt_styre_dato,
        }
    }

    const ALL: [Ground; 5] = [
        Ground::ManglendeSletting,
        Ground::ManglendeDagligLeder,
        Ground::ManglendeRevisor,
        Ground::ManglendeRegnskap,
        Ground::MangelfulltStyre,
    ];
}

/// A scripted change (the body of `POST /control/plugins/no-brreg/companies/{orgnr}`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompanyChange {
    /// The new name (1 to 180 characters); the old one joins `historiskeNavn`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<StatusChange>,
    /// The date of the status (default: today, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_date: Option<NaiveDate>,
    /// For `compulsory_dissolution`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground: Option<Ground>,
}

/// What a change did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeOutcome {
    pub company: CompanySummary,
    /// The feed entries it appended (their `oppdateringsid`s).
    pub oppdateringer: Vec<u64>,
}

/// Why a change was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChangeError {
    #[error("the sandbox has no entity with that number")]
    UnknownCompany,
    #[error("{0}")]
    Invalid(String),
    #[error("a deleted or withdrawn entity is not changed (reset the sandbox instead)")]
    Final,
}

fn lock(m: &Mutex<Register>) -> MutexGuard<'_, Register> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn summary(c: &Company) -> CompanySummary {
    let (status, status_date) = c.status();
    CompanySummary {
        orgnr: c.enhet.organisasjonsnummer.clone(),
        navn: c.enhet.navn.clone(),
        organisasjonsform: c.enhet.organisasjonsform.kode.clone(),
        status: status.to_owned(),
        status_date,
        recorded: !c.synthetic,
        roles: c.role_count(),
    }
}

/// How an answer is written: the versioned media type, or plain JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Media {
    Versioned(&'static str),
    Json,
}

impl Media {
    fn content_type(self) -> String {
        match self {
            Media::Versioned(m) => format!("{m};charset=UTF-8"),
            Media::Json => "application/json".to_owned(),
        }
    }
}

/// The media type an answer is written in, from the request's `Accept`: the endpoint's
/// versioned type when asked for, plain JSON for `application/json`, `application/hal+json`,
/// `*/*` or no `Accept` (the register's "latest"), `None` for anything else.
fn negotiate(req: &HttpRequest, versioned: &'static str) -> Option<Media> {
    let accept = req
        .headers()
        .get(actix_web::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|a| !a.is_empty());
    let Some(accept) = accept else {
        return Some(Media::Json);
    };
    let ranges: Vec<String> = accept
        .split(',')
        .map(|r| {
            r.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .collect();
    if ranges.iter().any(|r| r == versioned) {
        Some(Media::Versioned(versioned))
    } else if ranges.iter().any(|r| {
        matches!(
            r.as_str(),
            "application/json" | "application/hal+json" | "*/*" | "application/*"
        )
    }) {
        Some(Media::Json)
    } else {
        None
    }
}

/// The API's base as the sandbox serves it (`http://127.0.0.1:port/no-brreg/enhetsregisteret/api`).
fn served_api(req: &HttpRequest) -> String {
    let ci = req.connection_info();
    format!("{}://{}/{NAME}{API_PATH}", ci.scheme(), ci.host())
}

/// A JSON body with its links pointed at the sandbox.
fn json_answer(req: &HttpRequest, status: StatusCode, media: Media, body: &str) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((CONTENT_TYPE, media.content_type()))
        .body(body.replace(REAL_API, &served_api(req)))
}

fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "{}".to_owned())
}

/// A trace id for Spring's error body (UUID-shaped, unique within the process).
fn trace_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = Utc::now().timestamp_nanos_opt().unwrap_or_default() as u64;
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let a = mix(nanos ^ n.rotate_left(32));
    let b = mix(a ^ n);
    let h = format!("{a:016x}{b:016x}");
    format!(
        "{}-{}-4{}-a{}-{}",
        &h[0..8],
        &h[8..12],
        &h[13..16],
        &h[17..20],
        &h[20..32]
    )
}

/// Spring's error body for a status at a path.
fn spring_body(status: StatusCode, path: &str) -> wire::SpringError {
    let reason = status.canonical_reason().unwrap_or("Error").to_owned();
    wire::SpringError {
        timestamp: Utc::now().format("%Y-%m-%dT%H:%M:%S%.3f+0000").to_string(),
        status: status.as_u16(),
        error: reason.clone(),
        message: reason,
        path: path.to_owned(),
        trace: trace_id(),
    }
}

/// Spring's error answer.
fn spring_error(status: StatusCode, path: &str) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((CONTENT_TYPE, "application/json"))
        .body(to_json(&spring_body(status, path)))
}

/// The register's answer for a failure status (injected faults): Spring's error body.
fn server_error(status: StatusCode, req: &HttpRequest) -> HttpResponse {
    let path = req
        .path()
        .strip_prefix('/')
        .and_then(|p| p.strip_prefix(NAME))
        .unwrap_or(req.path());
    spring_error(status, path)
}

/// The 400 body every endpoint shares, one validation error per bad parameter.
fn bad_request_body(path: &str, errors: Vec<wire::Valideringsfeil>) -> wire::BadRequest {
    wire::BadRequest {
        tidsstempel: Utc::now().timestamp_millis(),
        status: 400,
        feilmelding: "Feilaktig forespørsel",
        sti: path.to_owned(),
        antall_feil: errors.len(),
        valideringsfeil: errors,
    }
}

/// The 400 answer.
fn bad_request(path: &str, errors: Vec<wire::Valideringsfeil>) -> HttpResponse {
    HttpResponse::BadRequest()
        .insert_header((CONTENT_TYPE, "application/json"))
        .body(to_json(&bad_request_body(path, errors)))
}

fn feil(feilmelding: &str, parameter: &str, verdi: &str) -> wire::Valideringsfeil {
    wire::Valideringsfeil {
        feilmelding: feilmelding.to_owned(),
        parametere: vec![parameter.to_owned()],
        feilaktig_verdi: verdi.to_owned(),
    }
}

fn nine_digits(s: &str) -> bool {
    s.len() == 9 && s.bytes().all(|b| b.is_ascii_digit())
}

/// The validation error of a path's number that is not nine digits (the register names
/// the value as its parameter).
fn orgnr_feil(value: &str) -> wire::Valideringsfeil {
    wire::Valideringsfeil {
        feilmelding: "Organisasjonsnummer må være et nummer med nøyaktig 9 siffer".into(),
        parametere: vec![value.to_owned()],
        feilaktig_verdi: value.to_owned(),
    }
}

fn orgnr_error(path: &str, value: &str) -> HttpResponse {
    bad_request(path, vec![orgnr_feil(value)])
}

/// `dato` as the feed writes it.
fn feed_time(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// A feed request, read and checked.
struct FeedRequest {
    dato: Option<DateTime<Utc>>,
    updated_before: Option<DateTime<Utc>>,
    oppdateringsid: Option<u64>,
    organisasjonsnummer: Vec<String>,
    include_changes: bool,
    page: u64,
    size: u64,
    descending: bool,
    /// The other parameters, in order, for the paging links.
    kept: Vec<(String, String)>,
}

fn read_feed_request(query: &str) -> Result<FeedRequest, Vec<wire::Valideringsfeil>> {
    let pairs = actix_web::web::Query::<Vec<(String, String)>>::from_query(query)
        .map(|q| q.into_inner())
        .map_err(|_| vec![feil("Ugyldig spørring", "query", query)])?;
    let mut r = FeedRequest {
        dato: None,
        updated_before: None,
        oppdateringsid: None,
        organisasjonsnummer: Vec::new(),
        include_changes: false,
        page: 0,
        size: 20,
        descending: false,
        kept: Vec::new(),
    };
    let mut errors = Vec::new();
    let time = |v: &str| DateTime::parse_from_rfc3339(v).map(|t| t.with_timezone(&Utc));
    const TIME_FORMAT: &str =
        "Ugyldig tidsstempel. Forventet format er yyyy-MM-dd'T'HH:mm:ss.SSS'Z'";
    for (k, v) in pairs {
        match k.as_str() {
            "dato" => match time(&v) {
                Ok(t) => r.dato = Some(t),
                Err(_) => errors.push(feil(TIME_FORMAT, "dato", &v)),
            },
            "updatedBefore" => match time(&v) {
                Ok(t) => r.updated_before = Some(t),
                Err(_) => errors.push(feil(TIME_FORMAT, "updatedBefore", &v)),
            },
            "oppdateringsid" => match v.parse::<u64>() {
                Ok(n) if n >= 1 => r.oppdateringsid = Some(n),
                _ => errors.push(feil(
                    "Oppdateringsid må være et tall større eller lik 1",
                    "oppdateringsid",
                    &v,
                )),
            },
            "organisasjonsnummer" => {
                for n in v.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                    if nine_digits(n) {
                        r.organisasjonsnummer.push(n.to_owned());
                    } else {
                        errors.push(feil(
                            "Organisasjonsnummer må være et nummer med nøyaktig 9 siffer",
                            "organisasjonsnummer",
                            n,
                        ));
                    }
                }
            }
            "includeChanges" => match v.to_ascii_lowercase().as_str() {
                "true" => r.include_changes = true,
                "false" => r.include_changes = false,
                _ => errors.push(feil(
                    "includeChanges må være true eller false",
                    "includeChanges",
                    &v,
                )),
            },
            "page" => match v.parse::<u64>() {
                Ok(n) => r.page = n,
                Err(_) => errors.push(feil("Sidenummer må være et positivt tall", "page", &v)),
            },
            "size" => match v.parse::<u64>() {
                Ok(n) if (1..=MAX_FEED_WINDOW).contains(&n) => r.size = n,
                _ => errors.push(feil(
                    "Størrelse må være større eller lik 1 og mindre eller lik 10000",
                    "size",
                    &v,
                )),
            },
            "sort" => match v.to_ascii_lowercase().replace(' ', "").as_str() {
                "id" | "id,asc" => r.descending = false,
                "id,desc" => r.descending = true,
                _ => errors.push(feil(
                    "Ugyldig sortering. Kun id,ASC og id,DESC er støttet",
                    "sort",
                    &v,
                )),
            },
            _ => {}
        }
        if k != "page" && k != "size" {
            r.kept.push((k, v));
        }
    }
    if errors.is_empty() && (r.page + 1) * r.size > MAX_FEED_WINDOW {
        errors.push(feil(
            "(page+1)*size kan ikke overstige 10000",
            "page",
            &r.page.to_string(),
        ));
    }
    if errors.is_empty() {
        Ok(r)
    } else {
        Err(errors)
    }
}

/// `name=value&...` for a paging link (the kept parameters, then `page` and `size`).
fn paging_query(kept: &[(String, String)], page: u64, size: u64) -> String {
    let mut parts: Vec<String> = kept.iter().map(|(k, v)| format!("{k}={v}")).collect();
    parts.push(format!("page={page}"));
    parts.push(format!("size={size}"));
    parts.join("&")
}

impl BrregSandbox {
    /// The standard register: 290 synthetic entities, the recorded real ones and the
    /// feed's first entries, the same on every machine.
    pub fn standard() -> BrregSandbox {
        let initial = data::standard();
        BrregSandbox {
            state: Mutex::new(initial.clone()),
            initial,
        }
    }

    /// A number for each kind of entity.
    pub fn handy(&self) -> HandyNumbers {
        self.initial.handy.clone()
    }

    /// Every entity, in number order.
    pub fn companies(&self) -> Vec<CompanySummary> {
        lock(&self.state).companies.values().map(summary).collect()
    }

    /// One entity.
    pub fn company(&self, orgnr: &str) -> Option<CompanySummary> {
        lock(&self.state).companies.get(orgnr).map(summary)
    }

    /// The entity's body as `GET /enheter/{orgnr}` writes it now (links as the register
    /// writes them), `None` for an unknown or withdrawn entity.
    pub fn enhet_json(&self, orgnr: &str) -> Option<serde_json::Value> {
        let state = lock(&self.state);
        let c = state.companies.get(orgnr)?;
        if c.gone.is_some() {
            return None;
        }
        serde_json::from_str(&Self::enhet_body(c)).ok()
    }

    /// The entity's roles as `GET /enheter/{orgnr}/roller` writes them now.
    pub fn roller_json(&self, orgnr: &str) -> Option<serde_json::Value> {
        let state = lock(&self.state);
        let c = state.companies.get(orgnr)?;
        if c.gone.is_some() {
            return None;
        }
        serde_json::from_str(&Self::roller_body(c)).ok()
    }

    /// The feed's newest `oppdateringsid`.
    pub fn last_oppdateringsid(&self) -> u64 {
        lock(&self.state).feed.last().map_or(0, |e| e.id)
    }

    /// Applies a scripted change and appends its feed entries.
    pub fn change(
        &self,
        orgnr: &str,
        change: &CompanyChange,
    ) -> Result<ChangeOutcome, ChangeError> {
        let mut state = lock(&self.state);
        let entries = apply(&mut state, orgnr, change)?;
        let now = Utc::now();
        let mut ids = Vec::new();
        for (endringstype, endringer) in entries {
            let (id, dato) = match state.feed.last() {
                Some(last) => (last.id + 1, now.max(last.dato + Duration::milliseconds(1))),
                None => (1, now),
            };
            state.feed.push(FeedEntry {
                id,
                dato,
                orgnr: orgnr.to_owned(),
                endringstype: endringstype.to_owned(),
                endringer,
            });
            ids.push(id);
        }
        let company = state
            .companies
            .get(orgnr)
            .map(summary)
            .ok_or(ChangeError::UnknownCompany)?;
        Ok(ChangeOutcome {
            company,
            oppdateringer: ids,
        })
    }

    fn enhet_body(c: &Company) -> String {
        if let Some(recorded) = c.recorded {
            return recorded.to_owned();
        }
        match &c.slettedato {
            Some(d) => to_json(&c.enhet.slettet(d)),
            None => to_json(&c.enhet),
        }
    }

    fn roller_body(c: &Company) -> String {
        if c.slettedato.is_some() {
            return to_json(&wire::Roller::empty(&c.enhet.organisasjonsnummer));
        }
        if let Some(recorded) = c.recorded_roller {
            return recorded.to_owned();
        }
        match &c.roller {
            Some(r) => to_json(r),
            None => to_json(&wire::Roller::empty(&c.enhet.organisasjonsnummer)),
        }
    }

    fn gone_body(orgnr: &str, slettedato: &str) -> String {
        to_json(&wire::GoneEnhet {
            organisasjonsnummer: orgnr,
            slettedato,
            links: Links::own(format!("/enheter/{orgnr}")),
        })
    }

    /// `GET /enheter/{orgnr}` and `GET /enheter/{orgnr}/roller`.
    fn entity_route(
        &self,
        req: &HttpRequest,
        path: &str,
        orgnr: &str,
        roles: bool,
    ) -> HttpResponse {
        let (versioned, refused) = if roles {
            (media::ROLLE_V1, StatusCode::UNSUPPORTED_MEDIA_TYPE)
        } else {
            (media::ENHET_V2, StatusCode::NOT_ACCEPTABLE)
        };
        let Some(m) = negotiate(req, versioned) else {
            return HttpResponse::build(refused).finish();
        };
        if !nine_digits(orgnr) {
            return orgnr_error(path, orgnr);
        }
        let gone = |body: &str| json_answer(req, StatusCode::GONE, Media::Json, body);
        if orgnr == RECORDED_GONE.0 {
            return gone(RECORDED_GONE.1);
        }
        let state = lock(&self.state);
        let Some(c) = state.companies.get(orgnr) else {
            return HttpResponse::NotFound().finish();
        };
        if let Some(d) = &c.gone {
            return gone(&Self::gone_body(orgnr, d));
        }
        let body = if roles {
            Self::roller_body(c)
        } else {
            Self::enhet_body(c)
        };
        json_answer(req, StatusCode::OK, m, &body)
    }

    /// `GET /oppdateringer/enheter`.
    fn feed_route(&self, req: &HttpRequest, path: &str) -> HttpResponse {
        let Some(m) = negotiate(req, media::OPPDATERING_ENHET_V1) else {
            return HttpResponse::UnsupportedMediaType().finish();
        };
        let q = match read_feed_request(req.query_string()) {
            Ok(q) => q,
            Err(errors) => return bad_request(path, errors),
        };
        let state = lock(&self.state);
        let mut hits: Vec<&FeedEntry> = state
            .feed
            .iter()
            .filter(|e| q.dato.is_none_or(|d| e.dato >= d))
            .filter(|e| q.updated_before.is_none_or(|d| e.dato <= d))
            .filter(|e| q.oppdateringsid.is_none_or(|id| e.id >= id))
            .filter(|e| {
                q.organisasjonsnummer.is_empty() || q.organisasjonsnummer.contains(&e.orgnr)
            })
            .collect();
        if q.descending {
            hits.reverse();
        }
        let total = hits.len() as u64;
        let total_pages = total.div_ceil(q.size);
        let items: Vec<wire::Oppdatering<'_>> = hits
            .iter()
            .skip((q.page * q.size) as usize)
            .take(q.size as usize)
            .map(|e| wire::Oppdatering {
                oppdateringsid: e.id,
                dato: feed_time(e.dato),
                organisasjonsnummer: &e.orgnr,
                endringstype: &e.endringstype,
                endringer: q.include_changes.then_some(e.endringer.as_slice()),
                links: wire::FeedLinks {
                    enhet: data::enhet_href(&e.orgnr),
                },
            })
            .collect();
        let here = format!("{REAL_API}/oppdateringer/enheter");
        let link = |page: u64| Href {
            href: format!("{here}?{}", paging_query(&q.kept, page, q.size)),
        };
        let paged = total_pages > 1;
        let links = wire::PageLinks {
            first: paged.then(|| link(0)),
            prev: (paged && q.page > 0 && q.page < total_pages).then(|| link(q.page - 1)),
            self_: Href {
                href: if req.query_string().is_empty() {
                    here.clone()
                } else {
                    format!("{here}?{}", req.query_string())
                },
            },
            next: (paged && q.page + 1 < total_pages).then(|| link(q.page + 1)),
            last: paged.then(|| link(total_pages - 1)),
        };
        let page = wire::OppdateringerPage {
            embedded: (!items.is_empty()).then_some(wire::Embedded {
                oppdaterte_enheter: items,
            }),
            links,
            page: wire::Page {
                size: q.size,
                total_elements: total,
                total_pages,
                number: q.page,
            },
        };
        json_answer(req, StatusCode::OK, m, &to_json(&page))
    }

    fn list(&self, req: &HttpRequest) -> HttpResponse {
        let filters =
            actix_web::web::Query::<Vec<(String, String)>>::from_query(req.query_string())
                .map(|q| q.into_inner())
                .unwrap_or_default();
        let get = |k: &str| {
            filters
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.as_str())
        };
        let limit = get("limit")
            .and_then(|l| l.parse::<usize>().ok())
            .unwrap_or(usize::MAX);
        let companies: Vec<CompanySummary> = self
            .companies()
            .into_iter()
            .filter(|c| get("form").is_none_or(|f| c.organisasjonsform.eq_ignore_ascii_case(f)))
            .filter(|c| get("status").is_none_or(|s| c.status == s))
            .filter(|c| get("recorded").is_none_or(|r| (r == "true") == c.recorded))
            .take(limit)
            .collect();
        HttpResponse::Ok().json(serde_json::json!({ "companies": companies }))
    }
}

fn history_stamp(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S").to_string()
}

/// Applies a change to the register; the feed entries to append (type and patch).
fn apply(
    state: &mut Register,
    orgnr: &str,
    change: &CompanyChange,
) -> Result<Vec<(&'static str, Vec<Patch>)>, ChangeError> {
    let c = state
        .companies
        .get_mut(orgnr)
        .ok_or(ChangeError::UnknownCompany)?;
    if c.gone.is_some() || c.slettedato.is_some() {
        return Err(ChangeError::Final);
    }
    if change.name.is_none() && change.status.is_none() {
        return Err(ChangeError::Invalid(
            "nothing to change: give `name` and/or `status`".into(),
        ));
    }
    if change.ground.is_some() && change.status != Some(StatusChange::CompulsoryDissolution) {
        return Err(ChangeError::Invalid(
            "`ground` goes with `status: compulsory_dissolution` only".into(),
        ));
    }
    let name = match &change.name {
        Some(n) => {
            let n = n.trim();
            if n.is_empty() || n.chars().count() > 180 {
                return Err(ChangeError::Invalid("`name` is 1 to 180 characters".into()));
            }
            Some(n.to_owned())
        }
        None => None,
    };
    let now = Utc::now();
    let date = change
        .status_date
        .unwrap_or_else(|| now.date_naive())
        .format("%Y-%m-%d")
        .to_string();
    let mut entries = Vec::new();
    let e = &mut c.enhet;

    if let Some(name) = name {
        let old = std::mem::replace(&mut e.navn, name.clone());
        let from = e
            .historiske_navn
            .last()
            .map(|h| h.til_dato.clone())
            .or_else(|| {
                e.registreringsdato_enhetsregisteret
                    .as_ref()
                    .map(|d| format!("{d} 00:00:00"))
            })
            .unwrap_or_else(|| history_stamp(now));
        let previous = wire::HistoriskNavn {
            navn: old,
            fra_dato: from,
            til_dato: history_stamp(now),
        };
        let at = e.historiske_navn.len();
        e.historiske_navn.push(previous.clone());
        entries.push((
            "Endring",
            vec![
                Patch::replace("/navn", serde_json::json!(name)),
                Patch::add(
                    &format!("/historiskeNavn/{at}"),
                    serde_json::to_value(&previous).unwrap_or_default(),
                ),
            ],
        ));
    }

    if let Some(status) = change.status {
        let mut patches = Vec::new();
        let set_flag = |flag: &mut bool, path: &str, patches: &mut Vec<Patch>| {
            if !*flag {
                *flag = true;
                patches.push(Patch::replace(path, serde_json::json!(true)));
            }
        };
        let set_date = |field: &mut Option<String>, path: &str, patches: &mut Vec<Patch>| {
            let op = if field.is_some() {
                Patch::replace
            } else {
                Patch::add
            };
            *field = Some(date.clone());
            patches.push(op(path, serde_json::json!(date)));
        };
        match status {
            StatusChange::Active => {
                for (flag, path) in [
                    (&mut e.konkurs, "/konkurs"),
                    (&mut e.under_avvikling, "/underAvvikling"),
                    (
                        &mut e.under_tvangsavvikling_eller_tvangsopplosning,
                        "/underTvangsavviklingEllerTvangsopplosning",
                    ),
                ] {
                    if *flag {
                        *flag = false;
                        patches.push(Patch::replace(path, serde_json::json!(false)));
                    }
                }
                if e.konkursdato.take().is_some() {
                    patches.push(Patch::remove("/konkursdato"));
                }
                if e.under_avvikling_dato.take().is_some() {
                    patches.push(Patch::remove("/underAvviklingDato"));
                }
                for g in Ground::ALL {
                    if g.field(e).take().is_some() {
                        patches.push(Patch::remove(g.path()));
                    }
                }
                entries.push(("Endring", patches));
            }
            StatusChange::Bankrupt => {
                set_flag(&mut e.konkurs, "/konkurs", &mut patches);
                set_date(&mut e.konkursdato, "/konkursdato", &mut patches);
                entries.push(("Endring", patches));
                let has_trustee = c
                    .roller
                    .as_ref()
                    .is_some_and(|r| r.rollegrupper.iter().any(|g| g.gruppetype.kode == "BOBE"));
                if !has_trustee {
                    let seed = orgnr
                        .bytes()
                        .fold(7u64, |h, b| h.wrapping_mul(31) ^ u64::from(b));
                    let roller = c.roller.get_or_insert_with(|| wire::Roller::empty(orgnr));
                    roller.rollegrupper.push(data::trustee_group(seed, &date));
                    c.recorded_roller = None;
                }
            }
            StatusChange::WindingUp => {
                set_flag(&mut e.under_avvikling, "/underAvvikling", &mut patches);
                set_date(
                    &mut e.under_avvikling_dato,
                    "/underAvviklingDato",
                    &mut patches,
                );
                entries.push(("Endring", patches));
            }
            StatusChange::CompulsoryDissolution => {
                let ground = change.ground.unwrap_or(Ground::ManglendeRegnskap);
                set_flag(
                    &mut e.under_tvangsavvikling_eller_tvangsopplosning,
                    "/underTvangsavviklingEllerTvangsopplosning",
                    &mut patches,
                );
                set_date(ground.field(e), ground.path(), &mut patches);
                entries.push(("Endring", patches));
            }
            StatusChange::Deleted => {
                c.slettedato = Some(date.clone());
                entries.push(("Sletting", Vec::new()));
            }
            StatusChange::Gone => {
                c.gone = Some(date.clone());
                entries.push(("Fjernet", Vec::new()));
            }
        }
    }
    c.recorded = None;
    Ok(entries)
}

impl SandboxPlugin for BrregSandbox {
    fn name(&self) -> &'static str {
        NAME
    }

    fn error(&self) -> fn(StatusCode, &HttpRequest) -> HttpResponse {
        server_error
    }

    fn answer(&self, req: &HttpRequest, path: &str, _body: &[u8]) -> HttpResponse {
        if req.method() != Method::GET {
            let mut r = spring_error(StatusCode::METHOD_NOT_ALLOWED, path);
            r.headers_mut().insert(
                ALLOW,
                actix_web::http::header::HeaderValue::from_static("GET"),
            );
            return r;
        }
        let rest = path
            .strip_prefix(API_PATH)
            .unwrap_or("")
            .trim_end_matches('/');
        let segments: Vec<&str> = rest.split('/').skip(1).collect();
        match segments.as_slice() {
            ["enheter", orgnr] => self.entity_route(req, path, orgnr, false),
            ["enheter", orgnr, "roller"] => self.entity_route(req, path, orgnr, true),
            ["oppdateringer", "enheter"] => self.feed_route(req, path),
            _ => spring_error(StatusCode::NOT_FOUND, path),
        }
    }

    fn control(&self, req: &HttpRequest, path: &str, body: &[u8]) -> HttpResponse {
        let segments: Vec<&str> = path
            .trim_matches('/')
            .split('/')
            .filter(|s| !s.is_empty())
            .collect();
        let method = req.method();
        match (method, segments.as_slice()) {
            (&Method::GET, ["companies"]) => self.list(req),
            (&Method::GET, ["companies", orgnr]) => match self.company(orgnr) {
                Some(c) => HttpResponse::Ok().json(c),
                None => HttpResponse::NotFound()
                    .json(serde_json::json!({ "error": ChangeError::UnknownCompany.to_string() })),
            },
            (&Method::POST, ["companies", orgnr]) => {
                let change: CompanyChange = match serde_json::from_slice(body) {
                    Ok(c) => c,
                    Err(e) => {
                        return HttpResponse::BadRequest()
                            .json(serde_json::json!({ "error": format!("not a change: {e}") }))
                    }
                };
                match self.change(orgnr, &change) {
                    Ok(outcome) => HttpResponse::Ok().json(outcome),
                    Err(e) => {
                        let status = match e {
                            ChangeError::UnknownCompany => StatusCode::NOT_FOUND,
                            ChangeError::Invalid(_) => StatusCode::BAD_REQUEST,
                            ChangeError::Final => StatusCode::CONFLICT,
                        };
                        HttpResponse::build(status)
                            .json(serde_json::json!({ "error": e.to_string() }))
                    }
                }
            }
            (&Method::GET, ["handy"]) => HttpResponse::Ok().json(self.handy()),
            (&Method::GET, ["feed"]) => {
                let state = lock(&self.state);
                HttpResponse::Ok().json(serde_json::json!({
                    "last_oppdateringsid": state.feed.last().map_or(0, |e| e.id),
                    "entries": state.feed.len(),
                }))
            }
            _ => HttpResponse::NotFound()
                .json(serde_json::json!({ "error": "no such control route" })),
        }
    }

    fn reset(&self) {
        *lock(&self.state) = self.initial.clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys of a JSON text in the order they are written.
    fn keys_in_order(text: &str) -> Vec<String> {
        let mut keys = Vec::new();
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'"' {
                let start = i + 1;
                let mut j = start;
                while j < bytes.len() && bytes[j] != b'"' {
                    if bytes[j] == b'\\' {
                        j += 1;
                    }
                    j += 1;
                }
                let mut k = j + 1;
                while k < bytes.len() && bytes[k].is_ascii_whitespace() {
                    k += 1;
                }
                if k < bytes.len() && bytes[k] == b':' {
                    keys.push(text[start..j].to_owned());
                }
                i = j + 1;
            } else {
                i += 1;
            }
        }
        keys
    }

    #[test]
    fn recorded_entities_round_trip_through_the_wire_structs_in_the_wires_order() {
        for body in data::RECORDED_ENTITIES_FOR_TESTS {
            let mut e: wire::Enhet = serde_json::from_str(body).expect("reads");
            let written = match e.slettedato.take() {
                Some(d) => to_json(&e.slettet(&d)),
                None => to_json(&e),
            };
            let a: serde_json::Value = serde_json::from_str(body).unwrap();
            let b: serde_json::Value = serde_json::from_str(&written).unwrap();
            assert_eq!(a, b, "{}", e.organisasjonsnummer);
            assert_eq!(
                keys_in_order(body),
                keys_in_order(&written),
                "{}",
                e.organisasjonsnummer
            );
        }
    }

    #[test]
    fn recorded_roles_round_trip_through_the_wire_structs_in_the_wires_order() {
        for body in data::RECORDED_ROLES_FOR_TESTS {
            let r: wire::Roller = serde_json::from_str(body).expect("reads");
            let written = to_json(&r);
            let a: serde_json::Value = serde_json::from_str(body).unwrap();
            let b: serde_json::Value = serde_json::from_str(&written).unwrap();
            assert_eq!(a, b);
            assert_eq!(keys_in_order(body), keys_in_order(&written));
        }
    }

    #[test]
    fn error_bodies_are_the_documented_ones() {
        let sample = include_str!("../testdata/errors/error-400-invalid-orgnr.docs-example.json");
        let written = to_json(&bad_request_body(
            "/enhetsregisteret/api/enheter/9ECD01011/roller",
            vec![orgnr_feil("9ECD01011")],
        ));
        assert_eq!(keys_in_order(sample), keys_in_order(&written));
        let mut want: serde_json::Value = serde_json::from_str(sample).unwrap();
        let got: serde_json::Value = serde_json::from_str(&written).unwrap();
        // Everything but the time stamp is the documented answer.
        want["tidsstempel"] = got["tidsstempel"].clone();
        assert_eq!(got, want);

        let sample = include_str!("../testdata/errors/error-500.docs-example.json");
        let written = to_json(&spring_body(
            StatusCode::INTERNAL_SERVER_ERROR,
            "/enhetsregisteret/api/enheter/999999999/roller",
        ));
        assert_eq!(keys_in_order(sample), keys_in_order(&written));
        let want: serde_json::Value = serde_json::from_str(sample).unwrap();
        let got: serde_json::Value = serde_json::from_str(&written).unwrap();
        for key in ["status", "error", "message", "path"] {
            assert_eq!(got[key], want[key], "{key}");
        }
        // The same time stamp format (`2021-05-28T11:34:33.435+0000`) and trace shape.
        let stamp = got["timestamp"].as_str().unwrap();
        assert_eq!(stamp.len(), want["timestamp"].as_str().unwrap().len());
        assert!(chrono::DateTime::parse_from_str(stamp, "%Y-%m-%dT%H:%M:%S%.3f%z").is_ok());
        assert_eq!(
            got["trace"].as_str().unwrap().len(),
            want["trace"].as_str().unwrap().len()
        );

        let sample = include_str!("../testdata/errors/gone-410-enhet.reconstructed.json");
        let written = BrregSandbox::gone_body("509100675", "2024-03-09");
        assert_eq!(keys_in_order(sample), keys_in_order(&written));
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(sample).unwrap(),
            serde_json::from_str::<serde_json::Value>(&written).unwrap()
        );
    }

    #[test]
    fn a_feed_request_is_checked_like_the_registers() {
        let q = read_feed_request(
            "dato=2026-09-20T00:00:00.000Z&organisasjonsnummer=984851006,923609016&includeChanges=true&size=100&sort=id,DESC",
        )
        .ok()
        .unwrap();
        assert_eq!(q.organisasjonsnummer.len(), 2);
        assert!(q.include_changes && q.descending);
        assert_eq!(q.size, 100);
        let e = read_feed_request("size=0&oppdateringsid=0&dato=yesterday&sort=navn")
            .err()
            .unwrap();
        assert_eq!(e.len(), 4);
        let e = read_feed_request("page=2&size=5000").err().unwrap();
        assert_eq!(e[0].parametere, ["page"]);
        assert_eq!(
            paging_query(&[("sort".into(), "id,ASC".into())], 1, 50),
            "sort=id,ASC&page=1&size=50"
        );
    }

    #[test]
    fn changes_are_refused_when_empty_invalid_or_final() {
        let sb = BrregSandbox::standard();
        let h = sb.handy();
        assert_eq!(
            sb.change(&h.active_as, &CompanyChange::default()),
            Err(ChangeError::Invalid(
                "nothing to change: give `name` and/or `status`".into()
            ))
        );
        let blank = CompanyChange {
            name: Some("  ".into()),
            ..CompanyChange::default()
        };
        assert!(matches!(
            sb.change(&h.active_as, &blank),
            Err(ChangeError::Invalid(_))
        ));
        let gone = CompanyChange {
            status: Some(StatusChange::Active),
            ..CompanyChange::default()
        };
        assert_eq!(sb.change(&h.deleted, &gone), Err(ChangeError::Final));
        assert_eq!(sb.change(&h.gone, &gone), Err(ChangeError::Final));
        assert_eq!(
            sb.change(&h.unknown, &gone),
            Err(ChangeError::UnknownCompany)
        );
        let stray_ground = CompanyChange {
            status: Some(StatusChange::Bankrupt),
            ground: Some(Ground::ManglendeRevisor),
            ..CompanyChange::default()
        };
        assert!(matches!(
            sb.change(&h.active_as, &stray_ground),
            Err(ChangeError::Invalid(_))
        ));
    }

    #[test]
    fn a_change_updates_the_entity_its_roles_and_the_feed_and_reset_undoes_it() {
        let sb = BrregSandbox::standard();
        let h = sb.handy();
        let before = sb.last_oppdateringsid();
        let out = sb
            .change(
                &h.recorded_active,
                &CompanyChange {
                    name: Some("EKSEMPEL ENERGI ASA".into()),
                    status: Some(StatusChange::Bankrupt),
                    status_date: NaiveDate::from_ymd_opt(2026, 11, 2),
                    ground: None,
                },
            )
            .unwrap();
        assert_eq!(out.oppdateringer, [before + 1, before + 2]);
        assert_eq!(out.company.status, "bankrupt");
        assert_eq!(out.company.status_date.as_deref(), Some("2026-11-02"));
        let e = sb.enhet_json(&h.recorded_active).unwrap();
        assert_eq!(e["navn"], "EKSEMPEL ENERGI ASA");
        assert_eq!(e["konkurs"], true);
        assert_eq!(e["konkursdato"], "2026-11-02");
        assert_eq!(e["historiskeNavn"][4]["navn"], "EQUINOR ASA");
        let r = sb.roller_json(&h.recorded_active).unwrap();
        let groups = r["rollegrupper"].as_array().unwrap();
        assert_eq!(groups.last().unwrap()["type"]["kode"], "BOBE");

        let back = sb
            .change(
                &h.recorded_active,
                &CompanyChange {
                    status: Some(StatusChange::Active),
                    ..CompanyChange::default()
                },
            )
            .unwrap();
        assert_eq!(back.company.status, "active");
        let e = sb.enhet_json(&h.recorded_active).unwrap();
        assert_eq!(e["konkurs"], false);
        assert!(e.get("konkursdato").is_none());

        sb.reset();
        assert_eq!(sb.last_oppdateringsid(), before);
        assert_eq!(
            sb.enhet_json(&h.recorded_active).unwrap()["navn"],
            "EQUINOR ASA"
        );
    }

    #[test]
    fn trace_ids_are_uuid_shaped_and_distinct() {
        let a = trace_id();
        let b = trace_id();
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(
            a.split('-').map(str::len).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
    }
}
