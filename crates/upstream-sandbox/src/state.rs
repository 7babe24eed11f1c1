//! The state shared by all workers of one running sandbox.

use crate::data::Dataset;
use crate::faults::{FaultInjector, Source, Upstream};
use crate::model::script::ModelState;
use crate::plugin::SandboxPlugin;
use crate::util::lock;
use crate::SandboxConfig;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// A token issued by VDM's `/oauth2/token`.
#[derive(Clone, Debug)]
pub struct IssuedToken {
    pub expires_at: Instant,
    pub scopes: Vec<String>,
}

/// One mail in the sandbox's mailbox.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MailboxMessage {
    pub to: String,
    pub subject: String,
    pub text: String,
}

/// A plug-in with what the fault injector knows of it.
pub(crate) struct Mounted {
    pub plugin: Arc<dyn SandboxPlugin>,
    pub upstream: Upstream,
}

pub(crate) struct SandboxState {
    pub token_ttl: Duration,
    pub enforce_scopes: bool,
    pub require_scb_api_id: bool,
    pub initial: Dataset,
    pub data: RwLock<Dataset>,
    /// Armed faults and the call log.
    pub faults: FaultInjector,
    pub tokens: Mutex<HashMap<String, IssuedToken>>,
    /// Mail handed to the sandbox's mailbox (the demo's and the tests' mail server), oldest
    /// first.
    pub mailbox: Mutex<Vec<MailboxMessage>>,
    /// The language model's script and the requests it received.
    pub model: ModelState,
    /// The upstreams country crates plugged in, in configuration order.
    pub plugins: Vec<Mounted>,
    /// The sandbox's own plain-HTTP address (`http://127.0.0.1:<port>`), set once it is
    /// bound: the links its index pages give are built from it, never from a request's
    /// `Host` header.
    pub base_url: std::sync::OnceLock<String>,
}

impl SandboxState {
    pub fn new(config: &SandboxConfig, shutdown: watch::Receiver<bool>) -> Self {
        SandboxState {
            token_ttl: config.token_ttl,
            enforce_scopes: config.enforce_scopes,
            require_scb_api_id: config.require_scb_api_id,
            initial: config.dataset.clone(),
            data: RwLock::new(config.dataset.clone()),
            faults: FaultInjector::new(config.timeout_hold, shutdown.clone()),
            tokens: Mutex::new(HashMap::new()),
            mailbox: Mutex::new(Vec::new()),
            model: ModelState::new(shutdown),
            plugins: config
                .plugins
                .iter()
                .map(|plugin| Mounted {
                    upstream: Upstream {
                        source: Source::Plugin(plugin.name()),
                        error: plugin.error(),
                        field_fel: None,
                    },
                    plugin: plugin.clone(),
                })
                .collect(),
            base_url: std::sync::OnceLock::new(),
        }
    }

    /// The sandbox's own base URL (empty before it is bound: links are then relative).
    pub fn base(&self) -> &str {
        self.base_url.get().map_or("", String::as_str)
    }

    pub fn read(&self) -> RwLockReadGuard<'_, Dataset> {
        self.data.read().unwrap_or_else(|e| e.into_inner())
    }

    pub fn write(&self) -> RwLockWriteGuard<'_, Dataset> {
        self.data.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Data set and faults back to the start; the call log, the model's script and its
    /// recorded requests emptied. Tokens stay valid.
    pub fn reset(&self) {
        *self.write() = self.initial.clone();
        self.faults.disarm_all();
        self.faults.clear_calls();
        self.model.reset();
        for mounted in &self.plugins {
            mounted.plugin.reset();
        }
    }

    /// What the fault injector knows of a source: the sandbox's own, or a plug-in's.
    pub fn upstream(&self, source: Source) -> Option<&Upstream> {
        crate::upstream(source).or_else(|| {
            self.plugins
                .iter()
                .find(|m| m.upstream.source == source)
                .map(|m| &m.upstream)
        })
    }

    /// A source by its spelling: the sandbox's own or a plug-in's.
    pub fn source(&self, name: &str) -> Option<Source> {
        Source::parse(name).or_else(|| {
            self.plugins
                .iter()
                .map(|m| m.upstream.source)
                .find(|s| s.as_str() == name)
        })
    }

    /// The plug-in named `name`.
    pub fn plugin(&self, name: &str) -> Option<&Arc<dyn SandboxPlugin>> {
        self.plugins
            .iter()
            .find(|m| m.plugin.name() == name)
            .map(|m| &m.plugin)
    }

    /// Forgets every issued token.
    pub fn revoke_tokens(&self) {
        lock(&self.tokens).clear();
    }
}
