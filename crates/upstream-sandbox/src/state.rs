//! The state shared by all workers of one running sandbox.

use crate::data::Dataset;
use crate::faults::{ArmedFault, CallLog, Source};
use crate::vdm::IssuedToken;
use crate::SandboxConfig;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;
use tokio::sync::watch;

pub(crate) struct SandboxState {
    pub token_ttl: Duration,
    pub timeout_hold: Duration,
    pub enforce_scopes: bool,
    pub require_scb_api_id: bool,
    pub initial: Dataset,
    pub data: RwLock<Dataset>,
    pub faults: Mutex<HashMap<Source, ArmedFault>>,
    pub calls: Mutex<CallLog>,
    pub tokens: Mutex<HashMap<String, IssuedToken>>,
    pub shutdown: watch::Receiver<bool>,
}

impl SandboxState {
    pub fn new(config: &SandboxConfig, shutdown: watch::Receiver<bool>) -> Self {
        SandboxState {
            token_ttl: config.token_ttl,
            timeout_hold: config.timeout_hold,
            enforce_scopes: config.enforce_scopes,
            require_scb_api_id: config.require_scb_api_id,
            initial: config.dataset.clone(),
            data: RwLock::new(config.dataset.clone()),
            faults: Mutex::new(HashMap::new()),
            calls: Mutex::new(CallLog::default()),
            tokens: Mutex::new(HashMap::new()),
            shutdown,
        }
    }

    pub fn read(&self) -> RwLockReadGuard<'_, Dataset> {
        self.data.read().unwrap_or_else(|e| e.into_inner())
    }

    pub fn write(&self) -> RwLockWriteGuard<'_, Dataset> {
        self.data.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Data set and faults back to the start; the call log emptied. Tokens stay valid.
    pub fn reset(&self) {
        *self.write() = self.initial.clone();
        lock(&self.faults).clear();
        let mut calls = lock(&self.calls);
        calls.records.clear();
    }
}

/// Locks a mutex, ignoring poisoning (a panicking handler must not wedge the sandbox).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
