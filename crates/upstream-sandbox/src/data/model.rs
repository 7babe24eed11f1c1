//! The records one upstream or another serves about a Swedish organisation: Bolagsverket's
//! registrations, SCB's record, Skatteverket's registrations, annual reports.

use serde::{Deserialize, Serialize};

/// The date the synthetic register describes.
pub const DATASET_AS_OF: &str = "2026-10-01";

/// The SCB import date seen on every recorded TEST response (`infortHosScb`).
pub const SCB_INFORT: &str = "2024-09-06";

/// Seed of [`Dataset::standard`].
pub const STANDARD_SEED: u64 = 0x1D4E_6000_5A4D_B0C5;

/// Bolagsverket's TEST-environment identifiers, reproduced with their recorded behaviour.
pub mod testnr {
    /// AB "Testbolag 4 bokat av SKV Aktiebolag".
    pub const AB_TESTBOLAG_4: &str = "5560021361";
    /// AB known to Bolagsverket, missing at SCB.
    pub const AB_MISSING_AT_SCB: &str = "5567223705";
    /// HB (recorded with SCB juridisk form 53, a quirk of the TEST data).
    pub const HB: &str = "9124001992";
    /// BRF.
    pub const BRF: &str = "7164099017";
    /// EK (recorded with SCB juridisk form 49, a quirk of the TEST data).
    pub const EK: &str = "7020008350";
    /// Sole trader not registered at Bolagsverket (only SCB knows the person).
    pub const NOT_REGISTERED: &str = "198101032384";
    /// Deregistered sole trader with two businesses.
    pub const SOLE_TRADER_DEREGISTERED_TWO: &str = "193403223328";
    /// Sole trader with three businesses (`typ.kod` PERSON).
    pub const SOLE_TRADER_THREE: &str = "198101052382";
    /// AB with three annual reports (the recorded `/dokumentlista` company).
    pub const AB_THREE_REPORTS: &str = "5561890038";

    /// All of the above.
    pub const ALL: [&str; 9] = [
        AB_TESTBOLAG_4,
        AB_MISSING_AT_SCB,
        HB,
        BRF,
        EK,
        NOT_REGISTERED,
        SOLE_TRADER_DEREGISTERED_TWO,
        SOLE_TRADER_THREE,
        AB_THREE_REPORTS,
    ];
}

/// A code with its text, as the registers write them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KodKlartext {
    pub kod: String,
    pub klartext: String,
}

impl KodKlartext {
    pub fn new(kod: &str, klartext: &str) -> Self {
        KodKlartext {
            kod: kod.to_owned(),
            klartext: klartext.to_owned(),
        }
    }
}

/// What kind of number the identitetsbeteckning is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IdKind {
    /// 10-digit organisationsnummer.
    Orgnr,
    /// 12-digit personnummer of a sole trader.
    Personnummer,
}

/// Legal form (Bolagsverket's `organisationsform`, plus `Public` for public bodies that
/// only SCB knows).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LegalForm {
    #[serde(rename = "AB")]
    Ab,
    #[serde(rename = "HB")]
    Hb,
    #[serde(rename = "KB")]
    Kb,
    #[serde(rename = "EK")]
    Ek,
    #[serde(rename = "BRF")]
    Brf,
    #[serde(rename = "BF")]
    Bf,
    /// Enskild näringsverksamhet (sole trader).
    #[serde(rename = "E")]
    E,
    /// Ideell förening.
    #[serde(rename = "I")]
    I,
    /// Stiftelse.
    #[serde(rename = "S")]
    S,
    /// State or municipal body: not in Bolagsverket's registers, known to SCB.
    #[serde(rename = "PUBLIC")]
    Public,
}

impl LegalForm {
    pub const ALL: [LegalForm; 10] = [
        LegalForm::Ab,
        LegalForm::Hb,
        LegalForm::Kb,
        LegalForm::Ek,
        LegalForm::Brf,
        LegalForm::Bf,
        LegalForm::E,
        LegalForm::I,
        LegalForm::S,
        LegalForm::Public,
    ];

    /// Bolagsverket's `organisationsform.kod` (empty for `Public`).
    pub fn kod(self) -> &'static str {
        match self {
            LegalForm::Ab => "AB",
            LegalForm::Hb => "HB",
            LegalForm::Kb => "KB",
            LegalForm::Ek => "EK",
            LegalForm::Brf => "BRF",
            LegalForm::Bf => "BF",
            LegalForm::E => "E",
            LegalForm::I => "I",
            LegalForm::S => "S",
            LegalForm::Public => "",
        }
    }

    /// Bolagsverket's `organisationsform.klartext`.
    pub fn klartext(self) -> &'static str {
        match self {
            LegalForm::Ab => "Aktiebolag",
            LegalForm::Hb => "Handelsbolag",
            LegalForm::Kb => "Kommanditbolag",
            LegalForm::Ek => "Ekonomisk förening",
            LegalForm::Brf => "Bostadsrättsförening",
            LegalForm::Bf => "Bostadsförening",
            LegalForm::E => "Enskild näringsverksamhet",
            LegalForm::I => "Ideell förening",
            LegalForm::S => "Stiftelse",
            LegalForm::Public => "Offentlig enhet",
        }
    }

    /// SCB's juridisk form (2-digit code and text) usual for this form.
    pub fn scb_juridisk_form(self) -> KodKlartext {
        let (k, t) = match self {
            LegalForm::Ab => ("49", "Övriga aktiebolag"),
            LegalForm::Hb | LegalForm::Kb => ("31", "Handelsbolag, kommanditbolag"),
            LegalForm::Ek | LegalForm::Bf => ("51", "Ekonomiska föreningar"),
            LegalForm::Brf => ("53", "Bostadsrättsföreningar"),
            LegalForm::E => ("10", "Fysiska personer"),
            LegalForm::I => ("61", "Ideella föreningar"),
            LegalForm::S => ("72", "Övriga stiftelser och fonder"),
            LegalForm::Public => ("81", "Statliga enheter"),
        };
        KodKlartext::new(k, t)
    }

    /// Parses a Bolagsverket code (`AB`, `HB`, ..., `PUBLIC`), case-insensitively.
    pub fn parse(s: &str) -> Option<LegalForm> {
        let up = s.to_ascii_uppercase();
        LegalForm::ALL
            .into_iter()
            .find(|f| f.kod() == up || (up == "PUBLIC" && *f == LegalForm::Public))
    }
}

/// The overall state of an organisation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CompanyStatus {
    Active,
    /// Avregistrerad (`avregistreradOrganisation` + `avregistreringsorsak`).
    Deregistered,
    /// Pågående likvidation (`pagaende…` LI).
    Liquidation,
    /// Pågående konkurs (`pagaende…` KK).
    Bankruptcy,
}

impl CompanyStatus {
    pub fn parse(s: &str) -> Option<CompanyStatus> {
        match s.to_ascii_lowercase().as_str() {
            "active" => Some(CompanyStatus::Active),
            "deregistered" => Some(CompanyStatus::Deregistered),
            "liquidation" => Some(CompanyStatus::Liquidation),
            "bankruptcy" => Some(CompanyStatus::Bankruptcy),
            _ => None,
        }
    }
}

/// One name of an organisation (`organisationsnamnLista` entry).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameEntry {
    pub namn: String,
    /// `organisationsnamntyp`, e.g. FORETAGSNAMN, SARS_FORNAMN, FORNAMN_FRSPRAK.
    pub typ: Option<KodKlartext>,
    pub registreringsdatum: Option<String>,
    /// `verksamhetsbeskrivningSarskiltForetagsnamn`.
    pub verksamhetsbeskrivning: Option<String>,
}

impl NameEntry {
    pub fn foretagsnamn(namn: &str, date: Option<&str>) -> Self {
        NameEntry {
            namn: namn.to_owned(),
            typ: Some(KodKlartext::new("FORETAGSNAMN", "Företagsnamn")),
            registreringsdatum: date.map(str::to_owned),
            verksamhetsbeskrivning: None,
        }
    }
}

/// A postal address. `None` fields are sent as JSON `null`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Postadress {
    pub utdelningsadress: Option<String>,
    pub postnummer: Option<String>,
    pub postort: Option<String>,
    pub co_adress: Option<String>,
    pub land: Option<String>,
}

/// Deregistration (`avregistreradOrganisation` + `avregistreringsorsak`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deregistration {
    /// As sent: `2019-05-05` or `2019-05-05T00:00:00.000+00:00` (both occur upstream).
    pub datum: String,
    pub orsak: KodKlartext,
}

/// An ongoing winding-up or restructuring procedure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proceeding {
    /// `KK` (konkurs), `LI` (likvidation), `FR` (företagsrekonstruktion), ...
    pub kod: String,
    pub klartext: String,
    /// As sent, e.g. `2024-01-26T00:00:00.000+00:00`.
    pub from_datum: String,
}

/// What Bolagsverket has registered for one namnskyddslöpnummer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BvRegistration {
    /// `None` for all forms but sole traders.
    pub namnskyddslopnummer: Option<u32>,
    /// `organisationsidentitet.typ` (ORGNR / PERSON).
    pub identitetstyp: Option<KodKlartext>,
    pub organisationsform: KodKlartext,
    pub names: Vec<NameEntry>,
    pub registreringsdatum: Option<String>,
    pub verksamhetsbeskrivning: Option<String>,
    pub postadress: Option<Postadress>,
    pub registreringsland: Option<KodKlartext>,
    pub deregistration: Option<Deregistration>,
    pub proceedings: Vec<Proceeding>,
}

impl BvRegistration {
    /// The registered company name (the first FORETAGSNAMN entry, else the first name).
    pub fn name(&self) -> Option<&str> {
        self.names
            .iter()
            .find(|n| n.typ.as_ref().is_some_and(|t| t.kod == "FORETAGSNAMN"))
            .or_else(|| self.names.first())
            .map(|n| n.namn.as_str())
    }

    pub fn status(&self) -> CompanyStatus {
        if self.deregistration.is_some() {
            CompanyStatus::Deregistered
        } else if self.proceedings.iter().any(|p| p.kod == "KK") {
            CompanyStatus::Bankruptcy
        } else if self.proceedings.iter().any(|p| p.kod == "LI") {
            CompanyStatus::Liquidation
        } else {
            CompanyStatus::Active
        }
    }
}

/// Seat municipality and county (SCB codes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    pub kommun_kod: String,
    pub kommun: String,
    pub lan_kod: String,
    pub lan: String,
}

/// What SCB's företagsregister holds (one record per identitetsbeteckning).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScbRecord {
    pub namn: String,
    pub juridisk_form: KodKlartext,
    /// SNI codes, main first (at most 5 are sent).
    pub sni: Vec<KodKlartext>,
    /// SCB's own registration date (`Registreringsdatum` in hamtaforetag).
    pub registreringsdatum: Option<String>,
    pub infort_hos_scb: Option<String>,
    /// Företagsstatus: verksam (true) or not.
    pub verksam: bool,
    pub reklamsparr: bool,
    /// Postal address as SCB holds it (co "" when none; land null).
    pub postadress: Postadress,
    pub seat: Option<Seat>,
    /// Employee size class code (`Stkl, kod`), see [`employees_class_text`].
    pub employees_class: String,
    pub workplaces: u32,
}

/// Skatteverket's registrations (SSBTGU UD0029/UD0031/UD0033; SCB TG15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaxRecord {
    pub f_skatt: bool,
    pub moms: bool,
    pub arbetsgivare: bool,
}

/// A sole trader's name (synthetic test names in Bolagsverket's TEST style).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersonName {
    pub fornamn: String,
    pub efternamn: String,
}

/// One filed annual report, with the key figures its iXBRL carries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnnualReport {
    /// `<uuid>_paket`.
    pub dokument_id: String,
    pub period_from: String,
    /// `rapporteringsperiodTom`.
    pub period_tom: String,
    /// `registreringstidpunkt` (date).
    pub registreringstidpunkt: String,
    pub nettoomsattning: i64,
    pub rorelseresultat: i64,
    pub arets_resultat: i64,
    pub eget_kapital: i64,
    pub summa_tillgangar: i64,
    pub medelantalet_anstallda: u32,
}

impl AnnualReport {
    /// The fiscal year (year of `period_tom`).
    pub fn year(&self) -> i32 {
        self.period_tom[..4].parse().unwrap_or(0)
    }
}

/// One organisation (one identitetsbeteckning) and what each upstream knows about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Company {
    /// Identitetsbeteckning: 10-digit orgnr or 12-digit personnummer.
    pub id: String,
    pub id_kind: IdKind,
    pub legal_form: LegalForm,
    /// Bolagsverket; empty = not registered there.
    pub registrations: Vec<BvRegistration>,
    /// SCB; `None` = missing at SCB.
    pub scb: Option<ScbRecord>,
    /// Skatteverket; `None` = unknown to Skatteverket.
    pub tax: Option<TaxRecord>,
    /// Sole traders only.
    pub holder: Option<PersonName>,
    /// Oldest first.
    pub annual_reports: Vec<AnnualReport>,
    /// Why this entry exists, for the recorded TEST numbers.
    pub note: Option<String>,
    /// Officers (funktionärer), for the company information API.
    #[serde(default)]
    pub officers: Vec<Officer>,
    /// The signatory rule (firmateckning); `None` when the register holds none.
    #[serde(default)]
    pub signatory: Option<Signatory>,
    /// The register of beneficial owners' entry; `None` = not in that register.
    #[serde(default)]
    pub ownership: Option<OwnershipRecord>,
}

impl Company {
    /// The name the company is best known by (Bolagsverket's, else SCB's).
    pub fn name(&self) -> Option<&str> {
        self.registrations
            .first()
            .and_then(|r| r.name())
            .or(self.scb.as_ref().map(|s| s.namn.as_str()))
    }

    /// Status of the first registration (for SCB-only entries: from SCB's verksam flag).
    pub fn status(&self) -> CompanyStatus {
        match self.registrations.first() {
            Some(r) => r.status(),
            None => match &self.scb {
                Some(s) if !s.verksam => CompanyStatus::Deregistered,
                _ => CompanyStatus::Active,
            },
        }
    }

    pub fn is_at_bolagsverket(&self) -> bool {
        !self.registrations.is_empty()
    }

    pub fn is_at_scb(&self) -> bool {
        self.scb.is_some()
    }

    pub fn is_sole_trader(&self) -> bool {
        self.legal_form == LegalForm::E
    }

    /// Number of businesses (namnskyddslöpnummer) registered at Bolagsverket.
    pub fn business_count(&self) -> usize {
        self.registrations.len()
    }

    pub fn report(&self, dokument_id: &str) -> Option<&AnnualReport> {
        self.annual_reports
            .iter()
            .find(|r| r.dokument_id == dokument_id)
    }

    /// The 10-digit number SCB keys on (last ten digits of a personnummer).
    pub fn orgnr10(&self) -> &str {
        &self.id[self.id.len() - 10..]
    }
}

// Who runs and owns an organisation, as the registers hold it (generated by `roles`).

/// A party's identity number as the registry writes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartyId {
    /// `PERSONNUMMER`, `SAMORDNINGSNUMMER` or `ORGANISATIONSNUMMER`.
    pub typ: String,
    pub nummer: String,
}

/// One role of an officer, with the date it was registered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Role {
    pub kod: String,
    pub klartext: String,
    pub registreringsdatum: Option<String>,
}

/// A funktionär: a person (name and number, or a foreign person without a Swedish number)
/// or an organisation (an audit firm).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Officer {
    pub person: Option<PersonName>,
    pub organisation_name: Option<String>,
    pub identitet: Option<PartyId>,
    pub roles: Vec<Role>,
}

/// The signatory rule (firmateckning) as text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signatory {
    pub klartext: String,
    pub prokuratext: Option<String>,
}

/// A beneficial owner as the register of beneficial owners holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BeneficialOwner {
    pub name: PersonName,
    /// `None`: a foreign owner without a Swedish number.
    pub identitet: Option<PartyId>,
    pub medborgarskap: String,
    pub bosattningsland: String,
    /// How control is held (`AGANDE`, `ROSTER`, `ANNAN_KONTROLL`, `LEDNING`).
    pub kontroll: KodKlartext,
    /// The share band (`OVER_25_TILL_50`, ...); `None` for control by other means.
    pub omfattning: Option<KodKlartext>,
    pub registreringsdatum: String,
}

/// The register of beneficial owners' entry for one organisation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnershipRecord {
    /// True when the organisation has reported no beneficial owner (never reported, or
    /// reported that none could be identified).
    pub uppgift_saknas: bool,
    pub owners: Vec<BeneficialOwner>,
}
