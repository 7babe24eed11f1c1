//! The audit page: the tenant's audit rows, newest first, filtered and paged.
//!
//! Over HTTP: `tests/blackbox/portal_pages.rs` (`the_audit_page_filters_by_grant_route_and_outcome_and_pages`).

use super::{mode, shown_by_address};
use crate::page::{caller, nav, problem, query, render};
use crate::views::*;
use actix_web::{HttpRequest, HttpResponse};
use api_core::{request_context, AppServices};
use domain::access::audit::AuditFilter;
use domain::ids::GrantId;
use domain::operation::Operation;
use domain::portal::action::PortalAction;
use domain::portal::console::outcome_filter;
use domain::Failure;

#[derive(serde::Deserialize, Default)]
struct AuditQuery {
    #[serde(default)]
    grant: String,
    #[serde(default)]
    route: String,
    #[serde(default)]
    outcome: String,
    #[serde(default)]
    before: String,
    /// `live` (the default) or `test`: which log, when no grant is named.
    #[serde(default)]
    mode: String,
}

/// Every route template a row can name: the consumer interface's and the portal's.
fn route_templates() -> Vec<String> {
    let mut routes: Vec<String> = Operation::ROUTED
        .iter()
        .map(|op| op.route_template().to_owned())
        .chain(PortalAction::ALL.iter().map(|a| a.route().to_owned()))
        .collect();
    routes.sort();
    routes.dedup();
    routes
}

pub(super) async fn audit(req: HttpRequest, services: AppServices) -> HttpResponse {
    let caller = match caller(&req, &services).await {
        Ok(c) => c,
        Err(f) => return problem(&f, None, "/"),
    };
    let q: AuditQuery = match query(&req) {
        Ok(q) => q,
        Err(f) => return problem(&f, Some(&caller), "/audit"),
    };
    let console = &services.portal_console;
    let answer = async {
        let grant = match q.grant.trim() {
            "" => None,
            g => Some(
                g.parse::<GrantId>()
                    .map_err(|_| Failure::bad_request("grant", "is not a grant id"))?,
            ),
        };
        let filter = AuditFilter {
            grant,
            route: Some(q.route.trim().to_owned()).filter(|r| !r.is_empty()),
            outcome: outcome_filter(&q.outcome)?,
            before: Some(q.before.trim().to_owned()).filter(|b| !b.is_empty()),
        };
        let test = mode(&q.mode)?;
        let page = console
            .audit(&request_context(&req), &caller, &filter, test)
            .await?;
        let grants = console.grants(&caller).await?;
        let users = console.users(&caller).await?;
        Ok::<_, Failure>((filter, page, grants, users, test))
    }
    .await;
    let (filter, found, grants, users, test) = match answer {
        Ok(a) => a,
        Err(f) => return problem(&f, Some(&caller), "/audit"),
    };
    let next = found.next.as_ref().map(|before| {
        let pairs = [
            ("grant", q.grant.trim()),
            ("route", q.route.trim()),
            ("outcome", q.outcome.trim()),
            ("mode", q.mode.trim()),
            ("before", before.as_str()),
        ];
        format!(
            "/audit?{}",
            serde_urlencoded::to_string(pairs).unwrap_or_default()
        )
    });
    let chosen = filter.outcome.map(|o| o.as_str()).unwrap_or("");
    render(&AuditLogPage {
        title: "Audit log",
        nav: Some(nav(&caller)),
        grant_choices: grants
            .iter()
            .map(|g| (g.id.to_string(), filter.grant == Some(g.id)))
            .collect(),
        route: q.route.trim().to_owned(),
        routes: route_templates(),
        test,
        outcome_choices: ["", "allowed", "refused", "failed"]
            .into_iter()
            .map(|o| (o, o == chosen))
            .collect(),
        entries: found
            .entries
            .iter()
            .map(|e| AuditRow {
                when: e.occurred_at.format("%Y-%m-%d %H:%M:%S").to_string(),
                // A portal user is shown by address (as on the whitelist page), a grant by id.
                who: match &e.portal_user_id {
                    Some(id) => shown_by_address(&users, id),
                    None => e.grant_id.clone().unwrap_or_default(),
                },
                // The assistant's rows name their conversation; a tool call its tool.
                surface: match &e.conversation_id {
                    Some(c) => format!("{} ({c})", e.surface),
                    None => e.surface.clone(),
                },
                route: match &e.tool {
                    Some(tool) => format!("{} {} tool {tool}", e.method, e.route),
                    None => format!("{} {}", e.method, e.route),
                },
                status: e.status,
                outcome: e.outcome.clone(),
                code: e.error_code.clone().unwrap_or_default(),
            })
            .collect(),
        next,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_route_filter_offers_every_consumer_and_portal_route_once_in_order() {
        let routes = route_templates();
        let mut sorted = routes.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(routes, sorted);
        for op in Operation::ROUTED {
            assert!(routes.iter().any(|r| r == op.route_template()), "{op:?}");
        }
        for action in PortalAction::ALL {
            assert!(routes.iter().any(|r| r == action.route()), "{action:?}");
        }
    }
}
