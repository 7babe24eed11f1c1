//! Person profiles sealed at rest under the tenant's data key (the same seal key as
//! identifiers, with its own associated data so a sealed profile can never be opened as an
//! identifier or under another tenant).
//!
//! The plaintext is this module's own record format (`StoredPersonV1`, JSON): the register
//! facts the canonical object keeps. Opening builds the object again through
//! `PersonProfile::restore`, so the protection rules apply to every profile read back.

use crate::vault::{open, seal, AesVault};
use chrono::NaiveDate;
use domain::access::tenant::WrappedDataKey;
use domain::error::CryptoError;
use domain::ids::TenantId;
use domain::persons::ports::PersonVault;
use domain::persons::profile::{
    Deregistration, DeregistrationReason, DomesticAddress, ForeignAddress, PartialDate,
    PersonProfile, PopulationRegistration, PostalAddress, RegisterAddresses, RegisterMarker,
    RegisterName, RegisterPerson, SealedPerson,
};
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

/// `<tenant>:person:v1`: binds a sealed profile to its tenant and to this record format.
fn person_aad(tenant: &TenantId) -> Vec<u8> {
    format!("{tenant}:person:v1").into_bytes()
}

fn fail(msg: &str) -> CryptoError {
    CryptoError::Failed(msg.to_owned())
}

#[derive(Serialize, Deserialize, Default)]
struct StoredPersonV1 {
    sekretess: bool,
    skyddad: bool,
    protected_since: Option<NaiveDate>,
    latest_change: Option<NaiveDate>,
    given_name: Option<String>,
    calling_name: Option<String>,
    middle_name: Option<String>,
    surname: Option<String>,
    notification_name: Option<String>,
    birth_date: Option<NaiveDate>,
    emigrated: bool,
    emigrated_date: Option<String>,
    deceased_date: Option<String>,
    folkbokforing: Option<StoredFolkbokforing>,
    address: Option<StoredSwedish>,
    special_postal_address: Option<StoredPostal>,
    foreign_address: Option<StoredForeign>,
}

#[derive(Serialize, Deserialize)]
struct StoredFolkbokforing {
    registered_at: Option<NaiveDate>,
    residence: Option<String>,
    county_code: Option<String>,
    municipality_code: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct StoredSwedish {
    care_of: Option<String>,
    line_1: Option<String>,
    line_2: Option<String>,
    postal_code: Option<String>,
    city: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct StoredForeign {
    care_of: Option<String>,
    line_1: Option<String>,
    line_2: Option<String>,
    line_3: Option<String>,
    country_name: Option<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum StoredPostal {
    Swedish(StoredSwedish),
    Foreign(StoredForeign),
}

impl StoredSwedish {
    fn from_domain(a: &DomesticAddress) -> Self {
        StoredSwedish {
            care_of: a.care_of.clone(),
            line_1: a.line_1.clone(),
            line_2: a.line_2.clone(),
            postal_code: a.postal_code.clone(),
            city: a.city.clone(),
        }
    }
    fn into_domain(self) -> DomesticAddress {
        DomesticAddress {
            care_of: self.care_of,
            line_1: self.line_1,
            line_2: self.line_2,
            postal_code: self.postal_code,
            city: self.city,
        }
    }
}

impl StoredForeign {
    fn from_domain(a: &ForeignAddress) -> Self {
        StoredForeign {
            care_of: a.care_of.clone(),
            line_1: a.line_1.clone(),
            line_2: a.line_2.clone(),
            line_3: a.line_3.clone(),
            country_name: a.country_name.clone(),
        }
    }
    fn into_domain(self) -> ForeignAddress {
        ForeignAddress {
            care_of: self.care_of,
            line_1: self.line_1,
            line_2: self.line_2,
            line_3: self.line_3,
            country_name: self.country_name,
        }
    }
}

impl StoredPostal {
    fn from_domain(a: &PostalAddress) -> Self {
        match a {
            PostalAddress::Domestic(s) => StoredPostal::Swedish(StoredSwedish::from_domain(s)),
            PostalAddress::Foreign(f) => StoredPostal::Foreign(StoredForeign::from_domain(f)),
        }
    }
    fn into_domain(self) -> PostalAddress {
        match self {
            StoredPostal::Swedish(s) => PostalAddress::Domestic(s.into_domain()),
            StoredPostal::Foreign(f) => PostalAddress::Foreign(f.into_domain()),
        }
    }
}

impl StoredPersonV1 {
    fn from_domain(p: &PersonProfile) -> Self {
        let r = p.to_register();
        let names = p.names();
        StoredPersonV1 {
            sekretess: r.confidential.set,
            skyddad: r.protected_residence.set,
            protected_since: p.markers().protected_since,
            latest_change: r.latest_change,
            given_name: names.given_name.clone(),
            calling_name: names.calling_name.clone(),
            middle_name: names.middle_name.clone(),
            surname: names.surname.clone(),
            notification_name: names.notification_name.clone(),
            birth_date: r.birth_date,
            emigrated: r.deregistration.is_some(),
            emigrated_date: p
                .markers()
                .emigrated_date
                .as_ref()
                .map(|d| d.as_str().to_owned()),
            deceased_date: r.deceased_date.as_ref().map(|d| d.as_str().to_owned()),
            folkbokforing: r.registration.map(|f| StoredFolkbokforing {
                registered_at: f.registered_at,
                residence: f.residence,
                county_code: f.county_code,
                municipality_code: f.municipality_code,
            }),
            address: r
                .addresses
                .registered
                .as_ref()
                .map(StoredSwedish::from_domain),
            special_postal_address: r
                .addresses
                .special_postal
                .as_ref()
                .map(StoredPostal::from_domain),
            foreign_address: r.addresses.foreign.as_ref().map(StoredForeign::from_domain),
        }
    }

    fn into_domain(self) -> PersonProfile {
        let marker = |set: bool| RegisterMarker {
            set,
            since: self.protected_since.filter(|_| set),
        };
        let facts = RegisterPerson {
            id_number: Default::default(),
            confidential: marker(self.sekretess),
            protected_residence: marker(self.skyddad),
            latest_change: self.latest_change,
            name: Some(RegisterName {
                given_names: self.given_name,
                calling_name_index: None,
                middle_name: self.middle_name,
                surname: self.surname,
                notification_name: self.notification_name,
            }),
            birth_date: self.birth_date,
            deregistration: self.emigrated.then(|| Deregistration {
                reason: DeregistrationReason::Emigrated,
                date: self.emigrated_date.as_deref().and_then(PartialDate::parse),
            }),
            deceased_date: self.deceased_date.as_deref().and_then(PartialDate::parse),
            registration: self.folkbokforing.map(|f| PopulationRegistration {
                registered_at: f.registered_at,
                residence: f.residence,
                county_code: f.county_code,
                municipality_code: f.municipality_code,
            }),
            addresses: RegisterAddresses {
                registered: self.address.map(StoredSwedish::into_domain),
                special_postal: self.special_postal_address.map(StoredPostal::into_domain),
                foreign: self.foreign_address.map(StoredForeign::into_domain),
                contact: None,
            },
        };
        PersonProfile::restore(facts, self.calling_name)
    }
}

impl PersonVault for AesVault {
    fn seal_person(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        profile: &PersonProfile,
    ) -> Result<SealedPerson, CryptoError> {
        let keys = self.tenant_keys(tenant, key)?;
        let plain = Zeroizing::new(
            serde_json::to_vec(&StoredPersonV1::from_domain(profile))
                .map_err(|_| fail("person profile does not encode"))?,
        );
        seal(&keys.seal, &plain, &person_aad(tenant)).map(SealedPerson)
    }

    fn open_person(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        sealed: &SealedPerson,
    ) -> Result<PersonProfile, CryptoError> {
        let keys = self.tenant_keys(tenant, key)?;
        let plain = open(&keys.seal, &sealed.0, &person_aad(tenant))
            .map_err(|_| fail("sealed person profile does not open for this tenant"))?;
        let stored: StoredPersonV1 = serde_json::from_slice(&plain)
            .map_err(|_| fail("sealed person profile is not a stored profile"))?;
        Ok(stored.into_domain())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::MasterKey;
    use domain::subjects::ports::IdentifierVault;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn register(protected: bool) -> RegisterPerson {
        RegisterPerson {
            id_number: domain::subjects::identifier::EchoedNumber::new("195309112489"),
            confidential: RegisterMarker {
                set: protected,
                since: Some(d("2012-03-04")),
            },
            latest_change: Some(d("2019-12-02")),
            name: Some(RegisterName {
                given_names: Some("Mauritza Lova".into()),
                calling_name_index: Some("20".into()),
                surname: Some("Efternamn3155".into()),
                notification_name: Some("Efternamn3155, Mauritza".into()),
                ..RegisterName::default()
            }),
            birth_date: Some(d("1953-09-11")),
            deregistration: Some(Deregistration {
                reason: DeregistrationReason::Emigrated,
                date: PartialDate::parse("2019-11-25"),
            }),
            registration: Some(PopulationRegistration {
                registered_at: Some(d("2001-01-01")),
                residence: Some("Skriven på adressen".into()),
                county_code: Some("01".into()),
                municipality_code: Some("0180".into()),
            }),
            addresses: RegisterAddresses {
                registered: Some(DomesticAddress {
                    line_2: Some("Gatan142 8".into()),
                    postal_code: Some("11146".into()),
                    city: Some("STOCKHOLM".into()),
                    ..DomesticAddress::default()
                }),
                special_postal: Some(PostalAddress::Domestic(DomesticAddress {
                    line_2: Some("Box 12".into()),
                    ..DomesticAddress::default()
                })),
                foreign: Some(ForeignAddress {
                    line_1: Some("UTLANDSGATAN 111".into()),
                    country_name: Some("STORBRITTANIEN".into()),
                    ..ForeignAddress::default()
                }),
                contact: None,
            },
            ..RegisterPerson::default()
        }
    }

    fn contains(haystack: &[u8], needle: &[u8]) -> bool {
        haystack.windows(needle.len()).any(|w| w == needle)
    }

    #[test]
    fn a_profile_round_trips_sealed_and_bound_to_its_tenant() {
        crate::install_schemes();
        let v = AesVault::from_master_key(&MasterKey::generate());
        let (a, b) = (TenantId::generate(), TenantId::generate());
        let (ka, kb) = (v.new_data_key(&a).unwrap(), v.new_data_key(&b).unwrap());
        for protected in [false, true] {
            let p = PersonProfile::from_register(register(protected));
            let sealed = v.seal_person(&a, &ka, &p).unwrap();
            for needle in ["Gatan142", "Efternamn3155", "1953-09-11", "UTLANDSGATAN"] {
                assert!(!contains(&sealed.0, needle.as_bytes()), "{needle}");
            }
            assert_eq!(v.open_person(&a, &ka, &sealed).unwrap(), p);
            assert!(v.open_person(&b, &kb, &sealed).is_err());
            assert!(v.open_person(&b, &ka, &sealed).is_err());
            // Never opens as an identifier.
            assert!(v
                .reveal(&a, &ka, adapters_se::identifiers::PERSONNUMMER, &sealed.0)
                .is_err());
        }
    }

    #[test]
    fn a_stored_address_under_a_marker_is_dropped_on_open() {
        crate::install_schemes();
        // A record written by a faulty earlier version: a marker *and* an address.
        let v = AesVault::from_master_key(&MasterKey::generate());
        let t = TenantId::generate();
        let k = v.new_data_key(&t).unwrap();
        let mut stored =
            StoredPersonV1::from_domain(&PersonProfile::from_register(register(false)));
        stored.skyddad = true;
        let keys = v.tenant_keys(&t, &k).unwrap();
        let sealed = seal(
            &keys.seal,
            &serde_json::to_vec(&stored).unwrap(),
            &person_aad(&t),
        )
        .unwrap();
        let p = v.open_person(&t, &k, &SealedPerson(sealed)).unwrap();
        assert!(p.address().is_none() && p.foreign_address().is_none());
        assert!(p.special_postal_address().is_none());
    }
}
