//! Norway's company register behind idreg's ports: the profile (`CompanyRegistry`) from
//! `GET /enheter/{orgnr}`, and officers (`PaidCompanyRegistry`, declared as a free register's
//! officers) from `GET /enheter/{orgnr}/roller`.
//!
//! What the register's answer means in the shared profile:
//! - **status** by the register's precedence ([`EnhetStatus`]): deleted → `deregistered`,
//!   bankrupt → `bankruptcy`, compulsory dissolution and winding-up → `liquidation`,
//!   otherwise `active` (restructuring negotiations leave an entity active, as the register
//!   does);
//! - **activity codes**: `naeringskode1..3` as classification `SN`, the `00.000`
//!   placeholder left out;
//! - **employees**: a band only where the register says employees are registered: `1-4`
//!   (the register gives no count below 5) or the count's size class ([`employees_band`]);
//!   `null`, checked, where it registers none;
//! - **tax**: the VAT register's entry (`registrertIMvaregisteret`), with the entity's own
//!   evidence; the register says nothing of the other kinds, so they are absent;
//! - **annual report**: never served (the register's filings are not a document this
//!   service fetches), so `latest_annual_report` is always named in `unchecked`;
//! - a **deleted** entity (`SlettetEnhet`) keeps only its number, name and form: every
//!   optional group is unchecked;
//! - a **withdrawn** entity (410) is [`RegistryFailure::Withdrawn`]: the service drops what
//!   the tenant kept of it.
//!
//! Officers are the roles still held (neither deregistered nor resigned), contact persons
//! left out. Persons come by name only: the open register gives a birth date and never a
//! national number, and neither becomes part of the officer. The signatory rule is `null`:
//! the open roles carry no rule text (the register's separate power-of-attorney service is
//! not called, see the crate's README).

use crate::brreg::model::{
    Employees, Enhet, EnhetAnswer, EnhetStatus, Innehaver, Rolle, RollerAnswer,
};
use crate::brreg::{BrregClient, BrregConfig, BrregConfigError};
use crate::identifiers::ORGANISASJONSNUMMER;
use crate::orgnr::Orgnr;
use async_trait::async_trait;
use domain::companies::paid::{
    EngagementPage, FetchedOfficer, FetchedOfficers, FetchedOwners, NamedParty,
};
use domain::companies::ports::{CompanyRegistry, PaidCompanyRegistry};
use domain::companies::profile::{
    ActivityCode, Address, CompanyRegisterData, CompanyStatus, Fetch, FetchedProfile,
    OptionalGroup, ProfileFetch, RegistryFailure, TaxKind, TaxRegistrations,
};
use domain::subjects::identifier::Identifier;

/// The classification of the register's industry codes: Norway's standard for industrial
/// classification (NACE-based), in the version the register uses.
pub const SN: &str = "SN";

/// The role type of a contact person (`KONT`): not an officer.
const CONTACT_PERSON: &str = "KONT";

/// Enhetsregisteret behind the company ports.
#[derive(Debug)]
pub struct NorwegianCompanyRegistry {
    client: BrregClient,
}

impl NorwegianCompanyRegistry {
    pub fn new(config: &BrregConfig) -> Result<NorwegianCompanyRegistry, BrregConfigError> {
        Ok(NorwegianCompanyRegistry {
            client: BrregClient::new(config)?,
        })
    }
}

/// The number of a validated Norwegian company code, or `None` for anything else (the
/// registry is only ever handed its own country's codes).
fn orgnr_of(code: &Identifier) -> Option<Orgnr> {
    if code.id_type() != ORGANISASJONSNUMMER {
        tracing::warn!(id_type = %code.id_type(), "the Norwegian register takes organisation numbers only");
        return None;
    }
    Orgnr::parse(code.expose_canonical()).ok()
}

fn not_ours<T>() -> Fetch<T> {
    Fetch {
        calls: Vec::new(),
        outcome: Err(RegistryFailure::NotFound),
    }
}

/// The band of the employees the register counts: none where it has none registered,
/// `1-4` where it has some but (by its rule) no count, else the size class of the count, in
/// the bands Sweden's statistics office uses (`5-9`, `10-19`, ... `10000-`).
pub fn employees_band(employees: Employees) -> Option<String> {
    let n = match employees {
        Employees::None => return None,
        Employees::OneToFour => return Some("1-4".to_owned()),
        Employees::Count(n) => n,
    };
    const BANDS: [(u64, &str); 16] = [
        (0, "0"),
        (1, "1-4"),
        (5, "5-9"),
        (10, "10-19"),
        (20, "20-49"),
        (50, "50-99"),
        (100, "100-199"),
        (200, "200-499"),
        (500, "500-999"),
        (1000, "1000-1499"),
        (1500, "1500-1999"),
        (2000, "2000-2999"),
        (3000, "3000-3999"),
        (4000, "4000-4999"),
        (5000, "5000-9999"),
        (10000, "10000-"),
    ];
    BANDS
        .iter()
        .rev()
        .find(|(from, _)| n >= *from)
        .map(|(_, band)| (*band).to_owned())
}

/// The shared status of a register status.
pub fn status(s: &EnhetStatus) -> CompanyStatus {
    match s {
        EnhetStatus::Active => CompanyStatus::Active,
        EnhetStatus::WindingUp { .. } | EnhetStatus::CompulsoryDissolution { .. } => {
            CompanyStatus::Liquidation
        }
        EnhetStatus::Bankrupt { .. } => CompanyStatus::Bankruptcy,
        EnhetStatus::Deleted { .. } => CompanyStatus::Deregistered,
    }
}

/// The profile of an entity on the register: its data, its tax group and what is unchecked.
fn profile_of(e: &Enhet) -> (CompanyRegisterData, TaxRegistrations, Vec<OptionalGroup>) {
    let address = e
        .forretningsadresse
        .as_ref()
        .or(e.postadresse.as_ref())
        .map(|a| Address {
            street: a.street(),
            postal_code: a.postnummer.clone().filter(|p| !p.trim().is_empty()),
            city: a.poststed.clone().filter(|p| !p.trim().is_empty()),
            country: a
                .landkode
                .as_deref()
                .map(str::trim)
                .filter(|c| c.len() == 2 && c.bytes().all(|b| b.is_ascii_alphabetic()))
                .unwrap_or("NO")
                .to_ascii_uppercase(),
        })
        .unwrap_or_else(norwegian_address);
    let data = CompanyRegisterData {
        orgnr: e.organisasjonsnummer.clone(),
        name: e.navn.clone(),
        legal_form: e.organisasjonsform.kode.clone(),
        status: status(&e.status()),
        registered_at: Some(e.registreringsdato_enhetsregisteret),
        address,
        activity_codes: e
            .naeringskoder()
            .into_iter()
            .filter_map(|k| k.kode.as_deref())
            .map(|code| ActivityCode::new(SN, code.trim()))
            .collect(),
        employees_band: employees_band(e.employees()),
        latest_annual_report: None,
    };
    let tax = TaxRegistrations::of(&[(TaxKind::Vat, e.registrert_i_mvaregisteret)]);
    (data, tax, vec![OptionalGroup::LatestAnnualReport])
}

fn norwegian_address() -> Address {
    Address {
        country: "NO".to_owned(),
        ..Address::default()
    }
}

#[async_trait]
impl CompanyRegistry for NorwegianCompanyRegistry {
    async fn fetch_profile(&self, code: &Identifier) -> ProfileFetch {
        let Some(orgnr) = orgnr_of(code) else {
            return not_ours();
        };
        let step = self.client.fetch_enhet(&orgnr).await;
        let main_call = step.calls.len().saturating_sub(1);
        let outcome = step.result.and_then(|answer| match answer {
            EnhetAnswer::Enhet(e) => {
                let (data, tax, unchecked) = profile_of(&e);
                Ok(FetchedProfile {
                    data,
                    tax: Some((tax, main_call)),
                    unchecked,
                    main_call,
                })
            }
            EnhetAnswer::Slettet(s) => Ok(FetchedProfile {
                data: CompanyRegisterData {
                    orgnr: s.organisasjonsnummer.clone(),
                    name: s.navn.clone(),
                    legal_form: s.organisasjonsform.kode.clone(),
                    status: status(&s.status()),
                    registered_at: None,
                    address: norwegian_address(),
                    activity_codes: Vec::new(),
                    employees_band: None,
                    latest_annual_report: None,
                },
                tax: None,
                // A deleted entity's answer holds none of the optional groups.
                unchecked: OptionalGroup::ALL.to_vec(),
                main_call,
            }),
            EnhetAnswer::Gone(_) => Err(RegistryFailure::Withdrawn),
        });
        ProfileFetch {
            calls: step.calls,
            outcome,
        }
    }
}

/// An officer of a role still held, unless it is a contact person's.
fn officer(r: &Rolle) -> Option<FetchedOfficer> {
    if !r.is_current() || r.rolletype.kode == CONTACT_PERSON {
        return None;
    }
    let name = match &r.innehaver {
        Innehaver::Person(p) => p.navn.full(),
        Innehaver::Enhet(e) => e.name(),
        Innehaver::Bostyrer(b) => b.navn.trim().to_owned(),
    };
    Some(FetchedOfficer {
        role: r.rolletype.beskrivelse.clone(),
        role_code: Some(r.rolletype.kode.clone()),
        party: NamedParty { name, person: None },
        appointed_at: None,
    })
}

#[async_trait]
impl PaidCompanyRegistry for NorwegianCompanyRegistry {
    async fn fetch_officers(&self, code: &Identifier) -> Fetch<FetchedOfficers> {
        let Some(orgnr) = orgnr_of(code) else {
            return not_ours();
        };
        let step = self.client.fetch_roller(&orgnr).await;
        let outcome = step.result.map(|answer| match answer {
            RollerAnswer::Roller(roller) => Ok(FetchedOfficers {
                orgnr: orgnr.as_str().to_owned(),
                officers: roller.all().filter_map(|(_, r)| officer(r)).collect(),
                signatory_rule_text: None,
            }),
            RollerAnswer::Gone => Err(RegistryFailure::Withdrawn),
        });
        Fetch {
            calls: step.calls,
            outcome: outcome.and_then(|o| o),
        }
    }

    /// Never called: Norway is declared with free officers, which serve no owners (the
    /// register of beneficial owners has no open API).
    async fn fetch_beneficial_owners(&self, _orgnr: &Identifier) -> Fetch<FetchedOwners> {
        not_ours()
    }

    /// Never called: Norway has no person scheme to look a person's engagements up by.
    async fn fetch_engagements(&self, _person: &Identifier, _page: u32) -> Fetch<EngagementPage> {
        not_ours()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_statuses_follow_the_registers_precedence() {
        assert_eq!(status(&EnhetStatus::Active), CompanyStatus::Active);
        assert_eq!(
            status(&EnhetStatus::WindingUp { since: None }),
            CompanyStatus::Liquidation
        );
        assert_eq!(
            status(&EnhetStatus::CompulsoryDissolution {
                grounds: Vec::new()
            }),
            CompanyStatus::Liquidation
        );
        assert_eq!(
            status(&EnhetStatus::Bankrupt { since: None }),
            CompanyStatus::Bankruptcy
        );
        let on = chrono::NaiveDate::from_ymd_opt(2020, 1, 1).unwrap();
        assert_eq!(
            status(&EnhetStatus::Deleted { on }),
            CompanyStatus::Deregistered
        );
    }

    #[test]
    fn the_register_without_a_count_is_a_band_of_its_own() {
        let band = |e| employees_band(e);
        assert_eq!(band(Employees::None), None);
        assert_eq!(band(Employees::OneToFour).as_deref(), Some("1-4"));
        assert_eq!(band(Employees::Count(5)).as_deref(), Some("5-9"));
        assert_eq!(band(Employees::Count(19)).as_deref(), Some("10-19"));
        assert_eq!(band(Employees::Count(10_000)).as_deref(), Some("10000-"));
    }

    proptest! {
        /// Every count falls in exactly the band whose bounds hold it.
        #[test]
        fn a_count_is_in_its_band(n in 0u64..50_000) {
            let band = employees_band(Employees::Count(n)).unwrap();
            let (low, high) = band.split_once('-').unwrap_or((band.as_str(), band.as_str()));
            let low: u64 = low.parse().unwrap();
            prop_assert!(n >= low, "{n} in {band}");
            if !high.is_empty() {
                let high: u64 = high.parse().unwrap();
                prop_assert!(n <= high, "{n} in {band}");
            }
        }
    }
}
