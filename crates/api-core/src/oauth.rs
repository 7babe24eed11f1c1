//! Client metadata in its JSON form (RFC 7591 §2): a dynamic registration's body and a Client
//! ID Metadata Document hold the same members. Read field by field; a member of the wrong
//! type is refused naming it, members idreg does not use are ignored.

use domain::oauth::registration::ClientMetadata;
use serde_json::Value;

fn string(doc: &serde_json::Map<String, Value>, name: &str) -> Result<Option<String>, String> {
    match doc.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => {
            domain::text::checked(name, s).map_err(|f| f.message)?;
            Ok(Some(s.clone()))
        }
        Some(_) => Err(format!("`{name}` must be a string")),
    }
}

fn strings(
    doc: &serde_json::Map<String, Value>,
    name: &str,
) -> Result<Option<Vec<String>>, String> {
    match doc.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => {
                    domain::text::checked(name, s).map_err(|f| f.message)?;
                    Ok(s.clone())
                }
                _ => Err(format!("`{name}` must be an array of strings")),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(format!("`{name}` must be an array of strings")),
    }
}

/// Reads client metadata from a JSON document.
pub fn client_metadata(body: &[u8]) -> Result<ClientMetadata, String> {
    let value: Value =
        serde_json::from_slice(body).map_err(|_| "the body is not a JSON object".to_owned())?;
    let Value::Object(doc) = value else {
        return Err("the body is not a JSON object".into());
    };
    Ok(ClientMetadata {
        client_id: string(&doc, "client_id")?,
        client_name: string(&doc, "client_name")?,
        client_uri: string(&doc, "client_uri")?,
        redirect_uris: strings(&doc, "redirect_uris")?.unwrap_or_default(),
        grant_types: strings(&doc, "grant_types")?,
        response_types: strings(&doc, "response_types")?,
        token_endpoint_auth_method: string(&doc, "token_endpoint_auth_method")?,
        scope: string(&doc, "scope")?,
        holds_key_material: ["client_secret", "jwks", "jwks_uri"]
            .iter()
            .any(|k| doc.get(*k).is_some_and(|v| !v.is_null())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_read_by_type() {
        let m = client_metadata(
            br#"{"client_name":"Claude","redirect_uris":["https://claude.ai/cb"],
                 "grant_types":["authorization_code"],"token_endpoint_auth_method":"none",
                 "logo_uri":"https://x","jwks_uri":"https://claude.ai/jwks"}"#,
        )
        .unwrap();
        assert_eq!(m.client_name.as_deref(), Some("Claude"));
        assert_eq!(m.redirect_uris, vec!["https://claude.ai/cb".to_owned()]);
        assert!(m.holds_key_material);
        assert!(client_metadata(br#"{"redirect_uris":"https://x"}"#).is_err());
        assert!(client_metadata(br#"[]"#).is_err());
        assert!(client_metadata(br#"{"client_name":"a\u0000b"}"#).is_err());
    }
}

/// Where a person decides an agent's connection: the portal's consent page (app data of the
/// API). Set when the portal starts; without a portal in the deployment, no person can
/// connect an agent and the authorization-code flow is not advertised.
#[derive(Clone, Debug, Default)]
pub struct ConsentPage(std::sync::Arc<std::sync::OnceLock<String>>);

impl ConsentPage {
    /// The portal's origin (`scheme://host[:port]`, checked).
    pub fn set(&self, portal_origin: &str) {
        let _ = self.0.set(portal_origin.trim_end_matches('/').to_owned());
    }

    /// The consent page of a pending request.
    pub fn url(&self, request_id: &str) -> Option<String> {
        self.0.get().map(|o| format!("{o}/connect/{request_id}"))
    }

    pub fn available(&self) -> bool {
        self.0.get().is_some()
    }
}

/// Whether the request's app serves people's connections (a portal is there to consent).
pub fn people_connect(req: &actix_web::HttpRequest) -> bool {
    req.app_data::<actix_web::web::Data<ConsentPage>>()
        .is_some_and(|c| c.available())
}

/// The request headers a browser-based OAuth client sends to the metadata, token and
/// registration endpoints (and `/mcp`'s preflight).
pub const CORS_ALLOW_HEADERS: &str = "Authorization, Content-Type, MCP-Protocol-Version";

/// The headers every answer of a CORS route carries: any origin may read it, no credentials
/// are involved (tokens travel in `Authorization`, never cookies), and a 401's challenge is
/// readable.
pub fn cors_headers() -> actix_web::middleware::DefaultHeaders {
    actix_web::middleware::DefaultHeaders::new()
        .add(("Access-Control-Allow-Origin", "*"))
        .add(("Access-Control-Expose-Headers", "WWW-Authenticate"))
}

/// The answer to a CORS preflight of a route serving `methods`.
pub fn preflight(methods: &[actix_web::http::Method]) -> actix_web::HttpResponse {
    let allowed = methods
        .iter()
        .map(actix_web::http::Method::as_str)
        .chain(["OPTIONS"])
        .collect::<Vec<_>>()
        .join(", ");
    actix_web::HttpResponse::NoContent()
        .insert_header(("Access-Control-Allow-Origin", "*"))
        .insert_header(("Access-Control-Allow-Methods", allowed.clone()))
        .insert_header(("Access-Control-Allow-Headers", CORS_ALLOW_HEADERS))
        .insert_header(("Access-Control-Max-Age", "600"))
        .insert_header((actix_web::http::header::ALLOW, allowed))
        .finish()
}
