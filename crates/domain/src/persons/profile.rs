//! Persons: what a population register says about a person ([`RegisterPerson`], as a
//! connector reads it) and the canonical person object ([`PersonProfile`]) the service keeps
//! and serves.
//!
//! The canonical object is built in exactly one place, [`PersonProfile::from_register`], and
//! its fields are private: nothing else can make one. Under a protection marker
//! ([`Protection::Confidential`] or [`Protection::ProtectedResidence`]) that constructor drops
//! every address of every kind (registered, special postal, foreign, contact) and the
//! registered location, before any other code sees the object, so no surface, cache row, log
//! line or MCP result can carry one. A cached profile is restored through the same
//! constructor, so even a stored row cannot bring an address back under a marker.
//!
//! These types hold what a population register says in its own terms' place: a country's
//! connector maps its register's words into them (Sweden's SPAR in `adapters-se`, whose
//! mapping `docs/decisions.md` records under "Person data"). The wire names the
//! specification gives them (`folkbokforing`, `sekretess`, `skyddad`) are produced at the
//! surface.

use crate::countries::country::Country;
use crate::evidence::{Evidence, SCHEMA_VERSION};
use crate::ids::IdentifierRef;
use crate::subjects::identifier::EchoedNumber;
use crate::subjects::identifier::Identifier;
use crate::subjects::subject::{IdentifierHolder, SubjectHandle};
use chrono::{DateTime, NaiveDate, Utc};
use std::fmt;

/// A date the register may know only in part (SPAR's `SparOfullstandigtDatumTYPE`): a whole
/// date, a month or a year, written `YYYY-MM-DD`, `YYYY-MM` or `YYYY`. Served as written,
/// never completed by guessing.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PartialDate(String);

impl PartialDate {
    /// Reads the register's spellings: `2019-01-01`, `2019-01-00` (day unknown), `2019-00-00`
    /// (month unknown), and the short forms without separators (`200101`, `2001`). `None` for
    /// `0000-00-00` (unknown) and anything that is no date.
    pub fn parse(s: &str) -> Option<PartialDate> {
        let s = s.trim();
        let digits: String = s.chars().filter(char::is_ascii_digit).collect();
        let shape_ok = if s.contains('-') {
            s.len() == 10 && digits.len() == 8
        } else {
            digits.len() == s.len() && matches!(s.len(), 4 | 6 | 8)
        };
        if !shape_ok {
            return None;
        }
        let year: i32 = digits.get(0..4)?.parse().ok()?;
        let month: u32 = digits.get(4..6).map_or(Some(0), |m| m.parse().ok())?;
        let day: u32 = digits.get(6..8).map_or(Some(0), |d| d.parse().ok())?;
        if year == 0 {
            return None;
        }
        match (month, day) {
            (0, 0) => Some(PartialDate(format!("{year:04}"))),
            (1..=12, 0) => Some(PartialDate(format!("{year:04}-{month:02}"))),
            (_, _) => NaiveDate::from_ymd_opt(year, month, day)
                .map(|d| PartialDate(d.format("%Y-%m-%d").to_string())),
        }
    }

    /// A whole date.
    pub fn from_date(d: NaiveDate) -> PartialDate {
        PartialDate(d.format("%Y-%m-%d").to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A dated marker of the register: set or not, and since when.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegisterMarker {
    pub set: bool,
    pub since: Option<NaiveDate>,
}

/// The current name entry of the register.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegisterName {
    /// Every given name, as registered (`Fornamn`).
    pub given_names: Option<String>,
    /// The calling-name index (`Tilltalsnamn`, two digits such as `20`).
    pub calling_name_index: Option<String>,
    pub middle_name: Option<String>,
    pub surname: Option<String>,
    /// The register's short form for post (`Aviseringsnamn`).
    pub notification_name: Option<String>,
}

/// Why and when a person left the register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deregistration {
    pub reason: DeregistrationReason,
    pub date: Option<PartialDate>,
}

/// Why a person left the register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeregistrationReason {
    Deceased,
    Emigrated,
    /// Any other reason, as the register's own code (an old number replaced, ...).
    Other(String),
}

/// Where a person is registered as living (Sweden: folkbokföring).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PopulationRegistration {
    /// Since when.
    pub registered_at: Option<NaiveDate>,
    /// How the register words the registration ("Skriven på adressen", ...).
    pub residence: Option<String>,
    /// The register's code of the region (Sweden: the two-digit county code).
    pub county_code: Option<String>,
    /// The register's code of the municipality (Sweden: county and municipality digits
    /// together, four).
    pub municipality_code: Option<String>,
}

/// An address in Sweden as the register writes it.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct DomesticAddress {
    pub care_of: Option<String>,
    /// `Utdelningsadress1` (an extra line such as a box or flat number).
    pub line_1: Option<String>,
    /// `Utdelningsadress2` (the street and number).
    pub line_2: Option<String>,
    pub postal_code: Option<String>,
    pub city: Option<String>,
}

/// An address abroad as the register writes it.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ForeignAddress {
    pub care_of: Option<String>,
    pub line_1: Option<String>,
    pub line_2: Option<String>,
    pub line_3: Option<String>,
    /// The country as the register names it (`Land`, e.g. `STORBRITTANIEN`).
    pub country_name: Option<String>,
}

/// A postal address that may be in Sweden or abroad (special postal and contact addresses).
#[derive(Clone, PartialEq, Eq)]
pub enum PostalAddress {
    Domestic(DomesticAddress),
    Foreign(ForeignAddress),
}

/// Addresses never appear in `Debug` output: the type is logged nowhere, and if it ever is,
/// no address can reach a log line.
macro_rules! redacted_debug {
    ($($t:ty),*) => {$(
        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(concat!(stringify!($t), "(<redacted>)"))
            }
        }
    )*};
}
redacted_debug!(DomesticAddress, ForeignAddress, PostalAddress);

/// Every address the register gave for a person.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegisterAddresses {
    /// `Folkbokforingsadress`.
    pub registered: Option<DomesticAddress>,
    /// `SarskildPostadress`.
    pub special_postal: Option<PostalAddress>,
    /// `Utlandsadress` (of an emigrated person).
    pub foreign: Option<ForeignAddress>,
    /// `Kontaktadress`. Read so the canonical object can be seen to drop it: it has no place
    /// for a contact address.
    pub contact: Option<PostalAddress>,
}

/// What the population register said about one person, as a connector read it: the current
/// entries of its dated history. Only [`PersonProfile::from_register`] consumes it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegisterPerson {
    /// The register's number of the person the answer is about, as echoed (compared with
    /// the number asked for, never shown: its `Debug` is redacted).
    pub id_number: EchoedNumber,
    pub confidential: RegisterMarker,
    pub protected_residence: RegisterMarker,
    /// `SenasteAndringSPAR`.
    pub latest_change: Option<NaiveDate>,
    /// `None` when the register gives no name (a protected person).
    pub name: Option<RegisterName>,
    pub birth_date: Option<NaiveDate>,
    pub deregistration: Option<Deregistration>,
    /// `Avlidendatum`, else `AntraffadDodDatum`.
    pub deceased_date: Option<PartialDate>,
    pub registration: Option<PopulationRegistration>,
    pub addresses: RegisterAddresses,
}

/// `markers.protected`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Protection {
    None,
    /// The register keeps the person's details confidential (Sweden: sekretessmarkering).
    Confidential,
    /// The person is registered at a protected residence, away from their real one
    /// (Sweden: skyddad folkbokföring).
    ProtectedResidence,
}

impl Protection {
    pub fn as_str(self) -> &'static str {
        match self {
            Protection::None => "none",
            Protection::Confidential => "sekretess",
            Protection::ProtectedResidence => "skyddad",
        }
    }

    pub fn parse(s: &str) -> Option<Protection> {
        [
            Protection::None,
            Protection::Confidential,
            Protection::ProtectedResidence,
        ]
        .into_iter()
        .find(|p| p.as_str() == s)
    }

    pub fn is_protected(self) -> bool {
        self != Protection::None
    }
}

/// The canonical person's names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PersonNames {
    pub given_name: Option<String>,
    /// The given name(s) the register marks as the calling name (additive field).
    pub calling_name: Option<String>,
    pub middle_name: Option<String>,
    pub surname: Option<String>,
    pub notification_name: Option<String>,
}

/// `markers`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PersonMarkers {
    pub protected: Protection,
    pub protected_since: Option<NaiveDate>,
    pub deceased_date: Option<PartialDate>,
    pub emigrated_date: Option<PartialDate>,
}

/// The canonical person object. Its fields are private: the one way to make one is
/// [`PersonProfile::from_register`], which applies the protection rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PersonProfile {
    names: PersonNames,
    birth_date: Option<NaiveDate>,
    registration: Option<PopulationRegistration>,
    address: Option<DomesticAddress>,
    special_postal_address: Option<PostalAddress>,
    foreign_address: Option<ForeignAddress>,
    markers: PersonMarkers,
    latest_change_at: Option<NaiveDate>,
    /// Deregistered as emigrated (kept apart from the date, which the register may omit).
    emigrated: bool,
}

impl PersonProfile {
    pub const SCHEMA_VERSION: &'static str = SCHEMA_VERSION;

    /// Builds the canonical object from what the register said. Under a protection marker no
    /// address of any kind and no registered location survive; a foreign address survives
    /// only for a person deregistered as emigrated without a marker; a contact address
    /// never does (the object has no place for one).
    pub fn from_register(r: RegisterPerson) -> PersonProfile {
        let protected = if r.protected_residence.set {
            Protection::ProtectedResidence
        } else if r.confidential.set {
            Protection::Confidential
        } else {
            Protection::None
        };
        let protected_since = match protected {
            Protection::ProtectedResidence => r.protected_residence.since,
            Protection::Confidential => r.confidential.since,
            Protection::None => None,
        };
        let emigrated_date = r
            .deregistration
            .as_ref()
            .filter(|d| d.reason == DeregistrationReason::Emigrated)
            .and_then(|d| d.date.clone());
        let emigrated = r
            .deregistration
            .as_ref()
            .is_some_and(|d| d.reason == DeregistrationReason::Emigrated);
        let names = r
            .name
            .map(|n| PersonNames {
                calling_name: n
                    .calling_name_index
                    .as_deref()
                    .and_then(|i| calling_name(n.given_names.as_deref()?, i)),
                given_name: n.given_names,
                middle_name: n.middle_name,
                surname: n.surname,
                notification_name: n.notification_name,
            })
            .unwrap_or_default();
        let markers = PersonMarkers {
            protected,
            protected_since,
            deceased_date: r.deceased_date,
            emigrated_date,
        };
        if protected.is_protected() {
            // The marker is the data: nothing that says where the person lives or gets post.
            return PersonProfile {
                names,
                birth_date: r.birth_date,
                registration: r.registration.map(|f| PopulationRegistration {
                    registered_at: f.registered_at,
                    residence: None,
                    county_code: None,
                    municipality_code: None,
                }),
                address: None,
                special_postal_address: None,
                foreign_address: None,
                markers,
                latest_change_at: r.latest_change,
                emigrated,
            };
        }
        PersonProfile {
            names,
            birth_date: r.birth_date,
            registration: r.registration,
            address: r.addresses.registered,
            special_postal_address: r.addresses.special_postal,
            foreign_address: r.addresses.foreign.filter(|_| emigrated),
            markers,
            latest_change_at: r.latest_change,
            emigrated,
        }
    }

    pub fn names(&self) -> &PersonNames {
        &self.names
    }
    pub fn birth_date(&self) -> Option<NaiveDate> {
        self.birth_date
    }
    pub fn registration(&self) -> Option<&PopulationRegistration> {
        self.registration.as_ref()
    }
    pub fn address(&self) -> Option<&DomesticAddress> {
        self.address.as_ref()
    }
    pub fn special_postal_address(&self) -> Option<&PostalAddress> {
        self.special_postal_address.as_ref()
    }
    pub fn foreign_address(&self) -> Option<&ForeignAddress> {
        self.foreign_address.as_ref()
    }
    pub fn markers(&self) -> &PersonMarkers {
        &self.markers
    }
    pub fn latest_change_at(&self) -> Option<NaiveDate> {
        self.latest_change_at
    }

    /// The register facts this object keeps, to store it and build it again through
    /// [`PersonProfile::from_register`] (which re-applies every rule).
    pub fn to_register(&self) -> RegisterPerson {
        RegisterPerson {
            id_number: EchoedNumber::default(),
            confidential: RegisterMarker {
                set: self.markers.protected == Protection::Confidential,
                since: self
                    .markers
                    .protected_since
                    .filter(|_| self.markers.protected == Protection::Confidential),
            },
            protected_residence: RegisterMarker {
                set: self.markers.protected == Protection::ProtectedResidence,
                since: self
                    .markers
                    .protected_since
                    .filter(|_| self.markers.protected == Protection::ProtectedResidence),
            },
            latest_change: self.latest_change_at,
            name: Some(RegisterName {
                given_names: self.names.given_name.clone(),
                calling_name_index: None,
                middle_name: self.names.middle_name.clone(),
                surname: self.names.surname.clone(),
                notification_name: self.names.notification_name.clone(),
            }),
            birth_date: self.birth_date,
            deregistration: self.emigrated.then(|| Deregistration {
                reason: DeregistrationReason::Emigrated,
                date: self.markers.emigrated_date.clone(),
            }),
            deceased_date: self.markers.deceased_date.clone(),
            registration: self.registration.clone(),
            addresses: RegisterAddresses {
                registered: self.address.clone(),
                special_postal: self.special_postal_address.clone(),
                foreign: self.foreign_address.clone(),
                contact: None,
            },
        }
    }

    /// Restores a stored object: the facts [`PersonProfile::to_register`] gave, plus the
    /// calling name kept beside them. Every protection rule is applied again.
    pub fn restore(facts: RegisterPerson, calling_name: Option<String>) -> PersonProfile {
        let mut p = PersonProfile::from_register(facts);
        p.names.calling_name = calling_name;
        p
    }

    /// The person's full name for screening: given names and surname, as registered.
    pub fn full_name(&self) -> Option<String> {
        let parts: Vec<&str> = [
            self.names.given_name.as_deref(),
            self.names.middle_name.as_deref(),
            self.names.surname.as_deref(),
        ]
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
        (!parts.is_empty()).then(|| parts.join(" "))
    }
}

/// The calling name the `Tilltalsnamn` index points at. The index has two digits: the first
/// is the position (from 1) of the calling name among the given names, counting each part of
/// a hyphenated name; the second, when not 0, the position of a second part that forms the
/// calling name with it (joined by a hyphen). `None` when the index does not fit the names.
pub fn calling_name(given_names: &str, index: &str) -> Option<String> {
    let digits: Vec<usize> = index
        .trim()
        .chars()
        .map(|c| c.to_digit(10).map(|d| d as usize))
        .collect::<Option<_>>()?;
    let [first, second] = digits[..] else {
        return None;
    };
    let parts: Vec<&str> = given_names
        .split(|c: char| c.is_whitespace() || c == '-')
        .filter(|p| !p.is_empty())
        .collect();
    let pick = |i: usize| i.checked_sub(1).and_then(|i| parts.get(i)).copied();
    let a = pick(first)?;
    match second {
        0 => Some(a.to_owned()),
        n => Some(format!("{a}-{}", pick(n)?)),
    }
}

/// A person profile as the tenant's cache holds it: the canonical object sealed under the
/// tenant's data key (storage never sees it in the clear), its evidence and when it was
/// fetched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedPerson {
    pub sealed: SealedPerson,
    pub evidence: Evidence,
    pub fetched_at: DateTime<Utc>,
}

/// What one read finds behind an `identifier_ref`: the subject holding it (with the sealed
/// identifier, for a register call) and the tenant's cached profile read by it, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PersonAtRef {
    pub holder: IdentifierHolder,
    pub cached: Option<CachedPerson>,
}

/// A canonical person object encrypted under a tenant's data key. Opaque to everything but
/// the crypto adapter.
#[derive(Clone, PartialEq, Eq)]
pub struct SealedPerson(pub Vec<u8>);

impl fmt::Debug for SealedPerson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SealedPerson({} bytes)", self.0.len())
    }
}

/// A person profile served.
#[derive(Clone, Debug)]
pub struct ServedPerson {
    pub country: Country,
    pub subject: SubjectHandle,
    /// The tenant's ref of the identifier the profile was read by.
    pub person_ref: IdentifierRef,
    pub profile: PersonProfile,
    pub evidence: Evidence,
}

/// What screening needs of a person subject.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScreeningIdentity {
    pub subject: SubjectHandle,
    pub country: Country,
    /// `None` for a person the register names without a name (protected).
    pub name: Option<String>,
    pub birth_date: Option<NaiveDate>,
    pub protection: Protection,
}

/// The 12-digit number a population register is asked by.
pub fn register_number(person: &Identifier) -> &str {
    person.expose_canonical()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn swedish() -> DomesticAddress {
        DomesticAddress {
            care_of: Some("CO".into()),
            line_1: None,
            line_2: Some("Gatan 1".into()),
            postal_code: Some("11111".into()),
            city: Some("STAD".into()),
        }
    }

    fn foreign() -> ForeignAddress {
        ForeignAddress {
            line_1: Some("Street 1".into()),
            country_name: Some("NORGE".into()),
            ..ForeignAddress::default()
        }
    }

    fn everything() -> RegisterPerson {
        RegisterPerson {
            id_number: EchoedNumber::new("197001012399"),
            latest_change: Some(d("2020-01-01")),
            name: Some(RegisterName {
                given_names: Some("Anna Maria".into()),
                calling_name_index: Some("20".into()),
                surname: Some("Testsson".into()),
                ..RegisterName::default()
            }),
            birth_date: Some(d("1970-01-01")),
            registration: Some(PopulationRegistration {
                registered_at: Some(d("1999-01-01")),
                residence: Some("Skriven på adressen".into()),
                county_code: Some("01".into()),
                municipality_code: Some("0180".into()),
            }),
            addresses: RegisterAddresses {
                registered: Some(swedish()),
                special_postal: Some(PostalAddress::Foreign(foreign())),
                foreign: Some(foreign()),
                contact: Some(PostalAddress::Domestic(swedish())),
            },
            ..RegisterPerson::default()
        }
    }

    fn no_address(p: &PersonProfile) -> bool {
        p.address().is_none()
            && p.special_postal_address().is_none()
            && p.foreign_address().is_none()
            && p.registration().is_none_or(|f| {
                f.county_code.is_none() && f.municipality_code.is_none() && f.residence.is_none()
            })
    }

    #[test]
    fn a_marker_removes_every_address() {
        for (sekretess, skyddad, expected) in [
            (true, false, Protection::Confidential),
            (false, true, Protection::ProtectedResidence),
            (true, true, Protection::ProtectedResidence),
        ] {
            let mut r = everything();
            r.confidential = RegisterMarker {
                set: sekretess,
                since: Some(d("2010-01-01")),
            };
            r.protected_residence = RegisterMarker {
                set: skyddad,
                since: Some(d("2011-01-01")),
            };
            r.deregistration = Some(Deregistration {
                reason: DeregistrationReason::Emigrated,
                date: PartialDate::parse("2019-01-01"),
            });
            let p = PersonProfile::from_register(r);
            assert_eq!(p.markers().protected, expected);
            assert!(no_address(&p), "{expected:?}");
            let since = if skyddad { "2011-01-01" } else { "2010-01-01" };
            assert_eq!(p.markers().protected_since, Some(d(since)));
            assert_eq!(p.markers().emigrated_date, PartialDate::parse("2019-01-01"));
            // A round trip through storage cannot bring one back.
            let again = PersonProfile::restore(p.to_register(), None);
            assert!(no_address(&again));
            assert_eq!(again.markers().protected, expected);
        }
    }

    #[test]
    fn a_foreign_address_only_for_the_emigrated() {
        let p = PersonProfile::from_register(everything());
        assert!(p.foreign_address().is_none());
        assert!(p.address().is_some());
        assert!(p.special_postal_address().is_some());
        let mut r = everything();
        r.deregistration = Some(Deregistration {
            reason: DeregistrationReason::Emigrated,
            date: PartialDate::parse("2019-11-25"),
        });
        let p = PersonProfile::from_register(r);
        assert!(p.foreign_address().is_some());
        assert_eq!(p.markers().emigrated_date, PartialDate::parse("2019-11-25"));
        let again = PersonProfile::restore(p.to_register(), p.names().calling_name.clone());
        assert_eq!(again, p);
    }

    #[test]
    fn the_calling_name_index() {
        assert_eq!(
            calling_name("Christina Birgitta Ulrika", "20").as_deref(),
            Some("Birgitta")
        );
        assert_eq!(calling_name("Samantha", "10").as_deref(), Some("Samantha"));
        assert_eq!(
            calling_name("Anna-Karin Lisa", "12").as_deref(),
            Some("Anna-Karin")
        );
        assert_eq!(calling_name("Anna", "30"), None);
        assert_eq!(calling_name("Anna", "x"), None);
        assert_eq!(calling_name("Anna", "100"), None);
        assert_eq!(calling_name("Anna", "00"), None);
        let p = PersonProfile::from_register(everything());
        assert_eq!(p.names().calling_name.as_deref(), Some("Maria"));
        assert_eq!(p.full_name().as_deref(), Some("Anna Maria Testsson"));
    }

    #[test]
    fn partial_dates_are_kept_as_far_as_known() {
        let p = |s: &str| PartialDate::parse(s).map(|d| d.as_str().to_owned());
        assert_eq!(p("2019-11-25").as_deref(), Some("2019-11-25"));
        assert_eq!(p("2019-01-00").as_deref(), Some("2019-01"));
        assert_eq!(p("2019-00-00").as_deref(), Some("2019"));
        assert_eq!(p("200101").as_deref(), Some("2001-01"));
        assert_eq!(p("2001").as_deref(), Some("2001"));
        assert_eq!(p("20010230"), None);
        assert_eq!(p("0000-00-00"), None);
        assert_eq!(p("2019-13-00"), None);
        assert_eq!(p("20x9-01-01"), None);
        assert_eq!(p(""), None);
    }

    #[test]
    fn addresses_stay_out_of_debug() {
        let p = PersonProfile::from_register(everything());
        let dbg = format!("{p:?} {:?}", everything());
        assert!(!dbg.contains("Gatan"), "{dbg}");
        assert!(!dbg.contains("Street"), "{dbg}");
    }
}
