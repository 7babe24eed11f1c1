//! The [`Meter`] port on a Prometheus registry, and the scrape ([`PrometheusMeter::render`]).
//!
//! | family | type | labels |
//! |---|---|---|
//! | `idreg_http_requests_total` | counter | `method`, `route` (template), `status` |
//! | `idreg_http_request_duration_seconds` | histogram | `method`, `route` |
//! | `idreg_upstream_calls_total` | counter | `source`, `operation`, `outcome` (`ok`, `failed`, `unreachable`) |
//! | `idreg_upstream_call_duration_seconds` | histogram | `source`, `operation` |
//! | `idreg_budget_spends_total` | counter | `budget` (`paid`, `person_lookups`), `spender`, `outcome` (`spent`, `refused`) |
//! | `idreg_scheduler_claimed_runs_total` | counter | |
//! | `idreg_scheduler_deferred_runs_total` | counter | |
//! | `idreg_scheduler_run_lag_seconds` | histogram | (a claimed run's claim time less its due time) |
//! | `idreg_scheduler_due_runs` | gauge | (due and unclaimed, at scrape) |
//! | `idreg_scheduler_backlog_lag_seconds` | gauge | (the longest-waiting due run, at scrape) |
//! | `idreg_events_appended_total` | counter | `type` |
//! | `idreg_screening_checks_total` | counter | `band` |
//! | `idreg_webhook_attempts_total` | counter | `outcome` (`delivered`, `refused`, `failed`, `disabled`) |
//! | `idreg_portal_mail_total` | counter | `outcome` (`sent`, `failed`, `no_transport`, `queue_full`) |
//! | `idreg_screening_list_age_seconds` | gauge | `list` (since the active version's import) |
//! | `idreg_screening_list_import_failing` | gauge | `list` (1: the latest import failed) |
//! | `idreg_store_connections` | gauge | `state` (`max`, `open`, `in_use`, `waiting`) |
//! | `idreg_store_statements_total` | counter | (statements run on the store's connections, read at scrape) |
//! | `idreg_store_reachable` | gauge | (1: the scrape's store reads answered) |
//!
//! No label carries a tenant id, a subject id, an identifier or a name: the port's methods
//! take none.

use domain::health::gauges::Gauges;
use domain::meter::{Budget, Meter, RequestSample, SchedulerPass, UpstreamOutcome};
use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};
use std::time::Duration;

/// The media type of [`PrometheusMeter::render`]'s text.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Request latencies: 1 ms to 10 s.
const REQUEST_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];
/// Upstream latencies: 5 ms to 30 s (the longest time limit a connector sets).
const UPSTREAM_BUCKETS: &[f64] = &[
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];
/// How late scheduled runs are claimed: a second to a day.
const LAG_BUCKETS: &[f64] = &[1.0, 5.0, 15.0, 60.0, 300.0, 900.0, 3600.0, 21600.0, 86400.0];

/// The figures of one service, in a registry of their own.
pub struct PrometheusMeter {
    registry: Registry,
    requests: IntCounterVec,
    request_seconds: HistogramVec,
    upstream_calls: IntCounterVec,
    upstream_seconds: HistogramVec,
    spends: IntCounterVec,
    claimed: IntCounter,
    deferred: IntCounter,
    run_lag: Histogram,
    due_runs: IntGauge,
    backlog_lag: IntGauge,
    events: IntCounterVec,
    checks: IntCounterVec,
    webhooks: IntCounterVec,
    portal_mail: IntCounterVec,
    list_age: IntGaugeVec,
    list_failing: IntGaugeVec,
    connections: IntGaugeVec,
    statements: IntCounter,
    store_reachable: IntGauge,
}

impl Default for PrometheusMeter {
    fn default() -> Self {
        Self::new()
    }
}

impl PrometheusMeter {
    pub fn new() -> PrometheusMeter {
        let registry = Registry::new();
        let meter = PrometheusMeter {
            requests: IntCounterVec::new(
                Opts::new("idreg_http_requests_total", "Requests answered, by method, route template and status."),
                &["method", "route", "status"],
            )
            .expect("valid family"),
            request_seconds: HistogramVec::new(
                HistogramOpts::new(
                    "idreg_http_request_duration_seconds",
                    "Time from receiving a request to its answer, by method and route template.",
                )
                .buckets(REQUEST_BUCKETS.to_vec()),
                &["method", "route"],
            )
            .expect("valid family"),
            upstream_calls: IntCounterVec::new(
                Opts::new(
                    "idreg_upstream_calls_total",
                    "Calls to upstream registers, by evidence source, operation and outcome (ok, failed, unreachable).",
                ),
                &["source", "operation", "outcome"],
            )
            .expect("valid family"),
            upstream_seconds: HistogramVec::new(
                HistogramOpts::new(
                    "idreg_upstream_call_duration_seconds",
                    "Time from sending an upstream request to the end of its answer or failure.",
                )
                .buckets(UPSTREAM_BUCKETS.to_vec()),
                &["source", "operation"],
            )
            .expect("valid family"),
            spends: IntCounterVec::new(
                Opts::new(
                    "idreg_budget_spends_total",
                    "Spends from tenants' daily limits (the paid budget by its part, the person-lookup ceiling): spent or refused.",
                ),
                &["budget", "spender", "outcome"],
            )
            .expect("valid family"),
            claimed: IntCounter::new(
                "idreg_scheduler_claimed_runs_total",
                "Monitoring runs the scheduler claimed.",
            )
            .expect("valid family"),
            deferred: IntCounter::new(
                "idreg_scheduler_deferred_runs_total",
                "Monitoring runs whose full (paid) check was put off to the next budget day.",
            )
            .expect("valid family"),
            run_lag: Histogram::with_opts(
                HistogramOpts::new(
                    "idreg_scheduler_run_lag_seconds",
                    "How late a monitoring run was claimed: its claim time less its due time.",
                )
                .buckets(LAG_BUCKETS.to_vec()),
            )
            .expect("valid family"),
            due_runs: IntGauge::new(
                "idreg_scheduler_due_runs",
                "Monitoring runs due and not claimed, at scrape time.",
            )
            .expect("valid family"),
            backlog_lag: IntGauge::new(
                "idreg_scheduler_backlog_lag_seconds",
                "How long the longest-waiting due run has been due, at scrape time (0 without one).",
            )
            .expect("valid family"),
            events: IntCounterVec::new(
                Opts::new("idreg_events_appended_total", "Events written to tenants' logs, by type."),
                &["type"],
            )
            .expect("valid family"),
            checks: IntCounterVec::new(
                Opts::new("idreg_screening_checks_total", "Screening checks stored, by band."),
                &["band"],
            )
            .expect("valid family"),
            webhooks: IntCounterVec::new(
                Opts::new(
                    "idreg_webhook_attempts_total",
                    "Webhook delivery attempts by outcome, and endpoints disabled for failing.",
                ),
                &["outcome"],
            )
            .expect("valid family"),
            portal_mail: IntCounterVec::new(
                Opts::new(
                    "idreg_portal_mail_total",
                    "Portal mail (sign-in links) by outcome: sent, failed, no_transport (none configured), queue_full.",
                ),
                &["outcome"],
            )
            .expect("valid family"),
            list_age: IntGaugeVec::new(
                Opts::new(
                    "idreg_screening_list_age_seconds",
                    "Seconds since the active version of each sanctions list was imported, at scrape time.",
                ),
                &["list"],
            )
            .expect("valid family"),
            list_failing: IntGaugeVec::new(
                Opts::new(
                    "idreg_screening_list_import_failing",
                    "1 when a sanctions list's latest import failed (an older version is served).",
                ),
                &["list"],
            )
            .expect("valid family"),
            connections: IntGaugeVec::new(
                Opts::new(
                    "idreg_store_connections",
                    "The store's connections in this process: the most it may open, open, in use, and requests waiting for one.",
                ),
                &["state"],
            )
            .expect("valid family"),
            statements: IntCounter::new(
                "idreg_store_statements_total",
                "Statements this process has run on the store's connections (a transaction's BEGIN and COMMIT each count).",
            )
            .expect("valid family"),
            store_reachable: IntGauge::new(
                "idreg_store_reachable",
                "1 when the store answered this scrape's reads.",
            )
            .expect("valid family"),
            registry,
        };
        meter.register();
        meter
    }

    fn register(&self) {
        let families: [Box<dyn prometheus::core::Collector>; 19] = [
            Box::new(self.requests.clone()),
            Box::new(self.request_seconds.clone()),
            Box::new(self.upstream_calls.clone()),
            Box::new(self.upstream_seconds.clone()),
            Box::new(self.spends.clone()),
            Box::new(self.claimed.clone()),
            Box::new(self.deferred.clone()),
            Box::new(self.run_lag.clone()),
            Box::new(self.due_runs.clone()),
            Box::new(self.backlog_lag.clone()),
            Box::new(self.events.clone()),
            Box::new(self.checks.clone()),
            Box::new(self.webhooks.clone()),
            Box::new(self.portal_mail.clone()),
            Box::new(self.list_age.clone()),
            Box::new(self.list_failing.clone()),
            Box::new(self.connections.clone()),
            Box::new(self.statements.clone()),
            Box::new(self.store_reachable.clone()),
        ];
        for family in families {
            self.registry
                .register(family)
                .expect("each family registered once, under a name of its own");
        }
    }

    /// Sets the levels read now and encodes every family in the Prometheus text format
    /// ([`CONTENT_TYPE`]).
    pub fn render(&self, gauges: &Gauges) -> String {
        self.set_levels(gauges);
        let mut text = Vec::new();
        // Encoding our own families into memory cannot fail.
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut text);
        String::from_utf8(text).unwrap_or_default()
    }

    fn set_levels(&self, gauges: &Gauges) {
        let pool = gauges.pool;
        for (state, value) in [
            ("max", pool.max),
            ("open", pool.open),
            ("in_use", pool.in_use),
            ("waiting", pool.waiting),
        ] {
            self.connections
                .with_label_values(&[state])
                .set(saturate(value));
        }
        // The store counts; the family follows its count (never backwards).
        let counted = self.statements.get();
        if pool.statements > counted {
            self.statements.inc_by(pool.statements - counted);
        }
        let reachable = gauges.backlog.is_some() && gauges.lists.is_some();
        self.store_reachable.set(i64::from(reachable));
        if let Some(backlog) = gauges.backlog {
            self.due_runs.set(saturate(backlog.due));
            self.backlog_lag
                .set(saturate(gauges.backlog_lag.unwrap_or_default().as_secs()));
        }
        if let Some(lists) = &gauges.lists {
            // A list no longer active leaves the families.
            self.list_age.reset();
            self.list_failing.reset();
            for list in lists {
                self.list_age
                    .with_label_values(&[list.list])
                    .set(saturate(list.since_import.as_secs()));
                self.list_failing
                    .with_label_values(&[list.list])
                    .set(i64::from(list.import_failing));
            }
        }
    }
}

fn saturate(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

impl Meter for PrometheusMeter {
    fn request(&self, sample: &RequestSample<'_>) {
        let mut status = [0u8; 3];
        let status = status_text(sample.status, &mut status);
        let method = domain::meter::method_label(sample.method);
        self.requests
            .with_label_values(&[method, sample.route, status])
            .inc();
        self.request_seconds
            .with_label_values(&[method, sample.route])
            .observe(sample.elapsed.as_secs_f64());
    }

    fn upstream_call(
        &self,
        source: &str,
        operation: &str,
        outcome: UpstreamOutcome,
        elapsed: Duration,
    ) {
        self.upstream_calls
            .with_label_values(&[source, operation, outcome.as_str()])
            .inc();
        self.upstream_seconds
            .with_label_values(&[source, operation])
            .observe(elapsed.as_secs_f64());
    }

    fn budget(&self, budget: Budget, spent: bool) {
        self.spends
            .with_label_values(&[
                budget.name(),
                budget.spender(),
                if spent { "spent" } else { "refused" },
            ])
            .inc();
    }

    fn scheduler_pass(&self, pass: &SchedulerPass) {
        self.claimed.inc_by(pass.lags.len() as u64);
        self.deferred.inc_by(u64::from(pass.deferred));
        for lag in &pass.lags {
            self.run_lag.observe(lag.as_secs_f64());
        }
    }

    fn events_appended(&self, event_type: &str, count: u64) {
        self.events.with_label_values(&[event_type]).inc_by(count);
    }

    fn screening_check(&self, band: &str) {
        self.checks.with_label_values(&[band]).inc();
    }

    fn webhook_attempt(&self, outcome: &str) {
        self.webhooks.with_label_values(&[outcome]).inc();
    }

    fn portal_mail(&self, outcome: &str) {
        self.portal_mail.with_label_values(&[outcome]).inc();
    }
}

/// A status code's three digits, without allocating (every HTTP status has three).
fn status_text(status: u16, buf: &mut [u8; 3]) -> &str {
    let status = status.min(999);
    buf[0] = b'0' + (status / 100) as u8;
    buf[1] = b'0' + (status / 10 % 10) as u8;
    buf[2] = b'0' + (status % 10) as u8;
    std::str::from_utf8(buf).unwrap_or("000")
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::health::ports::{Backlog, PoolUse};

    fn gauges() -> Gauges {
        Gauges {
            pool: PoolUse {
                max: 8,
                open: 2,
                in_use: 1,
                waiting: 0,
                statements: 40,
            },
            backlog: Some(Backlog {
                due: 3,
                oldest_due_at: None,
            }),
            backlog_lag: Some(Duration::from_secs(42)),
            lists: Some(vec![domain::health::gauges::ListAge {
                list: "un_sc",
                since_import: Duration::from_secs(3600),
                import_failing: false,
            }]),
        }
    }

    #[test]
    fn every_family_is_rendered_with_the_figures_counted() {
        let meter = PrometheusMeter::new();
        meter.request(&RequestSample {
            method: "GET",
            route: "/v1/companies/{id}",
            status: 200,
            elapsed: Duration::from_millis(3),
        });
        meter.upstream_call(
            "companyreg.vardefulla-datamangder",
            "POST /organisationer",
            UpstreamOutcome::Unreachable,
            Duration::from_secs(2),
        );
        meter.budget(Budget::PersonLookups, false);
        meter.scheduler_pass(&SchedulerPass {
            lags: vec![Duration::from_secs(2), Duration::from_secs(30)],
            deferred: 1,
        });
        meter.events_appended("company.changed", 2);
        meter.screening_check("review");
        meter.webhook_attempt("refused");
        let text = meter.render(&gauges());
        for line in [
            r#"idreg_http_requests_total{method="GET",route="/v1/companies/{id}",status="200"} 1"#,
            r#"idreg_http_request_duration_seconds_bucket{method="GET",route="/v1/companies/{id}",le="0.005"} 1"#,
            r#"idreg_upstream_calls_total{operation="POST /organisationer",outcome="unreachable",source="companyreg.vardefulla-datamangder"} 1"#,
            r#"idreg_budget_spends_total{budget="person_lookups",outcome="refused",spender="on_demand"} 1"#,
            "idreg_scheduler_claimed_runs_total 2",
            "idreg_scheduler_deferred_runs_total 1",
            r#"idreg_scheduler_run_lag_seconds_bucket{le="5"} 1"#,
            "idreg_scheduler_due_runs 3",
            "idreg_scheduler_backlog_lag_seconds 42",
            r#"idreg_events_appended_total{type="company.changed"} 2"#,
            r#"idreg_screening_checks_total{band="review"} 1"#,
            r#"idreg_webhook_attempts_total{outcome="refused"} 1"#,
            r#"idreg_screening_list_age_seconds{list="un_sc"} 3600"#,
            r#"idreg_screening_list_import_failing{list="un_sc"} 0"#,
            r#"idreg_store_connections{state="open"} 2"#,
            "idreg_store_statements_total 40",
            "idreg_store_reachable 1",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line} in\n{text}");
        }
    }

    #[test]
    fn the_statement_counter_follows_the_store_and_never_goes_back() {
        let meter = PrometheusMeter::new();
        let at = |statements| Gauges {
            pool: PoolUse {
                statements,
                ..gauges().pool
            },
            ..gauges()
        };
        let line = |text: String| {
            text.lines()
                .find(|l| l.starts_with("idreg_store_statements_total "))
                .map(str::to_owned)
        };
        assert_eq!(
            line(meter.render(&at(40))).as_deref(),
            Some("idreg_store_statements_total 40")
        );
        assert_eq!(
            line(meter.render(&at(43))).as_deref(),
            Some("idreg_store_statements_total 43")
        );
        // A count read lower (another store behind the same meter) leaves the counter.
        assert_eq!(
            line(meter.render(&at(5))).as_deref(),
            Some("idreg_store_statements_total 43")
        );
    }

    #[test]
    fn two_meters_never_share_figures() {
        let a = PrometheusMeter::new();
        let b = PrometheusMeter::new();
        a.screening_check("hit");
        assert!(a
            .render(&gauges())
            .contains(r#"idreg_screening_checks_total{band="hit"} 1"#));
        assert!(!b.render(&gauges()).contains("band=\"hit\""));
    }

    #[test]
    fn a_list_no_longer_active_leaves_the_family_and_an_unreachable_store_keeps_the_last_levels() {
        let meter = PrometheusMeter::new();
        meter.render(&gauges());
        let mut later = gauges();
        later.lists = Some(Vec::new());
        assert!(!meter.render(&later).contains("list=\"un_sc\""));
        let down = Gauges {
            backlog: None,
            backlog_lag: None,
            lists: None,
            ..gauges()
        };
        let text = meter.render(&down);
        assert!(text.lines().any(|l| l == "idreg_store_reachable 0"));
        assert!(text.lines().any(|l| l == "idreg_scheduler_due_runs 3"));
    }

    #[test]
    fn status_codes_are_their_three_digits() {
        let mut buf = [0u8; 3];
        assert_eq!(status_text(200, &mut buf), "200");
        assert_eq!(status_text(503, &mut buf), "503");
        assert_eq!(status_text(99, &mut buf), "099");
    }
}
