//! Subjects: a company or person as one tenant knows it, found again through a keyed blind
//! index of its identifiers and handed out under fresh per-tenant ULIDs.

use crate::access::Caller;
use crate::clock::Clock;
use crate::country::Country;
use crate::error::{ErrorCode, Failure};
use crate::evidence::{Evidence, EvidenceSource};
use crate::identifier::{Identifier, IdentifierType};
use crate::ids::{CallRef, IdentifierRef, SubjectId};
use crate::operation::Operation;
use crate::ports::{IdentifierVault, StoreError, SubjectStore};
use chrono::{DateTime, Utc};
use std::sync::Arc;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SubjectKind {
    Person,
    Company,
}

impl SubjectKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SubjectKind::Person => "person",
            SubjectKind::Company => "company",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "person" => Some(SubjectKind::Person),
            "company" => Some(SubjectKind::Company),
            _ => None,
        }
    }
}

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

pub struct SubjectService {
    pub store: Arc<dyn SubjectStore>,
    pub vault: Arc<dyn IdentifierVault>,
    pub clock: Arc<dyn Clock>,
}

impl SubjectService {
    /// `POST /v1/subjects/resolve`: finds or creates the subject holding the identifier.
    pub async fn resolve(
        &self,
        caller: &Caller,
        request: ResolveRequest,
    ) -> Result<Resolution, Failure> {
        caller.require_operation(Operation::ResolveSubject)?;
        let id_type = IdentifierType::parse(&request.id_type).ok_or_else(|| {
            Failure::bad_request(
                "type",
                "must be one of personnummer, samordningsnummer, orgnr, imones-kodas, asmens-kodas",
            )
        })?;
        let customer_ref = match request.customer_ref {
            None => None,
            Some(r) if r.trim().is_empty() => {
                return Err(Failure::bad_request("ref", "must not be blank"))
            }
            Some(r) if r.chars().count() > MAX_REF_LEN => {
                return Err(Failure::bad_request(
                    "ref",
                    &format!("must be at most {MAX_REF_LEN} characters"),
                ))
            }
            Some(r) => Some(r),
        };
        let identifier = Identifier::parse(id_type, &request.value, self.clock.now().date_naive())
            .map_err(|e| Failure::invalid_identifier(format!("`value`: {e}")))?;
        caller.require_country(identifier.country())?;
        let sighting = FirstSighting::ConsumerIdentity {
            call_ref: CallRef::generate(),
            route: Operation::ResolveSubject.route_template(),
        };
        self.resolve_identifier(caller, &identifier, customer_ref.as_deref(), sighting)
            .await
    }

    /// Finds or creates the subject of an already validated identifier (also used by the
    /// data routes, which create the subject on first sight); `sighting` is its evidence if
    /// it is created now.
    pub async fn resolve_identifier(
        &self,
        caller: &Caller,
        identifier: &Identifier,
        customer_ref: Option<&str>,
        sighting: FirstSighting,
    ) -> Result<Resolution, Failure> {
        let protected = self
            .vault
            .protect(&caller.tenant_id, &caller.data_key, identifier)
            .map_err(Failure::internal)?;
        let fresh = FreshSubject {
            subject_id: SubjectId::generate(),
            identifier_ref: IdentifierRef::generate(),
            kind: identifier.id_type().subject_kind(),
            sighting,
            at: self.clock.now(),
        };
        self.store
            .resolve_or_create_subject(&caller.tenant_id, &protected, customer_ref, &fresh)
            .await
            .map_err(|e| match e {
                StoreError::RefConflict => Failure::new(
                    ErrorCode::RefConflict,
                    "`ref` is already attached to a different subject",
                ),
                other => Failure::internal(other),
            })
    }

    /// `GET /v1/subjects/{id}`: the subject with only the identifiers in the caller's
    /// countries; none there answers as if it did not exist.
    pub async fn get(&self, caller: &Caller, id: &str) -> Result<SubjectRecord, Failure> {
        caller.require_operation(Operation::GetSubject)?;
        let not_found = || Failure::not_found("subject");
        let id: SubjectId = id.parse().map_err(|_| not_found())?;
        let mut record = match self.store.subject(&caller.tenant_id, &id).await {
            Ok(r) => r,
            Err(StoreError::NotFound) => return Err(not_found()),
            Err(e) => return Err(Failure::internal(e)),
        };
        let visible = caller.visible_countries();
        record.identifiers.retain(|i| visible.contains(i.country));
        if record.identifiers.is_empty() {
            return Err(not_found());
        }
        Ok(record)
    }
}

impl Evidence {
    /// Evidence of a subject created from the consumer's own resolve.
    pub fn identity_event(call_ref: CallRef, at: DateTime<Utc>) -> Evidence {
        Evidence {
            source: EvidenceSource::CustomerIdentityEvent,
            source_timestamp: at,
            call_ref,
            upstream_ref: None,
            digest: None,
            schema_version: Some(crate::evidence::SCHEMA_VERSION.to_owned()),
            retrieved_at: at,
        }
    }
}
