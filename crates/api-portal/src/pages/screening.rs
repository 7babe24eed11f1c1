//! The screening pages: the tenant's checks, and one check with its candidates and why.
//!
//! Over HTTP: `tests/blackbox/portal_pages.rs` (`the_screening_page_offers_the_checks_of_test_mode_credentials`),
//! and a check's page in `tests/blackbox/pep_screening.rs`.

use super::{mode, ModeQuery};
use crate::page::{caller, nav, problem, query, render};
use crate::views::*;
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::dto::screening::ScreeningCheckDto;
use api_core::{request_context, AppServices};

pub(super) async fn checks(req: HttpRequest, services: AppServices) -> HttpResponse {
    let caller = match caller(&req, &services).await {
        Ok(c) => c,
        Err(f) => return problem(&f, None, "/"),
    };
    let q: ModeQuery = match query(&req) {
        Ok(q) => q,
        Err(f) => return problem(&f, Some(&caller), "/screening"),
    };
    let test = match mode(&q.mode) {
        Ok(test) => test,
        Err(f) => return problem(&f, Some(&caller), "/screening"),
    };
    match services
        .portal_console
        .checks(&request_context(&req), &caller, test)
        .await
    {
        Ok(found) => render(&ScreeningPage {
            title: "Screening checks",
            nav: Some(nav(&caller)),
            test,
            checks: found
                .iter()
                .map(|served| {
                    let dto = ScreeningCheckDto::from(served);
                    CheckRow {
                        when: dto.checked_at.clone(),
                        screened: screened(&dto),
                        band: dto.band,
                        candidates: dto.candidate_count,
                        id: dto.id,
                    }
                })
                .collect(),
        }),
        Err(f) => problem(&f, Some(&caller), "/"),
    }
}

/// What a check screened, as its (masked) input snapshot shows it.
fn screened(dto: &ScreeningCheckDto) -> String {
    let i = &dto.input_snapshot;
    let mut parts: Vec<String> = Vec::new();
    if let Some(name) = &i.name {
        parts.push(name.clone());
    }
    if let Some(orgnr) = &i.orgnr {
        parts.push(orgnr.clone());
    }
    if i.identifier_masked {
        parts.push("(organisation number masked)".to_owned());
    }
    if i.person_fields_masked {
        parts.push("(person fields masked)".to_owned());
    }
    if let Some(country) = &i.country {
        parts.push(country.clone());
    }
    if parts.is_empty() {
        dto.input_kind.to_owned()
    } else {
        parts.join(" · ")
    }
}

pub(super) async fn check(
    req: HttpRequest,
    path: web::Path<String>,
    services: AppServices,
) -> HttpResponse {
    let caller = match caller(&req, &services).await {
        Ok(c) => c,
        Err(f) => return problem(&f, None, "/"),
    };
    match services
        .portal_console
        .check(&request_context(&req), &caller, path.as_str())
        .await
    {
        Ok(served) => {
            let c = ScreeningCheckDto::from(&served);
            render(&CheckPage {
                title: "Screening check",
                nav: Some(nav(&caller)),
                csrf: caller.csrf.clone(),
                clears: served.check.whitelist_target().unwrap_or_default(),
                subject: c.subject_id.clone().unwrap_or_else(|| "ad hoc".to_owned()),
                input: screened(&c),
                override_version: c
                    .tenant_override_version_id
                    .clone()
                    .unwrap_or_else(|| "none".to_owned()),
                list_versions: c.source_version_ids.join(", "),
                degraded: c.degraded_sources.join(", "),
                c,
            })
        }
        Err(f) => problem(&f, Some(&caller), "/screening"),
    }
}
