//! Wiring: configuration → database, keys and adapters → use cases → the HTTP server.
//!
//! This is the only module that knows every adapter.

use crate::config::Config;
pub use crate::server::RunningServer;
use crate::store::Store;
use actix_web::{middleware, web, App as ActixApp, HttpServer};
use adapters_crypto::{Argon2Hasher, KeyMaterial};
use anyhow::{bail, Context};
use domain::clock::{Clock, SystemClock};
use domain::services::{Ports, Services, Settings};
use std::path::Path;
use std::sync::Arc;

/// The prepared service: migrated database, keys, use cases.
pub struct App {
    pub config: Config,
    /// The store the data is kept in (embedded SQLite or PostgreSQL).
    pub store: Store,
    pub services: Arc<Services>,
    /// The figures operators scrape (`--metrics-listen`), counted by the services.
    pub meter: Arc<adapters_prometheus::PrometheusMeter>,
    /// The upstream sandbox, when this process runs one.
    pub sandbox: Option<upstream_sandbox::RunningSandbox>,
    /// Where the API sends a person to consent to an agent's connection: the portal, once
    /// this process serves one.
    pub consent: api_core::oauth::ConsentPage,
    /// The portal assistant (off without a model).
    pub assistant: Arc<domain::assistant::service::AssistantService>,
    /// Where background work runs: below the HTTP workers' CPU priority.
    pub background: crate::background::Background,
}

impl App {
    /// Creates the database if missing, applies migrations, loads (or on first run generates
    /// and keeps) the keys, and wires the use cases.
    pub async fn prepare(config: Config) -> anyhow::Result<App> {
        Self::prepare_with_clock(config, Arc::new(SystemClock)).await
    }

    /// As [`App::prepare`] with a given clock (tests move time forward with it).
    ///
    /// Nothing is started before the configuration is known to be complete: the upstream
    /// settings are checked (the live connectors built, which opens nothing) first, then the
    /// store opened and the keys checked against its record, and only then a sandbox (for
    /// `--sandbox` or test mode) started.
    pub async fn prepare_with_clock(config: Config, clock: Arc<dyn Clock>) -> anyhow::Result<App> {
        let planned = crate::countries::plan(config.sandbox, config.test_mode, &config.countries)?;
        let app = Self::assemble(config, clock, |config| planned.start(&config.countries)).await?;
        app.warm_screening();
        // Off unless IDREG_LISTS_URLS is set; runs as long as the process.
        let _ = crate::list_schedule::start(
            &app.background,
            app.services.clone(),
            &app.config.lists,
            app.config.lists_interval_hours,
        );
        Ok(app)
    }

    /// For operator commands: the database and keys, no upstreams (none is called).
    pub async fn prepare_for_admin(config: Config) -> anyhow::Result<App> {
        Self::assemble(config, Arc::new(SystemClock), |_| {
            Ok(crate::countries::Upstreams::none())
        })
        .await
    }

    async fn assemble(
        config: Config,
        clock: Arc<dyn Clock>,
        upstreams: impl FnOnce(&Config) -> anyhow::Result<crate::countries::Upstreams>,
    ) -> anyhow::Result<App> {
        // Every listener's worker thread keeps a pool: the consumer listener's workers, the
        // portal's one and the metrics listener's one.
        let threads = config.http_workers() + 2;
        let (store, applied) =
            Store::open_for(&config.store_url(), config.db_pool_size, threads).await?;
        if !applied.is_empty() {
            tracing::info!(count = applied.len(), "applied migrations");
        }
        let stored = store.ports();
        let keys = load_or_create_keys(&config, &store, stored.probe.as_ref()).await?;
        let fingerprints = keys.fingerprints();
        let upstreams = upstreams(&config)?;
        let hasher = Argon2Hasher::owasp().map_err(|e| anyhow::anyhow!("{e}"))?;
        let meter = Arc::new(adapters_prometheus::PrometheusMeter::new());
        // SMTP when configured; else the sandbox's mailbox where the whole process runs on the
        // sandbox (the demo, `serve --sandbox`, tests); else no transport: sign-in answers as
        // ever and the operator is told (a log line at each unsent link, the metric, readiness).
        // SMTP and the missing transport go through the outbox, off the request path (no
        // timing tells a user's address from another); the sandbox's mailbox, a local test
        // upstream, takes each mail before the answer, so a demo's reader finds it at once.
        let (mailer, mail_note): (Arc<dyn domain::portal::ports::Mailer>, String) = match (
            &config.smtp_url,
            upstreams.sandbox.as_ref().filter(|_| config.sandbox),
        ) {
            (Some(url), _) => {
                let from = config.mail_from.as_deref().context(
                        "IDREG_MAIL_FROM (the sender of the portal's mail) is required with IDREG_SMTP_URL",
                    )?;
                (
                    adapters_mail::Outbox::start(
                        Arc::new(adapters_mail::SmtpMailer::new(url, from).map_err(|e| {
                            anyhow::anyhow!("IDREG_SMTP_URL, IDREG_MAIL_FROM: {e}")
                        })?),
                        meter.clone(),
                    ),
                    "portal mail goes out over SMTP".to_owned(),
                )
            }
            (None, Some(sandbox)) => (
                Arc::new(
                    adapters_mail::SandboxMailbox::new(&sandbox.control_url())
                        .context("building the mailbox client")?,
                ),
                "portal mail goes to the sandbox's mailbox (a sandbox run)".to_owned(),
            ),
            (None, None) => {
                if config.portal_listen.is_some() {
                    tracing::warn!(
                            "no mail transport (IDREG_SMTP_URL is unset): portal sign-in links are not sent"
                        );
                }
                (
                        adapters_mail::Outbox::start(
                            Arc::new(adapters_mail::NoTransport),
                            meter.clone(),
                        ),
                        "no mail transport (IDREG_SMTP_URL is unset): portal sign-in links are not sent"
                            .to_owned(),
                    )
            }
        };
        let ports = Ports {
            store: stored.clone(),
            tokens: Arc::new(keys.token_authority()),
            hasher: Arc::new(hasher),
            vault: Arc::new(keys.vault()),
            countries: Arc::new(upstreams.countries),
            person_vault: Arc::new(keys.vault()),
            screening_vault: Arc::new(keys.vault()),
            idempotency_vault: Arc::new(keys.vault()),
            portal_secrets: Arc::new(keys.vault()),
            mailer: mailer.clone(),
            webhook_vault: Arc::new(keys.vault()),
            webhook_sender: Arc::new(
                adapters_webhooks::HttpWebhookSender::new(config.webhook_allow_loopback)
                    .context("building the webhook client")?,
            ),
            oauth_secrets: Arc::new(keys.vault()),
            client_documents: {
                let extra_root = match &config.oauth_documents_ca_file {
                    Some(path) => Some(std::fs::read(path).with_context(|| {
                        format!("reading IDREG_OAUTH_DOCUMENTS_CA_FILE {}", path.display())
                    })?),
                    None => None,
                };
                Arc::new(
                    adapters_webhooks::client_documents::HttpClientDocuments::new(
                        config.oauth_documents_allow_loopback,
                        extra_root.as_deref(),
                    )
                    .context("building the client metadata document reader")?,
                )
            },
            meter: meter.clone(),
            clock,
        };
        let settings = Settings {
            calendar: config.calendar,
            token_lifetime: chrono::Duration::seconds(config.token_ttl_seconds),
            company_revalidate_after: chrono::Duration::seconds(config.company_revalidate_seconds),
            paid_revalidate_after: chrono::Duration::seconds(config.paid_revalidate_seconds),
            person_revalidate_after: chrono::Duration::seconds(config.person_revalidate_seconds),
            scheduler: domain::monitoring::scheduler::SchedulerSettings {
                lease: chrono::Duration::seconds(config.scheduler_lease_seconds),
                batch: config.scheduler_batch,
            },
            ongoing: domain::screening::ongoing::service::OngoingSettings {
                lease: chrono::Duration::seconds(config.scheduler_lease_seconds),
                ..Default::default()
            },
            webhooks: domain::webhooks::service::WebhookSettings {
                allow_loopback: config.webhook_allow_loopback,
                schedule: config.webhook_schedule.clone(),
                ..Default::default()
            },
            keys: Some(fingerprints),
            readiness_notes: vec![domain::health::readiness::Check {
                name: "mail",
                ok: true,
                detail: mail_note,
            }],
        };
        let gate = Arc::new(domain::access::gate::Gate {
            authority: ports.tokens.clone(),
            grants: ports.store.grants.clone(),
            audit: ports.store.audit.clone(),
            clock: ports.clock.clone(),
        });
        let (tenants, grants, clock) = (
            ports.store.tenants.clone(),
            ports.store.grants.clone(),
            ports.clock.clone(),
        );
        let services = Arc::new(Services::new(ports, settings));
        let assistant = Arc::new(domain::assistant::service::AssistantService {
            model: assistant_model(&config, upstreams.sandbox.as_ref())?,
            tools: Arc::new(api_mcp::assistant::AssistantToolLayer::new(
                services.clone(),
            )),
            store: stored.conversations,
            vault: Arc::new(keys.vault()),
            tenants,
            grants,
            gate,
            clock,
            calendar: config.calendar,
            settings: domain::assistant::bounds::AssistantSettings {
                daily_calls: config.assistant.daily_calls,
                retention: chrono::Duration::days(i64::from(config.assistant.retention_days)),
                ..Default::default()
            },
        });
        // Two threads: a pass's matching and the rest (webhook delivery, the schedules).
        let background = crate::background::Background::start(2, config.background_priority)
            .context("starting the background runtime")?;
        Ok(App {
            background,
            config,
            store,
            services,
            meter,
            sandbox: upstreams.sandbox,
            consent: Default::default(),
            assistant,
        })
    }

    /// Binds `listen` and starts serving in the background.
    pub fn start_http(&self, listen: &str) -> anyhow::Result<RunningServer> {
        let services = web::Data::new(self.services.clone());
        // The contract of this build: every compiled-in country's evidence sources.
        let document = web::Data::new(api_rest::openapi::ServedDocument::new(
            &crate::countries::evidence_sources(),
        ));
        let origin = web::Data::new(self.config.public_origin.clone());
        let consent = web::Data::new(self.consent.clone());
        let mut server = HttpServer::new(move || {
            ActixApp::new()
                .app_data(services.clone())
                .app_data(document.clone())
                .app_data(origin.clone())
                .app_data(consent.clone())
                .wrap(middleware::from_fn(
                    api_core::problem::problem_details_middleware,
                ))
                .wrap(middleware::from_fn(api_core::request_context_middleware))
                .configure(api_mcp::configure)
                .configure(api_rest::configure)
                .default_service(web::to(api_rest::not_found))
        })
        .disable_signals()
        .shutdown_timeout(5);
        server = server.workers(self.config.http_workers());
        let server = server
            .bind(listen)
            .with_context(|| format!("binding {listen}"))?;
        RunningServer::spawn(server.addrs(), server.run())
    }

    /// Binds the tenant portal's listener (its own origin: no consumer route is served there,
    /// and no portal route on the API's) and serves it in the background.
    ///
    /// The portal's origin (the mailed links', the cookies' `Secure` flag, the one a write's
    /// `Origin` must name) is the configured `IDREG_PORTAL_URL`; without one, the bound
    /// address when it is a loopback one (the demo, tests: a browser on this machine reaches
    /// it there), else the portal is refused. Never a request's header.
    pub fn start_portal(&self, listen: &str) -> anyhow::Result<RunningServer> {
        let listener = std::net::TcpListener::bind(listen)
            .with_context(|| format!("binding the portal at {listen}"))?;
        let bound = listener.local_addr()?;
        let origin = portal_origin(self.config.portal_url.as_deref(), bound)?;
        self.consent.set(origin.as_str());
        let services = web::Data::new(self.services.clone());
        let origin = web::Data::new(origin);
        let assistant = web::Data::new(self.assistant.clone());
        let server = HttpServer::new(move || {
            ActixApp::new()
                .app_data(services.clone())
                .app_data(origin.clone())
                .app_data(assistant.clone())
                .wrap(middleware::from_fn(api_core::request_context_middleware))
                .configure(api_portal::configure)
                .default_service(web::to(api_portal::not_found))
        })
        .disable_signals()
        .shutdown_timeout(5)
        .workers(1)
        .listen(listener)
        .with_context(|| format!("serving the portal at {listen}"))?;
        RunningServer::spawn(server.addrs(), server.run())
    }

    /// Binds the operator's metrics listener and serves `GET /metrics` in the background.
    pub fn start_metrics(&self, listen: &str) -> anyhow::Result<RunningServer> {
        crate::metrics::start(listen, self.services.clone(), self.meter.clone())
    }
}

impl App {
    /// Builds the index of the active sanctions lists in the background, so the first
    /// screening check does not wait for it. Neither delays nor fails the start: a failure is
    /// logged, and the first check builds the index instead.
    fn warm_screening(&self) {
        let services = self.services.clone();
        // At the requests' priority, not the background's: until the first index is built
        // every check answers 503, so this work is theirs.
        tokio::spawn(async move {
            match services.screening.warm().await {
                Ok(entries) => tracing::info!(entries, "screening index warmed"),
                Err(e) => tracing::warn!(error = %e.message, "warming the screening index failed"),
            }
        });
    }

    /// Starts scheduled monitoring in the background, unless the configuration turned it off
    /// (`IDREG_SCHEDULER_INTERVAL_MS=0`). Every replica may run it: the shared queue hands each
    /// due run to one of them. A pass that filled its batch is followed at once by another;
    /// otherwise the next waits the interval. A failing pass (the database down) is logged and
    /// retried at the next interval, so the scheduler recovers by itself.
    pub fn start_scheduler(&self) -> Option<tokio::task::JoinHandle<()>> {
        let interval = std::time::Duration::from_millis(self.config.scheduler_interval_ms);
        if interval.is_zero() {
            return None;
        }
        let services = self.services.clone();
        let assistant = self.assistant.clone();
        let batch = self.config.scheduler_batch;
        Some(self.background.spawn(async move {
            loop {
                match services.scheduler.tick().await {
                    Ok(report) => {
                        if report.claimed > 0 || report.purged > 0 {
                            tracing::info!(
                                claimed = report.claimed,
                                checked = report.checked,
                                deferred = report.deferred,
                                retried = report.retried,
                                suspended = report.suspended,
                                cancelled = report.cancelled,
                                postponed = report.postponed,
                                purged = report.purged,
                                failed = report.failed,
                                "monitoring pass"
                            );
                        }
                        if let Some(failure) = &report.first_failure {
                            tracing::warn!(failed = report.failed, error = %failure, "monitoring runs failed; they are retried after their lease");
                        }
                        if report.claimed >= batch {
                            continue;
                        }
                    }
                    Err(e) => tracing::warn!(error = %e.message, "monitoring pass failed"),
                }
                // A list whose active version changed screens the monitored subjects again.
                match services.ongoing.tick().await {
                    Ok(report) => {
                        if let Some(change) = report.change {
                            tracing::info!(
                                change = %change,
                                added = report.added,
                                changed = report.changed_entries,
                                removed = report.removed,
                                screened = report.screened,
                                touched = report.touched,
                                logged = report.logged,
                                passed_over = report.passed_over,
                                done = report.done,
                                waiting = report.waiting.as_deref().unwrap_or(""),
                                "ongoing screening pass"
                            );
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e.message, "ongoing screening pass failed; resumed after its lease")
                    }
                }
                // Webhook delivery attempts past their 30 days are forgotten.
                match services.dispatcher.purge_deliveries(1000).await {
                    Ok(0) => {}
                    Ok(purged) => tracing::info!(purged, "webhook delivery log trimmed"),
                    Err(e) => tracing::warn!(error = %e.message, "webhook delivery purge failed"),
                }
                // Assistant conversations past their retention are deleted.
                match assistant.purge().await {
                    Ok(0) => {}
                    Ok(purged) => tracing::info!(purged, "assistant conversations purged"),
                    Err(e) => tracing::warn!(error = %e.message, "assistant purge failed"),
                }
                // Idempotency keys past their 24 hours are forgotten.
                match services.idempotency.purge_expired(batch).await {
                    Ok(0) => {}
                    Ok(purged) => tracing::info!(purged, "idempotency keys expired"),
                    Err(e) => tracing::warn!(error = %e.message, "idempotency purge failed"),
                }
                tokio::time::sleep(interval).await;
            }
        }))
    }
}

impl App {
    /// Starts webhook delivery in the background, unless the configuration turned it off
    /// (`IDREG_WEBHOOK_INTERVAL_MS=0`). Every replica may run it: the shared queue hands each
    /// due endpoint to one of them. A pass that found work is followed at once by another;
    /// otherwise the next waits the interval. A failing pass is logged and retried.
    pub fn start_webhooks(&self) -> Option<tokio::task::JoinHandle<()>> {
        let interval = std::time::Duration::from_millis(self.config.webhook_interval_ms);
        if interval.is_zero() {
            return None;
        }
        let services = self.services.clone();
        Some(self.background.spawn(async move {
            loop {
                match services.dispatcher.tick().await {
                    Ok(report) => {
                        if report.failed > 0 || report.disabled > 0 {
                            tracing::info!(
                                endpoints = report.endpoints,
                                delivered = report.delivered,
                                failed = report.failed,
                                disabled = report.disabled,
                                "webhook pass"
                            );
                        }
                        if report.delivered > 0 {
                            continue;
                        }
                    }
                    Err(e) => tracing::warn!(error = %e.message, "webhook pass failed"),
                }
                tokio::time::sleep(interval).await;
            }
        }))
    }
}

/// The portal assistant's model: the configured endpoint; else, in a process running on the
/// upstream sandbox (the demo, `serve --sandbox`, tests), the sandbox's model; else none
/// (the assistant is off and says so).
fn assistant_model(
    config: &Config,
    sandbox: Option<&upstream_sandbox::RunningSandbox>,
) -> anyhow::Result<Option<Arc<dyn domain::assistant::ports::LanguageModel>>> {
    let a = &config.assistant;
    let llm = match (&a.url, sandbox.filter(|_| config.sandbox)) {
        (Some(url), _) => {
            let protocol: adapters_llm::Protocol = a
                .protocol
                .parse()
                .map_err(|e: String| anyhow::anyhow!("IDREG_ASSISTANT_PROTOCOL: {e}"))?;
            let model = a.model.clone().context(
                "IDREG_ASSISTANT_MODEL (the model's name) is required with IDREG_ASSISTANT_URL",
            )?;
            adapters_llm::LlmConfig::new(protocol, url.clone(), model, a.key.clone())
        }
        (None, Some(sandbox)) => adapters_llm::LlmConfig::new(
            adapters_llm::Protocol::Anthropic,
            sandbox.model_base_url(),
            "sandbox-model",
            Some(upstream_sandbox::MODEL_API_KEY.to_owned()),
        ),
        (None, None) => return Ok(None),
    };
    adapters_llm::model(llm)
        .map(Some)
        .map_err(|e| anyhow::anyhow!("the assistant's model: {e}"))
}

/// The portal's origin: the configured URL, else a loopback listener's own address.
pub fn portal_origin(
    configured: Option<&str>,
    bound: std::net::SocketAddr,
) -> anyhow::Result<api_portal::PortalOrigin> {
    match configured {
        Some(url) => api_portal::PortalOrigin::new(url)
            .map_err(|e| anyhow::anyhow!("the portal's URL (IDREG_PORTAL_URL, `portal_url`): {e}")),
        None if bound.ip().is_loopback() => {
            api_portal::PortalOrigin::new(&format!("http://{bound}")).map_err(|e| anyhow::anyhow!(e))
        }
        None => bail!(
            "the portal listens on {bound}, which browsers reach by a name only the operator \
             knows: set IDREG_PORTAL_URL (`portal_url`) to its origin, e.g. https://portal.example.com"
        ),
    }
}

/// The keys, checked against the store's record of the keys it was first used with (which
/// they become on first use).
///
/// From configuration (`IDREG_SIGNING_KEY`/`IDREG_MASTER_KEY`, or their `_FILE` forms);
/// else, on the embedded store only, from `<state_dir>/keys.toml`, generated there on first
/// run. PostgreSQL is a store other replicas share, so on it keys are never generated: each
/// replica would make its own and fork the store. Neither is a generated key allowed to
/// replace a lost key file under a store that holds data sealed with the old keys.
pub async fn load_or_create_keys(
    config: &Config,
    store: &Store,
    probe: &dyn domain::health::ports::StoreProbe,
) -> anyhow::Result<KeyMaterial> {
    let keys = configured_or_kept_keys(config, store, probe).await?;
    let held = probe
        .adopt_key_fingerprints(&keys.fingerprints())
        .await
        .map_err(|e| anyhow::anyhow!("reading the store's key record: {e}"))?;
    domain::health::keys::compare(&held, &keys.fingerprints())
        .map_err(|m| anyhow::anyhow!("{m}"))?;
    Ok(keys)
}

async fn configured_or_kept_keys(
    config: &Config,
    store: &Store,
    probe: &dyn domain::health::ports::StoreProbe,
) -> anyhow::Result<KeyMaterial> {
    if let Some(keys) = configured_keys(config, store)? {
        return Ok(keys);
    }
    let path = config.state_dir.join("keys.toml");
    let recorded = probe
        .key_fingerprints()
        .await
        .map_err(|e| anyhow::anyhow!("reading the store's key record: {e}"))?;
    if recorded.is_some() {
        bail!(
            "{} is missing, but the store was used with keys already (its data is sealed under \
             them): restore the file, or set IDREG_SIGNING_KEY and IDREG_MASTER_KEY to those keys. \
             New keys are not generated for a store that has data",
            path.display()
        );
    }
    let keys = KeyMaterial::generate();
    write_private_file(&path, keys.to_toml_string().as_str())?;
    tracing::info!(path = %path.display(), "generated a signing key and a master key on first run");
    Ok(keys)
}

/// The keys from configuration, or (the embedded store only) from `<state_dir>/keys.toml`;
/// `None` when neither holds them. Refuses a PostgreSQL store without configured keys.
pub fn configured_keys(config: &Config, store: &Store) -> anyhow::Result<Option<KeyMaterial>> {
    if let (Some(signing), Some(master)) = (&config.signing_key, &config.master_key) {
        return KeyMaterial::from_hex(signing, master)
            .map(Some)
            .map_err(|e| anyhow::anyhow!("configured keys: {e}"));
    }
    if let Store::Postgres(_) = store {
        bail!(
            "a PostgreSQL store needs its keys from configuration: set IDREG_SIGNING_KEY and \
             IDREG_MASTER_KEY (or IDREG_SIGNING_KEY_FILE and IDREG_MASTER_KEY_FILE), the same on \
             every replica; `idreg keys generate` makes a pair for your secret store. Keys are \
             never generated for a store replicas share"
        );
    }
    let path = config.state_dir.join("keys.toml");
    if !path.exists() {
        return Ok(None);
    }
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    KeyMaterial::from_toml_str(&text)
        .map(Some)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// Writes a file readable by its owner only.
pub(crate) fn write_private_file(path: &Path, contents: &str) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options
        .open(path)
        .with_context(|| format!("creating {}", path.display()))?;
    std::io::Write::write_all(&mut file, contents.as_bytes())?;
    Ok(())
}
