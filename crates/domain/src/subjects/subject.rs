//! Subjects: a company or person as one tenant knows it, found again through a keyed blind
//! index of its identifiers and handed out under fresh per-tenant ULIDs.

//!
//! The value types only; the use cases are in [`super::service`].

use crate::countries::country::Country;
use crate::evidence::Evidence;
use crate::ids::{CallRef, IdentifierRef, SubjectId};
use crate::subjects::identifier::{IdentifierType, SubjectKind};
use chrono::{DateTime, Utc};

/// A keyed blind index of an identifier (HMAC under the tenant's key): equal identifiers of
/// one tenant give equal indexes; nothing links tenants.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct BlindIndex(pub Vec<u8>);

/// An identifier as storage may hold it: type, country, blind index and ciphertext.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ProtectedIdentifier {
    pub id_type: IdentifierType,
    pub country: Country,
    pub blind_index: BlindIndex,
    pub sealed: Vec<u8>,
}

/// The subject an `identifier_ref` belongs to, with the identifier as stored (for an upstream
/// call, after the vault reveals it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdentifierHolder {
    pub subject: SubjectHandle,
    pub kind: SubjectKind,
    pub id_type: IdentifierType,
    pub country: Country,
    pub sealed: Vec<u8>,
}

/// Ids and evidence for a subject that may be created by a resolve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreshSubject {
    pub subject_id: SubjectId,
    pub identifier_ref: IdentifierRef,
    pub kind: SubjectKind,
    /// What the subject's evidence will name if it is created now.
    pub sighting: FirstSighting,
    pub at: DateTime<Utc>,
}

/// How the service first learned of a subject: its evidence names what really happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FirstSighting {
    /// The consumer sent the identifier (a resolve, or a lookup tool through it): an identity
    /// event is recorded under `call_ref`, naming the route it came through.
    ConsumerIdentity {
        call_ref: CallRef,
        route: &'static str,
    },
    /// A registry read named the subject (a company profile fetched by number): the evidence
    /// is that upstream call, already recorded.
    RegistryRead(CallRef),
}

impl FirstSighting {
    /// The call record the subject's evidence points at.
    pub fn call_ref(&self) -> CallRef {
        match self {
            FirstSighting::ConsumerIdentity { call_ref, .. } => *call_ref,
            FirstSighting::RegistryRead(call_ref) => *call_ref,
        }
    }
}

/// A subject as an answer names it: its canonical id and the ids merged into it, which stay
/// valid aliases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubjectHandle {
    pub subject_id: SubjectId,
    pub aliases: Vec<SubjectId>,
}

/// The answer of a resolve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolution {
    pub subject_id: SubjectId,
    pub aliases: Vec<SubjectId>,
    pub identifier_ref: IdentifierRef,
    pub created: bool,
}

impl Resolution {
    pub fn handle(&self) -> SubjectHandle {
        SubjectHandle {
            subject_id: self.subject_id,
            aliases: self.aliases.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubjectIdentifier {
    pub identifier_ref: IdentifierRef,
    pub id_type: IdentifierType,
    pub country: Country,
    pub valid_from: DateTime<Utc>,
    pub valid_to: Option<DateTime<Utc>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CustomerRef {
    pub value: String,
    pub created_at: DateTime<Utc>,
}

/// A subject as stored, before the caller's countries filter it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubjectRecord {
    pub subject_id: SubjectId,
    pub kind: SubjectKind,
    pub created_at: DateTime<Utc>,
    pub identifiers: Vec<SubjectIdentifier>,
    pub refs: Vec<CustomerRef>,
    pub aliases: Vec<SubjectId>,
    pub evidence: Evidence,
}

/// The longest customer reference accepted. References are the consumer's own keys, not
/// documents.
pub const MAX_REF_LEN: usize = 200;

/// A resolve request after the surface has parsed its JSON.
#[derive(Clone, Debug)]
pub struct ResolveRequest {
    pub id_type: String,
    pub value: String,
    pub customer_ref: Option<String>,
}
