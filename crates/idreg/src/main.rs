//! `idreg`: serve, migrate, demo, and the operator command line.

use clap::Parser;
use idreg::cli::{self, Cli, Command};
use idreg::config::Config;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    idreg::countries::install_schemes();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            // Keep the one-JSON-object contract for scripts, and the usage for people.
            let message = e.kind().to_string();
            println!(
                "{}",
                serde_json::json!({ "error": "bad_request", "message": message })
            );
            let _ = e.print();
            return ExitCode::from(2);
        }
    };
    let config = match Config::load() {
        Ok(c) => c,
        Err(e) => {
            println!(
                "{}",
                serde_json::json!({ "error": "bad_request", "message": format!("configuration: {e:#}") })
            );
            return ExitCode::from(2);
        }
    };
    let _telemetry = idreg::telemetry::init(&config);

    match cli.command {
        Command::Admin(command) => print_outcome(match cli::prepare(config).await {
            Ok(app) => cli::execute_admin(&app, command).await,
            Err(f) => Err(f),
        }),
        Command::Lists(command) => print_outcome(match cli::prepare(config).await {
            Ok(app) => idreg::lists::execute_lists(&app, command).await,
            Err(f) => Err(f),
        }),
        Command::Screening(command) => print_outcome(match cli::prepare(config).await {
            Ok(app) => idreg::screening::execute_screening(&app, command).await,
            Err(f) => Err(f),
        }),
        Command::Store(cli::StoreCommand::Copy { from, to }) => {
            let from = from.unwrap_or_else(|| config.store_url());
            match idreg::store::copy(&from, &to).await {
                Ok(copied) => {
                    println!("{copied}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    println!(
                        "{}",
                        serde_json::json!({ "error": "bad_request", "message": format!("{e:#}") })
                    );
                    ExitCode::FAILURE
                }
            }
        }
        Command::Keys(command) => print_outcome(idreg::keys::execute(&config, command).await),
        Command::Migrate => {
            let run = async {
                idreg::store::Store::open(&config.store_url(), 1)
                    .await
                    .map(|(_, applied)| applied)
            };
            match run.await {
                Ok(applied) => {
                    println!("{}", serde_json::json!({ "applied": applied }));
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    println!(
                        "{}",
                        serde_json::json!({ "error": "internal_error", "message": e.to_string() })
                    );
                    ExitCode::FAILURE
                }
            }
        }
        Command::Serve(args) => report(serve(config, args).await),
        Command::Demo(args) => report(idreg::demo::run(config, args).await),
    }
}

async fn serve(mut config: Config, args: cli::ServeArgs) -> anyhow::Result<()> {
    let listen = args.listen.unwrap_or_else(|| config.listen.clone());
    let metrics_listen = args
        .metrics_listen
        .or_else(|| config.metrics_listen.clone());
    idreg::metrics::check_apart(&listen, metrics_listen.as_deref())?;
    config.sandbox |= args.sandbox;
    // A sandbox run serves test-mode grants from the same sandbox.
    config.test_mode |= config.sandbox;
    config.check_for_serve(&listen)?;
    let app = idreg::app::App::prepare(config).await?;
    let server = app.start_http(&listen)?;
    let metrics = metrics_listen.map(|m| app.start_metrics(&m)).transpose()?;
    let _scheduler = app.start_scheduler();
    let _webhooks = app.start_webhooks();
    let portal = app
        .config
        .portal_listen
        .clone()
        .map(|listen| app.start_portal(&listen))
        .transpose()?;
    tracing::info!(address = %server.addr, "idreg is serving");
    if let Some(portal) = &portal {
        tracing::info!(address = %portal.addr, "the tenant portal is served");
    }
    if let Some(metrics) = &metrics {
        tracing::info!(address = %metrics.addr, "metrics are served at /metrics");
    }
    if let (false, Some(sandbox)) = (app.config.sandbox, &app.sandbox) {
        tracing::info!(
            control = %sandbox.control_url(),
            "test-mode grants are served by the built-in upstream sandbox"
        );
    }
    if let (true, Some(sandbox)) = (app.config.sandbox, &app.sandbox) {
        let mut started = serde_json::json!({
            "idreg": server.base_url(),
            "sandbox_control": sandbox.control_url(),
            "sandbox": sandbox.urls_json(),
        });
        if let Some(metrics) = &metrics {
            started["metrics"] = metrics.base_url().into();
        }
        println!("{started}");
    }
    server.until_shutdown().await
}

fn report(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("idreg: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// An operator command's outcome: one JSON object on stdout, and the exit status.
fn print_outcome(result: Result<serde_json::Value, domain::Failure>) -> ExitCode {
    match result {
        Ok(value) => {
            println!("{value}");
            ExitCode::SUCCESS
        }
        Err(failure) => {
            println!("{}", cli::failure_json(&failure));
            // And for a person at the terminal: the message alone, on one line.
            match &failure.internal {
                Some(cause) => eprintln!("idreg: {}: {cause}", failure.message),
                None => eprintln!("idreg: {}", failure.message),
            }
            ExitCode::FAILURE
        }
    }
}
