//! `idreg lists ...`: importing sanctions and PEP lists into immutable source versions, and showing
//! which version of each list is active.
//!
//! `import` reads a file (or an OFAC CSV folder) in its format, detected or named, with
//! `adapters-screening`, and hands the complete read to the domain's `ListService`, which
//! stores it as a new version and makes it active in one transaction. A read that fails is
//! recorded as a failed import (checks report the list as degraded) and changes nothing else.
//! Progress goes to stderr: a bar on a terminal, plain lines otherwise; the result is one JSON
//! object on stdout, like every operator command.

use crate::app::App;
use adapters_screening::{ListFormat, ReadError};
use clap::Subcommand;
use domain::screening::sanctions::{ActiveList, ImportOutcome, ListSource, SourceVersion};
use domain::{ErrorCode, Failure};
use serde_json::{json, Value};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum ListsCommand {
    /// Imports a sanctions list file (UN XML) or OFAC CSV set (a folder, or its sdn.csv /
    /// cons_prim.csv), or a PEP list (FollowTheMoney PEP data, the Riksdag's members), as a
    /// new version, active at once; the format is detected unless named.
    Import {
        path: PathBuf,
        /// un-xml, ofac-csv, ofac-advanced-xml, eu-xml, uk-xml, opensanctions-json, ftm-pep
        /// or riksdagen-json.
        #[arg(long)]
        format: Option<String>,
    },
    /// Shows every list's active version and any failed import since.
    Show,
}

/// The steps of an import, reported as they pass.
struct Progress {
    terminal: bool,
    steps: usize,
    done: usize,
}

impl Progress {
    fn new(steps: usize) -> Progress {
        Progress {
            terminal: std::io::stderr().is_terminal(),
            steps,
            done: 0,
        }
    }

    fn step(&mut self, what: &str) {
        self.done += 1;
        let mut err = std::io::stderr().lock();
        if self.terminal {
            const WIDTH: usize = 30;
            let filled = WIDTH * self.done / self.steps.max(1);
            let _ = write!(
                err,
                "\r\x1b[2K[{}{}] {}/{} {what}",
                "#".repeat(filled),
                " ".repeat(WIDTH - filled),
                self.done,
                self.steps
            );
            if self.done == self.steps {
                let _ = writeln!(err);
            }
        } else {
            let _ = writeln!(err, "lists import: {}/{} {what}", self.done, self.steps);
        }
        let _ = err.flush();
    }
}

pub async fn execute_lists(app: &App, command: ListsCommand) -> Result<Value, Failure> {
    match command {
        ListsCommand::Import { path, format } => import(app, path, format).await,
        ListsCommand::Show => {
            let lists = app.services.lists.active().await?;
            Ok(json!({ "lists": lists.iter().map(active_json).collect::<Vec<_>>() }))
        }
    }
}

async fn import(app: &App, path: PathBuf, format: Option<String>) -> Result<Value, Failure> {
    let format = format
        .map(|f| {
            ListFormat::parse(&f).ok_or_else(|| {
                Failure::bad_request("format", &format!("must be one of {}", ListFormat::names()))
            })
        })
        .transpose()?;
    let mut progress = Progress::new(3);
    let shown = path.display().to_string();
    // Reading (and checking) the files is blocking work: off the runtime's threads.
    let read = {
        let path = path.clone();
        tokio::task::spawn_blocking(move || adapters_screening::read_path(&path, format))
            .await
            .map_err(Failure::internal)?
    };
    let read = match read {
        Ok(read) => read,
        Err(e) => {
            // Recorded against the list it was meant for, when that can be told.
            if let Some(source) = format
                .and_then(adapters_screening::source_of)
                .or_else(|| source_named_by(&path))
            {
                app.services
                    .lists
                    .record_unreadable(source, &e.to_string())
                    .await?;
            }
            return Err(read_failure(&e));
        }
    };
    progress.step(&format!(
        "read {} ({} entries, {} records skipped)",
        shown,
        read.list.entries.len(),
        read.list.skipped.len()
    ));
    let skipped = read.list.skipped.clone();
    // Records of another kind of list (PEPs in a sanctions export, sanctioned entities in
    // a PEP feed): counted, never stored under this list.
    let set_aside: serde_json::Map<String, Value> = read
        .list
        .set_aside
        .iter()
        .map(|s| (s.what.clone(), json!(s.count)))
        .collect();
    progress.step("storing the version");
    let outcome = app.services.lists.import(read.list, &read.digest).await?;
    progress.step(match &outcome {
        ImportOutcome::Stored(_) => "stored; now the active version",
        ImportOutcome::AlreadyStored(_) => "already stored; active again",
    });
    let (status, version) = match &outcome {
        ImportOutcome::Stored(v) => ("stored", v),
        ImportOutcome::AlreadyStored(v) => ("already_stored", v),
    };
    Ok(json!({
        "status": status,
        "version": version_json(version),
        "files": read.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
        "skipped": skipped,
        "set_aside": set_aside,
    }))
}

/// The list a path names by its file name, for recording a failed read.
fn source_named_by(path: &std::path::Path) -> Option<ListSource> {
    let name = path.file_name()?.to_string_lossy().to_lowercase();
    if name.starts_with("sdn") {
        Some(ListSource::OfacSdn)
    } else if name.starts_with("cons_") {
        Some(ListSource::OfacConsolidated)
    } else if name.contains("consolidated") || name.starts_with("un") {
        Some(ListSource::UnConsolidated)
    } else {
        None
    }
}

fn read_failure(e: &ReadError) -> Failure {
    Failure::new(ErrorCode::BadRequest, e.to_string())
}

fn version_json(v: &SourceVersion) -> Value {
    json!({
        "source_version_id": v.id.to_string(),
        "source_id": v.source.as_str(),
        "digest": v.digest,
        "published_at": v.published_at.map(api_core::dto::timestamp),
        "imported_at": api_core::dto::timestamp(v.imported_at),
        "entry_count": v.entry_count,
        "skipped_count": v.skipped_count,
    })
}

fn active_json(l: &ActiveList) -> Value {
    json!({
        "version": version_json(&l.version),
        "activated_at": api_core::dto::timestamp(l.activated_at),
        "degraded": l.failed_since.is_some(),
        "failed_import": l.failed_since.as_ref().map(|f| json!({
            "attempted_at": api_core::dto::timestamp(f.attempted_at),
            "reason": f.reason,
        })),
    })
}
