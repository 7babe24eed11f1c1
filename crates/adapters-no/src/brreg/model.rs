//! The register's answers as typed values: an entity (`Enhet`), a deleted one
//! (`SlettetEnhet`), one withdrawn from open data (`GoneEnhet`), an entity's roles
//! (`Roller`) and a page of the update feed (`OppdateringerEnheter`).
//!
//! Field names follow the wire (Norwegian) so that the mapping to the canonical profile can
//! be read against the register's documentation. On the wire an unset field is an absent
//! key, not `null`; both read as `None` (or an empty list) here.
//!
//! **How strict.** What decides an entity's identity and status is required: the number,
//! name, legal form, registration date, the three status flags (`konkurs`, `underAvvikling`,
//! `underTvangsavviklingEllerTvangsopplosning`), `harRegistrertAntallAnsatte` and
//! `registrertIMvaregisteret`; an answer without one of them does not read (the connector
//! calls it unusable). Everything else is optional, so a field the register stops sending
//! costs that field only. Unknown fields are ignored, so a natural person's national number
//! (`fodselsnummer`, only in the Maskinporten API) is never read into a value even if an
//! answer carried one.

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use serde::{Deserialize, Deserializer};

/// A `null` read as the type's default (an empty list), like an absent key.
fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A JSON number as a whole number, read leniently: the register's numbers are Java numbers
/// and arrive as `21239` or, in places, `21239.0`. A fraction or a negative number does not
/// read.
fn whole(n: f64) -> Option<u64> {
    (n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= 9.0e15).then_some(n as u64)
}

#[derive(Deserialize)]
#[serde(untagged)]
enum AnyNumber {
    Int(u64),
    Float(f64),
}

fn lenient_u64<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    match AnyNumber::deserialize(d)? {
        AnyNumber::Int(n) => Ok(n),
        AnyNumber::Float(f) => {
            whole(f).ok_or_else(|| serde::de::Error::custom("not a whole non-negative number"))
        }
    }
}

fn lenient_u64_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    #[derive(Deserialize)]
    struct Wrap(#[serde(deserialize_with = "lenient_u64")] u64);
    Ok(Option::<Wrap>::deserialize(d)?.map(|w| w.0))
}

/// `historiskeNavn` time stamps: `2001-05-11 08:32:09` (a space, no zone; Norwegian local
/// time as the register writes it). An ISO `T` is read too.
fn register_datetime<'de, D: Deserializer<'de>>(d: D) -> Result<Option<NaiveDateTime>, D::Error> {
    let Some(s) = Option::<String>::deserialize(d)? else {
        return Ok(None);
    };
    NaiveDateTime::parse_from_str(&s, "%Y-%m-%d %H:%M:%S")
        .or_else(|_| NaiveDateTime::parse_from_str(&s, "%Y-%m-%dT%H:%M:%S%.f"))
        .map(Some)
        .map_err(|_| serde::de::Error::custom("not a register time stamp"))
}

/// A code and its text: an institutional sector, an ancillary-unit code, a role type, a
/// role group, who elected a role holder (`valgtAv`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct KodeTekst {
    pub kode: String,
    #[serde(default, deserialize_with = "null_default")]
    pub beskrivelse: String,
}

/// The legal form (`organisasjonsform`): `AS` Aksjeselskap, `ASA`, `ENK`, `NUF`, ...
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Organisasjonsform {
    pub kode: String,
    #[serde(default, deserialize_with = "null_default")]
    pub beskrivelse: String,
    /// The date the form was retired (`UTBG`), when it was.
    #[serde(default)]
    pub utgaatt: Option<NaiveDate>,
}

/// An industry code (`naeringskode1..3`): a NACE-based Norwegian standard code `NN.NNN` and
/// its text. `00.000` "Uoppgitt" means not yet coded. Treat the code as opaque: the register
/// appears to have moved from SN2007 to SN2025 in 2026 (texts that are not SN2007's).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Naeringskode {
    #[serde(default)]
    pub kode: Option<String>,
    #[serde(default)]
    pub beskrivelse: Option<String>,
}

impl Naeringskode {
    /// The placeholder `00.000` ("Uoppgitt"): the entity has no industry code yet.
    pub fn is_unspecified(&self) -> bool {
        self.kode.as_deref().is_none_or(|k| k.trim() == "00.000")
    }
}

/// An address (`forretningsadresse`, `postadresse`; a trustee's `postadresse`). A foreign
/// one has no `postnummer` or `kommune*`, and its postcode sits inside `poststed`
/// (`821 09 BRATISLAVA`).
#[derive(Clone, Debug, PartialEq, Eq, Default, Deserialize)]
pub struct Adresse {
    #[serde(default)]
    pub land: Option<String>,
    /// ISO 3166 alpha-2.
    #[serde(default)]
    pub landkode: Option<String>,
    #[serde(default)]
    pub postnummer: Option<String>,
    #[serde(default)]
    pub poststed: Option<String>,
    /// Up to three lines; can be empty or hold blank lines.
    #[serde(default, deserialize_with = "null_default")]
    pub adresse: Vec<String>,
    #[serde(default)]
    pub kommune: Option<String>,
    /// Four digits.
    #[serde(default)]
    pub kommunenummer: Option<String>,
}

impl Adresse {
    /// The address lines with blank ones (`""`, `" "`) left out, trimmed.
    pub fn lines(&self) -> Vec<&str> {
        self.adresse
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect()
    }

    /// The street part as one line (`"c/o X, Postboks 4691, Nydalen"`), `None` when blank.
    pub fn street(&self) -> Option<String> {
        let lines = self.lines();
        (!lines.is_empty()).then(|| lines.join(", "))
    }

    /// Whether the address is outside Norway (a country code other than `NO`).
    pub fn is_foreign(&self) -> bool {
        self.landkode
            .as_deref()
            .is_some_and(|c| !c.eq_ignore_ascii_case("NO"))
    }
}

/// A name the entity had (`historiskeNavn`, oldest first).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoriskNavn {
    pub navn: String,
    #[serde(default, deserialize_with = "register_datetime")]
    pub fra_dato: Option<NaiveDateTime>,
    #[serde(default, deserialize_with = "register_datetime")]
    pub til_dato: Option<NaiveDateTime>,
}

/// A registry annotation (`paategninger`), e.g. `FADR`: the business register has reason
/// to think the business address is wrong.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Paategning {
    pub infotype: String,
    #[serde(default, deserialize_with = "null_default")]
    pub tekst: String,
    #[serde(default)]
    pub innfoert_dato: Option<NaiveDate>,
}

/// Share capital (`kapital`). The amounts are Java decimals whose formatting varies on the
/// wire (`5976872600.00`, `30000.0`, `30000`); they are read as `f64`, exact for whole kroner
/// up to 2^53.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Kapital {
    pub belop: f64,
    #[serde(default)]
    pub antall_aksjer: Option<f64>,
    /// `Aksjekapital`, ...
    #[serde(default, rename = "type")]
    pub kapitaltype: Option<String>,
    #[serde(default)]
    pub bundet: Option<f64>,
    #[serde(default)]
    pub valuta: Option<String>,
    #[serde(default)]
    pub innbetalt: Option<f64>,
    #[serde(default)]
    pub fullt_innbetalt: Option<bool>,
    #[serde(default)]
    pub innfort_dato: Option<NaiveDate>,
}

/// A foreign entity's form in its home country (`foretaksformIHjemlandet`, NUF).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Foretaksform {
    pub kode: String,
    #[serde(default, deserialize_with = "null_default")]
    pub beskrivelse: String,
    #[serde(default)]
    pub beskrivelse_bokmaal: Option<String>,
}

/// The register's entry for a main entity (`respons_klasse: "Enhet"`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Enhet {
    pub organisasjonsnummer: String,
    /// The registered name, usually in capitals. An ENK's name names its owner, a person.
    pub navn: String,
    pub organisasjonsform: Organisasjonsform,
    #[serde(default, deserialize_with = "null_default")]
    pub historiske_navn: Vec<HistoriskNavn>,
    /// When the entity entered the Enhetsregisteret.
    pub registreringsdato_enhetsregisteret: NaiveDate,
    /// The founding date (absent for many public bodies).
    #[serde(default)]
    pub stiftelsesdato: Option<NaiveDate>,
    #[serde(default)]
    pub forretningsadresse: Option<Adresse>,
    #[serde(default)]
    pub postadresse: Option<Adresse>,
    #[serde(default)]
    pub naeringskode1: Option<Naeringskode>,
    #[serde(default)]
    pub naeringskode2: Option<Naeringskode>,
    #[serde(default)]
    pub naeringskode3: Option<Naeringskode>,
    /// An ancillary unit serving its own group ("Yter tjenester til eget konsern").
    #[serde(default)]
    pub hjelpeenhetskode: Option<Naeringskode>,
    #[serde(default)]
    pub institusjonell_sektorkode: Option<Naeringskode>,
    /// Absent for 0 to 4 employees since API v2 (see [`Enhet::employees`]).
    #[serde(default, deserialize_with = "lenient_u64_opt")]
    pub antall_ansatte: Option<u64>,
    /// Whether any employees are registered (see [`Enhet::employees`]).
    pub har_registrert_antall_ansatte: bool,
    #[serde(default)]
    pub registreringsdato_antall_ansatte_enhetsregisteret: Option<NaiveDate>,
    #[serde(default, rename = "registreringsdatoAntallAnsatteNAVAaregisteret")]
    pub registreringsdato_antall_ansatte_nav_aaregisteret: Option<NaiveDate>,
    /// In the VAT register (Merverdiavgiftsregisteret): the VAT number is then
    /// `NO<orgnr>MVA` (see [`Enhet::vat_number`]).
    pub registrert_i_mvaregisteret: bool,
    #[serde(default)]
    pub registreringsdato_merverdiavgiftsregisteret: Option<NaiveDate>,
    #[serde(default)]
    pub registreringsdato_merverdiavgiftsregisteret_enhetsregisteret: Option<NaiveDate>,
    /// Voluntary VAT registration, e.g. "Utleier av bygg eller anlegg".
    #[serde(default, deserialize_with = "null_default")]
    pub frivillig_mva_registrert_beskrivelser: Vec<String>,
    #[serde(default)]
    pub registreringsdato_frivillig_merverdiavgiftsregisteret: Option<NaiveDate>,
    #[serde(default)]
    pub registrert_i_foretaksregisteret: bool,
    #[serde(default)]
    pub registreringsdato_foretaksregisteret: Option<NaiveDate>,
    #[serde(default)]
    pub registrert_i_stiftelsesregisteret: bool,
    #[serde(default)]
    pub registrert_i_frivillighetsregisteret: bool,
    #[serde(default)]
    pub registrert_i_partiregisteret: bool,
    /// Bankrupt, with the date of the ruling in `konkursdato`.
    pub konkurs: bool,
    #[serde(default)]
    pub konkursdato: Option<NaiveDate>,
    /// Voluntary winding-up, reported on `under_avvikling_dato`.
    pub under_avvikling: bool,
    #[serde(default)]
    pub under_avvikling_dato: Option<NaiveDate>,
    /// Compulsory winding-up or dissolution; why is in the `tvangs…Dato` fields.
    pub under_tvangsavvikling_eller_tvangsopplosning: bool,
    #[serde(default)]
    pub tvangsavviklet_pga_manglende_sletting_dato: Option<NaiveDate>,
    #[serde(default)]
    pub tvangsopplost_pga_manglende_daglig_leder_dato: Option<NaiveDate>,
    #[serde(default)]
    pub tvangsopplost_pga_manglende_revisor_dato: Option<NaiveDate>,
    #[serde(default)]
    pub tvangsopplost_pga_manglende_regnskap_dato: Option<NaiveDate>,
    #[serde(default)]
    pub tvangsopplost_pga_mangelfullt_styre_dato: Option<NaiveDate>,
    /// Restructuring negotiations opened (a date, no flag).
    #[serde(default)]
    pub under_rekonstruksjonsforhandling_dato: Option<NaiveDate>,
    /// Under foreign insolvency proceedings (`underUtenlandskInsolvensbehandlingDato`: a
    /// date, no flag).
    #[serde(default)]
    pub under_utenlandsk_insolvensbehandling_dato: Option<NaiveDate>,
    /// A bare host (`www.equinor.com`), no scheme.
    #[serde(default)]
    pub hjemmeside: Option<String>,
    #[serde(default)]
    pub epostadresse: Option<String>,
    #[serde(default)]
    pub telefon: Option<String>,
    #[serde(default)]
    pub mobil: Option<String>,
    /// The parent in the public-sector hierarchy (an ORGL's ministry or agency).
    #[serde(default)]
    pub overordnet_enhet: Option<String>,
    /// The year of the last annual accounts filed.
    #[serde(default)]
    pub siste_innsendte_aarsregnskap: Option<String>,
    /// `Bokmål` or `Nynorsk`.
    #[serde(default)]
    pub maalform: Option<String>,
    #[serde(default)]
    pub vedtektsdato: Option<NaiveDate>,
    /// The objects in the articles, as line fragments ([`Enhet::joined`]).
    #[serde(default, deserialize_with = "null_default")]
    pub vedtektsfestet_formaal: Vec<String>,
    /// The activity, as line fragments ([`Enhet::joined`]).
    #[serde(default, deserialize_with = "null_default")]
    pub aktivitet: Vec<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub paategninger: Vec<Paategning>,
    /// Part of a group (details at `/konsernstruktur/{orgnr}`).
    #[serde(default)]
    pub er_i_konsern: bool,
    #[serde(default)]
    pub fravalg_revisjon_dato: Option<NaiveDate>,
    #[serde(default)]
    pub fravalg_revisjon_beslutnings_dato: Option<NaiveDate>,
    #[serde(default)]
    pub kapital: Option<Kapital>,
    /// NUF: the number in the home country's register.
    #[serde(default)]
    pub registreringsnummer_i_hjemlandet: Option<String>,
    #[serde(default)]
    pub foretaksform_i_hjemlandet: Option<Foretaksform>,
    #[serde(default)]
    pub utenlandsk_register_navn: Option<String>,
    #[serde(default)]
    pub utenlandsk_register_adresse: Option<Adresse>,
    #[serde(default)]
    pub underlagt_lovgivning_land: Option<String>,
    #[serde(default)]
    pub underlagt_lovgivning_land_kode: Option<String>,
}

/// Why an entity is under compulsory dissolution (`tvangs…Dato` fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DissolutionGround {
    /// `tvangsavvikletPgaManglendeSlettingDato`: compulsory winding-up because a required
    /// deletion was not reported.
    ManglendeSletting,
    /// `tvangsopplostPgaManglendeDagligLederDato`: no general manager registered.
    ManglendeDagligLeder,
    /// `tvangsopplostPgaManglendeRevisorDato`: no auditor registered.
    ManglendeRevisor,
    /// `tvangsopplostPgaManglendeRegnskapDato`: annual accounts not filed.
    ManglendeRegnskap,
    /// `tvangsopplostPgaMangelfulltStyreDato`: the board does not meet the law.
    MangelfulltStyre,
}

/// An entity's status, derived from the register's flags ([`Enhet::status`],
/// [`SlettetEnhet::status`]). One status, by precedence (the order of the variants from the
/// last up): deleted, then bankrupt, then compulsory dissolution, then voluntary winding-up,
/// otherwise active. A withdrawn entity (410, [`GoneEnhet`]) has no status: it is not to be
/// shown at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnhetStatus {
    /// None of the flags is set. Restructuring negotiations and foreign insolvency are dates,
    /// not statuses ([`Enhet::restructuring_since`]); they leave an entity active.
    Active,
    /// `underAvvikling`: voluntary winding-up, since `underAvviklingDato`.
    WindingUp { since: Option<NaiveDate> },
    /// `underTvangsavviklingEllerTvangsopplosning`: compulsory winding-up or dissolution, with
    /// each ground the register dates (sorted by date, then ground).
    CompulsoryDissolution {
        grounds: Vec<(NaiveDate, DissolutionGround)>,
    },
    /// `konkurs`: bankrupt, since `konkursdato` (the ruling).
    Bankrupt { since: Option<NaiveDate> },
    /// `SlettetEnhet`: struck off the register on `slettedato`.
    Deleted { on: NaiveDate },
}

impl EnhetStatus {
    /// A short English name: `active`, `winding_up`, `compulsory_dissolution`, `bankrupt`,
    /// `deleted`.
    pub fn name(&self) -> &'static str {
        match self {
            EnhetStatus::Active => "active",
            EnhetStatus::WindingUp { .. } => "winding_up",
            EnhetStatus::CompulsoryDissolution { .. } => "compulsory_dissolution",
            EnhetStatus::Bankrupt { .. } => "bankrupt",
            EnhetStatus::Deleted { .. } => "deleted",
        }
    }

    /// When the status began, when the register dates it (the earliest ground for a
    /// compulsory dissolution).
    pub fn since(&self) -> Option<NaiveDate> {
        match self {
            EnhetStatus::Active => None,
            EnhetStatus::WindingUp { since } | EnhetStatus::Bankrupt { since } => *since,
            EnhetStatus::CompulsoryDissolution { grounds } => grounds.first().map(|(d, _)| *d),
            EnhetStatus::Deleted { on } => Some(*on),
        }
    }
}

/// How many people an entity employs, by the register's rule since API v2 (13 Sep 2023):
/// the count is left out for 0 to 4 employees, and `harRegistrertAntallAnsatte` says whether
/// any are registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Employees {
    /// `harRegistrertAntallAnsatte: false` and no count: none registered.
    None,
    /// `harRegistrertAntallAnsatte: true` and no count: 1 to 4.
    OneToFour,
    /// The count as given (5 or more under the rule; a count is taken as given whatever the
    /// flag says).
    Count(u64),
}

impl Enhet {
    /// The entity's status from its flags, by the precedence [`EnhetStatus`] documents
    /// (an `Enhet` is never deleted: that is a [`SlettetEnhet`]).
    pub fn status(&self) -> EnhetStatus {
        status_from_flags(&StatusFlags {
            slettedato: None,
            konkurs: self.konkurs,
            konkursdato: self.konkursdato,
            under_tvangs: self.under_tvangsavvikling_eller_tvangsopplosning,
            tvangs_grounds: self.dissolution_grounds(),
            under_avvikling: self.under_avvikling,
            under_avvikling_dato: self.under_avvikling_dato,
        })
    }

    /// The dated grounds of a compulsory dissolution, earliest first.
    pub fn dissolution_grounds(&self) -> Vec<(NaiveDate, DissolutionGround)> {
        let mut g: Vec<(NaiveDate, DissolutionGround)> = [
            (
                self.tvangsavviklet_pga_manglende_sletting_dato,
                DissolutionGround::ManglendeSletting,
            ),
            (
                self.tvangsopplost_pga_manglende_daglig_leder_dato,
                DissolutionGround::ManglendeDagligLeder,
            ),
            (
                self.tvangsopplost_pga_manglende_revisor_dato,
                DissolutionGround::ManglendeRevisor,
            ),
            (
                self.tvangsopplost_pga_manglende_regnskap_dato,
                DissolutionGround::ManglendeRegnskap,
            ),
            (
                self.tvangsopplost_pga_mangelfullt_styre_dato,
                DissolutionGround::MangelfulltStyre,
            ),
        ]
        .into_iter()
        .filter_map(|(d, g)| d.map(|d| (d, g)))
        .collect();
        g.sort();
        g
    }

    /// When restructuring negotiations were opened (`underRekonstruksjonsforhandlingDato`).
    pub fn restructuring_since(&self) -> Option<NaiveDate> {
        self.under_rekonstruksjonsforhandling_dato
    }

    /// The employees by the register's rule ([`Employees`]).
    pub fn employees(&self) -> Employees {
        match (self.antall_ansatte, self.har_registrert_antall_ansatte) {
            (Some(n), _) => Employees::Count(n),
            (None, true) => Employees::OneToFour,
            (None, false) => Employees::None,
        }
    }

    /// `NO<orgnr>MVA` when the entity is in the VAT register.
    pub fn vat_number(&self) -> Option<String> {
        self.registrert_i_mvaregisteret
            .then(|| format!("NO{}MVA", self.organisasjonsnummer))
    }

    /// The industry codes in order (`naeringskode1..3`), the `00.000` placeholder left out.
    pub fn naeringskoder(&self) -> Vec<&Naeringskode> {
        [
            &self.naeringskode1,
            &self.naeringskode2,
            &self.naeringskode3,
        ]
        .into_iter()
        .flatten()
        .filter(|k| !k.is_unspecified())
        .collect()
    }

    /// Line fragments (`aktivitet`, `vedtektsfestetFormaal`) as one text: trimmed, blank ones
    /// dropped, joined with a space.
    pub fn joined(fragments: &[String]) -> String {
        fragments
            .iter()
            .map(|f| f.trim())
            .filter(|f| !f.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The flags a status is derived from ([`status_from_flags`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatusFlags {
    /// Present on a deleted entity only.
    pub slettedato: Option<NaiveDate>,
    pub konkurs: bool,
    pub konkursdato: Option<NaiveDate>,
    /// `underTvangsavviklingEllerTvangsopplosning`.
    pub under_tvangs: bool,
    pub tvangs_grounds: Vec<(NaiveDate, DissolutionGround)>,
    pub under_avvikling: bool,
    pub under_avvikling_dato: Option<NaiveDate>,
}

/// The status of an entity with these flags: `slettedato` present → deleted; then
/// `konkurs` → bankrupt; then `underTvangsavviklingEllerTvangsopplosning` → compulsory
/// dissolution; then `underAvvikling` → winding up; otherwise active. A bankrupt entity is
/// often also being wound up or dissolved: the more final state wins.
pub fn status_from_flags(f: &StatusFlags) -> EnhetStatus {
    if let Some(on) = f.slettedato {
        EnhetStatus::Deleted { on }
    } else if f.konkurs {
        EnhetStatus::Bankrupt {
            since: f.konkursdato,
        }
    } else if f.under_tvangs {
        EnhetStatus::CompulsoryDissolution {
            grounds: f.tvangs_grounds.clone(),
        }
    } else if f.under_avvikling {
        EnhetStatus::WindingUp {
            since: f.under_avvikling_dato,
        }
    } else {
        EnhetStatus::Active
    }
}

/// A deleted entity (`respons_klasse: "SlettetEnhet"`, answered 200): struck off, with only
/// its number, name, form, former names and `slettedato`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SlettetEnhet {
    pub organisasjonsnummer: String,
    pub navn: String,
    pub organisasjonsform: Organisasjonsform,
    #[serde(default, deserialize_with = "null_default")]
    pub historiske_navn: Vec<HistoriskNavn>,
    pub slettedato: NaiveDate,
}

impl SlettetEnhet {
    /// Always [`EnhetStatus::Deleted`] on `slettedato`.
    pub fn status(&self) -> EnhetStatus {
        status_from_flags(&StatusFlags {
            slettedato: Some(self.slettedato),
            ..StatusFlags::default()
        })
    }
}

/// An entity withdrawn from open data (410 Gone, e.g. for legal reasons). Not "deleted":
/// the register asks that every copy of it be removed. The body's shape comes from the
/// specification only (no recorded 410 was found), so an unreadable body still means gone.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct GoneEnhet {
    pub organisasjonsnummer: String,
    #[serde(default)]
    pub slettedato: Option<NaiveDate>,
}

/// What `GET /enheter/{orgnr}` gave, short of "not found" (404) and failures.
#[derive(Clone, Debug, PartialEq)]
pub enum EnhetAnswer {
    /// 200 `Enhet`.
    Enhet(Box<Enhet>),
    /// 200 `SlettetEnhet`: deleted.
    Slettet(SlettetEnhet),
    /// 410: withdrawn from open data; drop every copy.
    Gone(GoneEnhet),
}

impl EnhetAnswer {
    /// The status, or `None` for a withdrawn entity (which is not to be shown).
    pub fn status(&self) -> Option<EnhetStatus> {
        match self {
            EnhetAnswer::Enhet(e) => Some(e.status()),
            EnhetAnswer::Slettet(s) => Some(s.status()),
            EnhetAnswer::Gone(_) => None,
        }
    }

    /// The number the answer is about.
    pub fn organisasjonsnummer(&self) -> &str {
        match self {
            EnhetAnswer::Enhet(e) => &e.organisasjonsnummer,
            EnhetAnswer::Slettet(s) => &s.organisasjonsnummer,
            EnhetAnswer::Gone(g) => &g.organisasjonsnummer,
        }
    }

    /// The registered name (none for a withdrawn entity).
    pub fn navn(&self) -> Option<&str> {
        match self {
            EnhetAnswer::Enhet(e) => Some(&e.navn),
            EnhetAnswer::Slettet(s) => Some(&s.navn),
            EnhetAnswer::Gone(_) => None,
        }
    }
}

/// The 200 body of `GET /enheter/{orgnr}`, told apart by `respons_klasse`.
#[derive(Deserialize)]
#[serde(tag = "respons_klasse")]
pub(crate) enum EnhetBody {
    Enhet(Box<Enhet>),
    SlettetEnhet(SlettetEnhet),
}

impl From<EnhetBody> for EnhetAnswer {
    fn from(b: EnhetBody) -> EnhetAnswer {
        match b {
            EnhetBody::Enhet(e) => EnhetAnswer::Enhet(e),
            EnhetBody::SlettetEnhet(s) => EnhetAnswer::Slettet(s),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Roles.

/// A person's name in a role.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct PersonNavn {
    pub fornavn: String,
    #[serde(default)]
    pub mellomnavn: Option<String>,
    pub etternavn: String,
}

impl PersonNavn {
    /// `fornavn [mellomnavn] etternavn`.
    pub fn full(&self) -> String {
        [
            Some(self.fornavn.as_str()),
            self.mellomnavn.as_deref(),
            Some(self.etternavn.as_str()),
        ]
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
    }
}

/// A natural person holding a role: name and birth date. The open API carries no national
/// number (fødselsnummer), and this type has no field for one.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RollePerson {
    pub fodselsdato: NaiveDate,
    pub navn: PersonNavn,
    #[serde(default)]
    pub er_doed: bool,
}

/// An entity holding a role (an auditor, an accountant, a partner, a municipality).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RolleEnhet {
    pub organisasjonsnummer: String,
    #[serde(default)]
    pub organisasjonsform: Option<Organisasjonsform>,
    /// The name as an array of lines.
    #[serde(default, deserialize_with = "null_default")]
    pub navn: Vec<String>,
    /// E.g. "Godkjent revisjonsforetak".
    #[serde(default)]
    pub godkjenningsstatus: Option<String>,
    #[serde(default)]
    pub er_slettet: bool,
}

impl RolleEnhet {
    /// The name lines joined with a space.
    pub fn name(&self) -> String {
        Enhet::joined(&self.navn)
    }
}

/// A bankruptcy estate's trustee (`BOBE`), given by name only.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Bostyrer {
    pub navn: String,
    #[serde(default)]
    pub postadresse: Option<Adresse>,
    #[serde(default)]
    pub er_doed: bool,
}

/// Who holds a role: exactly one of a person, an entity or a trustee.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Innehaver {
    Person(RollePerson),
    Enhet(RolleEnhet),
    Bostyrer(Bostyrer),
}

/// One role (`Rolle`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawRolle")]
pub struct Rolle {
    /// The role type: `DAGL`, `LEDE`, `MEDL`, `VARA`, `REVI`, `REGN`, `INNH`, `DTSO`,
    /// `DTPR`, `BOBE`, `REPR`, ...
    pub rolletype: KodeTekst,
    pub innehaver: Innehaver,
    /// Whom the holder represents (`AREP` the employees, `A-AK` the A shareholders).
    pub valgt_av: Option<KodeTekst>,
    /// A partner's share of the liability ("50%").
    pub ansvarsandel: Option<String>,
    /// "Has resigned": sent until June 2026, then removed from the API.
    pub fratraadt: Option<bool>,
    /// Deregistered holder (since January 2026; false when absent).
    pub avregistrert: bool,
    /// Order within the group.
    pub rekkefolge: Option<u64>,
    pub stadfestet_fremtidsfullmakt: Option<bool>,
    pub begrenset_rettslig_handleevne: Option<bool>,
}

impl Rolle {
    /// Whether the holder currently holds the role (neither deregistered nor resigned).
    pub fn is_current(&self) -> bool {
        !self.avregistrert && self.fratraadt != Some(true)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawRolle {
    #[serde(rename = "type")]
    rolletype: KodeTekst,
    #[serde(default)]
    person: Option<RollePerson>,
    #[serde(default)]
    enhet: Option<RolleEnhet>,
    #[serde(default)]
    bostyrer: Option<Bostyrer>,
    #[serde(default)]
    valgt_av: Option<KodeTekst>,
    #[serde(default)]
    ansvarsandel: Option<String>,
    #[serde(default)]
    fratraadt: Option<bool>,
    #[serde(default)]
    avregistrert: Option<bool>,
    #[serde(default, deserialize_with = "lenient_u64_opt")]
    rekkefolge: Option<u64>,
    #[serde(default)]
    stadfestet_fremtidsfullmakt: Option<bool>,
    #[serde(default)]
    begrenset_rettslig_handleevne: Option<bool>,
}

impl TryFrom<RawRolle> for Rolle {
    type Error = &'static str;

    fn try_from(r: RawRolle) -> Result<Rolle, &'static str> {
        let innehaver = match (r.person, r.enhet, r.bostyrer) {
            (Some(p), None, None) => Innehaver::Person(p),
            (None, Some(e), None) => Innehaver::Enhet(e),
            (None, None, Some(b)) => Innehaver::Bostyrer(b),
            (None, None, None) => return Err("a role without a holder"),
            _ => return Err("a role with more than one holder"),
        };
        Ok(Rolle {
            rolletype: r.rolletype,
            innehaver,
            valgt_av: r.valgt_av,
            ansvarsandel: r.ansvarsandel,
            fratraadt: r.fratraadt,
            avregistrert: r.avregistrert.unwrap_or(false),
            rekkefolge: r.rekkefolge,
            stadfestet_fremtidsfullmakt: r.stadfestet_fremtidsfullmakt,
            begrenset_rettslig_handleevne: r.begrenset_rettslig_handleevne,
        })
    }
}

/// A role group (`DAGL`, `STYR`, `REVI`, `REGN`, `DELT`, `BOBE`, ...) and its roles.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rollegruppe {
    #[serde(rename = "type")]
    pub gruppetype: KodeTekst,
    #[serde(default)]
    pub sist_endret: Option<NaiveDate>,
    #[serde(default, deserialize_with = "null_default")]
    pub roller: Vec<Rolle>,
}

/// An entity's roles (`GET /enheter/{orgnr}/roller`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Roller {
    #[serde(default, deserialize_with = "null_default")]
    pub rollegrupper: Vec<Rollegruppe>,
}

impl Roller {
    /// Every role with its group's code, in the answer's order.
    pub fn all(&self) -> impl Iterator<Item = (&str, &Rolle)> {
        self.rollegrupper.iter().flat_map(|g| {
            g.roller
                .iter()
                .map(move |r| (g.gruppetype.kode.as_str(), r))
        })
    }

    /// The roles of one type (`DAGL`, `LEDE`, ...) still held.
    pub fn current(&self, rolletype: &str) -> Vec<&Rolle> {
        self.all()
            .map(|(_, r)| r)
            .filter(|r| r.rolletype.kode == rolletype && r.is_current())
            .collect()
    }

    /// The natural persons holding a role, with the role's type code.
    pub fn persons(&self) -> Vec<(&str, &RollePerson)> {
        self.all()
            .filter_map(|(_, r)| match &r.innehaver {
                Innehaver::Person(p) => Some((r.rolletype.kode.as_str(), p)),
                _ => None,
            })
            .collect()
    }
}

/// What `GET /enheter/{orgnr}/roller` gave, short of "not found" and failures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RollerAnswer {
    /// 200: the role groups (an entity without roles has none).
    Roller(Roller),
    /// 410: the entity is withdrawn from open data.
    Gone,
}

// ---------------------------------------------------------------------------------------
// The update feed.

/// What kind of change a feed entry reports (`endringstype`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endringstype {
    /// Before change types existed.
    Ukjent,
    /// Added to the register.
    Ny,
    /// Changed.
    Endring,
    /// Deleted: `GET /enheter/{orgnr}` now gives a `SlettetEnhet`.
    Sletting,
    /// Withdrawn from open data (410): copies must drop the entity.
    Fjernet,
    /// A type this client does not know, as sent.
    Annen(String),
}

impl<'de> Deserialize<'de> for Endringstype {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Endringstype, D::Error> {
        let s = String::deserialize(d)?;
        Ok(match s.as_str() {
            "Ukjent" => Endringstype::Ukjent,
            "Ny" => Endringstype::Ny,
            "Endring" => Endringstype::Endring,
            "Sletting" => Endringstype::Sletting,
            "Fjernet" => Endringstype::Fjernet,
            _ => Endringstype::Annen(s),
        })
    }
}

/// One JSON Patch operation of a feed entry (`includeChanges=true`). Values are kept as
/// sent: numbers may arrive as floats (`2390749040.0`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Endring {
    pub op: String,
    pub path: String,
    #[serde(default)]
    pub value: Option<serde_json::Value>,
}

/// One feed entry: *that* an entity changed; re-fetch the entity for its new state.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Oppdatering {
    /// Sequential over the whole feed.
    #[serde(deserialize_with = "lenient_u64")]
    pub oppdateringsid: u64,
    /// When the change was published in the API.
    pub dato: DateTime<Utc>,
    pub organisasjonsnummer: String,
    pub endringstype: Endringstype,
    /// Present with `includeChanges=true`.
    #[serde(default)]
    pub endringer: Option<Vec<Endring>>,
}

/// The paging block of a HAL page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Side {
    #[serde(deserialize_with = "lenient_u64")]
    pub size: u64,
    #[serde(deserialize_with = "lenient_u64")]
    pub total_elements: u64,
    #[serde(deserialize_with = "lenient_u64")]
    pub total_pages: u64,
    #[serde(deserialize_with = "lenient_u64")]
    pub number: u64,
}

/// A page of `GET /oppdateringer/enheter`. An empty page has no `_embedded` on the wire; it
/// reads as no entries.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(from = "RawOppdateringer")]
pub struct OppdateringerEnheter {
    pub oppdateringer: Vec<Oppdatering>,
    pub page: Option<Side>,
}

impl OppdateringerEnheter {
    /// The `oppdateringsid` to ask for next (`last + 1`, as the register recommends), or
    /// `None` for an empty page (ask again later from the same id).
    pub fn next_oppdateringsid(&self) -> Option<u64> {
        self.oppdateringer
            .iter()
            .map(|o| o.oppdateringsid)
            .max()
            .map(|m| m + 1)
    }

    /// Whether this is the last page of the result (caught up).
    pub fn is_last(&self) -> bool {
        self.page
            .is_none_or(|p| p.number + 1 >= p.total_pages || self.oppdateringer.is_empty())
    }
}

#[derive(Deserialize)]
struct RawEmbedded {
    #[serde(rename = "oppdaterteEnheter", default)]
    oppdaterte_enheter: Vec<Oppdatering>,
}

#[derive(Deserialize)]
struct RawOppdateringer {
    #[serde(rename = "_embedded", default)]
    embedded: Option<RawEmbedded>,
    #[serde(default)]
    page: Option<Side>,
}

impl From<RawOppdateringer> for OppdateringerEnheter {
    fn from(r: RawOppdateringer) -> OppdateringerEnheter {
        OppdateringerEnheter {
            oppdateringer: r.embedded.map(|e| e.oppdaterte_enheter).unwrap_or_default(),
            page: r.page,
        }
    }
}
