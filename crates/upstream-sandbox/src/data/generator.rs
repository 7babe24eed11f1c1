//! The synthetic organisations: names, addresses, registrations and reports drawn from a
//! seeded, platform-independent PRNG, so the same seed gives the same data everywhere.

use super::codes::*;
use super::model::*;
use super::recorded::{recorded_test_companies, report};
use crate::util::{luhn_check_digit, luhn_valid, SplitMix64};
use std::collections::HashSet;

/// Cities: postort, first three digits of the postnummer, kommun code and name, län code and name.
const CITIES: &[(&str, &str, &str, &str, &str, &str)] = &[
    (
        "STOCKHOLM",
        "114",
        "0180",
        "Stockholm",
        "01",
        "Stockholms län",
    ),
    ("SOLNA", "171", "0184", "Solna", "01", "Stockholms län"),
    ("UPPSALA", "753", "0380", "Uppsala", "03", "Uppsala län"),
    (
        "LINKÖPING",
        "582",
        "0580",
        "Linköping",
        "05",
        "Östergötlands län",
    ),
    (
        "JÖNKÖPING",
        "553",
        "0680",
        "Jönköping",
        "06",
        "Jönköpings län",
    ),
    ("VISBY", "621", "0980", "Gotland", "09", "Gotlands län"),
    ("MALMÖ", "211", "1280", "Malmö", "12", "Skåne län"),
    ("LUND", "222", "1281", "Lund", "12", "Skåne län"),
    (
        "GÖTEBORG",
        "411",
        "1480",
        "Göteborg",
        "14",
        "Västra Götalands län",
    ),
    ("KARLSTAD", "652", "1780", "Karlstad", "17", "Värmlands län"),
    ("ÖREBRO", "702", "1880", "Örebro", "18", "Örebro län"),
    (
        "VÄSTERÅS",
        "722",
        "1980",
        "Västerås",
        "19",
        "Västmanlands län",
    ),
    ("GÄVLE", "803", "2180", "Gävle", "21", "Gävleborgs län"),
    (
        "SUNDSVALL",
        "852",
        "2281",
        "Sundsvall",
        "22",
        "Västernorrlands län",
    ),
    (
        "ÖSTERSUND",
        "831",
        "2380",
        "Östersund",
        "23",
        "Jämtlands län",
    ),
    ("UMEÅ", "903", "2480", "Umeå", "24", "Västerbottens län"),
    ("LULEÅ", "972", "2580", "Luleå", "25", "Norrbottens län"),
];

const STREETS: &[&str] = &[
    "Storgatan",
    "Kungsgatan",
    "Drottninggatan",
    "Järnvägsgatan",
    "Skolgatan",
    "Industrivägen",
    "Hamngatan",
    "Kyrkogatan",
    "Torggatan",
    "Verkstadsgatan",
    "Ringvägen",
    "Parkvägen",
    "Sjögatan",
    "Bruksgatan",
    "Fabriksgatan",
];

const STEMS: &[&str] = &[
    "Norrsken",
    "Söderljus",
    "Bergkvist",
    "Sjöbris",
    "Skogsglänta",
    "Ekbacken",
    "Lindhagen",
    "Strömsta",
    "Fjällvind",
    "Dalsänka",
    "Ängsmark",
    "Havsörn",
    "Stenkullen",
    "Granlunda",
    "Björkdal",
    "Älvnära",
    "Vikhamn",
    "Åsbo",
    "Kärrsjöbo",
    "Kvarnbäck",
    "Lingon",
    "Tallmo",
    "Rönnbär",
    "Hjortron",
    "Lövkulla",
    "Mossgården",
    "Gläntebo",
    "Solvikna",
    "Myrbacka",
    "Ugglebo",
];

const TRADES: &[(&str, &str)] = &[
    ("Bygg", "41200"),
    ("El", "43210"),
    ("Snickeri", "43320"),
    ("Måleri", "43341"),
    ("Bil", "45201"),
    ("Handel", "46900"),
    ("Mode", "47710"),
    ("Transport", "49410"),
    ("Hotell", "55101"),
    ("Krog", "56100"),
    ("Mjukvara", "58290"),
    ("Kod", "62010"),
    ("Data", "62020"),
    ("Hosting", "63110"),
    ("Holding", "64202"),
    ("Fastigheter", "68203"),
    ("Juridik", "69101"),
    ("Redovisning", "69201"),
    ("Konsult", "70220"),
    ("Arkitekter", "71110"),
    ("Reklam", "73111"),
    ("Städ", "81210"),
    ("Utbildning", "85600"),
    ("Tandvård", "86230"),
    ("Frisör", "96021"),
    ("Bageri", "10710"),
];

const PUBLIC_NAMES: &[&str] = &[
    "Sandlådeverket",
    "Myndigheten för syntetiska register",
    "Testmyndigheten för provdata",
    "Kommunalförbundet Testregionen",
    "Nämnden för fiktiva förvaltningar",
    "Provdataverket",
];

/// Skatteverket test personnummer (from the official list) used as synthetic sole traders.
pub(super) const TEST_PERSONNUMMER: &[&str] = &[
    "196010192679",
    "196309232962",
    "196404153832",
    "196410102880",
    "196801029288",
    "197001239297",
    "197907099282",
    "198204179298",
    "198302249274",
    "198710152391",
    "198905252386",
    "199001132399",
    "199005152385",
    "199009022386",
    "199105152392",
    "199106112387",
    "199106192397",
    "199108302382",
    "199208032384",
    "199301212396",
    "199305212384",
    "199305282395",
    "199308242396",
    "199309192392",
    "199310272381",
    "199504182396",
    "199512072381",
    "199604102393",
    "199608062395",
    "199611092389",
];

/// The recorded TEST companies, then synthetic organisations of every form, then a sole
/// trader for each of Skatteverket's test personal numbers.
pub(super) fn swedish_companies(seed: u64) -> Vec<Company> {
    let mut companies = recorded_test_companies();
    let mut used: HashSet<String> = companies.iter().map(|c| c.id.clone()).collect();
    let mut names: HashSet<String> = HashSet::new();
    let mut g = Generator {
        rng: SplitMix64::new(seed),
        used: &mut used,
        names: &mut names,
    };
    let plan: [(LegalForm, usize); 9] = [
        (LegalForm::Ab, 160),
        (LegalForm::Hb, 24),
        (LegalForm::Kb, 10),
        (LegalForm::Ek, 16),
        (LegalForm::Brf, 24),
        (LegalForm::Bf, 5),
        (LegalForm::I, 10),
        (LegalForm::S, 6),
        (LegalForm::Public, 6),
    ];
    for (form, n) in plan {
        for i in 0..n {
            companies.push(g.organisation(form, i));
        }
    }
    for (i, pnr) in TEST_PERSONNUMMER.iter().enumerate() {
        companies.push(g.sole_trader(pnr, i));
    }
    companies
}

struct Generator<'a> {
    rng: SplitMix64,
    used: &'a mut HashSet<String>,
    names: &'a mut HashSet<String>,
}

fn date(y: i32, m: u32, d: u32) -> String {
    format!("{y:04}-{m:02}-{d:02}")
}

impl Generator<'_> {
    fn random_date(&mut self, from_year: i32, to_year: i32) -> String {
        let y = self.rng.range(from_year as u64, to_year as u64) as i32;
        let m = self.rng.range(1, 12) as u32;
        let d = self.rng.range(1, 28) as u32;
        date(y, m, d)
    }

    fn orgnr(&mut self, form: LegalForm) -> String {
        loop {
            let head: String = match form {
                LegalForm::Ab => format!("55{}", self.rng.range(6, 9)),
                LegalForm::Hb | LegalForm::Kb => format!("96{}", self.rng.range(2, 9)),
                LegalForm::Ek => format!("76{}", self.rng.range(2, 9)),
                LegalForm::Brf => format!("7{}", *self.rng.pick(&["16", "17", "69"])),
                LegalForm::Bf => format!("71{}", self.rng.range(2, 5)),
                LegalForm::I => format!("80{}", self.rng.range(2, 4)),
                LegalForm::S => format!("8{}", *self.rng.pick(&["02", "17"])),
                LegalForm::Public => format!("2{}", *self.rng.pick(&["02", "12", "22"])),
                LegalForm::E => unreachable!("sole traders use personnummer"),
            };
            let nine = format!("{head}{}", self.rng.digits(6));
            let id = format!("{nine}{}", luhn_check_digit(&nine));
            debug_assert!(luhn_valid(&id));
            if self.used.insert(id.clone()) {
                return id;
            }
        }
    }

    fn unique_name(&mut self, make: impl Fn(&mut SplitMix64) -> String) -> String {
        for _ in 0..50 {
            let n = make(&mut self.rng);
            if self.names.insert(n.clone()) {
                return n;
            }
        }
        let base = make(&mut self.rng);
        let mut k = 2;
        loop {
            let n = format!("{base} {k}");
            if self.names.insert(n.clone()) {
                return n;
            }
            k += 1;
        }
    }

    fn address(&mut self) -> (Postadress, Seat) {
        let c = *self.rng.pick(CITIES);
        let street = *self.rng.pick(STREETS);
        let no = self.rng.range(1, 88);
        let postnummer = format!("{}{}", c.1, self.rng.digits(2));
        let co = if self.rng.chance(8) {
            Some(format!("c/o {} Förvaltning", self.rng.pick(STEMS)))
        } else {
            None
        };
        (
            Postadress {
                utdelningsadress: Some(format!("{street} {no}")),
                postnummer: Some(postnummer),
                postort: Some(c.0.to_owned()),
                co_adress: co,
                land: None,
            },
            Seat {
                kommun_kod: c.2.to_owned(),
                kommun: c.3.to_owned(),
                lan_kod: c.4.to_owned(),
                lan: c.5.to_owned(),
            },
        )
    }

    fn sni_list(&mut self, main: &str) -> Vec<KodKlartext> {
        let mut v = vec![KodKlartext::new(main, sni_klartext(main).unwrap_or(""))];
        let extra = if self.rng.chance(30) {
            self.rng.range(1, 2)
        } else {
            0
        };
        for _ in 0..extra {
            let (_, code) = *self.rng.pick(TRADES);
            if v.iter().all(|s| s.kod != code) {
                v.push(KodKlartext::new(code, sni_klartext(code).unwrap_or("")));
            }
        }
        v
    }

    fn employees_class(&mut self, form: LegalForm) -> String {
        let (lo, hi) = match form {
            LegalForm::Ab => (1, 8),
            LegalForm::Hb | LegalForm::Kb => (1, 4),
            LegalForm::Ek => (1, 5),
            LegalForm::Brf | LegalForm::Bf => (1, 2),
            LegalForm::E => (1, 3),
            LegalForm::I | LegalForm::S => (1, 4),
            LegalForm::Public => (5, 8),
        };
        // Small companies are the common case.
        let a = self.rng.range(lo, hi);
        let b = self.rng.range(lo, hi);
        a.min(b).to_string()
    }

    fn status_for(form: LegalForm, i: usize) -> CompanyStatus {
        if form == LegalForm::Public {
            return CompanyStatus::Active;
        }
        match i % 20 {
            3 | 16 => CompanyStatus::Deregistered,
            7 => CompanyStatus::Liquidation,
            11 => CompanyStatus::Bankruptcy,
            _ => CompanyStatus::Active,
        }
    }

    fn organisation(&mut self, form: LegalForm, i: usize) -> Company {
        let id = self.orgnr(form);
        let status = Self::status_for(form, i);
        // Missing at SCB: recently registered ABs and the odd other form.
        let missing_at_scb = status == CompanyStatus::Active
            && ((form == LegalForm::Ab && i % 25 == 5) || (form == LegalForm::Hb && i == 9));
        let (trade, main_sni) = *self.rng.pick(TRADES);
        let main_sni = match form {
            LegalForm::Brf => "68204",
            LegalForm::Bf => "68201",
            LegalForm::I => *self.rng.pick(&["93120", "94990"]),
            LegalForm::S => "94990",
            LegalForm::Public => "84110",
            _ => main_sni,
        };
        let name = self.unique_name(|r| {
            let stem = *r.pick(STEMS);
            match form {
                LegalForm::Ab => {
                    if r.chance(50) {
                        format!("{stem} {trade} AB")
                    } else {
                        format!("{stem}{} Aktiebolag", trade.to_lowercase())
                    }
                }
                LegalForm::Hb => format!("{stem} {trade} Handelsbolag"),
                LegalForm::Kb => format!("{stem} {trade} Kommanditbolag"),
                LegalForm::Ek => format!("{stem} {trade} ekonomisk förening"),
                LegalForm::Brf => format!(
                    "Bostadsrättsföreningen {stem}{}",
                    r.pick(&["gården", "huset", "backen", " 2", " 4"])
                ),
                LegalForm::Bf => format!("Bostadsföreningen {stem}"),
                LegalForm::I => format!(
                    "{} {stem}",
                    r.pick(&["Idrottsföreningen", "Föreningen", "Intresseföreningen"])
                ),
                LegalForm::S => format!("Stiftelsen {stem}fonden"),
                LegalForm::Public => (*r.pick(PUBLIC_NAMES)).to_owned(),
                LegalForm::E => unreachable!(),
            }
        });
        let reg_date = if missing_at_scb {
            date(
                2026,
                self.rng.range(6, 9) as u32,
                self.rng.range(1, 28) as u32,
            )
        } else {
            self.random_date(1950, 2024)
        };
        let reg_year: i32 = reg_date[..4].parse().unwrap_or(2000);
        let (postadress, seat) = self.address();
        let sni = self.sni_list(main_sni);
        let employees = if status == CompanyStatus::Deregistered {
            "1".to_owned()
        } else {
            self.employees_class(form)
        };

        let deregistration = (status == CompanyStatus::Deregistered).then(|| {
            let y = self.rng.range((reg_year + 1).max(2012) as u64, 2026) as i32;
            let y = y.min(2026);
            let m = if y == 2026 {
                self.rng.range(1, 8)
            } else {
                self.rng.range(1, 12)
            } as u32;
            let d = date(y, m, self.rng.range(1, 28) as u32);
            let kod = match form {
                LegalForm::Ab => *self.rng.pick(&["LIAV", "KKAV", "FUAV"]),
                LegalForm::Ek | LegalForm::Brf | LegalForm::Bf => *self.rng.pick(&["LIAV", "FUAV"]),
                _ => "AVREG",
            };
            Deregistration {
                datum: if i.is_multiple_of(2) {
                    d
                } else {
                    format!("{d}T00:00:00.000+00:00")
                },
                orsak: avregistreringsorsak(kod),
            }
        });
        let proceedings = match status {
            CompanyStatus::Liquidation => vec![proceeding("LI", &self.random_date(2024, 2025))],
            CompanyStatus::Bankruptcy => vec![proceeding("KK", &self.random_date(2024, 2025))],
            _ => Vec::new(),
        };
        let dereg_year = deregistration
            .as_ref()
            .map(|d| d.datum[..4].parse::<i32>().unwrap_or(2026));

        let mut names = vec![NameEntry::foretagsnamn(&name, Some(&reg_date))];
        if form == LegalForm::Ab && i % 17 == 4 {
            names.push(NameEntry {
                namn: format!("{} {}", self.rng.pick(STEMS), trade),
                typ: Some(KodKlartext::new("SARS_FORNAMN", "Särskilt företagsnamn")),
                registreringsdatum: Some(self.random_date(reg_year.clamp(2000, 2025), 2025)),
                verksamhetsbeskrivning: Some(format!(
                    "För den del av verksamheten som avser {}.",
                    sni_klartext(main_sni).unwrap_or("handel").to_lowercase()
                )),
            });
        }
        let beskrivning = match form {
            LegalForm::Brf | LegalForm::Bf => "Föreningen har till ändamål att främja medlemmarnas ekonomiska intressen genom att upplåta lägenheter åt medlemmarna.".to_owned(),
            LegalForm::I => "Föreningen har till ändamål att samla medlemmarna kring gemensam verksamhet.".to_owned(),
            LegalForm::S => "Stiftelsen har till ändamål att dela ut bidrag enligt stiftelseförordnandet.".to_owned(),
            _ => format!(
                "Bolaget skall bedriva {} samt därmed förenlig verksamhet.",
                sni_klartext(main_sni).unwrap_or("handel").to_lowercase()
            ),
        };
        let registrations = if form == LegalForm::Public {
            Vec::new()
        } else {
            vec![BvRegistration {
                namnskyddslopnummer: None,
                identitetstyp: Some(orgnr_typ()),
                organisationsform: KodKlartext::new(form.kod(), form.klartext()),
                names,
                registreringsdatum: Some(reg_date.clone()),
                verksamhetsbeskrivning: Some(beskrivning),
                postadress: Some(postadress.clone()),
                registreringsland: Some(sverige()),
                deregistration,
                proceedings,
            }]
        };
        let scb = (!missing_at_scb).then(|| ScbRecord {
            namn: name.clone(),
            juridisk_form: form.scb_juridisk_form(),
            sni,
            registreringsdatum: Some(reg_date.clone()),
            infort_hos_scb: Some(SCB_INFORT.into()),
            verksam: status != CompanyStatus::Deregistered,
            reklamsparr: self.rng.chance(20),
            postadress: Postadress {
                co_adress: Some(postadress.co_adress.clone().unwrap_or_default()),
                land: None,
                ..postadress.clone()
            },
            seat: Some(seat),
            workplaces: if employees.parse::<u32>().unwrap_or(1) >= 5 {
                self.rng.range(2, 6) as u32
            } else {
                1
            },
            employees_class: employees.clone(),
        });
        let has_staff = employees != "1";
        let tax = Some(match status {
            CompanyStatus::Deregistered => TaxRecord {
                f_skatt: false,
                moms: false,
                arbetsgivare: false,
            },
            CompanyStatus::Bankruptcy => TaxRecord {
                f_skatt: false,
                moms: true,
                arbetsgivare: false,
            },
            _ => TaxRecord {
                f_skatt: !matches!(form, LegalForm::Public | LegalForm::I) || self.rng.chance(30),
                moms: !matches!(form, LegalForm::Brf | LegalForm::Public) && self.rng.chance(85),
                arbetsgivare: has_staff,
            },
        });

        // Annual reports: ABs 0..3 by index, some EK/BRF one or two.
        let wanted = match form {
            LegalForm::Ab if !missing_at_scb => i % 4,
            LegalForm::Ek if i.is_multiple_of(3) => 1,
            LegalForm::Brf if i.is_multiple_of(2) => 2,
            _ => 0,
        };
        let last_year = dereg_year.map(|y| y - 1).unwrap_or(2025).min(2025);
        let (lo, hi) = employees_class_range(&employees);
        let base_staff = ((lo + hi) / 2).max(1);
        let mut annual_reports = Vec::new();
        let first_year = (last_year - wanted as i32 + 1).max(reg_year + 1);
        let mut oms: i64 = i64::from(base_staff) * self.rng.range(700, 1_800) as i64 * 1_000;
        for year in first_year..=last_year {
            oms = oms * self.rng.range(90, 118) as i64 / 100;
            let staff = if hi == 0 {
                0
            } else {
                self.rng.range(u64::from(lo.max(1)), u64::from(hi)) as u32
            };
            let registered = date(
                year + 1,
                self.rng.range(2, 7) as u32,
                self.rng.range(1, 28) as u32,
            );
            let mut r = report(&id, None, year, &registered, oms, staff);
            // Vary margins a little (some losses).
            let margin = self.rng.range(0, 24) as i64 - 6;
            r.rorelseresultat = oms * margin / 100;
            r.arets_resultat = r.rorelseresultat * 3 / 4;
            r.eget_kapital = 25_000 + oms / 10 + r.arets_resultat;
            r.summa_tillgangar = r.eget_kapital.max(0) + oms / 3;
            annual_reports.push(r);
        }

        Company {
            officers: Vec::new(),

            signatory: None,

            ownership: None,
            id,
            id_kind: IdKind::Orgnr,
            legal_form: form,
            registrations,
            scb,
            tax,
            holder: None,
            annual_reports,
            note: None,
        }
    }

    fn sole_trader(&mut self, pnr: &str, i: usize) -> Company {
        self.used.insert(pnr.to_owned());
        let businesses = match i % 7 {
            2 => 3,
            5 => 2,
            _ => 1,
        };
        let all_deregistered = i == 4 || i == 17;
        let (postadress, seat) = self.address();
        let mut registrations = Vec::new();
        let mut first_name = String::new();
        let mut first_sni = "43320";
        for lop in 1..=businesses {
            let (trade, sni) = *self.rng.pick(TRADES);
            if lop == 1 {
                first_sni = sni;
            }
            let name = self.unique_name(|r| {
                format!(
                    "{} {}{}",
                    r.pick(STEMS),
                    trade,
                    r.pick(&["", " i Norr", " & Service", " Produktion"])
                )
            });
            if lop == 1 {
                first_name = name.clone();
            }
            let reg = self.random_date(1990, 2024);
            let reg_year: i32 = reg[..4].parse().unwrap_or(2000);
            let deregistered =
                all_deregistered || (businesses > 1 && lop == 2 && i.is_multiple_of(3));
            registrations.push(BvRegistration {
                namnskyddslopnummer: Some(lop as u32),
                identitetstyp: Some(person_typ()),
                organisationsform: KodKlartext::new("E", "Enskild näringsverksamhet"),
                names: vec![NameEntry::foretagsnamn(&name, Some(&reg))],
                registreringsdatum: Some(reg.clone()),
                verksamhetsbeskrivning: Some(format!(
                    "{} samt därmed förenlig verksamhet.",
                    sni_klartext(sni).unwrap_or("Handel")
                )),
                postadress: Some(postadress.clone()),
                registreringsland: Some(sverige()),
                deregistration: deregistered.then(|| Deregistration {
                    datum: self.random_date((reg_year + 1).min(2025), 2025),
                    orsak: avregistreringsorsak(if i.is_multiple_of(2) {
                        "VERKUPP"
                    } else {
                        "AVREG"
                    }),
                }),
                proceedings: Vec::new(),
            });
        }
        let employees = if all_deregistered {
            "1".to_owned()
        } else {
            self.employees_class(LegalForm::E)
        };
        let scb = Some(ScbRecord {
            namn: first_name,
            juridisk_form: LegalForm::E.scb_juridisk_form(),
            sni: self.sni_list(first_sni),
            registreringsdatum: registrations[0].registreringsdatum.clone(),
            infort_hos_scb: Some(SCB_INFORT.into()),
            verksam: !all_deregistered,
            reklamsparr: self.rng.chance(30),
            postadress: Postadress {
                co_adress: Some(postadress.co_adress.clone().unwrap_or_default()),
                land: None,
                ..postadress
            },
            seat: Some(seat),
            employees_class: employees.clone(),
            workplaces: 1,
        });
        let tax = Some(if all_deregistered {
            TaxRecord {
                f_skatt: false,
                moms: false,
                arbetsgivare: false,
            }
        } else {
            TaxRecord {
                f_skatt: true,
                moms: self.rng.chance(75),
                arbetsgivare: employees != "1",
            }
        });
        Company {
            officers: Vec::new(),
            signatory: None,
            ownership: None,
            id: pnr.to_owned(),
            id_kind: IdKind::Personnummer,
            legal_form: LegalForm::E,
            registrations,
            scb,
            tax,
            holder: Some(PersonName {
                fornamn: format!("FN{}", &pnr[7..12]),
                efternamn: format!("EN{}", &pnr[7..12]),
            }),
            annual_reports: Vec::new(),
            note: None,
        }
    }
}
