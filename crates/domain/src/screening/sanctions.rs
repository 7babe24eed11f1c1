//! Sanctions lists as the screening matcher sees them: every official format (UN, OFAC, EU,
//! UK, OpenSanctions) is read by `adapters-screening` into these values, and a complete read
//! becomes one immutable **source version**. Checks name the versions they ran under, so a
//! re-run with the same versions sees the same entries.
//!
//! Values keep what the lists say and no more: a partial birth date stays partial (`1971`,
//! `1971-05`), a range stays a range, a name keeps the list's quality mark (a weak alias is
//! evidence of a lower order), a nationality the list names in words is kept as the list
//! wrote it beside its ISO code when the code is known.

pub use crate::ids::{ListChangeId, SourceVersionId};
use crate::ids::{SubscriptionId, TenantId};
use chrono::{DateTime, NaiveDate, Utc};
use std::fmt;

/// A list the service can load, one per publisher and format family.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ListSource {
    /// The UN Security Council Consolidated List (XML).
    UnConsolidated,
    /// OFAC's Specially Designated Nationals list (legacy CSV or advanced XML).
    OfacSdn,
    /// OFAC's Consolidated (non-SDN) list (legacy CSV).
    OfacConsolidated,
    /// The EU's consolidated financial sanctions file (FSF XML 1.1).
    EuFinancialSanctions,
    /// The UK Sanctions List (FCDO XML).
    UkSanctionsList,
    /// An OpenSanctions FollowTheMoney export (JSON lines): its sanctioned entities only.
    OpenSanctions,
    /// A feed of politically exposed persons, their relatives and close associates in the
    /// FollowTheMoney form (OpenSanctions' PEP data or a vendor's), licensed by the operator.
    FtmPeps,
    /// The Swedish Riksdag's open member data: members of parliament and ministers, with
    /// their terms (free reuse, credited "Source: The Swedish Parliament").
    Riksdagen,
}

/// What a list says about the entries it names.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ListKind {
    /// Sanctioned: a designation by an authority (or an export control).
    Sanctions,
    /// Politically exposed: holders of prominent public functions, their family members and
    /// close associates. Not a sanction: a match asks for enhanced due diligence.
    Pep,
}

impl ListKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ListKind::Sanctions => "sanctions",
            ListKind::Pep => "pep",
        }
    }
}

impl ListSource {
    pub const ALL: [ListSource; 8] = [
        ListSource::UnConsolidated,
        ListSource::OfacSdn,
        ListSource::OfacConsolidated,
        ListSource::EuFinancialSanctions,
        ListSource::UkSanctionsList,
        ListSource::OpenSanctions,
        ListSource::FtmPeps,
        ListSource::Riksdagen,
    ];

    /// Whether the list names sanctioned parties or politically exposed persons.
    pub fn kind(self) -> ListKind {
        match self {
            ListSource::FtmPeps | ListSource::Riksdagen => ListKind::Pep,
            _ => ListKind::Sanctions,
        }
    }

    /// The source id checks carry (`candidates[].source_id`).
    pub fn as_str(self) -> &'static str {
        match self {
            ListSource::UnConsolidated => "un_sc",
            ListSource::OfacSdn => "ofac_sdn",
            ListSource::OfacConsolidated => "ofac_cons",
            ListSource::EuFinancialSanctions => "eu_fsf",
            ListSource::UkSanctionsList => "uk_fcdo",
            ListSource::OpenSanctions => "opensanctions",
            ListSource::FtmPeps => "ftm_peps",
            ListSource::Riksdagen => "se_riksdagen",
        }
    }

    pub fn parse(s: &str) -> Option<ListSource> {
        ListSource::ALL.into_iter().find(|l| l.as_str() == s)
    }
}

impl fmt::Display for ListSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a list entry designates.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EntryKind {
    Person,
    Organisation,
    Vessel,
    Aircraft,
    /// The list does not say (or says something else).
    Other,
}

impl EntryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Person => "person",
            EntryKind::Organisation => "organisation",
            EntryKind::Vessel => "vessel",
            EntryKind::Aircraft => "aircraft",
            EntryKind::Other => "other",
        }
    }

    pub fn parse(s: &str) -> Option<EntryKind> {
        [
            EntryKind::Person,
            EntryKind::Organisation,
            EntryKind::Vessel,
            EntryKind::Aircraft,
            EntryKind::Other,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

/// How much a list trusts a name of an entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum NameQuality {
    /// The primary name, or an alias of good quality.
    Strong,
    /// A low-quality alias (UN "Low", OFAC "weak a.k.a."): too broad to identify alone.
    Weak,
}

impl NameQuality {
    pub fn as_str(self) -> &'static str {
        match self {
            NameQuality::Strong => "strong",
            NameQuality::Weak => "weak",
        }
    }
}

/// One name of a list entry, as the list writes it (the matcher normalises).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedName {
    pub full: String,
    pub quality: NameQuality,
}

/// A date as precise as the list gives it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ListedDate {
    Day(NaiveDate),
    Month {
        year: i32,
        month: u32,
    },
    Year(i32),
    /// A span of years (`circa`, `between`), both ends included.
    Years {
        from: i32,
        to: i32,
    },
}

impl ListedDate {
    /// The wire form kept in snapshots: `1971-05-02`, `1971-05`, `1971`, `1969..1972`.
    pub fn to_wire(self) -> String {
        match self {
            ListedDate::Day(d) => d.to_string(),
            ListedDate::Month { year, month } => format!("{year:04}-{month:02}"),
            ListedDate::Year(y) => format!("{y:04}"),
            ListedDate::Years { from, to } => format!("{from:04}..{to:04}"),
        }
    }

    /// Reads [`ListedDate::to_wire`]'s form back.
    pub fn from_wire(s: &str) -> Option<ListedDate> {
        if let Some((a, b)) = s.split_once("..") {
            let (from, to) = (a.parse().ok()?, b.parse().ok()?);
            return (from <= to).then_some(ListedDate::Years { from, to });
        }
        match s.len() {
            4 => s.parse().ok().map(ListedDate::Year),
            7 => {
                let (y, m) = s.split_once('-')?;
                let (year, month) = (y.parse().ok()?, m.parse().ok()?);
                (1..=12)
                    .contains(&month)
                    .then_some(ListedDate::Month { year, month })
            }
            _ => NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .ok()
                .map(ListedDate::Day),
        }
    }
}

/// An identifying number a list gives (passport, national id, company registration, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedIdentifier {
    /// What the number is, in the list's words, lower case (`passport`, `national
    /// identification no.`, `registration number`).
    pub kind: String,
    pub value: String,
    /// The issuing country as an ISO 3166-1 alpha-2 code, when known.
    pub country: Option<String>,
}

/// A country the list ties to an entry: its ISO code when the list's words map to one, and
/// the words as the list wrote them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedCountry {
    pub code: Option<String>,
    pub name: String,
}

/// One entry of a list version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListEntry {
    /// The list's own id of the entry (UN `REFERENCE_NUMBER`, OFAC `ent_num`, ...).
    pub source_entry_id: String,
    pub kind: EntryKind,
    /// The primary name first, then the aliases.
    pub names: Vec<ListedName>,
    pub birth_dates: Vec<ListedDate>,
    pub nationalities: Vec<ListedCountry>,
    /// Other countries the list ties to the entry (addresses, places of birth, incorporation).
    pub countries: Vec<ListedCountry>,
    pub identifiers: Vec<ListedIdentifier>,
    /// The sanctions programmes or regimes the entry is listed under.
    pub programs: Vec<String>,
    pub listed_on: Option<NaiveDate>,
    /// On an entry of a PEP list: what makes the person exposed, as the list says it.
    /// `None` on a sanctions list's entry.
    pub exposure: Option<Exposure>,
}

/// Why a PEP list names a person: the offices held, and the PEPs the person is a relative
/// or close associate of. A person may be both (a minister married to a member of
/// parliament).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Exposure {
    /// What the list calls the person: a PEP, a relative or close associate of one, or
    /// both.
    pub roles: Vec<ExposureRole>,
    /// Prominent public functions the person holds or held.
    pub positions: Vec<HeldPosition>,
    /// The PEPs the person is a family member or a close associate of.
    pub relations: Vec<PepRelation>,
}

/// What a PEP list calls a person.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExposureRole {
    /// Holds or held a prominent public function.
    Pep,
    /// A family member or close associate of a PEP.
    Rca,
}

impl ExposureRole {
    pub fn as_str(self) -> &'static str {
        match self {
            ExposureRole::Pep => "pep",
            ExposureRole::Rca => "rca",
        }
    }

    pub fn parse(s: &str) -> Option<ExposureRole> {
        [ExposureRole::Pep, ExposureRole::Rca]
            .into_iter()
            .find(|r| r.as_str() == s)
    }
}

/// One person's term in one office, as the list gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeldPosition {
    /// The office in the list's words (`Member of the Riksdag`, `Minister of Finance`).
    pub title: String,
    /// The office's country, ISO 3166-1 alpha-2 upper case, when the list gives one.
    pub country: Option<String>,
    pub start: Option<ListedDate>,
    /// The end of the person's own term: in the past, when they left office; in the
    /// future, when the term is due to end.
    pub end: Option<ListedDate>,
    pub status: TermStatus,
}

/// Whether a term is running, as the list says.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TermStatus {
    Current,
    Ended,
    /// The list does not say.
    Unknown,
}

impl TermStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TermStatus::Current => "current",
            TermStatus::Ended => "ended",
            TermStatus::Unknown => "unknown",
        }
    }

    pub fn parse(s: &str) -> Option<TermStatus> {
        [TermStatus::Current, TermStatus::Ended, TermStatus::Unknown]
            .into_iter()
            .find(|t| t.as_str() == s)
    }
}

/// How a relative or associate is tied to a PEP.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RelationKind {
    /// A family member (spouse or partner, child, parent, sibling, ...).
    Family,
    /// A close associate (a business partner, a joint owner, ...).
    Associate,
}

impl RelationKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RelationKind::Family => "family",
            RelationKind::Associate => "associate",
        }
    }

    pub fn parse(s: &str) -> Option<RelationKind> {
        [RelationKind::Family, RelationKind::Associate]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

/// A relative's or associate's tie to a PEP, with the PEP's offices copied in, so the entry
/// explains itself without another read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PepRelation {
    pub kind: RelationKind,
    /// What the person is to the PEP, in the list's words (`spouse`, `daughter`, `business
    /// partner`), when it says.
    pub relationship: Option<String>,
    /// The PEP's own id in the list.
    pub pep_entry_id: String,
    /// The PEP's primary name.
    pub pep_name: String,
    /// The PEP's offices.
    pub pep_positions: Vec<HeldPosition>,
}

/// The outcome of reading one list file completely.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedList {
    pub source: ListSource,
    /// When the publisher generated the file, if it says.
    pub published_at: Option<DateTime<Utc>>,
    pub entries: Vec<ListEntry>,
    /// Records the reader had to skip, with why (no entry is ever half-read into a version).
    pub skipped: Vec<String>,
    /// Records the file holds that belong to another kind of list (an export mixing
    /// sanctioned entities with PEPs, wanted persons, debarred companies), counted by what
    /// they are. Not skipped for a fault: the version is complete without them.
    pub set_aside: Vec<SetAside>,
}

/// Records of a file left out of a list because they are not of its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetAside {
    /// What they are, in the file's terms (`role.pep`, `crime`, `debarment`).
    pub what: String,
    pub count: u32,
}

/// A stored version of a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceVersion {
    pub id: SourceVersionId,
    pub source: ListSource,
    /// `sha256:<hex>` of the imported file: the same file imported twice is one version.
    pub digest: String,
    pub published_at: Option<DateTime<Utc>>,
    pub imported_at: DateTime<Utc>,
    pub entry_count: u32,
    /// Records of the file the reader skipped (the version holds every other one).
    pub skipped_count: u32,
}

/// How an import ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImportOutcome {
    /// A new version was stored and is now the list's active one.
    Stored(SourceVersion),
    /// The same file was stored before as this version, which is now (again) the active one.
    AlreadyStored(SourceVersion),
}

impl ImportOutcome {
    pub fn version(&self) -> &SourceVersion {
        match self {
            ImportOutcome::Stored(v) | ImportOutcome::AlreadyStored(v) => v,
        }
    }
}

/// A list's standing: the version checks run against, and the last failed import since it
/// became active (a check reports such a list in `degraded_sources`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActiveList {
    pub version: SourceVersion,
    pub activated_at: DateTime<Utc>,
    pub failed_since: Option<FailedImport>,
}

/// An import that did not replace the active version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedImport {
    pub source: ListSource,
    pub attempted_at: DateTime<Utc>,
    /// Why, for the operator (never personal data: it names a file and a format problem).
    pub reason: String,
}

/// A list's active version replaced by another (an import, or the operator making an older
/// version active again): the monitored subjects are screened again against what changed.
/// Recorded in the transaction that changes the active version, so no change is ever missed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListChange {
    pub id: ListChangeId,
    pub source: ListSource,
    /// The version active before; `None` when the list had none (its first version).
    pub from: Option<SourceVersionId>,
    pub to: SourceVersionId,
    pub activated_at: DateTime<Utc>,
}

/// Where the re-screening of a list change stands: subscriptions are worked in
/// `(tenant, subscription)` order, and this is the last one done.
pub type RescreenCursor = (TenantId, SubscriptionId);

/// A list change claimed by one replica until `lease_until`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimedListChange {
    pub change: ListChange,
    pub after: Option<RescreenCursor>,
    pub lease_until: DateTime<Utc>,
}
