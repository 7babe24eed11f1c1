//! Route handlers: extract, call one use case through the gate, map the result.

pub mod companies;
pub mod discovery;
pub mod docs;
pub mod events;
pub mod health;
pub mod oauth;
pub mod paid;
pub mod persons;
pub mod screening;
pub mod subjects;
pub mod subscriptions;
pub mod token;
pub mod usage;
pub mod webhooks;

use domain::operation::Operation;

/// The operations served over REST, a row each: the operation and its handler. The routes
/// are registered from this list, at the path and method of the operation's row in
/// `domain::operation` ([`crate::configure`]), and the OpenAPI document's operations are read
/// from the same handlers' `#[utoipa::path]` attributes ([`OperationPaths`]). A handler whose
/// attribute states another path or method than its operation's row fails the unit test
/// `every_operation_is_served_where_its_row_and_its_document_say`; an operation reached by a
/// route but missing here fails it too.
macro_rules! operations_served {
    ($($op:ident => $handler:path,)*) => {
        /// Each operation served over REST with its route (no method guard yet: the
        /// operation's row gives it).
        pub(crate) fn operation_routes() -> Vec<(Operation, actix_web::Route)> {
            vec![$((Operation::$op, actix_web::web::route().to($handler)),)*]
        }

        /// The operations' part of the OpenAPI document.
        #[derive(utoipa::OpenApi)]
        #[openapi(paths($($handler,)*))]
        pub(crate) struct OperationPaths;
    };
}

/// The operations browser-based clients call from another origin: their answers carry
/// `Access-Control-Allow-Origin: *` (never credentials) and a preflight is answered, as the
/// discovery and registration endpoints' are ([`crate::configure`]).
pub(crate) const CROSS_ORIGIN: &[Operation] = &[Operation::IssueToken];

// In registration order: a path of fixed segments before one of the same shape with a
// parameter (`/v1/subjects/resolve` before `/v1/subjects/{id}`).
operations_served! {
    IssueToken => token::issue,
    ResolveSubject => subjects::resolve,
    GetSubject => subjects::get,
    GetCompany => companies::profile,
    GetDocument => companies::document,
    RefreshCompany => companies::refresh,
    GetBeneficialOwners => paid::beneficial_owners,
    GetOfficers => paid::officers,
    GetSignatories => paid::signatories,
    GetPersonEngagements => paid::person_engagements,
    GetPerson => persons::profile,
    ListEvents => events::list,
    CreateSubscription => subscriptions::create,
    ListSubscriptions => subscriptions::list,
    GetSubscription => subscriptions::get,
    EndSubscription => subscriptions::end,
    RunScreeningCheck => screening::run,
    ListScreeningChecks => screening::list,
    GetScreeningCheck => screening::get,
    ListScreeningOverrides => screening::overrides,
    ListScreeningWhitelist => screening::whitelist,
    GetUsage => usage::get,
    CreateWebhookEndpoint => webhooks::create,
    ListWebhookEndpoints => webhooks::list,
    GetWebhookEndpoint => webhooks::get,
    DisableWebhookEndpoint => webhooks::disable,
    EnableWebhookEndpoint => webhooks::enable,
    RotateWebhookSecret => webhooks::rotate_secret,
    ListWebhookDeliveries => webhooks::deliveries,
}

/// The values of the query parameters `names` (each at most once; others are ignored).
pub(crate) fn query_values(
    query: &str,
    names: &[&str],
) -> Result<Vec<Option<String>>, domain::Failure> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query)
        .map_err(|_| domain::Failure::bad_request("query", "is not a well-formed query string"))?;
    let mut values = vec![None; names.len()];
    for (name, value) in pairs {
        if let Some(i) = names.iter().position(|n| *n == name) {
            if values[i].replace(value).is_some() {
                return Err(domain::Failure::bad_request(
                    &name,
                    "is given more than once",
                ));
            }
        }
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use utoipa::OpenApi as _;

    /// A route added in one place only fails here: every operation a request reaches by a
    /// REST route (all but MCP's) is in [`operation_routes`] once, and the OpenAPI document
    /// states each at its row's path and method and states nothing else.
    #[test]
    fn every_operation_is_served_where_its_row_and_its_document_say() {
        crate::install_schemes();
        let served: Vec<Operation> = operation_routes().into_iter().map(|(op, _)| op).collect();
        let expected: Vec<Operation> = Operation::ROUTED
            .into_iter()
            .filter(|op| !matches!(op, Operation::McpRequest | Operation::McpToolCall))
            .collect();
        for op in &expected {
            let times = served.iter().filter(|s| *s == op).count();
            assert_eq!(times, 1, "{op:?} is served {times} times");
        }
        assert_eq!(served.len(), expected.len(), "served: {served:?}");

        let document = serde_json::to_value(OperationPaths::openapi()).unwrap();
        let paths = document["paths"].as_object().unwrap();
        let mut stated = 0;
        for (path, item) in paths {
            for method in item.as_object().unwrap().keys() {
                stated += 1;
                assert!(
                    served.iter().any(|op| op.route_template() == path
                        && op.method().eq_ignore_ascii_case(method)),
                    "the document states {method} {path}, which no operation's row names"
                );
            }
        }
        for op in &served {
            let item = &paths[op.route_template()];
            assert!(
                item.get(op.method().to_ascii_lowercase()).is_some(),
                "{op:?}: the document does not state {} {}",
                op.method(),
                op.route_template()
            );
        }
        assert_eq!(stated, served.len());
    }

    /// Registered as the rows say: each operation's path answers its method (not 404, not
    /// 405), another method at that path is 405 naming the methods the path serves, and a
    /// preflight is answered for the cross-origin operations alone.
    #[actix_web::test]
    async fn each_operation_answers_at_its_row_and_405_beside_it() {
        use actix_web::{test, App};
        let app = test::init_service(App::new().configure(crate::configure)).await;
        for (op, _) in operation_routes() {
            let path = op.route_template().replace(['{', '}'], "");
            let method = actix_web::http::Method::from_bytes(op.method().as_bytes()).unwrap();
            let answer = test::call_service(
                &app,
                test::TestRequest::default()
                    .method(method)
                    .uri(&path)
                    .to_request(),
            )
            .await;
            assert!(
                ![404, 405].contains(&answer.status().as_u16()),
                "{op:?}: {} at {path}",
                answer.status()
            );
            let other = test::call_service(
                &app,
                test::TestRequest::default()
                    .method(actix_web::http::Method::PATCH)
                    .uri(&path)
                    .to_request(),
            )
            .await;
            assert_eq!(other.status().as_u16(), 405, "{op:?}");
            let allow = other
                .headers()
                .get("allow")
                .unwrap()
                .to_str()
                .unwrap()
                .to_owned();
            assert!(allow.contains(op.method()), "{op:?}: Allow {allow}");
            // A preflight is answered where browser-based clients call across origins only.
            let preflight = test::call_service(
                &app,
                test::TestRequest::default()
                    .method(actix_web::http::Method::OPTIONS)
                    .uri(&path)
                    .to_request(),
            )
            .await;
            if CROSS_ORIGIN.contains(&op) {
                assert_eq!(preflight.status().as_u16(), 204, "{op:?}");
                assert_eq!(
                    preflight
                        .headers()
                        .get("access-control-allow-origin")
                        .unwrap(),
                    "*",
                    "{op:?}"
                );
            } else {
                assert_eq!(preflight.status().as_u16(), 405, "{op:?}");
            }
        }
    }
}
