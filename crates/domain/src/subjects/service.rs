//! The subject use cases: resolve an identifier to the tenant's subject (creating it on first
//! sight) and read a subject back, filtered to the caller's countries.

use crate::access::caller::Caller;
use crate::clock::Clock;
use crate::error::StoreError;
use crate::error::{ErrorCode, Failure};
use crate::ids::{CallRef, IdentifierRef, SubjectId};
use crate::operation::Operation;
use crate::subjects::identifier::{Identifier, IdentifierType};
use crate::subjects::ports::{IdentifierVault, SubjectStore};
use crate::subjects::subject::{
    FirstSighting, FreshSubject, IdentifierHolder, Resolution, ResolveRequest, SubjectRecord,
    MAX_REF_LEN,
};
use std::sync::Arc;

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
            // A reference is stored and logged as sent: it must never carry a personal
            // number (the identifier itself is what is protected).
            Some(r) if crate::subjects::identifier::shape::holds_personal_number(&r) => {
                return Err(Failure::bad_request(
                    "ref",
                    crate::subjects::identifier::shape::IN_FREE_TEXT,
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

    /// The subject an `identifier_ref` of this tenant belongs to, with its sealed identifier.
    pub async fn holder(
        &self,
        caller: &Caller,
        identifier_ref: &IdentifierRef,
    ) -> Result<Option<IdentifierHolder>, Failure> {
        self.store
            .identifier_holder(&caller.tenant_id, identifier_ref)
            .await
            .map_err(Failure::internal)
    }

    /// The identifier a holder keeps sealed, for an upstream call (never for an answer).
    pub fn reveal(
        &self,
        caller: &Caller,
        holder: &IdentifierHolder,
    ) -> Result<Identifier, Failure> {
        self.vault
            .reveal(
                &caller.tenant_id,
                &caller.data_key,
                holder.id_type,
                &holder.sealed,
            )
            .map_err(Failure::internal)
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
