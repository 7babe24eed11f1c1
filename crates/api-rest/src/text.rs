//! Client text on the REST surface: the path segments and query values of a request pass
//! the domain's rule for client text ([`domain::text`]), as every JSON string, form field and
//! MCP argument does where it is read.

/// The path segments and query parameters of a request, checked as client text: a route's
/// path parameters by their names (`id`, `orgnr`), query parameters by theirs. A query
/// string that is not well formed is left to the route, which refuses it.
pub fn check_request(req: &actix_web::HttpRequest) -> Result<(), domain::Failure> {
    use domain::text::checked;
    for (name, value) in req.match_info().iter() {
        checked(name, value)?;
    }
    if let Ok(pairs) = serde_urlencoded::from_str::<Vec<(String, String)>>(req.query_string()) {
        for (name, value) in &pairs {
            checked("query", name)?;
            checked(name, value)?;
        }
    }
    Ok(())
}
