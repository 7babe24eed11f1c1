//! `cargo xtask fuzz [--seconds N] [--target NAME]...`: builds the coverage-guided fuzz
//! targets under `fuzz/` and runs each for N seconds (default 60), one after the other.
//!
//! The targets link libFuzzer through the `libfuzzer-sys` crate, and the build instruments
//! them with LLVM's SanitizerCoverage through stable `rustc` flags (`-C passes=sancov-module`
//! and `-C llvm-args=...`, the flags `cargo fuzz` itself passes when no sanitizer is asked
//! for): no nightly toolchain and no `cargo fuzz` binary are needed. The build goes to
//! `fuzz/target` for the host triple given explicitly, so build scripts and proc macros stay
//! uninstrumented. (`cargo fuzz run -s none <target>` builds and runs the same targets.)
//!
//! Each target starts from its seeds (`fuzz/seeds/<target>`, tracked) and keeps what it
//! learns in `fuzz/corpus/<target>` (untracked, so a later run starts further on). A crash,
//! a failed assertion, a timeout (an input taking over 10 s) or running out of memory ends the
//! target: the input is written to `fuzz/artifacts/<target>/` and the task fails. One line per
//! target: seconds, executions, executions per second and the result.

use anyhow::{bail, Context, Result};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The instrumentation: edge coverage with 8-bit counters and a PC table (what libFuzzer
/// reads), comparison tracing (so the fuzzer learns the constants a parser compares with)
/// and stack depth, without branch folding that would hide edges. All stable flags.
const RUSTFLAGS: &[&str] = &[
    "-Cpasses=sancov-module",
    "-Cllvm-args=-sanitizer-coverage-level=4",
    "-Cllvm-args=-sanitizer-coverage-inline-8bit-counters",
    "-Cllvm-args=-sanitizer-coverage-pc-table",
    "-Cllvm-args=-sanitizer-coverage-trace-compares",
    "-Cllvm-args=-sanitizer-coverage-stack-depth",
    "-Cllvm-args=-simplifycfg-branch-fold-threshold=0",
    "--cfg",
    "fuzzing",
];

/// Per input: longer than this is a finding (`-timeout`, seconds).
const INPUT_TIMEOUT_SECS: u32 = 10;
/// Memory: more than this is a finding (`-rss_limit_mb`).
const RSS_LIMIT_MB: u32 = 2048;

struct Options {
    seconds: u64,
    targets: Vec<String>,
}

fn options(args: &[String]) -> Result<Options> {
    let mut options = Options {
        seconds: 60,
        targets: Vec::new(),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => {
                options.seconds = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .filter(|&s| s > 0)
                    .context("--seconds takes a whole number of seconds, at least 1")?;
            }
            "--target" => options
                .targets
                .push(args.next().context("--target takes a target name")?.clone()),
            other => bail!(
                "unknown argument {other:?}; usage: cargo xtask fuzz [--seconds N] [--target NAME]..."
            ),
        }
    }
    Ok(options)
}

pub fn main(root: &Path, args: &[String]) -> Result<()> {
    let options = options(args)?;
    let fuzz = root.join("fuzz");
    let all = targets(&fuzz)?;
    for t in &options.targets {
        if !all.contains(t) {
            bail!("no fuzz target {t:?}; the targets are: {}", all.join(", "));
        }
    }
    let chosen = if options.targets.is_empty() {
        all
    } else {
        options.targets.clone()
    };

    let started = Instant::now();
    let binaries = build(&fuzz, &chosen)?;
    println!(
        "fuzz: built {} targets in {:.0} s",
        chosen.len(),
        started.elapsed().as_secs_f64()
    );

    let mut failed = Vec::new();
    for target in &chosen {
        let binary = binaries
            .iter()
            .find(|(name, _)| name == target)
            .map(|(_, path)| path)
            .with_context(|| format!("the build made no binary for {target}"))?;
        let run = run(&fuzz, target, binary, options.seconds)?;
        println!(
            "fuzz: {target:<26} {:>5.0} s {:>11} execs {:>8} execs/s  {}",
            run.seconds,
            run.executions,
            run.executions / run.seconds.max(1.0) as u64,
            run.result
        );
        if !run.ok {
            failed.push(target.clone());
        }
    }
    println!(
        "fuzz: {} targets, {} failed, {:.0} s in all",
        chosen.len(),
        failed.len(),
        started.elapsed().as_secs_f64()
    );
    if !failed.is_empty() {
        eprintln!("fuzz: FAILED: {}", failed.join(", "));
        std::process::exit(1);
    }
    Ok(())
}

/// The `[[bin]]` names of `fuzz/Cargo.toml`, in order.
fn targets(fuzz: &Path) -> Result<Vec<String>> {
    let manifest = std::fs::read_to_string(fuzz.join("Cargo.toml"))?;
    let mut names = Vec::new();
    let mut in_bin = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if let Some(value) = line.strip_prefix("name = ").filter(|_| in_bin) {
            names.push(value.trim_matches('"').to_owned());
        }
    }
    if names.is_empty() {
        bail!("fuzz/Cargo.toml names no targets");
    }
    Ok(names)
}

fn host_triple() -> Result<String> {
    let out = Command::new("rustc").arg("-vV").output()?;
    String::from_utf8(out.stdout)?
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .context("rustc -vV names no host")
}

/// Builds the targets; their names and executables, read from cargo's messages.
fn build(fuzz: &Path, targets: &[String]) -> Result<Vec<(String, PathBuf)>> {
    // The root lock pins every crate the targets share with the service; cargo prunes what
    // the fuzz workspace does not use and adds only its own (pinned in fuzz/Cargo.toml). So
    // a dependency the service gains never leaves a stale fuzz lock behind.
    std::fs::copy(
        fuzz.parent()
            .context("fuzz/ has a parent")?
            .join("Cargo.lock"),
        fuzz.join("Cargo.lock"),
    )
    .context("copying Cargo.lock into fuzz/")?;
    let mut cmd = Command::new("cargo");
    cmd.args([
        "build",
        "--release",
        "--message-format=json-render-diagnostics",
    ])
    .arg("--manifest-path")
    .arg(fuzz.join("Cargo.toml"))
    .args(["--target", &host_triple()?])
    .env("RUSTFLAGS", RUSTFLAGS.join(" "))
    .env_remove("CARGO_ENCODED_RUSTFLAGS")
    .env("CARGO_TARGET_DIR", fuzz.join("target"))
    .current_dir(fuzz)
    .stdout(Stdio::piped());
    for t in targets {
        cmd.args(["--bin", t]);
    }
    let mut child = cmd
        .spawn()
        .context("starting cargo build for the fuzz targets")?;
    let mut binaries = Vec::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let message: serde_json::Value = match serde_json::from_str(&line?) {
            Ok(m) => m,
            Err(_) => continue,
        };
        if let (Some(name), Some(exe)) = (
            message.pointer("/target/name").and_then(|v| v.as_str()),
            message.get("executable").and_then(|v| v.as_str()),
        ) {
            binaries.push((name.to_owned(), PathBuf::from(exe)));
        }
    }
    if !child.wait()?.success() {
        bail!("building the fuzz targets failed");
    }
    Ok(binaries)
}

struct Run {
    seconds: f64,
    executions: u64,
    ok: bool,
    result: String,
}

/// Runs one target for `seconds` and reads libFuzzer's report. Its full output is kept in
/// `fuzz/artifacts/<target>/last-run.log`.
fn run(fuzz: &Path, target: &str, binary: &Path, seconds: u64) -> Result<Run> {
    let corpus = fuzz.join("corpus").join(target);
    let seeds = fuzz.join("seeds").join(target);
    let artifacts = fuzz.join("artifacts").join(target);
    std::fs::create_dir_all(&corpus)?;
    std::fs::create_dir_all(&artifacts)?;
    let mut cmd = Command::new(binary);
    cmd.arg(&corpus);
    if seeds.is_dir() {
        cmd.arg(&seeds);
    }
    let log_path = artifacts.join("last-run.log");
    let started = Instant::now();
    let status = cmd
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-timeout={INPUT_TIMEOUT_SECS}"))
        .arg(format!("-rss_limit_mb={RSS_LIMIT_MB}"))
        .arg(format!("-artifact_prefix={}/", artifacts.display()))
        .arg("-print_final_stats=1")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log_path)?)
        .status()
        .with_context(|| format!("starting {}", binary.display()))?;
    let seconds = started.elapsed().as_secs_f64();
    let log = std::fs::read_to_string(&log_path).unwrap_or_default();
    let executions = log
        .lines()
        .find_map(|l| l.strip_prefix("stat::number_of_executed_units:"))
        .or_else(|| {
            // A crash ends the run before the final stats: the last progress line's count.
            log.lines().rev().find_map(|l| {
                l.strip_prefix('#')
                    .and_then(|r| r.split_whitespace().next())
            })
        })
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    if status.success() {
        return Ok(Run {
            seconds,
            executions,
            ok: true,
            result: "0 crashes".into(),
        });
    }
    // What went wrong, and the input that shows it.
    let lines: Vec<&str> = log.lines().collect();
    let cause = match lines.iter().position(|l| l.contains("panicked at")) {
        // The panic's message is on the line after its place.
        Some(i) => lines[i..lines.len().min(i + 2)].join(" ").trim().to_owned(),
        None => lines
            .iter()
            .find(|l| {
                l.contains("ERROR: libFuzzer")
                    || l.contains("==ERROR")
                    || l.contains("deadly signal")
            })
            .map_or("see the log", |l| l.trim())
            .to_owned(),
    };
    let input = log
        .lines()
        .find_map(|l| l.split("Test unit written to ").nth(1))
        .unwrap_or("(none written)")
        .trim()
        .to_owned();
    eprintln!(
        "fuzz: {target}: {cause}; the input: {input}; log: {}",
        log_path.display()
    );
    Ok(Run {
        seconds,
        executions,
        ok: false,
        result: format!("FAILED ({cause})"),
    })
}
