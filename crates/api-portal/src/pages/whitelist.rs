//! The whitelist page: entries, and proposing, approving (four eyes) and revoking one.
//!
//! Over HTTP: `tests/blackbox/portal_pages.rs` (`an_admins_own_second_account_cannot_approve_their_proposal`,
//! `a_member_reads_and_takes_part_in_four_eyes_but_manages_no_grants_or_users`).

use super::{console_write, shown_by_address};
use crate::page::{caller, day, nav, problem, render, see_other};
use crate::views::*;
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::AppServices;
use domain::portal::console::WhitelistProposal;
use domain::screening::sanctions::ListSource;
use domain::Failure;

pub(super) async fn whitelist(req: HttpRequest, services: AppServices) -> HttpResponse {
    let caller = match caller(&req, &services).await {
        Ok(c) => c,
        Err(f) => return problem(&f, None, "/"),
    };
    let console = &services.portal_console;
    let answer = async {
        Ok::<_, Failure>((
            console.whitelist(&caller).await?,
            console.users(&caller).await?,
        ))
    }
    .await;
    let (entries, users) = match answer {
        Ok(a) => a,
        Err(f) => return problem(&f, Some(&caller), "/"),
    };
    // Makers and approvers are portal users' ids (or an operator's name): shown by address.
    let who = |by: &str| shown_by_address(&users, by);
    let now = services.clock.now();
    render(&WhitelistPage {
        title: "Whitelist",
        nav: Some(nav(&caller)),
        csrf: caller.csrf.clone(),
        sources: ListSource::ALL.iter().map(|s| s.as_str()).collect(),
        entries: entries
            .iter()
            .map(|v| {
                let e = &v.entry;
                EntryView {
                    id: e.id.to_string(),
                    state: e.state(now).as_str(),
                    clears: e
                        .subject_id
                        .map(|s| s.to_string())
                        .or_else(|| e.input_hash.clone())
                        .unwrap_or_default(),
                    source: e.source.as_str(),
                    source_entry_id: e.source_entry_id.clone(),
                    reason: e.reason.clone(),
                    created_by: who(&e.created_by),
                    approved_by: e
                        .approved_by
                        .as_deref()
                        .map_or_else(|| "not yet".to_owned(), who),
                    expires: day(e.expires_at),
                }
            })
            .collect(),
    })
}

pub(super) async fn propose(
    req: HttpRequest,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    console_write(
        &req,
        payload,
        &services,
        "/whitelist",
        async |console, ctx, caller, form| {
            let proposal = WhitelistProposal {
                clears: form.get("clears").to_owned(),
                source_id: form.get("source").to_owned(),
                source_entry_id: form.get("entry").to_owned(),
                reason: form.get("reason").to_owned(),
                expires: form.get("expires").to_owned(),
            };
            console
                .propose_whitelist_entry(ctx, caller, &proposal)
                .await?;
            Ok(see_other("/whitelist"))
        },
    )
    .await
}

pub(super) async fn approve(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    console_write(
        &req,
        payload,
        &services,
        "/whitelist",
        async |console, ctx, caller, _| {
            console
                .approve_whitelist_entry(ctx, caller, path.as_str())
                .await?;
            Ok(see_other("/whitelist"))
        },
    )
    .await
}

pub(super) async fn revoke_entry(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    console_write(
        &req,
        payload,
        &services,
        "/whitelist",
        async |console, ctx, caller, _| {
            console
                .revoke_whitelist_entry(ctx, caller, path.as_str())
                .await?;
            Ok(see_other("/whitelist"))
        },
    )
    .await
}
