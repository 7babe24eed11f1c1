//! The register's JSON as the sandbox writes it: structs whose field order is the wire's
//! (taken from the recorded answers), absent keys for unset fields, dates as the text the
//! register sends. They are the sandbox's own, kept apart from the client's model on
//! purpose: the client must read what the sandbox writes, not share its mistakes.
//!
//! They read the recorded answers too (`deny_unknown_fields`: a field the sandbox does not
//! know fails the round-trip test), so a recorded entity can be changed by a control route
//! and served again in the same shape.

use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

/// The links prefix every recorded answer uses; answers are rewritten to the sandbox's own
/// address when served.
pub(crate) const REAL_API: &str = "https://data.brreg.no/enhetsregisteret/api";

/// `{"href": ...}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Href {
    pub href: String,
}

impl Href {
    pub fn to(path: impl std::fmt::Display) -> Href {
        Href {
            href: format!("{REAL_API}{path}"),
        }
    }
}

/// `{"self": {"href": ...}}` with an optional parent (`overordnetEnhet`) or entity link.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Links {
    #[serde(rename = "self")]
    pub self_: Href,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enhet: Option<Href>,
    #[serde(
        default,
        rename = "overordnetEnhet",
        skip_serializing_if = "Option::is_none"
    )]
    pub overordnet_enhet: Option<Href>,
}

impl Links {
    pub fn own(path: impl std::fmt::Display) -> Links {
        Links {
            self_: Href::to(path),
            enhet: None,
            overordnet_enhet: None,
        }
    }
}

/// A legal form, role type, role group or `valgtAv` code with its text and link.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct KodeLink {
    pub kode: String,
    pub beskrivelse: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utgaatt: Option<String>,
    #[serde(rename = "_links")]
    pub links: Links,
}

impl KodeLink {
    /// A code under one of the register's code lists (`organisasjonsformer`,
    /// `roller/rolletyper`, `roller/rollegruppetyper`, `roller/representanter`).
    pub fn of(list: &str, kode: &str, beskrivelse: &str) -> KodeLink {
        KodeLink {
            kode: kode.to_owned(),
            beskrivelse: beskrivelse.to_owned(),
            utgaatt: None,
            links: Links::own(format!("/{list}/{kode}")),
        }
    }
}

/// A code and text without a link (`naeringskode1`, `institusjonellSektorkode`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Kode {
    pub kode: String,
    pub beskrivelse: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HistoriskNavn {
    pub navn: String,
    #[serde(rename = "fraDato")]
    pub fra_dato: String,
    #[serde(rename = "tilDato")]
    pub til_dato: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Adresse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub land: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landkode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postnummer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poststed: Option<String>,
    #[serde(default)]
    pub adresse: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kommune: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kommunenummer: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct Paategning {
    pub infotype: String,
    pub tekst: String,
    pub innfoert_dato: String,
}

/// Share capital; numbers kept as written (`30000` or `30000.0`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct Kapital {
    pub belop: Number,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub antall_aksjer: Option<Number>,
    #[serde(rename = "type")]
    pub kapitaltype: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bundet: Option<Number>,
    pub valuta: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub innbetalt: Option<Number>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fullt_innbetalt: Option<bool>,
    pub innfort_dato: String,
}

/// An entity (`Enhet`), in the wire's field order. A deleted one is written as
/// [`SlettetEnhet`] from the same value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct Enhet {
    pub organisasjonsnummer: String,
    pub navn: String,
    pub organisasjonsform: KodeLink,
    #[serde(default)]
    pub historiske_navn: Vec<HistoriskNavn>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hjemmeside: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postadresse: Option<Adresse>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registreringsdato_enhetsregisteret: Option<String>,
    #[serde(default)]
    pub registrert_i_mvaregisteret: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frivillig_mva_registrert_beskrivelser: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub naeringskode1: Option<Kode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub naeringskode2: Option<Kode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub naeringskode3: Option<Kode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub antall_ansatte: Option<u64>,
    #[serde(default)]
    pub har_registrert_antall_ansatte: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overordnet_enhet: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registreringsdato_frivillig_merverdiavgiftsregisteret: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registreringsdato_merverdiavgiftsregisteret: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registreringsdato_merverdiavgiftsregisteret_enhetsregisteret: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registreringsdato_antall_ansatte_enhetsregisteret: Option<String>,
    #[serde(
        default,
        rename = "registreringsdatoAntallAnsatteNAVAaregisteret",
        skip_serializing_if = "Option::is_none"
    )]
    pub registreringsdato_antall_ansatte_nav_aaregisteret: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epostadresse: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub telefon: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mobil: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forretningsadresse: Option<Adresse>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stiftelsesdato: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub institusjonell_sektorkode: Option<Kode>,
    #[serde(default)]
    pub registrert_i_foretaksregisteret: bool,
    #[serde(default)]
    pub registrert_i_stiftelsesregisteret: bool,
    #[serde(default)]
    pub registrert_i_frivillighetsregisteret: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub siste_innsendte_aarsregnskap: Option<String>,
    #[serde(default)]
    pub konkurs: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub konkursdato: Option<String>,
    #[serde(default)]
    pub under_avvikling: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub under_avvikling_dato: Option<String>,
    #[serde(default)]
    pub under_tvangsavvikling_eller_tvangsopplosning: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tvangsavviklet_pga_manglende_sletting_dato: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tvangsopplost_pga_manglende_daglig_leder_dato: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tvangsopplost_pga_manglende_revisor_dato: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tvangsopplost_pga_manglende_regnskap_dato: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tvangsopplost_pga_mangelfullt_styre_dato: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub under_rekonstruksjonsforhandling_dato: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub under_utenlandsk_insolvensbehandling_dato: Option<String>,
    #[serde(default = "bokmaal")]
    pub maalform: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vedtektsdato: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vedtektsfestet_formaal: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aktivitet: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registreringsdato_foretaksregisteret: Option<String>,
    #[serde(default)]
    pub registrert_i_partiregisteret: bool,
    #[serde(default)]
    pub paategninger: Vec<Paategning>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fravalg_revisjon_dato: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fravalg_revisjon_beslutnings_dato: Option<String>,
    #[serde(default)]
    pub er_i_konsern: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kapital: Option<Kapital>,
    /// Only on a recorded `SlettetEnhet`; never written on an `Enhet`.
    #[serde(default, skip_serializing)]
    pub slettedato: Option<String>,
    #[serde(rename = "_links")]
    pub links: Links,
    #[serde(rename = "respons_klasse")]
    pub respons_klasse: String,
}

fn bokmaal() -> String {
    "Bokmål".to_owned()
}

/// A deleted entity (`SlettetEnhet`): the few fields the register keeps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SlettetEnhet<'a> {
    pub organisasjonsnummer: &'a str,
    pub navn: &'a str,
    pub organisasjonsform: &'a KodeLink,
    pub historiske_navn: &'a [HistoriskNavn],
    pub slettedato: &'a str,
    #[serde(rename = "_links")]
    pub links: &'a Links,
    #[serde(rename = "respons_klasse")]
    pub respons_klasse: &'static str,
}

impl Enhet {
    pub fn slettet<'a>(&'a self, slettedato: &'a str) -> SlettetEnhet<'a> {
        SlettetEnhet {
            organisasjonsnummer: &self.organisasjonsnummer,
            navn: &self.navn,
            organisasjonsform: &self.organisasjonsform,
            historiske_navn: &self.historiske_navn,
            slettedato,
            links: &self.links,
            respons_klasse: "SlettetEnhet",
        }
    }
}

/// A withdrawn entity (410 `GoneEnhet`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct GoneEnhet<'a> {
    pub organisasjonsnummer: &'a str,
    pub slettedato: &'a str,
    #[serde(rename = "_links")]
    pub links: Links,
}

// ---------------------------------------------------------------------------------------
// Roles.

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PersonNavn {
    pub fornavn: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mellomnavn: Option<String>,
    pub etternavn: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct Person {
    pub fodselsdato: String,
    pub navn: PersonNavn,
    pub er_doed: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct RolleEnhet {
    pub organisasjonsnummer: String,
    pub organisasjonsform: KodeLink,
    pub navn: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub godkjenningsstatus: Option<String>,
    pub er_slettet: bool,
    #[serde(rename = "_links")]
    pub links: Links,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct Bostyrer {
    pub navn: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postadresse: Option<Adresse>,
    pub er_doed: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct Rolle {
    #[serde(rename = "type")]
    pub rolletype: KodeLink,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person: Option<Person>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enhet: Option<RolleEnhet>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bostyrer: Option<Bostyrer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valgt_av: Option<KodeLink>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ansvarsandel: Option<String>,
    /// Sent until June 2026 only (the recorded Equinor answer has it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fratraadt: Option<bool>,
    pub avregistrert: bool,
    pub rekkefolge: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct Rollegruppe {
    #[serde(rename = "type")]
    pub gruppetype: KodeLink,
    pub sist_endret: String,
    pub roller: Vec<Rolle>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Roller {
    pub rollegrupper: Vec<Rollegruppe>,
    #[serde(rename = "_links")]
    pub links: Links,
}

impl Roller {
    /// No role groups (an entity without roles, or a deleted one).
    pub fn empty(orgnr: &str) -> Roller {
        Roller {
            rollegrupper: Vec::new(),
            links: Links {
                self_: Href::to(format!("/enheter/{orgnr}/roller")),
                enhet: Some(Href::to(format!("/enheter/{orgnr}"))),
                overordnet_enhet: None,
            },
        }
    }
}

// ---------------------------------------------------------------------------------------
// The feed and errors.

/// One JSON Patch operation, keys in the wire's order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Patch {
    pub op: String,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
}

impl Patch {
    pub fn replace(path: &str, value: Value) -> Patch {
        Patch {
            op: "replace".into(),
            path: path.into(),
            value: Some(value),
        }
    }

    pub fn add(path: &str, value: Value) -> Patch {
        Patch {
            op: "add".into(),
            path: path.into(),
            value: Some(value),
        }
    }

    pub fn remove(path: &str) -> Patch {
        Patch {
            op: "remove".into(),
            path: path.into(),
            value: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct FeedLinks {
    pub enhet: Href,
}

/// One feed entry as written.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Oppdatering<'a> {
    pub oppdateringsid: u64,
    pub dato: String,
    pub organisasjonsnummer: &'a str,
    pub endringstype: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub endringer: Option<&'a [Patch]>,
    #[serde(rename = "_links")]
    pub links: FeedLinks,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Embedded<'a> {
    #[serde(rename = "oppdaterteEnheter")]
    pub oppdaterte_enheter: Vec<Oppdatering<'a>>,
}

/// The HAL paging links, in Spring's order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct PageLinks {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first: Option<Href>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prev: Option<Href>,
    #[serde(rename = "self")]
    pub self_: Href,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<Href>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<Href>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Page {
    pub size: u64,
    pub total_elements: u64,
    pub total_pages: u64,
    pub number: u64,
}

/// A feed page; an empty one has no `_embedded`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct OppdateringerPage<'a> {
    #[serde(rename = "_embedded", skip_serializing_if = "Option::is_none")]
    pub embedded: Option<Embedded<'a>>,
    #[serde(rename = "_links")]
    pub links: PageLinks,
    pub page: Page,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Valideringsfeil {
    pub feilmelding: String,
    pub parametere: Vec<String>,
    pub feilaktig_verdi: String,
}

/// The 400 body every endpoint shares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BadRequest {
    pub tidsstempel: i64,
    pub status: u16,
    pub feilmelding: &'static str,
    pub sti: String,
    pub antall_feil: usize,
    pub valideringsfeil: Vec<Valideringsfeil>,
}

/// Spring's error body (500 and the other server errors; 404 and 405 for unknown routes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct SpringError {
    pub timestamp: String,
    pub status: u16,
    pub error: String,
    pub message: String,
    pub path: String,
    pub trace: String,
}
