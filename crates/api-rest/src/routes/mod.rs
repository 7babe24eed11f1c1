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
