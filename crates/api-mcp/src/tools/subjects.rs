//! The subject tool: a subject by its id.

use super::{Ctx, Effect, Fut, Spec, Tool};
use api_core::bodies;
use api_core::dto::SubjectResponse;
use domain::operation::Operation;
use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `get_subject`.
#[derive(Deserialize, JsonSchema)]
pub struct SubjectIdArgs {
    /// The subject id (an opaque ULID from a resolve or a lookup), or one of its aliases.
    pub id: String,
}

/// This file's tools, for the catalog.
pub(super) fn tools() -> Vec<Tool> {
    vec![Tool::new(
        Spec {
            name: "get_subject",
            title: "Subject",
            description: "A subject by id: kind, identifier references (never the identifiers \
                    themselves), customer references, aliases and evidence. The body of \
                    GET /v1/subjects/{id}.",
            operations: &[Operation::GetSubject],
            effect: Effect::Read,
            open_world: false,
        },
        get_subject,
    )
    .with_output()]
}

fn get_subject(cx: Ctx<'_>, args: SubjectIdArgs) -> Fut<'_, SubjectResponse> {
    Box::pin(cx.route(Operation::GetSubject, move |s, c| async move {
        bodies::get_subject(s, &c, &args.id).await
    }))
}
