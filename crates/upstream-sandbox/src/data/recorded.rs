//! Bolagsverket's own TEST-environment numbers, with the behaviour recorded for each.

use super::codes::*;
use super::model::*;
use crate::util::uuid_from_seed;

fn testgatan() -> Postadress {
    Postadress {
        utdelningsadress: Some("Testgatan 1".into()),
        postnummer: Some("85181".into()),
        postort: Some("SUNDSVALL".into()),
        co_adress: None,
        land: None,
    }
}

fn sundsvall_seat() -> Seat {
    Seat {
        kommun_kod: "2281".into(),
        kommun: "Sundsvall".into(),
        lan_kod: "22".into(),
        lan: "Västernorrlands län".into(),
    }
}

fn scb_sundsvall(namn: &str, jf: KodKlartext, sni: &[&str], verksam: bool) -> ScbRecord {
    ScbRecord {
        namn: namn.to_owned(),
        juridisk_form: jf,
        sni: sni
            .iter()
            .map(|k| KodKlartext::new(k, sni_klartext(k).unwrap_or("")))
            .collect(),
        registreringsdatum: None,
        infort_hos_scb: Some(SCB_INFORT.into()),
        verksam,
        reklamsparr: false,
        postadress: Postadress {
            co_adress: Some(String::new()),
            ..testgatan()
        },
        seat: Some(sundsvall_seat()),
        employees_class: "2".into(),
        workplaces: 1,
    }
}

/// A Bolagsverket TEST-style registration ("bokat av SKV", Testgatan 1, SUNDSVALL).
fn bv_test_registration(
    form: LegalForm,
    name: &str,
    name_date: &str,
    reg_date: &str,
) -> BvRegistration {
    BvRegistration {
        namnskyddslopnummer: None,
        identitetstyp: Some(orgnr_typ()),
        organisationsform: KodKlartext::new(form.kod(), form.klartext()),
        names: vec![NameEntry::foretagsnamn(name, Some(name_date))],
        registreringsdatum: Some(reg_date.into()),
        verksamhetsbeskrivning: Some("Testverksamhet ".into()),
        postadress: Some(testgatan()),
        registreringsland: Some(sverige()),
        deregistration: None,
        proceedings: Vec::new(),
    }
}

pub(super) fn report(
    orgnr: &str,
    dokument_id: Option<&str>,
    year: i32,
    registrerad: &str,
    oms: i64,
    anstallda: u32,
) -> AnnualReport {
    let rorelse = oms / 12;
    let resultat = rorelse * 3 / 4;
    AnnualReport {
        dokument_id: dokument_id
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{}_paket", uuid_from_seed(&format!("{orgnr}:{year}")))),
        period_from: format!("{year}-01-01"),
        period_tom: format!("{year}-12-31"),
        registreringstidpunkt: registrerad.to_owned(),
        nettoomsattning: oms,
        rorelseresultat: rorelse,
        arets_resultat: resultat,
        eget_kapital: 50_000 + resultat * 2,
        summa_tillgangar: oms / 2 + 100_000,
        medelantalet_anstallda: anstallda,
    }
}

// One push per recorded company reads better than one giant vec![] literal.
#[allow(clippy::vec_init_then_push)]
pub(super) fn recorded_test_companies() -> Vec<Company> {
    let finns_ej_note = |s: &str| Some(s.to_owned());
    let mut out = Vec::new();

    // 5560021361: AB "Testbolag 4 bokat av SKV Aktiebolag" (no recording of its body:
    // synthesised in the style of the HB/EK recordings).
    out.push(Company {
        officers: Vec::new(),
        signatory: None,
        ownership: None,
        id: testnr::AB_TESTBOLAG_4.into(),
        id_kind: IdKind::Orgnr,
        legal_form: LegalForm::Ab,
        registrations: vec![bv_test_registration(
            LegalForm::Ab,
            "Testbolag 4 bokat av SKV Aktiebolag",
            "2024-03-28",
            "1969-06-19",
        )],
        scb: Some(ScbRecord {
            employees_class: "3".into(),
            ..scb_sundsvall(
                "Testbolag 4 bokat av SKV Aktiebolag",
                LegalForm::Ab.scb_juridisk_form(),
                &["62010", "62020"],
                true,
            )
        }),
        tax: Some(TaxRecord {
            f_skatt: true,
            moms: true,
            arbetsgivare: true,
        }),
        holder: None,
        annual_reports: vec![
            report(
                testnr::AB_TESTBOLAG_4,
                None,
                2024,
                "2025-05-14",
                4_812_000,
                6,
            ),
            report(
                testnr::AB_TESTBOLAG_4,
                None,
                2025,
                "2026-05-20",
                5_230_000,
                7,
            ),
        ],
        note: finns_ej_note("Bolagsverket TEST: AB Testbolag 4 (body synthesised)"),
    });

    // 5567223705: AB known to Bolagsverket, missing at SCB (recorded).
    out.push(Company {
        officers: Vec::new(),
        signatory: None,
        ownership: None,
        id: testnr::AB_MISSING_AT_SCB.into(),
        id_kind: IdKind::Orgnr,
        legal_form: LegalForm::Ab,
        registrations: vec![BvRegistration {
            namnskyddslopnummer: None,
            identitetstyp: Some(orgnr_typ()),
            organisationsform: KodKlartext::new("AB", "Aktiebolag"),
            names: vec![
                NameEntry {
                    namn: "Testbolaget Aktiebolag".into(),
                    typ: Some(KodKlartext::new("FORETAGSNAMN", "Företagsnamn")),
                    registreringsdatum: None,
                    verksamhetsbeskrivning: None,
                },
                NameEntry {
                    namn: "Blv Banken med privilier att automatisera alla transaktioner".into(),
                    typ: Some(KodKlartext::new("SARS_FORNAMN", "Särskilt företagsnamn")),
                    registreringsdatum: Some("2000-01-01".into()),
                    verksamhetsbeskrivning: Some(
                        "\\n       För den del av verksamheten som avser den regionala verksamheten vid respektive kontor och regionkontor."
                            .into(),
                    ),
                },
                NameEntry {
                    namn: "Blv PF Banken med privilier att automatisera alla transaktioner".into(),
                    typ: Some(KodKlartext::new(
                        "FORNAMN_FRSPRAK",
                        "Företagsnamn på främmande språk",
                    )),
                    registreringsdatum: Some("2000-01-01".into()),
                    verksamhetsbeskrivning: None,
                },
            ],
            registreringsdatum: Some("1897-02-08".into()),
            verksamhetsbeskrivning: Some(
                "Bolaget skall bedriva test samt idka därmed förenlig verksamhet.".into(),
            ),
            postadress: Some(Postadress {
                utdelningsadress: Some("Testvägen 1".into()),
                postnummer: Some("11111".into()),
                postort: Some("TESTHOLMEN".into()),
                co_adress: Some("c/o AB Testbolaget".into()),
                land: Some("Sverige".into()),
            }),
            registreringsland: Some(sverige()),
            deregistration: None,
            proceedings: Vec::new(),
        }],
        scb: None,
        tax: Some(TaxRecord {
            f_skatt: true,
            moms: true,
            arbetsgivare: false,
        }),
        holder: None,
        annual_reports: Vec::new(),
        note: finns_ej_note("Bolagsverket TEST: AB missing at SCB (recorded)"),
    });

    // 9124001992: HB (recorded; SCB says juridisk form 53 in TEST).
    out.push(Company {
        officers: Vec::new(),
        signatory: None,
        ownership: None,
        id: testnr::HB.into(),
        id_kind: IdKind::Orgnr,
        legal_form: LegalForm::Hb,
        registrations: vec![bv_test_registration(
            LegalForm::Hb,
            "Testbolag 16 bokat av SKV Handelsbolag",
            "2024-03-28",
            "1972-03-16",
        )],
        scb: Some(scb_sundsvall(
            "Testbolag 16 bokat av SKV Handelsbolag",
            KodKlartext::new("53", "Bostadsrättsföreningar"),
            &["68204"],
            true,
        )),
        tax: Some(TaxRecord {
            f_skatt: true,
            moms: true,
            arbetsgivare: false,
        }),
        holder: None,
        annual_reports: Vec::new(),
        note: finns_ej_note("Bolagsverket TEST: HB (recorded)"),
    });

    // 7164099017: BRF (no recording of its body: synthesised).
    out.push(Company {
        officers: Vec::new(),
        signatory: None,
        ownership: None,
        id: testnr::BRF.into(),
        id_kind: IdKind::Orgnr,
        legal_form: LegalForm::Brf,
        registrations: vec![bv_test_registration(
            LegalForm::Brf,
            "Bostadsrättsföreningen Testhuset bokad av SKV",
            "2024-03-28",
            "1964-09-01",
        )],
        scb: Some(scb_sundsvall(
            "Bostadsrättsföreningen Testhuset bokad av SKV",
            LegalForm::Brf.scb_juridisk_form(),
            &["68204"],
            true,
        )),
        tax: Some(TaxRecord {
            f_skatt: true,
            moms: false,
            arbetsgivare: false,
        }),
        holder: None,
        annual_reports: Vec::new(),
        note: finns_ej_note("Bolagsverket TEST: BRF (body synthesised)"),
    });

    // 7020008350: EK (recorded; SCB says juridisk form 49 in TEST).
    out.push(Company {
        officers: Vec::new(),
        signatory: None,
        ownership: None,
        id: testnr::EK.into(),
        id_kind: IdKind::Orgnr,
        legal_form: LegalForm::Ek,
        registrations: vec![bv_test_registration(
            LegalForm::Ek,
            "Testbolag 25 bokat av SKV Ekonomisk förening",
            "2024-03-28",
            "1950-04-01",
        )],
        scb: Some(scb_sundsvall(
            "Testbolag 25 bokat av SKV Ekonomisk förening",
            KodKlartext::new("49", "Övriga aktiebolag"),
            &["69101"],
            true,
        )),
        tax: Some(TaxRecord {
            f_skatt: true,
            moms: true,
            arbetsgivare: true,
        }),
        holder: None,
        annual_reports: Vec::new(),
        note: finns_ej_note("Bolagsverket TEST: EK (recorded)"),
    });

    // 198101032384: not registered at Bolagsverket; SCB knows the person (recorded).
    out.push(Company {
        officers: Vec::new(),
        signatory: None,
        ownership: None,
        id: testnr::NOT_REGISTERED.into(),
        id_kind: IdKind::Personnummer,
        legal_form: LegalForm::E,
        registrations: Vec::new(),
        scb: Some(ScbRecord {
            namn: "Testbolag_91".into(),
            juridisk_form: LegalForm::E.scb_juridisk_form(),
            sni: vec![KodKlartext::new("43320", "Byggnadssnickeriarbeten")],
            registreringsdatum: None,
            infort_hos_scb: Some(SCB_INFORT.into()),
            verksam: true,
            reklamsparr: false,
            postadress: Postadress {
                utdelningsadress: Some("23 ST JAMES BLVD BROMPTON S.A. 5007".into()),
                postnummer: Some("00000".into()),
                postort: Some("Utlandet".into()),
                co_adress: Some(String::new()),
                land: None,
            },
            seat: None,
            employees_class: "1".into(),
            workplaces: 1,
        }),
        tax: Some(TaxRecord {
            f_skatt: true,
            moms: false,
            arbetsgivare: false,
        }),
        holder: Some(PersonName {
            fornamn: "FN10003".into(),
            efternamn: "EN10003".into(),
        }),
        annual_reports: Vec::new(),
        note: finns_ej_note("Bolagsverket TEST: not registered at Bolagsverket (recorded)"),
    });

    // 193403223328: deregistered sole trader with two businesses (not recorded here:
    // synthesised).
    let dereg_business = |lop: u32, name: &str, reg: &str, avreg: &str| BvRegistration {
        namnskyddslopnummer: Some(lop),
        identitetstyp: Some(person_typ()),
        organisationsform: KodKlartext::new("E", "Enskild näringsverksamhet"),
        names: vec![NameEntry::foretagsnamn(name, Some(reg))],
        registreringsdatum: Some(reg.into()),
        verksamhetsbeskrivning: Some("Testverksamhet".into()),
        postadress: Some(testgatan()),
        registreringsland: Some(sverige()),
        deregistration: Some(Deregistration {
            datum: avreg.into(),
            orsak: avregistreringsorsak("VERKUPP"),
        }),
        proceedings: Vec::new(),
    };
    out.push(Company {
        officers: Vec::new(),
        signatory: None,
        ownership: None,
        id: testnr::SOLE_TRADER_DEREGISTERED_TWO.into(),
        id_kind: IdKind::Personnummer,
        legal_form: LegalForm::E,
        registrations: vec![
            dereg_business(1, "Testfirma Avregistrerad Ett", "1988-05-02", "2012-12-31"),
            dereg_business(
                2,
                "Testfirma Avregistrerad Två",
                "1995-10-16",
                "2019-06-30T00:00:00.000+00:00",
            ),
        ],
        scb: Some(ScbRecord {
            verksam: false,
            employees_class: "1".into(),
            ..scb_sundsvall(
                "Testfirma Avregistrerad Ett",
                LegalForm::E.scb_juridisk_form(),
                &["47710"],
                false,
            )
        }),
        tax: Some(TaxRecord {
            f_skatt: false,
            moms: false,
            arbetsgivare: false,
        }),
        holder: Some(PersonName {
            fornamn: "FN10007".into(),
            efternamn: "EN10007".into(),
        }),
        annual_reports: Vec::new(),
        note: finns_ej_note(
            "Bolagsverket TEST: deregistered sole trader, two businesses (synthesised)",
        ),
    });

    // 198101052382: sole trader with three businesses (recorded; names are the recording's
    // redaction placeholders).
    let business = |lop: u32, name: &str, name_date: &str| BvRegistration {
        namnskyddslopnummer: Some(lop),
        identitetstyp: Some(person_typ()),
        organisationsform: KodKlartext::new("E", "Enskild näringsverksamhet"),
        names: vec![NameEntry::foretagsnamn(name, Some(name_date))],
        registreringsdatum: Some("2025-04-23".into()),
        verksamhetsbeskrivning: Some("Testverksamhet".into()),
        postadress: Some(testgatan()),
        registreringsland: Some(sverige()),
        deregistration: None,
        proceedings: Vec::new(),
    };
    out.push(Company {
        officers: Vec::new(),
        signatory: None,
        ownership: None,
        id: testnr::SOLE_TRADER_THREE.into(),
        id_kind: IdKind::Personnummer,
        legal_form: LegalForm::E,
        registrations: vec![
            business(1, "[REDACTED TEST NAME 1]", "2025-04-24"),
            business(2, "[REDACTED TEST NAME 2]", "2025-04-24"),
            business(3, "[REDACTED TEST NAME 2]", "2025-04-23"),
        ],
        scb: Some(ScbRecord {
            employees_class: "1".into(),
            ..scb_sundsvall(
                "[REDACTED TEST NAME 1]",
                LegalForm::E.scb_juridisk_form(),
                &["02200"],
                true,
            )
        }),
        tax: Some(TaxRecord {
            f_skatt: true,
            moms: true,
            arbetsgivare: false,
        }),
        holder: Some(PersonName {
            fornamn: "FN10005".into(),
            efternamn: "EN10005".into(),
        }),
        annual_reports: Vec::new(),
        note: finns_ej_note("Bolagsverket TEST: sole trader, three businesses (recorded)"),
    });

    // 5561890038: the TEST /dokumentlista company. TEST answers /organisationer with 400;
    // the sandbox gives it a normal profile.
    let o = testnr::AB_THREE_REPORTS;
    out.push(Company {
        officers: Vec::new(),
        signatory: None,
        ownership: None,
        id: o.into(),
        id_kind: IdKind::Orgnr,
        legal_form: LegalForm::Ab,
        registrations: vec![bv_test_registration(
            LegalForm::Ab,
            "Testbolag med årsredovisningar Aktiebolag",
            "2019-11-05",
            "1979-02-12",
        )],
        scb: Some(ScbRecord {
            employees_class: "4".into(),
            ..scb_sundsvall(
                "Testbolag med årsredovisningar Aktiebolag",
                LegalForm::Ab.scb_juridisk_form(),
                &["70220", "62020"],
                true,
            )
        }),
        tax: Some(TaxRecord {
            f_skatt: true,
            moms: true,
            arbetsgivare: true,
        }),
        holder: None,
        annual_reports: vec![
            report(
                o,
                Some("7c9e96b6-bcef-488c-9d68-eae350547fbf_paket"),
                2020,
                "2021-07-30",
                11_480_000,
                12,
            ),
            report(
                o,
                Some("852f8ee2-eb16-404a-9c4e-77898688bede_paket"),
                2021,
                "2022-07-06",
                12_905_000,
                14,
            ),
            report(
                o,
                Some("02f54e4f-b17a-4cfd-a1cc-d8ab4eaa7f49_paket"),
                2022,
                "2023-06-27",
                14_112_000,
                15,
            ),
        ],
        note: finns_ej_note(
            "Bolagsverket TEST: the dokumentlista company, three reports (recorded ids)",
        ),
    });

    out
}
