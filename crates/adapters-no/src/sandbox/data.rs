//! The sandbox's register: a few hundred synthetic entities generated from a fixed seed
//! (the same on every machine), the recorded real entities under their real numbers, and
//! the update feed's first entries.
//!
//! Synthetic numbers start with `3`: the register issues organisasjonsnummer in the 8 and 9
//! series, so no synthetic number is a real entity's. Every one carries a valid check digit.
//! Synthetic persons are built from [`SYNTHETIC_GIVEN_NAMES`] and the invented surnames
//! [`SYNTHETIC_SURNAMES`], with invented birth dates; streets are invented too
//! (`Eksempelveien 12`).

use super::wire::{
    self, Adresse, Bostyrer, HistoriskNavn, Href, Kapital, Kode, KodeLink, Links, Paategning,
    Patch, Person, PersonNavn, Rolle, RolleEnhet, Rollegruppe, Roller,
};
use crate::orgnr::check_digit;
use chrono::{DateTime, Duration, NaiveDate, NaiveTime, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Number};
use std::collections::{BTreeMap, BTreeSet};

/// The date the synthetic register describes.
pub const AS_OF: &str = "2026-10-01";

/// Given names of the synthetic persons (common Norwegian names; no surname of a real
/// person goes with them, see [`SYNTHETIC_SURNAMES`]).
pub const SYNTHETIC_GIVEN_NAMES: [&str; 30] = [
    "Kari", "Ola", "Ingrid", "Lars", "Anne", "Per", "Marit", "Jon", "Liv", "Nils", "Sigrid",
    "Knut", "Hilde", "Tor", "Eva", "Erik", "Astrid", "Bjørn", "Tone", "Arne", "Silje", "Håkon",
    "Ragnhild", "Øystein", "Solveig", "Eirik", "Gunnhild", "Magnus", "Ida", "Sondre",
];

/// Invented surnames ("test", "trial", "synthetic", "sample", "fictitious", ...), so a
/// synthetic person cannot be mistaken for a real one. The recorded role answers in
/// `testdata/roles/` use them too.
pub const SYNTHETIC_SURNAMES: [&str; 20] = [
    "Testesen",
    "Utprøvsen",
    "Prøvestad",
    "Syntetberg",
    "Mønsterli",
    "Oppdiktnes",
    "Fiktivdal",
    "Eksempelli",
    "Datadal",
    "Prøvheim",
    "Forsøksvik",
    "Simulsen",
    "Tenkeby",
    "Liksomrud",
    "Modellstad",
    "Utkastnes",
    "Skissebakken",
    "Attrappvik",
    "Kopiås",
    "Prototangen",
];

const STREETS: [&str; 10] = [
    "Eksempelveien",
    "Prøvegata",
    "Testbakken",
    "Fiktivvegen",
    "Syntetgata",
    "Mønsterveien",
    "Oppdiktet allé",
    "Modellvegen",
    "Utkastgata",
    "Skissebakken",
];

const PLACES: [&str; 30] = [
    "NORDVIK",
    "FJELLHEIM",
    "SJØBAKKEN",
    "STORELV",
    "VESTLI",
    "BRATTÅS",
    "MYRVOLD",
    "SKOGLUND",
    "HAVBLIKK",
    "TINDEN",
    "LYNGHEIM",
    "FURUSET",
    "BJØRKLI",
    "ELVEBAKK",
    "KVITFJELL",
    "RØDBERG",
    "STEINSVIK",
    "ÅSHEIM",
    "LIABAKKEN",
    "NYSTRAND",
    "MOLAND",
    "GRØNLI",
    "HØGSET",
    "ISDAL",
    "JUVET",
    "KLEIVA",
    "LØVÅS",
    "ØSTVIK",
    "VÅGEN",
    "SOLSTRAND",
];

/// A trade: the word in a company name, the word in an ENK's name, an English word (NUF)
/// and its industry code (SN2007) with text.
struct Trade {
    word: &'static str,
    enk: &'static str,
    en: &'static str,
    nace: (&'static str, &'static str),
}

const fn trade(
    word: &'static str,
    enk: &'static str,
    en: &'static str,
    nace: (&'static str, &'static str),
) -> Trade {
    Trade {
        word,
        enk,
        en,
        nace,
    }
}

const TRADES: [Trade; 24] = [
    trade(
        "BYGG",
        "BYGG",
        "CONSTRUCTION",
        ("41.200", "Oppføring av bygninger"),
    ),
    trade("RØR", "RØRLEGGER", "PLUMBING", ("43.220", "VVS-arbeid")),
    trade(
        "ELEKTRO",
        "ELEKTRO",
        "ELECTRICAL",
        ("43.210", "Elektrisk installasjonsarbeid"),
    ),
    trade(
        "DATA",
        "DATA",
        "SOFTWARE",
        ("62.010", "Programmeringstjenester"),
    ),
    trade(
        "IT-KONSULT",
        "IT-KONSULENT",
        "IT CONSULTING",
        (
            "62.020",
            "Konsulentvirksomhet tilknyttet informasjonsteknologi",
        ),
    ),
    trade(
        "REGNSKAP",
        "REGNSKAP",
        "ACCOUNTING",
        ("69.201", "Regnskap og bokføring"),
    ),
    trade("REVISJON", "REVISJON", "AUDIT", ("69.202", "Revisjon")),
    trade(
        "RÅDGIVNING",
        "RÅDGIVNING",
        "ADVISORY",
        (
            "70.220",
            "Bedriftsrådgivning og annen administrativ rådgivning",
        ),
    ),
    trade(
        "EIENDOM",
        "UTLEIE",
        "PROPERTY",
        ("68.209", "Utleie av egen eller leid fast eiendom ellers"),
    ),
    trade(
        "HOLDING",
        "INVEST",
        "HOLDING",
        ("64.200", "Holdingselskaper"),
    ),
    trade(
        "TRANSPORT",
        "TRANSPORT",
        "LOGISTICS",
        ("49.410", "Godstransport på vei"),
    ),
    trade(
        "KAFÉ",
        "KAFÉ",
        "CATERING",
        ("56.101", "Drift av restauranter og kafeer"),
    ),
    trade(
        "HANDEL",
        "HANDEL",
        "TRADING",
        ("47.190", "Butikkhandel med bredt vareutvalg ellers"),
    ),
    trade(
        "HAVBRUK",
        "FISKEOPPDRETT",
        "AQUACULTURE",
        (
            "03.211",
            "Produksjon av matfisk og skalldyr i hav- og kystbasert fiskeoppdrett",
        ),
    ),
    trade(
        "SJØMAT",
        "FISK",
        "SEAFOOD",
        (
            "10.200",
            "Bearbeiding og konservering av fisk, skalldyr og bløtdyr",
        ),
    ),
    trade("MALING", "MALER", "PAINTING", ("43.341", "Malerarbeid")),
    trade(
        "RENHOLD",
        "RENHOLD",
        "CLEANING",
        ("81.210", "Rengjøring av bygninger"),
    ),
    trade(
        "TANNKLINIKK",
        "TANNLEGE",
        "DENTAL",
        ("86.230", "Tannhelsetjenester"),
    ),
    trade("FRISØR", "FRISØR", "HAIRDRESSING", ("96.021", "Frisering")),
    trade(
        "DESIGN",
        "DESIGN",
        "DESIGN",
        ("74.100", "Spesialisert designvirksomhet"),
    ),
    trade(
        "INGENIØR",
        "INGENIØRTJENESTER",
        "ENGINEERING",
        ("71.129", "Annen teknisk konsulentvirksomhet"),
    ),
    trade(
        "BILVERKSTED",
        "BILREPARASJON",
        "AUTOMOTIVE",
        (
            "45.200",
            "Vedlikehold og reparasjon av motorvogner, unntatt motorsykler",
        ),
    ),
    trade(
        "HOTELL",
        "GJESTEGÅRD",
        "HOSPITALITY",
        (
            "55.101",
            "Drift av hoteller, pensjonater og moteller med restaurant",
        ),
    ),
    trade(
        "KURS",
        "KURS",
        "TRAINING",
        ("85.599", "Annen undervisning ikke nevnt annet sted"),
    ),
];

/// Municipalities: kommunenummer, kommune, postnummer, poststed.
const PLACES_NO: [(&str, &str, &str, &str); 18] = [
    ("0301", "OSLO", "0150", "OSLO"),
    ("0301", "OSLO", "0484", "OSLO"),
    ("4601", "BERGEN", "5003", "BERGEN"),
    ("5001", "TRONDHEIM", "7011", "TRONDHEIM"),
    ("1103", "STAVANGER", "4006", "STAVANGER"),
    ("4204", "KRISTIANSAND", "4611", "KRISTIANSAND S"),
    ("5501", "TROMSØ", "9008", "TROMSØ"),
    ("3201", "BÆRUM", "1337", "SANDVIKA"),
    ("1108", "SANDNES", "4306", "SANDNES"),
    ("3301", "DRAMMEN", "3015", "DRAMMEN"),
    ("3107", "FREDRIKSTAD", "1606", "FREDRIKSTAD"),
    ("1804", "BODØ", "8006", "BODØ"),
    ("1508", "ÅLESUND", "6002", "ÅLESUND"),
    ("3405", "LILLEHAMMER", "2609", "LILLEHAMMER"),
    ("4203", "ARENDAL", "4836", "ARENDAL"),
    ("1813", "BRØNNØY", "8900", "BRØNNØYSUND"),
    ("4642", "LÆRDAL", "6887", "LÆRDAL"),
    ("5601", "ALTA", "9510", "ALTA"),
];

/// NUF home countries: land code, land (Norwegian), prefix word, company suffix, the
/// postcode-and-place line.
const HOMES: [(&str, &str, &str, &str, &str); 6] = [
    ("SE", "Sverige", "NORDIC", "AB", "114 35 STOCKHOLM"),
    ("DK", "Danmark", "BALTIC SEA", "ApS", "2100 KØBENHAVN Ø"),
    ("DE", "Tyskland", "CONTINENTAL", "GmbH", "20095 HAMBURG"),
    ("PL", "Polen", "AMBER", "Sp. z o.o.", "80-001 GDAŃSK"),
    ("LT", "Litauen", "NEMUNAS", "UAB", "LT-01103 VILNIUS"),
    ("GB", "Storbritannia", "ATLANTIC", "LTD", "LONDON EC1A 1BB"),
];

/// Role types and groups: code and the register's text.
const ROLE_TEXT: [(&str, &str); 12] = [
    ("DAGL", "Daglig leder"),
    ("STYR", "Styre"),
    ("LEDE", "Styrets leder"),
    ("MEDL", "Styremedlem"),
    ("VARA", "Varamedlem"),
    ("REVI", "Revisor"),
    ("REGN", "Regnskapsfører"),
    ("INNH", "Innehaver"),
    ("DELT", "Deltakere"),
    ("DTSO", "Deltaker med fullt ansvar"),
    ("BOBE", "Bostyrer"),
    ("REPR", "Norsk representant for utenlandsk enhet"),
];

fn role_text(kode: &str) -> &'static str {
    ROLE_TEXT
        .iter()
        .find(|(k, _)| *k == kode)
        .map(|(_, t)| *t)
        .unwrap_or("Ukjent")
}

/// A legal form the generator makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    As,
    Asa,
    Enk,
    Nuf,
    Ans,
}

impl Form {
    fn kode(self) -> &'static str {
        match self {
            Form::As => "AS",
            Form::Asa => "ASA",
            Form::Enk => "ENK",
            Form::Nuf => "NUF",
            Form::Ans => "ANS",
        }
    }

    fn beskrivelse(self) -> &'static str {
        match self {
            Form::As => "Aksjeselskap",
            Form::Asa => "Allmennaksjeselskap",
            Form::Enk => "Enkeltpersonforetak",
            Form::Nuf => "Norskregistrert utenlandsk foretak",
            Form::Ans => "Ansvarlig selskap med solidarisk ansvar",
        }
    }
}

/// The status a synthetic entity is generated in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plan {
    Active,
    /// Active, with restructuring negotiations opened.
    Restructuring,
    /// Active, registered in the feed's first window (its `Ny` entry), industry `00.000`.
    New,
    Bankrupt,
    WindingUp,
    Compulsory,
    Deleted,
    Gone,
}

/// How many of each: 290 synthetic entities.
const PLAN: [(Form, Plan, usize); 20] = [
    (Form::As, Plan::Active, 138),
    (Form::As, Plan::Restructuring, 2),
    (Form::As, Plan::New, 6),
    (Form::As, Plan::Bankrupt, 8),
    (Form::As, Plan::WindingUp, 8),
    (Form::As, Plan::Compulsory, 6),
    (Form::As, Plan::Deleted, 10),
    (Form::As, Plan::Gone, 2),
    (Form::Asa, Plan::Active, 9),
    (Form::Asa, Plan::Bankrupt, 1),
    (Form::Enk, Plan::Active, 44),
    (Form::Enk, Plan::Deleted, 4),
    (Form::Enk, Plan::Gone, 2),
    (Form::Nuf, Plan::Active, 22),
    (Form::Nuf, Plan::WindingUp, 1),
    (Form::Nuf, Plan::Deleted, 2),
    (Form::Ans, Plan::Active, 21),
    (Form::Ans, Plan::Bankrupt, 1),
    (Form::Ans, Plan::Compulsory, 1),
    (Form::Ans, Plan::Deleted, 2),
];

/// The recorded real entities, served byte for byte (links rewritten) until a control
/// route changes them.
const RECORDED_ENTITIES: [&str; 9] = [
    include_str!("../../testdata/entity/enhet-923609016-equinor.json"),
    include_str!("../../testdata/entity/enhet-974760673-orgl-registerenheten.json"),
    include_str!("../../testdata/entity/enhet-984851006-dnb.json"),
    include_str!("../../testdata/entity/enhet-915330193-konkurs.json"),
    include_str!("../../testdata/entity/enhet-931744682-tvangsopplost.json"),
    include_str!("../../testdata/entity/enhet-983830196-rekonstruksjon.json"),
    include_str!("../../testdata/entity/enhet-935864879-paategning.json"),
    include_str!("../../testdata/entity/enhet-997808533-nuf.json"),
    include_str!("../../testdata/entity/enhet-989566733-slettet.json"),
];

/// Recorded role answers (persons replaced with synthetic ones, see testdata/PROVENANCE.md).
const RECORDED_ROLES: [(&str, &str); 2] = [
    (
        "923609016",
        include_str!(
            "../../testdata/roles/roller-923609016-equinor-2026-03.synthetic-persons.json"
        ),
    ),
    (
        "915330193",
        include_str!(
            "../../testdata/roles/roller-915330193-konkurs-bostyrer.synthetic-persons.json"
        ),
    ),
];

/// Every recorded entity (for the round-trip tests).
#[cfg(test)]
pub(crate) const RECORDED_ENTITIES_FOR_TESTS: [&str; 9] = RECORDED_ENTITIES;

/// Every recorded roles answer, the fictitious documentation examples included (for the
/// round-trip tests).
#[cfg(test)]
pub(crate) const RECORDED_ROLES_FOR_TESTS: [&str; 4] = [
    RECORDED_ROLES[0].1,
    RECORDED_ROLES[1].1,
    include_str!("../../testdata/roles/roller-810004622-valgtav.docs-example.json"),
    include_str!("../../testdata/roles/roller-810005912-deltakere.docs-example.json"),
];

/// The specification's example of a withdrawn entity (410), served as reconstructed.
pub(crate) const RECORDED_GONE: (&str, &str) = (
    "509100675",
    include_str!("../../testdata/errors/gone-410-enhet.reconstructed.json"),
);

/// A recorded feed page: Equinor's real entries become the feed's oldest ones.
const RECORDED_FEED: &str =
    include_str!("../../testdata/feeds/oppdateringer-enheter-923609016-includeChanges.json");

/// The first id of the synthetic feed entries (after the recorded ones).
const FIRST_SYNTHETIC_ID: u64 = 25_300_001;

/// The feed's first window: synthetic entries are dated in it.
fn window() -> (NaiveDate, NaiveDate) {
    (ymd(2026, 9, 15), ymd(2026, 9, 30))
}

fn ymd(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap_or_default()
}

fn day(d: NaiveDate) -> String {
    d.format("%Y-%m-%d").to_string()
}

/// An entity in the sandbox.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Company {
    pub enhet: wire::Enhet,
    /// Deleted on this date: served as `SlettetEnhet`.
    pub slettedato: Option<String>,
    /// Withdrawn from open data on this date: served as 410.
    pub gone: Option<String>,
    /// Its roles (`None`: no role groups).
    pub roller: Option<Roller>,
    /// The recorded entity body, served while nothing changed it.
    pub recorded: Option<&'static str>,
    /// The recorded roles body, served while nothing changed them.
    pub recorded_roller: Option<&'static str>,
    /// Whether it is one of the generated entities.
    pub synthetic: bool,
}

impl Company {
    /// `active`, `winding_up`, `compulsory_dissolution`, `bankrupt`, `deleted` or `gone`,
    /// and the date the status began (by the client's precedence).
    pub fn status(&self) -> (&'static str, Option<String>) {
        let e = &self.enhet;
        if let Some(d) = &self.gone {
            ("gone", Some(d.clone()))
        } else if let Some(d) = &self.slettedato {
            ("deleted", Some(d.clone()))
        } else if e.konkurs {
            ("bankrupt", e.konkursdato.clone())
        } else if e.under_tvangsavvikling_eller_tvangsopplosning {
            let grounds = [
                &e.tvangsavviklet_pga_manglende_sletting_dato,
                &e.tvangsopplost_pga_manglende_daglig_leder_dato,
                &e.tvangsopplost_pga_manglende_revisor_dato,
                &e.tvangsopplost_pga_manglende_regnskap_dato,
                &e.tvangsopplost_pga_mangelfullt_styre_dato,
            ];
            (
                "compulsory_dissolution",
                grounds.into_iter().flatten().min().cloned(),
            )
        } else if e.under_avvikling {
            ("winding_up", e.under_avvikling_dato.clone())
        } else {
            ("active", None)
        }
    }

    /// How many roles it has (0 when deleted or withdrawn: none are served).
    pub fn role_count(&self) -> usize {
        if self.gone.is_some() || self.slettedato.is_some() {
            return 0;
        }
        self.roller
            .as_ref()
            .map_or(0, |r| r.rollegrupper.iter().map(|g| g.roller.len()).sum())
    }
}

/// One feed entry.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FeedEntry {
    pub id: u64,
    pub dato: DateTime<Utc>,
    pub orgnr: String,
    pub endringstype: String,
    pub endringer: Vec<Patch>,
}

/// Numbers for each kind of entity in the standard data set (`GET
/// /control/plugins/no-brreg/handy`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandyNumbers {
    /// An active AS with employees counted, VAT, a general manager, a board and an auditor.
    pub active_as: String,
    pub active_asa: String,
    /// An active ENK (its name names its synthetic owner, the `INNH` role).
    pub active_enk: String,
    /// An active NUF with a foreign business address.
    pub active_nuf: String,
    /// An active ANS with its partners (`DELT`/`DTSO`).
    pub active_ans: String,
    /// An active AS under restructuring negotiations.
    pub restructuring: String,
    /// An AS registered in the feed's first window (a `Ny` entry), industry `00.000`.
    pub new_in_feed: String,
    /// An AS with 1 to 4 employees (`harRegistrertAntallAnsatte` without a count).
    pub one_to_four_employees: String,
    /// An AS with no employees registered.
    pub no_employees: String,
    /// A bankrupt AS (with a trustee, `BOBE`).
    pub bankrupt: String,
    pub winding_up: String,
    pub compulsory_dissolution: String,
    /// A deleted AS (`SlettetEnhet`).
    pub deleted: String,
    /// A withdrawn AS (410).
    pub gone: String,
    /// A synthetic auditing firm (`REVI` holder).
    pub auditor: String,
    /// A valid number the register does not know (404).
    pub unknown: String,
    /// The recorded real entities.
    pub recorded_active: String,
    pub recorded_bankrupt: String,
    pub recorded_compulsory_dissolution: String,
    pub recorded_deleted: String,
    pub recorded_gone: String,
}

/// The whole register.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Register {
    pub companies: BTreeMap<String, Company>,
    pub feed: Vec<FeedEntry>,
    pub handy: HandyNumbers,
}

/// A small deterministic generator (SplitMix64): the same on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }

    fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }

    fn date(&mut self, from: NaiveDate, to: NaiveDate) -> NaiveDate {
        let span = (to - from).num_days().max(0) as u64;
        from + Duration::days(self.below(span + 1) as i64)
    }

    /// A time of day with milliseconds, as the feed's time stamps have.
    fn instant(&mut self, d: NaiveDate) -> DateTime<Utc> {
        let ms = self.below(24 * 3600 * 1000);
        let t = NaiveTime::from_num_seconds_from_midnight_opt(
            (ms / 1000) as u32,
            ((ms % 1000) * 1_000_000) as u32,
        )
        .unwrap_or_default();
        Utc.from_utc_datetime(&d.and_time(t))
    }
}

struct Generator {
    rng: Rng,
    used_numbers: BTreeSet<String>,
    used_names: BTreeSet<String>,
    auditors: Vec<(String, String)>,
    accountants: Vec<(String, String)>,
    feed: Vec<FeedEntry>,
}

/// A synthetic person.
fn person(rng: &mut Rng, from_year: i32, to_year: i32) -> Person {
    let fornavn = rng.pick(&SYNTHETIC_GIVEN_NAMES).to_string();
    let mellomnavn = rng
        .chance(12)
        .then(|| rng.pick(&SYNTHETIC_GIVEN_NAMES).to_string());
    let etternavn = rng.pick(&SYNTHETIC_SURNAMES).to_string();
    let born = rng.date(ymd(from_year, 1, 1), ymd(to_year, 12, 31));
    Person {
        fodselsdato: day(born),
        navn: PersonNavn {
            fornavn,
            mellomnavn,
            etternavn,
        },
        er_doed: false,
    }
}

fn role(kode: &str, rekkefolge: u64) -> Rolle {
    Rolle {
        rolletype: KodeLink::of("roller/rolletyper", kode, role_text(kode)),
        person: None,
        enhet: None,
        bostyrer: None,
        valgt_av: None,
        ansvarsandel: None,
        fratraadt: None,
        avregistrert: false,
        rekkefolge,
    }
}

fn person_role(kode: &str, rekkefolge: u64, p: Person) -> Rolle {
    Rolle {
        person: Some(p),
        ..role(kode, rekkefolge)
    }
}

fn entity_role(kode: &str, orgnr: &str, navn: &str, godkjenning: &str) -> Rolle {
    Rolle {
        enhet: Some(RolleEnhet {
            organisasjonsnummer: orgnr.to_owned(),
            organisasjonsform: KodeLink::of("organisasjonsformer", "AS", "Aksjeselskap"),
            navn: vec![navn.to_owned()],
            godkjenningsstatus: Some(godkjenning.to_owned()),
            er_slettet: false,
            links: Links::own(format!("/enheter/{orgnr}")),
        }),
        ..role(kode, 0)
    }
}

fn group(kode: &str, sist_endret: &str, roller: Vec<Rolle>) -> Rollegruppe {
    Rollegruppe {
        gruppetype: KodeLink::of("roller/rollegruppetyper", kode, role_text(kode)),
        sist_endret: sist_endret.to_owned(),
        roller,
    }
}

/// The trustee group a bankruptcy adds.
pub(crate) fn trustee_group(rng_seed: u64, sist_endret: &str) -> Rollegruppe {
    let mut rng = Rng(rng_seed);
    let given = rng.pick(&SYNTHETIC_GIVEN_NAMES);
    let surname = rng.pick(&SYNTHETIC_SURNAMES);
    let postboks = rng.between(1, 999);
    group(
        "BOBE",
        sist_endret,
        vec![Rolle {
            bostyrer: Some(Bostyrer {
                navn: format!("Advokat {given} {surname}"),
                postadresse: Some(Adresse {
                    landkode: Some("NO".into()),
                    postnummer: Some("0101".into()),
                    poststed: Some("OSLO".into()),
                    adresse: vec![format!("Postboks {postboks} Sentrum")],
                    ..Adresse::default()
                }),
                er_doed: false,
            }),
            ..role("BOBE", 0)
        }],
    )
}

fn number(n: u64) -> Number {
    Number::from(n)
}

impl Generator {
    fn orgnr(&mut self) -> String {
        loop {
            let mut stem = [0u8; 8];
            stem[0] = 3;
            for d in stem.iter_mut().skip(1) {
                *d = self.rng.below(10) as u8;
            }
            let Some(c) = check_digit(stem) else {
                continue;
            };
            let n: String = stem
                .iter()
                .chain(std::iter::once(&c))
                .map(|d| char::from(b'0' + d))
                .collect();
            if self.used_numbers.insert(n.clone()) {
                return n;
            }
        }
    }

    fn unique_name(&mut self, make: impl Fn(&mut Rng) -> String) -> String {
        for _ in 0..100 {
            let n = make(&mut self.rng);
            if self.used_names.insert(n.clone()) {
                return n;
            }
        }
        let base = make(&mut self.rng);
        (2..)
            .map(|k| format!("{base} {k}"))
            .find(|n| self.used_names.insert(n.clone()))
            .unwrap_or(base)
    }

    fn address(&mut self) -> Adresse {
        let (knr, kommune, postnr, poststed) = *self.rng.pick(&PLACES_NO);
        let street = self.rng.pick(&STREETS);
        let house = self.rng.between(1, 120);
        Adresse {
            land: Some("Norge".into()),
            landkode: Some("NO".into()),
            postnummer: Some(postnr.into()),
            poststed: Some(poststed.into()),
            adresse: vec![format!("{street} {house}")],
            kommune: Some(kommune.into()),
            kommunenummer: Some(knr.into()),
        }
    }

    fn status_date(&mut self, in_window: bool) -> NaiveDate {
        let (from, to) = window();
        if in_window {
            self.rng.date(from, to)
        } else {
            self.rng.date(ymd(2024, 6, 1), ymd(2026, 9, 14))
        }
    }

    fn feed(&mut self, d: NaiveDate, orgnr: &str, endringstype: &str, endringer: Vec<Patch>) {
        let dato = self.rng.instant(d);
        self.feed.push(FeedEntry {
            id: 0,
            dato,
            orgnr: orgnr.to_owned(),
            endringstype: endringstype.to_owned(),
            endringer,
        });
    }

    /// One synthetic entity of `form` in `plan`; `nth` counts within the plan (the first
    /// two of a status are dated in the feed's window).
    fn company(
        &mut self,
        form: Form,
        plan: Plan,
        nth: usize,
        forced_trade: Option<usize>,
    ) -> Company {
        let orgnr = self.orgnr();
        let trade_at = forced_trade.unwrap_or_else(|| self.rng.below(TRADES.len() as u64) as usize);
        let trade = &TRADES[trade_at];
        let owner = (form == Form::Enk).then(|| person(&mut self.rng, 1950, 2000));
        let home = (form == Form::Nuf).then(|| *self.rng.pick(&HOMES));
        let navn = match (form, &owner, home) {
            (Form::Enk, Some(p), _) => {
                let full = format!("{} {} {}", p.navn.fornavn, p.navn.etternavn, trade.enk);
                self.unique_name(|_| full.to_uppercase())
            }
            (Form::Nuf, _, Some((_, _, prefix, suffix, _))) => {
                self.unique_name(|_| format!("{prefix} {} {suffix}", trade.en))
            }
            _ => {
                let suffix = form.kode();
                self.unique_name(|rng| format!("{} {} {suffix}", rng.pick(&PLACES), trade.word))
            }
        };
        let (window_from, window_to) = window();
        let registered = if plan == Plan::New {
            self.rng.date(window_from, window_to)
        } else {
            self.rng.date(ymd(1992, 1, 1), ymd(2026, 6, 30))
        };
        let registered_s = day(registered);
        let founded = registered - Duration::days(self.rng.between(0, 45) as i64);

        // Employees by the register's rule: none, 1-4 (flag without a count), or a count.
        let (count, flag) = match (form, plan) {
            (_, Plan::New) => (None, false),
            (Form::Asa, _) => (Some(self.rng.between(40, 6000)), true),
            (Form::Enk | Form::Ans, _) => match self.rng.below(10) {
                0..=5 => (None, false),
                6..=8 => (None, true),
                _ => (Some(self.rng.between(5, 12)), true),
            },
            _ => match self.rng.below(10) {
                0..=3 => (None, false),
                4..=6 => (None, true),
                _ => (Some(self.rng.between(5, 250)), true),
            },
        };
        let employee_dates = flag.then(|| {
            let d = self.rng.date(ymd(2026, 7, 1), ymd(2026, 9, 14));
            (
                day(d),
                day(d - Duration::days(self.rng.between(2, 5) as i64)),
            )
        });

        let vat = plan != Plan::New
            && match form {
                Form::Enk => self.rng.chance(40),
                _ => self.rng.chance(75),
            };
        let vat_date = vat.then(|| day(self.rng.date(registered, ymd(2026, 8, 31))));

        let nace = if plan == Plan::New {
            Kode {
                kode: "00.000".into(),
                beskrivelse: "Uoppgitt".into(),
            }
        } else {
            Kode {
                kode: trade.nace.0.into(),
                beskrivelse: trade.nace.1.into(),
            }
        };
        let nace2 = (plan != Plan::New && self.rng.chance(15)).then(|| {
            let other = self.rng.pick(&TRADES);
            Kode {
                kode: other.nace.0.into(),
                beskrivelse: other.nace.1.into(),
            }
        });
        let nace2 = nace2.filter(|k| k.kode != nace.kode);

        let business = match home {
            Some((landkode, land, _, _, poststed)) => Adresse {
                land: Some(land.into()),
                landkode: Some(landkode.into()),
                postnummer: None,
                poststed: Some(poststed.into()),
                adresse: vec![format!(
                    "{} {}",
                    self.rng.pick(&STREETS),
                    self.rng.between(1, 90)
                )],
                kommune: None,
                kommunenummer: None,
            },
            None => self.address(),
        };
        let postal = match form {
            Form::Nuf => Some(Adresse {
                adresse: vec![
                    format!(
                        "c/o {} {} REGNSKAP AS",
                        self.rng.pick(&PLACES),
                        self.rng.pick(&["DATA", "SERVICE", "KONTOR"])
                    ),
                    format!("Postboks {}", self.rng.between(1, 9999)),
                ],
                ..self.address()
            }),
            _ if self.rng.chance(25) => {
                let mut a = self.address();
                a.adresse = vec![format!("Postboks {}", self.rng.between(1, 9999))];
                Some(a)
            }
            _ => None,
        };

        let limited = matches!(form, Form::As | Form::Asa);
        let kapital = limited.then(|| {
            let (belop, aksjer) = if form == Form::Asa {
                let aksjer = self.rng.between(1_000_000, 90_000_000);
                (aksjer * self.rng.between(1, 5), aksjer)
            } else {
                let aksjer = *self.rng.pick(&[30u64, 100, 300, 1000, 30_000]);
                let per = *self.rng.pick(&[1u64, 10, 100, 1000]);
                ((aksjer * per).max(30_000), aksjer)
            };
            Kapital {
                belop: number(belop),
                antall_aksjer: Some(number(aksjer)),
                kapitaltype: "Aksjekapital".into(),
                bundet: None,
                valuta: "NOK".into(),
                innbetalt: None,
                fullt_innbetalt: None,
                innfort_dato: registered_s.clone(),
            }
        });

        let in_window = nth < 2;
        let mut enhet = wire::Enhet {
            organisasjonsnummer: orgnr.clone(),
            navn: navn.clone(),
            organisasjonsform: KodeLink::of("organisasjonsformer", form.kode(), form.beskrivelse()),
            historiske_navn: Vec::new(),
            hjemmeside: (form == Form::Asa).then(|| {
                format!(
                    "www.{}.example",
                    navn.to_lowercase()
                        .chars()
                        .filter(char::is_ascii_alphanumeric)
                        .collect::<String>()
                )
            }),
            postadresse: postal,
            registreringsdato_enhetsregisteret: Some(registered_s.clone()),
            registrert_i_mvaregisteret: vat,
            frivillig_mva_registrert_beskrivelser: None,
            naeringskode1: Some(nace),
            naeringskode2: nace2,
            naeringskode3: None,
            antall_ansatte: count,
            har_registrert_antall_ansatte: flag,
            overordnet_enhet: None,
            registreringsdato_frivillig_merverdiavgiftsregisteret: None,
            registreringsdato_merverdiavgiftsregisteret: vat_date.clone(),
            registreringsdato_merverdiavgiftsregisteret_enhetsregisteret: vat_date,
            registreringsdato_antall_ansatte_enhetsregisteret: employee_dates
                .as_ref()
                .map(|d| d.0.clone()),
            registreringsdato_antall_ansatte_nav_aaregisteret: employee_dates
                .as_ref()
                .map(|d| d.1.clone()),
            epostadresse: None,
            telefon: None,
            mobil: None,
            forretningsadresse: Some(business),
            stiftelsesdato: limited.then(|| day(founded)),
            institusjonell_sektorkode: match form {
                Form::As | Form::Asa => Some(Kode {
                    kode: "2100".into(),
                    beskrivelse: "Private aksjeselskaper mv.".into(),
                }),
                Form::Enk => Some(Kode {
                    kode: "8200".into(),
                    beskrivelse: "Personlig næringsdrivende".into(),
                }),
                Form::Nuf | Form::Ans => None,
            },
            registrert_i_foretaksregisteret: match form {
                Form::Nuf => false,
                Form::Enk => self.rng.chance(50),
                _ => true,
            },
            registrert_i_stiftelsesregisteret: false,
            registrert_i_frivillighetsregisteret: false,
            siste_innsendte_aarsregnskap: (limited && plan != Plan::New)
                .then(|| if self.rng.chance(80) { "2025" } else { "2024" }.to_owned()),
            konkurs: false,
            konkursdato: None,
            under_avvikling: false,
            under_avvikling_dato: None,
            under_tvangsavvikling_eller_tvangsopplosning: false,
            tvangsavviklet_pga_manglende_sletting_dato: None,
            tvangsopplost_pga_manglende_daglig_leder_dato: None,
            tvangsopplost_pga_manglende_revisor_dato: None,
            tvangsopplost_pga_manglende_regnskap_dato: None,
            tvangsopplost_pga_mangelfullt_styre_dato: None,
            under_rekonstruksjonsforhandling_dato: None,
            under_utenlandsk_insolvensbehandling_dato: None,
            maalform: if self.rng.chance(12) {
                "Nynorsk"
            } else {
                "Bokmål"
            }
            .to_owned(),
            vedtektsdato: limited.then(|| day(founded)),
            vedtektsfestet_formaal: limited.then(|| {
                vec![format!(
                    "{} og det som naturlig hører til, herunder deltakelse i andre selskaper.",
                    trade.nace.1
                )]
            }),
            aktivitet: Some(vec![format!("{}.", trade.nace.1)]),
            registreringsdato_foretaksregisteret: None,
            registrert_i_partiregisteret: false,
            paategninger: Vec::new(),
            fravalg_revisjon_dato: None,
            fravalg_revisjon_beslutnings_dato: None,
            er_i_konsern: form == Form::Asa || (limited && self.rng.chance(10)),
            kapital,
            slettedato: None,
            links: Links::own(format!("/enheter/{orgnr}")),
            respons_klasse: "Enhet".into(),
        };
        if enhet.registrert_i_foretaksregisteret {
            enhet.registreringsdato_foretaksregisteret = Some(registered_s.clone());
        }
        if form == Form::As && count.is_none() && self.rng.chance(50) {
            enhet.fravalg_revisjon_dato = Some(registered_s.clone());
            enhet.fravalg_revisjon_beslutnings_dato = Some(day(founded));
        }
        if form == Form::As && plan == Plan::Active && nth % 40 == 7 {
            enhet.paategninger.push(Paategning {
                infotype: "FADR".into(),
                tekst: "Foretaksregisteret har grunn til å anta at forretningsadressen er feil. \
                        Foretaket har fått pålegg om å melde endring."
                    .into(),
                innfoert_dato: day(self.rng.date(ymd(2026, 1, 1), ymd(2026, 9, 14))),
            });
        }
        if matches!(form, Form::As | Form::Asa | Form::Ans) && self.rng.chance(8) {
            let old = self.unique_name(|rng| {
                format!(
                    "{} {} {}",
                    rng.pick(&PLACES),
                    rng.pick(&TRADES).word,
                    form.kode()
                )
            });
            let until = self.rng.date(registered, ymd(2026, 6, 30));
            enhet.historiske_navn.push(HistoriskNavn {
                navn: old,
                fra_dato: format!(
                    "{registered_s} 20:{:02}:{:02}",
                    self.rng.below(60),
                    self.rng.below(60)
                ),
                til_dato: format!(
                    "{} 08:{:02}:{:02}",
                    day(until),
                    self.rng.below(60),
                    self.rng.below(60)
                ),
            });
        }

        let mut slettedato = None;
        let mut gone = None;
        match plan {
            Plan::Active => {}
            Plan::New => self.feed(registered, &orgnr, "Ny", Vec::new()),
            Plan::Restructuring => {
                let d = self.status_date(in_window);
                enhet.under_rekonstruksjonsforhandling_dato = Some(day(d));
                if in_window {
                    self.feed(
                        d,
                        &orgnr,
                        "Endring",
                        vec![Patch::add(
                            "/underRekonstruksjonsforhandlingDato",
                            json!(day(d)),
                        )],
                    );
                }
            }
            Plan::Bankrupt => {
                let d = self.status_date(in_window);
                enhet.konkurs = true;
                enhet.konkursdato = Some(day(d));
                if in_window {
                    self.feed(
                        d,
                        &orgnr,
                        "Endring",
                        vec![
                            Patch::replace("/konkurs", json!(true)),
                            Patch::add("/konkursdato", json!(day(d))),
                        ],
                    );
                }
            }
            Plan::WindingUp => {
                let d = self.status_date(in_window);
                enhet.under_avvikling = true;
                enhet.under_avvikling_dato = Some(day(d));
                if in_window {
                    self.feed(
                        d,
                        &orgnr,
                        "Endring",
                        vec![
                            Patch::replace("/underAvvikling", json!(true)),
                            Patch::add("/underAvviklingDato", json!(day(d))),
                        ],
                    );
                }
            }
            Plan::Compulsory => {
                let d = self.status_date(in_window);
                enhet.under_tvangsavvikling_eller_tvangsopplosning = true;
                let (field, path) = match self.rng.below(4) {
                    0 => (
                        &mut enhet.tvangsopplost_pga_manglende_daglig_leder_dato,
                        "/tvangsopplostPgaManglendeDagligLederDato",
                    ),
                    1 => (
                        &mut enhet.tvangsopplost_pga_manglende_revisor_dato,
                        "/tvangsopplostPgaManglendeRevisorDato",
                    ),
                    2 => (
                        &mut enhet.tvangsopplost_pga_mangelfullt_styre_dato,
                        "/tvangsopplostPgaMangelfulltStyreDato",
                    ),
                    _ => (
                        &mut enhet.tvangsopplost_pga_manglende_regnskap_dato,
                        "/tvangsopplostPgaManglendeRegnskapDato",
                    ),
                };
                *field = Some(day(d));
                if in_window {
                    self.feed(
                        d,
                        &orgnr,
                        "Endring",
                        vec![
                            Patch::replace(
                                "/underTvangsavviklingEllerTvangsopplosning",
                                json!(true),
                            ),
                            Patch::add(path, json!(day(d))),
                        ],
                    );
                }
            }
            Plan::Deleted => {
                let d = self.status_date(in_window);
                slettedato = Some(day(d));
                if in_window {
                    self.feed(d, &orgnr, "Sletting", Vec::new());
                }
            }
            Plan::Gone => {
                let d = self.status_date(in_window);
                gone = Some(day(d));
                if in_window {
                    self.feed(d, &orgnr, "Fjernet", Vec::new());
                }
            }
        }
        // Some active entities' employee counts change in the window, as Aa-register
        // updates do.
        if let Some(n) = count.filter(|_| plan == Plan::Active && self.rng.chance(8)) {
            let d = self.rng.date(window_from, window_to);
            enhet.registreringsdato_antall_ansatte_enhetsregisteret = Some(day(d));
            self.feed(
                d,
                &orgnr,
                "Endring",
                vec![
                    Patch::replace(
                        "/registreringsdatoAntallAnsatteEnhetsregisteret",
                        json!(day(d)),
                    ),
                    Patch::replace("/antallAnsatte", json!(n)),
                ],
            );
        }

        let roller = self.roles(form, &enhet, owner, plan);
        Company {
            enhet,
            slettedato,
            gone,
            roller: Some(roller),
            recorded: None,
            recorded_roller: None,
            synthetic: true,
        }
    }

    fn roles(&mut self, form: Form, e: &wire::Enhet, owner: Option<Person>, plan: Plan) -> Roller {
        let orgnr = &e.organisasjonsnummer;
        let since = e
            .registreringsdato_enhetsregisteret
            .clone()
            .unwrap_or_else(|| AS_OF.to_owned());
        let mut groups = Vec::new();
        let dagl = match form {
            Form::As | Form::Asa => self.rng.chance(85),
            Form::Nuf => self.rng.chance(50),
            Form::Ans => self.rng.chance(30),
            Form::Enk => false,
        };
        if dagl {
            let p = person(&mut self.rng, 1950, 1998);
            groups.push(group("DAGL", &since, vec![person_role("DAGL", 0, p)]));
        }
        match form {
            Form::As | Form::Asa => {
                let members = if form == Form::Asa {
                    self.rng.between(4, 6)
                } else {
                    self.rng.between(0, 2)
                };
                let mut board = vec![person_role("LEDE", 0, person(&mut self.rng, 1950, 1995))];
                for i in 0..members {
                    let mut r = person_role("MEDL", i + 1, person(&mut self.rng, 1955, 2000));
                    if form == Form::Asa && i + 2 >= members {
                        r.valgt_av = Some(KodeLink::of(
                            "roller/representanter",
                            "AREP",
                            "Representant for de ansatte",
                        ));
                    }
                    board.push(r);
                }
                if form == Form::Asa || self.rng.chance(40) {
                    let n = board.len() as u64;
                    board.push(person_role("VARA", n, person(&mut self.rng, 1955, 2000)));
                }
                groups.push(group("STYR", &since, board));
            }
            Form::Enk => {
                if let Some(p) = owner {
                    groups.push(group("INNH", &since, vec![person_role("INNH", 0, p)]));
                }
            }
            Form::Nuf => {
                let p = person(&mut self.rng, 1955, 1995);
                groups.push(group("REPR", &since, vec![person_role("REPR", 0, p)]));
            }
            Form::Ans => {
                let partners = self.rng.between(2, 3);
                let roller = (0..partners)
                    .map(|i| person_role("DTSO", i, person(&mut self.rng, 1950, 1998)))
                    .collect();
                groups.push(group("DELT", &since, roller));
            }
        }
        let audited = match form {
            Form::Asa => true,
            Form::As => e.fravalg_revisjon_dato.is_none() && self.rng.chance(80),
            _ => false,
        };
        if audited && !self.auditors.is_empty() {
            let (n, navn) = self.rng.pick(&self.auditors).clone();
            if &n != orgnr {
                groups.push(group(
                    "REVI",
                    &since,
                    vec![entity_role("REVI", &n, &navn, "Godkjent revisjonsforetak")],
                ));
            }
        }
        if form != Form::Asa && !self.accountants.is_empty() && self.rng.chance(40) {
            let (n, navn) = self.rng.pick(&self.accountants).clone();
            if &n != orgnr {
                groups.push(group(
                    "REGN",
                    &since,
                    vec![entity_role("REGN", &n, &navn, "Godkjent regnskapsforetak")],
                ));
            }
        }
        if plan == Plan::Bankrupt {
            let when = e.konkursdato.clone().unwrap_or_else(|| since.clone());
            groups.push(trustee_group(self.rng.next(), &when));
        }
        let mut roller = Roller::empty(orgnr);
        roller.rollegrupper = groups;
        roller
    }
}

/// The recorded entity as the sandbox keeps it.
fn recorded(body: &'static str) -> Company {
    let mut enhet: wire::Enhet = serde_json::from_str(body).unwrap_or_else(|e| {
        panic!("a recorded entity in testdata/entity/ does not read: {e}");
    });
    let slettedato = enhet.slettedato.take();
    let orgnr = enhet.organisasjonsnummer.clone();
    let (recorded_roller, roller) = match RECORDED_ROLES.iter().find(|(n, _)| *n == orgnr) {
        Some((_, body)) => (
            Some(*body),
            Some(serde_json::from_str::<Roller>(body).unwrap_or_else(|e| {
                panic!("a recorded roles answer in testdata/roles/ does not read: {e}")
            })),
        ),
        None => (None, None),
    };
    Company {
        enhet,
        slettedato,
        gone: None,
        roller,
        recorded: Some(body),
        recorded_roller,
        synthetic: false,
    }
}

/// The recorded feed page's entries, oldest first.
fn recorded_feed() -> Vec<FeedEntry> {
    #[derive(Deserialize)]
    struct Item {
        oppdateringsid: u64,
        dato: DateTime<Utc>,
        organisasjonsnummer: String,
        endringstype: String,
        #[serde(default)]
        endringer: Vec<Patch>,
    }
    #[derive(Deserialize)]
    struct Embedded {
        #[serde(rename = "oppdaterteEnheter")]
        items: Vec<Item>,
    }
    #[derive(Deserialize)]
    struct Page {
        #[serde(rename = "_embedded")]
        embedded: Embedded,
    }
    let page: Page = serde_json::from_str(RECORDED_FEED)
        .unwrap_or_else(|e| panic!("the recorded feed page in testdata/feeds/ does not read: {e}"));
    let mut entries: Vec<FeedEntry> = page
        .embedded
        .items
        .into_iter()
        .map(|i| FeedEntry {
            id: i.oppdateringsid,
            dato: i.dato,
            orgnr: i.organisasjonsnummer,
            endringstype: i.endringstype,
            endringer: i.endringer,
        })
        .collect();
    entries.sort_by_key(|e| e.id);
    entries
}

/// A valid number no entity has (the first free one in the synthetic series).
fn unknown_number(used: &BTreeMap<String, Company>) -> String {
    (30_000_000u64..)
        .filter_map(|stem| {
            let s = format!("{stem:08}");
            let mut digits = [0u8; 8];
            for (d, b) in digits.iter_mut().zip(s.bytes()) {
                *d = b - b'0';
            }
            check_digit(digits).map(|c| format!("{s}{c}"))
        })
        .find(|n| !used.contains_key(n))
        .unwrap_or_else(|| "300000003".to_owned())
}

/// The standard register: deterministic.
pub(crate) fn standard() -> Register {
    let mut g = Generator {
        rng: Rng(0x4E4F_4252_5245_4721),
        used_numbers: BTreeSet::new(),
        used_names: BTreeSet::new(),
        auditors: Vec::new(),
        accountants: Vec::new(),
        feed: Vec::new(),
    };
    let mut companies = BTreeMap::new();
    let mut nth_active_as = 0usize;
    for (form, plan, count) in PLAN {
        for nth in 0..count {
            // The first active AS are auditing and accounting firms the others' roles
            // point at.
            let forced = (form == Form::As && plan == Plan::Active && nth_active_as < 8)
                .then_some(if nth_active_as < 4 { 6 } else { 5 });
            if form == Form::As && plan == Plan::Active {
                nth_active_as += 1;
            }
            let c = g.company(form, plan, nth, forced);
            if let Some(t) = forced {
                let entry = (c.enhet.organisasjonsnummer.clone(), c.enhet.navn.clone());
                if t == 6 {
                    g.auditors.push(entry);
                } else {
                    g.accountants.push(entry);
                }
            }
            companies.insert(c.enhet.organisasjonsnummer.clone(), c);
        }
    }
    for body in RECORDED_ENTITIES {
        let c = recorded(body);
        companies.insert(c.enhet.organisasjonsnummer.clone(), c);
    }

    let mut synthetic_feed = std::mem::take(&mut g.feed);
    synthetic_feed.sort_by(|a, b| a.dato.cmp(&b.dato).then_with(|| a.orgnr.cmp(&b.orgnr)));
    for (i, e) in synthetic_feed.iter_mut().enumerate() {
        e.id = FIRST_SYNTHETIC_ID + i as u64;
    }
    let mut feed = recorded_feed();
    feed.extend(synthetic_feed);

    let handy = handy(&companies);
    Register {
        companies,
        feed,
        handy,
    }
}

fn handy(companies: &BTreeMap<String, Company>) -> HandyNumbers {
    let find = |what: &str, pred: &dyn Fn(&Company) -> bool| -> String {
        companies
            .values()
            .find(|c| c.synthetic && pred(c))
            .map(|c| c.enhet.organisasjonsnummer.clone())
            .unwrap_or_else(|| panic!("the standard data set has no {what}"))
    };
    let form = |c: &Company, f: &str| c.enhet.organisasjonsform.kode == f;
    let status = |c: &Company, s: &str| c.status().0 == s;
    let has_group = |c: &Company, g: &str| {
        c.roller
            .as_ref()
            .is_some_and(|r| r.rollegrupper.iter().any(|x| x.gruppetype.kode == g))
    };
    let auditor = companies
        .values()
        .filter_map(|c| c.roller.as_ref())
        .flat_map(|r| &r.rollegrupper)
        .filter(|g| g.gruppetype.kode == "REVI")
        .flat_map(|g| &g.roller)
        .find_map(|r| r.enhet.as_ref())
        .map(|e| e.organisasjonsnummer.clone())
        .unwrap_or_default();
    HandyNumbers {
        active_as: find("active AS with employees, VAT, board and auditor", &|c| {
            form(c, "AS")
                && status(c, "active")
                && c.enhet.antall_ansatte.is_some()
                && c.enhet.registrert_i_mvaregisteret
                && c.enhet.postadresse.is_some()
                && c.enhet.under_rekonstruksjonsforhandling_dato.is_none()
                && ["DAGL", "STYR", "REVI"].iter().all(|g| has_group(c, g))
        }),
        active_asa: find("active ASA", &|c| form(c, "ASA") && status(c, "active")),
        active_enk: find("active ENK", &|c| {
            form(c, "ENK") && status(c, "active") && has_group(c, "INNH")
        }),
        active_nuf: find("active NUF", &|c| form(c, "NUF") && status(c, "active")),
        active_ans: find("active ANS", &|c| {
            form(c, "ANS") && status(c, "active") && has_group(c, "DELT")
        }),
        restructuring: find("AS under restructuring", &|c| {
            c.enhet.under_rekonstruksjonsforhandling_dato.is_some()
        }),
        new_in_feed: find("new AS", &|c| {
            c.enhet
                .naeringskode1
                .as_ref()
                .is_some_and(|k| k.kode == "00.000")
        }),
        one_to_four_employees: find("AS with 1-4 employees", &|c| {
            form(c, "AS")
                && status(c, "active")
                && c.enhet.har_registrert_antall_ansatte
                && c.enhet.antall_ansatte.is_none()
        }),
        no_employees: find("AS without employees", &|c| {
            form(c, "AS")
                && status(c, "active")
                && !c.enhet.har_registrert_antall_ansatte
                && c.enhet.registrert_i_mvaregisteret
        }),
        bankrupt: find("bankrupt AS", &|c| form(c, "AS") && status(c, "bankrupt")),
        winding_up: find("AS being wound up", &|c| {
            form(c, "AS") && status(c, "winding_up")
        }),
        compulsory_dissolution: find("AS under compulsory dissolution", &|c| {
            form(c, "AS") && status(c, "compulsory_dissolution")
        }),
        deleted: find("deleted AS", &|c| form(c, "AS") && status(c, "deleted")),
        gone: find("withdrawn AS", &|c| form(c, "AS") && status(c, "gone")),
        auditor,
        unknown: unknown_number(companies),
        recorded_active: "923609016".into(),
        recorded_bankrupt: "915330193".into(),
        recorded_compulsory_dissolution: "931744682".into(),
        recorded_deleted: "989566733".into(),
        recorded_gone: RECORDED_GONE.0.into(),
    }
}

/// The link to an entity (for feed entries).
pub(crate) fn enhet_href(orgnr: &str) -> Href {
    Href::to(format!("/enheter/{orgnr}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orgnr::is_valid;

    #[test]
    fn the_standard_register_is_deterministic_and_every_number_valid_and_unique() {
        let a = standard();
        let b = standard();
        assert_eq!(a, b);
        assert_eq!(a.companies.len(), 290 + RECORDED_ENTITIES.len());
        for (n, c) in &a.companies {
            assert!(is_valid(n), "{n}");
            assert_eq!(n, &c.enhet.organisasjonsnummer);
            if c.synthetic {
                assert!(n.starts_with('3'), "{n}");
            }
        }
        assert!(is_valid(&a.handy.unknown));
        assert!(!a.companies.contains_key(&a.handy.unknown));
        let names: BTreeSet<&str> = a
            .companies
            .values()
            .map(|c| c.enhet.navn.as_str())
            .collect();
        assert_eq!(names.len(), a.companies.len(), "names are unique");
    }

    #[test]
    fn the_mix_of_forms_and_statuses_is_as_planned() {
        let r = standard();
        let count = |form: &str, status: &str| {
            r.companies
                .values()
                .filter(|c| c.synthetic)
                .filter(|c| c.enhet.organisasjonsform.kode == form && c.status().0 == status)
                .count()
        };
        assert_eq!(count("AS", "active"), 146);
        assert_eq!(count("AS", "bankrupt"), 8);
        assert_eq!(count("AS", "winding_up"), 8);
        assert_eq!(count("AS", "compulsory_dissolution"), 6);
        assert_eq!(count("AS", "deleted"), 10);
        assert_eq!(count("AS", "gone"), 2);
        assert_eq!(count("ASA", "active"), 9);
        assert_eq!(count("ENK", "active"), 44);
        assert_eq!(count("NUF", "active"), 22);
        assert_eq!(count("ANS", "active"), 21);
        // Every bankrupt entity has a trustee; every status date is a date.
        for c in r.companies.values().filter(|c| c.synthetic) {
            let (status, since) = c.status();
            if status != "active" {
                let since = since.unwrap_or_else(|| panic!("{status} without a date"));
                assert!(NaiveDate::parse_from_str(&since, "%Y-%m-%d").is_ok());
            }
            if status == "bankrupt" {
                assert!(c
                    .roller
                    .as_ref()
                    .unwrap()
                    .rollegrupper
                    .iter()
                    .any(|g| g.gruppetype.kode == "BOBE"));
            }
        }
    }

    #[test]
    fn every_synthetic_person_is_built_from_the_synthetic_names() {
        let r = standard();
        let mut persons = 0;
        for c in r.companies.values() {
            for g in c.roller.iter().flat_map(|r| &r.rollegrupper) {
                for role in &g.roller {
                    if let Some(p) = &role.person {
                        persons += 1;
                        assert!(SYNTHETIC_GIVEN_NAMES.contains(&p.navn.fornavn.as_str()));
                        assert!(SYNTHETIC_SURNAMES.contains(&p.navn.etternavn.as_str()));
                        if let Some(m) = &p.navn.mellomnavn {
                            assert!(SYNTHETIC_GIVEN_NAMES.contains(&m.as_str()));
                        }
                    }
                    if let Some(b) = &role.bostyrer {
                        assert!(SYNTHETIC_SURNAMES.iter().any(|s| b.navn.ends_with(s)));
                    }
                }
            }
        }
        assert!(persons > 500, "{persons}");
    }

    #[test]
    fn the_recorded_roles_name_no_real_person() {
        let mut persons = 0;
        for body in RECORDED_ROLES_FOR_TESTS {
            let r: Roller = serde_json::from_str(body).unwrap();
            for role in r.rollegrupper.iter().flat_map(|g| &g.roller) {
                if let Some(p) = &role.person {
                    persons += 1;
                    assert!(SYNTHETIC_GIVEN_NAMES.contains(&p.navn.fornavn.as_str()));
                    assert!(SYNTHETIC_SURNAMES.contains(&p.navn.etternavn.as_str()));
                    if let Some(m) = &p.navn.mellomnavn {
                        assert!(SYNTHETIC_GIVEN_NAMES.contains(&m.as_str()));
                    }
                }
                if let Some(b) = &role.bostyrer {
                    assert!(b.navn.starts_with("Advokat "));
                    assert!(SYNTHETIC_SURNAMES.iter().any(|s| b.navn.ends_with(s)));
                }
            }
        }
        assert_eq!(persons, 15 + 2 + 1);
    }

    #[test]
    fn the_feed_starts_with_the_recorded_entries_and_its_ids_and_times_increase() {
        let r = standard();
        assert_eq!(r.feed[0].id, 24_146_813);
        assert_eq!(r.feed[7].id, 25_205_460);
        assert!(r.feed.len() > 30, "{}", r.feed.len());
        for w in r.feed.windows(2) {
            assert!(w[0].id < w[1].id);
            assert!(w[0].dato <= w[1].dato);
        }
        let kinds: BTreeSet<&str> = r.feed.iter().map(|e| e.endringstype.as_str()).collect();
        for k in ["Ny", "Endring", "Sletting", "Fjernet"] {
            assert!(kinds.contains(k), "{k}");
        }
        // Every synthetic entry is about an entity the sandbox has.
        for e in &r.feed {
            assert!(r.companies.contains_key(&e.orgnr));
        }
    }

    #[test]
    fn the_readmes_table_of_handy_numbers_is_the_data_sets() {
        let readme = include_str!("../../README.md");
        let handy = serde_json::to_value(standard().handy).unwrap();
        for (kind, number) in handy.as_object().unwrap() {
            let row = format!("| `{kind}` | `{}` |", number.as_str().unwrap());
            assert!(readme.contains(&row), "README lacks {row}");
        }
    }

    #[test]
    fn the_handy_numbers_are_what_they_say() {
        let r = standard();
        let h = &r.handy;
        let c = |n: &str| r.companies.get(n).unwrap();
        assert_eq!(c(&h.active_as).status().0, "active");
        assert_eq!(c(&h.bankrupt).status().0, "bankrupt");
        assert_eq!(c(&h.winding_up).status().0, "winding_up");
        assert_eq!(
            c(&h.compulsory_dissolution).status().0,
            "compulsory_dissolution"
        );
        assert_eq!(c(&h.deleted).status().0, "deleted");
        assert_eq!(c(&h.gone).status().0, "gone");
        assert_eq!(c(&h.recorded_bankrupt).status().0, "bankrupt");
        assert_eq!(c(&h.recorded_deleted).status().0, "deleted");
        assert_eq!(c(&h.active_nuf).enhet.organisasjonsform.kode, "NUF");
        assert_eq!(
            c(&h.auditor).enhet.naeringskode1.as_ref().unwrap().kode,
            "69.202"
        );
        assert!(!r.companies.contains_key(&h.recorded_gone));
    }
}
