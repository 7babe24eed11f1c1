//! Scheduled sanctions-list import from the official URLs (production; off unless
//! configured).
//!
//! `IDREG_LISTS_URLS` names the lists to fetch, `source=url` separated by commas, or
//! `official` for the official publications of the UN list and OFAC's SDN and consolidated
//! lists ([`OFFICIAL`]); `IDREG_LISTS_INTERVAL_HOURS` (default 24, `0` off) how often. Each
//! pass downloads every list (connect, read and overall time limits, a size cap) into a
//! private temporary folder, reads it with `adapters-screening` in the list's format, and
//! hands it to the domain's `ListService::import`, exactly like `idreg lists import`: the same
//! bytes again are the same version (by digest), a new publication becomes the active
//! version. Any failure (an HTTP error, a timeout, a file over the cap, a file cut short or
//! not the list it should be) is recorded as a failed import of that list, so checks report
//! it in `degraded_sources`, and the active version stays. After a pass that imported
//! anything the screening index is rebuilt in this process (other replicas notice the new
//! version at their next check).
//!
//! Every replica that has it configured runs it; importing the same publication twice
//! stores nothing new.

use adapters_screening::ListFormat;
use anyhow::{bail, Context};
use domain::screening::sanctions::{ImportOutcome, ListSource, SourceVersion};
use domain::services::Services;
use domain::ErrorCode;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The official publications `official` stands for: the UN Security Council Consolidated
/// List (XML), OFAC's SDN list as one advanced-XML file, and OFAC's consolidated non-SDN list
/// as its legacy CSV set (`CONS_PRIM.CSV`, its companions fetched beside it; OFAC's advanced
/// XML of the consolidated list is not read as that list).
pub const OFFICIAL: [(ListSource, &str); 3] = [
    (
        ListSource::UnConsolidated,
        "https://scsanctions.un.org/resources/xml/en/consolidated.xml",
    ),
    (
        ListSource::OfacSdn,
        "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN_ADVANCED.XML",
    ),
    (
        ListSource::OfacConsolidated,
        "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/CONS_PRIM.CSV",
    ),
];

/// The default pause between passes.
pub const DEFAULT_INTERVAL_HOURS: u64 = 24;
/// The longest pause accepted (a year).
pub const MAX_INTERVAL_HOURS: u64 = 24 * 366;

/// One list to fetch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduledList {
    pub source: ListSource,
    pub format: ListFormat,
    /// The file's URL (for an OFAC CSV set, its primary file's).
    pub url: String,
}

/// Parses `IDREG_LISTS_URLS`: `source=url` items separated by commas (or whitespace), and
/// `official` for [`OFFICIAL`]; a later item for the same list replaces an earlier one.
pub fn parse_urls(spec: &str) -> anyhow::Result<Vec<ScheduledList>> {
    let mut lists: Vec<ScheduledList> = Vec::new();
    let mut add = |list: ScheduledList| {
        lists.retain(|l| l.source != list.source);
        lists.push(list);
    };
    for item in spec
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
    {
        if item == "official" {
            for (source, url) in OFFICIAL {
                add(scheduled(source, url)?);
            }
            continue;
        }
        let Some((source, url)) = item.split_once('=') else {
            bail!("`{item}` in IDREG_LISTS_URLS is not source=url (or `official`)");
        };
        let source = ListSource::parse(source.trim()).with_context(|| {
            let known: Vec<&str> = ListSource::ALL.iter().map(|s| s.as_str()).collect();
            format!(
                "unknown list `{source}` in IDREG_LISTS_URLS (one of {})",
                known.join(", ")
            )
        })?;
        add(scheduled(source, url.trim())?);
    }
    Ok(lists)
}

/// A list's format, told by its source (and, for OFAC's SDN list, by the file name).
fn scheduled(source: ListSource, url: &str) -> anyhow::Result<ScheduledList> {
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        bail!("the URL of {source} must be http(s): `{}`", shown(url));
    }
    let file = file_name(url).to_ascii_lowercase();
    let format = match source {
        ListSource::UnConsolidated => ListFormat::UnXml,
        ListSource::EuFinancialSanctions => ListFormat::EuXml,
        ListSource::UkSanctionsList => ListFormat::UkXml,
        ListSource::OpenSanctions => ListFormat::OpenSanctionsJson,
        ListSource::FtmPeps => ListFormat::FtmPep,
        ListSource::Riksdagen => ListFormat::RiksdagenJson,
        ListSource::OfacSdn if file == "sdn.csv" => ListFormat::OfacCsv,
        ListSource::OfacSdn if file.ends_with(".csv") => {
            bail!("OFAC's SDN CSV set is fetched from its sdn.csv (companions beside it)")
        }
        ListSource::OfacSdn => ListFormat::OfacAdvancedXml,
        ListSource::OfacConsolidated if file == "cons_prim.csv" => ListFormat::OfacCsv,
        ListSource::OfacConsolidated => {
            bail!("OFAC's consolidated list is fetched as its CSV set: the URL of CONS_PRIM.CSV")
        }
    };
    Ok(ScheduledList {
        source,
        format,
        url: url.to_owned(),
    })
}

/// The last path segment of a URL, without query or fragment.
fn file_name(url: &str) -> &str {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    path.rsplit('/').next().unwrap_or("")
}

/// A URL as shown in logs and failure reasons: without its query (where a token may be).
fn shown(url: &str) -> &str {
    url.split(['?', '#']).next().unwrap_or(url)
}

/// The downloads' limits.
#[derive(Clone, Debug)]
pub struct Limits {
    pub connect_timeout: Duration,
    /// The longest wait for the next bytes.
    pub read_timeout: Duration,
    /// The longest one file's download may take.
    pub total_timeout: Duration,
    /// The largest file accepted, in bytes.
    pub max_bytes: u64,
}

impl Default for Limits {
    /// Room for OFAC's advanced XML (over 100 MB) on a slow link, and no more.
    fn default() -> Self {
        Limits {
            connect_timeout: Duration::from_secs(30),
            read_timeout: Duration::from_secs(120),
            total_timeout: Duration::from_secs(30 * 60),
            max_bytes: 1 << 30,
        }
    }
}

/// What became of one list in a pass.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// A new version, now the active one.
    Stored(SourceVersion),
    /// The same publication as a stored version (now the active one).
    AlreadyStored(SourceVersion),
    /// Recorded as a failed import; the active version stays.
    Failed(String),
}

#[derive(Clone, Debug)]
pub struct ListRun {
    pub source: ListSource,
    pub outcome: Outcome,
}

/// One pass over `lists`: each downloaded, read and imported, or its failure recorded. The
/// screening index is rebuilt after a pass that imported anything.
pub async fn run_once(
    services: &Services,
    lists: &[ScheduledList],
    limits: &Limits,
) -> Vec<ListRun> {
    let client = match reqwest::Client::builder()
        .connect_timeout(limits.connect_timeout)
        .read_timeout(limits.read_timeout)
        .user_agent(concat!(
            "idreg/",
            env!("CARGO_PKG_VERSION"),
            " (sanctions list import)"
        ))
        .build()
    {
        Ok(c) => c,
        Err(e) => {
            let reason = format!("no HTTP client: {e}");
            let mut runs = Vec::new();
            for list in lists {
                record(services, list.source, &reason).await;
                runs.push(ListRun {
                    source: list.source,
                    outcome: Outcome::Failed(reason.clone()),
                });
            }
            return runs;
        }
    };
    let mut runs = Vec::with_capacity(lists.len());
    for list in lists {
        let outcome = import_one(services, &client, list, limits).await;
        runs.push(ListRun {
            source: list.source,
            outcome,
        });
    }
    if runs
        .iter()
        .any(|r| !matches!(r.outcome, Outcome::Failed(_)))
    {
        match services.screening.warm().await {
            Ok(entries) => tracing::info!(entries, "screening index rebuilt after the list import"),
            Err(e) => {
                tracing::warn!(error = %e.message, "rebuilding the screening index failed; the next check builds it")
            }
        }
    }
    runs
}

async fn import_one(
    services: &Services,
    client: &reqwest::Client,
    list: &ScheduledList,
    limits: &Limits,
) -> Outcome {
    let dir = std::env::temp_dir().join(format!(
        "idreg-list-{}-{}",
        list.source.as_str(),
        ulid::Ulid::generate()
    ));
    let result = fetch_and_read(client, list, limits, &dir).await;
    let _ = std::fs::remove_dir_all(&dir);
    let read = match result {
        Ok(read) => read,
        Err(reason) => {
            record(services, list.source, &reason).await;
            return Outcome::Failed(reason);
        }
    };
    match services.lists.import(read.list, &read.digest).await {
        Ok(ImportOutcome::Stored(v)) => Outcome::Stored(v),
        Ok(ImportOutcome::AlreadyStored(v)) => Outcome::AlreadyStored(v),
        // Refused by the use case: it recorded the failed import itself.
        Err(f) if f.code == ErrorCode::BadRequest => Outcome::Failed(f.message),
        Err(f) => {
            let reason = format!(
                "storing the version failed: {}",
                f.internal.as_deref().unwrap_or(&f.message)
            );
            record(services, list.source, &reason).await;
            Outcome::Failed(reason)
        }
    }
}

/// Records a failed import; when even that fails (the database down), the log says so.
async fn record(services: &Services, source: ListSource, reason: &str) {
    if let Err(e) = services.lists.record_unreadable(source, reason).await {
        tracing::warn!(list = %source, reason, error = %e, "recording a failed list import failed");
    }
}

/// Downloads the list's file(s) into `dir` and reads them.
async fn fetch_and_read(
    client: &reqwest::Client,
    list: &ScheduledList,
    limits: &Limits,
    dir: &Path,
) -> Result<adapters_screening::ReadList, String> {
    create_private_dir(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let files = files_of(list);
    for (url, name) in &files {
        download(client, url, &dir.join(name), limits).await?;
    }
    let path = dir.join(&files[0].1);
    let format = list.format;
    let read =
        tokio::task::spawn_blocking(move || adapters_screening::read_path(&path, Some(format)))
            .await
            .map_err(|e| format!("reading the file: {e}"))?
            .map_err(|e| format!("{} from {}: {e}", format.as_str(), shown(&list.url)))?;
    if read.list.source != list.source {
        return Err(format!(
            "{} holds the list {}, not {}",
            shown(&list.url),
            read.list.source,
            list.source
        ));
    }
    Ok(read)
}

/// The files to fetch, `(url, local name)`, the primary first. A single file keeps the URL's
/// file name (so its digest is that of the same file imported by hand); an OFAC CSV set is
/// its primary file with its companions from the same folder, under the names the reader
/// looks for.
fn files_of(list: &ScheduledList) -> Vec<(String, String)> {
    let name = file_name(&list.url);
    if list.format != ListFormat::OfacCsv {
        let safe: String = name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
            .collect();
        let safe = if safe.is_empty() || safe.starts_with('.') {
            format!("{}.{}", list.source.as_str(), list.format.as_str())
        } else {
            safe
        };
        return vec![(list.url.clone(), safe)];
    }
    let set: [&str; 4] = match list.source {
        ListSource::OfacConsolidated => [
            "cons_prim.csv",
            "cons_alt.csv",
            "cons_add.csv",
            "cons_comments.csv",
        ],
        _ => ["sdn.csv", "alt.csv", "add.csv", "sdn_comments.csv"],
    };
    let upper = name.chars().any(|c| c.is_ascii_uppercase());
    let (path, query) = match list.url.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (list.url.as_str(), None),
    };
    let folder = &path[..path.len() - name.len()];
    set.iter()
        .map(|file| {
            let remote = if upper {
                file.to_ascii_uppercase()
            } else {
                (*file).to_owned()
            };
            let url = match query {
                Some(q) => format!("{folder}{remote}?{q}"),
                None => format!("{folder}{remote}"),
            };
            (url, (*file).to_owned())
        })
        .collect()
}

/// Downloads `url` into `to`: a success status, within the time limits and the size cap.
async fn download(
    client: &reqwest::Client,
    url: &str,
    to: &Path,
    limits: &Limits,
) -> Result<u64, String> {
    let what = format!("GET {}", shown(url));
    let fetch = async {
        let mut response = client
            .get(url)
            .send()
            .await
            .map_err(|e| format!("{what}: {}", describe(e)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("{what}: HTTP {status}"));
        }
        if let Some(length) = response.content_length() {
            if length > limits.max_bytes {
                return Err(format!(
                    "{what}: {length} bytes, over the cap of {} bytes",
                    limits.max_bytes
                ));
            }
        }
        let file = std::fs::File::create(to).map_err(|e| format!("{what}: writing: {e}"))?;
        let mut file = std::io::BufWriter::new(file);
        let mut written: u64 = 0;
        while let Some(chunk) = response.chunk().await.map_err(|e| {
            format!(
                "{what}: the body broke off after {written} bytes: {}",
                describe(e)
            )
        })? {
            written += chunk.len() as u64;
            if written > limits.max_bytes {
                return Err(format!(
                    "{what}: over the cap of {} bytes",
                    limits.max_bytes
                ));
            }
            file.write_all(&chunk)
                .map_err(|e| format!("{what}: writing: {e}"))?;
        }
        file.flush().map_err(|e| format!("{what}: writing: {e}"))?;
        Ok(written)
    };
    match tokio::time::timeout(limits.total_timeout, fetch).await {
        Ok(result) => result,
        Err(_) => Err(format!(
            "{what}: not complete within {} s",
            limits.total_timeout.as_secs()
        )),
    }
}

/// A transfer error in a line: what failed and why, without the URL (it may hold a token).
fn describe(e: reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "could not connect"
    } else if e.is_redirect() {
        "too many redirects"
    } else if e.is_body() || e.is_decode() {
        "the body could not be read"
    } else {
        "the request failed"
    };
    let mut causes = Vec::new();
    let mut source = std::error::Error::source(&e);
    while let Some(cause) = source {
        let text = cause.to_string();
        if !causes.contains(&text) {
            causes.push(text);
        }
        source = cause.source();
    }
    if causes.is_empty() {
        kind.to_owned()
    } else {
        format!("{kind} ({})", causes.join(": "))
    }
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Starts the scheduled import in the background when configured: a pass at once, then one
/// every `IDREG_LISTS_INTERVAL_HOURS`, on the background runtime.
pub fn start(
    background: &crate::background::Background,
    services: Arc<Services>,
    lists: &[ScheduledList],
    hours: u64,
) -> Option<tokio::task::JoinHandle<()>> {
    if lists.is_empty() || hours == 0 {
        return None;
    }
    let lists = lists.to_vec();
    let interval = Duration::from_secs(hours * 3600);
    tracing::info!(
        lists = %lists.iter().map(|l| l.source.as_str()).collect::<Vec<_>>().join(","),
        hours,
        "scheduled sanctions-list import"
    );
    Some(background.spawn(async move {
        loop {
            for run in run_once(&services, &lists, &Limits::default()).await {
                match &run.outcome {
                    Outcome::Stored(v) => {
                        tracing::info!(list = %run.source, version = %v.id, entries = v.entry_count, "list imported: a new version")
                    }
                    Outcome::AlreadyStored(v) => {
                        tracing::info!(list = %run.source, version = %v.id, "list unchanged")
                    }
                    Outcome::Failed(reason) => {
                        tracing::warn!(list = %run.source, reason, "list import failed; the active version stays")
                    }
                }
            }
            tokio::time::sleep(interval).await;
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn official_names_the_three_lists_and_items_replace_earlier_ones() {
        let lists = parse_urls("official").unwrap();
        assert_eq!(lists.len(), 3);
        assert_eq!(lists[0].format, ListFormat::UnXml);
        assert_eq!(lists[1].format, ListFormat::OfacAdvancedXml);
        assert_eq!(lists[2].format, ListFormat::OfacCsv);
        let lists = parse_urls(
            "official, un_sc=http://127.0.0.1:9/un.xml,uk_fcdo=https://sanctionslist.fcdo.gov.uk/docs/UK-Sanctions-List.xml",
        )
        .unwrap();
        assert_eq!(lists.len(), 4);
        assert!(lists.iter().any(
            |l| l.source == ListSource::UnConsolidated && l.url == "http://127.0.0.1:9/un.xml"
        ));
        assert!(parse_urls("").unwrap().is_empty());
    }

    #[test]
    fn malformed_items_are_refused() {
        assert!(parse_urls("un_sc").is_err());
        assert!(parse_urls("interpol=https://x/y.xml").is_err());
        assert!(parse_urls("un_sc=ftp://x/y.xml").is_err());
        assert!(parse_urls("ofac_cons=https://x/CONS_ADVANCED.XML").is_err());
        assert!(parse_urls("ofac_sdn=https://x/alt.csv").is_err());
        assert_eq!(
            parse_urls("ofac_sdn=https://x/sdn.csv").unwrap()[0].format,
            ListFormat::OfacCsv
        );
    }

    #[test]
    fn a_csv_set_is_fetched_with_its_companions_under_the_readers_names() {
        let list = &parse_urls("official").unwrap()[2];
        let files = files_of(list);
        assert_eq!(
            files[1],
            (
                "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/CONS_ALT.CSV".to_owned(),
                "cons_alt.csv".to_owned()
            )
        );
        assert_eq!(files[0].1, "cons_prim.csv");
        assert_eq!(files.len(), 4);
        let eu = scheduled(
            ListSource::EuFinancialSanctions,
            "https://h/x/content?token=s3cret",
        )
        .unwrap();
        assert_eq!(files_of(&eu), vec![(eu.url.clone(), "content".to_owned())]);
        assert_eq!(shown(&eu.url), "https://h/x/content");
    }
}
