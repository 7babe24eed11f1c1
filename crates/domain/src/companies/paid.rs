//! The paid company-registry tier: officers and the signatory rule, beneficial owners, and a
//! person's engagements across companies. Provisional: the field shapes follow an upstream
//! contract not yet verified, and may change additively (see `contract/CHANGELOG.md`).
//!
//! Two forms of each object exist. A connector delivers the *fetched* form, in which a
//! person named by the registry carries the raw [`Identifier`] (in memory only). The use case
//! turns every such identifier into the tenant's own `identifier_ref` (resolving the person
//! to a subject) before anything is stored or served, so the *served* form, which is also the
//! cached form, holds no personal number at all.

use crate::countries::country::Country;
use crate::evidence::Evidence;
use crate::ids::IdentifierRef;
use crate::subjects::identifier::Identifier;
use crate::subjects::subject::SubjectHandle;
use chrono::{DateTime, NaiveDate, Utc};

/// Which paid object a cache row holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PaidKind {
    /// Officers and the signatory rule of a company (one object serves both routes).
    Officers,
    /// The beneficial owners of a company.
    BeneficialOwners,
    /// A person's engagements in companies.
    Engagements,
}

impl PaidKind {
    pub const ALL: [PaidKind; 3] = [
        PaidKind::Officers,
        PaidKind::BeneficialOwners,
        PaidKind::Engagements,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PaidKind::Officers => "officers",
            PaidKind::BeneficialOwners => "beneficial_owners",
            PaidKind::Engagements => "engagements",
        }
    }

    pub fn parse(s: &str) -> Option<PaidKind> {
        PaidKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// How much of a company a beneficial owner controls, in the register's bands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ShareBand {
    /// More than 25 and at most 50 percent.
    From25To50,
    /// More than 50 and at most 75 percent.
    From50To75,
    /// More than 75 percent, up to all of it.
    From75To100,
    /// Control by other means than a share, or a share the register does not state.
    Unknown,
}

impl ShareBand {
    pub const ALL: [ShareBand; 4] = [
        ShareBand::From25To50,
        ShareBand::From50To75,
        ShareBand::From75To100,
        ShareBand::Unknown,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ShareBand::From25To50 => "25-50",
            ShareBand::From50To75 => "50-75",
            ShareBand::From75To100 => "75-100",
            ShareBand::Unknown => "unknown",
        }
    }

    pub fn parse(s: &str) -> Option<ShareBand> {
        ShareBand::ALL.into_iter().find(|b| b.as_str() == s)
    }
}

// ---------------------------------------------------------------------------------------
// As a connector delivers them (may carry personal numbers, in memory only)
// ---------------------------------------------------------------------------------------

/// A person or organisation the registry names, with the identifier it gave (if any).
/// Only a person's identifier (personnummer, samordningsnummer) becomes a ref; an
/// organisation holding a role is named without one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedParty {
    pub name: String,
    /// The person's identifier, validated. `None` for organisations and for persons the
    /// register names without a Swedish number.
    pub person: Option<Identifier>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchedOfficer {
    /// The register's role text (`Styrelseledamot`).
    pub role: String,
    /// The register's role code (`LE`), when it gives one.
    pub role_code: Option<String>,
    pub party: NamedParty,
    pub appointed_at: Option<NaiveDate>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchedOfficers {
    pub orgnr: String,
    pub officers: Vec<FetchedOfficer>,
    /// The signatory rule as the register writes it (text passthrough).
    pub signatory_rule_text: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchedOwner {
    pub party: NamedParty,
    pub nature_of_control: String,
    pub share_band: ShareBand,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchedOwners {
    pub orgnr: String,
    pub owners: Vec<FetchedOwner>,
    /// The company has reported no beneficial owner (none registered, or none identified).
    pub no_ubo_reported: bool,
}

/// One role a person holds in a company (no personal number in it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Engagement {
    pub orgnr: String,
    pub role: String,
    pub role_code: Option<String>,
    pub since: Option<NaiveDate>,
}

/// One page of a person's engagements (the registry pages them; each page is one billable
/// call).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngagementPage {
    pub engagements: Vec<Engagement>,
    /// Whether a further page exists.
    pub more: bool,
}

/// The most pages one read fetches: a person with more engagements than that is answered as
/// unusable rather than cut short silently.
pub const MAX_ENGAGEMENT_PAGES: u32 = 20;

// ---------------------------------------------------------------------------------------
// As stored and served (personal numbers replaced by the tenant's refs)
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Officer {
    pub role: String,
    pub role_code: Option<String>,
    pub name: String,
    pub personal_number_ref: Option<IdentifierRef>,
    pub appointed_at: Option<NaiveDate>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OfficerList {
    pub orgnr: String,
    pub officers: Vec<Officer>,
    pub signatory_rule_text: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub name: String,
    pub personal_number_ref: Option<IdentifierRef>,
    pub nature_of_control: String,
    pub share_band: ShareBand,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerList {
    pub orgnr: String,
    pub owners: Vec<Owner>,
    pub no_ubo_reported: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngagementList {
    /// The `identifier_ref` the engagements were asked for.
    pub person_ref: Option<IdentifierRef>,
    pub engagements: Vec<Engagement>,
}

/// The data of a paid object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PaidData {
    Officers(OfficerList),
    BeneficialOwners(OwnerList),
    Engagements(EngagementList),
}

impl PaidData {
    pub fn kind(&self) -> PaidKind {
        match self {
            PaidData::Officers(_) => PaidKind::Officers,
            PaidData::BeneficialOwners(_) => PaidKind::BeneficialOwners,
            PaidData::Engagements(_) => PaidKind::Engagements,
        }
    }
}

/// A paid object as the tenant's cache holds it: one field group, one evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaidObject {
    pub country: Country,
    pub data: PaidData,
    pub evidence: Evidence,
    pub fetched_at: DateTime<Utc>,
}

/// Where a paid object is cached: its kind, country and key (the company code for company
/// objects, the `identifier_ref` for a person's engagements). Never a personal number.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PaidKey {
    pub kind: PaidKind,
    pub country: Country,
    pub key: String,
}

/// A tenant's cached paid object and the subject it describes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedPaid {
    pub object: PaidObject,
    pub subject: SubjectHandle,
}

/// A served paid object.
#[derive(Clone, Debug)]
pub struct ServedPaid {
    pub stale: bool,
    pub subject: SubjectHandle,
    pub object: PaidObject,
}
