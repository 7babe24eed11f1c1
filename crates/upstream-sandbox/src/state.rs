//! The state shared by all workers of one running sandbox.

use crate::data::Dataset;
use crate::faults::FaultInjector;
use crate::model::script::ModelState;
use crate::util::lock;
use crate::SandboxConfig;
use std::collections::HashMap;
use std::sync::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
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
        }
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
    }

    /// Forgets every issued token.
    pub fn revoke_tokens(&self) {
        lock(&self.tokens).clear();
    }
}
