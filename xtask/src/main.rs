//! Repository chores, run as `cargo xtask <task>` (see `.cargo/config.toml`).
//!
//! - `test`: the whole test suite, as the README and CI run it: PostgreSQL is checked (and
//!   started when it is a local cluster that is down), every crate's tests run against it,
//!   with the official MCP Python SDK and TypeScript SDK client driving `POST /mcp` (and
//!   finding the token endpoint by OAuth discovery) and standard OAuth client libraries
//!   (authlib, requests-oauthlib) driving `/oauth/token` inside the black-box suite, then the
//!   python-stdnum identifier oracle; the Python clients are installed into `.venv-test` and
//!   the TypeScript clients into `tests/*/typescript/node_modules` (`npm ci`) from the package
//!   registries; the tenant portal is driven in the system's headless Chromium by
//!   playwright-core (`tests/browser`, `npm ci` too), its screenshots kept under
//!   `target/portal-screenshots/`. The run is strict (`IDREG_TEST_STRICT=1`): a test whose
//!   prerequisite is missing fails instead of skipping. Ends with one summary line.
//! - `docs`: every path and code name `ARCHITECTURE.md` and the READMEs write in backticks
//!   exists in the repository (see [`docs`]); `test` runs it first.
//! - `contract check|bless`: the interface snapshot under `contract/` and its version gate
//!   (see [`contract`]).
//! - `bench`: the request path under load (cached company read, an MCP tool call, the token
//!   endpoint) against the release binary: req/s, p50, p99, database transactions per
//!   request, server memory (see [`bench`]).
//! - `eval`: the screening quality page, `docs/screening-quality.md`: the matcher's figures on
//!   the evaluation sets (held-out files too when `IDREG_EVAL_POSITIVES` and
//!   `IDREG_EVAL_NEGATIVES` name them), per list and kind of slip, its speed, the versions and
//!   the date (`adapters-screening`'s `eval` example, in release).
//! - `fuzz [--seconds N] [--target NAME]...`: builds the coverage-guided fuzz targets under
//!   `fuzz/` on the stable toolchain and runs each for N seconds; fails on any crash (see
//!   [`fuzz`]).

mod bench;
mod contract;
mod docs;
mod fuzz;

use anyhow::{bail, Context, Result};
use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("test") => test(&args[1..]),
        Some("contract") => contract::main(&args[1..]),
        Some("bench") => bench::main(&root(), &args[1..]),
        Some("fuzz") => fuzz::main(&root(), &args[1..]),
        Some("eval") => eval(),
        Some("docs") => docs::main(&root()),
        _ => {
            eprintln!(
                "usage: cargo xtask test [-- <cargo test args>] | contract check|bless | docs | bench [options] | fuzz [--seconds N] [--target NAME]... | eval"
            );
            std::process::exit(2);
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The Python clients the suite drives the service with, pinned (schemathesis and
/// openapi-python-client read the served OpenAPI document: `tests/api_clients`). (The TypeScript client is
/// pinned in `tests/mcp_clients/typescript/package-lock.json`.)
const PYTHON_CLIENTS: &[&str] = &[
    "python-stdnum==2.2",
    "mcp==2.3.0",
    "authlib==1.9.8",
    "requests-oauthlib==2.0.0",
    "prometheus-client==0.26.0",
    "schemathesis==4.32.5",
    "openapi-python-client==0.29.1",
    "standardwebhooks==1.1.0",
    "aiosmtpd==1.4.6",
];

/// Totals of `test result:` lines.
#[derive(Default)]
struct Tally {
    passed: u64,
    failed: u64,
    ignored: u64,
}

fn test(extra: &[String]) -> Result<()> {
    ensure_postgres()?;
    let mut tally = Tally::default();
    let mut failures: Vec<String> = Vec::new();

    // The map first (quick): every path and code name it and the READMEs mention exists.
    match docs::check(&root()) {
        Ok(problems) if problems.is_empty() => tally.passed += 1,
        Ok(problems) => {
            for p in &problems {
                eprintln!("docs: {p}");
            }
            tally.failed += 1;
            failures.push(format!(
                "the map: {} name(s) in ARCHITECTURE.md or a README do not exist",
                problems.len()
            ));
        }
        Err(e) => {
            tally.failed += 1;
            failures.push(format!("the map's check: {e:#}"));
        }
    }

    // The Python clients first: the black-box suite runs the MCP SDK client through them.
    let python = match python_venv(PYTHON_CLIENTS) {
        Ok(python) => Some(python),
        Err(e) => {
            tally.failed += 1;
            failures.push(format!("installing the python clients: {e:#}"));
            None
        }
    };

    // The TypeScript clients, from their lock files: the MCP SDK, and the generator of a
    // REST client from the served OpenAPI document.
    let mut node_folders: Vec<(&str, PathBuf)> = Vec::new();
    for (env, folder) in [
        ("IDREG_TEST_NODE_CLIENTS", "mcp_clients/typescript"),
        ("IDREG_TEST_API_CLIENTS", "api_clients/typescript"),
        // playwright-core, which drives the system Chromium through the tenant portal.
        ("IDREG_TEST_BROWSER", "browser"),
    ] {
        match node_clients(folder) {
            Ok(dir) => node_folders.push((env, dir)),
            Err(e) => {
                tally.failed += 1;
                failures.push(format!(
                    "installing the TypeScript client in tests/{folder}: {e:#}"
                ));
            }
        }
    }

    let mut cargo_args: Vec<String> =
        vec!["test".into(), "--workspace".into(), "--no-fail-fast".into()];
    cargo_args.extend(extra.iter().filter(|a| a.as_str() != "--").cloned());
    // Strict: a test whose prerequisite is missing (the Python clients, PostgreSQL's server
    // binaries) fails here instead of skipping.
    let mut env: Vec<(&str, OsString)> = vec![("IDREG_TEST_STRICT", "1".into())];
    env.extend(
        python
            .iter()
            .map(|p| ("IDREG_TEST_PYTHON", p.clone().into())),
    );
    env.extend(
        node_folders
            .iter()
            .map(|(name, d)| (*name, d.clone().into())),
    );
    if !run_counted("cargo", &cargo_args, &env, &mut tally)? {
        failures.push("cargo test".into());
    }

    // The black-box suite again, every test app on an embedded SQLite store instead of
    // PostgreSQL. The schema parity and Citus placement tests name their stores themselves
    // and ran above, as did each store's conformance suite (its crate's own tests).
    let mut sqlite_args: Vec<String> = [
        "test",
        "-p",
        "blackbox",
        "--test",
        "blackbox",
        "--no-fail-fast",
    ]
    .map(String::from)
    .to_vec();
    sqlite_args.extend(extra.iter().filter(|a| a.as_str() != "--").cloned());
    sqlite_args.extend(
        [
            "--",
            "--skip",
            "schema_parity::",
            "--skip",
            "tenant_distribution::",
        ]
        .map(String::from),
    );
    let mut sqlite_env = env.clone();
    sqlite_env.push(("IDREG_TEST_STORE", "sqlite".into()));
    if !run_counted("cargo", &sqlite_args, &sqlite_env, &mut tally)? {
        failures.push("the black-box suite on SQLite".into());
    }

    if let Some(python) = python {
        let status = Command::new("cargo")
            .args(["build", "-q", "-p", "idreg", "--example", "identify"])
            .current_dir(root())
            .status()?;
        let bin = target_dir().join("debug/examples/identify");
        let ok = status.success()
            && Command::new(&python)
                .arg(root().join("tests/oracle/compare_stdnum.py"))
                .arg(&bin)
                .current_dir(root())
                .status()?
                .success();
        if ok {
            tally.passed += 1;
        } else {
            tally.failed += 1;
            failures.push("identifier oracle (python-stdnum)".into());
        }
    }

    for f in &failures {
        eprintln!("xtask: FAILED: {f}");
    }
    println!(
        "summary: {} passed, {} failed, {} skipped",
        tally.passed, tally.failed, tally.ignored
    );
    if failures.is_empty() {
        Ok(())
    } else {
        std::process::exit(1)
    }
}

/// `cargo xtask eval`: regenerates the screening quality page.
fn eval() -> Result<()> {
    let page = root().join("docs/screening-quality.md");
    let status = Command::new("cargo")
        .args([
            "run",
            "--release",
            "--quiet",
            "-p",
            "adapters-screening",
            "--example",
            "eval",
            "--",
            "--out",
        ])
        .arg(&page)
        .current_dir(root())
        .status()
        .context("cargo run --example eval")?;
    if !status.success() {
        bail!("the evaluation failed");
    }
    Ok(())
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

/// Runs a command, echoing its output, and adds up its `test result:` lines.
fn run_counted(
    program: &str,
    args: &[String],
    env: &[(&str, OsString)],
    tally: &mut Tally,
) -> Result<bool> {
    let mut child = Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_os_str())))
        .current_dir(root())
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {program}"))?;
    let stdout = child.stdout.take().unwrap();
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        println!("{line}");
        if let Some(rest) = line.trim().strip_prefix("test result: ") {
            for part in rest.split([';', '.']) {
                let words: Vec<&str> = part.split_whitespace().collect();
                if let [n, what, ..] = words.as_slice() {
                    let n: u64 = n.parse().unwrap_or(0);
                    match *what {
                        "passed" => tally.passed += n,
                        "failed" => tally.failed += n,
                        "ignored" => tally.ignored += n,
                        _ => {}
                    }
                }
            }
        }
    }
    Ok(child.wait()?.success())
}

/// A virtual environment at `.venv-test` with the given packages (installed once).
fn python_venv(packages: &[&str]) -> Result<PathBuf> {
    let venv = root().join(".venv-test");
    let python = venv.join("bin/python");
    // A venv made without pip (Debian's python3 lacks `ensurepip` until python3-venv is
    // installed) leaves bin/python behind: judge by pip, and make it again.
    if !venv.join("bin/pip").exists() && !make_venv(&venv)? {
        eprintln!("xtask: python3 -m venv failed; installing python3-venv");
        let _ = Command::new("sh")
            .args([
                "-c",
                "apt-get update -qq && apt-get install -y -qq python3-venv",
            ])
            .status();
        if !make_venv(&venv)? {
            bail!("could not create {} (python3 -m venv)", venv.display());
        }
    }
    let marker = venv.join(format!(
        "installed-{}",
        packages.join("+").replace(['=', '<', '>'], "_")
    ));
    if !marker.exists() {
        let status = Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(packages)
            .status()
            .context("pip install")?;
        if !status.success() {
            bail!("pip could not install {}", packages.join(" "));
        }
        std::fs::write(&marker, "")?;
    }
    Ok(python)
}

/// A TypeScript client test's folder (`tests/<folder>`) with its pinned dependencies
/// installed (`npm ci`, from `package-lock.json`; once per lock file).
fn node_clients(folder: &str) -> Result<PathBuf> {
    let dir = root().join("tests").join(folder);
    let lock = std::fs::read(dir.join("package-lock.json")).context("reading package-lock.json")?;
    let marker = dir.join("node_modules/.installed-from-lock");
    if std::fs::read(&marker).ok().as_deref() != Some(lock.as_slice()) {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .status()
            .context("npm ci (Node.js 20.19 or later and npm are needed)")?;
        if !status.success() {
            bail!("npm ci failed in {}", dir.display());
        }
        std::fs::write(&marker, &lock)?;
    }
    Ok(dir)
}

fn make_venv(venv: &Path) -> Result<bool> {
    Ok(Command::new("python3")
        .args(["-m", "venv", "--clear"])
        .arg(venv)
        .status()
        .context("python3 -m venv")?
        .success()
        && venv.join("bin/pip").exists())
}

/// Checks that PostgreSQL answers at the test URL; starts the local cluster when it does not.
fn ensure_postgres() -> Result<()> {
    if pg_ready() {
        return Ok(());
    }
    eprintln!("xtask: PostgreSQL is not answering; starting the local cluster");
    if let Ok(entries) = std::fs::read_dir("/etc/postgresql") {
        for version in entries.flatten() {
            let _ = Command::new("pg_ctlcluster")
                .args(["--skip-systemctl-redirect"])
                .arg(version.file_name())
                .args(["main", "start"])
                .status();
        }
    }
    for _ in 0..30 {
        if pg_ready() {
            return Ok(());
        }
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
    bail!("PostgreSQL does not answer at 127.0.0.1:5432; start it and retry")
}

fn pg_ready() -> bool {
    Command::new("pg_isready")
        .args(["-h", "127.0.0.1", "-p", "5432", "-q"])
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}
