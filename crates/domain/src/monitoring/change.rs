//! What moved between two readings of a company: the field diffs behind `company.changed`,
//! `company.status.changed`, `signatory.changed` and `ubo.changed`. Pure functions, shared
//! by the forced refresh and scheduled monitoring.
//!
//! A field group nothing checked in either reading (`unchecked`: its source failed, or the
//! country has none) is reported as not checked, never as unchanged, and never produces a
//! change.

use crate::companies::paid::{OfficerList, OwnerList};
use crate::companies::profile::{ActivityCode, CompanyProfile, OptionalGroup, TaxKind, SNI_2007};
use crate::monitoring::event::EventData;

/// One field that moved, with both values.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldChange {
    pub field: &'static str,
    pub old: EventData,
    pub new: EventData,
}

impl FieldChange {
    pub fn data(&self) -> EventData {
        EventData::Object(vec![
            ("field".to_owned(), EventData::Text(self.field.to_owned())),
            ("old".to_owned(), self.old.clone()),
            ("new".to_owned(), self.new.clone()),
        ])
    }
}

fn text(v: Option<&str>) -> EventData {
    v.map_or(EventData::Null, |s| EventData::Text(s.to_owned()))
}

fn list(v: &[String]) -> EventData {
    EventData::List(v.iter().map(|s| EventData::Text(s.clone())).collect())
}

/// The activity codes of classifications other than SNI 2007 (whose codes are `sni`'s), as
/// `{scheme, code}` objects.
fn other_codes(codes: &[ActivityCode]) -> EventData {
    EventData::List(
        codes
            .iter()
            .filter(|c| c.scheme != SNI_2007)
            .map(|c| {
                EventData::Object(vec![
                    ("scheme".to_owned(), EventData::Text(c.scheme.clone())),
                    ("code".to_owned(), EventData::Text(c.code.clone())),
                ])
            })
            .collect(),
    )
}

/// The field a tax registration's change is reported under: the specification's `tax.*`
/// when both readings report all three kinds (the `tax` object is served), otherwise
/// `tax_registrations.<kind>`.
fn tax_field(kind: TaxKind, complete: bool) -> &'static str {
    match (kind, complete) {
        (TaxKind::BusinessTax, true) => "tax.f_skatt",
        (TaxKind::Vat, true) => "tax.vat",
        (TaxKind::Employer, true) => "tax.employer",
        (TaxKind::BusinessTax, false) => "tax_registrations.business_tax",
        (TaxKind::Vat, false) => "tax_registrations.vat",
        (TaxKind::Employer, false) => "tax_registrations.employer",
    }
}

/// The profile's diff: `(changes of company.changed, the status change if any, the groups
/// not checked)`.
pub fn profile_diff(
    old: &CompanyProfile,
    new: &CompanyProfile,
) -> (Vec<FieldChange>, Option<FieldChange>, Vec<&'static str>) {
    let unchecked: Vec<OptionalGroup> = OptionalGroup::ALL
        .into_iter()
        .filter(|g| old.unchecked.contains(g) || new.unchecked.contains(g))
        .collect();
    let (o, n) = (&old.data, &new.data);
    let mut changes = Vec::new();
    let mut push = |field: &'static str, old: EventData, new: EventData| {
        if old != new {
            changes.push(FieldChange { field, old, new });
        }
    };
    push("name", text(Some(&o.name)), text(Some(&n.name)));
    push(
        "legal_form",
        text(Some(&o.legal_form)),
        text(Some(&n.legal_form)),
    );
    push(
        "registered_at",
        text(o.registered_at.map(|d| d.to_string()).as_deref()),
        text(n.registered_at.map(|d| d.to_string()).as_deref()),
    );
    push(
        "address.street",
        text(o.address.street.as_deref()),
        text(n.address.street.as_deref()),
    );
    push(
        "address.postal_code",
        text(o.address.postal_code.as_deref()),
        text(n.address.postal_code.as_deref()),
    );
    push(
        "address.city",
        text(o.address.city.as_deref()),
        text(n.address.city.as_deref()),
    );
    push(
        "address.country",
        text(Some(&o.address.country)),
        text(Some(&n.address.country)),
    );
    if !unchecked.contains(&OptionalGroup::ActivityCodes) {
        push("sni", list(&o.sni()), list(&n.sni()));
        push(
            "activity_codes",
            other_codes(&o.activity_codes),
            other_codes(&n.activity_codes),
        );
    }
    if let (Some(a), Some(b)) = (&old.tax, &new.tax) {
        let (a, b) = (&a.registrations, &b.registrations);
        for kind in TaxKind::ALL {
            if let (Some(was), Some(is)) = (a.get(kind), b.get(kind)) {
                push(
                    tax_field(kind, a.is_complete() && b.is_complete()),
                    EventData::Bool(was),
                    EventData::Bool(is),
                );
            }
        }
    }
    if !unchecked.contains(&OptionalGroup::EmployeesBand) {
        push(
            "employees_band",
            text(o.employees_band.as_deref()),
            text(n.employees_band.as_deref()),
        );
    }
    if !unchecked.contains(&OptionalGroup::LatestAnnualReport) {
        let year = |r: &Option<crate::companies::profile::AnnualReportRef>| {
            r.as_ref()
                .map_or(EventData::Null, |r| EventData::Int(i64::from(r.year)))
        };
        push(
            "latest_annual_report.year",
            year(&o.latest_annual_report),
            year(&n.latest_annual_report),
        );
    }
    let status = (o.status != n.status).then(|| FieldChange {
        field: "status",
        old: EventData::Text(o.status.as_str().to_owned()),
        new: EventData::Text(n.status.as_str().to_owned()),
    });
    (
        changes,
        status,
        unchecked.into_iter().map(OptionalGroup::as_str).collect(),
    )
}

/// An officer as the signatory diff names it: role code (or text), name and ref.
fn officer_key(o: &crate::companies::paid::Officer) -> (String, String, Option<String>) {
    (
        o.role_code.clone().unwrap_or_else(|| o.role.clone()),
        o.name.clone(),
        o.personal_number_ref.map(|r| r.to_string()),
    )
}

fn officer_data(k: &(String, String, Option<String>)) -> EventData {
    EventData::Object(vec![
        ("role".to_owned(), EventData::Text(k.0.clone())),
        ("name".to_owned(), EventData::Text(k.1.clone())),
        ("personal_number_ref".to_owned(), text(k.2.as_deref())),
    ])
}

/// The reading monitoring keeps after `new` was taken: `new`, except that a group a source
/// failed to deliver keeps the value the previous reading had checked. So a source that fails
/// once neither reports a change nor makes the next good reading's change disappear.
pub fn carry_unchecked(old: Option<&CompanyProfile>, new: &CompanyProfile) -> CompanyProfile {
    let mut kept = new.clone();
    let Some(old) = old else {
        return kept;
    };
    for group in OptionalGroup::ALL {
        if !new.unchecked.contains(&group) || old.unchecked.contains(&group) {
            continue;
        }
        match group {
            OptionalGroup::EmployeesBand => {
                kept.data.employees_band = old.data.employees_band.clone();
            }
            OptionalGroup::LatestAnnualReport => {
                kept.data.latest_annual_report = old.data.latest_annual_report.clone();
            }
            OptionalGroup::ActivityCodes => {
                kept.data.activity_codes = old.data.activity_codes.clone();
            }
            OptionalGroup::Tax => kept.tax = old.tax.clone(),
        }
        kept.unchecked.retain(|g| *g != group);
    }
    kept
}

/// The signatory diff (`signatory.changed`): the rule's text and the officers added and
/// removed; `None` when nothing moved.
pub fn signatory_diff(old: &OfficerList, new: &OfficerList) -> Option<EventData> {
    let keys = |l: &OfficerList| {
        let mut k: Vec<_> = l.officers.iter().map(officer_key).collect();
        k.sort();
        k
    };
    let (ok, nk) = (keys(old), keys(new));
    let added: Vec<EventData> = nk
        .iter()
        .filter(|k| !ok.contains(k))
        .map(officer_data)
        .collect();
    let removed: Vec<EventData> = ok
        .iter()
        .filter(|k| !nk.contains(k))
        .map(officer_data)
        .collect();
    let rule_changed = old.signatory_rule_text != new.signatory_rule_text;
    if added.is_empty() && removed.is_empty() && !rule_changed {
        return None;
    }
    let mut data = Vec::new();
    if rule_changed {
        data.push((
            "signatory_rule_text".to_owned(),
            FieldChange {
                field: "signatory_rule_text",
                old: text(old.signatory_rule_text.as_deref()),
                new: text(new.signatory_rule_text.as_deref()),
            }
            .data(),
        ));
    }
    data.push(("officers_added".to_owned(), EventData::List(added)));
    data.push(("officers_removed".to_owned(), EventData::List(removed)));
    Some(EventData::Object(data))
}

/// The beneficial-owner diff (`ubo.changed`): owners added, removed, or with another share
/// band or nature of control; `None` when nothing moved.
pub fn ubo_diff(old: &OwnerList, new: &OwnerList) -> Option<EventData> {
    let key = |o: &crate::companies::paid::Owner| {
        (
            o.name.clone(),
            o.personal_number_ref.map(|r| r.to_string()),
            o.share_band.as_str(),
            o.nature_of_control.clone(),
        )
    };
    let data = |k: &(String, Option<String>, &'static str, String)| {
        EventData::Object(vec![
            ("name".to_owned(), EventData::Text(k.0.clone())),
            ("personal_number_ref".to_owned(), text(k.1.as_deref())),
            ("share_band".to_owned(), EventData::Text(k.2.to_owned())),
            ("nature_of_control".to_owned(), EventData::Text(k.3.clone())),
        ])
    };
    let ok: Vec<_> = old.owners.iter().map(key).collect();
    let nk: Vec<_> = new.owners.iter().map(key).collect();
    let added: Vec<EventData> = nk.iter().filter(|k| !ok.contains(k)).map(data).collect();
    let removed: Vec<EventData> = ok.iter().filter(|k| !nk.contains(k)).map(data).collect();
    let reported_changed = old.no_ubo_reported != new.no_ubo_reported;
    if added.is_empty() && removed.is_empty() && !reported_changed {
        return None;
    }
    Some(EventData::Object(vec![
        ("owners_added".to_owned(), EventData::List(added)),
        ("owners_removed".to_owned(), EventData::List(removed)),
        (
            "no_ubo_reported".to_owned(),
            EventData::Bool(new.no_ubo_reported),
        ),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::companies::profile::{
        Address, CompanyRegisterData, CompanyStatus, TaxGroup, TaxRegistrations,
    };
    use crate::countries::country::Country;
    use crate::evidence::{Evidence, EvidenceSource};
    use crate::ids::CallRef;
    use chrono::Utc;

    fn profile(name: &str, status: CompanyStatus, band: Option<&str>) -> CompanyProfile {
        let e = Evidence {
            source: EvidenceSource::declared("companyreg.vardefulla-datamangder"),
            source_timestamp: Utc::now(),
            call_ref: CallRef::generate(),
            upstream_ref: None,
            digest: None,
            schema_version: None,
            retrieved_at: Utc::now(),
        };
        CompanyProfile {
            country: Country::Se,
            data: CompanyRegisterData {
                orgnr: "5560021361".into(),
                name: name.into(),
                legal_form: "AB".into(),
                status,
                registered_at: None,
                address: Address {
                    street: Some("Gatan 1".into()),
                    postal_code: None,
                    city: None,
                    country: "SE".into(),
                },
                activity_codes: vec![ActivityCode::new(SNI_2007, "62010")],
                employees_band: band.map(str::to_owned),
                latest_annual_report: None,
            },
            tax: Some(TaxGroup {
                registrations: registrations(&[
                    (TaxKind::BusinessTax, true),
                    (TaxKind::Vat, true),
                    (TaxKind::Employer, false),
                ]),
                evidence: e.clone(),
            }),
            unchecked: Vec::new(),
            evidence: e,
            fetched_at: Utc::now(),
        }
    }

    fn registrations(list: &[(TaxKind, bool)]) -> TaxRegistrations {
        TaxRegistrations::of(list)
    }

    #[test]
    fn sni_and_the_swedish_tax_fields_keep_their_names() {
        let old = profile("A", CompanyStatus::Active, None);
        let mut new = old.clone();
        new.data.activity_codes = vec![ActivityCode::new(SNI_2007, "62020")];
        new.tax.as_mut().unwrap().registrations = registrations(&[
            (TaxKind::BusinessTax, true),
            (TaxKind::Vat, false),
            (TaxKind::Employer, false),
        ]);
        let (changes, _, _) = profile_diff(&old, &new);
        let fields: Vec<&str> = changes.iter().map(|c| c.field).collect();
        assert_eq!(fields, ["sni", "tax.vat"]);
        assert_eq!(
            changes[0].new,
            EventData::List(vec![EventData::Text("62020".into())])
        );
    }

    #[test]
    fn another_classification_and_a_lone_registration_have_their_own_fields() {
        let mut old = profile("A", CompanyStatus::Active, None);
        old.data.activity_codes = vec![ActivityCode::new("SN", "62.010")];
        old.tax.as_mut().unwrap().registrations = registrations(&[(TaxKind::Vat, false)]);
        let mut new = old.clone();
        new.data.activity_codes = vec![ActivityCode::new("SN", "62.020")];
        new.tax.as_mut().unwrap().registrations = registrations(&[(TaxKind::Vat, true)]);
        let (changes, _, _) = profile_diff(&old, &new);
        let fields: Vec<&str> = changes.iter().map(|c| c.field).collect();
        assert_eq!(fields, ["activity_codes", "tax_registrations.vat"]);
        let code = |c: &str| {
            EventData::List(vec![EventData::Object(vec![
                ("scheme".to_owned(), EventData::Text("SN".into())),
                ("code".to_owned(), EventData::Text(c.into())),
            ])])
        };
        assert_eq!(changes[0].old, code("62.010"));
        assert_eq!(changes[0].new, code("62.020"));
        assert_eq!(changes[1].new, EventData::Bool(true));
    }

    #[test]
    fn fields_and_status_move_apart() {
        let old = profile("Gamla AB", CompanyStatus::Active, Some("1-4"));
        let new = profile("Nya AB", CompanyStatus::Bankruptcy, Some("5-9"));
        let (changes, status, unchecked) = profile_diff(&old, &new);
        let fields: Vec<&str> = changes.iter().map(|c| c.field).collect();
        assert_eq!(fields, ["name", "employees_band"]);
        assert_eq!(changes[0].old, EventData::Text("Gamla AB".into()));
        assert_eq!(changes[0].new, EventData::Text("Nya AB".into()));
        assert_eq!(status.unwrap().new, EventData::Text("bankruptcy".into()));
        assert!(unchecked.is_empty());
        let (none, no_status, _) = profile_diff(&old, &old.clone());
        assert!(none.is_empty() && no_status.is_none());
    }

    #[test]
    fn an_unchecked_group_is_never_a_change() {
        let old = profile("A", CompanyStatus::Active, Some("1-4"));
        let mut new = profile("A", CompanyStatus::Active, None);
        new.unchecked = vec![OptionalGroup::EmployeesBand];
        let (changes, _, unchecked) = profile_diff(&old, &new);
        assert!(changes.is_empty());
        assert_eq!(unchecked, ["employees_band"]);
    }

    #[test]
    fn a_country_without_a_tax_source_never_reports_a_tax_or_sni_change() {
        let old = profile("A", CompanyStatus::Active, Some("1-4"));
        let mut new = old.clone();
        new.tax = None;
        new.data.activity_codes.clear();
        new.unchecked = vec![OptionalGroup::ActivityCodes, OptionalGroup::Tax];
        let (changes, _, unchecked) = profile_diff(&old, &new);
        assert!(changes.is_empty(), "{changes:?}");
        assert_eq!(unchecked, ["sni", "tax"]);
        // Monitoring keeps what the earlier reading checked.
        let kept = carry_unchecked(Some(&old), &new);
        assert_eq!(kept.tax, old.tax);
        assert_eq!(kept.data.activity_codes, old.data.activity_codes);
        assert!(kept.unchecked.is_empty());
    }
}
