#![doc = include_str!("../README.md")]

pub mod annual_report;
pub mod control;
pub mod data;
pub mod faults;
pub mod foretagsinformation;
pub mod lt;
pub mod model;
pub mod plugin;
pub mod scb;
pub mod spar;
pub mod ssbtgu;
pub mod tls;
pub mod vdm;
pub mod verkliga_huvudman;

mod state;
mod util;

pub use control::{
    AddressPatch, CompanyPatch, ControlError, LtPatch, OfficerPatch, SandboxControl, SniPatch,
    TaxPatch,
};
pub use data::{
    testnr, AnnualReport, Company, CompanyStatus, Dataset, IdKind, LegalForm, LtCompany,
};
pub use faults::{ArmedFault, CallRecord, FaultKind, FaultSpec, Source};
pub use model::ModelRequestRecord;
pub use plugin::SandboxPlugin;
pub use state::MailboxMessage;
pub use tls::{SandboxTls, CLIENT_PKCS12_PASSWORD};
pub use util::{lt_code_valid, luhn_valid};

use actix_web::dev::ServerHandle;
use actix_web::{web, App, HttpResponse, HttpServer};
use state::SandboxState;
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// OAuth2 client id the sandbox's VDM token endpoint accepts.
pub const CLIENT_ID: &str = "sandbox-client";
/// OAuth2 client secret the sandbox's VDM token endpoint accepts.
pub const CLIENT_SECRET: &str = "sandbox-secret";
/// The scopes to request (both, space-separated, as against the real service).
pub const VDM_SCOPES: &str = "vardefulla-datamangder:read vardefulla-datamangder:ping";
/// The scope to request for the company information API.
pub const FI_SCOPES: &str = "foretagsinformation:read";
/// An `api-id` header value for SCB (any non-empty value is accepted).
pub const SCB_API_ID: &str = "A00000";
/// The API key the language model accepts (`x-api-key`, or `Authorization: Bearer`).
pub const MODEL_API_KEY: &str = "sandbox-model-key";

/// Path prefix of Bolagsverket VDM (the connector's base URL ends here).
pub const VDM_PREFIX: &str = "/bolagsverket/vdm";
/// Path of the SSBTGU SOAP endpoint.
pub const SSBTGU_PATH: &str = "/bolagsverket/ssbtgu";
/// Path prefix of Bolagsverket's company information API (paid).
pub const FI_PREFIX: &str = "/bolagsverket/foretagsinformation/v4";
/// Path prefix of Bolagsverket's beneficial-owners API (served on the TLS listener).
pub const BO_PREFIX: &str = "/bolagsverket/verkliga-huvudman/v1";
/// Path of SPAR's person search (served on the TLS listener).
pub const SPAR_PATH: &str = "/spar/personsok/2021.1/personsok";
/// Path prefix of SCB's företagsregister API.
pub const SCB_PREFIX: &str = "/scb";
/// Path prefix of Lithuania's open-data API.
pub const LT_PREFIX: &str = "/lt";
/// Path prefix of the language model (Anthropic Messages API; the client appends
/// `/v1/messages`).
pub const MODEL_PREFIX: &str = "/anthropic";
/// Path prefix of the control API.
pub const CONTROL_PREFIX: &str = "/control";

/// How to run a sandbox.
#[derive(Clone)]
pub struct SandboxConfig {
    /// Where to listen (default `127.0.0.1:0`: a free loopback port).
    pub listen: SocketAddr,
    /// Lifetime of VDM access tokens (`expires_in`; default 3600 s).
    pub token_ttl: Duration,
    /// How long a `timeout` fault holds a request (default 30 s).
    pub timeout_hold: Duration,
    /// HTTP worker threads (default 2).
    pub workers: usize,
    /// Require the right VDM scope per route (403 otherwise; default true).
    pub enforce_scopes: bool,
    /// Require a non-empty `api-id` header on SCB (401 otherwise; default true).
    pub require_scb_api_id: bool,
    /// The data set served (default [`Dataset::standard`]).
    pub dataset: Dataset,
    /// Also listen with mutual TLS (a throwaway CA; default true), for the sources that
    /// demand a client certificate.
    pub tls: bool,
    /// Upstreams country crates plug in ([`SandboxPlugin`]; none by default).
    pub plugins: Vec<Arc<dyn SandboxPlugin>>,
}

impl std::fmt::Debug for SandboxConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SandboxConfig")
            .field("listen", &self.listen)
            .field("workers", &self.workers)
            .field("tls", &self.tls)
            .field(
                "plugins",
                &self.plugins.iter().map(|p| p.name()).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            listen: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
            token_ttl: Duration::from_secs(3600),
            timeout_hold: Duration::from_secs(30),
            workers: 2,
            enforce_scopes: true,
            require_scb_api_id: true,
            dataset: Dataset::standard(),
            tls: true,
            plugins: Vec::new(),
        }
    }
}

impl SandboxConfig {
    pub fn with_listen(mut self, listen: SocketAddr) -> Self {
        self.listen = listen;
        self
    }

    pub fn with_token_ttl(mut self, ttl: Duration) -> Self {
        self.token_ttl = ttl;
        self
    }

    pub fn with_timeout_hold(mut self, hold: Duration) -> Self {
        self.timeout_hold = hold;
        self
    }

    pub fn with_dataset(mut self, dataset: Dataset) -> Self {
        self.dataset = dataset;
        self
    }

    /// Serves a plug-in's upstream too (see [`plugin`]).
    pub fn with_plugin(mut self, plugin: Arc<dyn SandboxPlugin>) -> Self {
        self.plugins.push(plugin);
        self
    }
}

/// Starts sandboxes.
pub struct Sandbox;

impl Sandbox {
    /// Binds and starts serving on the current Tokio runtime (any flavour; also inside an
    /// actix-web app). Returns at once; the server runs until [`RunningSandbox::stop`]
    /// (or until the runtime shuts down). Must be called from within a Tokio runtime.
    pub fn start(config: SandboxConfig) -> io::Result<RunningSandbox> {
        let (server, running) = build(config)?;
        tokio::spawn(async move {
            if let Err(e) = server.await {
                tracing::error!(error = %e, "upstream sandbox stopped with an error");
            }
        });
        Ok(running)
    }

    /// Like [`Sandbox::start`], but runs the server on a dedicated thread with its own
    /// runtime, so it can be called from synchronous code (no runtime needed).
    pub fn start_on_thread(config: SandboxConfig) -> io::Result<RunningSandbox> {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("upstream-sandbox".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                rt.block_on(async move {
                    match build(config) {
                        Ok((server, running)) => {
                            let _ = tx.send(Ok(running));
                            let _ = server.await;
                        }
                        Err(e) => {
                            let _ = tx.send(Err(e));
                        }
                    }
                });
            })?;
        rx.recv()
            .map_err(|_| io::Error::other("the sandbox thread ended before binding"))?
    }
}

fn build(config: SandboxConfig) -> io::Result<(actix_web::dev::Server, RunningSandbox)> {
    let mut names = std::collections::BTreeSet::new();
    for p in &config.plugins {
        plugin::check_name(p.name()).map_err(io::Error::other)?;
        if !names.insert(p.name()) {
            return Err(io::Error::other(format!(
                "two sandbox plug-ins are named `{}`",
                p.name()
            )));
        }
    }
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let state = web::Data::new(SandboxState::new(&config, shutdown_rx));
    let app_state = state.clone();
    let mut server = HttpServer::new(move || {
        let names: Vec<&'static str> = app_state.plugins.iter().map(|m| m.plugin.name()).collect();
        App::new()
            .app_data(app_state.clone())
            .configure(|cfg| plugins_routes(cfg, &names))
            .configure(configure)
    })
    .workers(config.workers.max(1))
    .disable_signals()
    .shutdown_timeout(1)
    .bind(config.listen)?;
    let addr = *server
        .addrs()
        .first()
        .ok_or_else(|| io::Error::other("bound to no address"))?;
    let connect = |addr: SocketAddr| match addr.ip() {
        ip if ip.is_unspecified() => SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), addr.port()),
        _ => addr,
    };
    let (tls, tls_base_url) = if config.tls {
        let tls = SandboxTls::generate()?;
        let tls_listen = SocketAddr::new(config.listen.ip(), 0);
        server = server.bind_rustls_0_23(tls_listen, tls.server_config()?)?;
        let tls_addr = server
            .addrs()
            .into_iter()
            .find(|a| *a != addr)
            .ok_or_else(|| io::Error::other("the TLS listener bound no address"))?;
        (Some(tls), Some(format!("https://{}", connect(tls_addr))))
    } else {
        (None, None)
    };
    let server = server.run();
    let connect_addr = connect(addr);
    let _ = state.base_url.set(format!("http://{connect_addr}"));
    let running = RunningSandbox {
        base_url: format!("http://{connect_addr}"),
        tls_base_url,
        tls,
        addr,
        handle: server.handle(),
        state,
        shutdown: shutdown_tx,
    };
    Ok((server, running))
}

/// Registers every route of the sandbox.
fn configure(cfg: &mut web::ServiceConfig) {
    vdm::routes(cfg);
    foretagsinformation::routes(cfg);
    verkliga_huvudman::routes(cfg);
    ssbtgu::routes(cfg);
    spar::routes(cfg);
    scb::routes(cfg);
    lt::routes(cfg);
    model::routes(cfg);
    control::routes(cfg);
    cfg.route("/", web::get().to(root));
}

/// Each plug-in's requests, under `/<name>` (its control routes are in `/control`).
fn plugins_routes(cfg: &mut web::ServiceConfig, names: &[&'static str]) {
    for (at, name) in names.iter().enumerate() {
        cfg.service(
            web::scope(&format!("/{name}"))
                .app_data(web::Data::new(at))
                .default_service(web::to(plugin_request)),
        );
    }
}

/// A plug-in's request, under fault injection and the call log.
async fn plugin_request(
    state: web::Data<SandboxState>,
    at: web::Data<usize>,
    req: actix_web::HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    let Some(mounted) = state.plugins.get(**at) else {
        return HttpResponse::NotFound().finish();
    };
    let plugin = mounted.plugin.clone();
    let r = req.clone();
    state
        .faults
        .guarded(&mounted.upstream, &req, move |_| async move {
            let path = &r.path()[plugin.name().len() + 1..];
            plugin.answer(&r, path, &body)
        })
        .await
}

/// What the fault injector knows of each of the sandbox's own sources (its error shape and
/// `field_fel` rules); a plug-in's is kept with it in the running sandbox's state.
pub(crate) fn upstream(source: Source) -> Option<&'static faults::Upstream> {
    Some(match source {
        Source::Bolagsverket => &vdm::DATA,
        Source::BolagsverketToken => &vdm::TOKEN,
        Source::Ssbtgu => &ssbtgu::UPSTREAM,
        Source::Scb => &scb::UPSTREAM,
        Source::Lt => &lt::UPSTREAM,
        Source::Foretagsinformation => &foretagsinformation::UPSTREAM,
        Source::VerkligaHuvudman => &verkliga_huvudman::UPSTREAM,
        Source::Personsokning => &spar::UPSTREAM,
        Source::Model => &model::UPSTREAM,
        Source::Plugin(_) => return None,
    })
}

async fn root(state: web::Data<SandboxState>) -> HttpResponse {
    let base = state.base().to_owned();
    let mut urls = urls_json(&base);
    let plugins: serde_json::Map<String, serde_json::Value> = state
        .plugins
        .iter()
        .map(|m| {
            let name = m.plugin.name();
            (name.to_owned(), format!("{base}/{name}").into())
        })
        .collect();
    urls["plugins"] = plugins.into();
    HttpResponse::Ok().json(urls)
}

/// The base URLs of every source under `base`, as JSON.
pub fn urls_json(base: &str) -> serde_json::Value {
    serde_json::json!({
        "base_url": base,
        "bolagsverket_vdm": format!("{base}{VDM_PREFIX}"),
        "bolagsverket_vdm_token": format!("{base}{VDM_PREFIX}/oauth2/token"),
        "bolagsverket_ssbtgu": format!("{base}{SSBTGU_PATH}"),
        "bolagsverket_foretagsinformation": format!("{base}{FI_PREFIX}"),
        "scb": format!("{base}{SCB_PREFIX}"),
        "lt": format!("{base}{LT_PREFIX}"),
        "model": format!("{base}{MODEL_PREFIX}"),
        "control": format!("{base}{CONTROL_PREFIX}"),
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "scope": VDM_SCOPES,
        "model_api_key": MODEL_API_KEY,
    })
}

/// A sandbox that is serving.
pub struct RunningSandbox {
    /// `http://127.0.0.1:<port>`.
    pub base_url: String,
    /// `https://127.0.0.1:<port>`: the mutual-TLS listener (when enabled).
    pub tls_base_url: Option<String>,
    /// The throwaway CA and client identity of the TLS listener (when enabled).
    pub tls: Option<SandboxTls>,
    /// The bound address.
    pub addr: SocketAddr,
    /// The actix server handle (stop/pause).
    pub handle: ServerHandle,
    state: web::Data<SandboxState>,
    shutdown: watch::Sender<bool>,
}

impl RunningSandbox {
    /// Base URL for the VDM connector (`…/bolagsverket/vdm`).
    pub fn vdm_base_url(&self) -> String {
        format!("{}{VDM_PREFIX}", self.base_url)
    }

    /// VDM token endpoint (`…/bolagsverket/vdm/oauth2/token`).
    pub fn vdm_token_url(&self) -> String {
        format!("{}{VDM_PREFIX}/oauth2/token", self.base_url)
    }

    /// Base URL for the company information connector (`…/bolagsverket/foretagsinformation/v4`).
    pub fn fi_base_url(&self) -> String {
        format!("{}{FI_PREFIX}", self.base_url)
    }

    /// Base URL for the beneficial-owners connector, on the mutual-TLS listener
    /// (`https://…/bolagsverket/verkliga-huvudman/v1`), when TLS is enabled.
    pub fn bo_base_url(&self) -> Option<String> {
        self.tls_base_url
            .as_ref()
            .map(|b| format!("{b}{BO_PREFIX}"))
    }

    /// SPAR's person search on the mutual-TLS listener (`https://…/spar/personsok/2021.1/personsok`),
    /// when TLS is enabled.
    pub fn spar_url(&self) -> Option<String> {
        self.tls_base_url
            .as_ref()
            .map(|b| format!("{b}{SPAR_PATH}"))
    }

    /// SSBTGU SOAP endpoint (`…/bolagsverket/ssbtgu`).
    pub fn ssbtgu_url(&self) -> String {
        format!("{}{SSBTGU_PATH}", self.base_url)
    }

    /// Base URL for the SCB connector (`…/scb`; it appends `/api/je/hamtaforetag`).
    pub fn scb_base_url(&self) -> String {
        format!("{}{SCB_PREFIX}", self.base_url)
    }

    /// Base URL for the Lithuanian connector (`…/lt`; it appends `/datasets/gov/...`).
    pub fn lt_base_url(&self) -> String {
        format!("{}{LT_PREFIX}", self.base_url)
    }

    /// Base URL for the language model's Anthropic Messages client (`…/anthropic`; it
    /// appends `/v1/messages`).
    pub fn model_base_url(&self) -> String {
        format!("{}{MODEL_PREFIX}", self.base_url)
    }

    /// Base URL of a plug-in's upstream (`…/<name>`), served over plain HTTP.
    pub fn plugin_base_url(&self, name: &str) -> String {
        format!("{}/{name}", self.base_url)
    }

    /// Control API root (`…/control`).
    pub fn control_url(&self) -> String {
        format!("{}{CONTROL_PREFIX}", self.base_url)
    }

    /// All base URLs and the credentials, as JSON.
    pub fn urls_json(&self) -> serde_json::Value {
        urls_json(&self.base_url)
    }

    /// In-process control (faults, scripted changes, reset, call log).
    pub fn control(&self) -> SandboxControl {
        SandboxControl {
            state: self.state.clone(),
        }
    }

    /// Stops serving: held (`timeout`) requests end at once, then the server stops.
    pub async fn stop(self) {
        let _ = self.shutdown.send(true);
        self.handle.stop(true).await;
        if let Some(tls) = &self.tls {
            tls.remove_files();
        }
    }

    /// [`RunningSandbox::stop`] for synchronous code (e.g. a sandbox from
    /// [`Sandbox::start_on_thread`]). Must not be called from within a Tokio runtime.
    pub fn stop_blocking(self) {
        let _ = self.shutdown.send(true);
        let stopping = self.handle.stop(true);
        match tokio::runtime::Builder::new_current_thread().build() {
            Ok(rt) => rt.block_on(stopping),
            Err(e) => tracing::error!(error = %e, "could not wait for the sandbox to stop"),
        }
        if let Some(tls) = &self.tls {
            tls.remove_files();
        }
    }
}

impl std::fmt::Debug for RunningSandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningSandbox")
            .field("base_url", &self.base_url)
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}
