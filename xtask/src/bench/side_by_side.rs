//! `cargo xtask bench --floor`: the cached company read beside the floor (`bench/floor`), the
//! least such a read costs on this stack, on the same machine, interleaved.
//!
//! Both serve from the local PostgreSQL, with the same worker count and the same wrk script
//! and settings (the company script, each over its own primed organisation numbers). Each
//! repetition runs the floor (a fresh process; warm-up, then measured) and then idreg (one
//! process for the whole run, as a deployment is), with a checkpoint before each measured
//! run so neither pays for the other's writes. Reports each repetition, the median ratio of
//! requests per second (idreg's median over the floor's), the worst repetition, and whether
//! idreg's p99 stayed within the floor's in every repetition. Then, apart from the timed runs,
//! what a request costs beyond time: idreg's statements per request (its store's own count)
//! and the allocator calls per request of each (uprobes counted by `perf`, when the machine
//! has it and allows them).

use super::{psql, serve, write_scripts, wrk, BenchStore, Options, StoreKind, WrkOutput, SERVER};
use anyhow::{bail, Context, Result};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const FLOOR_DATABASE: &str = "idreg_floor";
const WARM_UP_SECONDS: u32 = 5;

/// One measured run of one server.
struct Run {
    requests_per_second: f64,
    p50: String,
    p99: String,
    p99_ms: f64,
    errors: u64,
}

impl Run {
    fn of(out: &str) -> Result<Run> {
        let parsed = WrkOutput::parse(out)?;
        Ok(Run {
            requests_per_second: parsed.requests_per_second,
            p99_ms: milliseconds(&parsed.p99)?,
            p50: parsed.p50,
            p99: parsed.p99,
            errors: parsed.errors,
        })
    }
}

/// The floor's process; killed when dropped.
struct Floor {
    child: Child,
    url: String,
    token: String,
}

impl Floor {
    /// The company script's settings for this floor.
    fn load(&self, orgnrs: &Path) -> [(&'static str, String); 2] {
        load(&self.token, orgnrs)
    }
}

/// The company script's settings: whose token, and which primed organisation numbers.
fn load(token: &str, orgnrs: &Path) -> [(&'static str, String); 2] {
    [
        ("TOKEN", token.to_owned()),
        ("ORGNRS_FILE", orgnrs.display().to_string()),
    ]
}

impl Drop for Floor {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(super) fn main(root: &Path, options: &Options) -> Result<()> {
    if options.stores != [StoreKind::Postgres] && options.stores.len() == 1 {
        bail!("the floor serves from PostgreSQL: --floor compares on that store only");
    }
    // Apart, so that the floor's dependencies' features do not change idreg's build.
    let idreg = super::idreg_binary(root, options)?;
    super::build_release(root, "floor")?;
    let release = crate::target_dir().join("release");
    let work = std::env::temp_dir().join(format!("idreg-bench-floor-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let scripts = work.join("wrk");
    write_scripts(&scripts)?;
    let script = scripts.join("company.lua");

    let store = BenchStore::fresh(StoreKind::Postgres, &work)?;
    let served = serve(&idreg, &store, &work, options.threads)?;
    let (orgnrs, _) = super::prime(&served.server, &served.token, options.companies)?;
    let idreg_orgnrs = work.join("orgnrs.txt");
    std::fs::write(&idreg_orgnrs, orgnrs.join("\n") + "\n")?;
    eprintln!(
        "bench: {} company profiles primed in idreg's cache",
        orgnrs.len()
    );

    psql(&format!(
        "DROP DATABASE IF EXISTS {FLOOR_DATABASE} WITH (FORCE)"
    ))?;
    psql(&format!("CREATE DATABASE {FLOOR_DATABASE}"))?;
    let floor_orgnrs = work.join("floor-orgnrs.txt");

    // The company script's settings: the token and the primed numbers, idreg's or the floor's.
    let idreg_env = load(&served.token, &idreg_orgnrs);
    let mut rows = Vec::new();
    for rep in 1..=options.reps {
        let floor = start_floor(&release.join("floor"), options.threads, &floor_orgnrs)?;
        let floor_run = measured(&floor.url, &script, &floor.load(&floor_orgnrs), options)?;
        drop(floor);
        let idreg_run = measured(&served.server.url, &script, &idreg_env, options)?;
        println!(
            "rep {rep}  floor {:>7.0} req/s p50 {:>8} p99 {:>8}  idreg {:>7.0} req/s p50 {:>8} p99 {:>8}  ratio {:.2}{}",
            floor_run.requests_per_second,
            floor_run.p50,
            floor_run.p99,
            idreg_run.requests_per_second,
            idreg_run.p50,
            idreg_run.p99,
            idreg_run.requests_per_second / floor_run.requests_per_second,
            if floor_run.errors + idreg_run.errors > 0 {
                format!(
                    "  errors: floor {}, idreg {}",
                    floor_run.errors, idreg_run.errors
                )
            } else {
                String::new()
            }
        );
        rows.push((floor_run, idreg_run));
    }
    println!("{}", summary(&rows));

    // What one request costs beyond time: counted apart from the timed runs, since counting
    // allocations slows a process down.
    let before = served.server.statements()?;
    let out = wrk(
        &served.server.url,
        &script,
        &idreg_env,
        options.threads,
        options.connections,
        COUNTED_SECONDS,
    )?;
    let after = served.server.statements()?;
    let requests = WrkOutput::parse(&out)?.requests.max(1);
    if let Some((before, after)) = before.zip(after) {
        println!(
            "idreg: {:.2} statements per request (its store's count); the floor: 6 by construction (two reads, BEGIN, two inserts, COMMIT)",
            after.saturating_sub(before) as f64 / requests as f64
        );
    }
    match allocations(
        served.server.child.id(),
        &served.server.url,
        &script,
        &idreg_env,
        options,
    )? {
        Counted::PerRequest(idreg) => {
            let floor = start_floor(&release.join("floor"), options.threads, &floor_orgnrs)?;
            let floor_env = floor.load(&floor_orgnrs);
            let floor_allocations =
                allocations(floor.child.id(), &floor.url, &script, &floor_env, options)?;
            println!(
                "allocator calls (malloc, calloc, realloc) per request: idreg {idreg:.0}, the floor {}",
                match floor_allocations {
                    Counted::PerRequest(n) => format!("{n:.0}"),
                    Counted::NotCounted(why) => format!("not counted ({why})"),
                }
            );
        }
        Counted::NotCounted(why) => println!("allocations not counted: {why}"),
    }
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

/// How long the counted runs (statements, allocations) load a server.
const COUNTED_SECONDS: u32 = 5;

enum Counted {
    PerRequest(f64),
    NotCounted(String),
}

/// The C library's allocator calls per request while wrk loads the process `pid`: uprobes
/// on `malloc`, `calloc` and `realloc` (Rust's system allocator enters through these),
/// counted by `perf stat`. Needs `perf` and the right to add uprobes (root); without them the
/// figure is not counted and the run goes on.
fn allocations(
    pid: u32,
    url: &str,
    script: &Path,
    env: &[(&str, String)],
    options: &Options,
) -> Result<Counted> {
    const CALLS: [&str; 3] = ["malloc", "calloc", "realloc"];
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps"))?;
    let Some(libc) = maps
        .lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|p| p.contains("/libc.so") || p.contains("/libc-"))
    else {
        return Ok(Counted::NotCounted("the process maps no C library".into()));
    };
    let listed = Command::new("perf").args(["probe", "-l"]).output();
    let Ok(listed) = listed else {
        return Ok(Counted::NotCounted("perf is not installed".into()));
    };
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    for call in CALLS {
        if !listed.contains(&format!("probe_libc:{call} ")) {
            let added = Command::new("perf")
                .args(["probe", "-q", "-x", libc, "--add", call])
                .output()?;
            if !added.status.success() {
                return Ok(Counted::NotCounted(format!(
                    "perf cannot add a uprobe on {call}: {}",
                    String::from_utf8_lossy(&added.stderr).trim()
                )));
            }
        }
    }
    let events = CALLS.map(|c| format!("probe_libc:{c}")).join(",");
    let stat = Command::new("perf")
        .args(["stat", "-x", ",", "-e", &events, "-p", &pid.to_string()])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .context("perf stat")?;
    std::thread::sleep(Duration::from_millis(500));
    let out = wrk(
        url,
        script,
        env,
        options.threads,
        options.connections,
        COUNTED_SECONDS,
    )?;
    let _ = Command::new("kill")
        .args(["-INT", &stat.id().to_string()])
        .status();
    let counted = stat.wait_with_output()?;
    let text = String::from_utf8_lossy(&counted.stderr);
    let calls: u64 = text
        .lines()
        .filter(|l| CALLS.iter().any(|c| l.contains(&format!("probe_libc:{c}"))))
        .filter_map(|l| l.split(',').next()?.trim().parse::<u64>().ok())
        .sum();
    let requests = WrkOutput::parse(&out)?.requests;
    if calls == 0 || requests == 0 {
        return Ok(Counted::NotCounted(format!(
            "perf counted nothing: {}",
            text.trim()
        )));
    }
    Ok(Counted::PerRequest(calls as f64 / requests as f64))
}

/// The verdict over the repetitions: the median ratio, the worst repetition, the p99s.
fn summary(rows: &[(Run, Run)]) -> String {
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let mid = v.len() / 2;
        if v.len() % 2 == 1 {
            v[mid]
        } else {
            (v[mid - 1] + v[mid]) / 2.0
        }
    };
    let floor = median(rows.iter().map(|(f, _)| f.requests_per_second).collect());
    let idreg = median(rows.iter().map(|(_, i)| i.requests_per_second).collect());
    let ratios: Vec<f64> = rows
        .iter()
        .map(|(f, i)| i.requests_per_second / f.requests_per_second)
        .collect();
    let (worst, worst_ratio) = ratios
        .iter()
        .copied()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .expect("at least one repetition");
    let within = rows.iter().filter(|(f, i)| i.p99_ms <= f.p99_ms).count();
    let (p99_rep, (p99_floor, p99_idreg)) = rows
        .iter()
        .map(|(f, i)| (f.p99_ms, i.p99_ms))
        .enumerate()
        .max_by(|a, b| (a.1 .1 / a.1 .0).total_cmp(&(b.1 .1 / b.1 .0)))
        .expect("at least one repetition");
    format!(
        "median req/s: floor {floor:.0}, idreg {idreg:.0}, ratio {:.2}\n\
         worst repetition: rep {} at {worst_ratio:.2}\n\
         idreg's p99 within the floor's in {within} of {} repetitions (widest: rep {}, idreg {p99_idreg:.1} ms against the floor's {p99_floor:.1} ms)",
        idreg / floor,
        worst + 1,
        rows.len(),
        p99_rep + 1,
    )
}

/// A checkpoint (neither server pays for the other's writes), a warm-up, then the run.
fn measured(url: &str, script: &Path, env: &[(&str, String)], options: &Options) -> Result<Run> {
    psql("CHECKPOINT")?;
    wrk(
        url,
        script,
        env,
        options.threads,
        options.connections,
        WARM_UP_SECONDS,
    )?;
    let out = wrk(
        url,
        script,
        env,
        options.threads,
        options.connections,
        options.duration,
    )?;
    Run::of(&out)
}

fn start_floor(binary: &Path, workers: u32, orgnrs: &Path) -> Result<Floor> {
    let mut child = Command::new(binary)
        .env("FLOOR_DATABASE_URL", format!("{SERVER}/{FLOOR_DATABASE}"))
        .env("FLOOR_WORKERS", workers.to_string())
        .env("FLOOR_ORGNRS_FILE", orgnrs)
        .stdout(Stdio::piped())
        .spawn()
        .context("starting the floor")?;
    let stdout = child.stdout.take().context("the floor's stdout")?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    let started: Value = serde_json::from_str(&line).context("the floor did not start")?;
    let floor = Floor {
        url: super::text(&started, "url")?,
        token: super::text(&started, "token")?,
        child,
    };
    std::thread::sleep(Duration::from_secs(1));
    Ok(floor)
}

/// A wrk latency (`850.00us`, `24.61ms`, `1.02s`, `2.00m`) in milliseconds.
fn milliseconds(latency: &str) -> Result<f64> {
    let split = latency
        .find(|c: char| c.is_ascii_alphabetic())
        .with_context(|| format!("no unit in {latency}"))?;
    let (number, unit) = latency.split_at(split);
    let number: f64 = number
        .parse()
        .with_context(|| format!("not a latency: {latency}"))?;
    let factor = match unit {
        "us" => 0.001,
        "ms" => 1.0,
        "s" => 1000.0,
        "m" => 60_000.0,
        other => bail!("unknown latency unit {other}"),
    };
    Ok(number * factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrk_latencies_read_in_milliseconds() {
        assert_eq!(milliseconds("850.00us").unwrap(), 0.85);
        assert_eq!(milliseconds("24.61ms").unwrap(), 24.61);
        assert_eq!(milliseconds("1.02s").unwrap(), 1020.0);
        assert_eq!(milliseconds("2.00m").unwrap(), 120_000.0);
        assert!(milliseconds("12").is_err());
        assert!(milliseconds("1.0h").is_err());
    }

    fn run(rps: f64, p99_ms: f64) -> Run {
        Run {
            requests_per_second: rps,
            p50: String::new(),
            p99: String::new(),
            p99_ms,
            errors: 0,
        }
    }

    #[test]
    fn the_summary_names_the_median_ratio_and_the_worst_repetition() {
        let rows = [
            (run(1000.0, 30.0), run(1100.0, 25.0)),
            (run(1000.0, 30.0), run(800.0, 60.0)),
            (run(900.0, 30.0), run(1000.0, 20.0)),
        ];
        let text = summary(&rows);
        assert!(
            text.contains("floor 1000, idreg 1000, ratio 1.00"),
            "{text}"
        );
        assert!(text.contains("worst repetition: rep 2 at 0.80"), "{text}");
        assert!(text.contains("within the floor's in 2 of 3"), "{text}");
        assert!(
            text.contains("widest: rep 2, idreg 60.0 ms against the floor's 30.0 ms"),
            "{text}"
        );
    }
}
