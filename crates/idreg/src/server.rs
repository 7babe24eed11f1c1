//! A server running in the background: the consumer listener (`App::start_http`) and the
//! operator's metrics listener (`metrics::start`) alike, each stopped on a signal or by a test.

use actix_web::dev::ServerHandle;
use anyhow::Context;
use std::net::SocketAddr;

/// A server running in the background.
pub struct RunningServer {
    pub addr: SocketAddr,
    pub handle: ServerHandle,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl RunningServer {
    /// Runs a bound server in the background.
    pub(crate) fn spawn(
        addrs: Vec<SocketAddr>,
        server: actix_web::dev::Server,
    ) -> anyhow::Result<RunningServer> {
        let addr = *addrs.first().context("the server bound no address")?;
        let handle = server.handle();
        let task = tokio::spawn(server);
        Ok(RunningServer { addr, handle, task })
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Serves until the process gets Ctrl-C or SIGTERM, then stops gracefully.
    pub async fn until_shutdown(self) -> anyhow::Result<()> {
        let handle = self.handle.clone();
        tokio::spawn(async move {
            shutdown_signal().await;
            tracing::info!("shutting down");
            handle.stop(true).await;
        });
        self.task.await?.context("server failed")
    }

    pub async fn stop(self) {
        self.handle.stop(true).await;
        let _ = self.task.await;
    }
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("installing the SIGTERM handler");
        tokio::select! {
            _ = ctrl_c => {},
            _ = term.recv() => {},
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}
