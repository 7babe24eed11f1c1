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

/// The kinds of paid object keyed by a company's code.
pub const COMPANY_KINDS: [PaidKind; 2] = [PaidKind::Officers, PaidKind::BeneficialOwners];

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

/// Who a company's person is to it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PartyRole {
    Officer,
    BeneficialOwner,
}

impl PartyRole {
    pub fn as_str(self) -> &'static str {
        match self {
            PartyRole::Officer => "officer",
            PartyRole::BeneficialOwner => "beneficial_owner",
        }
    }

    pub fn parse(s: &str) -> Option<PartyRole> {
        [PartyRole::Officer, PartyRole::BeneficialOwner]
            .into_iter()
            .find(|r| r.as_str() == s)
    }
}

/// One of a company's officers or beneficial owners, as screening sees them: the register's
/// name, and the handle of their personal number (never the number).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Party {
    pub role: PartyRole,
    pub name: String,
    pub personal_number_ref: Option<IdentifierRef>,
}

impl Party {
    /// The party as a check keeps it: by the handle of their personal number alone when
    /// there is one (the name left empty), by name otherwise.
    pub fn kept(&self) -> Party {
        Party {
            role: self.role,
            name: if self.personal_number_ref.is_some() {
                String::new()
            } else {
                self.name.clone()
            },
            personal_number_ref: self.personal_number_ref,
        }
    }

    /// The name a reader is shown beside the handle: only when there is no handle (a
    /// person without a Swedish number, an owning organisation).
    pub fn shown_name(&self) -> Option<&str> {
        (self.personal_number_ref.is_none() && !self.name.is_empty()).then_some(self.name.as_str())
    }

    /// Whether two readings name the same party: by the personal number's handle when both
    /// have one, else by role and name.
    pub fn same(&self, other: &Party) -> bool {
        match (&self.personal_number_ref, &other.personal_number_ref) {
            (Some(a), Some(b)) => a == b && self.role == other.role,
            _ => self.role == other.role && self.name == other.name,
        }
    }
}

impl OfficerList {
    /// The officers, each once.
    pub fn parties(&self) -> Vec<Party> {
        distinct(self.officers.iter().map(|o| Party {
            role: PartyRole::Officer,
            name: o.name.clone(),
            personal_number_ref: o.personal_number_ref,
        }))
    }
}

impl OwnerList {
    /// The beneficial owners, each once.
    pub fn parties(&self) -> Vec<Party> {
        distinct(self.owners.iter().map(|o| Party {
            role: PartyRole::BeneficialOwner,
            name: o.name.clone(),
            personal_number_ref: o.personal_number_ref,
        }))
    }
}

/// Parties in their order, a party named twice (one person in two officer roles) once.
fn distinct(parties: impl Iterator<Item = Party>) -> Vec<Party> {
    let mut out: Vec<Party> = Vec::new();
    for p in parties {
        if !out.iter().any(|o| o.same(&p)) {
            out.push(p);
        }
    }
    out
}

/// The parties of `after` that `before` does not name: the newcomers a reading found.
pub fn newcomers(before: &[Party], after: &[Party]) -> Vec<Party> {
    after
        .iter()
        .filter(|a| !before.iter().any(|b| b.same(a)))
        .cloned()
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn party(role: PartyRole, name: &str, r: Option<IdentifierRef>) -> Party {
        Party {
            role,
            name: name.to_owned(),
            personal_number_ref: r,
        }
    }

    #[test]
    fn a_newcomer_is_a_party_the_earlier_reading_did_not_name() {
        let (a, b) = (IdentifierRef::generate(), IdentifierRef::generate());
        let before = [
            party(PartyRole::Officer, "Anna Berg", Some(a)),
            party(PartyRole::BeneficialOwner, "Holding AB", None),
        ];
        let after = [
            // The same person under a newly spelt name: the handle says it is them.
            party(PartyRole::Officer, "Anna Berg-Ek", Some(a)),
            party(PartyRole::BeneficialOwner, "Holding AB", None),
            // A new officer, and an officer who is now an owner too.
            party(PartyRole::Officer, "Bo Ek", Some(b)),
            party(PartyRole::BeneficialOwner, "Anna Berg-Ek", Some(a)),
        ];
        let new = newcomers(&before, &after);
        assert_eq!(new, [after[2].clone(), after[3].clone()]);
        assert!(newcomers(&after, &after).is_empty());
    }

    #[test]
    fn a_check_keeps_a_party_by_handle_and_names_only_one_without() {
        let r = IdentifierRef::generate();
        let with = party(PartyRole::Officer, "Anna Berg", Some(r)).kept();
        assert_eq!(
            (with.name.as_str(), with.personal_number_ref),
            ("", Some(r))
        );
        let without = party(PartyRole::BeneficialOwner, "Holding AB", None).kept();
        assert_eq!(without.name, "Holding AB");
    }

    #[test]
    fn one_person_in_two_officer_roles_is_one_party() {
        let r = IdentifierRef::generate();
        let officer = |role: &str| Officer {
            role: role.to_owned(),
            role_code: None,
            name: "Anna Berg".into(),
            personal_number_ref: Some(r),
            appointed_at: None,
        };
        let list = OfficerList {
            orgnr: "5560021361".into(),
            officers: vec![
                officer("styrelseledamot"),
                officer("verkställande direktör"),
            ],
            signatory_rule_text: None,
        };
        assert_eq!(list.parties().len(), 1);
    }
}
