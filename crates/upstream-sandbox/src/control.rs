//! The control API (`/control`, loopback peers only) and its in-process twin
//! [`SandboxControl`]: scripted data changes, fault injection, reset, and the call log.

use crate::data::{
    avregistreringsorsak, proceeding, sni_klartext, Company, CompanyStatus, Dataset, KodKlartext,
    LegalForm, LtCompany, NameEntry, Postadress, ScbRecord, TaxRecord, LT_STATUSES, SCB_INFORT,
};
use crate::faults::{ArmedFault, CallRecord, FaultSpec, Source};
use crate::model::ModelRequestRecord;
use crate::state::{MailboxMessage, SandboxState};
use crate::CONTROL_PREFIX;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::SocketAddr;

/// Why a control operation was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    #[error("no company with identitetsbeteckning {0}")]
    UnknownCompany(String),
    #[error("no Lithuanian company with code {0}")]
    UnknownLtCompany(u32),
    #[error("invalid request: {0}")]
    Invalid(String),
    #[error("conflict: {0}")]
    Conflict(String),
}

impl ControlError {
    fn response(&self) -> HttpResponse {
        let body = json!({ "error": self.to_string() });
        match self {
            ControlError::UnknownCompany(_) | ControlError::UnknownLtCompany(_) => {
                HttpResponse::NotFound().json(body)
            }
            ControlError::Invalid(_) => HttpResponse::BadRequest().json(body),
            ControlError::Conflict(_) => HttpResponse::Conflict().json(body),
        }
    }
}

/// A postal address change (absent fields keep their value; `""` clears co/land).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddressPatch {
    pub utdelningsadress: Option<String>,
    pub postnummer: Option<String>,
    pub postort: Option<String>,
    #[serde(alias = "coAdress")]
    pub co_adress: Option<String>,
    pub land: Option<String>,
}

/// An SNI code: `"62010"` (klartext looked up) or `{"kod": "...", "klartext": "..."}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SniPatch {
    Code(String),
    Full(KodKlartext),
}

/// Tax registration changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaxPatch {
    pub f_skatt: Option<bool>,
    pub moms: Option<bool>,
    pub arbetsgivare: Option<bool>,
}

/// A scripted change to a Swedish company (`POST /control/companies/{id}`).
///
/// Bolagsverket fields apply to every business of a sole trader unless
/// `namnskyddslopnummer` picks one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompanyPatch {
    /// New registered name (Bolagsverket FORETAGSNAMN and SCB's name).
    pub name: Option<String>,
    /// `active`, `deregistered`, `liquidation` or `bankruptcy`.
    pub status: Option<CompanyStatus>,
    /// Date of the status change or name registration (`YYYY-MM-DD`, default today).
    pub status_date: Option<String>,
    /// `avregistreringsorsak` code for `deregistered` (default `AVREG`, `KKAV` after a
    /// bankruptcy, `LIAV` after a liquidation).
    pub deregistration_reason: Option<String>,
    pub address: Option<AddressPatch>,
    /// SCB's SNI list (main first, at most 5 are sent).
    pub sni: Option<Vec<SniPatch>>,
    pub tax: Option<TaxPatch>,
    /// SCB employee size class code (`Stkl, kod`, 1..=16).
    pub employees_class: Option<String>,
    pub namnskyddslopnummer: Option<u32>,
    /// `false`: SCB forgets the company (missing at SCB); `true`: SCB learns it.
    pub at_scb: Option<bool>,
    /// The signatory rule's new text (firmateckning), as the company information API serves it.
    pub signatory_text: Option<String>,
    /// An officer leaves: every role of the person with this personal or coordination
    /// number (12 digits) is removed.
    pub remove_officer: Option<String>,
    /// An officer joins (or takes another role).
    pub add_officer: Option<OfficerPatch>,
}

/// An officer a scripted change adds (`add_officer`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OfficerPatch {
    pub fornamn: String,
    pub efternamn: String,
    /// A personal or coordination number (12 digits).
    pub nummer: String,
    /// A role code of the register (`LE`, `VD`, `OF`, ...).
    pub role: String,
}

/// A scripted change to a Lithuanian company (`POST /control/lt/companies/{code}`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LtPatch {
    pub name: Option<String>,
    /// JAR status code (0, 5, 6, 7, 10).
    pub statusas: Option<u32>,
    pub status_date: Option<String>,
    pub address: Option<String>,
}

fn valid_date(s: &str) -> Result<(), ControlError> {
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .map(|_| ())
        .map_err(|_| ControlError::Invalid(format!("not a YYYY-MM-DD date: {s}")))
}

fn today() -> String {
    chrono::Utc::now().format("%Y-%m-%d").to_string()
}

/// Applies a patch to a company.
pub fn apply_patch(c: &mut Company, p: &CompanyPatch) -> Result<(), ControlError> {
    let date = match &p.status_date {
        Some(d) => {
            valid_date(d)?;
            d.clone()
        }
        None => today(),
    };
    let targets: Vec<usize> = c
        .registrations
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            p.namnskyddslopnummer
                .is_none_or(|n| r.namnskyddslopnummer == Some(n))
        })
        .map(|(i, _)| i)
        .collect();
    if let Some(n) = p.namnskyddslopnummer {
        if targets.is_empty() {
            return Err(ControlError::Invalid(format!(
                "no business with namnskyddslopnummer {n}"
            )));
        }
    }
    if let Some(ec) = &p.employees_class {
        if !ec.parse::<u32>().is_ok_and(|n| (1..=16).contains(&n)) {
            return Err(ControlError::Invalid(
                "employees_class must be a size class code 1..=16".into(),
            ));
        }
    }
    if (p.sni.is_some() || p.employees_class.is_some()) && c.scb.is_none() && p.at_scb != Some(true)
    {
        return Err(ControlError::Conflict(
            "the company is missing at SCB (send \"at_scb\": true first)".into(),
        ));
    }

    // SCB presence first, so the other fields can land on it.
    match p.at_scb {
        Some(false) => c.scb = None,
        Some(true) if c.scb.is_none() => c.scb = Some(scb_from_registration(c)),
        _ => {}
    }

    if let Some(name) = &p.name {
        for &i in &targets {
            let r = &mut c.registrations[i];
            match r
                .names
                .iter_mut()
                .find(|n| n.typ.as_ref().is_some_and(|t| t.kod == "FORETAGSNAMN"))
            {
                Some(n) => {
                    n.namn = name.clone();
                    n.registreringsdatum = Some(date.clone());
                }
                None => r
                    .names
                    .insert(0, NameEntry::foretagsnamn(name, Some(&date))),
            }
        }
        let first_targeted = targets.first().is_none_or(|&i| i == 0);
        if let Some(s) = c.scb.as_mut() {
            if first_targeted {
                s.namn = name.clone();
            }
        }
    }

    if let Some(status) = p.status {
        for &i in &targets {
            let r = &mut c.registrations[i];
            let was = r.status();
            r.deregistration = None;
            r.proceedings.clear();
            match status {
                CompanyStatus::Active => {}
                CompanyStatus::Deregistered => {
                    let kod = p.deregistration_reason.clone().unwrap_or_else(|| {
                        match was {
                            CompanyStatus::Bankruptcy => "KKAV",
                            CompanyStatus::Liquidation => "LIAV",
                            _ => "AVREG",
                        }
                        .to_owned()
                    });
                    r.deregistration = Some(crate::data::Deregistration {
                        datum: date.clone(),
                        orsak: avregistreringsorsak(&kod),
                    });
                }
                CompanyStatus::Liquidation => r.proceedings.push(proceeding("LI", &date)),
                CompanyStatus::Bankruptcy => r.proceedings.push(proceeding("KK", &date)),
            }
        }
        let verksam = if c.registrations.is_empty() {
            status != CompanyStatus::Deregistered
        } else {
            c.registrations
                .iter()
                .any(|r| r.status() != CompanyStatus::Deregistered)
        };
        if let Some(s) = c.scb.as_mut() {
            s.verksam = verksam;
        }
    }

    if let Some(a) = &p.address {
        let upd = |pa: &mut Postadress, scb: bool| {
            if let Some(v) = &a.utdelningsadress {
                pa.utdelningsadress = Some(v.clone());
            }
            if let Some(v) = &a.postnummer {
                pa.postnummer = Some(v.clone());
            }
            if let Some(v) = &a.postort {
                pa.postort = Some(v.clone());
            }
            if let Some(v) = &a.co_adress {
                pa.co_adress = if v.is_empty() && !scb {
                    None
                } else {
                    Some(v.clone())
                };
            }
            if let Some(v) = &a.land {
                if !scb {
                    pa.land = (!v.is_empty()).then(|| v.clone());
                }
            }
        };
        for &i in &targets {
            let r = &mut c.registrations[i];
            let pa = r.postadress.get_or_insert(Postadress {
                utdelningsadress: None,
                postnummer: None,
                postort: None,
                co_adress: None,
                land: None,
            });
            upd(pa, false);
        }
        if let Some(s) = c.scb.as_mut() {
            upd(&mut s.postadress, true);
        }
    }

    if let Some(list) = &p.sni {
        let sni: Vec<KodKlartext> = list
            .iter()
            .map(|x| match x {
                SniPatch::Code(k) => KodKlartext::new(k, sni_klartext(k).unwrap_or("")),
                SniPatch::Full(k) => k.clone(),
            })
            .collect();
        if sni
            .iter()
            .any(|k| k.kod.len() != 5 || !k.kod.bytes().all(|b| b.is_ascii_digit()))
        {
            return Err(ControlError::Invalid("SNI codes have 5 digits".into()));
        }
        if let Some(s) = c.scb.as_mut() {
            s.sni = sni;
        }
    }

    if let Some(t) = p.tax {
        let cur = c.tax.get_or_insert(TaxRecord {
            f_skatt: false,
            moms: false,
            arbetsgivare: false,
        });
        if let Some(v) = t.f_skatt {
            cur.f_skatt = v;
        }
        if let Some(v) = t.moms {
            cur.moms = v;
        }
        if let Some(v) = t.arbetsgivare {
            cur.arbetsgivare = v;
        }
    }

    if let Some(ec) = &p.employees_class {
        if let Some(s) = c.scb.as_mut() {
            s.employees_class = ec.clone();
        }
    }
    apply_roles_patch(c, p, &date)
}

/// The officers and signatory rule of a scripted change.
fn apply_roles_patch(c: &mut Company, p: &CompanyPatch, date: &str) -> Result<(), ControlError> {
    use crate::data::{Officer, PartyId, PersonName, Role, Signatory, ROLE_CODES};
    if let Some(add) = &p.add_officer {
        let klartext = ROLE_CODES
            .iter()
            .find(|(k, _)| *k == add.role)
            .map(|(_, t)| *t)
            .ok_or_else(|| ControlError::Invalid(format!("unknown role code {}", add.role)))?;
        if add.nummer.len() != 12 || !add.nummer.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ControlError::Invalid("nummer must be 12 digits".into()));
        }
        let day: u32 = add.nummer[6..8].parse().unwrap_or(0);
        let typ = if day > 60 {
            "SAMORDNINGSNUMMER"
        } else {
            "PERSONNUMMER"
        };
        c.officers.push(Officer {
            person: Some(PersonName {
                fornamn: add.fornamn.clone(),
                efternamn: add.efternamn.clone(),
            }),
            organisation_name: None,
            identitet: Some(PartyId {
                typ: typ.into(),
                nummer: add.nummer.clone(),
            }),
            roles: vec![Role {
                kod: add.role.clone(),
                klartext: klartext.into(),
                registreringsdatum: Some(date.to_owned()),
            }],
        });
    }
    if let Some(nummer) = &p.remove_officer {
        let before = c.officers.len();
        c.officers
            .retain(|o| o.identitet.as_ref().is_none_or(|i| &i.nummer != nummer));
        if c.officers.len() == before {
            return Err(ControlError::Invalid("no officer with that number".into()));
        }
    }
    if let Some(text) = &p.signatory_text {
        match c.signatory.as_mut() {
            Some(s) => s.klartext = text.clone(),
            None => {
                c.signatory = Some(Signatory {
                    klartext: text.clone(),
                    prokuratext: None,
                })
            }
        }
    }
    Ok(())
}

fn scb_from_registration(c: &Company) -> ScbRecord {
    let r = c.registrations.first();
    let pa = r.and_then(|r| r.postadress.clone());
    ScbRecord {
        namn: c.name().unwrap_or("").to_owned(),
        juridisk_form: c.legal_form.scb_juridisk_form(),
        sni: Vec::new(),
        registreringsdatum: r.and_then(|r| r.registreringsdatum.clone()),
        infort_hos_scb: Some(SCB_INFORT.into()),
        verksam: c.status() != CompanyStatus::Deregistered,
        reklamsparr: false,
        postadress: Postadress {
            utdelningsadress: pa.as_ref().and_then(|p| p.utdelningsadress.clone()),
            postnummer: pa.as_ref().and_then(|p| p.postnummer.clone()),
            postort: pa.as_ref().and_then(|p| p.postort.clone()),
            co_adress: Some(pa.and_then(|p| p.co_adress).unwrap_or_default()),
            land: None,
        },
        seat: None,
        employees_class: "1".into(),
        workplaces: 1,
    }
}

/// Applies a patch to a Lithuanian company.
pub fn apply_lt_patch(c: &mut LtCompany, p: &LtPatch) -> Result<(), ControlError> {
    let date = match &p.status_date {
        Some(d) => {
            valid_date(d)?;
            d.clone()
        }
        None => today(),
    };
    if let Some(s) = p.statusas {
        if !LT_STATUSES.iter().any(|x| x.0 == s) {
            return Err(ControlError::Invalid(format!(
                "statusas must be one of {:?}",
                LT_STATUSES.iter().map(|x| x.0).collect::<Vec<_>>()
            )));
        }
        c.statusas = s;
        c.stat_data = (s != 0).then(|| date.clone());
        c.isreg_data = (s == 10).then(|| date.clone());
    }
    if let Some(n) = &p.name {
        c.ja_pavadinimas = n.clone();
    }
    if let Some(a) = &p.address {
        c.pilnas_adresas = (!a.is_empty()).then(|| a.clone());
    }
    Ok(())
}

/// In-process control of a running sandbox (what `/control` does, without HTTP).
#[derive(Clone)]
pub struct SandboxControl {
    pub(crate) state: web::Data<SandboxState>,
}

impl SandboxControl {
    /// Arms a fault for a source (replacing any armed one).
    pub fn inject_fault(&self, source: Source, spec: FaultSpec) -> Result<(), ControlError> {
        let upstream = self
            .state
            .upstream(source)
            .ok_or_else(|| ControlError::Invalid(format!("no source {source} is served here")))?;
        self.state
            .faults
            .arm(upstream, spec)
            .map_err(ControlError::Invalid)
    }

    pub fn clear_fault(&self, source: Source) {
        self.state.faults.disarm(source);
    }

    /// Puts a mail in the mailbox.
    pub fn deliver_mail(&self, mail: MailboxMessage) {
        self.state
            .mailbox
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(mail);
    }

    /// The mail to an address (compared without case), oldest first.
    pub fn mailbox(&self, to: &str) -> Vec<MailboxMessage> {
        self.state
            .mailbox
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter(|m| m.to.eq_ignore_ascii_case(to))
            .cloned()
            .collect()
    }

    pub fn clear_faults(&self) {
        self.state.faults.disarm_all();
    }

    /// The armed faults.
    pub fn faults(&self) -> Vec<ArmedFault> {
        self.state.faults.armed()
    }

    /// Applies a scripted change; returns the company as it now is.
    pub fn patch_company(&self, id: &str, patch: &CompanyPatch) -> Result<Company, ControlError> {
        let mut ds = self.state.write();
        let c = ds
            .company_mut(id)
            .ok_or_else(|| ControlError::UnknownCompany(id.to_owned()))?;
        let mut updated = c.clone();
        apply_patch(&mut updated, patch)?;
        *c = updated.clone();
        Ok(updated)
    }

    pub fn patch_lt_company(&self, code: u32, patch: &LtPatch) -> Result<LtCompany, ControlError> {
        let mut ds = self.state.write();
        let c = ds
            .lt_company_mut(code)
            .ok_or(ControlError::UnknownLtCompany(code))?;
        let mut updated = c.clone();
        apply_lt_patch(&mut updated, patch)?;
        *c = updated.clone();
        Ok(updated)
    }

    /// Adds or replaces a whole company.
    pub fn upsert_company(&self, company: Company) {
        self.state.write().insert(company);
    }

    /// Data set and faults back to the start, the call log, the model's script and its
    /// recorded requests emptied (tokens stay valid).
    pub fn reset(&self) {
        self.state.reset();
    }

    /// A snapshot of the current data set.
    pub fn dataset(&self) -> Dataset {
        self.state.read().clone()
    }

    /// Every logged call, oldest first.
    pub fn calls(&self) -> Vec<CallRecord> {
        self.state.faults.calls(None)
    }

    pub fn calls_for(&self, source: Source) -> Vec<CallRecord> {
        self.state.faults.calls(Some(source))
    }

    pub fn clear_calls(&self) {
        self.state.faults.clear_calls();
    }

    /// Invalidates every issued VDM access token.
    pub fn revoke_tokens(&self) {
        self.state.revoke_tokens();
    }

    /// Appends turns to the language model's script (the format of
    /// `POST /control/model/script`). Each turn is checked first: when one is invalid, none
    /// is added.
    pub fn model_script(&self, turns: Vec<Value>) -> Result<(), ControlError> {
        self.state
            .model
            .append_script(turns)
            .map_err(ControlError::Invalid)
    }

    /// The scripted turns not yet used, next first.
    pub fn model_script_remaining(&self) -> Vec<Value> {
        self.state.model.script()
    }

    /// The bodies of the requests the language model accepted, oldest first.
    pub fn model_requests(&self) -> Vec<Value> {
        self.state
            .model
            .requests()
            .into_iter()
            .map(|r| r.body)
            .collect()
    }

    /// The requests the language model accepted, with the time each was received.
    pub fn model_request_records(&self) -> Vec<ModelRequestRecord> {
        self.state.model.requests()
    }

    /// Empties the language model's script and forgets its recorded requests.
    pub fn clear_model(&self) {
        self.state.model.clear_script();
        self.state.model.clear_requests();
    }
}

// ---------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------

/// True when the peer is on the loopback interface (IPv4, IPv6, or IPv4-mapped IPv6).
pub fn is_loopback_peer(peer: Option<SocketAddr>) -> bool {
    match peer {
        Some(SocketAddr::V4(a)) => a.ip().is_loopback(),
        Some(SocketAddr::V6(a)) => {
            a.ip().is_loopback() || a.ip().to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
        None => false,
    }
}

fn guard(req: &HttpRequest) -> Result<(), Box<HttpResponse>> {
    if is_loopback_peer(req.peer_addr()) {
        Ok(())
    } else {
        Err(Box::new(HttpResponse::Forbidden().json(
            json!({ "error": "the control API answers loopback peers only" }),
        )))
    }
}

fn ctl(state: &web::Data<SandboxState>) -> SandboxControl {
    SandboxControl {
        state: state.clone(),
    }
}

pub(crate) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope(CONTROL_PREFIX)
            .service(web::resource(["", "/"]).route(web::get().to(index)))
            .service(web::resource("/companies").route(web::get().to(list_companies)))
            .service(
                web::resource("/companies/{id}")
                    .route(web::get().to(get_company))
                    .route(web::post().to(patch_company)),
            )
            .service(web::resource("/lt/companies").route(web::get().to(list_lt)))
            .service(
                web::resource("/lt/companies/{code}")
                    .route(web::get().to(get_lt))
                    .route(web::post().to(patch_lt)),
            )
            .service(
                web::resource("/faults")
                    .route(web::get().to(list_faults))
                    .route(web::delete().to(clear_faults)),
            )
            .service(
                web::resource("/faults/{source}")
                    .route(web::post().to(arm_fault))
                    .route(web::delete().to(clear_fault)),
            )
            .service(web::resource("/reset").route(web::post().to(reset)))
            .service(web::resource("/plugins/{name}/{rest:.*}").to(plugin_control))
            .service(
                web::resource("/calls")
                    .route(web::get().to(calls))
                    .route(web::delete().to(clear_calls)),
            )
            .service(web::resource("/tokens").route(web::delete().to(revoke_tokens)))
            .service(
                web::resource("/mailbox")
                    .route(web::post().to(deliver_mail))
                    .route(web::get().to(read_mailbox)),
            )
            .service(
                web::resource("/model/script")
                    .route(web::post().to(append_model_script))
                    .route(web::get().to(model_script))
                    .route(web::delete().to(clear_model_script)),
            )
            .service(
                web::resource("/model/requests")
                    .route(web::get().to(model_requests))
                    .route(web::delete().to(clear_model_requests)),
            )
            .default_service(web::to(not_found)),
    );
}

/// `POST /_control/mailbox` `{to, subject, text}`: the mail server of the demo and the tests.
async fn deliver_mail(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    mail: web::Json<MailboxMessage>,
) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    ctl(&state).deliver_mail(mail.into_inner());
    HttpResponse::NoContent().finish()
}

/// `GET /_control/mailbox?to=<address>`: the mail to an address, oldest first.
async fn read_mailbox(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    q: web::Query<HashMap<String, String>>,
) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    let Some(to) = q.get("to") else {
        return HttpResponse::BadRequest().json(json!({ "error": "name the address: ?to=" }));
    };
    let messages = ctl(&state).mailbox(to);
    // A browser (the demo's user) gets a page with the links to click; anything else JSON.
    let wants_page = req
        .headers()
        .get(actix_web::http::header::ACCEPT)
        .and_then(|a| a.to_str().ok())
        .is_some_and(|a| a.contains("text/html"));
    if wants_page {
        use askama::Template;
        let page = MailboxPage {
            to,
            messages: messages
                .iter()
                .rev()
                .map(|m| MailView {
                    subject: &m.subject,
                    text: &m.text,
                    links: m
                        .text
                        .split_whitespace()
                        .filter(|w| w.starts_with("http://") || w.starts_with("https://"))
                        .collect(),
                })
                .collect(),
        };
        return match page.render() {
            Ok(html) => HttpResponse::Ok()
                .content_type("text/html; charset=utf-8")
                .insert_header(("cache-control", "no-store"))
                .body(html),
            Err(_) => HttpResponse::InternalServerError().finish(),
        };
    }
    HttpResponse::Ok().json(json!({ "messages": messages }))
}

struct MailView<'a> {
    subject: &'a str,
    text: &'a str,
    links: Vec<&'a str>,
}

#[derive(askama::Template)]
#[template(path = "mailbox.html")]
struct MailboxPage<'a> {
    to: &'a str,
    messages: Vec<MailView<'a>>,
}

async fn not_found(req: HttpRequest) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    HttpResponse::NotFound().json(json!({ "error": "no such control endpoint" }))
}

async fn index(state: web::Data<SandboxState>, req: HttpRequest) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    let base = state.base().to_owned();
    let mut index = crate::urls_json(&base);
    index["model_control"] = json!({
        "script": format!("{base}{CONTROL_PREFIX}/model/script"),
        "requests": format!("{base}{CONTROL_PREFIX}/model/requests"),
        "messages": format!("{base}{}{}", crate::MODEL_PREFIX, crate::model::MESSAGES_PATH),
        "turns": [
            {"text": "an answer (stop_reason end_turn)"},
            {"tool_calls": [{"name": "get_company_profile", "input": {"orgnr": "5560021361"}}],
             "text": "optional preface (stop_reason tool_use)"},
            {"truncated_tool": {"name": "get_company_profile", "input_prefix": "{\"orgnr\": \"55"}},
            {"status": 429, "retry_after": 5},
            {"stream_error": "overloaded_error"},
            {"cut_off": true},
            {"text": "with timing", "stall_ms": 0, "stall_after_start_ms": 0, "delay_ms": 5},
        ],
        "default": "with an empty script: tool_result in the last user message -> a summary \
            citing every call_ref; an organisation number and get_company_profile offered -> \
            calls it (and get_officers/get_signatories when asked who signs); an idr_ ref and \
            get_person_profile offered -> calls it; else a help text",
    });
    HttpResponse::Ok().json(index)
}

/// `POST /control/model/script`: appends a JSON array of turns (or one turn); answers the
/// whole script left.
async fn append_model_script(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    let turns = match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Array(turns)) => turns,
        Ok(turn @ Value::Object(_)) => vec![turn],
        Ok(_) => {
            return ControlError::Invalid("send a JSON array of turns".into()).response();
        }
        Err(e) => return ControlError::Invalid(e.to_string()).response(),
    };
    match ctl(&state).model_script(turns) {
        Ok(()) => HttpResponse::Ok().json(ctl(&state).model_script_remaining()),
        Err(e) => e.response(),
    }
}

/// `GET /control/model/script`: the turns not yet used, next first.
async fn model_script(state: web::Data<SandboxState>, req: HttpRequest) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    HttpResponse::Ok().json(ctl(&state).model_script_remaining())
}

async fn clear_model_script(state: web::Data<SandboxState>, req: HttpRequest) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    state.model.clear_script();
    HttpResponse::NoContent().finish()
}

/// `GET /control/model/requests`: `[{"received_at", "body"}]`, oldest first.
async fn model_requests(state: web::Data<SandboxState>, req: HttpRequest) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    HttpResponse::Ok().json(ctl(&state).model_request_records())
}

async fn clear_model_requests(state: web::Data<SandboxState>, req: HttpRequest) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    state.model.clear_requests();
    HttpResponse::NoContent().finish()
}

/// A one-line view of a company for listings.
#[derive(Serialize)]
struct Summary<'a> {
    id: &'a str,
    name: Option<&'a str>,
    legal_form: LegalForm,
    status: CompanyStatus,
    at_bolagsverket: bool,
    at_scb: bool,
    businesses: usize,
    annual_reports: usize,
    note: Option<&'a str>,
}

fn summary(c: &Company) -> Summary<'_> {
    Summary {
        id: &c.id,
        name: c.name(),
        legal_form: c.legal_form,
        status: c.status(),
        at_bolagsverket: c.is_at_bolagsverket(),
        at_scb: c.is_at_scb(),
        businesses: c.business_count(),
        annual_reports: c.annual_reports.len(),
        note: c.note.as_deref(),
    }
}

async fn list_companies(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    q: web::Query<HashMap<String, String>>,
) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    let ds = state.read();
    let form = q.get("form").map(|f| LegalForm::parse(f));
    if let Some(None) = form {
        return HttpResponse::BadRequest().json(json!({"error": "unknown form"}));
    }
    let status = q.get("status").map(|s| CompanyStatus::parse(s));
    if let Some(None) = status {
        return HttpResponse::BadRequest().json(json!({"error": "unknown status"}));
    }
    let flag = |k: &str| q.get(k).map(|v| v == "true" || v == "1");
    let at_scb = flag("at_scb");
    let at_bv = flag("at_bolagsverket");
    let several = flag("several_businesses");
    let reports: Option<usize> = q.get("reports").and_then(|v| v.parse().ok());
    let limit: usize = q
        .get("limit")
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    let list: Vec<Summary> = ds
        .companies()
        .iter()
        .filter(|c| form.flatten().is_none_or(|f| c.legal_form == f))
        .filter(|c| status.flatten().is_none_or(|s| c.status() == s))
        .filter(|c| at_scb.is_none_or(|b| c.is_at_scb() == b))
        .filter(|c| at_bv.is_none_or(|b| c.is_at_bolagsverket() == b))
        .filter(|c| several.is_none_or(|b| (c.business_count() > 1) == b))
        .filter(|c| reports.is_none_or(|n| c.annual_reports.len() == n))
        .take(limit)
        .map(summary)
        .collect();
    HttpResponse::Ok().json(json!({ "count": list.len(), "companies": list }))
}

async fn get_company(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    path: web::Path<String>,
) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    match state.read().company(&path) {
        Some(c) => HttpResponse::Ok().json(c),
        None => ControlError::UnknownCompany(path.into_inner()).response(),
    }
}

async fn patch_company(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    let patch: CompanyPatch = match serde_json::from_slice(&body) {
        Ok(p) => p,
        Err(e) => return ControlError::Invalid(e.to_string()).response(),
    };
    match ctl(&state).patch_company(&path, &patch) {
        Ok(c) => HttpResponse::Ok().json(c),
        Err(e) => e.response(),
    }
}

async fn list_lt(state: web::Data<SandboxState>, req: HttpRequest) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    HttpResponse::Ok().json(state.read().lt_companies())
}

async fn get_lt(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    path: web::Path<u32>,
) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    match state.read().lt_company(*path) {
        Some(c) => HttpResponse::Ok().json(c),
        None => ControlError::UnknownLtCompany(*path).response(),
    }
}

async fn patch_lt(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    path: web::Path<u32>,
    body: web::Bytes,
) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    let patch: LtPatch = match serde_json::from_slice(&body) {
        Ok(p) => p,
        Err(e) => return ControlError::Invalid(e.to_string()).response(),
    };
    match ctl(&state).patch_lt_company(*path, &patch) {
        Ok(c) => HttpResponse::Ok().json(c),
        Err(e) => e.response(),
    }
}

async fn list_faults(state: web::Data<SandboxState>, req: HttpRequest) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    HttpResponse::Ok().json(json!({ "faults": ctl(&state).faults() }))
}

async fn clear_faults(state: web::Data<SandboxState>, req: HttpRequest) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    ctl(&state).clear_faults();
    HttpResponse::NoContent().finish()
}

fn parse_source(state: &SandboxState, s: &str) -> Result<Source, Box<HttpResponse>> {
    state.source(s).ok_or_else(|| {
        let mut sources: Vec<&str> = Source::ALL.iter().map(|s| s.as_str()).collect();
        sources.extend(state.plugins.iter().map(|m| m.plugin.name()));
        Box::new(HttpResponse::NotFound().json(json!({
            "error": format!("unknown source {s}"),
            "sources": sources,
        })))
    })
}

/// `/control/plugins/{name}/...`: a plug-in's own control routes.
async fn plugin_control(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    body: web::Bytes,
) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    let (name, rest) = path.into_inner();
    match state.plugin(&name) {
        Some(plugin) => plugin.control(&req, &format!("/{rest}"), &body),
        None => HttpResponse::NotFound().json(json!({ "error": format!("no plug-in {name}") })),
    }
}

async fn arm_fault(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    let source = match parse_source(&state, &path) {
        Ok(s) => s,
        Err(r) => return *r,
    };
    let spec: FaultSpec = match serde_json::from_slice(&body) {
        Ok(s) => s,
        Err(e) => return ControlError::Invalid(e.to_string()).response(),
    };
    match ctl(&state).inject_fault(source, spec) {
        Ok(()) => HttpResponse::Ok().json(json!({ "faults": ctl(&state).faults() })),
        Err(e) => e.response(),
    }
}

async fn clear_fault(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    path: web::Path<String>,
) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    match parse_source(&state, &path) {
        Ok(s) => {
            ctl(&state).clear_fault(s);
            HttpResponse::NoContent().finish()
        }
        Err(r) => *r,
    }
}

async fn reset(state: web::Data<SandboxState>, req: HttpRequest) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    ctl(&state).reset();
    HttpResponse::NoContent().finish()
}

async fn calls(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    q: web::Query<HashMap<String, String>>,
) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    let list = match q.get("source") {
        Some(s) => match parse_source(&state, s) {
            Ok(src) => ctl(&state).calls_for(src),
            Err(r) => return *r,
        },
        None => ctl(&state).calls(),
    };
    HttpResponse::Ok().json(json!({ "calls": list }))
}

async fn clear_calls(state: web::Data<SandboxState>, req: HttpRequest) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    ctl(&state).clear_calls();
    HttpResponse::NoContent().finish()
}

async fn revoke_tokens(state: web::Data<SandboxState>, req: HttpRequest) -> HttpResponse {
    if let Err(r) = guard(&req) {
        return *r;
    }
    ctl(&state).revoke_tokens();
    HttpResponse::NoContent().finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testnr;

    #[test]
    fn loopback_check() {
        assert!(is_loopback_peer(Some("127.0.0.1:5000".parse().unwrap())));
        assert!(is_loopback_peer(Some("127.8.9.1:5000".parse().unwrap())));
        assert!(is_loopback_peer(Some("[::1]:5000".parse().unwrap())));
        assert!(is_loopback_peer(Some(
            "[::ffff:127.0.0.1]:5000".parse().unwrap()
        )));
        assert!(!is_loopback_peer(Some("10.0.0.5:5000".parse().unwrap())));
        assert!(!is_loopback_peer(Some(
            "[2001:db8::1]:5000".parse().unwrap()
        )));
        assert!(!is_loopback_peer(Some(
            "[::ffff:192.168.1.2]:5000".parse().unwrap()
        )));
        assert!(!is_loopback_peer(None));
    }

    #[test]
    fn patch_status_and_name() {
        let ds = Dataset::standard();
        let mut c = ds.company(testnr::AB_TESTBOLAG_4).unwrap().clone();
        let p: CompanyPatch = serde_json::from_str(
            r#"{"name":"Nytt Namn AB","status":"bankruptcy","status_date":"2026-05-01","tax":{"f_skatt":false}}"#,
        )
        .unwrap();
        apply_patch(&mut c, &p).unwrap();
        assert_eq!(c.name(), Some("Nytt Namn AB"));
        assert_eq!(c.status(), CompanyStatus::Bankruptcy);
        assert_eq!(c.scb.as_ref().unwrap().namn, "Nytt Namn AB");
        assert!(!c.tax.unwrap().f_skatt);
        let p: CompanyPatch = serde_json::from_str(r#"{"status":"deregistered"}"#).unwrap();
        apply_patch(&mut c, &p).unwrap();
        assert_eq!(c.status(), CompanyStatus::Deregistered);
        assert_eq!(
            c.registrations[0]
                .deregistration
                .as_ref()
                .unwrap()
                .orsak
                .kod,
            "KKAV"
        );
        assert!(!c.scb.as_ref().unwrap().verksam);
    }

    #[test]
    fn patch_rejects_nonsense() {
        let ds = Dataset::standard();
        let mut c = ds.company(testnr::AB_MISSING_AT_SCB).unwrap().clone();
        let p: CompanyPatch = serde_json::from_str(r#"{"employees_class":"4"}"#).unwrap();
        assert!(matches!(
            apply_patch(&mut c, &p),
            Err(ControlError::Conflict(_))
        ));
        assert!(serde_json::from_str::<CompanyPatch>(r#"{"nope":1}"#).is_err());
        let p: CompanyPatch =
            serde_json::from_str(r#"{"status_date":"2026-13-01","status":"active"}"#).unwrap();
        assert!(apply_patch(&mut c, &p).is_err());
    }
}
