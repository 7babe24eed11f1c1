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
//!
//! The folder follows those parts: `model` (the Swedish records), `codes` (classifications),
//! `recorded` (the TEST numbers), `generator` (the synthetic organisations) and `lithuania`.

mod codes;
mod generator;
mod lithuania;
mod model;
mod recorded;
mod roles;

pub use codes::*;
pub use lithuania::{lt_form_id, lt_status_id, LtCompany, LT_FORMS, LT_STATUSES};
pub use model::*;
pub use roles::{
    CONTROL_KINDS, OFFICER_PERSONNUMMER, OFFICER_SAMORDNINGSNUMMER, ROLE_CODES, SHARE_BANDS,
};

use crate::util::luhn_check_digit;
use serde::{Deserialize, Serialize};

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
        let mut companies = generator::swedish_companies(seed);
        roles::assign(&mut companies, seed);
        Dataset {
            companies,
            lt_companies: lithuania::lt_companies(),
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

#[cfg(test)]
mod tests {
    use super::generator::TEST_PERSONNUMMER;
    use super::*;
    use crate::util::{lt_code_valid, luhn_valid};
    use std::collections::HashSet;

    /// The standard data set is pinned: every process and build generates these numbers,
    /// names and sizes from the standard seed (the black-box tests and the docs rely on
    /// them), and another seed generates other companies. If the generator is changed on
    /// purpose, update the pins here and in the sandbox's integration tests.
    #[test]
    fn standard_is_the_pinned_data_set() {
        let ds = Dataset::standard();
        assert_eq!(ds.companies().len(), 300);
        assert_eq!(ds.lt_companies().len(), 9);
        let synthetic: Vec<(&str, LegalForm, Option<&str>, usize)> = ds
            .companies()
            .iter()
            .filter(|c| c.note.is_none())
            .take(4)
            .map(|c| (c.id.as_str(), c.legal_form, c.name(), c.officers.len()))
            .collect();
        assert_eq!(
            synthetic,
            [
                ("5570210657", LegalForm::Ab, Some("Havsörn El AB"), 5),
                (
                    "5589901825",
                    LegalForm::Ab,
                    Some("Sjöbris Fastigheter AB"),
                    6
                ),
                (
                    "5573147989",
                    LegalForm::Ab,
                    Some("Vikhamntransport Aktiebolag"),
                    8
                ),
                (
                    "5581861605",
                    LegalForm::Ab,
                    Some("Kvarnbäckmode Aktiebolag"),
                    5
                ),
            ]
        );
        let last = ds.companies().last().unwrap();
        assert_eq!(
            (last.id.as_str(), last.legal_form, last.name()),
            (
                "199611092389",
                LegalForm::E,
                Some("Björkdal Handel Produktion")
            )
        );

        let other = Dataset::generate(1);
        let first = other.companies().iter().find(|c| c.note.is_none()).unwrap();
        assert_eq!(
            (first.id.as_str(), first.name()),
            ("5579051854", Some("Norrskenkod Aktiebolag"))
        );
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
        let readme = include_str!("../../README.md");
        for (label, id) in Dataset::standard().handy_numbers() {
            assert!(
                readme.contains(&format!("| {label} | `{id}` |")),
                "README lacks the row: | {label} | `{id}` |"
            );
        }
    }

    #[test]
    fn lithuanian_codes_match_the_readme() {
        let readme = include_str!("../../README.md");
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
