//! Paid objects (officers, beneficial owners, engagements) as the stores keep them: the
//! tenant's refs, never a personal number.

use crate::{corrupt, parse_id};
use chrono::NaiveDate;
use domain::companies::paid::{
    Engagement, EngagementList, Officer, OfficerList, Owner, OwnerList, PaidData, ShareBand,
};
use domain::error::StoreError;
use domain::ids::IdentifierRef;
use serde::{Deserialize, Serialize};

/// A paid object's data as stored in `paid_objects.data`: the tenant's refs, never a
/// personal number. Private to storage; the wire shape is api-rest's business.
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StoredPaid {
    Officers {
        orgnr: String,
        officers: Vec<StoredOfficer>,
        signatory_rule_text: Option<String>,
    },
    BeneficialOwners {
        orgnr: String,
        owners: Vec<StoredOwner>,
        no_ubo_reported: bool,
    },
    Engagements {
        person_ref: Option<String>,
        engagements: Vec<StoredEngagement>,
    },
}

#[derive(Serialize, Deserialize)]
pub struct StoredOfficer {
    role: String,
    #[serde(default)]
    role_code: Option<String>,
    name: String,
    personal_number_ref: Option<String>,
    appointed_at: Option<NaiveDate>,
}

#[derive(Serialize, Deserialize)]
pub struct StoredOwner {
    name: String,
    personal_number_ref: Option<String>,
    nature_of_control: String,
    share_band: String,
}

#[derive(Serialize, Deserialize)]
pub struct StoredEngagement {
    orgnr: String,
    role: String,
    #[serde(default)]
    role_code: Option<String>,
    since: Option<NaiveDate>,
}

fn ref_to_row(r: Option<&IdentifierRef>) -> Option<String> {
    r.map(ToString::to_string)
}

fn ref_from_row(r: Option<&str>) -> Result<Option<IdentifierRef>, StoreError> {
    r.map(|r| parse_id(r, "identifier ref")).transpose()
}

impl StoredPaid {
    pub fn from_domain(data: &PaidData) -> StoredPaid {
        match data {
            PaidData::Officers(o) => StoredPaid::Officers {
                orgnr: o.orgnr.clone(),
                officers: o
                    .officers
                    .iter()
                    .map(|x| StoredOfficer {
                        role: x.role.clone(),
                        role_code: x.role_code.clone(),
                        name: x.name.clone(),
                        personal_number_ref: ref_to_row(x.personal_number_ref.as_ref()),
                        appointed_at: x.appointed_at,
                    })
                    .collect(),
                signatory_rule_text: o.signatory_rule_text.clone(),
            },
            PaidData::BeneficialOwners(o) => StoredPaid::BeneficialOwners {
                orgnr: o.orgnr.clone(),
                owners: o
                    .owners
                    .iter()
                    .map(|x| StoredOwner {
                        name: x.name.clone(),
                        personal_number_ref: ref_to_row(x.personal_number_ref.as_ref()),
                        nature_of_control: x.nature_of_control.clone(),
                        share_band: x.share_band.as_str().to_owned(),
                    })
                    .collect(),
                no_ubo_reported: o.no_ubo_reported,
            },
            PaidData::Engagements(e) => StoredPaid::Engagements {
                person_ref: ref_to_row(e.person_ref.as_ref()),
                engagements: e
                    .engagements
                    .iter()
                    .map(|x| StoredEngagement {
                        orgnr: x.orgnr.clone(),
                        role: x.role.clone(),
                        role_code: x.role_code.clone(),
                        since: x.since,
                    })
                    .collect(),
            },
        }
    }

    pub fn into_domain(self) -> Result<PaidData, StoreError> {
        Ok(match self {
            StoredPaid::Officers {
                orgnr,
                officers,
                signatory_rule_text,
            } => PaidData::Officers(OfficerList {
                orgnr,
                officers: officers
                    .into_iter()
                    .map(|x| {
                        Ok(Officer {
                            personal_number_ref: ref_from_row(x.personal_number_ref.as_deref())?,
                            role: x.role,
                            role_code: x.role_code,
                            name: x.name,
                            appointed_at: x.appointed_at,
                        })
                    })
                    .collect::<Result<_, StoreError>>()?,
                signatory_rule_text,
            }),
            StoredPaid::BeneficialOwners {
                orgnr,
                owners,
                no_ubo_reported,
            } => PaidData::BeneficialOwners(OwnerList {
                orgnr,
                owners: owners
                    .into_iter()
                    .map(|x| {
                        Ok(Owner {
                            personal_number_ref: ref_from_row(x.personal_number_ref.as_deref())?,
                            share_band: ShareBand::parse(&x.share_band)
                                .ok_or_else(|| corrupt("share band"))?,
                            name: x.name,
                            nature_of_control: x.nature_of_control,
                        })
                    })
                    .collect::<Result<_, StoreError>>()?,
                no_ubo_reported,
            }),
            StoredPaid::Engagements {
                person_ref,
                engagements,
            } => PaidData::Engagements(EngagementList {
                person_ref: ref_from_row(person_ref.as_deref())?,
                engagements: engagements
                    .into_iter()
                    .map(|x| Engagement {
                        orgnr: x.orgnr,
                        role: x.role,
                        role_code: x.role_code,
                        since: x.since,
                    })
                    .collect(),
            }),
        })
    }
}

/// A paid object's data as JSON of its stored form (monitoring baselines keep it so too).
pub fn paid_to_json(data: &PaidData) -> Result<serde_json::Value, StoreError> {
    serde_json::to_value(StoredPaid::from_domain(data))
        .map_err(|e| StoreError::Backend(e.to_string()))
}

pub fn paid_from_json(value: serde_json::Value) -> Result<PaidData, StoreError> {
    serde_json::from_value::<StoredPaid>(value)
        .map_err(|_| corrupt("paid object"))?
        .into_domain()
}
