//! The use cases, wired to their ports. Surfaces (REST, MCP, the operator command line) hold
//! one `Services` and call into it; nothing else holds a port.

use crate::access::admin::AdminService;
use crate::access::gate::Gate;
use crate::access::ports::{CredentialHasher, TokenAuthority};
use crate::access::token_issuer::TokenIssuer;
use crate::clock::Clock;
use crate::companies::paid_service::PaidCompanyService;
use crate::companies::service::CompanyService;
use crate::countries::registry::Countries;
use crate::meter::Meter;
use crate::monitoring::event_service::EventService;
use crate::monitoring::refresh_service::RefreshService;
use crate::monitoring::scheduler::{Scheduler, SchedulerSettings};
use crate::monitoring::subscription_service::SubscriptionService;
use crate::persons::ports::PersonVault;
use crate::persons::service::PersonService;
use crate::subjects::ports::IdentifierVault;
use crate::subjects::service::SubjectService;
use chrono::Duration;
use std::sync::Arc;

/// Every port the use cases need.
#[derive(Clone)]
pub struct Ports {
    /// Every storage port of the one store.
    pub store: crate::storage::StoragePorts,
    pub tokens: Arc<dyn TokenAuthority>,
    pub hasher: Arc<dyn CredentialHasher>,
    pub vault: Arc<dyn IdentifierVault>,
    /// The served countries and what each one's connectors serve.
    pub countries: Arc<Countries>,
    /// Seals cached person objects under tenants' data keys.
    pub person_vault: Arc<dyn PersonVault>,
    /// Seals screening inputs and takes their keyed hashes.
    pub screening_vault: Arc<dyn crate::screening::ports::ScreeningVault>,
    /// Where the figures operators read are counted.
    pub meter: Arc<dyn Meter>,
    /// Names, fingerprints and seals idempotency keys' material under tenants' keys.
    pub idempotency_vault: Arc<dyn crate::idempotency::ports::IdempotencyVault>,
    /// The portal's tokens and CSRF tokens.
    pub portal_secrets: Arc<dyn crate::portal::ports::PortalSecrets>,
    /// Where the portal's sign-in links are mailed.
    pub mailer: Arc<dyn crate::portal::ports::Mailer>,
    /// Makes, seals and opens webhook secrets under tenants' keys.
    pub webhook_vault: Arc<dyn crate::webhooks::ports::WebhookVault>,
    /// Sends one signed delivery.
    pub webhook_sender: Arc<dyn crate::webhooks::ports::WebhookSender>,
    /// Request ids, codes, PKCE and refresh tokens of agent connections.
    pub oauth_secrets: Arc<dyn crate::oauth::ports::OAuthSecrets>,
    /// Reads clients' metadata documents.
    pub client_documents: Arc<dyn crate::oauth::ports::ClientDocuments>,
    pub clock: Arc<dyn Clock>,
}

/// Settings of the use cases.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Lifetime of access tokens.
    pub token_lifetime: Duration,
    /// How long a cached company profile is served without revalidating.
    pub company_revalidate_after: Duration,
    /// How long a cached paid object (officers, owners, engagements) is served without
    /// revalidating.
    pub paid_revalidate_after: Duration,
    /// How long a cached person profile is served without asking the register again (past
    /// it, the register is asked; a person profile is never served stale).
    pub person_revalidate_after: Duration,
    /// How scheduled monitoring claims its work.
    pub scheduler: SchedulerSettings,
    /// How ongoing screening claims and pages a list change's work.
    pub ongoing: crate::screening::ongoing::service::OngoingSettings,
    /// Which endpoints webhooks may reach, and how they are retried.
    pub webhooks: crate::webhooks::service::WebhookSettings,
    /// This process's key fingerprints, which readiness compares with the store's record.
    pub keys: Option<crate::health::keys::KeyFingerprints>,
    /// What readiness reports from the configuration alone (the portal's mail transport).
    pub readiness_notes: Vec<crate::health::readiness::Check>,
    /// The calendar the budget's and the permit's day are kept in.
    pub calendar: crate::companies::budget::BudgetCalendar,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            token_lifetime: Duration::minutes(15),
            company_revalidate_after: Duration::hours(24),
            paid_revalidate_after: Duration::hours(24),
            person_revalidate_after: Duration::hours(24),
            scheduler: SchedulerSettings::default(),
            ongoing: Default::default(),
            webhooks: Default::default(),
            keys: None,
            readiness_notes: Vec::new(),
            calendar: Default::default(),
        }
    }
}

pub struct Services {
    /// The service's clock: surfaces stamp requests with it, so tests can move time.
    pub clock: Arc<dyn Clock>,
    pub gate: Gate,
    pub tokens: TokenIssuer,
    pub subjects: Arc<SubjectService>,
    pub companies: Arc<CompanyService>,
    pub paid: Arc<PaidCompanyService>,
    pub refresh: Arc<RefreshService>,
    /// Scheduled monitoring (every replica runs it; `idreg` drives its passes).
    pub scheduler: Scheduler,
    /// Ongoing screening: a list change re-screens the monitored subjects (driven with the
    /// scheduler's passes).
    pub ongoing: Arc<crate::screening::ongoing::service::OngoingScreening>,
    pub persons: Arc<PersonService>,
    pub events: EventService,
    pub subscriptions: SubscriptionService,
    pub admin: Arc<AdminService>,
    /// The operator's merge of two subjects.
    pub subject_merge: Arc<crate::subjects::merge_service::MergeService>,
    /// Sanctions-list imports (operator command line and scheduled imports).
    pub lists: crate::screening::list_service::ListService,
    /// Screening checks and their reads.
    pub screening: Arc<crate::screening::service::ScreeningService>,
    /// The operator's screening configuration: policies, overrides, whitelists.
    pub screening_admin: Arc<crate::screening::admin::ScreeningAdmin>,
    /// Whether this process can serve (the readiness probe).
    pub readiness: crate::health::readiness::ReadinessService,
    /// The levels an operator's scrape reads (pool, backlog, list ages).
    pub gauges: crate::health::gauges::GaugeService,
    /// Where requests and what the use cases do are counted (the surfaces count requests).
    pub meter: Arc<dyn Meter>,
    /// The tenant's standing against its daily limits (`GET /v1/usage`, quota headers).
    pub usage: crate::usage::service::UsageService,
    /// Writes run once per `Idempotency-Key`.
    pub idempotency: crate::idempotency::service::IdempotencyService,
    /// The consumer's webhook endpoints.
    pub webhooks: crate::webhooks::service::WebhookService,
    /// Pushes each endpoint's events (every replica runs it; `idreg` drives its passes).
    pub dispatcher: crate::webhooks::dispatcher::WebhookDispatcher,
    /// A tenant's portal users (the operator's command, and the portal's admins).
    pub portal_admin: Arc<crate::portal::admin::PortalAdmin>,
    /// What a signed-in portal user does at their tenant.
    pub portal_console: crate::portal::console::PortalConsole,
    /// Sign-in to the portal by one-time link, its sessions and sign-out.
    pub portal_sign_in: crate::portal::service::PortalSignIn,
    /// Agent platforms connecting as people do (authorization code, consent in the portal).
    pub oauth: crate::oauth::service::OAuthService,
}

impl Services {
    pub fn new(ports: Ports, settings: Settings) -> Services {
        let subjects = Arc::new(SubjectService {
            store: ports.store.subjects.clone(),
            vault: ports.vault.clone(),
            clock: ports.clock.clone(),
        });
        let paid = Arc::new(PaidCompanyService {
            meter: ports.meter.clone(),
            countries: ports.countries.clone(),
            store: ports.store.paid.clone(),
            calls: ports.store.companies.clone(),
            subjects: subjects.clone(),
            clock: ports.clock.clone(),
            calendar: settings.calendar,
            revalidate_after: settings.paid_revalidate_after,
        });
        let companies = Arc::new(CompanyService {
            meter: ports.meter.clone(),
            countries: ports.countries.clone(),
            store: ports.store.companies.clone(),
            subjects: subjects.clone(),
            clock: ports.clock.clone(),
            revalidate_after: settings.company_revalidate_after,
        });
        let persons = Arc::new(PersonService {
            meter: ports.meter.clone(),
            countries: ports.countries.clone(),
            store: ports.store.persons.clone(),
            calls: ports.store.companies.clone(),
            vault: ports.person_vault.clone(),
            subjects: subjects.clone(),
            clock: ports.clock.clone(),
            calendar: settings.calendar,
            revalidate_after: settings.person_revalidate_after,
        });
        let screening = Arc::new(crate::screening::service::ScreeningService {
            meter: ports.meter.clone(),
            store: ports.store.screening.clone(),
            lists: ports.store.sanctions.clone(),
            vault: ports.screening_vault.clone(),
            subject_store: ports.store.subjects.clone(),
            subjects: subjects.clone(),
            companies: companies.clone(),
            persons: persons.clone(),
            clock: ports.clock.clone(),
            loaded: std::sync::Mutex::new(None),
            building: Default::default(),
        });
        let ongoing = Arc::new(crate::screening::ongoing::service::OngoingScreening {
            meter: ports.meter.clone(),
            screening: screening.clone(),
            lists: ports.store.sanctions.clone(),
            subscriptions: ports.store.subscriptions.clone(),
            tenants: ports.store.tenants.clone(),
            clock: ports.clock.clone(),
            settings: settings.ongoing.clone(),
        });
        let refresh = Arc::new(RefreshService {
            meter: ports.meter.clone(),
            companies: companies.clone(),
            paid: paid.clone(),
            paid_store: ports.store.paid.clone(),
            subscriptions: ports.store.subscriptions.clone(),
            clock: ports.clock.clone(),
            calendar: settings.calendar,
            parties: Some(ongoing.clone()),
        });
        let admin = Arc::new(AdminService {
            tenants: ports.store.tenants.clone(),
            grants: ports.store.grants.clone(),
            hasher: ports.hasher.clone(),
            vault: ports.vault.clone(),
            paid: ports.store.paid.clone(),
            persons: ports.store.persons.clone(),
            subscriptions: ports.store.subscriptions.clone(),
            meter: ports.meter.clone(),
            clock: ports.clock.clone(),
            calendar: settings.calendar,
        });
        let subject_merge = Arc::new(crate::subjects::merge_service::MergeService {
            tenants: ports.store.tenants.clone(),
            subjects: ports.store.subjects.clone(),
            subscriptions: ports.store.subscriptions.clone(),
            meter: ports.meter.clone(),
            clock: ports.clock.clone(),
        });
        let screening_admin = Arc::new(crate::screening::admin::ScreeningAdmin {
            store: ports.store.screening.clone(),
            tenants: ports.store.tenants.clone(),
            subjects: ports.store.subjects.clone(),
            clock: ports.clock.clone(),
        });
        let portal_admin = Arc::new(crate::portal::admin::PortalAdmin {
            store: ports.store.portal.clone(),
            tenants: ports.store.tenants.clone(),
            clock: ports.clock.clone(),
        });
        let portal_console = crate::portal::console::PortalConsole {
            admin: admin.clone(),
            screening_admin: screening_admin.clone(),
            portal_admin: portal_admin.clone(),
            screening: screening.clone(),
            tenants: ports.store.tenants.clone(),
            grants: ports.store.grants.clone(),
            paid: ports.store.paid.clone(),
            audit_log: ports.store.audit_log.clone(),
            audit: ports.store.audit.clone(),
            clock: ports.clock.clone(),
            calendar: settings.calendar,
        };
        let oauth = crate::oauth::service::OAuthService {
            store: ports.store.oauth.clone(),
            grants: ports.store.grants.clone(),
            tenants: ports.store.tenants.clone(),
            admin: admin.clone(),
            documents: ports.client_documents.clone(),
            secrets: ports.oauth_secrets.clone(),
            hasher: ports.hasher.clone(),
            authority: ports.tokens.clone(),
            audit: ports.store.audit.clone(),
            clock: ports.clock.clone(),
            limiter: Default::default(),
            access_lifetime: settings.token_lifetime,
        };
        Services {
            oauth,
            admin,
            subject_merge,
            screening_admin,
            portal_admin,
            portal_console,
            portal_sign_in: crate::portal::service::PortalSignIn {
                store: ports.store.portal.clone(),
                secrets: ports.portal_secrets.clone(),
                mailer: ports.mailer.clone(),
                audit: ports.store.audit.clone(),
                clock: ports.clock.clone(),
            },
            webhooks: crate::webhooks::service::WebhookService {
                store: ports.store.webhooks.clone(),
                vault: ports.webhook_vault.clone(),
                clock: ports.clock.clone(),
                settings: settings.webhooks.clone(),
            },
            dispatcher: crate::webhooks::dispatcher::WebhookDispatcher {
                meter: ports.meter.clone(),
                store: ports.store.webhooks.clone(),
                events: ports.store.events.clone(),
                grants: ports.store.grants.clone(),
                vault: ports.webhook_vault.clone(),
                sender: ports.webhook_sender.clone(),
                clock: ports.clock.clone(),
                settings: settings.webhooks.clone(),
            },
            idempotency: crate::idempotency::service::IdempotencyService {
                store: ports.store.idempotency.clone(),
                vault: ports.idempotency_vault.clone(),
                clock: ports.clock.clone(),
                calendar: settings.calendar,
            },
            usage: crate::usage::service::UsageService {
                paid: ports.store.paid.clone(),
                persons: ports.store.persons.clone(),
                clock: ports.clock.clone(),
                calendar: settings.calendar,
            },
            readiness: crate::health::readiness::ReadinessService {
                store: ports.store.probe.clone(),
                screening: screening.clone(),
                keys: settings.keys.clone(),
                notes: settings.readiness_notes.clone(),
            },
            gauges: crate::health::gauges::GaugeService {
                store: ports.store.probe.clone(),
                lists: ports.store.sanctions.clone(),
                clock: ports.clock.clone(),
            },
            meter: ports.meter.clone(),
            ongoing,
            screening,
            lists: crate::screening::list_service::ListService {
                store: ports.store.sanctions.clone(),
                clock: ports.clock.clone(),
            },
            clock: ports.clock.clone(),
            scheduler: Scheduler {
                meter: ports.meter.clone(),
                refresh: refresh.clone(),
                subscriptions: ports.store.subscriptions.clone(),
                tenants: ports.store.tenants.clone(),
                subjects: subjects.clone(),
                subject_store: ports.store.subjects.clone(),
                budget: ports.store.paid.clone(),
                clock: ports.clock.clone(),
                calendar: settings.calendar,
                settings: settings.scheduler.clone(),
            },
            refresh,
            gate: Gate {
                authority: ports.tokens.clone(),
                grants: ports.store.grants.clone(),
                audit: ports.store.audit.clone(),
                clock: ports.clock.clone(),
            },
            tokens: TokenIssuer {
                grants: ports.store.grants.clone(),
                hasher: ports.hasher.clone(),
                authority: ports.tokens.clone(),
                audit: ports.store.audit.clone(),
                clock: ports.clock.clone(),
                lifetime: settings.token_lifetime,
            },
            subjects: subjects.clone(),
            paid,
            events: EventService {
                store: ports.store.events.clone(),
            },
            subscriptions: SubscriptionService {
                meter: ports.meter.clone(),
                store: ports.store.subscriptions.clone(),
                subjects: ports.store.subjects.clone(),
                clock: ports.clock.clone(),
                calendar: settings.calendar,
                countries: ports.countries.clone(),
            },
            persons,
            companies,
        }
    }
}
