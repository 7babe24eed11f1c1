//! Who runs and owns each organisation: the officers (funktionärer) and signatory rule
//! (firmateckning) Bolagsverket's company information API serves, and the beneficial owners
//! (verkliga huvudmän) of its register of beneficial owners.
//!
//! Every person is one of Skatteverket's official test personal numbers (or test coordination
//! numbers), drawn from a small pool so that each person holds roles in several companies.
//! The data cover every role code the reference notes list, signatory texts of several
//! shapes, owners in every share band and companies that reported no beneficial owner.

use super::model::{
    BeneficialOwner, Company, KodKlartext, LegalForm, Officer, OwnershipRecord, PartyId,
    PersonName, Role, Signatory,
};
use crate::util::SplitMix64;

/// Every role code the reference notes list, with Bolagsverket's texts.
pub const ROLE_CODES: &[(&str, &str)] = &[
    ("LE", "Styrelseledamot"),
    ("OF", "Ordförande"),
    ("SU", "Styrelsesuppleant"),
    ("VD", "Verkställande direktör"),
    ("EVD", "Extern verkställande direktör"),
    ("VVD", "Vice verkställande direktör"),
    ("EVVD", "Extern vice verkställande direktör"),
    ("VLE", "Verkställande ledamot"),
    ("ARB", "Arbetstagarrepresentant"),
    ("FTR", "Företrädare"),
    ("VOF", "Vice ordförande"),
    ("REV", "Revisor"),
];

/// Share bands of the register of beneficial owners: code, text, and the band the service
/// reports.
pub const SHARE_BANDS: &[(&str, &str)] = &[
    ("OVER_25_TILL_50", "Mer än 25 procent men högst 50 procent"),
    ("OVER_50_TILL_75", "Mer än 50 procent men högst 75 procent"),
    (
        "OVER_75_TILL_100",
        "Mer än 75 procent men högst 100 procent",
    ),
    ("HELA", "100 procent"),
];

/// Kinds of control.
pub const CONTROL_KINDS: &[(&str, &str)] = &[
    ("AGANDE", "Ägande"),
    ("ROSTER", "Röster"),
    ("ANNAN_KONTROLL", "Kontroll på annat sätt"),
    (
        "LEDNING",
        "Ledande befattningshavare (ingen verklig huvudman har kunnat identifieras)",
    ),
];

/// Skatteverket's official test personal numbers used for officers and owners (besides the
/// sole traders' own numbers).
pub const OFFICER_PERSONNUMMER: &[&str] = &[
    "194002219113",
    "194108109168",
    "194210219269",
    "194402168597",
    "194506218983",
    "194611305469",
    "194804102665",
    "194907282315",
    "195101271848",
    "195301010350",
    "195410181969",
    "195605232775",
    "195809092652",
    "196009052991",
    "196209223152",
    "196411283499",
    "196708133076",
    "197911239262",
    "198202029289",
    "198404279294",
    "198607039990",
    "198809132387",
    "199001182386",
    "199002132398",
];

/// Skatteverket's official test coordination numbers used for officers.
pub const OFFICER_SAMORDNINGSNUMMER: &[&str] = &["197001782395", "197001902399", "197002822398"];

/// Audit firms appearing as `REV` (synthetic organisation numbers, Luhn-valid).
const AUDIT_FIRMS: &[(&str, &str)] = &[
    ("5560160680", "Revisionsbyrån Syntet Aktiebolag"),
    ("5566778808", "Provrevision i Sverige AB"),
];

const SIGNATORY_TEXTS: &[&str] = &[
    "Firman tecknas av styrelsen",
    "Firman tecknas av styrelsen. Firman tecknas två i förening av ledamöterna",
    "Firman tecknas av styrelsen. Firman tecknas av verkställande direktören ensam. Dessutom har \
     verkställande direktören rätt att teckna firman beträffande löpande förvaltningsåtgärder.",
    "Firman tecknas av styrelsen. Firman tecknas två i förening av styrelseledamöterna {a} och {b}",
    "Firman tecknas av styrelsen. Firman tecknas av {a} ensam eller två i förening av övriga \
     ledamöter",
];

fn person_name(nr: &str) -> PersonName {
    PersonName {
        fornamn: format!("FN{}", &nr[7..12]),
        efternamn: format!("EN{}", &nr[7..12]),
    }
}

fn role(kod: &str, date: Option<String>) -> Role {
    let klartext = ROLE_CODES
        .iter()
        .find(|(k, _)| *k == kod)
        .map(|(_, t)| *t)
        .unwrap_or("Okänd roll");
    Role {
        kod: kod.to_owned(),
        klartext: klartext.to_owned(),
        registreringsdatum: date,
    }
}

fn person_id(nr: &str) -> PartyId {
    let samordning = nr[6..8].parse::<u32>().is_ok_and(|d| d > 60);
    PartyId {
        typ: if samordning {
            "SAMORDNINGSNUMMER"
        } else {
            "PERSONNUMMER"
        }
        .to_owned(),
        nummer: nr.to_owned(),
    }
}

fn person_officer(nr: &str, roles: Vec<Role>) -> Officer {
    Officer {
        person: Some(person_name(nr)),
        organisation_name: None,
        identitet: Some(person_id(nr)),
        roles,
    }
}

/// The persons officers and owners are drawn from.
fn pool() -> Vec<&'static str> {
    OFFICER_PERSONNUMMER
        .iter()
        .chain(OFFICER_SAMORDNINGSNUMMER)
        .copied()
        .collect()
}

/// Fills officers, signatory rules and beneficial owners for every organisation registered
/// at Bolagsverket (sole traders and public bodies have none).
pub(super) fn assign(companies: &mut [Company], seed: u64) {
    let mut rng = SplitMix64::new(seed ^ 0x0FF1_CE45);
    let people = pool();
    let mut next = 0usize;
    let mut take = |rng: &mut SplitMix64| {
        // Walk the pool with a random stride, so every person recurs in several companies.
        next = (next + 1 + rng.range(0, 3) as usize) % people.len();
        people[next]
    };
    let mut n = 0usize;
    for c in companies.iter_mut() {
        if !c.is_at_bolagsverket()
            || matches!(c.legal_form, LegalForm::E | LegalForm::Public)
            || !c.officers.is_empty()
        {
            continue;
        }
        let registered = c
            .registrations
            .first()
            .and_then(|r| r.registreringsdatum.clone())
            .unwrap_or_else(|| "2010-01-01".to_owned());
        let since = |rng: &mut SplitMix64| -> Option<String> {
            // Most roles carry their registration date; a few older ones do not.
            if rng.chance(85) {
                let year: i32 = registered[..4].parse().unwrap_or(2010);
                let y = rng.range(year.max(1990) as u64, 2026) as i32;
                Some(format!(
                    "{y:04}-{:02}-{:02}",
                    rng.range(1, 12),
                    rng.range(1, 28)
                ))
            } else {
                None
            }
        };
        let mut officers = Vec::new();
        match c.legal_form {
            LegalForm::Hb | LegalForm::Kb => {
                // Partnerships: the partners represent the firm.
                for _ in 0..rng.range(2, 3) {
                    officers.push(person_officer(
                        take(&mut rng),
                        vec![role("FTR", since(&mut rng))],
                    ));
                }
            }
            _ => {
                let chair = take(&mut rng);
                officers.push(person_officer(
                    chair,
                    vec![role("OF", since(&mut rng)), role("LE", since(&mut rng))],
                ));
                for _ in 0..rng.range(0, 2) {
                    officers.push(person_officer(
                        take(&mut rng),
                        vec![role("LE", since(&mut rng))],
                    ));
                }
                for _ in 0..rng.range(0, 2) {
                    officers.push(person_officer(
                        take(&mut rng),
                        vec![role("SU", since(&mut rng))],
                    ));
                }
                // Management: cycle through the management role shapes.
                match n % 6 {
                    0 => officers.push(person_officer(
                        take(&mut rng),
                        vec![role("VD", since(&mut rng))],
                    )),
                    1 => {
                        officers.push(person_officer(
                            take(&mut rng),
                            vec![role("EVD", since(&mut rng))],
                        ));
                        officers.push(person_officer(
                            take(&mut rng),
                            vec![role("EVVD", since(&mut rng))],
                        ));
                    }
                    2 => {
                        officers.push(person_officer(
                            take(&mut rng),
                            vec![role("VD", since(&mut rng))],
                        ));
                        officers.push(person_officer(
                            take(&mut rng),
                            vec![role("VVD", since(&mut rng))],
                        ));
                    }
                    3 => officers.push(person_officer(
                        take(&mut rng),
                        vec![role("VLE", since(&mut rng)), role("LE", since(&mut rng))],
                    )),
                    4 => officers.push(person_officer(
                        take(&mut rng),
                        vec![role("VOF", since(&mut rng)), role("LE", since(&mut rng))],
                    )),
                    _ => officers.push(person_officer(
                        take(&mut rng),
                        vec![role("ARB", since(&mut rng))],
                    )),
                }
                if n.is_multiple_of(5) {
                    // A board member resident abroad, named without a Swedish number.
                    officers.push(Officer {
                        person: Some(PersonName {
                            fornamn: "Utländsk".to_owned(),
                            efternamn: format!("Ledamot {n}"),
                        }),
                        organisation_name: None,
                        identitet: None,
                        roles: vec![role("LE", since(&mut rng))],
                    });
                }
                if c.legal_form == LegalForm::Ab {
                    let (nr, name) = AUDIT_FIRMS[n % AUDIT_FIRMS.len()];
                    officers.push(Officer {
                        person: None,
                        organisation_name: Some(name.to_owned()),
                        identitet: Some(PartyId {
                            typ: "ORGANISATIONSNUMMER".to_owned(),
                            nummer: nr.to_owned(),
                        }),
                        roles: vec![role("REV", since(&mut rng))],
                    });
                }
            }
        }
        let names: Vec<String> = officers
            .iter()
            .filter_map(|o| o.person.as_ref())
            .map(|p| format!("{} {}", p.fornamn, p.efternamn))
            .collect();
        c.signatory = match (c.legal_form, n % 7) {
            (_, 6) => None,
            (LegalForm::Hb | LegalForm::Kb, _) => Some(Signatory {
                klartext: "Firman tecknas av bolagsmännen var för sig".to_owned(),
                prokuratext: None,
            }),
            (_, k) => {
                let text = SIGNATORY_TEXTS[k % SIGNATORY_TEXTS.len()]
                    .replace("{a}", names.first().map_or("", String::as_str))
                    .replace("{b}", names.get(1).map_or("", String::as_str));
                Some(Signatory {
                    klartext: text,
                    prokuratext: (k == 2)
                        .then(|| "Prokura: två i förening av prokuristerna".to_owned()),
                })
            }
        };
        c.officers = officers;
        c.ownership = Some(ownership(&mut rng, n, &mut take));
        n += 1;
    }
}

/// An ownership record in one of the shapes the register holds, cycling through them so
/// every share band, every kind of control and the "none reported" case occur.
fn ownership(
    rng: &mut SplitMix64,
    n: usize,
    take: &mut impl FnMut(&mut SplitMix64) -> &'static str,
) -> OwnershipRecord {
    let band = |i: usize| {
        let (k, t) = SHARE_BANDS[i];
        Some(KodKlartext::new(k, t))
    };
    let control = |i: usize| {
        let (k, t) = CONTROL_KINDS[i];
        KodKlartext::new(k, t)
    };
    let date = format!("2018-{:02}-{:02}", rng.range(1, 12), rng.range(1, 28));
    let mut owner = |rng: &mut SplitMix64, kontroll, omfattning| {
        let nr = take(rng);
        BeneficialOwner {
            name: person_name(nr),
            identitet: Some(person_id(nr)),
            medborgarskap: "SE".to_owned(),
            bosattningsland: "SE".to_owned(),
            kontroll,
            omfattning,
            registreringsdatum: date.clone(),
        }
    };
    let owners = match n % 8 {
        // One owner of all of it.
        0 => vec![owner(rng, control(0), band(3))],
        // Two owners: a majority and a minority.
        1 => vec![
            owner(rng, control(0), band(1)),
            owner(rng, control(0), band(0)),
        ],
        // Voting control above 75 percent.
        2 => vec![owner(rng, control(1), band(2))],
        // Control by other means (no share band).
        3 => vec![owner(rng, control(2), None)],
        // Nobody identified: the chief executive listed instead.
        4 => vec![owner(rng, control(3), None)],
        // A foreign owner without a Swedish number, and a Swedish one.
        5 => vec![
            BeneficialOwner {
                name: PersonName {
                    fornamn: "Utländsk".to_owned(),
                    efternamn: format!("Ägare {n}"),
                },
                identitet: None,
                medborgarskap: "NO".to_owned(),
                bosattningsland: "NO".to_owned(),
                kontroll: control(0),
                omfattning: band(0),
                registreringsdatum: date.clone(),
            },
            owner(rng, control(0), band(0)),
        ],
        // Reported that none could be identified / never reported.
        _ => Vec::new(),
    };
    OwnershipRecord {
        uppgift_saknas: owners.is_empty(),
        owners,
    }
}

impl Company {
    /// The organisations in which `nr` holds a role, with the roles.
    pub fn roles_of<'a>(&'a self, nr: &str) -> Option<(&'a Company, Vec<&'a Role>)> {
        let roles: Vec<&Role> = self
            .officers
            .iter()
            .filter(|o| o.identitet.as_ref().is_some_and(|i| i.nummer == nr))
            .flat_map(|o| o.roles.iter())
            .collect();
        (!roles.is_empty()).then_some((self, roles))
    }
}
