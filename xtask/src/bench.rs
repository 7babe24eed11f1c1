//! `cargo xtask bench`: what one request costs on the shared request path, measured.
//!
//! Builds the release binary, starts it against the in-process upstream sandbox and a fresh
//! database, provisions a tenant and a grant with the operator command line, primes the
//! company cache, and then puts each scenario under load with `wrk` (installed from the
//! distribution's packages when missing):
//!
//! - `company`: a cached `GET /v1/companies/{orgnr}`;
//! - `officers`: a cached `GET /v1/companies/{orgnr}/officers` (the paid tier);
//! - `person`: a cached `GET /v1/persons/{ref}` (the permit gate, the person and its sealed
//!   profile in one read, the profile opened under the tenant's key);
//! - `mcp` and `mcp-2026`: a `tools/call` of `get_company_profile` on the same cached
//!   companies, in the handshake era (a 2025-06-18 client) and in the per-request era
//!   (2026-07-28: `_meta` in the body, the routing headers checked against it), side by side
//!   (`--only mcp` runs both);
//! - `events`: a page of 100 events at a random cursor, with 10 thousand and then 1 million
//!   events in the tenant's log (`events-10k`, `events-1m`);
//! - `token`: `POST /oauth/token` (Argon2id-bound by design, so under fewer connections);
//! - `replay`: `POST /v1/subjects/resolve` under an `Idempotency-Key` per company, so after
//!   the first pass every request is a replay of the kept answer (its transactions per
//!   request against the cached read's show what a replay costs beyond the guard);
//! - `screening`: an ad-hoc `POST /v1/screening/checks` over UN + OFAC SDN + OFAC
//!   consolidated loaded together (imported with `idreg lists import`, the default policy
//!   published with `idreg screening policy publish`), the bodies drawn in turn from the
//!   development share of the evaluation set (treated positives and negatives, names with
//!   birth dates), each check appended like any other.
//!
//! Every scenario runs on each store, side by side in one run: PostgreSQL (the local server's
//! `idreg_bench` database) and the embedded SQLite file (`--store postgres|sqlite|both`,
//! default both). For each it reports requests per second, p50 and p99 latency, database
//! transactions per request (PostgreSQL: from `pg_stat_database`, after the statistics are
//! flushed), statements per request and the server's resident memory, and for each store its size on disk after the
//! bench (the database, or the file with its write-ahead log). Options: `--duration S` (default 15), `--connections N` (default 64),
//! `--threads N` (default 2), `--companies N` (default 200), `--only company|officers|person|mcp|mcp-2026|token|replay|events|screening` (several, comma-separated),
//! `--hold` (with one `--store`: after the runs, keep the server up and print what an external load script needs:
//! its URL, a token, a file of primed orgnrs and its pid; stop it with Ctrl-C), `--idreg PATH` (measure
//! another build instead of this checkout's release build, to compare two), `--floor [--reps N]`
//! (the cached company read beside the floor instead, see [`side_by_side`]).
//! Statements per request come from the server's own count (`idreg_store_statements_total` on
//! its metrics listener), on both stores.

mod side_by_side;

use anyhow::{bail, Context, Result};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const DATABASE: &str = "idreg_bench";
const SERVER: &str = "postgres://postgres@127.0.0.1:5432";

struct Options {
    duration: u32,
    connections: u32,
    threads: u32,
    companies: usize,
    only: Option<String>,
    hold: bool,
    stores: Vec<StoreKind>,
    /// Side by side with the floor instead of the scenarios (`--floor`), this many
    /// repetitions (`--reps`).
    floor: bool,
    reps: usize,
    /// A prebuilt binary to measure instead of this checkout's (`--idreg PATH`).
    idreg: Option<std::path::PathBuf>,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options> {
        let mut o = Options {
            duration: 15,
            connections: 64,
            threads: 2,
            companies: 200,
            only: None,
            hold: false,
            stores: vec![StoreKind::Postgres, StoreKind::Sqlite],
            floor: false,
            reps: 5,
            idreg: None,
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value = || it.next().context(format!("{arg} needs a value"));
            match arg.as_str() {
                "--duration" => o.duration = value()?.parse()?,
                "--connections" => o.connections = value()?.parse()?,
                "--threads" => o.threads = value()?.parse()?,
                "--companies" => o.companies = value()?.parse()?,
                "--only" => o.only = Some(value()?.clone()),
                "--hold" => o.hold = true,
                "--floor" => o.floor = true,
                "--reps" => o.reps = value()?.parse()?,
                "--idreg" => o.idreg = Some(value()?.into()),
                "--store" => {
                    o.stores = match value()?.as_str() {
                        "postgres" => vec![StoreKind::Postgres],
                        "sqlite" => vec![StoreKind::Sqlite],
                        "both" => vec![StoreKind::Postgres, StoreKind::Sqlite],
                        other => bail!("--store is postgres, sqlite or both, not {other}"),
                    }
                }
                other => bail!("unknown option {other}"),
            }
        }
        if o.floor && (o.hold || o.only.is_some()) {
            bail!("--floor measures the cached company read beside the floor: no --hold or --only");
        }
        if o.reps == 0 {
            bail!("--reps is at least 1");
        }
        if o.hold && o.stores.len() > 1 {
            bail!("--hold keeps one server up: name its store with --store postgres|sqlite");
        }
        Ok(o)
    }

    /// Whether a scenario runs: all without `--only`, else those named (`mcp` names both
    /// MCP eras, side by side).
    fn runs(&self, scenario: &str) -> bool {
        self.only.as_deref().is_none_or(|only| {
            only.split(',')
                .any(|o| o.trim() == scenario || (o.trim() == "mcp" && scenario.starts_with("mcp")))
        })
    }
}

/// The server under test; killed when dropped.
struct Server {
    child: Child,
    url: String,
    /// The in-process sandbox's control API (lists the companies it knows).
    sandbox_control: String,
    /// The operator's metrics listener (`IDREG_METRICS_LISTEN`); `None` for a build from
    /// before the started line named it (measured with `--idreg`).
    metrics: Option<String>,
}

impl Server {
    /// The statements the server has run on its store so far
    /// (`idreg_store_statements_total`).
    /// `None` for a build that does not count them.
    fn statements(&self) -> Result<Option<u64>> {
        let Some(metrics) = &self.metrics else {
            return Ok(None);
        };
        let text = curl(&[&format!("{metrics}/metrics")])?;
        text.lines()
            .find_map(|l| l.strip_prefix("idreg_store_statements_total "))
            .context("no idreg_store_statements_total in the scrape")?
            .trim()
            .parse()
            .map(Some)
            .context("reading idreg_store_statements_total")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One scenario's figures.
struct Figures {
    store: StoreKind,
    name: &'static str,
    connections: u32,
    requests_per_second: f64,
    p50: String,
    p99: String,
    errors: u64,
    /// Database transactions per request; PostgreSQL only (SQLite runs in process and
    /// keeps no such counter).
    transactions_per_request: Option<f64>,
    /// Statements per request, as the server's store counted them (both stores).
    statements_per_request: Option<f64>,
    rss_kib: u64,
}

pub fn main(root: &Path, args: &[String]) -> Result<()> {
    let options = Options::parse(args)?;
    ensure_package("wrk", "wrk")?;
    if options.floor {
        return side_by_side::main(root, &options);
    }
    if options.stores.contains(&StoreKind::Sqlite) && options.runs("events") {
        ensure_package("sqlite3", "sqlite3")?;
    }
    let binary = idreg_binary(root, &options)?;
    let mut results = Vec::new();
    let mut sizes = Vec::new();
    for &kind in &options.stores {
        let work = std::env::temp_dir().join(format!(
            "idreg-bench-{}-{}",
            std::process::id(),
            kind.name()
        ));
        std::fs::create_dir_all(&work)?;
        let store = BenchStore::fresh(kind, &work)?;
        eprintln!("bench: on {}", store.describe());
        results.extend(run_on(root, &binary, &store, &work, &options)?);
        sizes.push((kind, store.size_bytes()?));
        // The run's folder (its SQLite file included) is not kept.
        let _ = std::fs::remove_dir_all(&work);
    }

    println!(
        "{:<8} {:<10} {:>5} {:>10} {:>9} {:>9} {:>7} {:>8} {:>9} {:>9}",
        "store",
        "scenario",
        "conns",
        "req/s",
        "p50",
        "p99",
        "errors",
        "tx/req",
        "stmt/req",
        "rss MiB"
    );
    for f in &results {
        println!(
            "{:<8} {:<10} {:>5} {:>10.0} {:>9} {:>9} {:>7} {:>8} {:>9} {:>9.1}",
            f.store.name(),
            f.name,
            f.connections,
            f.requests_per_second,
            f.p50,
            f.p99,
            f.errors,
            f.transactions_per_request
                .map_or("-".to_owned(), |t| format!("{t:.2}")),
            f.statements_per_request
                .map_or("-".to_owned(), |s| format!("{s:.2}")),
            f.rss_kib as f64 / 1024.0
        );
    }
    for (kind, bytes) in sizes {
        println!(
            "{} after the bench: {:.1} MiB on disk",
            kind.name(),
            bytes as f64 / (1024.0 * 1024.0)
        );
    }
    Ok(())
}

/// A server on a fresh store with one tenant provisioned as an operator would (the operator
/// command line): its environment, the tenant, the grant's client and a token.
struct Served {
    server: Server,
    env: Vec<(&'static str, String)>,
    tenant_id: String,
    client_id: String,
    client_secret: String,
    token: String,
}

fn serve(binary: &Path, store: &BenchStore, work: &Path, threads: u32) -> Result<Served> {
    // Keys as an operator makes them (a PostgreSQL store takes keys from configuration only).
    let keys = Command::new(binary)
        .args(["keys", "generate"])
        .output()
        .context("idreg keys generate")?;
    let keys: Value =
        serde_json::from_slice(&keys.stdout).context("idreg keys generate's output")?;
    let env = vec![
        ("DATABASE_URL", store.url()),
        ("IDREG_STATE_DIR", work.join("state").display().to_string()),
        ("IDREG_SIGNING_KEY", text(&keys, "signing_key")?),
        ("IDREG_MASTER_KEY", text(&keys, "master_key")?),
        ("IDREG_WORKERS", threads.to_string()),
        ("IDREG_LOG", "info".to_owned()),
        // As an operator runs it: with the metrics listener (whose statement counter the
        // bench reads).
        // (`IDREG_BENCH_METRICS_LISTEN` names another address: a build from before 2026-11-29
        // refuses port 0 for both listeners.)
        (
            "IDREG_METRICS_LISTEN",
            std::env::var("IDREG_BENCH_METRICS_LISTEN").unwrap_or_else(|_| "127.0.0.1:0".into()),
        ),
    ];
    let server = start(binary, &env, work)?;
    eprintln!("bench: idreg at {} (pid {})", server.url, server.child.id());

    let tenant = admin(
        binary,
        &env,
        &[
            "tenant",
            "create",
            "--name",
            "Bench AB",
            "--country",
            "SE",
            "--activate",
        ],
    )?;
    let tenant_id = text(&tenant, "tenant_id")?;
    admin(
        binary,
        &env,
        &[
            "permit",
            "set",
            &tenant_id,
            "--valid-from",
            "2000-01-01",
            "--valid-to",
            "2099-12-31",
            "--status",
            "active",
        ],
    )?;
    let grant = admin(
        binary,
        &env,
        &[
            "grant",
            "create",
            "--tenant",
            &tenant_id,
            "--scopes",
            "kyb:read kyc:read events:read screening:run",
            "--countries",
            "SE",
        ],
    )?;
    let client_id = text(&grant, "client_id")?;
    let client_secret = text(&grant, "client_secret")?;
    let token = request_token(&server.url, &client_id, &client_secret)?;
    Ok(Served {
        server,
        env,
        tenant_id,
        client_id,
        client_secret,
        token,
    })
}

/// Writes the wrk scripts into `folder`, each rotating script ending with [`ROUND_ROBIN`].
fn write_scripts(folder: &Path) -> Result<()> {
    std::fs::create_dir_all(folder)?;
    for (name, body) in SCRIPTS {
        let rotates = body.contains("reqs[n]");
        let script = if rotates {
            format!("{body}{ROUND_ROBIN}")
        } else {
            body.to_owned()
        };
        std::fs::write(folder.join(name), script)?;
    }
    Ok(())
}

/// The binary under test: `--idreg PATH` (another build, to compare), else this checkout's
/// release build, made first.
fn idreg_binary(root: &Path, options: &Options) -> Result<std::path::PathBuf> {
    if let Some(binary) = &options.idreg {
        return Ok(binary.clone());
    }
    build_release(root, "idreg")?;
    Ok(crate::target_dir().join("release/idreg"))
}

fn build_release(root: &Path, package: &str) -> Result<()> {
    let status = Command::new("cargo")
        .args(["build", "--release", "--quiet", "-p", package])
        .current_dir(root)
        .status()?;
    if !status.success() {
        bail!("the release build of {package} failed");
    }
    Ok(())
}

/// Every scenario the options name, on one store, with a server of its own.
fn run_on(
    root: &Path,
    binary: &Path,
    store: &BenchStore,
    work: &Path,
    options: &Options,
) -> Result<Vec<Figures>> {
    let Served {
        server,
        env,
        tenant_id,
        client_id,
        client_secret,
        token,
    } = serve(binary, store, work, options.threads)?;
    let (orgnrs, officer_orgnrs) = prime(&server, &token, options.companies)?;
    let orgnrs_file = work.join("orgnrs.txt");
    std::fs::write(&orgnrs_file, orgnrs.join("\n") + "\n")?;
    let officers_file = work.join("officers.txt");
    std::fs::write(&officers_file, officer_orgnrs.join("\n") + "\n")?;
    let person_refs = prime_persons(root, &server, &token, options.companies)?;
    let persons_file = work.join("persons.txt");
    std::fs::write(&persons_file, person_refs.join("\n") + "\n")?;
    eprintln!(
        "bench: {} company profiles, {} officer lists and {} person profiles primed in the cache",
        orgnrs.len(),
        officer_orgnrs.len(),
        person_refs.len()
    );

    let scripts = work.join("wrk");
    write_scripts(&scripts)?;
    let wrk_env = [
        ("TOKEN", token.clone()),
        ("ORGNRS_FILE", orgnrs_file.display().to_string()),
        ("CLIENT_ID", client_id.clone()),
        ("CLIENT_SECRET", client_secret.clone()),
    ];
    let mut results = Vec::new();
    // The cached officers read runs the company script on the officer lists' path.
    let officers_env = [
        ("ORGNRS_FILE", officers_file.display().to_string()),
        ("PATH_SUFFIX", "/officers".to_owned()),
    ];
    // The cached person read runs it on person refs.
    let persons_env = [
        ("ORGNRS_FILE", persons_file.display().to_string()),
        ("PATH_PREFIX", "/v1/persons/".to_owned()),
    ];
    let checks_file = work.join("checks.txt");
    if options.runs("screening") {
        prepare_screening(root, binary, &env, &checks_file)?;
    }
    let screening_env = [("BODIES_FILE", checks_file.display().to_string())];
    let modern_env = [("MCP_ERA", "2026-07-28".to_owned())];
    let scenarios: [Scenario; 8] = [
        ("company", "company.lua", options.connections, &[]),
        (
            "officers",
            "company.lua",
            options.connections,
            &officers_env,
        ),
        ("person", "company.lua", options.connections, &persons_env),
        // Both MCP eras, side by side: the handshake era (a 2025-06-18 client) and the
        // per-request era (2026-07-28: `_meta` in the body, headers checked against it).
        ("mcp", "mcp.lua", options.connections, &[]),
        ("mcp-2026", "mcp.lua", options.connections, &modern_env),
        // Each token costs an Argon2id verification (about 19 MiB and tens of milliseconds of
        // CPU) by design; more connections only queue.
        ("token", "token.lua", options.connections.min(8), &[]),
        // A write retried under its Idempotency-Key: after the first pass every request is
        // answered from the kept answer (the guard, the key's one statement, the audit row).
        ("replay", "replay.lua", options.connections, &[]),
        (
            "screening",
            "screening.lua",
            options.connections,
            &screening_env,
        ),
    ];
    for (name, script, connections, extra_env) in scenarios {
        if !options.runs(name) {
            continue;
        }
        // Later entries win: a scenario's own settings over the shared ones.
        let wrk_env: Vec<(&str, String)> =
            wrk_env.iter().chain(extra_env.iter()).cloned().collect();
        results.push(measure(
            store,
            &server,
            &scripts.join(script),
            &wrk_env,
            options,
            connections,
            name,
        )?);
    }
    // The event log: a page at a random cursor, with 10 thousand and with 1 million events in
    // the tenant's log (a third of them filed under another country than the grant's, so
    // pages are bounded by country as in use).
    if options.runs("events") {
        let mut filled = 0;
        for (name, total) in [("events-10k", 10_000_i64), ("events-1m", 1_000_000)] {
            store.fill_events(&tenant_id, filled, total)?;
            filled = total;
            eprintln!("bench: {total} events in the log");
            let events_env: Vec<(&str, String)> = vec![
                ("TOKEN", token.clone()),
                ("EVENTS_TOTAL", total.to_string()),
            ];
            results.push(measure(
                store,
                &server,
                &scripts.join("events.lua"),
                &events_env,
                options,
                options.connections,
                name,
            )?);
        }
    }

    if options.hold {
        println!();
        println!("IDREG_URL={}", server.url);
        println!("TOKEN={token}");
        println!("ORGNRS_FILE={}", orgnrs_file.display());
        println!("IDREG_PID={}", server.child.id());
        println!("(the server stays up; Ctrl-C stops it)");
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
    Ok(results)
}

/// Loads the three lists and publishes the default policy with the operator command line,
/// then writes one ad-hoc check body per line to `bodies`: every treated positive and the
/// first thousand negatives of the development share, interleaved.
fn prepare_screening(
    root: &Path,
    binary: &Path,
    env: &[(&str, String)],
    bodies: &Path,
) -> Result<()> {
    let testdata = root.join("crates/adapters-screening/testdata");
    for list in [
        "un/un_sc_consolidated_2026-02-27.xml",
        "ofac_sdn_2021-07",
        "ofac_cons_2025-12",
    ] {
        let out = Command::new(binary)
            .args(["lists", "import"])
            .arg(testdata.join(list))
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stderr(Stdio::null())
            .output()?;
        if !out.status.success() {
            bail!("idreg lists import {list} failed");
        }
    }
    let out = Command::new(binary)
        .args(["screening", "policy", "publish", "--by", "bench"])
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()?;
    if !out.status.success() {
        bail!(
            "idreg screening policy publish: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let body = |name: &str, dob: &str| {
        let mut o = serde_json::json!({ "name": name });
        if !dob.is_empty() {
            o["birth_date"] = Value::String(dob.to_owned());
        }
        o.to_string()
    };
    let positives =
        std::fs::read_to_string(testdata.join("eval/un_treated_vs_original_pairs.csv"))?;
    let negatives = std::fs::read_to_string(testdata.join("eval/negatives_us.csv"))?;
    let positives: Vec<String> = positives
        .lines()
        .skip(1)
        .map(csv_fields)
        .filter(|f| f.len() >= 4)
        .map(|f| body(&f[2], &f[3]))
        .collect();
    let negatives: Vec<String> = negatives
        .lines()
        .skip(1)
        .take(1000)
        .map(csv_fields)
        .filter(|f| f.len() >= 6)
        .map(|f| body(&f[0], &f[5]))
        .collect();
    let mut lines = Vec::new();
    let (mut p, mut n) = (positives.iter(), negatives.iter());
    loop {
        let (a, b) = (p.next(), n.next());
        if a.is_none() && b.is_none() {
            break;
        }
        lines.extend(a.into_iter().chain(b).cloned());
    }
    std::fs::write(bodies, lines.join("\n") + "\n")?;
    eprintln!(
        "bench: lists loaded, policy published, {} check bodies",
        lines.len()
    );
    Ok(())
}

/// The fields of one CSV line (double quotes group, `""` escapes a quote).
fn csv_fields(line: &str) -> Vec<String> {
    let (mut fields, mut field, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    fields.push(field);
    fields
}

/// Warms up, then runs `script` for the options' duration between two reads of the
/// transaction counters.
fn measure(
    store: &BenchStore,
    server: &Server,
    script: &Path,
    env: &[(&str, String)],
    options: &Options,
    connections: u32,
    name: &'static str,
) -> Result<Figures> {
    wrk(&server.url, script, env, options.threads, connections, 5)?;
    let before = store.transactions()?;
    let statements_before = server.statements()?;
    let out = wrk(
        &server.url,
        script,
        env,
        options.threads,
        connections,
        options.duration,
    )?;
    let statements_after = server.statements()?;
    let after = store.transactions()?;
    let parsed = WrkOutput::parse(&out)?;
    Ok(Figures {
        store: store.kind,
        name,
        connections,
        requests_per_second: parsed.requests_per_second,
        p50: parsed.p50,
        p99: parsed.p99,
        errors: parsed.errors,
        transactions_per_request: before
            .zip(after)
            .map(|(b, a)| (a - b) as f64 / parsed.requests.max(1) as f64),
        statements_per_request: statements_before
            .zip(statements_after)
            .map(|(b, a)| a.saturating_sub(b) as f64 / parsed.requests.max(1) as f64),
        rss_kib: rss_kib(server.child.id())?,
    })
}

/// A measured run: its name, wrk script, connections and environment of its own.
type Scenario<'a> = (
    &'static str,
    &'static str,
    u32,
    &'a [(&'static str, String)],
);

/// The wrk scripts: each prebuilds its requests once per thread, so per-request Lua work is
/// a table lookup. The company and MCP scripts end with [`ROUND_ROBIN`].
/// Hands out a prebuilt table `reqs` of `n` requests in turn, from a random start `i`.
const ROUND_ROBIN: &str = "
function request()
  i = i + 1
  if i > n then i = 1 end
  return reqs[i]
end
";

const SCRIPTS: [(&str, &str); 6] = [
    (
        "screening.lua",
        r#"
local token, file = os.getenv("TOKEN"), os.getenv("BODIES_FILE")
local reqs, n, i = {}, 0, 0
function init(args)
  for line in io.lines(file) do
    n = n + 1
    reqs[n] = wrk.format("POST", "/v1/screening/checks", {
      ["Authorization"] = "Bearer " .. token,
      ["Accept"] = "application/json",
      ["Content-Type"] = "application/json" }, line)
  end
  i = math.random(1, n)
end
"#,
    ),
    (
        "events.lua",
        r#"
local token, total = os.getenv("TOKEN"), tonumber(os.getenv("EVENTS_TOTAL"))
local headers = { ["Authorization"] = "Bearer " .. token, ["Accept"] = "application/json" }
function request()
  return wrk.format("GET", "/v1/events?limit=100&cursor=" .. math.random(0, total - 100), headers)
end
"#,
    ),
    (
        "company.lua",
        r#"
local token, file = os.getenv("TOKEN"), os.getenv("ORGNRS_FILE")
local prefix = os.getenv("PATH_PREFIX") or "/v1/companies/"
local suffix = os.getenv("PATH_SUFFIX") or ""
local reqs, n, i = {}, 0, 0
function init(args)
  for line in io.lines(file) do
    n = n + 1
    reqs[n] = wrk.format("GET", prefix .. line .. suffix,
      { ["Authorization"] = "Bearer " .. token, ["Accept"] = "application/json" })
  end
  i = math.random(1, n)
end
"#,
    ),
    (
        "mcp.lua",
        r#"
local token, file = os.getenv("TOKEN"), os.getenv("ORGNRS_FILE")
local era = os.getenv("MCP_ERA")
local reqs, n, i = {}, 0, 0
function init(args)
  for line in io.lines(file) do
    n = n + 1
    local meta = ""
    local headers = {
      ["Authorization"] = "Bearer " .. token,
      ["Accept"] = "application/json, text/event-stream",
      ["Content-Type"] = "application/json",
      ["MCP-Protocol-Version"] = "2025-06-18" }
    if era then
      meta = ',"_meta":{"io.modelcontextprotocol/protocolVersion":"' .. era .. '",'
        .. '"io.modelcontextprotocol/clientCapabilities":{},'
        .. '"io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1"}}'
      headers["MCP-Protocol-Version"] = era
      headers["Mcp-Method"] = "tools/call"
      headers["Mcp-Name"] = "get_company_profile"
    end
    local body = '{"jsonrpc":"2.0","id":' .. n .. ',"method":"tools/call","params":'
      .. '{"name":"get_company_profile","arguments":{"orgnr":"' .. line .. '"}' .. meta .. '}}'
    reqs[n] = wrk.format("POST", "/mcp", headers, body)
  end
  i = math.random(1, n)
end
"#,
    ),
    (
        "replay.lua",
        r#"
local token, file = os.getenv("TOKEN"), os.getenv("ORGNRS_FILE")
local reqs, n, i = {}, 0, 0
function init(args)
  for line in io.lines(file) do
    n = n + 1
    reqs[n] = wrk.format("POST", "/v1/subjects/resolve", {
      ["Authorization"] = "Bearer " .. token,
      ["Accept"] = "application/json",
      ["Content-Type"] = "application/json",
      ["Idempotency-Key"] = '"bench-' .. line .. '"' },
      '{"type":"orgnr","value":"' .. line .. '"}')
  end
  i = math.random(1, n)
end
"#,
    ),
    (
        "token.lua",
        r#"
local body = "grant_type=client_credentials&client_id=" .. os.getenv("CLIENT_ID")
  .. "&client_secret=" .. os.getenv("CLIENT_SECRET")
local req
function init(args)
  req = wrk.format("POST", "/oauth/token",
    { ["Content-Type"] = "application/x-www-form-urlencoded" }, body)
end
function request()
  return req
end
"#,
    ),
];

/// Installs `package` from the distribution when `program` is missing.
fn ensure_package(program: &str, package: &str) -> Result<()> {
    if Command::new(program).arg("--version").output().is_ok() {
        return Ok(());
    }
    eprintln!("bench: installing {package}");
    let ok = Command::new("sh")
        .args([
            "-c",
            &format!("apt-get update -qq && apt-get install -y -qq {package}"),
        ])
        .status()?
        .success();
    if !ok {
        bail!("{program} is needed: install it (apt-get install {package})");
    }
    Ok(())
}

fn psql(sql: &str) -> Result<String> {
    psql_in("postgres", sql)
}

fn psql_in(database: &str, sql: &str) -> Result<String> {
    let out = Command::new("psql")
        .args([
            "-X",
            "-q",
            "-A",
            "-t",
            "-h",
            "127.0.0.1",
            "-U",
            "postgres",
            "-d",
            database,
        ])
        .args(["-c", sql])
        .output()
        .context("psql")?;
    if !out.status.success() {
        bail!("psql: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Which store a bench run serves from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StoreKind {
    Postgres,
    Sqlite,
}

impl StoreKind {
    fn name(self) -> &'static str {
        match self {
            StoreKind::Postgres => "postgres",
            StoreKind::Sqlite => "sqlite",
        }
    }
}

/// A fresh store for one bench run: the `idreg_bench` database on the local PostgreSQL, or
/// an SQLite file in the run's folder.
struct BenchStore {
    kind: StoreKind,
    file: std::path::PathBuf,
}

impl BenchStore {
    fn fresh(kind: StoreKind, work: &Path) -> Result<BenchStore> {
        let file = work.join("idreg.sqlite3");
        match kind {
            StoreKind::Postgres => {
                psql(&format!("DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)"))?;
            }
            StoreKind::Sqlite => {
                for name in ["idreg.sqlite3", "idreg.audit.sqlite3"] {
                    for suffix in ["", "-wal", "-shm"] {
                        let _ = std::fs::remove_file(work.join(format!("{name}{suffix}")));
                    }
                }
            }
        }
        Ok(BenchStore { kind, file })
    }

    fn url(&self) -> String {
        match self.kind {
            StoreKind::Postgres => format!("{SERVER}/{DATABASE}"),
            StoreKind::Sqlite => format!("sqlite://{}", self.file.display()),
        }
    }

    fn describe(&self) -> String {
        match self.kind {
            StoreKind::Postgres => format!("PostgreSQL ({SERVER}/{DATABASE})"),
            StoreKind::Sqlite => format!("SQLite ({})", self.file.display()),
        }
    }

    /// Committed and rolled-back transactions of the bench database so far, once the
    /// backends have published their counters (PostgreSQL); `None` for SQLite.
    fn transactions(&self) -> Result<Option<u64>> {
        match self.kind {
            StoreKind::Postgres => {
                // Backends publish their counters when idle, at most every ten seconds.
                std::thread::sleep(Duration::from_secs(11));
                let n = psql(&format!(
                    "SELECT xact_commit + xact_rollback FROM pg_stat_database \
                     WHERE datname = '{DATABASE}'"
                ))?;
                Ok(Some(n.parse().context("reading pg_stat_database")?))
            }
            StoreKind::Sqlite => Ok(None),
        }
    }

    /// Bytes on disk: the database (PostgreSQL's `pg_database_size`), or the SQLite files
    /// (the data's and the audit trail's) with their write-ahead logs.
    fn size_bytes(&self) -> Result<u64> {
        match self.kind {
            StoreKind::Postgres => psql(&format!("SELECT pg_database_size('{DATABASE}')"))?
                .parse()
                .context("reading pg_database_size"),
            StoreKind::Sqlite => {
                // The data's file and the audit trail's beside it, with their logs.
                let audit = self.file.with_file_name("idreg.audit.sqlite3");
                Ok([&self.file, &audit]
                    .iter()
                    .flat_map(|file| {
                        ["", "-wal"].map(|suffix| format!("{}{suffix}", file.display()))
                    })
                    .filter_map(|name| std::fs::metadata(name).ok())
                    .map(|m| m.len())
                    .sum())
            }
        }
    }

    /// Appends events `from + 1 ..= to` to the tenant's log straight in the store (the log's
    /// own format; no use case emits in bulk), a third filed under another country than the
    /// grant's.
    fn fill_events(&self, tenant_id: &str, from: i64, to: i64) -> Result<()> {
        match self.kind {
            StoreKind::Postgres => {
                let sql = format!(
                    "INSERT INTO event_counters (tenant_id, last_seq) VALUES ('{tenant_id}', {to}) \
                     ON CONFLICT (tenant_id) DO UPDATE SET last_seq = {to}; \
                     INSERT INTO events (tenant_id, seq, event_id, idempotency_key, type, country, \
                       subject_id, subject_ref, occurred_at, recorded_at, data, evidence) \
                     SELECT '{tenant_id}', g, 'evt_01' || lpad(g::text, 24, '0'), 'bench-' || g, \
                       CASE WHEN g % 5 = 0 THEN 'ubo.changed' ELSE 'company.changed' END, \
                       CASE WHEN g % 3 = 0 THEN 'LT' ELSE 'SE' END, NULL, NULL, now(), now(), \
                       jsonb_build_object('changes', jsonb_build_array(jsonb_build_object( \
                         'field', 'name', 'old', 'Gamla AB ' || g, 'new', 'Nya AB ' || g))), \
                       jsonb_build_object('source', 'service.derived', \
                         'source_timestamp', '2026-11-23T00:00:00Z', \
                         'call_ref', 'call_01' || lpad(g::text, 24, '0'), 'upstream_ref', NULL, \
                         'digest', NULL, 'schema_version', '1.6.0', \
                         'retrieved_at', '2026-11-23T00:00:00Z') \
                     FROM generate_series({}, {to}) g; ANALYZE events;",
                    from + 1
                );
                psql_in(DATABASE, &sql).map(|_| ())
            }
            StoreKind::Sqlite => {
                // Times are microseconds since the epoch in the embedded store.
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)?
                    .as_micros();
                let sql = format!(
                    "PRAGMA busy_timeout = 30000; BEGIN IMMEDIATE; \
                     INSERT INTO event_counters (tenant_id, last_seq) VALUES ('{tenant_id}', {to}) \
                     ON CONFLICT (tenant_id) DO UPDATE SET last_seq = {to}; \
                     WITH RECURSIVE g(x) AS (SELECT {} UNION ALL SELECT x + 1 FROM g WHERE x < {to}) \
                     INSERT INTO events (tenant_id, seq, event_id, idempotency_key, type, country, \
                       subject_id, subject_ref, occurred_at, recorded_at, data, evidence) \
                     SELECT '{tenant_id}', x, 'evt_01' || printf('%024d', x), 'bench-' || x, \
                       CASE WHEN x % 5 = 0 THEN 'ubo.changed' ELSE 'company.changed' END, \
                       CASE WHEN x % 3 = 0 THEN 'LT' ELSE 'SE' END, NULL, NULL, {now}, {now}, \
                       json_object('changes', json_array(json_object( \
                         'field', 'name', 'old', 'Gamla AB ' || x, 'new', 'Nya AB ' || x))), \
                       json_object('source', 'service.derived', \
                         'source_timestamp', '2026-11-23T00:00:00Z', \
                         'call_ref', 'call_01' || printf('%024d', x), 'upstream_ref', NULL, \
                         'digest', NULL, 'schema_version', '1.6.0', \
                         'retrieved_at', '2026-11-23T00:00:00Z') \
                     FROM g; COMMIT; ANALYZE events;",
                    from + 1
                );
                let out = Command::new("sqlite3")
                    .arg(&self.file)
                    .arg(&sql)
                    .output()
                    .context("sqlite3")?;
                if !out.status.success() {
                    bail!("sqlite3: {}", String::from_utf8_lossy(&out.stderr));
                }
                Ok(())
            }
        }
    }
}

fn start(binary: &Path, env: &[(&str, String)], work: &Path) -> Result<Server> {
    let log = std::fs::File::create(work.join("server.log"))?;
    let mut child = Command::new(binary)
        .args(["serve", "--sandbox", "--listen", "127.0.0.1:0"])
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .context("starting idreg")?;
    let stdout = child.stdout.take().context("idreg's stdout")?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    let started: Value = serde_json::from_str(&line)
        .with_context(|| format!("idreg did not start (see {})", work.display()))?;
    let server = Server {
        url: text(&started, "idreg")?,
        sandbox_control: text(&started, "sandbox_control")?,
        metrics: started["metrics"].as_str().map(str::to_owned),
        child,
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while curl(&[
        "-s",
        "-o",
        "/dev/null",
        &format!("{}/openapi.json", server.url),
    ])
    .is_err()
    {
        if Instant::now() > deadline {
            bail!("idreg does not answer at {}", server.url);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Ok(server)
}

fn admin(binary: &Path, env: &[(&str, String)], args: &[&str]) -> Result<Value> {
    let out = Command::new(binary)
        .arg("admin")
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stderr(Stdio::null())
        .output()?;
    let value: Value = serde_json::from_slice(&out.stdout).context("admin output")?;
    if !out.status.success() {
        bail!("idreg admin {}: {value}", args.join(" "));
    }
    Ok(value)
}

fn text(v: &Value, key: &str) -> Result<String> {
    v[key]
        .as_str()
        .map(str::to_owned)
        .with_context(|| format!("no `{key}` in {v}"))
}

fn curl(args: &[&str]) -> Result<String> {
    let out = Command::new("curl")
        .args(["-f", "-sS"])
        .args(args)
        .output()?;
    if !out.status.success() {
        bail!(
            "curl {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn request_token(url: &str, client_id: &str, secret: &str) -> Result<String> {
    let body = curl(&[
        &format!("{url}/oauth/token"),
        "-d",
        "grant_type=client_credentials",
        "-d",
        &format!("client_id={client_id}"),
        "-d",
        &format!("client_secret={secret}"),
    ])?;
    text(&serde_json::from_str(&body)?, "access_token")
}

/// Resolves `n` of Skatteverket's test personal numbers and reads each profile once, so that
/// the profiles are in the tenant's cache; their refs.
fn prime_persons(root: &Path, server: &Server, token: &str, n: usize) -> Result<Vec<String>> {
    let list = std::fs::read_to_string(
        root.join("crates/adapters-se/testdata/skatteverket/testpersonnummer.csv"),
    )?;
    let mut refs = Vec::new();
    for number in list.lines().skip(1).step_by(97).take(n) {
        let body = format!(r#"{{"type":"personnummer","value":"{number}"}}"#);
        let resolved: Value = serde_json::from_str(&curl(&[
            "-H",
            &format!("Authorization: Bearer {token}"),
            "-H",
            "content-type: application/json",
            "-d",
            &body,
            &format!("{}/v1/subjects/resolve", server.url),
        ])?)?;
        let r = text(&resolved, "identifier_ref")?;
        if curl(&[
            "-H",
            &format!("Authorization: Bearer {token}"),
            &format!("{}/v1/persons/{r}", server.url),
        ])
        .is_ok()
        {
            refs.push(r);
        }
    }
    if refs.is_empty() {
        bail!("no person profile could be primed");
    }
    Ok(refs)
}

/// Fetches `n` companies the sandbox knows through idreg, so that they are in the cache.
/// Fills the tenant's cache: the profiles of up to `n` companies, and the officer lists of
/// those that have officers (one paid call each, within the default budget).
fn prime(server: &Server, token: &str, n: usize) -> Result<(Vec<String>, Vec<String>)> {
    let list: Value = serde_json::from_str(&curl(&[&format!(
        "{}/companies?at_bolagsverket=true&at_scb=true&limit={n}",
        server.sandbox_control
    )])?)?;
    let mut primed = Vec::new();
    let mut with_officers = Vec::new();
    for company in list["companies"].as_array().context("a company list")? {
        let Some(orgnr) = company["id"].as_str() else {
            continue;
        };
        let answer = curl(&[
            "-H",
            &format!("Authorization: Bearer {token}"),
            &format!("{}/v1/companies/{orgnr}", server.url),
        ]);
        if answer.is_ok() {
            primed.push(orgnr.to_owned());
            let officers = curl(&[
                "-H",
                &format!("Authorization: Bearer {token}"),
                &format!("{}/v1/companies/{orgnr}/officers", server.url),
            ]);
            if officers.is_ok() {
                with_officers.push(orgnr.to_owned());
            }
        }
    }
    if primed.is_empty() || with_officers.is_empty() {
        bail!("no company (or no officer list) could be primed");
    }
    Ok((primed, with_officers))
}

fn wrk(
    url: &str,
    script: &Path,
    env: &[(&str, String)],
    threads: u32,
    connections: u32,
    seconds: u32,
) -> Result<String> {
    let out = Command::new("wrk")
        .args([
            format!("-t{threads}"),
            format!("-c{connections}"),
            format!("-d{seconds}s"),
            "--latency".to_owned(),
            "-s".to_owned(),
            script.display().to_string(),
            url.to_owned(),
        ])
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .context("running wrk")?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

struct WrkOutput {
    requests: u64,
    requests_per_second: f64,
    p50: String,
    p99: String,
    errors: u64,
}

impl WrkOutput {
    fn parse(out: &str) -> Result<WrkOutput> {
        let field = |prefix: &str| {
            out.lines()
                .map(str::trim)
                .find_map(|l| l.strip_prefix(prefix).map(|r| r.trim().to_owned()))
        };
        let requests = out
            .lines()
            .find_map(|l| {
                l.trim()
                    .split_once(" requests in ")
                    .and_then(|(n, _)| n.trim().parse().ok())
            })
            .with_context(|| format!("no request count in wrk's output:\n{out}"))?;
        let errors = field("Non-2xx or 3xx responses:")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
            + field("Socket errors:").map_or(0, |s| {
                s.split(',')
                    .filter_map(|p| p.split_whitespace().last()?.parse::<u64>().ok())
                    .sum()
            });
        Ok(WrkOutput {
            requests,
            requests_per_second: field("Requests/sec:")
                .and_then(|v| v.parse().ok())
                .context("no Requests/sec")?,
            p50: field("50%").context("no p50 (wrk --latency)")?,
            p99: field("99%").context("no p99 (wrk --latency)")?,
            errors,
        })
    }
}

fn rss_kib(pid: u32) -> Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .context("VmRSS")
}
