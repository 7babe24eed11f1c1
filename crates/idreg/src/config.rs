//! Configuration: defaults, then an optional TOML file, then `IDREG_*` environment variables
//! (and `DATABASE_URL`), then command-line flags. Every key is listed in the README.
//!
//! Every variable may instead be given as a file: `<NAME>_FILE` names a file whose contents
//! (a trailing newline dropped) are the value, the container-secrets convention
//! (`IDREG_MASTER_KEY_FILE=/run/secrets/idreg_master_key`). Setting both is refused.
//!
//! | Environment            | TOML key             | Default |
//! |------------------------|----------------------|---------|
//! | `DATABASE_URL`         | `database_url`       | `sqlite://<state dir>/idreg.sqlite3` (embedded); `postgres://...` for PostgreSQL |
//! | `IDREG_CONFIG`         | (the file itself)    | none |
//! | `IDREG_LISTEN`         | `listen`             | `127.0.0.1:8080` |
//! | `IDREG_METRICS_LISTEN` | `metrics_listen`     | none: no metrics listener (`GET /metrics` on the address given) |
//! | `IDREG_STATE_DIR`      | `state_dir`          | `.idreg` |
//! | `IDREG_SIGNING_KEY`    | `signing_key`        | embedded store: generated and kept in the state dir; PostgreSQL: required |
//! | `IDREG_MASTER_KEY`     | `master_key`         | embedded store: generated and kept in the state dir; PostgreSQL: required |
//! | `IDREG_TOKEN_TTL_SECONDS` | `token_ttl_seconds` | `900` |
//! | `IDREG_COMPANY_REVALIDATE_SECONDS` | `company_revalidate_seconds` | `86400` |
//! | `IDREG_PAID_REVALIDATE_SECONDS` | `paid_revalidate_seconds` | `86400` |
//! | `IDREG_PERSON_REVALIDATE_SECONDS` | `person_revalidate_seconds` | `86400` |
//! | `IDREG_DB_POOL_SIZE`   | `db_pool_size`       | `24`: the most database connections the process opens, in all its pools |
//! | `IDREG_WORKERS`        | `workers`            | the number of cores |
//! | `IDREG_PUBLIC_URL`     | `public_url`         | none; required by `serve` off loopback (on loopback: the listener's address, or the loopback name the client used) |
//! | `IDREG_LOG`            | `log`                | `info` |
//! | `IDREG_LOG_FORMAT`     | `log_format`         | `text` (or `json`) |
//! | `IDREG_LISTS_URLS`     | `lists_urls`         | none (no scheduled list import); `official`, or `source=url,...` |
//! | `IDREG_LISTS_INTERVAL_HOURS` | `lists_interval_hours` | `24` (`0` off) |
//! | `IDREG_BUDGET_TIME_ZONE` | `budget_time_zone` | `Europe/Stockholm`: the IANA time zone whose midnight renews the paid budgets and dates the permits (one for the deployment) |
//! | `IDREG_TEST_MODE`      | `test_mode`          | `off`: test-mode grants' register reads are 501 (`on`: served by an upstream sandbox started in this process; on in `idreg demo` and `serve --sandbox`) |
//! | `IDREG_PORTAL_LISTEN`  | `portal_listen`      | none: no tenant portal in this process (`idreg demo`: `127.0.0.1:8081`) |
//! | `IDREG_PORTAL_URL`     | `portal_url`         | none; required by `serve` when the portal listens (the demo and tests: the loopback listener's own address). The mailed links' origin, the cookies' `Secure` flag and the origin a write must come from: never taken from a request |
//! | `IDREG_SMTP_URL`       | `smtp_url`           | none: the portal's mail goes to the sandbox's mailbox where one runs, else nowhere (a sign-in answers as for any address and the operator is warned); `smtps://user:pass@host:465`, `smtp://host:587?tls=required` (STARTTLS), `smtp://host:25` (a local relay, no TLS) |
//! | `IDREG_MAIL_FROM`      | `mail_from`          | none (required with `IDREG_SMTP_URL`): the sender, `idreg <no-reply@example.com>` |
//! | `IDREG_WEBHOOK_INTERVAL_MS` | `webhook_interval_ms` | `1000` (`0`: no webhook delivery in this process) |
//! | `IDREG_WEBHOOK_ALLOW_LOOPBACK` | `webhook_allow_loopback` | `off` (`on` in `idreg demo`): endpoints may name a loopback host, plain http to it included |
//! | `IDREG_OAUTH_DOCUMENTS_ALLOW_LOOPBACK` | `oauth_documents_allow_loopback` | `off`: client metadata documents on loopback addresses are refused (tests turn it on) |
//! | `IDREG_OAUTH_DOCUMENTS_CA_FILE` | `oauth_documents_ca_file` | none: a PEM certificate trusted beside the system's when reading client metadata documents (a test's own CA) |
//! | `IDREG_ASSISTANT_PROTOCOL` | `assistant_protocol` | `anthropic` (the Messages API), or `openai` (chat completions): how the portal assistant's model is spoken to |
//! | `IDREG_ASSISTANT_URL`  | `assistant_url`      | none: no portal assistant (the demo and `serve --sandbox`: the sandbox's model). The model endpoint's base, `https://api.anthropic.com`, `http://127.0.0.1:11434` (Ollama) |
//! | `IDREG_ASSISTANT_MODEL` | `assistant_model`   | none (required with `IDREG_ASSISTANT_URL`): the model's name |
//! | `IDREG_ASSISTANT_KEY`  | `assistant_key`      | none: the model endpoint's API key (give it as `IDREG_ASSISTANT_KEY_FILE`) |
//! | `IDREG_ASSISTANT_DAILY_CALLS` | `assistant_daily_calls` | `200`: model calls a tenant's assistant may make a day |
//! | `IDREG_ASSISTANT_RETENTION_DAYS` | `assistant_retention_days` | `30`: days a conversation is kept after it was last used |
//! | `IDREG_WEBHOOK_RETRY_SECONDS` | `webhook_retry_seconds` | `5,300,1800,7200,18000,36000` (the last repeats) |
//! | `IDREG_WEBHOOK_DISABLE_AFTER_HOURS` | `webhook_disable_after_hours` | `120` (5 days of failing) |

use anyhow::{bail, Context};
use serde::Deserialize;
use std::path::PathBuf;

pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
pub const DEFAULT_STATE_DIR: &str = ".idreg";
pub const DEFAULT_TOKEN_TTL_SECONDS: i64 = 900;
pub const DEFAULT_DB_POOL_SIZE: usize = 24;
pub const DEFAULT_COMPANY_REVALIDATE_SECONDS: i64 = 86_400;
pub const DEFAULT_PAID_REVALIDATE_SECONDS: i64 = 86_400;
pub const DEFAULT_PERSON_REVALIDATE_SECONDS: i64 = 86_400;

#[derive(Clone)]
pub struct Config {
    /// Where the data is kept: empty for the default embedded file in the state folder
    /// (see [`Config::store_url`]), else `sqlite://<path>` or `postgres://...`.
    pub database_url: String,
    pub listen: String,
    /// The operator's listener for `GET /metrics` (Prometheus); none by default, and never
    /// the consumer listener.
    pub metrics_listen: Option<String>,
    pub state_dir: PathBuf,
    pub signing_key: Option<String>,
    pub master_key: Option<String>,
    pub token_ttl_seconds: i64,
    pub company_revalidate_seconds: i64,
    /// How long a cached paid object is served before the paid tier is asked again.
    pub paid_revalidate_seconds: i64,
    /// How long a cached person profile is served before the register is asked again (a
    /// person profile is never served past it).
    pub person_revalidate_seconds: i64,
    /// The most database connections the process opens, over all its pools (PostgreSQL: a
    /// quarter for background work, the rest split among the listeners' worker threads).
    pub db_pool_size: usize,
    pub workers: Option<usize>,
    /// The origin clients reach the service at (behind a proxy), named in the OAuth discovery
    /// documents and challenges; without it each request's own scheme and host are used.
    pub public_origin: api_core::discovery::PublicOrigin,
    /// Milliseconds between the scheduler's passes when it found no more due work; 0 turns
    /// scheduled monitoring off in this process (another replica may run it).
    pub scheduler_interval_ms: u64,
    /// How long a replica holds a claimed run before another may take it over.
    pub scheduler_lease_seconds: i64,
    /// Runs claimed per pass.
    pub scheduler_batch: u32,
    /// How far below the HTTP workers' CPU priority the background work runs.
    pub background_priority: crate::background::Priority,
    /// Milliseconds between the webhook dispatcher's passes when it found nothing due; 0
    /// turns webhook delivery off in this process (another replica may run it).
    pub webhook_interval_ms: u64,
    /// The tenant portal's listener (its own origin); none: no portal in this process.
    pub portal_listen: Option<String>,
    /// The portal's origin as browsers reach it (named in sign-in links); none: each
    /// request's own scheme and host.
    pub portal_url: Option<String>,
    /// The SMTP server the portal's mail goes through (credentials in the URL); none: the
    /// sandbox's mailbox where one runs, else no transport.
    pub smtp_url: Option<String>,
    /// The portal mail's sender.
    pub mail_from: Option<String>,
    /// Whether webhook endpoints may name a loopback host (plain http to it included): on in
    /// the demo, off by default.
    pub webhook_allow_loopback: bool,
    /// Whether client metadata documents (OAuth) may be read from loopback addresses: for
    /// tests only, off by default.
    pub oauth_documents_allow_loopback: bool,
    /// A PEM certificate trusted beside the system's roots when reading client metadata
    /// documents (a test's own CA).
    pub oauth_documents_ca_file: Option<PathBuf>,
    /// When a failed webhook delivery is retried, and when a failing endpoint is disabled.
    pub webhook_schedule: domain::webhooks::endpoint::RetrySchedule,
    pub log: String,
    pub log_format: LogFormat,
    /// Run against the upstream sandbox started in this process (`--sandbox`, `demo`).
    pub sandbox: bool,
    /// Each compiled-in country's settings (`IDREG_<CC>_*` without the prefix, lower case,
    /// or the file's `[<cc>]` table), by lower-case country prefix.
    pub countries: std::collections::BTreeMap<&'static str, crate::countries::Settings>,
    /// Sanctions lists imported on a schedule from their URLs (`IDREG_LISTS_URLS`; none by
    /// default: the lists are imported by hand, or by the demo from the bundled files).
    pub lists: Vec<crate::list_schedule::ScheduledList>,
    /// Hours between scheduled list imports; 0 turns them off.
    pub lists_interval_hours: u64,
    /// The calendar of the budget's and the permit's day (`IDREG_BUDGET_TIME_ZONE`).
    pub calendar: domain::companies::budget::BudgetCalendar,
    /// Serve test-mode grants from the upstream sandbox started in this process.
    pub test_mode: bool,
    /// The portal assistant's model and bounds.
    pub assistant: AssistantConfig,
}

/// The portal assistant's model (none: the assistant is off, unless the process runs on
/// the sandbox, whose model it then uses) and its bounds.
#[derive(Clone)]
pub struct AssistantConfig {
    pub protocol: String,
    pub url: Option<String>,
    pub model: Option<String>,
    pub key: Option<String>,
    pub daily_calls: u32,
    pub retention_days: u32,
}

impl Default for AssistantConfig {
    fn default() -> Self {
        AssistantConfig {
            protocol: "anthropic".to_owned(),
            url: None,
            model: None,
            key: None,
            daily_calls: domain::assistant::bounds::DEFAULT_DAILY_CALLS,
            retention_days: domain::assistant::bounds::default_retention().num_days() as u32,
        }
    }
}

impl std::fmt::Debug for AssistantConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AssistantConfig")
            .field("protocol", &self.protocol)
            .field("url", &self.url)
            .field("model", &self.model)
            .field("key", &self.key.as_ref().map(|_| "<redacted>"))
            .field("daily_calls", &self.daily_calls)
            .field("retention_days", &self.retention_days)
            .finish()
    }
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("listen", &self.listen)
            .field("metrics_listen", &self.metrics_listen)
            .field("state_dir", &self.state_dir)
            .field("signing_key", &self.signing_key.as_ref().map(|_| "<set>"))
            .field("master_key", &self.master_key.as_ref().map(|_| "<set>"))
            // The URL carries the SMTP credentials.
            .field("smtp_url", &self.smtp_url.as_ref().map(|_| "<set>"))
            .field("mail_from", &self.mail_from)
            .field("token_ttl_seconds", &self.token_ttl_seconds)
            .field("sandbox", &self.sandbox)
            .field(
                "countries",
                &self
                    .countries
                    .iter()
                    .map(|(cc, s)| (cc, s.keys().collect::<Vec<_>>()))
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            database_url: String::new(),
            listen: DEFAULT_LISTEN.to_owned(),
            metrics_listen: None,
            state_dir: PathBuf::from(DEFAULT_STATE_DIR),
            signing_key: None,
            master_key: None,
            token_ttl_seconds: DEFAULT_TOKEN_TTL_SECONDS,
            company_revalidate_seconds: DEFAULT_COMPANY_REVALIDATE_SECONDS,
            paid_revalidate_seconds: DEFAULT_PAID_REVALIDATE_SECONDS,
            person_revalidate_seconds: DEFAULT_PERSON_REVALIDATE_SECONDS,
            db_pool_size: DEFAULT_DB_POOL_SIZE,
            workers: None,
            public_origin: api_core::discovery::PublicOrigin::from_requests(),
            scheduler_interval_ms: 5_000,
            scheduler_lease_seconds: 300,
            scheduler_batch: 50,
            background_priority: crate::background::Priority::Idle,
            portal_listen: None,
            portal_url: None,
            smtp_url: None,
            mail_from: None,
            webhook_interval_ms: 1_000,
            webhook_allow_loopback: false,
            oauth_documents_allow_loopback: false,
            oauth_documents_ca_file: None,
            webhook_schedule: Default::default(),
            log: "info".to_owned(),
            log_format: LogFormat::Text,
            sandbox: false,
            countries: Default::default(),
            lists: Vec::new(),
            lists_interval_hours: crate::list_schedule::DEFAULT_INTERVAL_HOURS,
            calendar: Default::default(),
            test_mode: false,
            assistant: AssistantConfig::default(),
        }
    }
}

/// The TOML file's shape: every key optional.
#[derive(Deserialize, Default)]
struct FileConfig {
    database_url: Option<String>,
    listen: Option<String>,
    metrics_listen: Option<String>,
    state_dir: Option<PathBuf>,
    signing_key: Option<String>,
    master_key: Option<String>,
    token_ttl_seconds: Option<i64>,
    company_revalidate_seconds: Option<i64>,
    paid_revalidate_seconds: Option<i64>,
    person_revalidate_seconds: Option<i64>,
    db_pool_size: Option<usize>,
    workers: Option<usize>,
    public_url: Option<String>,
    scheduler_interval_ms: Option<u64>,
    scheduler_lease_seconds: Option<i64>,
    scheduler_batch: Option<u32>,
    background_priority: Option<String>,
    portal_listen: Option<String>,
    portal_url: Option<String>,
    smtp_url: Option<String>,
    mail_from: Option<String>,
    webhook_interval_ms: Option<u64>,
    webhook_allow_loopback: Option<bool>,
    oauth_documents_allow_loopback: Option<bool>,
    oauth_documents_ca_file: Option<PathBuf>,
    webhook_retry_seconds: Option<String>,
    webhook_disable_after_hours: Option<i64>,
    log: Option<String>,
    log_format: Option<String>,
    lists_urls: Option<String>,
    lists_interval_hours: Option<u64>,
    budget_time_zone: Option<String>,
    test_mode: Option<bool>,
    assistant_protocol: Option<String>,
    assistant_url: Option<String>,
    assistant_model: Option<String>,
    assistant_key: Option<String>,
    assistant_daily_calls: Option<u32>,
    assistant_retention_days: Option<u32>,
    /// The countries' tables (`[se]`, `[lt]`, ...): every other top-level key; checked
    /// against the compiled-in countries and their settings.
    #[serde(flatten)]
    tables: std::collections::BTreeMap<String, toml::Value>,
}

impl Config {
    /// Defaults, then the file named by `IDREG_CONFIG` (if any), then the environment.
    pub fn load() -> anyhow::Result<Config> {
        Self::load_from(|k| std::env::var(k).ok())
    }

    /// As [`Config::load`], reading variables through `var` (tests pass a map).
    pub fn load_from(raw: impl Fn(&str) -> Option<String>) -> anyhow::Result<Config> {
        crate::countries::install_schemes();
        let var = |name: &str| -> anyhow::Result<Option<String>> { with_file(&raw, name) };
        let mut config = Config::default();
        if let Some(path) = raw("IDREG_CONFIG") {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading the configuration file {path}"))?;
            let file: FileConfig = toml::from_str(&text)
                .with_context(|| format!("parsing the configuration file {path}"))?;
            config.apply_file(file)?;
        }
        if let Some(v) = var("DATABASE_URL")? {
            config.database_url = v;
        }
        if let Some(v) = var("IDREG_LISTEN")? {
            config.listen = v;
        }
        if let Some(v) = var("IDREG_METRICS_LISTEN")? {
            config.metrics_listen = Some(v).filter(|v| !v.is_empty());
        }
        if let Some(v) = var("IDREG_TEST_MODE")? {
            config.test_mode = match v.as_str() {
                "on" | "true" => true,
                "off" | "false" => false,
                _ => bail!("IDREG_TEST_MODE must be on or off"),
            };
        }
        if let Some(v) = var("IDREG_STATE_DIR")? {
            config.state_dir = PathBuf::from(v);
        }
        if let Some(v) = var("IDREG_SIGNING_KEY")? {
            config.signing_key = Some(v);
        }
        if let Some(v) = var("IDREG_MASTER_KEY")? {
            config.master_key = Some(v);
        }
        if let Some(v) = var("IDREG_TOKEN_TTL_SECONDS")? {
            config.token_ttl_seconds = v
                .parse()
                .context("IDREG_TOKEN_TTL_SECONDS must be a whole number")?;
        }
        if let Some(v) = var("IDREG_COMPANY_REVALIDATE_SECONDS")? {
            config.company_revalidate_seconds = v
                .parse()
                .context("IDREG_COMPANY_REVALIDATE_SECONDS must be a whole number")?;
        }
        if let Some(v) = var("IDREG_PAID_REVALIDATE_SECONDS")? {
            config.paid_revalidate_seconds = v
                .parse()
                .context("IDREG_PAID_REVALIDATE_SECONDS must be a whole number")?;
        }
        if let Some(v) = var("IDREG_PERSON_REVALIDATE_SECONDS")? {
            config.person_revalidate_seconds = v
                .parse()
                .context("IDREG_PERSON_REVALIDATE_SECONDS must be a whole number")?;
        }
        if let Some(v) = var("IDREG_DB_POOL_SIZE")? {
            config.db_pool_size = v
                .parse()
                .context("IDREG_DB_POOL_SIZE must be a whole number")?;
        }
        if let Some(v) = var("IDREG_WORKERS")? {
            config.workers = Some(v.parse().context("IDREG_WORKERS must be a whole number")?);
        }
        if let Some(v) = var("IDREG_PUBLIC_URL")? {
            config.public_origin = public_origin(&v)?;
        }
        if let Some(v) = var("IDREG_SCHEDULER_INTERVAL_MS")? {
            config.scheduler_interval_ms = v
                .parse()
                .context("IDREG_SCHEDULER_INTERVAL_MS must be a whole number")?;
        }
        if let Some(v) = var("IDREG_SCHEDULER_LEASE_SECONDS")? {
            config.scheduler_lease_seconds = v
                .parse()
                .context("IDREG_SCHEDULER_LEASE_SECONDS must be a whole number")?;
        }
        if let Some(v) = var("IDREG_SCHEDULER_BATCH")? {
            config.scheduler_batch = v
                .parse()
                .context("IDREG_SCHEDULER_BATCH must be a whole number")?;
        }
        if let Some(v) = var("IDREG_BACKGROUND_PRIORITY")? {
            config.background_priority = background_priority(&v)?;
        }
        if let Some(v) = var("IDREG_PORTAL_LISTEN")? {
            config.portal_listen = Some(v).filter(|v| !v.is_empty());
        }
        if let Some(v) = var("IDREG_PORTAL_URL")? {
            config.portal_url = Some(v).filter(|v| !v.is_empty());
        }
        if let Some(v) = var("IDREG_SMTP_URL")? {
            config.smtp_url = Some(v).filter(|v| !v.is_empty());
        }
        if let Some(v) = var("IDREG_MAIL_FROM")? {
            config.mail_from = Some(v).filter(|v| !v.is_empty());
        }
        if let Some(v) = var("IDREG_WEBHOOK_INTERVAL_MS")? {
            config.webhook_interval_ms = v
                .parse()
                .context("IDREG_WEBHOOK_INTERVAL_MS must be a whole number")?;
        }
        if let Some(v) = var("IDREG_WEBHOOK_ALLOW_LOOPBACK")? {
            config.webhook_allow_loopback = on_off(&v, "IDREG_WEBHOOK_ALLOW_LOOPBACK")?;
        }
        if let Some(v) = var("IDREG_OAUTH_DOCUMENTS_ALLOW_LOOPBACK")? {
            config.oauth_documents_allow_loopback =
                on_off(&v, "IDREG_OAUTH_DOCUMENTS_ALLOW_LOOPBACK")?;
        }
        if let Some(v) = var("IDREG_OAUTH_DOCUMENTS_CA_FILE")? {
            config.oauth_documents_ca_file = Some(PathBuf::from(v));
        }
        if let Some(v) = var("IDREG_ASSISTANT_PROTOCOL")? {
            config.assistant.protocol = v;
        }
        if let Some(v) = var("IDREG_ASSISTANT_URL")? {
            config.assistant.url = Some(v).filter(|v| !v.is_empty());
        }
        if let Some(v) = var("IDREG_ASSISTANT_MODEL")? {
            config.assistant.model = Some(v).filter(|v| !v.is_empty());
        }
        if let Some(v) = var("IDREG_ASSISTANT_KEY")? {
            config.assistant.key = Some(v).filter(|v| !v.is_empty());
        }
        if let Some(v) = var("IDREG_ASSISTANT_DAILY_CALLS")? {
            config.assistant.daily_calls = v
                .parse()
                .context("IDREG_ASSISTANT_DAILY_CALLS must be a whole number")?;
        }
        if let Some(v) = var("IDREG_ASSISTANT_RETENTION_DAYS")? {
            config.assistant.retention_days = v
                .parse()
                .context("IDREG_ASSISTANT_RETENTION_DAYS must be a whole number")?;
        }
        if let Some(v) = var("IDREG_WEBHOOK_RETRY_SECONDS")? {
            config.webhook_schedule.delays = retry_delays(&v)?;
        }
        if let Some(v) = var("IDREG_WEBHOOK_DISABLE_AFTER_HOURS")? {
            config.webhook_schedule.disable_after = disable_after(
                v.parse()
                    .context("IDREG_WEBHOOK_DISABLE_AFTER_HOURS must be a whole number")?,
            )?;
        }
        if let Some(v) = var("IDREG_LOG")? {
            config.log = v;
        }
        if let Some(v) = var("IDREG_LISTS_URLS")? {
            config.lists = crate::list_schedule::parse_urls(&v)?;
        }
        if let Some(v) = var("IDREG_LISTS_INTERVAL_HOURS")? {
            config.lists_interval_hours = v
                .parse()
                .context("IDREG_LISTS_INTERVAL_HOURS must be a whole number")?;
        }
        if let Some(v) = var("IDREG_BUDGET_TIME_ZONE")? {
            config.calendar = domain::companies::budget::BudgetCalendar::parse(&v)
                .map_err(|e| anyhow::anyhow!("IDREG_BUDGET_TIME_ZONE is {e}"))?;
        }
        for wiring in crate::countries::COUNTRIES {
            let cc = wiring.country.prefix();
            for key in wiring.settings {
                let name = connector_kit::plug::variable(wiring.country, key);
                if let Some(v) = var(&name)? {
                    config
                        .countries
                        .entry(cc)
                        .or_default()
                        .insert((*key).to_owned(), v);
                }
            }
        }
        if let Some(v) = var("IDREG_LOG_FORMAT")? {
            config.log_format = parse_log_format(&v)?;
        }
        config.validate()?;
        Ok(config)
    }

    fn apply_file(&mut self, file: FileConfig) -> anyhow::Result<()> {
        if let Some(v) = file.database_url {
            self.database_url = v;
        }
        if let Some(v) = file.listen {
            self.listen = v;
        }
        if let Some(v) = file.metrics_listen {
            self.metrics_listen = Some(v).filter(|v| !v.is_empty());
        }
        if let Some(v) = file.test_mode {
            self.test_mode = v;
        }
        if let Some(v) = file.state_dir {
            self.state_dir = v;
        }
        self.signing_key = file.signing_key.or(self.signing_key.take());
        self.master_key = file.master_key.or(self.master_key.take());
        if let Some(v) = file.token_ttl_seconds {
            self.token_ttl_seconds = v;
        }
        if let Some(v) = file.company_revalidate_seconds {
            self.company_revalidate_seconds = v;
        }
        if let Some(v) = file.paid_revalidate_seconds {
            self.paid_revalidate_seconds = v;
        }
        if let Some(v) = file.person_revalidate_seconds {
            self.person_revalidate_seconds = v;
        }
        if let Some(v) = file.db_pool_size {
            self.db_pool_size = v;
        }
        if file.workers.is_some() {
            self.workers = file.workers;
        }
        if let Some(v) = file.public_url {
            self.public_origin = public_origin(&v)?;
        }
        if let Some(v) = file.scheduler_interval_ms {
            self.scheduler_interval_ms = v;
        }
        if let Some(v) = file.scheduler_lease_seconds {
            self.scheduler_lease_seconds = v;
        }
        if let Some(v) = file.background_priority {
            self.background_priority = background_priority(&v)?;
        }
        if let Some(v) = file.scheduler_batch {
            self.scheduler_batch = v;
        }
        if file.portal_listen.is_some() {
            self.portal_listen = file.portal_listen;
        }
        if file.portal_url.is_some() {
            self.portal_url = file.portal_url;
        }
        if file.smtp_url.is_some() {
            self.smtp_url = file.smtp_url;
        }
        if file.mail_from.is_some() {
            self.mail_from = file.mail_from;
        }
        if let Some(v) = file.webhook_interval_ms {
            self.webhook_interval_ms = v;
        }
        if let Some(v) = file.webhook_allow_loopback {
            self.webhook_allow_loopback = v;
        }
        if let Some(v) = file.oauth_documents_allow_loopback {
            self.oauth_documents_allow_loopback = v;
        }
        if let Some(v) = file.assistant_protocol {
            self.assistant.protocol = v;
        }
        if let Some(v) = file.assistant_url {
            self.assistant.url = Some(v).filter(|v| !v.is_empty());
        }
        if let Some(v) = file.assistant_model {
            self.assistant.model = Some(v).filter(|v| !v.is_empty());
        }
        if let Some(v) = file.assistant_key {
            self.assistant.key = Some(v).filter(|v| !v.is_empty());
        }
        if let Some(v) = file.assistant_daily_calls {
            self.assistant.daily_calls = v;
        }
        if let Some(v) = file.assistant_retention_days {
            self.assistant.retention_days = v;
        }
        if let Some(v) = file.oauth_documents_ca_file {
            self.oauth_documents_ca_file = Some(v);
        }
        if let Some(v) = file.webhook_retry_seconds {
            self.webhook_schedule.delays = retry_delays(&v)?;
        }
        if let Some(v) = file.webhook_disable_after_hours {
            self.webhook_schedule.disable_after = disable_after(v)?;
        }
        if let Some(v) = file.log {
            self.log = v;
        }
        if let Some(v) = file.log_format {
            self.log_format = parse_log_format(&v)?;
        }
        if let Some(v) = file.lists_urls {
            self.lists = crate::list_schedule::parse_urls(&v)?;
        }
        if let Some(v) = file.lists_interval_hours {
            self.lists_interval_hours = v;
        }
        if let Some(v) = file.budget_time_zone {
            self.calendar = domain::companies::budget::BudgetCalendar::parse(&v)
                .map_err(|e| anyhow::anyhow!("budget_time_zone is {e}"))?;
        }
        for (table, value) in file.tables {
            let Some(wiring) = crate::countries::COUNTRIES
                .iter()
                .find(|w| w.country.prefix() == table)
            else {
                bail!("unknown key `{table}` in the configuration file");
            };
            let toml::Value::Table(entries) = value else {
                bail!("`{table}` must be a table of settings");
            };
            for (key, value) in entries {
                if !wiring.settings.contains(&key.as_str()) {
                    bail!("unknown key `{key}` in the [{table}] table");
                }
                let value = match value {
                    toml::Value::String(s) => s,
                    toml::Value::Integer(n) => n.to_string(),
                    toml::Value::Boolean(b) => if b { "on" } else { "off" }.to_owned(),
                    _ => bail!("`{key}` in the [{table}] table must be a string or a number"),
                };
                self.countries
                    .entry(wiring.country.prefix())
                    .or_default()
                    .insert(key, value);
            }
        }
        Ok(())
    }

    /// The consumer listener's worker threads: as configured, else one per core.
    pub fn http_workers(&self) -> usize {
        self.workers.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(std::num::NonZeroUsize::get)
                .unwrap_or(1)
        })
    }

    /// The store's URL: the one configured, else the embedded file in the state folder.
    pub fn store_url(&self) -> String {
        if self.database_url.is_empty() {
            crate::store::StoreUrl::default_in(&self.state_dir)
        } else {
            self.database_url.clone()
        }
    }

    /// What `serve` needs beyond what every command needs, checked before anything starts: a
    /// listener off loopback has its public origin configured; a portal that listens has its
    /// origin configured (browsers reach it by a name only the
    /// operator knows; a request's `Host` is never taken for it).
    pub fn check_for_serve(&self, listen: &str) -> anyhow::Result<()> {
        self.check_public_origin(listen)?;
        self.check_portal_origin()
    }

    /// A listener off loopback has its public origin configured (`serve` and the demo).
    pub fn check_public_origin(&self, listen: &str) -> anyhow::Result<()> {
        if !self.public_origin.is_configured() && !is_loopback(listen) {
            bail!(
                "the service listens on {listen}, which clients reach by a name only the operator \
                 knows: set IDREG_PUBLIC_URL (`public_url`) to the origin clients use \
                 (https://api.example.com); the OAuth discovery documents and challenges name it, \
                 and no request header is taken for it"
            );
        }
        Ok(())
    }

    /// A portal that listens has its origin configured (`serve`; the demo's loopback portal
    /// uses its own address).
    pub fn check_portal_origin(&self) -> anyhow::Result<()> {
        if let (Some(listen), None) = (&self.portal_listen, &self.portal_url) {
            bail!(
                "the portal listens ({listen}) but IDREG_PORTAL_URL (`portal_url`) is not set: set it \
                 to the origin browsers reach the portal at (https://portal.example.com); its sign-in \
                 links, cookies and origin checks are built on it alone"
            );
        }
        Ok(())
    }

    fn validate(&self) -> anyhow::Result<()> {
        if !self.database_url.is_empty() {
            crate::store::StoreUrl::parse(&self.database_url)
                .context("DATABASE_URL (`database_url`)")?;
        }
        if !(60..=86_400).contains(&self.token_ttl_seconds) {
            bail!("the token lifetime must be between 60 and 86400 seconds");
        }
        if self.company_revalidate_seconds < 0 {
            bail!("the company revalidation window must not be negative");
        }
        if self.paid_revalidate_seconds < 0 {
            bail!("the paid-tier revalidation window must not be negative");
        }
        if self.person_revalidate_seconds < 0 {
            bail!("the person revalidation window must not be negative");
        }
        if !(1..=86_400).contains(&self.scheduler_lease_seconds) {
            bail!("the scheduler's lease must be between 1 and 86400 seconds");
        }
        if !(1..=10_000).contains(&self.scheduler_batch) {
            bail!("the scheduler's batch must be between 1 and 10000 runs");
        }
        if self.lists_interval_hours > crate::list_schedule::MAX_INTERVAL_HOURS {
            bail!(
                "the list import interval must be at most {} hours (0 turns it off)",
                crate::list_schedule::MAX_INTERVAL_HOURS
            );
        }
        if let Some(url) = &self.portal_url {
            api_core::discovery::checked_origin(url).map_err(|e| {
                anyhow::anyhow!("the portal's URL (IDREG_PORTAL_URL, `portal_url`): {e}")
            })?;
        }
        if self.db_pool_size == 0 {
            bail!("the database pool needs at least one connection");
        }
        if self.signing_key.is_some() != self.master_key.is_some() {
            bail!("set both IDREG_SIGNING_KEY and IDREG_MASTER_KEY, or neither (then they are generated and kept in the state dir)");
        }
        Ok(())
    }
}

/// Whether a listen address is on loopback only (`127.0.0.1:8080`, `[::1]:0`,
/// `localhost:8080`).
fn is_loopback(listen: &str) -> bool {
    match listen.parse::<std::net::SocketAddr>() {
        Ok(addr) => addr.ip().is_loopback(),
        Err(_) => listen
            .rsplit_once(':')
            .is_some_and(|(host, _)| host.eq_ignore_ascii_case("localhost")),
    }
}

/// `name`'s value: the variable itself, or the contents of the file `<name>_FILE` names (one
/// trailing newline dropped), never both.
fn with_file(var: impl Fn(&str) -> Option<String>, name: &str) -> anyhow::Result<Option<String>> {
    let file_name = format!("{name}_FILE");
    match (var(name), var(&file_name)) {
        (Some(_), Some(_)) => bail!("set {name} or {file_name}, not both"),
        (Some(v), None) => Ok(Some(v)),
        (None, Some(path)) => {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("{file_name}: reading {path}"))?;
            let text = text.strip_suffix('\n').unwrap_or(&text);
            let text = text.strip_suffix('\r').unwrap_or(text);
            Ok(Some(text.to_owned()))
        }
        (None, None) => Ok(None),
    }
}

fn parse_log_format(v: &str) -> anyhow::Result<LogFormat> {
    match v {
        "text" => Ok(LogFormat::Text),
        "json" => Ok(LogFormat::Json),
        other => bail!("unknown log format `{other}` (text or json)"),
    }
}

/// The background work's priority: `idle` or a nice step from 0 to 19.
fn background_priority(v: &str) -> anyhow::Result<crate::background::Priority> {
    v.parse().map_err(|e: String| {
        anyhow::anyhow!("IDREG_BACKGROUND_PRIORITY (background_priority): {e}")
    })
}

fn public_origin(url: &str) -> anyhow::Result<api_core::discovery::PublicOrigin> {
    api_core::discovery::PublicOrigin::configured(url)
        .map_err(|e| anyhow::anyhow!("the public URL (IDREG_PUBLIC_URL, `public_url`): {e}"))
}

/// `on`/`true` or `off`/`false`.
fn on_off(v: &str, name: &str) -> anyhow::Result<bool> {
    match v {
        "on" | "true" => Ok(true),
        "off" | "false" => Ok(false),
        _ => anyhow::bail!("{name} must be on or off"),
    }
}

/// Webhook retry delays: whole seconds separated by commas, each at least 1, at most 20.
fn retry_delays(v: &str) -> anyhow::Result<Vec<chrono::Duration>> {
    let delays = v
        .split(',')
        .map(|d| {
            d.trim()
                .parse::<i64>()
                .ok()
                .filter(|s| (1..=7 * 86_400).contains(s))
        })
        .collect::<Option<Vec<i64>>>()
        .filter(|d| !d.is_empty() && d.len() <= 20)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "webhook retry delays must be 1 to 20 whole numbers of seconds (1 to 604800), \
                 separated by commas"
            )
        })?;
    Ok(delays.into_iter().map(chrono::Duration::seconds).collect())
}

/// Hours a failing webhook endpoint is retried before it is disabled: 1 to 720.
fn disable_after(hours: i64) -> anyhow::Result<chrono::Duration> {
    if !(1..=720).contains(&hours) {
        anyhow::bail!("webhook disable-after must be 1 to 720 hours");
    }
    Ok(chrono::Duration::hours(hours))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn environment_overrides_defaults() {
        let env: HashMap<&str, &str> = [
            ("DATABASE_URL", "postgres://x@y/z"),
            ("IDREG_TOKEN_TTL_SECONDS", "600"),
        ]
        .into();
        let c = Config::load_from(|k| env.get(k).map(|v| v.to_string())).unwrap();
        assert_eq!(c.database_url, "postgres://x@y/z");
        assert_eq!(c.store_url(), "postgres://x@y/z");
        assert_eq!(c.token_ttl_seconds, 600);
        assert_eq!(c.listen, DEFAULT_LISTEN);
    }

    #[test]
    fn webhook_settings_are_read_and_checked() {
        let c = Config::load_from(|_| None).unwrap();
        assert!(!c.webhook_allow_loopback);
        assert_eq!(c.webhook_schedule, Default::default());
        let env: HashMap<&str, &str> = [
            ("IDREG_WEBHOOK_ALLOW_LOOPBACK", "on"),
            ("IDREG_WEBHOOK_RETRY_SECONDS", "1, 10,60"),
            ("IDREG_WEBHOOK_DISABLE_AFTER_HOURS", "24"),
        ]
        .into();
        let c = Config::load_from(|k| env.get(k).map(|v| v.to_string())).unwrap();
        assert!(c.webhook_allow_loopback);
        assert_eq!(
            c.webhook_schedule.delays,
            [1, 10, 60].map(chrono::Duration::seconds)
        );
        assert_eq!(
            c.webhook_schedule.disable_after,
            chrono::Duration::hours(24)
        );
        for (k, v) in [
            ("IDREG_WEBHOOK_RETRY_SECONDS", ""),
            ("IDREG_WEBHOOK_RETRY_SECONDS", "0"),
            ("IDREG_WEBHOOK_RETRY_SECONDS", "5,x"),
            ("IDREG_WEBHOOK_DISABLE_AFTER_HOURS", "0"),
            ("IDREG_WEBHOOK_ALLOW_LOOPBACK", "maybe"),
        ] {
            assert!(
                Config::load_from(|name| (name == k).then(|| v.to_owned())).is_err(),
                "{k}={v}"
            );
        }
    }

    #[test]
    fn background_work_runs_on_idle_time_unless_told_otherwise() {
        use crate::background::Priority;
        let c = Config::load_from(|_| None).unwrap();
        assert_eq!(c.background_priority, Priority::Idle);
        for (v, want) in [
            ("0", Priority::Nice(0)),
            ("19", Priority::Nice(19)),
            ("idle", Priority::Idle),
        ] {
            let c = Config::load_from(|k| (k == "IDREG_BACKGROUND_PRIORITY").then(|| v.into()));
            assert_eq!(c.unwrap().background_priority, want);
        }
        for v in ["-1", "20", "low", ""] {
            let e = Config::load_from(|k| (k == "IDREG_BACKGROUND_PRIORITY").then(|| v.into()))
                .unwrap_err();
            assert!(
                format!("{e:#}").contains("IDREG_BACKGROUND_PRIORITY"),
                "{v}: {e:#}"
            );
        }
    }

    #[test]
    fn the_budget_day_is_stockholms_unless_another_zone_is_set() {
        let c = Config::load_from(|_| None).unwrap();
        assert_eq!(c.calendar.zone(), "Europe/Stockholm");
        let env: HashMap<&str, &str> = [("IDREG_BUDGET_TIME_ZONE", "Europe/Oslo")].into();
        let c = Config::load_from(|k| env.get(k).map(|v| v.to_string())).unwrap();
        assert_eq!(c.calendar.zone(), "Europe/Oslo");
        let env: HashMap<&str, &str> = [("IDREG_BUDGET_TIME_ZONE", "Oslo time")].into();
        let e = Config::load_from(|k| env.get(k).map(|v| v.to_string())).unwrap_err();
        assert!(e.to_string().contains("IDREG_BUDGET_TIME_ZONE"), "{e}");
    }

    #[test]
    fn scheduled_list_import_is_off_unless_urls_are_configured() {
        let c = Config::load_from(|_| None).unwrap();
        assert!(c.lists.is_empty());
        assert_eq!(c.lists_interval_hours, 24);
        let env: HashMap<&str, &str> = [
            ("IDREG_LISTS_URLS", "official"),
            ("IDREG_LISTS_INTERVAL_HOURS", "6"),
        ]
        .into();
        let c = Config::load_from(|k| env.get(k).map(|v| v.to_string())).unwrap();
        assert_eq!(c.lists.len(), 3);
        assert_eq!(c.lists_interval_hours, 6);
        let env: HashMap<&str, &str> = [("IDREG_LISTS_URLS", "un_sc")].into();
        assert!(Config::load_from(|k| env.get(k).map(|v| v.to_string())).is_err());
    }

    #[test]
    fn the_default_store_is_an_embedded_file_in_the_state_folder() {
        let env: HashMap<&str, &str> = [("IDREG_STATE_DIR", "/var/lib/idreg")].into();
        let c = Config::load_from(|k| env.get(k).map(|v| v.to_string())).unwrap();
        assert_eq!(c.store_url(), "sqlite:///var/lib/idreg/idreg.sqlite3");
        let env: HashMap<&str, &str> = [("DATABASE_URL", "mysql://x")].into();
        assert!(Config::load_from(|k| env.get(k).map(|v| v.to_string())).is_err());
    }

    #[test]
    fn a_public_url_must_be_an_origin() {
        let env: HashMap<&str, &str> = [("IDREG_PUBLIC_URL", "https://api.example.com/")].into();
        let c = Config::load_from(|k| env.get(k).map(|v| v.to_string())).unwrap();
        let req = actix_web::test::TestRequest::default()
            .app_data(actix_web::web::Data::new(c.public_origin))
            .to_http_request();
        assert_eq!(api_core::discovery::origin(&req), "https://api.example.com");
        let env: HashMap<&str, &str> = [("IDREG_PUBLIC_URL", "https://api.example.com/v1")].into();
        let error = Config::load_from(|k| env.get(k).map(|v| v.to_string()))
            .err()
            .unwrap();
        assert!(error.to_string().contains("IDREG_PUBLIC_URL"), "{error}");
    }

    #[test]
    fn half_a_key_pair_is_refused() {
        let env: HashMap<&str, &str> = [("IDREG_SIGNING_KEY", "ab")].into();
        assert!(Config::load_from(|k| env.get(k).map(|v| v.to_string())).is_err());
    }

    #[test]
    fn a_file_is_read_and_unknown_keys_are_refused() {
        let dir = std::env::temp_dir().join(format!("idreg-config-{}", ulid::Ulid::generate()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("idreg.toml");
        std::fs::write(
            &path,
            "listen = \"0.0.0.0:9000\"\ntoken_ttl_seconds = 300\n",
        )
        .unwrap();
        let p = path.to_string_lossy().to_string();
        let c = Config::load_from(|k| (k == "IDREG_CONFIG").then(|| p.clone())).unwrap();
        assert_eq!(c.listen, "0.0.0.0:9000");
        assert_eq!(c.token_ttl_seconds, 300);
        std::fs::write(&path, "lisen = \"x\"\n").unwrap();
        assert!(Config::load_from(|k| (k == "IDREG_CONFIG").then(|| p.clone())).is_err());
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn each_countrys_settings_come_from_its_table_or_its_variables() {
        let dir = std::env::temp_dir().join(format!("idreg-config-{}", ulid::Ulid::generate()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("idreg.toml");
        let p = path.to_string_lossy().to_string();
        std::fs::write(
            &path,
            "[lt]\nenabled = true\ntimeout_secs = 3\n[se]\nvdm_client_id = \"id\"\n",
        )
        .unwrap();
        let env: HashMap<&str, String> = [
            ("IDREG_CONFIG", p.clone()),
            ("IDREG_LT_TIMEOUT_SECS", "4".to_owned()),
        ]
        .into();
        let c = Config::load_from(|k| env.get(k).cloned()).unwrap();
        let lt = &c.countries["lt"];
        assert_eq!(lt["enabled"], "on");
        assert_eq!(
            lt["timeout_secs"], "4",
            "the environment wins over the file"
        );
        assert_eq!(c.countries["se"]["vdm_client_id"], "id");

        for (text, why) in [
            ("[xx]\nenabled = true\n", "unknown key `xx`"),
            (
                "[lt]\nvdm_client_id = \"id\"\n",
                "unknown key `vdm_client_id` in the [lt] table",
            ),
            ("lt = \"on\"\n", "`lt` must be a table"),
        ] {
            std::fs::write(&path, text).unwrap();
            let e = Config::load_from(|k| (k == "IDREG_CONFIG").then(|| p.clone())).unwrap_err();
            assert!(format!("{e:#}").contains(why), "{text}: {e:#}");
        }
        std::fs::remove_dir_all(dir).ok();
    }
}
