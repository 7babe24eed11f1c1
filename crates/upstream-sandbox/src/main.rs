//! `upstream-sandbox`: serves the synthetic upstream registries until Ctrl-C.

use clap::Parser;
use std::net::SocketAddr;
use std::time::Duration;
use upstream_sandbox::{Sandbox, SandboxConfig};

/// Local stand-ins for Bolagsverket (VDM, SSBTGU), SCB and Lithuania's RC JAR.
#[derive(Parser, Debug)]
#[command(name = "upstream-sandbox", version, about)]
struct Args {
    /// Address to listen on.
    #[arg(
        long,
        default_value = "127.0.0.1:9090",
        env = "UPSTREAM_SANDBOX_LISTEN"
    )]
    listen: SocketAddr,
    /// Lifetime of VDM access tokens, in seconds.
    #[arg(long, default_value_t = 3600)]
    token_ttl_secs: u64,
    /// How long a `timeout` fault holds a request, in seconds.
    #[arg(long, default_value_t = 30)]
    timeout_hold_secs: u64,
    /// HTTP worker threads.
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Print handy identifiers of the data set (one per category) as JSON and exit.
    #[arg(long)]
    handy_numbers: bool,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if args.handy_numbers {
        let ds = upstream_sandbox::Dataset::standard();
        let mut map = serde_json::Map::new();
        for (label, id) in ds.handy_numbers() {
            map.insert(label.to_owned(), id.into());
        }
        println!("{}", serde_json::to_string_pretty(&map)?);
        return Ok(());
    }
    let config = SandboxConfig {
        listen: args.listen,
        token_ttl: Duration::from_secs(args.token_ttl_secs),
        timeout_hold: Duration::from_secs(args.timeout_hold_secs),
        workers: args.workers,
        ..SandboxConfig::default()
    };
    let sandbox = Sandbox::start(config)?;
    println!("{}", serde_json::to_string_pretty(&sandbox.urls_json())?);
    tokio::signal::ctrl_c().await?;
    sandbox.stop().await;
    Ok(())
}
