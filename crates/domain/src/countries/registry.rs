//! The country registry: which countries this deployment serves, with what.
//!
//! Each country's connector crate declares what its connectors serve (a
//! [`CountryConnectors`]): the company register, a document archive, the paid tier, the
//! population register, whether its subjects can be monitored on a schedule and screened, and
//! the evidence sources its connectors cite. The binary builds one [`Countries`] from
//! configuration, and every use case asks it. A `country_not_supported` answer comes from
//! here and nowhere else, so a new country is served exactly as far as its crate declares.

use crate::companies::ports::{CompanyRegistry, DocumentArchive, PaidCompanyRegistry};
use crate::countries::country::{Country, CountrySet};
use crate::error::{ErrorCode, Failure};
use crate::evidence::EvidenceSource;
use crate::persons::ports::PersonRegistry;
use crate::subjects::identifier::SubjectKind;
use std::sync::Arc;

/// What one country's connectors serve in this deployment.
///
/// Start from [`CountryConnectors::new`] and add what the country has. Monitoring and
/// screening are declared separately from the registers because a register can exist
/// without being a source worth watching or screening (the declaration says so), but never
/// the other way round: [`Countries::new`] refuses a declaration that monitors or screens
/// what it cannot read.
#[derive(Clone)]
pub struct CountryConnectors {
    country: Country,
    sources: Vec<EvidenceSource>,
    company: Option<Arc<dyn CompanyRegistry>>,
    documents: Option<Arc<dyn DocumentArchive>>,
    paid: Option<Arc<dyn PaidCompanyRegistry>>,
    /// On what terms `paid` serves (a charged tier with owners unless declared otherwise).
    roles: RolesOffer,
    persons: Option<Arc<dyn PersonRegistry>>,
    monitors_companies: bool,
    monitors_persons: bool,
    screens_companies: bool,
    screens_persons: bool,
}

impl CountryConnectors {
    /// A country with nothing served yet, whose connectors cite `sources`.
    pub fn new(country: Country, sources: &[EvidenceSource]) -> CountryConnectors {
        CountryConnectors {
            country,
            sources: sources.to_vec(),
            company: None,
            documents: None,
            paid: None,
            roles: RolesOffer::CHARGED,
            persons: None,
            monitors_companies: false,
            monitors_persons: false,
            screens_companies: false,
            screens_persons: false,
        }
    }

    /// The free company register: company profiles (and refresh).
    pub fn company(mut self, registry: Arc<dyn CompanyRegistry>) -> Self {
        self.company = Some(registry);
        self
    }

    /// The archive of company filings (the documents route).
    pub fn documents(mut self, archive: Arc<dyn DocumentArchive>) -> Self {
        self.documents = Some(archive);
        self
    }

    /// The paid company tier: officers, signatories, owners, engagements, each fetch one call
    /// of the tenant's paid budget.
    pub fn paid(mut self, registry: Arc<dyn PaidCompanyRegistry>) -> Self {
        self.paid = Some(registry);
        self.roles = RolesOffer::CHARGED;
        self
    }

    /// Officers and the signatory rule from a register that charges nothing (an open
    /// register's roles): served on the company routes' terms, without the paid budget, and
    /// with no beneficial owners (their routes answer `country_not_supported`). The registry's
    /// `fetch_beneficial_owners` is never called.
    pub fn free_officers(mut self, registry: Arc<dyn PaidCompanyRegistry>) -> Self {
        self.paid = Some(registry);
        self.roles = RolesOffer::FREE_OFFICERS;
        self
    }

    /// The population register: person profiles.
    pub fn persons(mut self, registry: Arc<dyn PersonRegistry>) -> Self {
        self.persons = Some(registry);
        self
    }

    /// Company subjects can be monitored: the scheduler's light check reads the register.
    pub fn monitors_companies(mut self) -> Self {
        self.monitors_companies = true;
        self
    }

    /// Person subjects can be monitored from the population register.
    pub fn monitors_persons(mut self) -> Self {
        self.monitors_persons = true;
        self
    }

    /// Company subjects are screened under the register's name.
    pub fn screens_companies(mut self) -> Self {
        self.screens_companies = true;
        self
    }

    /// Person subjects are screened under the population register's name and birth date.
    pub fn screens_persons(mut self) -> Self {
        self.screens_persons = true;
        self
    }

    pub fn country(&self) -> Country {
        self.country
    }

    /// Why the declaration cannot be served, if it cannot.
    fn inconsistency(&self) -> Option<&'static str> {
        if self.monitors_companies && self.company.is_none() {
            return Some("monitors companies without a company register");
        }
        if (self.monitors_persons || self.screens_persons) && self.persons.is_none() {
            return Some("monitors or screens persons without a population register");
        }
        if self.screens_companies && self.company.is_none() {
            return Some("screens companies without a company register");
        }
        None
    }
}

/// On what terms a country's company roles are served.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct RolesOffer {
    /// Each fetch is metered against the tenant's paid budget.
    charged: bool,
    /// Beneficial owners are served.
    owners: bool,
}

impl RolesOffer {
    const CHARGED: RolesOffer = RolesOffer {
        charged: true,
        owners: true,
    };
    const FREE_OFFICERS: RolesOffer = RolesOffer {
        charged: false,
        owners: false,
    };
}

/// Every served country's connectors: the one place that says what is served where.
#[derive(Clone, Default)]
pub struct Countries {
    list: Vec<CountryConnectors>,
    /// The connectors test-mode tenants are served by (the sandbox's), if any.
    test: Option<Box<Countries>>,
}

/// What a refusal names.
fn not_served(what: &str, country: Country) -> Failure {
    Failure::new(
        ErrorCode::CountryNotSupported,
        format!("{what} is not served for {country} yet"),
    )
}

impl Countries {
    /// The registry of these countries. A country declared twice, or a declaration that
    /// monitors or screens what it cannot read, is refused with the reason.
    pub fn new(list: Vec<CountryConnectors>) -> Result<Countries, String> {
        for (i, c) in list.iter().enumerate() {
            if list[..i].iter().any(|d| d.country == c.country) {
                return Err(format!("{} is declared twice", c.country));
            }
            if let Some(why) = c.inconsistency() {
                return Err(format!("{}: {why}", c.country));
            }
        }
        Ok(Countries { list, test: None })
    }

    /// No country served (operator commands call no upstream).
    pub fn none() -> Countries {
        Countries::default()
    }

    /// These countries for live tenants, and `test` (the sandbox's connectors) for test-mode
    /// tenants.
    pub fn with_test(mut self, test: Countries) -> Countries {
        self.test = Some(Box::new(Countries { test: None, ..test }));
        self
    }

    /// The connectors that serve a tenant of `mode`: a test-mode tenant only ever the test
    /// connectors (none at all when the deployment has none: every register read is then
    /// 501), never a live register.
    pub fn in_mode(&self, mode: crate::access::tenant::TenantMode) -> &Countries {
        static NONE: std::sync::OnceLock<Countries> = std::sync::OnceLock::new();
        match mode {
            crate::access::tenant::TenantMode::Live => self,
            crate::access::tenant::TenantMode::Test => self
                .test
                .as_deref()
                .unwrap_or_else(|| NONE.get_or_init(Countries::default)),
        }
    }

    fn get(&self, country: Country) -> Option<&CountryConnectors> {
        self.list.iter().find(|c| c.country == country)
    }

    /// The company register of `country`, else 501 `country_not_supported`.
    pub fn company(&self, country: Country) -> Result<&Arc<dyn CompanyRegistry>, Failure> {
        self.get(country)
            .and_then(|c| c.company.as_ref())
            .ok_or_else(|| not_served("company data", country))
    }

    /// The document archive of `country`, else 501.
    pub fn documents(&self, country: Country) -> Result<&Arc<dyn DocumentArchive>, Failure> {
        self.get(country)
            .and_then(|c| c.documents.as_ref())
            .ok_or_else(|| not_served("company documents", country))
    }

    /// The paid tier of `country`, else 501 (naming a deployment with the tier off).
    pub fn paid(&self, country: Country) -> Result<&Arc<dyn PaidCompanyRegistry>, Failure> {
        let charged = |c: &CountryConnectors| c.paid.is_some() && c.roles.charged;
        let free = self
            .get(country)
            .is_some_and(|c| c.paid.is_some() && !c.roles.charged);
        if !free && !self.list.iter().any(charged) {
            return Err(Failure::new(
                ErrorCode::CountryNotSupported,
                "the paid company-registry tier is not enabled in this deployment",
            ));
        }
        self.get(country)
            .and_then(|c| c.paid.as_ref())
            .ok_or_else(|| not_served("paid company-registry data", country))
    }

    /// The registry of `country`'s beneficial owners, else 501 (a country whose roles come
    /// from a free register has none).
    pub fn owners(&self, country: Country) -> Result<&Arc<dyn PaidCompanyRegistry>, Failure> {
        let registry = self.paid(country)?;
        match self.get(country) {
            Some(c) if c.roles.owners => Ok(registry),
            _ => Err(Failure::new(
                ErrorCode::CountryNotSupported,
                format!(
                    "beneficial-owner data is not served for {country}: its officers come from \
                     an open register, which holds no beneficial owners"
                ),
            )),
        }
    }

    /// Whether a fetch of `country`'s roles is metered against the paid budget.
    pub fn charges(&self, country: Country) -> bool {
        self.get(country)
            .is_none_or(|c| c.paid.is_none() || c.roles.charged)
    }

    /// The countries with a document archive, in declaration order.
    pub fn archives(&self) -> impl Iterator<Item = Country> + '_ {
        self.list
            .iter()
            .filter(|c| c.documents.is_some())
            .map(|c| c.country)
    }

    /// The refusal of the documents route in a deployment with no archive at all.
    pub fn no_archive() -> Failure {
        Failure::new(
            ErrorCode::CountryNotSupported,
            "company documents are not served in this deployment",
        )
    }

    /// Whether the paid tier serves `country` (a full refresh reads it too).
    pub fn serves_paid(&self, country: Country) -> bool {
        self.get(country).is_some_and(|c| c.paid.is_some())
    }

    /// The population register of `country`, else 501.
    pub fn persons(&self, country: Country) -> Result<&Arc<dyn PersonRegistry>, Failure> {
        self.get(country)
            .and_then(|c| c.persons.as_ref())
            .ok_or_else(|| not_served("person data", country))
    }

    /// The countries whose subjects of `kind` can be monitored on a schedule.
    pub fn monitored(&self, kind: SubjectKind) -> CountrySet {
        self.list
            .iter()
            .filter(|c| match kind {
                SubjectKind::Company => c.monitors_companies,
                SubjectKind::Person => c.monitors_persons,
            })
            .map(|c| c.country)
            .collect()
    }

    /// Whether subjects of `kind` identified in `country` are screened under the register's
    /// data.
    pub fn screens(&self, kind: SubjectKind, country: Country) -> bool {
        self.get(country).is_some_and(|c| match kind {
            SubjectKind::Company => c.screens_companies,
            SubjectKind::Person => c.screens_persons,
        })
    }

    /// The refusal of screening a subject of `kind` known only in `country`.
    pub fn not_screened(kind: SubjectKind, country: Country) -> Failure {
        not_served(
            match kind {
                SubjectKind::Company => "screening of company subjects",
                SubjectKind::Person => "screening of person subjects",
            },
            country,
        )
    }

    /// The refusal of monitoring a subject of `kind` known only in `country`.
    pub fn not_monitored(kind: SubjectKind, country: Country) -> Failure {
        not_served(
            match kind {
                SubjectKind::Company => "monitoring of company subjects",
                SubjectKind::Person => "monitoring of person subjects",
            },
            country,
        )
    }

    /// The served countries, in declaration order.
    pub fn served(&self) -> impl Iterator<Item = Country> + '_ {
        self.list.iter().map(|c| c.country)
    }

    /// Every evidence source an answer of this deployment can cite: each country's, in
    /// declaration order, then the service's own.
    pub fn evidence_sources(&self) -> Vec<EvidenceSource> {
        let declared = self.list.iter().map(|c| c.sources.as_slice());
        evidence_sources(declared)
    }
}

/// The evidence sources of countries' declarations, then the service's own, each once.
pub fn evidence_sources<'a>(
    declared: impl IntoIterator<Item = &'a [EvidenceSource]>,
) -> Vec<EvidenceSource> {
    let mut out: Vec<EvidenceSource> = Vec::new();
    let declared = declared.into_iter().flatten().copied();
    for s in declared.chain(EvidenceSource::SERVICE) {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::companies::ports::{MockCompanyRegistry, MockDocumentArchive};
    use crate::persons::ports::MockPersonRegistry;

    fn company() -> Arc<dyn CompanyRegistry> {
        Arc::new(MockCompanyRegistry::new())
    }

    fn code(f: Failure) -> (ErrorCode, String) {
        (f.code, f.message)
    }

    /// A test-mode tenant is served by the test connectors only: never a live register,
    /// and nothing at all where the deployment has no test connectors.
    #[test]
    fn test_mode_reaches_only_the_test_connectors() {
        use crate::access::tenant::TenantMode;
        let live_registry = company();
        let test_registry = company();
        let live = Countries::new(vec![
            CountryConnectors::new(Country::Se, &[]).company(live_registry.clone())
        ])
        .unwrap();
        let without = Countries::new(vec![
            CountryConnectors::new(Country::Se, &[]).company(live_registry.clone())
        ])
        .unwrap();
        let both = live.with_test(
            Countries::new(vec![
                CountryConnectors::new(Country::Se, &[]).company(test_registry.clone())
            ])
            .unwrap(),
        );
        let served = |c: &Countries, mode| c.in_mode(mode).company(Country::Se).cloned();
        assert!(Arc::ptr_eq(
            &served(&both, TenantMode::Live).unwrap(),
            &live_registry
        ));
        assert!(Arc::ptr_eq(
            &served(&both, TenantMode::Test).unwrap(),
            &test_registry
        ));
        let refused = served(&without, TenantMode::Test).err().unwrap();
        assert_eq!(refused.code, ErrorCode::CountryNotSupported);
        // The test set has no test set of its own.
        assert!(Arc::ptr_eq(
            &both
                .in_mode(TenantMode::Test)
                .in_mode(TenantMode::Live)
                .company(Country::Se)
                .unwrap()
                .clone(),
            &test_registry
        ));
    }

    #[test]
    fn a_declaration_cannot_serve_what_it_cannot_read() {
        let se = || CountryConnectors::new(Country::Se, &[]);
        assert!(Countries::new(vec![se().monitors_companies()])
            .err()
            .unwrap()
            .contains("monitors companies without a company register"));
        assert!(Countries::new(vec![se().screens_companies()]).is_err());
        assert!(Countries::new(vec![se().screens_persons()]).is_err());
        assert!(Countries::new(vec![se().monitors_persons()]).is_err());
        assert!(Countries::new(vec![se(), se()])
            .err()
            .unwrap()
            .contains("SE is declared twice"));
        let whole = se()
            .company(company())
            .persons(Arc::new(MockPersonRegistry::new()))
            .monitors_companies()
            .monitors_persons()
            .screens_companies()
            .screens_persons();
        assert!(Countries::new(vec![whole]).is_ok());
    }

    #[test]
    fn what_is_not_declared_answers_country_not_supported_naming_the_country() {
        let countries = Countries::new(vec![
            CountryConnectors::new(Country::Se, &[])
                .company(company())
                .documents(Arc::new(MockDocumentArchive::new()))
                .monitors_companies(),
            CountryConnectors::new(crate::fixtures::schemes::LT, &[])
                .company(company())
                .screens_companies(),
        ])
        .unwrap();
        assert!(countries.company(crate::fixtures::schemes::LT).is_ok());
        assert!(countries.documents(Country::Se).is_ok());
        assert_eq!(
            code(
                countries
                    .documents(crate::fixtures::schemes::LT)
                    .err()
                    .unwrap()
            ),
            (
                ErrorCode::CountryNotSupported,
                "company documents is not served for LT yet".into()
            )
        );
        assert_eq!(
            code(countries.persons(Country::Se).err().unwrap()).1,
            "person data is not served for SE yet"
        );
        // No country has the paid tier: the deployment has it off.
        assert_eq!(
            code(countries.paid(Country::Se).err().unwrap()).1,
            "the paid company-registry tier is not enabled in this deployment"
        );
        assert!(!countries.serves_paid(Country::Se));
        assert_eq!(
            countries.monitored(SubjectKind::Company),
            CountrySet::parse_list("SE").unwrap()
        );
        assert!(countries.monitored(SubjectKind::Person).is_empty());
        assert!(countries.screens(SubjectKind::Company, crate::fixtures::schemes::LT));
        assert!(!countries.screens(SubjectKind::Company, Country::Se));
        assert_eq!(countries.archives().collect::<Vec<_>>(), [Country::Se]);
        assert_eq!(
            countries.served().collect::<Vec<_>>(),
            [Country::Se, crate::fixtures::schemes::LT]
        );
        // A country with nothing declared is refused alike.
        let none = Countries::none();
        assert_eq!(
            code(none.company(Country::Se).err().unwrap()).0,
            ErrorCode::CountryNotSupported
        );
    }

    #[test]
    fn the_paid_tier_is_per_country_once_any_country_has_it() {
        let countries = Countries::new(vec![
            CountryConnectors::new(Country::Se, &[]).paid(Arc::new(
                crate::companies::ports::MockPaidCompanyRegistry::new(),
            )),
            CountryConnectors::new(crate::fixtures::schemes::LT, &[]),
        ])
        .unwrap();
        assert!(countries.paid(Country::Se).is_ok());
        assert!(countries.serves_paid(Country::Se));
        assert_eq!(
            code(countries.paid(crate::fixtures::schemes::LT).err().unwrap()).1,
            "paid company-registry data is not served for LT yet"
        );
    }

    #[test]
    fn free_officers_need_no_paid_tier_and_serve_no_owners() {
        let lt = crate::fixtures::schemes::LT;
        let paid = || Arc::new(crate::companies::ports::MockPaidCompanyRegistry::new());
        // Only a free register's officers: that country is served, nothing is charged, and
        // every other country still hears that the paid tier is off.
        let free_only = Countries::new(vec![
            CountryConnectors::new(Country::Se, &[]),
            CountryConnectors::new(lt, &[]).free_officers(paid()),
        ])
        .unwrap();
        assert!(free_only.paid(lt).is_ok());
        assert!(free_only.serves_paid(lt));
        assert!(!free_only.charges(lt));
        assert_eq!(
            code(free_only.owners(lt).err().unwrap()),
            (
                ErrorCode::CountryNotSupported,
                "beneficial-owner data is not served for LT: its officers come from an open \
                 register, which holds no beneficial owners"
                    .into()
            )
        );
        assert_eq!(
            code(free_only.paid(Country::Se).err().unwrap()).1,
            "the paid company-registry tier is not enabled in this deployment"
        );
        // Beside a charged tier, each country keeps its own terms.
        let both = Countries::new(vec![
            CountryConnectors::new(Country::Se, &[]).paid(paid()),
            CountryConnectors::new(lt, &[]).free_officers(paid()),
        ])
        .unwrap();
        assert!(both.charges(Country::Se) && both.owners(Country::Se).is_ok());
        assert!(!both.charges(lt) && both.owners(lt).is_err());
    }

    #[test]
    fn evidence_sources_list_each_country_then_the_service_once_each() {
        let a = [
            EvidenceSource::declared("companyreg.a"),
            EvidenceSource::declared("taxauth.a"),
        ];
        let b = [
            EvidenceSource::declared("companyreg.b"),
            EvidenceSource::declared("companyreg.a"),
        ];
        let names: Vec<&str> = evidence_sources([&a[..], &b[..]])
            .into_iter()
            .map(EvidenceSource::as_str)
            .collect();
        assert_eq!(
            names,
            [
                "companyreg.a",
                "taxauth.a",
                "companyreg.b",
                "customer.identity_event",
                "service.gateway",
                "service.derived",
                "service.merge"
            ]
        );
        let countries = Countries::new(vec![
            CountryConnectors::new(crate::fixtures::schemes::LT, &b),
            CountryConnectors::new(Country::Se, &a),
        ])
        .unwrap();
        assert_eq!(countries.evidence_sources()[0].as_str(), "companyreg.b");
    }
}
