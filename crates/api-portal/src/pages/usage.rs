//! The usage page: the day's standing against the tenant's limits, live or test.
//!
//! Over HTTP: `tests/blackbox/portal_pages.rs`
//! (`the_usage_page_counts_the_paid_calls_of_live_and_test_mode_grants_apart`).

use super::{mode, ModeQuery};
use crate::page::{caller, day, nav, problem, query, render};
use crate::views::*;
use actix_web::{HttpRequest, HttpResponse};
use api_core::AppServices;

pub(super) async fn usage(req: HttpRequest, services: AppServices) -> HttpResponse {
    let caller = match caller(&req, &services).await {
        Ok(c) => c,
        Err(f) => return problem(&f, None, "/"),
    };
    let q: ModeQuery = match query(&req) {
        Ok(q) => q,
        Err(f) => return problem(&f, Some(&caller), "/usage"),
    };
    let test = match mode(&q.mode) {
        Ok(test) => test,
        Err(f) => return problem(&f, Some(&caller), "/usage"),
    };
    // The assistant's model calls are the tenant's (whichever grant a conversation runs
    // under): shown with the live figures.
    let assistant_calls = match crate::assistant::assistant(&req) {
        Ok(a) if !test => match a.calls_today(&caller).await {
            Ok(calls) => calls,
            Err(f) => return problem(&f, Some(&caller), "/usage"),
        },
        _ => None,
    };
    match services.portal_console.usage(&caller, test).await {
        Ok(None) => render(&UsagePage {
            title: "Usage",
            nav: Some(nav(&caller)),
            test,
            assistant_calls,
            report: None,
        }),
        Ok(Some(report)) => {
            use domain::companies::budget::Spender;
            let t = &report.today;
            render(&UsagePage {
                title: "Usage",
                nav: Some(nav(&caller)),
                test,
                assistant_calls,
                report: Some(UsageFigures {
                    day: t.day.to_string(),
                    time_zone: t.time_zone,
                    on_demand: t.usage.on_demand,
                    on_demand_cap: t.budget.cap(Spender::OnDemand),
                    scheduled: t.usage.scheduled,
                    scheduled_cap: t.budget.cap(Spender::Scheduled),
                    person_lookups: t.person_lookups,
                    person_ceiling: t.budget.person_lookup_ceiling,
                    renews_at: day(t.renews_at),
                    days: report
                        .days
                        .iter()
                        .map(|(d, u)| {
                            (
                                d.to_string(),
                                u.on_demand,
                                u.scheduled,
                                u.on_demand + u.scheduled,
                            )
                        })
                        .collect(),
                    chart: UsageChart::of(
                        &report
                            .days
                            .iter()
                            .rev()
                            .map(|(d, u)| (d.to_string(), u.on_demand, u.scheduled))
                            .collect::<Vec<_>>(),
                    ),
                }),
            })
        }
        Err(f) => problem(&f, Some(&caller), "/"),
    }
}
