//! Companies: the canonical company profile, and the record of every upstream call that
//! evidence points at. The registry port its connectors implement is in [`super::ports`].
//!
//! A connector speaks its upstreams' formats and maps them to these types; it never decides
//! about caching, evidence records or tenants. The use case ([`super::service`]) records every
//! call before using its data, keeps the per-tenant cache and decides what is served.

use crate::countries::country::Country;
use crate::evidence::{Evidence, EvidenceSource, SCHEMA_VERSION};
use crate::subjects::subject::SubjectHandle;
use chrono::{DateTime, NaiveDate, Utc};

/// A postal address as registries give it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Address {
    pub street: Option<String>,
    pub postal_code: Option<String>,
    pub city: Option<String>,
    /// ISO 3166-1 alpha-2 code (`SE`), never an upstream's own spelling.
    pub country: String,
}

/// Where a company stands in the register.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CompanyStatus {
    Active,
    /// Removed from the register (`avregistrerad`).
    Deregistered,
    /// In liquidation.
    Liquidation,
    /// In bankruptcy.
    Bankruptcy,
    /// In company reorganisation (`företagsrekonstruktion`).
    Reorganisation,
    /// Registered but reported as not conducting business.
    Inactive,
}

impl CompanyStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CompanyStatus::Active => "active",
            CompanyStatus::Deregistered => "deregistered",
            CompanyStatus::Liquidation => "liquidation",
            CompanyStatus::Bankruptcy => "bankruptcy",
            CompanyStatus::Reorganisation => "reorganisation",
            CompanyStatus::Inactive => "inactive",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [
            CompanyStatus::Active,
            CompanyStatus::Deregistered,
            CompanyStatus::Liquidation,
            CompanyStatus::Bankruptcy,
            CompanyStatus::Reorganisation,
            CompanyStatus::Inactive,
        ]
        .into_iter()
        .find(|c| c.as_str() == s)
    }
}

/// A kind of tax registration a register or tax authority reports.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TaxKind {
    /// Approved to pay business tax on one's own account (Sweden's F-skatt).
    BusinessTax,
    /// Registered for value-added tax.
    Vat,
    /// Registered as an employer.
    Employer,
}

impl TaxKind {
    pub const ALL: [TaxKind; 3] = [TaxKind::BusinessTax, TaxKind::Vat, TaxKind::Employer];

    /// The wire name: `business_tax`, `vat`, `employer`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaxKind::BusinessTax => "business_tax",
            TaxKind::Vat => "vat",
            TaxKind::Employer => "employer",
        }
    }

    pub fn parse(s: &str) -> Option<TaxKind> {
        TaxKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// One tax registration and its state, as the source reported it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TaxRegistration {
    pub kind: TaxKind,
    pub registered: bool,
}

/// The tax registrations one source reported: each kind at most once, in [`TaxKind`]'s
/// order. A kind the source does not report is absent, never `false`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TaxRegistrations(Vec<TaxRegistration>);

impl TaxRegistrations {
    /// The registrations, each kind once (the last one given wins), sorted by kind.
    pub fn new(list: impl IntoIterator<Item = TaxRegistration>) -> TaxRegistrations {
        let mut out: Vec<TaxRegistration> = Vec::new();
        for r in list {
            out.retain(|o| o.kind != r.kind);
            out.push(r);
        }
        out.sort_by_key(|r| r.kind);
        TaxRegistrations(out)
    }

    /// The registrations from `(kind, registered)` pairs.
    pub fn of(pairs: &[(TaxKind, bool)]) -> TaxRegistrations {
        TaxRegistrations::new(
            pairs
                .iter()
                .map(|&(kind, registered)| TaxRegistration { kind, registered }),
        )
    }

    /// The state of one kind, when the source reported it.
    pub fn get(&self, kind: TaxKind) -> Option<bool> {
        self.0.iter().find(|r| r.kind == kind).map(|r| r.registered)
    }

    pub fn iter(&self) -> impl Iterator<Item = &TaxRegistration> {
        self.0.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether every kind is reported (the specification's `tax` object can be written).
    pub fn is_complete(&self) -> bool {
        self.swedish_triple().is_some()
    }

    /// The specification's `tax` object (`f_skatt`, `vat`, `employer`) when all three kinds
    /// are reported.
    pub fn swedish_triple(&self) -> Option<(bool, bool, bool)> {
        Some((
            self.get(TaxKind::BusinessTax)?,
            self.get(TaxKind::Vat)?,
            self.get(TaxKind::Employer)?,
        ))
    }
}

/// An activity (industry) code with the classification it belongs to: `SNI2007` (Sweden's
/// SNI 2007, five digits), `SN` (Norway's standard industrial classification, `62.010`, in
/// the version the register uses: SN2007, moving to SN2025).
/// Both refine NACE Rev. 2; the codes are kept as the register writes them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ActivityCode {
    pub scheme: String,
    pub code: String,
}

/// SNI 2007, Sweden's activity classification: its codes are the profile's `sni`.
pub const SNI_2007: &str = "SNI2007";

impl ActivityCode {
    pub fn new(scheme: &str, code: impl Into<String>) -> ActivityCode {
        ActivityCode {
            scheme: scheme.to_owned(),
            code: code.into(),
        }
    }
}

/// The newest annual report on file, as a document id for the documents route.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnnualReportRef {
    pub year: i32,
    /// The upstream's document id (opaque to consumers).
    pub document_id: String,
}

/// The register data of a company, without evidence (evidence is added from call records).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompanyRegisterData {
    /// Canonical company code (10 digits for Sweden).
    pub orgnr: String,
    pub name: String,
    /// The register's legal-form code (`AB`, `HB`, `KB`, `EK`, `BRF`, ...).
    pub legal_form: String,
    pub status: CompanyStatus,
    pub registered_at: Option<NaiveDate>,
    pub address: Address,
    /// The activity codes, in the register's order, blanks removed.
    pub activity_codes: Vec<ActivityCode>,
    /// The employee size class as text (`10-19`), if known.
    pub employees_band: Option<String>,
    pub latest_annual_report: Option<AnnualReportRef>,
}

impl CompanyRegisterData {
    /// The SNI 2007 codes among the activity codes, in the register's order: the
    /// specification's `sni` (empty for a country with another classification).
    pub fn sni(&self) -> Vec<String> {
        self.activity_codes
            .iter()
            .filter(|c| c.scheme == SNI_2007)
            .map(|c| c.code.clone())
            .collect()
    }
}

/// What the service records of one upstream call, before its data is used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpstreamCall {
    pub source: EvidenceSource,
    /// The upstream operation, e.g. `POST /organisationer` (never an identifier).
    pub operation: String,
    /// HTTP status, when an answer arrived.
    pub status: Option<u16>,
    /// `sha256:<hex>` of the raw upstream body, when one arrived.
    pub digest: Option<String>,
    /// The upstream's own reference for the call, when it supplied one.
    pub upstream_ref: Option<String>,
    /// When the source says the data is from; the retrieval time when it says nothing.
    pub source_timestamp: DateTime<Utc>,
    pub retrieved_at: DateTime<Utc>,
    /// The upstream contract version the answer was read under.
    pub schema_version: Option<String>,
    /// Whether the answer was usable.
    pub usable: bool,
    /// Billable units (0 for free sources).
    pub cost: i32,
    /// From sending the request to the end of the answer (or the failure). Counted for
    /// operators, not kept with the record.
    pub elapsed: std::time::Duration,
}

impl UpstreamCall {
    /// How the call ended, for counting: a usable answer, an answer that was not, or none.
    pub fn outcome(&self) -> crate::meter::UpstreamOutcome {
        use crate::meter::UpstreamOutcome;
        match (self.usable, self.status) {
            (true, _) => UpstreamOutcome::Ok,
            (false, Some(_)) => UpstreamOutcome::Failed,
            (false, None) => UpstreamOutcome::Unreachable,
        }
    }
}

/// Why a registry could not deliver.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegistryFailure {
    /// The register does not know the company (or the document).
    #[error("not found in the register")]
    NotFound,
    /// The register withdrew the company from its open data: it is not to be shown, and
    /// every copy of what the register said is dropped.
    #[error("withdrawn from the register's open data")]
    Withdrawn,
    /// The upstream could not be reached, timed out or answered an error status.
    #[error("upstream unavailable: {0}")]
    Unavailable(String),
    /// The upstream answered something that does not parse, lacks required fields, or
    /// rejected the request as invalid. (A source reporting itself unavailable for a field
    /// is `Unavailable`.)
    #[error("upstream answer unusable: {0}")]
    Garbled(String),
}

/// A fetch from a registry: every call made (recorded whatever the outcome) and the result.
#[derive(Clone, Debug)]
pub struct Fetch<T> {
    pub calls: Vec<UpstreamCall>,
    pub outcome: Result<T, RegistryFailure>,
}

/// A profile fetch.
pub type ProfileFetch = Fetch<FetchedProfile>;

/// A field group of the profile that not every reading checks.
///
/// One rule covers every such group, whatever the reason nothing checked it (its source
/// failed in this fetch, or the country has no source for it): the group's value is empty
/// (`null`, or `[]` for the activity codes) and the group is named in `unchecked`, so an absent value is
/// never served as checked. The register's own fields (code, name, form, status, address)
/// are not optional: a country's connector must deliver them or fail the fetch.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OptionalGroup {
    /// `employees_band`, from a statistics office.
    EmployeesBand,
    /// `latest_annual_report`, from the register's document list.
    LatestAnnualReport,
    /// The activity codes (`sni` on the wire, where the group was first named).
    ActivityCodes,
    /// `tax`, the tax authority's registrations with their own evidence.
    Tax,
}

impl OptionalGroup {
    pub const ALL: [OptionalGroup; 4] = [
        OptionalGroup::EmployeesBand,
        OptionalGroup::LatestAnnualReport,
        OptionalGroup::ActivityCodes,
        OptionalGroup::Tax,
    ];

    /// The field of the profile the group fills.
    pub fn as_str(self) -> &'static str {
        match self {
            OptionalGroup::EmployeesBand => "employees_band",
            OptionalGroup::LatestAnnualReport => "latest_annual_report",
            OptionalGroup::ActivityCodes => "sni",
            OptionalGroup::Tax => "tax",
        }
    }

    pub fn parse(s: &str) -> Option<OptionalGroup> {
        OptionalGroup::ALL.into_iter().find(|g| g.as_str() == s)
    }
}

/// A profile and which calls back which field group.
#[derive(Clone, Debug)]
pub struct FetchedProfile {
    pub data: CompanyRegisterData,
    /// The tax registrations and the index of the call behind them; `None` when nothing
    /// checked them (the use case then names `tax` in `unchecked`).
    pub tax: Option<(TaxRegistrations, usize)>,
    /// Optional groups nothing checked in this fetch (their source failed, or the country
    /// has none): their values are empty because nothing checked them, not because a source
    /// said there is none.
    pub unchecked: Vec<OptionalGroup>,
    /// Index into `ProfileFetch::calls` of the call behind the profile's main fields.
    pub main_call: usize,
}

/// The tax registrations of a profile with their evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaxGroup {
    pub registrations: TaxRegistrations,
    pub evidence: Evidence,
}

/// An annual-report archive.
#[derive(Clone, Debug)]
pub struct FetchedDocument {
    pub document_id: String,
    pub filename: String,
    pub content_type: String,
    pub bytes: Vec<u8>,
}

/// A document fetch.
pub type DocumentFetch = Fetch<FetchedDocument>;

/// A profile as the tenant's cache holds it, with its evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompanyProfile {
    pub country: Country,
    pub data: CompanyRegisterData,
    /// `None` exactly when `unchecked` names [`OptionalGroup::Tax`].
    pub tax: Option<TaxGroup>,
    /// Optional groups the fetch did not check (their values are empty), each once.
    pub unchecked: Vec<OptionalGroup>,
    pub evidence: Evidence,
    pub fetched_at: DateTime<Utc>,
}

/// A tenant's cached profile and the subject it belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedProfile {
    pub profile: CompanyProfile,
    pub subject: SubjectHandle,
}

/// A served profile.
#[derive(Clone, Debug)]
pub struct ServedProfile {
    pub stale: bool,
    pub subject: SubjectHandle,
    pub profile: CompanyProfile,
}

/// A served document.
#[derive(Clone, Debug)]
pub struct ServedDocument {
    pub country: Country,
    pub subject: SubjectHandle,
    pub document_id: String,
    pub filename: String,
    pub content_type: String,
    pub bytes: Vec<u8>,
    pub evidence: Evidence,
}

impl CompanyProfile {
    pub const SCHEMA_VERSION: &'static str = SCHEMA_VERSION;

    /// A profile as a fetch read it, under the one rule for groups nothing checked: every
    /// group named in `unchecked` is emptied, `tax` is named exactly when it is absent (last,
    /// when the connector did not name it), and each name comes once, in the order the
    /// connector gave. A connector cannot serve an unchecked value as checked, whatever it
    /// hands in.
    pub fn read(
        country: Country,
        mut data: CompanyRegisterData,
        tax: Option<TaxGroup>,
        unchecked: &[OptionalGroup],
        evidence: Evidence,
        fetched_at: DateTime<Utc>,
    ) -> CompanyProfile {
        let mut named: Vec<OptionalGroup> = Vec::new();
        let tax_named = [OptionalGroup::Tax].into_iter().filter(|_| tax.is_none());
        for group in unchecked.iter().copied().chain(tax_named) {
            let checked = group == OptionalGroup::Tax && tax.is_some();
            if !checked && !named.contains(&group) {
                named.push(group);
            }
        }
        for group in &named {
            match group {
                OptionalGroup::EmployeesBand => data.employees_band = None,
                OptionalGroup::LatestAnnualReport => data.latest_annual_report = None,
                OptionalGroup::ActivityCodes => data.activity_codes.clear(),
                OptionalGroup::Tax => {}
            }
        }
        CompanyProfile {
            country,
            data,
            tax,
            unchecked: named,
            evidence,
            fetched_at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::CallRef;
    use proptest::prelude::*;

    fn evidence() -> Evidence {
        let at = DateTime::<Utc>::from_timestamp(1_700_000_000, 0).unwrap();
        Evidence {
            source: EvidenceSource::declared("companyreg.example"),
            source_timestamp: at,
            call_ref: CallRef::generate(),
            upstream_ref: None,
            digest: None,
            schema_version: None,
            retrieved_at: at,
        }
    }

    fn data() -> CompanyRegisterData {
        CompanyRegisterData {
            orgnr: "5560021361".into(),
            name: "Bolaget AB".into(),
            legal_form: "AB".into(),
            status: CompanyStatus::Active,
            registered_at: None,
            address: Address::default(),
            activity_codes: vec![ActivityCode::new("SNI2007", "62010")],
            employees_band: Some("10-19".into()),
            latest_annual_report: Some(AnnualReportRef {
                year: 2024,
                document_id: "d".into(),
            }),
        }
    }

    fn group() -> impl Strategy<Value = OptionalGroup> {
        prop::sample::select(OptionalGroup::ALL.to_vec())
    }

    fn registration() -> impl Strategy<Value = TaxRegistration> {
        (prop::sample::select(TaxKind::ALL.to_vec()), any::<bool>())
            .prop_map(|(kind, registered)| TaxRegistration { kind, registered })
    }

    proptest! {
        /// Whatever list a source gives, each kind comes once, in the kinds' order, and
        /// holds the state given last for it; a kind not given is not reported.
        #[test]
        fn tax_registrations_hold_each_kind_once(list in prop::collection::vec(registration(), 0..8)) {
            let r = TaxRegistrations::new(list.clone());
            let kinds: Vec<TaxKind> = r.iter().map(|x| x.kind).collect();
            let mut sorted = kinds.clone();
            sorted.sort();
            sorted.dedup();
            prop_assert_eq!(&kinds, &sorted);
            for kind in TaxKind::ALL {
                let last = list.iter().rev().find(|x| x.kind == kind).map(|x| x.registered);
                prop_assert_eq!(r.get(kind), last);
            }
        }

        /// Whatever a connector names and hands in, a group is named in `unchecked` exactly
        /// when its value is empty because nothing checked it: the named groups are emptied,
        /// `tax` is named exactly when absent, and each name comes once.
        #[test]
        fn unchecked_groups_are_never_served_as_checked(
            named in prop::collection::vec(group(), 0..6),
            with_tax in any::<bool>(),
        ) {
            let tax = with_tax.then(|| TaxGroup {
                registrations: TaxRegistrations::of(&TaxKind::ALL.map(|k| (k, true))),
                evidence: evidence(),
            });
            let p = CompanyProfile::read(Country::Se, data(), tax, &named, evidence(), Utc::now());
            // The connector's order, each once, `tax` last when it is absent and not named.
            let mut expected: Vec<OptionalGroup> = Vec::new();
            for g in &named {
                let tax_checked = *g == OptionalGroup::Tax && with_tax;
                if !tax_checked && !expected.contains(g) {
                    expected.push(*g);
                }
            }
            if !with_tax && !expected.contains(&OptionalGroup::Tax) {
                expected.push(OptionalGroup::Tax);
            }
            prop_assert_eq!(&p.unchecked, &expected);
            prop_assert_eq!(p.tax.is_none(), p.unchecked.contains(&OptionalGroup::Tax));
            prop_assert_eq!(
                p.data.employees_band.is_none(),
                p.unchecked.contains(&OptionalGroup::EmployeesBand)
            );
            prop_assert_eq!(
                p.data.latest_annual_report.is_none(),
                p.unchecked.contains(&OptionalGroup::LatestAnnualReport)
            );
            prop_assert_eq!(
                p.data.activity_codes.is_empty(),
                p.unchecked.contains(&OptionalGroup::ActivityCodes)
            );
        }
    }
}
