//! The deterministic synthetic data set: a few hundred Swedish organisations of every legal
//! form and state, Bolagsverket's own TEST-environment numbers with their recorded
//! behaviour, and a handful of Lithuanian companies.
//!
//! Everything is generated from a fixed seed by a platform-independent PRNG, so two calls
//! to [`Dataset::standard`] are equal, on every machine and every run. The data describe
//! the register "as of" [`DATASET_AS_OF`]; no value depends on the wall clock.
//!
//! One [`Company`] is one identitetsbeteckning. What each upstream knows about it sits in
//! separate parts, so each source can miss it independently:
//! [`Company::registrations`] (Bolagsverket; one entry per namnskyddslöpnummer, empty =
//! not registered), [`Company::scb`] (SCB's företagsregister), [`Company::tax`]
//! (Skatteverket's registrations as served through SSBTGU).

use crate::util::{lt_check_digit, luhn_check_digit, luhn_valid, uuid_from_seed, SplitMix64};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

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

/// A Lithuanian legal entity (RC JAR `JuridinisAsmuo`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LtCompany {
    pub ja_kodas: u32,
    pub ja_pavadinimas: String,
    pub pilnas_adresas: Option<String>,
    /// `_id` of the record.
    pub record_id: String,
    /// `adresas._id` (a reference into the address register).
    pub adresas_id: Option<String>,
    /// JAR legal form code (310 = UAB).
    pub forma: u32,
    /// JAR legal status code (0 = no status, 6 = bankrupt, 7 = liquidating, 10 = deregistered).
    pub statusas: u32,
    pub reg_data: String,
    pub isreg_data: Option<String>,
    pub stat_data: Option<String>,
}

/// The data set served by the sandbox.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dataset {
    companies: Vec<Company>,
    lt_companies: Vec<LtCompany>,
}

impl Default for Dataset {
    fn default() -> Self {
        Dataset::standard()
    }
}

impl Dataset {
    /// The standard data set (seed [`STANDARD_SEED`]).
    pub fn standard() -> Dataset {
        Dataset::generate(STANDARD_SEED)
    }

    /// An empty data set (add entries with [`Dataset::insert`]).
    pub fn empty() -> Dataset {
        Dataset {
            companies: Vec::new(),
            lt_companies: Vec::new(),
        }
    }

    /// The recorded TEST companies plus synthetic ones generated from `seed`.
    pub fn generate(seed: u64) -> Dataset {
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
        Dataset {
            companies,
            lt_companies: lt_companies(),
        }
    }

    pub fn companies(&self) -> &[Company] {
        &self.companies
    }

    /// Looks up an identitetsbeteckning (exact: 10 or 12 digits).
    pub fn company(&self, id: &str) -> Option<&Company> {
        self.companies.iter().find(|c| c.id == id)
    }

    pub fn company_mut(&mut self, id: &str) -> Option<&mut Company> {
        self.companies.iter_mut().find(|c| c.id == id)
    }

    /// Looks up the 10-digit number SCB uses (a personnummer's last ten digits also match).
    pub fn company_by_orgnr10(&self, orgnr10: &str) -> Option<&Company> {
        self.companies.iter().find(|c| c.orgnr10() == orgnr10)
    }

    /// Adds a company, replacing any entry with the same id.
    pub fn insert(&mut self, company: Company) {
        match self.companies.iter_mut().find(|c| c.id == company.id) {
            Some(slot) => *slot = company,
            None => self.companies.push(company),
        }
    }

    /// The first company matching `pred`.
    pub fn find(&self, pred: impl Fn(&Company) -> bool) -> Option<&Company> {
        self.companies.iter().find(|c| pred(c))
    }

    /// All companies matching `pred`.
    pub fn filter(&self, pred: impl Fn(&Company) -> bool) -> Vec<&Company> {
        self.companies.iter().filter(|c| pred(c)).collect()
    }

    /// The annual report with this `dokumentId`, and its company.
    pub fn document(&self, dokument_id: &str) -> Option<(&Company, &AnnualReport)> {
        self.companies
            .iter()
            .find_map(|c| c.report(dokument_id).map(|r| (c, r)))
    }

    pub fn lt_companies(&self) -> &[LtCompany] {
        &self.lt_companies
    }

    pub fn lt_company(&self, ja_kodas: u32) -> Option<&LtCompany> {
        self.lt_companies.iter().find(|c| c.ja_kodas == ja_kodas)
    }

    pub fn lt_company_mut(&mut self, ja_kodas: u32) -> Option<&mut LtCompany> {
        self.lt_companies
            .iter_mut()
            .find(|c| c.ja_kodas == ja_kodas)
    }

    // ----- pickers for tests -----

    /// A synthetic (not a recorded TEST number) active company of `form`.
    pub fn active(&self, form: LegalForm) -> Option<&Company> {
        self.find(|c| {
            c.legal_form == form
                && c.status() == CompanyStatus::Active
                && c.note.is_none()
                && (form == LegalForm::Public || c.is_at_bolagsverket())
                && c.is_at_scb()
        })
    }

    /// An active AB, known to every source, with exactly `n` annual reports.
    pub fn active_ab_with_reports(&self, n: usize) -> Option<&Company> {
        self.find(|c| {
            c.legal_form == LegalForm::Ab
                && c.status() == CompanyStatus::Active
                && c.is_at_scb()
                && c.note.is_none()
                && c.annual_reports.len() == n
        })
    }

    /// A synthetic company registered at Bolagsverket but missing at SCB.
    pub fn missing_at_scb(&self) -> Option<&Company> {
        self.find(|c| c.is_at_bolagsverket() && !c.is_at_scb() && c.note.is_none())
    }

    /// A synthetic company known only to SCB (a public body).
    pub fn only_at_scb(&self) -> Option<&Company> {
        self.find(|c| !c.is_at_bolagsverket() && c.is_at_scb() && c.note.is_none())
    }

    /// A synthetic company of any form in `status`.
    pub fn with_status(&self, status: CompanyStatus) -> Option<&Company> {
        self.find(|c| c.status() == status && c.note.is_none() && c.is_at_bolagsverket())
    }

    pub fn bankrupt(&self) -> Option<&Company> {
        self.with_status(CompanyStatus::Bankruptcy)
    }

    pub fn in_liquidation(&self) -> Option<&Company> {
        self.with_status(CompanyStatus::Liquidation)
    }

    pub fn deregistered(&self) -> Option<&Company> {
        self.with_status(CompanyStatus::Deregistered)
    }

    /// A synthetic sole trader with more than one business.
    pub fn sole_trader_with_several_businesses(&self) -> Option<&Company> {
        self.find(|c| c.is_sole_trader() && c.business_count() > 1 && c.note.is_none())
    }

    /// One handy number per category (label, identitetsbeteckning), as the README lists.
    pub fn handy_numbers(&self) -> Vec<(&'static str, String)> {
        let mut out: Vec<(&'static str, String)> = Vec::new();
        let mut put = |label: &'static str, c: Option<&Company>| {
            if let Some(c) = c {
                out.push((label, c.id.clone()));
            }
        };
        put(
            "active AB, 0 annual reports",
            self.active_ab_with_reports(0),
        );
        put("active AB, 1 annual report", self.active_ab_with_reports(1));
        put(
            "active AB, 2 annual reports",
            self.active_ab_with_reports(2),
        );
        put(
            "active AB, 3 annual reports",
            self.active_ab_with_reports(3),
        );
        put("active HB", self.active(LegalForm::Hb));
        put("active KB", self.active(LegalForm::Kb));
        put("active EK", self.active(LegalForm::Ek));
        put("active BRF", self.active(LegalForm::Brf));
        put("active BF", self.active(LegalForm::Bf));
        put("active I (ideell förening)", self.active(LegalForm::I));
        put("active S (stiftelse)", self.active(LegalForm::S));
        put("public body (only at SCB)", self.only_at_scb());
        put("missing at SCB", self.missing_at_scb());
        put("bankruptcy (KK)", self.bankrupt());
        put("liquidation (LI)", self.in_liquidation());
        put("deregistered", self.deregistered());
        put(
            "sole trader, one business",
            self.find(|c| c.is_sole_trader() && c.business_count() == 1 && c.note.is_none()),
        );
        put(
            "sole trader, several businesses",
            self.sole_trader_with_several_businesses(),
        );
        out.push(("unknown (valid check digit)", self.unknown_orgnr()));
        out
    }

    /// A valid (Luhn-correct) AB number that is not in the data set.
    pub fn unknown_orgnr(&self) -> String {
        let mut n: u64 = 0;
        loop {
            let nine = format!("55990{:04}", n);
            let id = format!("{nine}{}", luhn_check_digit(&nine));
            if self.company(&id).is_none() {
                return id;
            }
            n += 1;
        }
    }
}

// ---------------------------------------------------------------------------------------
// Code tables (public classifications; klartext as the registers write them)
// ---------------------------------------------------------------------------------------

/// SNI 2007 codes used by the data set.
pub const SNI_CODES: &[(&str, &str)] = &[
    (
        "01110",
        "Odling av spannmål (utom ris), baljväxter och oljeväxter",
    ),
    ("02200", "Drivning"),
    ("10710", "Tillverkning av mjukt matbröd och färska bakverk"),
    ("41200", "Byggande av bostadshus och andra byggnader"),
    ("43210", "Elinstallationer"),
    ("43320", "Byggnadssnickeriarbeten"),
    ("43341", "Måleriarbeten"),
    (
        "45201",
        "Allmän service och reparationer av motorfordon utom motorcyklar",
    ),
    ("46900", "Icke specialiserad partihandel"),
    ("47710", "Specialiserad butikshandel med kläder"),
    ("49410", "Vägtransport, godstrafik"),
    ("55101", "Hotellverksamhet med restaurangrörelse"),
    ("56100", "Restaurangverksamhet"),
    ("58290", "Utgivning av annan programvara"),
    ("62010", "Dataprogrammering"),
    ("62020", "Datakonsultverksamhet"),
    ("63110", "Databehandling, hosting o.d."),
    ("64202", "Holdingverksamhet i icke-finansiella koncerner"),
    (
        "68201",
        "Uthyrning och förvaltning av egna eller arrenderade bostäder",
    ),
    (
        "68203",
        "Uthyrning och förvaltning av egna eller arrenderade, andra lokaler",
    ),
    ("68204", "Förvaltning i bostadsrättsföreningar"),
    ("69101", "Advokatbyråverksamhet"),
    ("69201", "Redovisning och bokföring"),
    ("70220", "Konsultverksamhet avseende företags organisation"),
    ("71110", "Arkitektverksamhet"),
    ("73111", "Reklambyråverksamhet"),
    ("81210", "Lokalvård"),
    (
        "84110",
        "Stats- och kommunledning, lagstiftning och övergripande planering",
    ),
    ("85600", "Stödverksamhet för utbildning"),
    ("86230", "Tandläkarverksamhet"),
    ("93120", "Sportklubbars och idrottsföreningars verksamhet"),
    ("94990", "Verksamhet i andra intresseorganisationer"),
    ("96021", "Hårvård"),
];

/// The klartext of an SNI code known to the data set.
pub fn sni_klartext(kod: &str) -> Option<&'static str> {
    SNI_CODES.iter().find(|(k, _)| *k == kod).map(|(_, t)| *t)
}

/// Employee size class texts (`Stkl, kod` → `Storleksklass`).
pub fn employees_class_text(kod: &str) -> &'static str {
    match kod {
        "1" => "0 anställda",
        "2" => "1-4 anställda",
        "3" => "5-9 anställda",
        "4" => "10-19 anställda",
        "5" => "20-49 anställda",
        "6" => "50-99 anställda",
        "7" => "100-199 anställda",
        "8" => "200-499 anställda",
        "9" => "500-999 anställda",
        "10" => "1000-1499 anställda",
        "11" => "1500-1999 anställda",
        "12" => "2000-2999 anställda",
        "13" => "3000-3999 anställda",
        "14" => "4000-4999 anställda",
        "15" => "5000-9999 anställda",
        "16" => "10000- anställda",
        _ => "Uppgift saknas",
    }
}

/// Inclusive employee range of a size class (for generated annual-report figures).
pub fn employees_class_range(kod: &str) -> (u32, u32) {
    match kod {
        "1" => (0, 0),
        "2" => (1, 4),
        "3" => (5, 9),
        "4" => (10, 19),
        "5" => (20, 49),
        "6" => (50, 99),
        "7" => (100, 199),
        "8" => (200, 499),
        "9" => (500, 999),
        _ => (0, 0),
    }
}

/// `avregistreringsorsak` codes used (klartext partly inferred).
pub fn avregistreringsorsak(kod: &str) -> KodKlartext {
    let t = match kod {
        "LIAV" => "Likvidation",
        "KKAV" => "Konkurs",
        "FUAV" => "Fusion",
        "AVREG" => "Avregistrerad",
        "VERKUPP" => "Verksamheten har upphört",
        "OVERK" => "Overksamhet",
        "DELAV" => "Delning",
        "OMAV" => "Ombildning",
        _ => "Avregistrerad",
    };
    KodKlartext::new(kod, t)
}

/// `pagaende…` procedure codes used.
pub fn proceeding(kod: &str, from_date: &str) -> Proceeding {
    let t = match kod {
        "KK" => "Konkurs",
        "LI" => "Likvidation",
        "FR" => "Företagsrekonstruktion",
        _ => "Pågående förfarande",
    };
    Proceeding {
        kod: kod.to_owned(),
        klartext: t.to_owned(),
        from_datum: format!("{from_date}T00:00:00.000+00:00"),
    }
}

pub(crate) fn orgnr_typ() -> KodKlartext {
    KodKlartext::new("ORGNR", "Organisationsnummer")
}

pub(crate) fn person_typ() -> KodKlartext {
    KodKlartext::new("PERSON", "Identitetsbeteckning person")
}

pub(crate) fn sverige() -> KodKlartext {
    KodKlartext::new("SE-LAND", "Sverige")
}

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
const TEST_PERSONNUMMER: &[&str] = &[
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

// ---------------------------------------------------------------------------------------
// The recorded TEST companies
// ---------------------------------------------------------------------------------------

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

fn report(
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
fn recorded_test_companies() -> Vec<Company> {
    let finns_ej_note = |s: &str| Some(s.to_owned());
    let mut out = Vec::new();

    // 5560021361: AB "Testbolag 4 bokat av SKV Aktiebolag" (no recording of its body:
    // synthesised in the style of the HB/EK recordings).
    out.push(Company {
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

// ---------------------------------------------------------------------------------------
// The generator
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// Lithuania
// ---------------------------------------------------------------------------------------

/// JAR legal forms used (code, name). 310 is confirmed; the others are inferred.
pub const LT_FORMS: &[(u32, &str)] = &[
    (310, "Uždaroji akcinė bendrovė"),
    (320, "Akcinė bendrovė"),
    (330, "Mažoji bendrija"),
    (110, "Individuali įmonė"),
    (570, "Viešoji įstaiga"),
];

/// JAR legal statuses used: (code, name, the classifier's `_id`).
pub const LT_STATUSES: &[(u32, &str, &str)] = &[
    (
        0,
        "Teisinis statusas neįregistruotas",
        "5ef6b364-a5ff-47fb-8600-ff859214ef85",
    ),
    (5, "Bankrutuojantis", "20a01d01-4e39-4d14-82f3-a9af198de63b"),
    (6, "Bankrutavęs", "57e62cce-e84c-4b3d-a1af-8d84b1b8e3f2"),
    (7, "Likviduojamas", "adb14ebc-d6c5-4534-8dd9-b3d14e92b19f"),
    (10, "Išregistruotas", "5bcfd61f-7810-4946-9bd3-6de946b56f18"),
];

/// The `_id` of a JAR legal form (synthetic but stable).
pub fn lt_form_id(kodas: u32) -> String {
    uuid_from_seed(&format!("rc/jar/Forma/{kodas}"))
}

/// The `_id` of a JAR status (the real classifier ids for the statuses used).
pub fn lt_status_id(kodas: u32) -> String {
    LT_STATUSES
        .iter()
        .find(|s| s.0 == kodas)
        .map(|s| s.2.to_owned())
        .unwrap_or_else(|| uuid_from_seed(&format!("rc/jar/Statusas/{kodas}")))
}

fn lt_code(first8: &str) -> u32 {
    format!("{first8}{}", lt_check_digit(first8))
        .parse()
        .unwrap_or(0)
}

fn lt_companies() -> Vec<LtCompany> {
    let mk = |code: u32,
              name: &str,
              addr: Option<&str>,
              forma: u32,
              statusas: u32,
              reg: &str,
              isreg: Option<&str>,
              stat: Option<&str>| LtCompany {
        ja_kodas: code,
        ja_pavadinimas: name.to_owned(),
        pilnas_adresas: addr.map(str::to_owned),
        record_id: uuid_from_seed(&format!("rc/jar/JuridinisAsmuo/{code}")),
        adresas_id: addr.map(|a| uuid_from_seed(&format!("rc/ar/Adresas/{a}"))),
        forma,
        statusas,
        reg_data: reg.to_owned(),
        isreg_data: isreg.map(str::to_owned),
        stat_data: stat.map(str::to_owned),
    };
    vec![
        mk(
            110443493,
            "Akcinė bendrovė \"Smėlio dėžė\"",
            Some("Vilnius, Testų g. 1"),
            320,
            0,
            "1991-06-14",
            None,
            None,
        ),
        mk(
            lt_code("30400001"),
            "UAB \"Bandomoji programa\"",
            Some("Vilnius, Gedimino pr. 100"),
            310,
            0,
            "2016-03-02",
            None,
            None,
        ),
        mk(
            lt_code("30400002"),
            "UAB \"Sintetiniai duomenys\"",
            Some("Kaunas, Laisvės al. 70"),
            310,
            0,
            "2017-11-20",
            None,
            None,
        ),
        mk(
            lt_code("30400003"),
            "UAB \"Bankrutavęs testas\"",
            Some("Klaipėda, Tiltų g. 5"),
            310,
            6,
            "2012-05-08",
            None,
            Some("2025-02-17"),
        ),
        mk(
            lt_code("30400004"),
            "UAB \"Likviduojamas testas\"",
            Some("Šiauliai, Vilniaus g. 88"),
            310,
            7,
            "2014-09-30",
            None,
            Some("2026-04-01"),
        ),
        mk(
            lt_code("30400005"),
            "UAB \"Išregistruotas testas\"",
            None,
            310,
            10,
            "2010-01-12",
            Some("2021-12-31"),
            Some("2021-12-31"),
        ),
        mk(
            lt_code("30400006"),
            "MB \"Mažoji bandymų bendrija\"",
            Some("Panevėžys, Respublikos g. 12"),
            330,
            0,
            "2020-07-07",
            None,
            None,
        ),
        mk(
            lt_code("30400007"),
            "VšĮ \"Testavimo centras\"",
            Some("Vilnius, Konstitucijos pr. 3"),
            570,
            0,
            "2008-10-10",
            None,
            None,
        ),
        mk(
            lt_code("30400008"),
            "UAB \"Bankrutuojanti įmonė\"",
            Some("Alytus, Pulko g. 9"),
            310,
            5,
            "2018-02-14",
            None,
            Some("2026-06-15"),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::lt_code_valid;

    #[test]
    fn standard_is_deterministic() {
        assert_eq!(Dataset::standard(), Dataset::standard());
        assert_ne!(Dataset::generate(1), Dataset::standard());
    }

    #[test]
    fn every_number_is_valid() {
        let ds = Dataset::standard();
        assert!(ds.companies().len() >= 300, "{}", ds.companies().len());
        let mut seen = HashSet::new();
        for c in ds.companies() {
            assert!(seen.insert(c.id.clone()), "duplicate {}", c.id);
            assert!(luhn_valid(&c.id), "{}", c.id);
            match c.id_kind {
                IdKind::Orgnr => {
                    assert_eq!(c.id.len(), 10);
                    let third = c.id.as_bytes()[2] - b'0';
                    assert!(third >= 2, "{}", c.id);
                    let group = c.id.as_bytes()[0];
                    let want: &[u8] = match c.legal_form {
                        LegalForm::Ab => b"5",
                        LegalForm::Hb | LegalForm::Kb => b"9",
                        LegalForm::Ek | LegalForm::Brf | LegalForm::Bf => b"7",
                        LegalForm::I | LegalForm::S => b"8",
                        LegalForm::Public => b"2",
                        LegalForm::E => b"",
                    };
                    assert!(want.contains(&group), "{} {:?}", c.id, c.legal_form);
                }
                IdKind::Personnummer => {
                    assert_eq!(c.id.len(), 12);
                    assert!(
                        testnr::ALL.contains(&c.id.as_str())
                            || TEST_PERSONNUMMER.contains(&c.id.as_str())
                    );
                }
            }
        }
        for lt in ds.lt_companies() {
            assert!(lt_code_valid(&lt.ja_kodas.to_string()), "{}", lt.ja_kodas);
        }
    }

    #[test]
    fn every_category_is_present() {
        let ds = Dataset::standard();
        for f in LegalForm::ALL {
            assert!(ds.companies().iter().any(|c| c.legal_form == f), "{f:?}");
        }
        for n in 0..=3 {
            assert!(
                ds.active_ab_with_reports(n).is_some(),
                "AB with {n} reports"
            );
        }
        assert!(ds.missing_at_scb().is_some());
        assert!(ds.only_at_scb().is_some());
        assert!(ds.bankrupt().is_some());
        assert!(ds.in_liquidation().is_some());
        assert!(ds.deregistered().is_some());
        assert!(ds.sole_trader_with_several_businesses().is_some());
        for f in [
            LegalForm::Ab,
            LegalForm::Hb,
            LegalForm::Kb,
            LegalForm::Ek,
            LegalForm::Brf,
            LegalForm::Bf,
            LegalForm::I,
            LegalForm::S,
            LegalForm::Public,
        ] {
            assert!(ds.active(f).is_some(), "active {f:?}");
        }
        for id in testnr::ALL {
            assert!(ds.company(id).is_some(), "{id}");
        }
        assert!(ds.company(&ds.unknown_orgnr()).is_none());
        assert!(luhn_valid(&ds.unknown_orgnr()));
    }

    #[test]
    fn handy_numbers_match_the_readme() {
        let readme = include_str!("../README.md");
        for (label, id) in Dataset::standard().handy_numbers() {
            assert!(
                readme.contains(&format!("| {label} | `{id}` |")),
                "README lacks the row: | {label} | `{id}` |"
            );
        }
    }

    #[test]
    fn lithuanian_codes_match_the_readme() {
        let readme = include_str!("../README.md");
        for c in Dataset::standard().lt_companies() {
            assert!(
                readme.contains(&format!("| `{}` |", c.ja_kodas)),
                "README lacks {}",
                c.ja_kodas
            );
        }
    }

    #[test]
    fn reports_are_consistent() {
        let ds = Dataset::standard();
        let mut ids = HashSet::new();
        for c in ds.companies() {
            for r in &c.annual_reports {
                assert!(ids.insert(r.dokument_id.clone()));
                assert!(r.dokument_id.ends_with("_paket"));
                assert!(r.registreringstidpunkt.as_str() <= DATASET_AS_OF, "{r:?}");
                assert!(r.registreringstidpunkt > r.period_tom);
            }
        }
        assert_eq!(
            ds.company(testnr::AB_THREE_REPORTS)
                .unwrap()
                .annual_reports
                .len(),
            3
        );
    }
}
