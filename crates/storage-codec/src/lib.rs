#![doc = include_str!("../README.md")]

pub mod assistant;
pub mod companies;
pub mod evidence;
pub mod oauth;
pub mod paid;
pub mod sanctions;
pub mod screening;

use domain::error::StoreError;
use std::str::FromStr;

/// A stored value that does not convert: a storage fault, never silently dropped.
pub fn corrupt(what: &str) -> StoreError {
    StoreError::Backend(format!("stored value does not convert: {what}"))
}

/// An id read back from a stored document.
pub fn parse_id<T: FromStr>(s: &str, what: &str) -> Result<T, StoreError> {
    s.parse().map_err(|_| corrupt(what))
}

/// Sweden's and Lithuania's identifier schemes, installed as the binary installs them, for
/// the tests that read identifiers or country codes.
#[cfg(test)]
fn install_schemes() {
    adapters_se::identifiers::install();
    adapters_lt::identifiers::install();
}

#[cfg(test)]
mod tests {
    use super::companies::{profile_from_json, profile_to_json, StoredProfile};
    use super::evidence::{data_from_json, data_to_json, evidence_from_json, evidence_to_json};
    use super::paid::{paid_from_json, paid_to_json};
    use chrono::{DateTime, NaiveDate, Utc};
    use domain::companies::paid::{Officer, OfficerList, PaidData};
    use domain::companies::profile::{
        ActivityCode, Address, AnnualReportRef, CompanyProfile, CompanyRegisterData, CompanyStatus,
        OptionalGroup, TaxGroup, TaxKind, TaxRegistrations, SNI_2007,
    };
    use domain::countries::country::Country;
    use domain::evidence::{Evidence, EvidenceSource};
    use domain::ids::{CallRef, IdentifierRef};
    use domain::monitoring::event::EventData;

    fn at(micros: i64) -> DateTime<Utc> {
        DateTime::from_timestamp_micros(micros).unwrap()
    }

    fn evidence(full: bool) -> Evidence {
        Evidence {
            source: EvidenceSource::CUSTOMER_IDENTITY_EVENT,
            source_timestamp: at(1_764_000_000_123_456),
            call_ref: CallRef::generate(),
            upstream_ref: full.then(|| "rev-7".to_owned()),
            digest: full.then(|| "sha256:ab".to_owned()),
            schema_version: full.then(|| "1".to_owned()),
            retrieved_at: at(1_764_000_001_000_001),
        }
    }

    #[test]
    fn evidence_and_event_data_round_trip() {
        crate::install_schemes();
        for full in [true, false] {
            let e = evidence(full);
            assert_eq!(evidence_from_json(&evidence_to_json(&e)).unwrap(), e);
        }
        // Members come back in key order, as PostgreSQL's jsonb keeps them.
        let data = EventData::Object(vec![
            (
                "list".into(),
                EventData::List(vec![EventData::Bool(true), EventData::Null]),
            ),
            ("n".into(), EventData::Int(-3)),
            ("name".into(), EventData::Text("Ny AB".into())),
            ("share".into(), EventData::Number(0.25)),
        ]);
        assert_eq!(data_from_json(data_to_json(&data)), data);
        assert!(evidence_from_json(&serde_json::json!({"source": "nope"})).is_err());
    }

    fn register() -> CompanyRegisterData {
        CompanyRegisterData {
            orgnr: "5560021361".into(),
            name: "Exempel AB".into(),
            legal_form: "AB".into(),
            status: CompanyStatus::Active,
            registered_at: NaiveDate::from_ymd_opt(1990, 5, 2),
            address: Address {
                street: Some("Gatan 1".into()),
                postal_code: Some("11122".into()),
                city: Some("Stockholm".into()),
                country: "SE".into(),
            },
            activity_codes: vec![ActivityCode::new(SNI_2007, "62010")],
            employees_band: Some("10-19".into()),
            latest_annual_report: Some(AnnualReportRef {
                year: 2025,
                document_id: "doc-1".into(),
            }),
        }
    }

    #[test]
    fn a_profile_round_trips_with_and_without_tax() {
        crate::install_schemes();
        let with_tax = CompanyProfile {
            country: Country::Se,
            data: register(),
            tax: Some(TaxGroup {
                registrations: TaxRegistrations::of(&[
                    (TaxKind::BusinessTax, true),
                    (TaxKind::Vat, false),
                    (TaxKind::Employer, true),
                ]),
                evidence: evidence(true),
            }),
            unchecked: Vec::new(),
            evidence: evidence(true),
            fetched_at: at(1_764_000_002_000_003),
        };
        let without = CompanyProfile {
            tax: None,
            unchecked: vec![OptionalGroup::Tax],
            ..with_tax.clone()
        };
        // A register that reports VAT only, and one that checked and reports no kind.
        let mut vat_only = with_tax.clone();
        vat_only.data.activity_codes = vec![
            ActivityCode::new("SN", "62.010"),
            ActivityCode::new("SN", "70.220"),
        ];
        vat_only.tax.as_mut().unwrap().registrations =
            TaxRegistrations::of(&[(TaxKind::Vat, true)]);
        let mut none_reported = with_tax.clone();
        none_reported.tax.as_mut().unwrap().registrations = TaxRegistrations::of(&[]);
        for p in [with_tax, without, vat_only, none_reported] {
            assert_eq!(profile_from_json(profile_to_json(&p).unwrap()).unwrap(), p);
        }
    }

    #[test]
    fn a_cached_document_written_before_unchecked_groups_reads_as_all_checked() {
        crate::install_schemes();
        let old = serde_json::json!({
            "orgnr": "5560021361", "name": "Exempel AB", "legal_form": "AB",
            "status": "active", "registered_at": null, "street": null, "postal_code": null,
            "city": null, "address_country": "SE", "sni": [], "employees_band": null,
            "report_year": null, "report_document_id": null,
            "f_skatt": true, "vat": true, "employer": false
        });
        let stored: StoredProfile = serde_json::from_value(old).unwrap();
        let (_, tax, unchecked) = stored.into_domain().unwrap();
        assert!(tax.is_some());
        assert!(unchecked.is_empty());
    }

    #[test]
    fn a_cached_document_written_before_activity_codes_reads_its_sni_as_sni_2007() {
        crate::install_schemes();
        let old = serde_json::json!({
            "orgnr": "5560021361", "name": "Exempel AB", "legal_form": "AB",
            "status": "active", "registered_at": null, "street": null, "postal_code": null,
            "city": null, "address_country": "SE", "sni": ["62010", "70220"],
            "employees_band": null, "report_year": null, "report_document_id": null,
            "f_skatt": true, "vat": false, "employer": false, "unchecked": []
        });
        let stored: StoredProfile = serde_json::from_value(old).unwrap();
        let (data, tax, _) = stored.into_domain().unwrap();
        assert_eq!(
            data.activity_codes,
            [
                ActivityCode::new(SNI_2007, "62010"),
                ActivityCode::new(SNI_2007, "70220")
            ]
        );
        let tax = tax.unwrap();
        assert_eq!(tax.get(TaxKind::BusinessTax), Some(true));
        assert_eq!(tax.get(TaxKind::Employer), Some(false));
        // Two of three kinds without the checked flag is a row no binary wrote.
        let odd = serde_json::json!({
            "orgnr": "5560021361", "name": "Exempel AB", "legal_form": "AB",
            "status": "active", "registered_at": null, "street": null, "postal_code": null,
            "city": null, "address_country": "SE", "sni": [], "employees_band": null,
            "report_year": null, "report_document_id": null, "f_skatt": true, "vat": true
        });
        let stored: StoredProfile = serde_json::from_value(odd).unwrap();
        assert!(stored.into_domain().is_err());
    }

    #[test]
    fn a_paid_object_round_trips_holding_refs_only() {
        crate::install_schemes();
        let data = PaidData::Officers(OfficerList {
            orgnr: "5560021361".into(),
            officers: vec![Officer {
                role: "Styrelseledamot".into(),
                role_code: Some("LE".into()),
                name: "Anna Exempel".into(),
                personal_number_ref: Some(IdentifierRef::generate()),
                appointed_at: NaiveDate::from_ymd_opt(2020, 1, 31),
            }],
            signatory_rule_text: None,
        });
        let json = paid_to_json(&data).unwrap();
        assert_eq!(json["kind"], "officers");
        assert_eq!(paid_from_json(json).unwrap(), data);
    }

    #[test]
    fn a_list_entry_round_trips_with_its_weak_aliases_and_partial_dates() {
        crate::install_schemes();
        use super::sanctions::StoredEntry;
        use domain::screening::sanctions::{
            EntryKind, ListEntry, ListedCountry, ListedDate, ListedIdentifier, ListedName,
            NameQuality,
        };
        let entry = ListEntry {
            source_entry_id: "QDi.001".into(),
            kind: EntryKind::Person,
            names: vec![
                ListedName {
                    full: "Exempel Person".into(),
                    quality: NameQuality::Strong,
                },
                ListedName {
                    full: "E.P.".into(),
                    quality: NameQuality::Weak,
                },
            ],
            birth_dates: vec![
                ListedDate::Day(NaiveDate::from_ymd_opt(1971, 6, 15).unwrap()),
                ListedDate::Year(1970),
            ],
            nationalities: vec![ListedCountry {
                code: Some("CD".into()),
                name: "Congo".into(),
            }],
            countries: vec![ListedCountry {
                code: None,
                name: "Somewhere".into(),
            }],
            identifiers: vec![ListedIdentifier {
                kind: "passport".into(),
                value: "X123".into(),
                country: None,
            }],
            programs: vec!["UN 1533".into()],
            listed_on: NaiveDate::from_ymd_opt(2005, 11, 1),
            exposure: None,
        };
        let json = serde_json::to_value(StoredEntry::from_domain(&entry)).unwrap();
        let stored: StoredEntry = serde_json::from_value(json).unwrap();
        let back = stored
            .into_domain(entry.source_entry_id.clone(), entry.kind.as_str())
            .unwrap();
        assert_eq!(back, entry);

        // A PEP list's entry keeps what makes the person exposed; an entry stored before PEP
        // lists (no `exposure`) reads as a sanctions entry.
        use domain::screening::sanctions::{
            Exposure, ExposureRole, HeldPosition, PepRelation, RelationKind, TermStatus,
        };
        let office = HeldPosition {
            title: "Member of the Test Parliament".into(),
            country: Some("SE".into()),
            start: Some(ListedDate::Month {
                year: 2014,
                month: 9,
            }),
            end: Some(ListedDate::Year(2022)),
            status: TermStatus::Ended,
        };
        let pep = ListEntry {
            exposure: Some(Exposure {
                roles: vec![ExposureRole::Pep, ExposureRole::Rca],
                positions: vec![office.clone()],
                relations: vec![PepRelation {
                    kind: RelationKind::Family,
                    relationship: Some("spouse".into()),
                    pep_entry_id: "p-2".into(),
                    pep_name: "Prova Testperson".into(),
                    pep_positions: vec![HeldPosition {
                        status: TermStatus::Unknown,
                        end: None,
                        ..office
                    }],
                }],
            }),
            ..entry.clone()
        };
        for e in [&pep, &entry] {
            let json = serde_json::to_value(StoredEntry::from_domain(e)).unwrap();
            assert_eq!(json.get("exposure").is_some(), e.exposure.is_some());
            let stored: StoredEntry = serde_json::from_value(json).unwrap();
            let back = stored
                .into_domain(e.source_entry_id.clone(), e.kind.as_str())
                .unwrap();
            assert_eq!(&back, e);
        }
    }
}
