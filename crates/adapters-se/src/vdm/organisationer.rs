//! `POST /organisationer`: the answer's field groups, their producers and `fel`s, mapped to
//! the register data a profile needs.

use super::{garbled, OP_ORGANISATIONER};
use chrono::NaiveDate;
use connector_kit::read_json;
use domain::companies::profile::{Address, CompanyStatus, RegistryFailure};
use serde::Deserialize;

/// What `/organisationer` contributes to a profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct VdmCompany {
    pub name: String,
    pub legal_form: String,
    pub status: CompanyStatus,
    pub registered_at: Option<NaiveDate>,
    pub address: Address,
    pub sni: Vec<String>,
}

const FINNS_EJ: &str = "ORGANISATION_FINNS_EJ";

#[derive(Deserialize, Debug)]
struct OrganisationerSvar {
    organisationer: Option<Vec<Organisation>>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(rename_all = "camelCase", default)]
struct Organisation {
    organisationsidentitet: Option<Organisationsidentitet>,
    namnskyddslopnummer: Option<i64>,
    organisationsnamn: Option<Organisationsnamn>,
    organisationsform: Option<KodGrupp>,
    avregistrerad_organisation: Option<AvregistreradOrganisation>,
    pagaende_avvecklings_eller_omstruktureringsforfarande: Option<Pagaende>,
    verksam_organisation: Option<KodGrupp>,
    organisationsdatum: Option<Organisationsdatum>,
    naringsgren_organisation: Option<Naringsgren>,
    postadress_organisation: Option<PostadressOrganisation>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(default)]
struct Organisationsidentitet {
    identitetsbeteckning: Option<String>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase", default)]
struct Fel {
    typ: Option<String>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(rename_all = "camelCase", default)]
struct Organisationsnamn {
    dataproducent: Option<String>,
    fel: Option<Fel>,
    organisationsnamn_lista: Option<Vec<Namn>>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(rename_all = "camelCase", default)]
struct Namn {
    namn: Option<String>,
    organisationsnamntyp: Option<Kod>,
    registreringsdatum: Option<String>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(default)]
struct Kod {
    kod: Option<String>,
}

/// `{kod, klartext, dataproducent, fel}` and `{kod, dataproducent, fel}`.
#[derive(Deserialize, Debug, Default)]
#[serde(default)]
struct KodGrupp {
    kod: Option<String>,
    dataproducent: Option<String>,
    fel: Option<Fel>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(default)]
struct AvregistreradOrganisation {
    avregistreringsdatum: Option<String>,
    dataproducent: Option<String>,
    fel: Option<Fel>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(rename_all = "camelCase", default)]
struct Pagaende {
    dataproducent: Option<String>,
    fel: Option<Fel>,
    pagaende_avvecklings_eller_omstruktureringsforfarande_lista: Option<Vec<Kod>>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(default)]
struct Organisationsdatum {
    registreringsdatum: Option<String>,
    dataproducent: Option<String>,
    fel: Option<Fel>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(default)]
struct Naringsgren {
    sni: Option<Vec<Kod>>,
    dataproducent: Option<String>,
    fel: Option<Fel>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(default)]
struct PostadressOrganisation {
    postadress: Option<Postadress>,
    dataproducent: Option<String>,
    fel: Option<Fel>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(default)]
struct Postadress {
    utdelningsadress: Option<String>,
    postnummer: Option<String>,
    postort: Option<String>,
    land: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Producer {
    Bolagsverket,
    Scb,
}

/// One field group the profile uses: who produced it and whether it failed.
struct GroupState<'a> {
    name: &'static str,
    producer: Producer,
    fel: Option<&'a Fel>,
}

fn producer(declared: Option<&String>, default: Producer) -> Producer {
    match declared.map(|s| s.trim()) {
        Some(p) if p.eq_ignore_ascii_case("SCB") => Producer::Scb,
        Some(p) if p.eq_ignore_ascii_case("Bolagsverket") => Producer::Bolagsverket,
        _ => default,
    }
}

fn fel_typ(f: &Fel) -> String {
    f.typ
        .as_deref()
        .map(|t| t.trim().to_ascii_uppercase())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "UNKNOWN".to_owned())
}

impl Organisation {
    /// The field groups the profile is built from.
    fn used_groups(&self) -> Vec<GroupState<'_>> {
        use Producer::{Bolagsverket as Bv, Scb};
        type Wrapper<'a> = Option<(Option<&'a String>, Option<&'a Fel>)>;
        fn w<'a>(p: &'a Option<String>, f: &'a Option<Fel>) -> Wrapper<'a> {
            Some((p.as_ref(), f.as_ref()))
        }
        let groups: [(&'static str, Wrapper<'_>, Producer); 8] = [
            (
                "organisationsnamn",
                self.organisationsnamn
                    .as_ref()
                    .and_then(|g| w(&g.dataproducent, &g.fel)),
                Bv,
            ),
            (
                "organisationsform",
                self.organisationsform
                    .as_ref()
                    .and_then(|g| w(&g.dataproducent, &g.fel)),
                Bv,
            ),
            (
                "avregistreradOrganisation",
                self.avregistrerad_organisation
                    .as_ref()
                    .and_then(|g| w(&g.dataproducent, &g.fel)),
                Bv,
            ),
            (
                "pagaendeAvvecklingsEllerOmstruktureringsforfarande",
                self.pagaende_avvecklings_eller_omstruktureringsforfarande
                    .as_ref()
                    .and_then(|g| w(&g.dataproducent, &g.fel)),
                Bv,
            ),
            (
                "organisationsdatum",
                self.organisationsdatum
                    .as_ref()
                    .and_then(|g| w(&g.dataproducent, &g.fel)),
                Bv,
            ),
            (
                "postadressOrganisation",
                self.postadress_organisation
                    .as_ref()
                    .and_then(|g| w(&g.dataproducent, &g.fel)),
                Bv,
            ),
            (
                "verksamOrganisation",
                self.verksam_organisation
                    .as_ref()
                    .and_then(|g| w(&g.dataproducent, &g.fel)),
                Scb,
            ),
            (
                "naringsgrenOrganisation",
                self.naringsgren_organisation
                    .as_ref()
                    .and_then(|g| w(&g.dataproducent, &g.fel)),
                Scb,
            ),
        ];
        groups
            .into_iter()
            .filter_map(|(name, g, default)| {
                g.map(|(declared, fel)| GroupState {
                    name,
                    producer: producer(declared, default),
                    fel,
                })
            })
            .collect()
    }
}

/// Digits only, and a 12-digit `16NNNNNNNNNN` orgnr read as its ten digits.
fn normalise_id(s: &str) -> String {
    let d: String = s.chars().filter(char::is_ascii_digit).collect();
    match d.strip_prefix("16") {
        Some(rest) if rest.len() == 10 => rest.to_owned(),
        _ => d,
    }
}

/// Reads a `/organisationer` answer for the identifier asked about.
pub(crate) fn read_organisationer(body: &[u8], id: &str) -> Result<VdmCompany, RegistryFailure> {
    let op = &OP_ORGANISATIONER;
    let svar: OrganisationerSvar = read_json(&op.label(), body)?;
    let orgs = svar
        .organisationer
        .ok_or_else(|| garbled(op, "the answer has no `organisationer`"))?;
    if orgs.is_empty() {
        return Err(RegistryFailure::NotFound);
    }
    let asked = normalise_id(id);
    for o in &orgs {
        let named = o
            .organisationsidentitet
            .as_ref()
            .and_then(|i| i.identitetsbeteckning.as_deref());
        if let Some(n) = named {
            if normalise_id(n) != asked {
                return Err(garbled(op, "the answer is about another organisation"));
            }
        }
    }
    // One element per legal entity; a sole trader has one per business
    // (`namnskyddslopnummer`): the lowest number (or the unnumbered one) is mapped.
    let org = orgs
        .iter()
        .enumerate()
        .min_by_key(|(i, o)| (o.namnskyddslopnummer.unwrap_or(0), *i))
        .map(|(_, o)| o)
        .ok_or_else(|| garbled(op, "the answer has no organisation"))?;
    if orgs.len() > 1 {
        tracing::debug!(
            operation = op.name,
            elements = orgs.len(),
            "several organisations in one answer; mapping the first business"
        );
    }
    map_organisation(org)
}

fn map_organisation(org: &Organisation) -> Result<VdmCompany, RegistryFailure> {
    let op = &OP_ORGANISATIONER;
    check_fel(org)?;

    // Name: the current FORETAGSNAMN (the newest registration when several are listed).
    let names: &[Namn] = org
        .organisationsnamn
        .as_ref()
        .and_then(|g| g.organisationsnamn_lista.as_deref())
        .unwrap_or(&[]);
    let name = current_name(names).ok_or_else(|| garbled(op, "no company name"))?;

    let legal_form = org
        .organisationsform
        .as_ref()
        .and_then(|g| g.kod.as_deref())
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .ok_or_else(|| garbled(op, "no legal form (organisationsform.kod)"))?
        .to_owned();

    let status = status_of(org);

    let registered_at = match org
        .organisationsdatum
        .as_ref()
        .and_then(|g| g.registreringsdatum.as_deref())
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        None => None,
        Some(s) => {
            Some(parse_date(s).ok_or_else(|| garbled(op, "registreringsdatum is not a date"))?)
        }
    };

    let address = org
        .postadress_organisation
        .as_ref()
        .and_then(|g| g.postadress.as_ref())
        .map(map_address)
        .unwrap_or_else(|| Address {
            country: "SE".to_owned(),
            ..Address::default()
        });

    let mut sni = Vec::new();
    let scb_knows_sni = org
        .naringsgren_organisation
        .as_ref()
        .is_some_and(|g| g.fel.is_none());
    if scb_knows_sni {
        for k in org
            .naringsgren_organisation
            .as_ref()
            .and_then(|g| g.sni.as_deref())
            .unwrap_or(&[])
        {
            let code = k.kod.as_deref().unwrap_or("").trim();
            if code.is_empty() {
                continue;
            }
            if code.len() != 5 || !code.bytes().all(|b| b.is_ascii_digit()) {
                return Err(garbled(op, "an SNI code is not five digits"));
            }
            sni.push(code.to_owned());
        }
    }

    Ok(VdmCompany {
        name,
        legal_form,
        status,
        registered_at,
        address,
        sni,
    })
}

/// The `fel` rules: Bolagsverket's failures first (another fel → Unavailable;
/// ORGANISATION_FINNS_EJ → NotFound), then SCB's (ORGANISATION_FINNS_EJ = SCB does not
/// know the company, not a failure; another fel → Unavailable).
fn check_fel(org: &Organisation) -> Result<(), RegistryFailure> {
    let groups = org.used_groups();
    let failing = |p: Producer| {
        groups
            .iter()
            .filter(move |g| g.producer == p)
            .filter_map(|g| g.fel.map(|f| (g.name, fel_typ(f))))
    };
    let unavailable = |group: &str, typ: &str| {
        RegistryFailure::Unavailable(format!(
            "{}: fel {typ} on {group}",
            OP_ORGANISATIONER.label()
        ))
    };
    if let Some((group, typ)) = failing(Producer::Bolagsverket).find(|(_, t)| t != FINNS_EJ) {
        return Err(unavailable(group, &typ));
    }
    if failing(Producer::Bolagsverket).next().is_some() {
        return Err(RegistryFailure::NotFound);
    }
    if let Some((group, typ)) = failing(Producer::Scb).find(|(_, t)| t != FINNS_EJ) {
        return Err(unavailable(group, &typ));
    }
    Ok(())
}

fn current_name(names: &[Namn]) -> Option<String> {
    let text = |n: &Namn| {
        n.namn
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let kind = |n: &Namn| {
        n.organisationsnamntyp
            .as_ref()
            .and_then(|t| t.kod.as_deref())
            .map(|k| k.trim().to_ascii_uppercase())
    };
    let mut best: Option<(&Namn, String)> = None;
    for n in names {
        if kind(n).as_deref() != Some("FORETAGSNAMN") {
            continue;
        }
        let Some(t) = text(n) else { continue };
        let newer = match &best {
            None => true,
            Some((b, _)) => {
                date_key(n.registreringsdatum.as_deref())
                    > date_key(b.registreringsdatum.as_deref())
            }
        };
        if newer {
            best = Some((n, t));
        }
    }
    if let Some((_, t)) = best {
        return Some(t);
    }
    // Untyped entries (SCB's name, when the answer has no typed list).
    names.iter().filter(|n| kind(n).is_none()).find_map(text)
}

fn date_key(s: Option<&str>) -> Option<NaiveDate> {
    s.and_then(parse_date)
}

fn status_of(org: &Organisation) -> CompanyStatus {
    let deregistered = org
        .avregistrerad_organisation
        .as_ref()
        .and_then(|g| g.avregistreringsdatum.as_deref())
        .is_some_and(|d| !d.trim().is_empty());
    if deregistered {
        return CompanyStatus::Deregistered;
    }
    let procedures: Vec<String> = org
        .pagaende_avvecklings_eller_omstruktureringsforfarande
        .as_ref()
        .and_then(|g| {
            g.pagaende_avvecklings_eller_omstruktureringsforfarande_lista
                .as_deref()
        })
        .unwrap_or(&[])
        .iter()
        .filter_map(|p| p.kod.as_deref())
        .map(|k| k.trim().to_ascii_uppercase())
        .collect();
    let has = |code: &str| procedures.iter().any(|p| p == code);
    if has("KK") {
        return CompanyStatus::Bankruptcy;
    }
    if has("LI") {
        return CompanyStatus::Liquidation;
    }
    if has("FR") {
        return CompanyStatus::Reorganisation;
    }
    let inactive = org
        .verksam_organisation
        .as_ref()
        .filter(|g| g.fel.is_none())
        .and_then(|g| g.kod.as_deref())
        .is_some_and(|k| k.trim().eq_ignore_ascii_case("NEJ"));
    if inactive {
        CompanyStatus::Inactive
    } else {
        CompanyStatus::Active
    }
}

fn map_address(p: &Postadress) -> Address {
    let field = |v: &Option<String>| {
        v.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    Address {
        street: field(&p.utdelningsadress),
        postal_code: field(&p.postnummer),
        city: field(&p.postort),
        country: country_code(p.land.as_deref()),
    }
}

/// The ISO 3166-1 alpha-2 code of a `land` as Bolagsverket writes it (Swedish names).
/// Absent or `Sverige` is `SE`; a name not in the table is `ZZ` (unknown region).
pub(crate) fn country_code(land: Option<&str>) -> String {
    let Some(l) = land.map(str::trim).filter(|l| !l.is_empty()) else {
        return "SE".to_owned();
    };
    if l.len() == 2 && l.bytes().all(|b| b.is_ascii_alphabetic()) {
        return l.to_ascii_uppercase();
    }
    const NAMES: &[(&str, &str)] = &[
        ("sverige", "SE"),
        ("sweden", "SE"),
        ("norge", "NO"),
        ("danmark", "DK"),
        ("finland", "FI"),
        ("island", "IS"),
        ("tyskland", "DE"),
        ("storbritannien", "GB"),
        ("förenade kungariket", "GB"),
        ("england", "GB"),
        ("irland", "IE"),
        ("nederländerna", "NL"),
        ("belgien", "BE"),
        ("luxemburg", "LU"),
        ("frankrike", "FR"),
        ("spanien", "ES"),
        ("portugal", "PT"),
        ("italien", "IT"),
        ("schweiz", "CH"),
        ("österrike", "AT"),
        ("polen", "PL"),
        ("estland", "EE"),
        ("lettland", "LV"),
        ("litauen", "LT"),
        ("usa", "US"),
        ("förenta staterna", "US"),
        ("kanada", "CA"),
        ("australien", "AU"),
        ("kina", "CN"),
        ("japan", "JP"),
        ("indien", "IN"),
    ];
    let lower = l.to_lowercase();
    NAMES
        .iter()
        .find(|(n, _)| *n == lower)
        .map(|(_, c)| (*c).to_owned())
        .unwrap_or_else(|| "ZZ".to_owned())
}

/// `2023-05-05` or `2023-05-05T00:00:00.000+00:00` (the date part is taken as written).
pub(crate) fn parse_date(s: &str) -> Option<NaiveDate> {
    let s = s.trim();
    let day = s.get(..10)?;
    if s.len() > 10 && !s[10..].starts_with(['T', ' ']) {
        return None;
    }
    NaiveDate::parse_from_str(day, "%Y-%m-%d").ok()
}

#[cfg(test)]
mod tests {
    use super::super::{sample, sample_json};
    use super::*;
    use serde_json::{json, Value};

    fn read(v: &Value, id: &str) -> Result<VdmCompany, RegistryFailure> {
        read_organisationer(&serde_json::to_vec(v).unwrap(), id)
    }

    fn date(s: &str) -> Option<NaiveDate> {
        Some(NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap())
    }

    #[test]
    fn ab_missing_at_scb_is_not_a_failure() {
        let c = read_organisationer(
            &sample("organisationer-5567223705-ab-scb-finns-ej.json"),
            "5567223705",
        )
        .unwrap();
        assert_eq!(
            c,
            VdmCompany {
                name: "Testbolaget Aktiebolag".into(),
                legal_form: "AB".into(),
                status: CompanyStatus::Active,
                registered_at: date("1897-02-08"),
                address: Address {
                    street: Some("Testvägen 1".into()),
                    postal_code: Some("11111".into()),
                    city: Some("TESTHOLMEN".into()),
                    country: "SE".into(),
                },
                sni: vec![],
            }
        );
    }

    #[test]
    fn hb() {
        let c = read_organisationer(&sample("organisationer-9124001992-hb.json"), "9124001992")
            .unwrap();
        assert_eq!(c.name, "Testbolag 16 bokat av SKV Handelsbolag");
        assert_eq!(c.legal_form, "HB");
        assert_eq!(c.status, CompanyStatus::Active);
        assert_eq!(c.registered_at, date("1972-03-16"));
        assert_eq!(c.sni, vec!["68204".to_owned()]);
        assert_eq!(
            c.address,
            Address {
                street: Some("Testgatan 1".into()),
                postal_code: Some("85181".into()),
                city: Some("SUNDSVALL".into()),
                country: "SE".into(),
            }
        );
    }

    #[test]
    fn ek() {
        let c = read_organisationer(&sample("organisationer-7020008350-ek.json"), "7020008350")
            .unwrap();
        assert_eq!(c.name, "Testbolag 25 bokat av SKV Ekonomisk förening");
        assert_eq!(c.legal_form, "EK");
        assert_eq!(c.registered_at, date("1950-04-01"));
        assert_eq!(c.sni, vec!["69101".to_owned()]);
        assert_eq!(c.status, CompanyStatus::Active);
    }

    #[test]
    fn not_registered_at_bolagsverket_is_not_found() {
        // SCB knows the person (name, SNI, address), Bolagsverket does not.
        assert_eq!(
            read_organisationer(
                &sample("organisationer-198101032384-finns-ej.json"),
                "198101032384"
            ),
            Err(RegistryFailure::NotFound)
        );
    }

    #[test]
    fn sole_trader_with_three_businesses_maps_the_first() {
        // The company route only sends 10-digit numbers; this checks the parser copes
        // with a several-element answer: the lowest namnskyddslopnummer is mapped.
        let c = read_organisationer(
            &sample("organisationer-198101052382-enskild-three.json"),
            "198101052382",
        )
        .unwrap();
        assert_eq!(c.name, "[REDACTED TEST NAME 1]");
        assert_eq!(c.legal_form, "E");
        assert_eq!(c.registered_at, date("2025-04-23"));
        assert_eq!(c.sni, vec!["02200".to_owned()]);
        let mut v = sample_json("organisationer-198101052382-enskild-three.json");
        v["organisationer"].as_array_mut().unwrap().reverse();
        assert_eq!(read(&v, "198101052382").unwrap().name, c.name);
    }

    #[test]
    fn an_answer_about_another_organisation_is_garbled() {
        assert!(matches!(
            read_organisationer(&sample("organisationer-9124001992-hb.json"), "5560021361"),
            Err(RegistryFailure::Garbled(_))
        ));
    }

    #[test]
    fn other_fel_is_unavailable() {
        for (group, producer) in [
            ("organisationsnamn", "Bolagsverket"),
            ("organisationsform", "Bolagsverket"),
            ("postadressOrganisation", "Bolagsverket"),
            ("naringsgrenOrganisation", "SCB"),
            ("verksamOrganisation", "SCB"),
        ] {
            for typ in ["OTILLGANGLIG_UPPGIFTSKALLA", "TIMEOUT", "OGILTIG_BEGARAN"] {
                let mut v = sample_json("organisationer-9124001992-hb.json");
                v["organisationer"][0][group]["fel"] = json!({"typ": typ, "felBeskrivning": "x"});
                v["organisationer"][0][group]["dataproducent"] = json!(producer);
                match read(&v, "9124001992") {
                    Err(RegistryFailure::Unavailable(m)) => {
                        assert!(m.contains(typ) && m.contains(group), "{m}");
                        assert!(!m.contains("9124001992"));
                    }
                    other => panic!("{group} {typ}: {other:?}"),
                }
            }
        }
    }

    #[test]
    fn fel_on_a_group_not_used_is_ignored() {
        let mut v = sample_json("organisationer-9124001992-hb.json");
        v["organisationer"][0]["verksamhetsbeskrivning"]["fel"] =
            json!({"typ": "TIMEOUT", "felBeskrivning": "x"});
        v["organisationer"][0]["juridiskForm"]["fel"] =
            json!({"typ": "OTILLGANGLIG_UPPGIFTSKALLA", "felBeskrivning": "x"});
        assert!(read(&v, "9124001992").is_ok());
    }

    #[test]
    fn bolagsverket_failing_wins_over_finns_ej() {
        let mut v = sample_json("organisationer-198101032384-finns-ej.json");
        v["organisationer"][0]["organisationsform"]["fel"]["typ"] = json!("TIMEOUT");
        assert!(matches!(
            read(&v, "198101032384"),
            Err(RegistryFailure::Unavailable(_))
        ));
    }

    #[test]
    fn statuses() {
        let base = sample_json("organisationer-9124001992-hb.json");
        let with = |f: &dyn Fn(&mut Value)| {
            let mut v = base.clone();
            f(&mut v["organisationer"][0]);
            read(&v, "9124001992").unwrap().status
        };
        let procedures = |codes: &[&str]| {
            let list: Vec<Value> = codes
                .iter()
                .map(|c| json!({"kod": c, "klartext": "", "fromDatum": "2024-01-02T00:00:00.000+00:00"}))
                .collect();
            json!({"dataproducent": "Bolagsverket", "fel": null,
                   "pagaendeAvvecklingsEllerOmstruktureringsforfarandeLista": list})
        };
        assert_eq!(with(&|_| {}), CompanyStatus::Active);
        assert_eq!(
            with(
                &|o| o["avregistreradOrganisation"] = json!({"avregistreringsdatum": "2023-05-05T00:00:00.000+00:00", "dataproducent": "Bolagsverket", "fel": null})
            ),
            CompanyStatus::Deregistered
        );
        assert_eq!(
            with(
                &|o| o["pagaendeAvvecklingsEllerOmstruktureringsforfarande"] = procedures(&["KK"])
            ),
            CompanyStatus::Bankruptcy
        );
        assert_eq!(
            with(
                &|o| o["pagaendeAvvecklingsEllerOmstruktureringsforfarande"] = procedures(&["LI"])
            ),
            CompanyStatus::Liquidation
        );
        assert_eq!(
            with(
                &|o| o["pagaendeAvvecklingsEllerOmstruktureringsforfarande"] = procedures(&["FR"])
            ),
            CompanyStatus::Reorganisation
        );
        assert_eq!(
            with(
                &|o| o["pagaendeAvvecklingsEllerOmstruktureringsforfarande"] =
                    procedures(&["FR", "LI", "KK"])
            ),
            CompanyStatus::Bankruptcy
        );
        assert_eq!(
            with(
                &|o| o["pagaendeAvvecklingsEllerOmstruktureringsforfarande"] =
                    procedures(&["FUOL"])
            ),
            CompanyStatus::Active
        );
        assert_eq!(
            with(&|o| o["verksamOrganisation"]["kod"] = json!("NEJ")),
            CompanyStatus::Inactive
        );
        assert_eq!(
            with(&|o| {
                o["verksamOrganisation"]["kod"] = json!("NEJ");
                o["pagaendeAvvecklingsEllerOmstruktureringsforfarande"] = procedures(&["LI"]);
            }),
            CompanyStatus::Liquidation
        );
    }

    #[test]
    fn the_current_foretagsnamn_is_the_name() {
        let mut v = sample_json("organisationer-9124001992-hb.json");
        v["organisationer"][0]["organisationsnamn"]["organisationsnamnLista"] = json!([
            {"namn": "Särskilt", "organisationsnamntyp": {"kod": "SARS_FORNAMN"}, "registreringsdatum": "2030-01-01"},
            {"namn": "Gammalt HB", "organisationsnamntyp": {"kod": "FORETAGSNAMN"}, "registreringsdatum": "2001-01-01"},
            {"namn": " Nytt HB ", "organisationsnamntyp": {"kod": "FORETAGSNAMN"}, "registreringsdatum": "2020-01-01"},
        ]);
        assert_eq!(read(&v, "9124001992").unwrap().name, "Nytt HB");
    }

    #[test]
    fn missing_required_fields_are_garbled() {
        let base = sample_json("organisationer-9124001992-hb.json");
        let garbled = |f: &dyn Fn(&mut Value)| {
            let mut v = base.clone();
            f(&mut v);
            matches!(read(&v, "9124001992"), Err(RegistryFailure::Garbled(_)))
        };
        assert!(garbled(
            &|v| v["organisationer"][0]["organisationsform"] = Value::Null
        ));
        assert!(garbled(
            &|v| v["organisationer"][0]["organisationsnamn"]["organisationsnamnLista"] = json!([])
        ));
        assert!(garbled(&|v| v["organisationer"][0]["organisationsdatum"]
            ["registreringsdatum"] =
            json!("1972-13-16")));
        assert!(garbled(&|v| v["organisationer"][0]
            ["naringsgrenOrganisation"]["sni"][0]["kod"] =
            json!("6820")));
        assert!(garbled(&|v| *v = json!({"foo": 1})));
        assert!(garbled(&|v| *v = json!([])));
        let body = sample("organisationer-9124001992-hb.json");
        assert!(matches!(
            read_organisationer(&body[..body.len() / 2], "9124001992"),
            Err(RegistryFailure::Garbled(_))
        ));
    }

    #[test]
    fn an_empty_list_is_not_found() {
        assert_eq!(
            read(&json!({"organisationer": []}), "5560021361"),
            Err(RegistryFailure::NotFound)
        );
    }

    #[test]
    fn addresses_and_countries() {
        assert_eq!(country_code(None), "SE");
        assert_eq!(country_code(Some("  ")), "SE");
        assert_eq!(country_code(Some("Sverige")), "SE");
        assert_eq!(country_code(Some("NORGE")), "NO");
        assert_eq!(country_code(Some("Österrike")), "AT");
        assert_eq!(country_code(Some("dk")), "DK");
        assert_eq!(country_code(Some("Atlantis")), "ZZ");
        let a = map_address(&Postadress {
            utdelningsadress: Some("  Gatan 2 ".into()),
            postnummer: Some(" 123 45".into()),
            postort: Some("".into()),
            land: Some("Finland".into()),
        });
        assert_eq!(
            a,
            Address {
                street: Some("Gatan 2".into()),
                postal_code: Some("123 45".into()),
                city: None,
                country: "FI".into(),
            }
        );
    }

    #[test]
    fn dates() {
        assert_eq!(parse_date("2023-05-05"), date("2023-05-05"));
        assert_eq!(
            parse_date("2023-05-05T00:00:00.000+00:00"),
            date("2023-05-05")
        );
        assert_eq!(parse_date("2023-05-05x"), None);
        assert_eq!(parse_date("05/05/2023"), None);
        assert_eq!(parse_date("2023-02-30"), None);
    }
}
