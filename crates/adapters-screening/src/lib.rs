//! Sanctions-list readers: each official format read completely into the domain's
//! [`ParsedList`], or refused. A file is never half-read into a version: a record the reader
//! cannot understand is skipped whole and named in [`ParsedList::skipped`]; a file that is not
//! the format it claims is an error, and the active version of its list stays.
//!
//! Formats: the UN Security Council Consolidated List XML ([`ListFormat::UnXml`]); OFAC's
//! legacy CSV sets, SDN and consolidated non-SDN ([`ListFormat::OfacCsv`]), and its advanced
//! XML ([`ListFormat::OfacAdvancedXml`]); the EU's financial sanctions file, FSF XML 1.1
//! ([`ListFormat::EuXml`]); the UK Sanctions List XML ([`ListFormat::UkXml`]); and
//! OpenSanctions' FollowTheMoney JSON lines ([`ListFormat::OpenSanctionsJson`]: its sanctioned
//! entities), and PEP data in the same form ([`ListFormat::FtmPep`]: politically exposed
//! persons, their relatives and close associates, each with what makes them exposed). A
//! file that mixes kinds gives each list its own kind only ([`ParsedList::set_aside`]
//! counts the rest). The Swedish Riksdag's member list ([`ListFormat::RiksdagenJson`]) is a
//! PEP list from an official source. A CSV set is a
//! folder (or its primary file: `sdn.csv`, `cons_prim.csv`) with its companions beside it
//! (`alt.csv`/`cons_alt.csv` aliases, `add.csv`/`cons_add.csv` addresses,
//! `sdn_comments.csv`/`cons_comments.csv` remark continuations).

mod countries;
mod eu;
pub mod evaluation;
mod ofac_advanced;
mod ofac_csv;
mod opensanctions;
mod riksdagen;
#[cfg(test)]
mod testing;
mod text;
mod uk;
mod un;
mod xml;

pub use countries::iso_code;

use domain::screening::sanctions::{ListKind, ListSource, ParsedList};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// A list file format this crate reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ListFormat {
    UnXml,
    OfacCsv,
    OfacAdvancedXml,
    EuXml,
    UkXml,
    OpenSanctionsJson,
    /// FollowTheMoney PEP data: politically exposed persons, relatives and associates.
    FtmPep,
    /// The Swedish Riksdag's member list (`personlista`, JSON).
    RiksdagenJson,
}

impl ListFormat {
    pub const ALL: [ListFormat; 8] = [
        ListFormat::UnXml,
        ListFormat::OfacCsv,
        ListFormat::OfacAdvancedXml,
        ListFormat::EuXml,
        ListFormat::UkXml,
        ListFormat::OpenSanctionsJson,
        ListFormat::FtmPep,
        ListFormat::RiksdagenJson,
    ];

    /// The name an operator gives with `--format`.
    pub fn as_str(self) -> &'static str {
        match self {
            ListFormat::UnXml => "un-xml",
            ListFormat::OfacCsv => "ofac-csv",
            ListFormat::OfacAdvancedXml => "ofac-advanced-xml",
            ListFormat::EuXml => "eu-xml",
            ListFormat::UkXml => "uk-xml",
            ListFormat::OpenSanctionsJson => "opensanctions-json",
            ListFormat::FtmPep => "ftm-pep",
            ListFormat::RiksdagenJson => "riksdagen-json",
        }
    }

    /// Every name, for messages.
    pub fn names() -> String {
        ListFormat::ALL.map(ListFormat::as_str).join(", ")
    }

    pub fn parse(s: &str) -> Option<ListFormat> {
        ListFormat::ALL.into_iter().find(|f| f.as_str() == s)
    }
}

/// Why a list could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read {path}: {cause}")]
    Io { path: String, cause: String },
    #[error("the format of {0} is not recognised; name it with --format")]
    UnknownFormat(String),
    #[error("not a valid {format} file: {detail}")]
    Malformed {
        format: &'static str,
        detail: String,
    },
    #[error("{0} holds no entries")]
    Empty(String),
    /// The file holds records, none of them of the list's kind (a PEP file read as a
    /// sanctions list, or the other way round).
    #[error("{path} holds no entries of this kind of list; it holds {what}. {hint}")]
    OtherKind {
        path: String,
        /// The records set aside, counted (`10 role.pep, 2 role.rca`).
        what: String,
        hint: &'static str,
    },
}

/// A list read from disk, with the digest of every byte it was read from.
#[derive(Clone, Debug)]
pub struct ReadList {
    pub list: ParsedList,
    /// `sha256:<hex>` over the files read, in a fixed order: the same files give the same
    /// digest, so importing them twice is recognised.
    pub digest: String,
    pub files: Vec<PathBuf>,
}

/// Reads the list at `path` (a file, or an OFAC CSV folder) in `format`, or in the format its
/// content shows when `None`.
pub fn read_path(path: &Path, format: Option<ListFormat>) -> Result<ReadList, ReadError> {
    let format = match format {
        Some(f) => f,
        None => detect(path)?,
    };
    let (list, files) = match format {
        ListFormat::UnXml
        | ListFormat::OfacAdvancedXml
        | ListFormat::EuXml
        | ListFormat::UkXml
        | ListFormat::OpenSanctionsJson
        | ListFormat::FtmPep
        | ListFormat::RiksdagenJson => {
            let bytes = read_file(path)?;
            (
                read_bytes(format, &bytes)?,
                vec![(path.to_path_buf(), bytes)],
            )
        }
        ListFormat::OfacCsv => {
            let set = ofac_csv::CsvSet::locate(path)?;
            let mut files = Vec::new();
            let mut load = |p: &Option<PathBuf>| -> Result<Option<Vec<u8>>, ReadError> {
                match p {
                    None => Ok(None),
                    Some(p) => {
                        let bytes = read_file(p)?;
                        files.push((p.clone(), bytes.clone()));
                        Ok(Some(bytes))
                    }
                }
            };
            let primary = load(&Some(set.primary.clone()))?.unwrap_or_default();
            let aliases = load(&set.aliases)?;
            let addresses = load(&set.addresses)?;
            let comments = load(&set.comments)?;
            let list = read_ofac_csv(
                set.source,
                &primary,
                aliases.as_deref(),
                addresses.as_deref(),
                comments.as_deref(),
            )?;
            (list, files)
        }
    };
    if list.entries.is_empty() {
        let path = path.display().to_string();
        if list.set_aside.is_empty() {
            return Err(ReadError::Empty(path));
        }
        let what = list
            .set_aside
            .iter()
            .map(|s| format!("{} {}", s.count, s.what))
            .collect::<Vec<_>>()
            .join(", ");
        let hint = match list.source.kind() {
            ListKind::Sanctions => {
                "Politically exposed persons and their relatives and associates are imported \
                 as a PEP list: --format ftm-pep"
            }
            ListKind::Pep => {
                "Sanctioned entities are imported as a sanctions list: --format \
                 opensanctions-json"
            }
        };
        return Err(ReadError::OtherKind { path, what, hint });
    }
    let mut hash = Sha256::new();
    for (p, bytes) in &files {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        hash.update(name.unwrap_or_default().as_bytes());
        hash.update([0]);
        hash.update(bytes);
    }
    Ok(ReadList {
        list,
        digest: format!("sha256:{}", hex::encode(hash.finalize())),
        files: files.into_iter().map(|(p, _)| p).collect(),
    })
}

/// Reads a list file held in memory, in one of the single-file formats. An OFAC CSV set is
/// several files: [`read_ofac_csv`] reads it (here it is refused as malformed).
pub fn read_bytes(format: ListFormat, bytes: &[u8]) -> Result<ParsedList, ReadError> {
    match format {
        ListFormat::UnXml => un::read(bytes),
        ListFormat::OfacAdvancedXml => ofac_advanced::read(bytes),
        ListFormat::EuXml => eu::read(bytes),
        ListFormat::UkXml => uk::read(bytes),
        ListFormat::OpenSanctionsJson => opensanctions::read(bytes),
        ListFormat::FtmPep => opensanctions::pep::read(bytes),
        ListFormat::RiksdagenJson => riksdagen::read(bytes),
        ListFormat::OfacCsv => Err(ReadError::Malformed {
            format: ListFormat::OfacCsv.as_str(),
            detail: "a CSV set is several files, read together".to_owned(),
        }),
    }
}

/// Reads an OFAC CSV set held in memory: the primary file (`sdn.csv` or `cons_prim.csv`, as
/// `source` says) and whichever companions there are (aliases, addresses, remark
/// continuations).
pub fn read_ofac_csv(
    source: ListSource,
    primary: &[u8],
    aliases: Option<&[u8]>,
    addresses: Option<&[u8]>,
    comments: Option<&[u8]>,
) -> Result<ParsedList, ReadError> {
    ofac_csv::read(source, primary, aliases, addresses, comments)
}

/// The format a path's content shows: the UN list's root element, or an OFAC CSV set.
pub fn detect(path: &Path) -> Result<ListFormat, ReadError> {
    if path.is_dir() || ofac_csv::CsvSet::locate(path).is_ok() {
        return Ok(ListFormat::OfacCsv);
    }
    let bytes = read_file(path)?;
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    // Root elements, most specific first (`<SanctionsImposed>` inside a UK file is not an
    // OFAC root).
    let shows = [
        ("<CONSOLIDATED_LIST", ListFormat::UnXml),
        ("<Designations", ListFormat::UkXml),
        ("http://eu.europa.ec/fpi/fsd/export", ListFormat::EuXml),
        ("<Sanctions ", ListFormat::OfacAdvancedXml),
        ("<Sanctions>", ListFormat::OfacAdvancedXml),
    ];
    if let Some((_, format)) = shows.iter().find(|(mark, _)| head.contains(mark)) {
        return Ok(*format);
    }
    if head.trim_start().starts_with('{') && head.contains("\"personlista\"") {
        return Ok(ListFormat::RiksdagenJson);
    }
    if head.trim_start().starts_with('{') && head.contains("\"schema\"") {
        return Ok(ListFormat::OpenSanctionsJson);
    }
    Err(ReadError::UnknownFormat(path.display().to_string()))
}

fn read_file(path: &Path) -> Result<Vec<u8>, ReadError> {
    std::fs::read(path).map_err(|e| ReadError::Io {
        path: path.display().to_string(),
        cause: e.to_string(),
    })
}

/// The list source a format's file belongs to, when the format has only one.
pub fn source_of(format: ListFormat) -> Option<ListSource> {
    match format {
        ListFormat::UnXml => Some(ListSource::UnConsolidated),
        ListFormat::OfacAdvancedXml => Some(ListSource::OfacSdn),
        ListFormat::EuXml => Some(ListSource::EuFinancialSanctions),
        ListFormat::UkXml => Some(ListSource::UkSanctionsList),
        ListFormat::OpenSanctionsJson => Some(ListSource::OpenSanctions),
        ListFormat::FtmPep => Some(ListSource::FtmPeps),
        ListFormat::RiksdagenJson => Some(ListSource::Riksdagen),
        ListFormat::OfacCsv => None,
    }
}
