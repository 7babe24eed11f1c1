//! The cached company profile as the stores keep it: the register data document of the
//! profile cache, and the whole profile (with its evidence) of a monitoring baseline.

use crate::corrupt;
use chrono::NaiveDate;
use domain::companies::profile::{
    ActivityCode, Address, AnnualReportRef, CompanyProfile, CompanyRegisterData, CompanyStatus,
    OptionalGroup, TaxGroup, TaxKind, TaxRegistrations, SNI_2007,
};
use domain::countries::country::Country;
use domain::error::StoreError;
use serde::{Deserialize, Serialize};

/// The cached register data as stored in `company_profiles.data`. Private to storage (both
/// stores keep this very document): the wire shape of the API is api-rest's business.
#[derive(Serialize, Deserialize)]
pub struct StoredProfile {
    orgnr: String,
    name: String,
    legal_form: String,
    status: String,
    registered_at: Option<NaiveDate>,
    street: Option<String>,
    postal_code: Option<String>,
    city: Option<String>,
    address_country: String,
    /// The SNI 2007 codes among the activity codes (every activity code, in rows written
    /// before `activity_codes` existed).
    sni: Vec<String>,
    /// Every activity code with its classification; absent in rows written before it existed
    /// (their codes are `sni`'s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    activity_codes: Option<Vec<StoredActivityCode>>,
    employees_band: Option<String>,
    report_year: Option<i32>,
    report_document_id: Option<String>,
    /// Whether a source checked the tax registrations; absent in rows written before it
    /// existed, where the group was checked exactly when all three kinds are present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tax_checked: Option<bool>,
    /// The tax registrations, each absent when its source does not report it.
    #[serde(default)]
    f_skatt: Option<bool>,
    #[serde(default)]
    vat: Option<bool>,
    #[serde(default)]
    employer: Option<bool>,
    /// Optional groups the fetch could not check; rows written before it existed read as
    /// all checked, which they were (a failed optional source failed the whole fetch then).
    #[serde(default)]
    unchecked: Vec<String>,
}

/// One activity code as stored.
#[derive(Serialize, Deserialize)]
struct StoredActivityCode {
    scheme: String,
    code: String,
}

impl StoredProfile {
    pub fn from_domain(
        data: &CompanyRegisterData,
        tax: Option<&TaxRegistrations>,
        unchecked: &[OptionalGroup],
    ) -> Self {
        StoredProfile {
            orgnr: data.orgnr.clone(),
            name: data.name.clone(),
            legal_form: data.legal_form.clone(),
            status: data.status.as_str().to_owned(),
            registered_at: data.registered_at,
            street: data.address.street.clone(),
            postal_code: data.address.postal_code.clone(),
            city: data.address.city.clone(),
            address_country: data.address.country.clone(),
            sni: data.sni(),
            activity_codes: Some(
                data.activity_codes
                    .iter()
                    .map(|c| StoredActivityCode {
                        scheme: c.scheme.clone(),
                        code: c.code.clone(),
                    })
                    .collect(),
            ),
            employees_band: data.employees_band.clone(),
            report_year: data.latest_annual_report.as_ref().map(|r| r.year),
            report_document_id: data
                .latest_annual_report
                .as_ref()
                .map(|r| r.document_id.clone()),
            tax_checked: Some(tax.is_some()),
            f_skatt: tax.and_then(|t| t.get(TaxKind::BusinessTax)),
            vat: tax.and_then(|t| t.get(TaxKind::Vat)),
            employer: tax.and_then(|t| t.get(TaxKind::Employer)),
            unchecked: unchecked.iter().map(|g| g.as_str().to_owned()).collect(),
        }
    }

    pub fn into_domain(
        self,
    ) -> Result<
        (
            CompanyRegisterData,
            Option<TaxRegistrations>,
            Vec<OptionalGroup>,
        ),
        StoreError,
    > {
        let unchecked = self
            .unchecked
            .iter()
            .map(|g| OptionalGroup::parse(g).ok_or_else(|| corrupt("unchecked group")))
            .collect::<Result<_, _>>()?;
        let activity_codes = match self.activity_codes {
            Some(codes) => codes
                .into_iter()
                .map(|c| ActivityCode {
                    scheme: c.scheme,
                    code: c.code,
                })
                .collect(),
            None => self
                .sni
                .into_iter()
                .map(|code| ActivityCode::new(SNI_2007, code))
                .collect(),
        };
        let reported = [
            (TaxKind::BusinessTax, self.f_skatt),
            (TaxKind::Vat, self.vat),
            (TaxKind::Employer, self.employer),
        ];
        let pairs: Vec<(TaxKind, bool)> = reported
            .iter()
            .filter_map(|(k, v)| v.map(|v| (*k, v)))
            .collect();
        let tax = match (self.tax_checked, pairs.len()) {
            (Some(true), _) | (None, 3) => Some(TaxRegistrations::of(&pairs)),
            (Some(false), 0) | (None, 0) => None,
            _ => return Err(corrupt("tax registrations")),
        };
        let latest_annual_report = match (self.report_year, self.report_document_id) {
            (Some(year), Some(document_id)) => Some(AnnualReportRef { year, document_id }),
            _ => None,
        };
        Ok((
            CompanyRegisterData {
                orgnr: self.orgnr,
                name: self.name,
                legal_form: self.legal_form,
                status: CompanyStatus::parse(&self.status)
                    .ok_or_else(|| corrupt("company status"))?,
                registered_at: self.registered_at,
                address: Address {
                    street: self.street,
                    postal_code: self.postal_code,
                    city: self.city,
                    country: self.address_country,
                },
                activity_codes,
                employees_band: self.employees_band,
                latest_annual_report,
            },
            tax,
            unchecked,
        ))
    }
}

/// A whole profile (register data, evidence of both groups, when it was fetched) as JSON,
/// for the monitoring baseline; the cache keeps the same data in columns of its own.
pub fn profile_to_json(p: &CompanyProfile) -> Result<serde_json::Value, StoreError> {
    let register = serde_json::to_value(StoredProfile::from_domain(
        &p.data,
        p.tax.as_ref().map(|t| &t.registrations),
        &p.unchecked,
    ))
    .map_err(|e| StoreError::Backend(e.to_string()))?;
    Ok(serde_json::json!({
        "country": p.country.code(),
        "register": register,
        "evidence": crate::evidence::evidence_to_json(&p.evidence),
        "tax_evidence": p.tax.as_ref().map(|t| crate::evidence::evidence_to_json(&t.evidence)),
        "fetched_at": p.fetched_at,
    }))
}

pub fn profile_from_json(v: serde_json::Value) -> Result<CompanyProfile, StoreError> {
    let field = |k: &str| v.get(k).cloned().ok_or_else(|| corrupt("baseline profile"));
    let stored: StoredProfile =
        serde_json::from_value(field("register")?).map_err(|_| corrupt("baseline profile"))?;
    let (data, tax, unchecked) = stored.into_domain()?;
    let tax_evidence = v.get("tax_evidence").filter(|e| !e.is_null());
    let tax = match (tax, tax_evidence) {
        (Some(registrations), Some(e)) => Some(TaxGroup {
            registrations,
            evidence: crate::evidence::evidence_from_json(e)?,
        }),
        (None, None) => None,
        _ => return Err(corrupt("baseline tax evidence")),
    };
    Ok(CompanyProfile {
        country: field("country")?
            .as_str()
            .and_then(Country::from_code)
            .ok_or_else(|| corrupt("baseline country"))?,
        data,
        tax,
        unchecked,
        evidence: crate::evidence::evidence_from_json(&field("evidence")?)?,
        fetched_at: serde_json::from_value(field("fetched_at")?)
            .map_err(|_| corrupt("baseline time"))?,
    })
}
