//! Every log line the in-process servers write, kept in memory so a test can scan them.
//!
//! [`capture`] installs (once per test process) a global `tracing` subscriber at `debug`
//! level, in the service's text format, writing to a buffer. Tests run in parallel in one
//! process, so the buffer holds the lines of every test running meanwhile: a scan for what
//! must never be logged covers them all.

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

/// The captured log text.
#[derive(Clone, Default)]
pub struct LogCapture(Arc<Mutex<Vec<u8>>>);

impl LogCapture {
    /// Everything written so far.
    pub fn text(&self) -> String {
        let bytes = self.0.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl Write for LogCapture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Installs the capture (the first call does; later calls return the same buffer). `None`
/// when another global subscriber was installed first.
pub fn capture() -> Option<LogCapture> {
    static CAPTURE: OnceLock<Option<LogCapture>> = OnceLock::new();
    CAPTURE
        .get_or_init(|| {
            let capture = LogCapture::default();
            let writer = capture.clone();
            tracing_subscriber::fmt()
                .with_env_filter(tracing_subscriber::EnvFilter::new("debug"))
                .with_writer(move || writer.clone())
                .with_ansi(false)
                .try_init()
                .ok()
                .map(|()| capture)
        })
        .clone()
}
