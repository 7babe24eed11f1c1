//! Probes for an orchestrator: `GET /healthz` (liveness) and `GET /readyz` (readiness). No
//! credential, no tenant data, not audited; cheap enough to poll every second (liveness reads
//! nothing, readiness at most three small reads). Answered `Cache-Control: no-store`.

use actix_web::http::header;
use actix_web::HttpResponse;
use api_core::AppServices;
use serde::Serialize;
use utoipa::ToSchema;

/// The liveness answer.
#[derive(Serialize, ToSchema)]
pub struct Liveness {
    /// Always `ok`: the process answers.
    #[schema(example = "ok")]
    pub status: &'static str,
}

/// One readiness check.
#[derive(Serialize, ToSchema)]
pub struct ReadinessCheck {
    /// `store`, `migrations`, `keys`, `screening_index`, or a note that passes and says what an
    /// operator should know (`mail`: where the portal's mail goes).
    pub name: &'static str,
    pub ok: bool,
    /// What was found, for the operator.
    pub detail: String,
}

/// The readiness answer: `ready` (200) or `not_ready` (503), with every check.
#[derive(Serialize, ToSchema)]
pub struct ReadinessBody {
    #[schema(example = "ready")]
    pub status: &'static str,
    pub checks: Vec<ReadinessCheck>,
}

/// Liveness: the process answers. Reads nothing.
#[utoipa::path(
    get,
    path = "/healthz",
    operation_id = "get_liveness",
    tag = "operations",
    security(()),
    responses((status = 200, description = "The process answers", body = Liveness))
)]
pub async fn live() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(Liveness { status: "ok" })
}

/// Readiness: the store answers with its schema at this build's head, the keys are the
/// store's (compared with its record of them), and the index of the active sanctions lists is
/// built (when lists are active).
#[utoipa::path(
    get,
    path = "/readyz",
    operation_id = "get_readiness",
    tag = "operations",
    security(()),
    responses(
        (status = 200, description = "Ready to serve", body = ReadinessBody),
        (status = 503, description = "Not ready: the failing checks say why", body = ReadinessBody),
    )
)]
pub async fn ready(services: AppServices) -> HttpResponse {
    let readiness = services.readiness.check().await;
    if readiness.index_wanted {
        // Build the index in the background; a later probe sees it.
        let services = services.clone();
        actix_web::rt::spawn(async move {
            if let Err(e) = services.screening.warm().await {
                tracing::warn!(error = %e.message, "building the screening index failed");
            }
        });
    }
    let ready = readiness.ready();
    let body = ReadinessBody {
        status: if ready { "ready" } else { "not_ready" },
        checks: readiness
            .checks
            .into_iter()
            .map(|c| ReadinessCheck {
                name: c.name,
                ok: c.ok,
                detail: c.detail,
            })
            .collect(),
    };
    let mut answer = if ready {
        HttpResponse::Ok()
    } else {
        HttpResponse::ServiceUnavailable()
    };
    answer
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(body)
}
