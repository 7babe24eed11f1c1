//! The operator's metrics listener: `GET /metrics` in the Prometheus text format, on an
//! address of its own (`--metrics-listen`), never on the consumer origin. It serves nothing
//! else, needs no credential (bind it where only the scraper reaches), and is not audited:
//! no tenant data is read, only the levels of [`domain::health::gauges`] and the counters.

use crate::server::RunningServer;
use actix_web::{http::header, web, App as ActixApp, HttpResponse, HttpServer};
use adapters_prometheus::PrometheusMeter;
use anyhow::Context;
use domain::services::Services;
use std::sync::Arc;

/// The path the listener serves.
pub const METRICS_PATH: &str = "/metrics";

/// Refuses a metrics listener on the consumer listener's address: the scrape is an operator's,
/// and the consumer origin must not serve it.
pub fn check_apart(listen: &str, metrics_listen: Option<&str>) -> anyhow::Result<()> {
    // Port 0 asks the system for a free port: two such listeners never share one.
    let any_port = listen.trim().ends_with(":0");
    if !any_port && metrics_listen.is_some_and(|m| m.trim() == listen.trim()) {
        anyhow::bail!(
            "the metrics listener ({listen}) must not be the consumer listener: give \
             --metrics-listen an address of its own"
        );
    }
    Ok(())
}

/// Binds `listen` and serves the scrape in the background, on one worker.
pub fn start(
    listen: &str,
    services: Arc<Services>,
    meter: Arc<PrometheusMeter>,
) -> anyhow::Result<RunningServer> {
    let services = web::Data::new(services);
    let meter = web::Data::new(meter);
    let server = HttpServer::new(move || {
        ActixApp::new()
            .app_data(services.clone())
            .app_data(meter.clone())
            .route(METRICS_PATH, web::get().to(scrape))
    })
    .workers(1)
    .disable_signals()
    .shutdown_timeout(1)
    .bind(listen)
    .with_context(|| format!("binding the metrics listener {listen}"))?;
    RunningServer::spawn(server.addrs(), server.run())
}

async fn scrape(
    services: web::Data<Arc<Services>>,
    meter: web::Data<Arc<PrometheusMeter>>,
) -> HttpResponse {
    let gauges = services.gauges.read().await;
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, adapters_prometheus::CONTENT_TYPE))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(meter.render(&gauges))
}
