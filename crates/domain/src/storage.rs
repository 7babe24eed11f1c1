//! Every storage port of one store, in one place.
//!
//! Each capability declares its own storage port beside its rules (`access::ports`,
//! `subjects::ports`, ...). A store is one adapter value that implements all of them. The
//! rows of `storage_ports!` below name them once; from those rows come the [`Storage`] bound,
//! the [`StoragePorts`] struct, [`StoragePorts::of`] (which fills it from any store) and
//! [`StoragePorts::NAMES`]. The binary wires the use cases from it (`services::Ports::store`)
//! and the storage conformance suite runs its checks on it: a new port is a new row here and
//! nowhere else. A store that does not implement it does not compile, and the conformance
//! suite fails until the port has checks of its own.

use crate::access::ports::{AuditLog, AuditSink, GrantStore, TenantStore};
use crate::assistant::ports::ConversationStore;
use crate::companies::ports::{CompanyStore, PaidStore};
use crate::health::ports::StoreProbe;
use crate::idempotency::ports::IdempotencyStore;
use crate::monitoring::ports::{EventStore, SubscriptionStore};
use crate::oauth::ports::OAuthStore;
use crate::persons::ports::PersonStore;
use crate::portal::ports::PortalStore;
use crate::screening::ports::{SanctionsListStore, ScreeningStore};
use crate::subjects::ports::SubjectStore;
use crate::webhooks::ports::WebhookStore;
use std::sync::Arc;

/// Declares the ports, a row each: the [`Storage`] bound, the [`StoragePorts`] fields,
/// [`StoragePorts::of`] and [`StoragePorts::NAMES`] are all made from the one list.
macro_rules! storage_ports {
    ($($(#[$doc:meta])* $field:ident: $port:ident,)*) => {
        /// A store: one value that implements every storage port.
        pub trait Storage: $($port +)* Clone + 'static {}

        impl<T> Storage for T where T: $($port +)* Clone + 'static {}

        /// One store's ports.
        #[derive(Clone)]
        pub struct StoragePorts {
            $($(#[$doc])* pub $field: Arc<dyn $port>,)*
        }

        impl StoragePorts {
            /// The ports' names, in declaration order (the conformance suite checks each).
            pub const NAMES: &'static [&'static str] = &[$(stringify!($field)),*];

            /// Every port of `store` (each a handle on the same store).
            pub fn of<S: Storage>(store: S) -> StoragePorts {
                StoragePorts {
                    $($field: Arc::new(store.clone()),)*
                }
            }
        }
    };
}

storage_ports! {
    /// Tenants, their permits, budgets and data keys.
    tenants: TenantStore,
    /// Client credentials' grants.
    grants: GrantStore,
    /// Where audit, access and security records are written.
    audit: AuditSink,
    /// The audit log read back (the portal's audit page).
    audit_log: AuditLog,
    /// Subjects, their protected identifiers and merges.
    subjects: SubjectStore,
    /// The company cache and the upstream call records.
    companies: CompanyStore,
    /// The paid objects' cache and the daily paid-call budget.
    paid: PaidStore,
    /// The person cache and the person-lookup counters.
    persons: PersonStore,
    /// The per-tenant event log.
    events: EventStore,
    /// Monitoring subscriptions and their runs.
    subscriptions: SubscriptionStore,
    /// Sanctions and PEP lists' versions.
    sanctions: SanctionsListStore,
    /// Screening policies, overrides, whitelists and checks.
    screening: ScreeningStore,
    /// The store's schema, for readiness; its connections and backlog, for the gauges.
    probe: StoreProbe,
    /// Idempotency keys and the answers kept under them.
    idempotency: IdempotencyStore,
    /// Webhook endpoints, their cursors and delivery logs.
    webhooks: WebhookStore,
    /// Portal users, sign-in links and sessions.
    portal: PortalStore,
    /// Agent connections: OAuth clients, requests waiting for a person, connections.
    oauth: OAuthStore,
    /// The assistant's conversations and the tenants' daily model calls.
    conversations: ConversationStore,
}
