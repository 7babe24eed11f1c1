//! The person tools: the profile and engagements by `identifier_ref`, and `lookup_person` (the
//! resolve, then the profile).

use super::{pair, Ctx, Effect, Fut, Spec, Tool};
use api_core::bodies::{self, Answer};
use api_core::dto::{EngagementsDto, Envelope, PersonProfileDto, ResolveResponse};
use domain::operation::Operation;
use domain::subjects::subject::ResolveRequest;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Arguments of `get_person_engagements`.
#[derive(Deserialize, JsonSchema)]
pub struct PersonRefArgs {
    /// An `identifier_ref` of a person subject of this tenant (`idr_` + 26 characters): from a
    /// resolve, a `lookup_person`, or an officer's or owner's `personal_number_ref`. Never a
    /// personal number.
    #[serde(rename = "ref")]
    pub person_ref: String,
}

/// Arguments of `lookup_person`.
#[derive(Deserialize, JsonSchema)]
pub struct LookupPersonArgs {
    /// The person's personal identity number (personnummer) or coordination number
    /// (samordningsnummer), e.g. `19570413-3106` or `570413-3106`. It is never returned: the
    /// answer carries the tenant's `identifier_ref` for it.
    pub identifier: String,
    /// The identifier scheme: `personnummer` or `samordningsnummer` (`asmens-kodas` for
    /// Lithuania, whose person data is not served yet).
    #[serde(rename = "type")]
    pub id_type: String,
}

/// `lookup_person`'s answer: the resolve body and the person profile body, each embedded
/// byte for byte in `content[1]`.
#[derive(Serialize, JsonSchema)]
pub struct PersonLookup {
    pub subject: ResolveResponse,
    pub person: Envelope<PersonProfileDto>,
}

/// This file's tools, for the catalog.
pub(super) fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            Spec {
                name: "get_person_engagements",
                title: "Person engagements",
                description: "The companies in which a person holds a role, by the person's \
                    identifier_ref. Paid tier, metered. The body of GET /v1/persons/{ref}/engagements.",
                operations: &[Operation::GetPersonEngagements],
                effect: Effect::Read,
                open_world: true,
            },
            get_person_engagements,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "get_person_profile",
                title: "Person profile",
                description: "A person's profile from the population register (names, birth date, \
                    registration, address, protection, death and emigration markers), by the \
                    person's identifier_ref. Needs the tenant's person-register permit in force \
                    (else personreg_permit_required or personreg_permit_suspended, before anything \
                    is read). Metered against the daily person-lookup ceiling; never served stale \
                    (upstream_unavailable instead). Under a protection marker no address is given. \
                    The body of GET /v1/persons/{ref}.",
                operations: &[Operation::GetPerson],
                effect: Effect::Read,
                open_world: true,
            },
            get_person_profile,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "lookup_person",
                title: "Look up a person",
                description: "Looks a person up by personal or coordination number: the tenant's \
                    subject for it (created on first sight) and the person's profile from the \
                    population register. The number is never returned, only its identifier_ref. \
                    Needs the tenant's person-register permit in force (checked before anything \
                    is resolved, read or asked). POST /v1/subjects/resolve and GET \
                    /v1/persons/{ref}; content[1] is {\"subject\": <resolve body>, \"person\": \
                    <person profile body>}, each embedded byte for byte.",
                operations: &[Operation::ResolveSubject, Operation::GetPerson],
                // Reads: resolving creates the subject at most once; calling again changes nothing.
                effect: Effect::Read,
                open_world: true,
            },
            lookup_person,
        ),
    ]
}

fn get_person_engagements(cx: Ctx<'_>, args: PersonRefArgs) -> Fut<'_, Envelope<EngagementsDto>> {
    Box::pin(
        cx.route(Operation::GetPersonEngagements, move |s, c| async move {
            bodies::person_engagements(s, &c, &args.person_ref).await
        }),
    )
}

fn get_person_profile(cx: Ctx<'_>, args: PersonRefArgs) -> Fut<'_, Envelope<PersonProfileDto>> {
    Box::pin(cx.route(Operation::GetPerson, move |s, c| async move {
        bodies::person_profile(s, &c, &args.person_ref).await
    }))
}

/// The resolve, then the profile. The resolve invocation runs the person gate first (scope,
/// a person's well-formed number, its country, a served country, the permit), so a refused
/// lookup creates no subject and reads nothing; the profile then reads by the new ref.
fn lookup_person(cx: Ctx<'_>, args: LookupPersonArgs) -> Fut<'_, PersonLookup> {
    Box::pin(async move {
        let LookupPersonArgs {
            identifier,
            id_type,
        } = args;
        let request = ResolveRequest {
            id_type,
            value: identifier,
            customer_ref: None,
        };
        let subject = cx
            .route(Operation::ResolveSubject, move |s, c| async move {
                bodies::resolve_person(s, &c, request).await
            })
            .await?;
        let person_ref = subject.value.identifier_ref.clone();
        let person = cx
            .route(Operation::GetPerson, move |s, c| async move {
                bodies::person_profile(s, &c, &person_ref).await
            })
            .await?;
        Ok(Answer {
            body: pair(("subject", &subject.body), ("person", &person.body)),
            value: PersonLookup {
                subject: subject.value,
                person: person.value,
            },
        })
    })
}
