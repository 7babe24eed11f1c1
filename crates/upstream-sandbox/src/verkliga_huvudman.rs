//! Bolagsverket's beneficial-owners API ("VerkligaHuvudmän v1"), under
//! [`crate::BO_PREFIX`] on the sandbox's mutual-TLS listener: `POST /organisationer`.
//!
//! The real API authenticates with a client certificate; so does this one: a request that
//! did not arrive over the TLS listener (which demands a certificate issued by the
//! sandbox's CA) is refused with 403.
//!
//! The reference material holds no response schema for this API, so the shape is the
//! sandbox's own, in the style of Bolagsverket's other APIs, and marked as inferred in the
//! connector's README: `organisation`, `uppgiftSaknas` (no beneficial owner reported), and
//! `verkligaHuvudman[]` with `personnamn`, `identitet` (absent for a foreign owner without a
//! Swedish number), `medborgarskap`, `bosattningsland`, `kontroll` and `omfattning`.

use crate::data::Dataset;
use crate::faults::{Source, Upstream};
use crate::foretagsinformation::{json_route, not_found, problem, problem_for_status};
use crate::state::SandboxState;
use crate::vdm::with_request_id;
use crate::BO_PREFIX;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use serde_json::{json, Value};

pub(crate) const UPSTREAM: Upstream = Upstream {
    source: Source::VerkligaHuvudman,
    error: problem_for_status,
    field_fel: None,
};

pub(crate) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::scope(BO_PREFIX).route("/organisationer", web::post().to(organisationer)));
}

/// The register's entry for an organisation, or `None` when the organisation is unknown.
pub fn organisationer_svar(ds: &Dataset, id: &str) -> Option<Value> {
    let c = ds.company(id).filter(|c| c.is_at_bolagsverket())?;
    let record = c.ownership.as_ref();
    let owners: Vec<Value> = record
        .map(|r| r.owners.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|o| {
            let mut v = json!({
                "personnamn": { "fornamn": o.name.fornamn, "efternamn": o.name.efternamn },
                "medborgarskap": { "kod": o.medborgarskap },
                "bosattningsland": { "kod": o.bosattningsland },
                "kontroll": o.kontroll,
                "omfattning": o.omfattning,
                "registreringsdatum": o.registreringsdatum,
            });
            if let Some(i) = &o.identitet {
                v["identitet"] = json!({
                    "typ": { "kod": i.typ },
                    "identitetsbeteckning": i.nummer,
                });
            }
            v
        })
        .collect();
    Some(json!({
        "organisation": {
            "identitetsbeteckning": c.id,
            "organisationsnamn": c.name().unwrap_or_default(),
        },
        "uppgiftSaknas": record.is_none_or(|r| r.uppgift_saknas),
        "verkligaHuvudman": owners,
    }))
}

/// Only the TLS listener serves this API, and it admits only clients with a certificate
/// issued by the sandbox's CA.
fn client_certificate(_: &SandboxState, req: &HttpRequest) -> Result<(), Box<HttpResponse>> {
    // The listener the request came in on, never a header a client sends.
    if req.app_config().secure() {
        return Ok(());
    }
    Err(Box::new(problem(
        StatusCode::FORBIDDEN,
        "authentication",
        "CLIENT_CERTIFICATE_REQUIRED",
        "Ett klientcertifikat krävs.",
        None,
        req,
    )))
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
        client_certificate,
        |st, r, id, _| match organisationer_svar(&st.read(), id) {
            Some(svar) => with_request_id(HttpResponse::Ok().json(svar), r),
            None => not_found(r),
        },
    )
    .await
}
