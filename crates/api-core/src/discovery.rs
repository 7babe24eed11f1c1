//! OAuth discovery for machine clients: from nothing but a URL of this service, a client finds
//! the token endpoint and what to ask it for.
//!
//! - A 401 from a bearer-protected route carries `WWW-Authenticate: Bearer` with
//!   `resource_metadata` (RFC 9728 §5.1) and `scope` (the scopes that open what was asked).
//! - Protected Resource Metadata (RFC 9728) names the resource, this origin as its one
//!   authorization server, the consumer scopes and header bearer tokens. Two resources are
//!   described: the API as a whole (the origin, metadata at the root well-known path) and the
//!   MCP endpoint (`<origin>/mcp`, metadata at the path-suffixed one).
//! - Authorization Server Metadata (RFC 8414) names this origin as issuer, `/oauth/token`,
//!   the client-credentials grant and both client-secret methods.
//!
//! Every URL is built on [`origin`]: the configured public URL, else a loopback listener's
//! address (the `Host` a client sent only when it names that loopback listener).

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use domain::access::scope::Scope;
use serde::Serialize;

/// The service's public origin (`scheme://host[:port]`, no path), when the operator set one
/// (`IDREG_PUBLIC_URL`); app data. Without it, a loopback listener's address ([`origin`]).
#[derive(Clone, Debug, Default)]
pub struct PublicOrigin(Option<String>);

impl PublicOrigin {
    /// Whether an operator configured the URL.
    pub fn is_configured(&self) -> bool {
        self.0.is_some()
    }

    /// From the request (no configured URL).
    pub fn from_requests() -> PublicOrigin {
        PublicOrigin(None)
    }

    /// A configured public URL: `http` or `https`, a host, no path (a trailing `/` is
    /// dropped), no query or fragment.
    pub fn configured(url: &str) -> Result<PublicOrigin, String> {
        checked_origin(url).map(|o| PublicOrigin(Some(o)))
    }
}

/// A configured origin, checked: `http` or `https`, a host, no path (a trailing `/` is
/// dropped), no query, fragment or credentials. Answers it without the trailing slash.
pub fn checked_origin(url: &str) -> Result<String, String> {
    let url = url.trim().trim_end_matches('/');
    let Some((scheme, authority)) = url.split_once("://") else {
        return Err(format!("{url:?} is not an absolute URL"));
    };
    if !matches!(scheme, "http" | "https") {
        return Err(format!("{url:?} must be http or https"));
    }
    if authority.is_empty()
        || authority
            .chars()
            .any(|c| matches!(c, '/' | '?' | '#' | '@') || c.is_whitespace() || c.is_control())
    {
        return Err(format!(
            "{url:?} must be an origin: scheme and host (and port) only"
        ));
    }
    Ok(url.to_owned())
}

/// This service's origin as a client reaches it, with no trailing slash: the configured
/// public URL; else (a listener on loopback only: `serve` refuses any other without
/// `IDREG_PUBLIC_URL`) the `Host` the client sent when it names a loopback host at this
/// listener's port (`localhost`, `127.0.0.1`, `[::1]`), else the listener's own address. No
/// forwarded header (`Forwarded`, `X-Forwarded-*`) is ever read, and no other host is taken.
pub fn origin(req: &HttpRequest) -> String {
    let configured = req.app_data::<web::Data<PublicOrigin>>();
    if let Some(url) = configured.and_then(|data| data.get_ref().0.as_ref()) {
        return url.clone();
    }
    let local = req.app_config().local_addr();
    req.headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .and_then(|host| loopback_authority(host, local.port()))
        .map_or_else(|| format!("http://{local}"), |a| format!("http://{a}"))
}

/// `host` (a `Host` header's value) when it names a loopback host at `port`, normalised.
fn loopback_authority(host: &str, port: u16) -> Option<String> {
    let host = host.trim().to_ascii_lowercase();
    let (name, given) = match host.rsplit_once(':') {
        Some((name, p))
            if !name.ends_with(':') && (name.starts_with('[') || !name.contains(':')) =>
        {
            (name.to_owned(), p.parse::<u16>().ok()?)
        }
        _ => (host.clone(), 80),
    };
    (matches!(name.as_str(), "localhost" | "127.0.0.1" | "[::1]") && given == port)
        .then(|| format!("{name}:{port}"))
}

/// A resource protected by bearer tokens, as its metadata describes it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Protected {
    /// The REST API: the origin itself.
    Api,
    /// The MCP endpoint, `<origin>/mcp`.
    Mcp,
}

impl Protected {
    fn path(self) -> &'static str {
        match self {
            Protected::Api => "",
            Protected::Mcp => "/mcp",
        }
    }

    /// The resource identifier (RFC 8707 / RFC 9728 `resource`).
    pub fn resource(self, origin: &str) -> String {
        format!("{origin}{}", self.path())
    }

    /// Where its Protected Resource Metadata is served (RFC 9728 §3.1: the well-known path,
    /// then the resource's own path).
    pub fn metadata_path(self) -> String {
        format!("{PROTECTED_RESOURCE_PATH}{}", self.path())
    }
}

pub const PROTECTED_RESOURCE_PATH: &str = "/.well-known/oauth-protected-resource";
pub const AUTHORIZATION_SERVER_PATH: &str = "/.well-known/oauth-authorization-server";
pub const TOKEN_PATH: &str = "/oauth/token";
pub const AUTHORIZE_PATH: &str = "/oauth/authorize";
pub const REGISTER_PATH: &str = "/oauth/register";

fn consumer_scopes() -> Vec<&'static str> {
    Scope::CONSUMER.iter().map(|s| s.as_str()).collect()
}

/// RFC 9728 Protected Resource Metadata.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ProtectedResourceMetadata {
    /// The resource's identifier: the origin (the REST API) or `<origin>/mcp`.
    pub resource: String,
    /// This origin: the service issues its own tokens.
    pub authorization_servers: Vec<String>,
    /// The consumer scopes; a token carries those its grant holds.
    pub scopes_supported: Vec<&'static str>,
    /// Always `["header"]`.
    pub bearer_methods_supported: Vec<&'static str>,
    pub resource_name: &'static str,
}

impl ProtectedResourceMetadata {
    pub fn of(origin: &str, resource: Protected) -> ProtectedResourceMetadata {
        ProtectedResourceMetadata {
            resource: resource.resource(origin),
            authorization_servers: vec![origin.to_owned()],
            scopes_supported: consumer_scopes(),
            bearer_methods_supported: vec!["header"],
            resource_name: match resource {
                Protected::Api => "idreg REST API",
                Protected::Mcp => "idreg MCP endpoint",
            },
        }
    }
}

/// RFC 8414 Authorization Server Metadata. Client credentials always; where a portal lets
/// people consent, the authorization-code flow too (PKCE with S256, public clients, Client ID
/// Metadata Documents and dynamic registration, `iss` in the answer).
#[derive(Serialize, utoipa::ToSchema)]
pub struct AuthorizationServerMetadata {
    /// This origin, exactly (no trailing slash).
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    /// `client_credentials`; with a portal, `authorization_code` and `refresh_token` too.
    pub grant_types_supported: Vec<&'static str>,
    /// `client_secret_basic` and `client_secret_post`; with a portal, `none` too (public
    /// clients of the authorization-code flow).
    pub token_endpoint_auth_methods_supported: Vec<&'static str>,
    /// `["code"]` with a portal; empty without one (no person can consent).
    pub response_types_supported: Vec<&'static str>,
    pub scopes_supported: Vec<&'static str>,
    /// `["S256"]` (added in 1.8.0).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub code_challenge_methods_supported: Vec<&'static str>,
    /// Dynamic client registration (RFC 7591; added in 1.8.0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    /// A `client_id` may be the https URL of the client's metadata document (added in 1.8.0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_id_metadata_document_supported: Option<bool>,
    /// The authorization response carries `iss` (RFC 9207; added in 1.8.0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authorization_response_iss_parameter_supported: Option<bool>,
}

impl AuthorizationServerMetadata {
    /// The metadata of this origin; `people`: a portal lets people consent.
    pub fn of(origin: &str, people: bool) -> AuthorizationServerMetadata {
        let mut grant_types = vec!["client_credentials"];
        let mut methods = vec!["client_secret_basic", "client_secret_post"];
        if people {
            grant_types.extend(["authorization_code", "refresh_token"]);
            methods.push("none");
        }
        AuthorizationServerMetadata {
            issuer: origin.to_owned(),
            authorization_endpoint: format!("{origin}{AUTHORIZE_PATH}"),
            token_endpoint: format!("{origin}{TOKEN_PATH}"),
            grant_types_supported: grant_types,
            token_endpoint_auth_methods_supported: methods,
            response_types_supported: if people { vec!["code"] } else { vec![] },
            scopes_supported: consumer_scopes(),
            code_challenge_methods_supported: if people { vec!["S256"] } else { vec![] },
            registration_endpoint: people.then(|| format!("{origin}{REGISTER_PATH}")),
            client_id_metadata_document_supported: people.then_some(true),
            authorization_response_iss_parameter_supported: people.then_some(true),
        }
    }
}

/// This service's resources, as the authorization-code flow names them.
pub fn our_resources(origin: &str) -> domain::oauth::authorization::OurResources {
    domain::oauth::authorization::OurResources {
        api: Protected::Api.resource(origin),
        mcp: Protected::Mcp.resource(origin),
    }
}

/// Whether a token request's RFC 8707 `resource` names this service: the API (the origin,
/// with or without its root `/`) or the MCP endpoint.
pub fn is_our_resource(origin: &str, resource: &str) -> bool {
    resource == origin
        || resource.strip_prefix(origin) == Some("/")
        || resource == Protected::Mcp.resource(origin)
}

/// The `WWW-Authenticate` challenge of a 401 from `resource`: where its metadata is, and the
/// scopes that open what was asked (any one of them does). A request that presented a token
/// is told it is `invalid_token` (RFC 6750 §3.1); one that presented none is not.
pub fn challenge(req: &HttpRequest, resource: Protected, scopes: &[Scope]) -> String {
    let origin = origin(req);
    let scopes: Vec<&str> = scopes
        .iter()
        .filter(|s| s.is_consumer_scope())
        .map(|s| s.as_str())
        .collect();
    let mut value = format!(
        "Bearer realm=\"idreg\", resource_metadata=\"{origin}{}\", scope=\"{}\"",
        resource.metadata_path(),
        scopes.join(" ")
    );
    if crate::bearer_token(req).is_some() {
        value.push_str(", error=\"invalid_token\"");
    }
    value
}

/// A 401 answer given the full challenge of `resource`; any other answer as it is.
pub fn challenged(
    mut response: HttpResponse,
    req: &HttpRequest,
    resource: Protected,
    scopes: &[Scope],
) -> HttpResponse {
    if response.status() == actix_web::http::StatusCode::UNAUTHORIZED {
        if let Ok(value) = header::HeaderValue::from_str(&challenge(req, resource, scopes)) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;
    use serde_json::json;

    #[test]
    fn a_public_url_must_be_an_origin() {
        assert!(PublicOrigin::configured("https://api.example.com").is_ok());
        assert!(PublicOrigin::configured("https://api.example.com/").is_ok());
        assert!(PublicOrigin::configured("http://127.0.0.1:8080").is_ok());
        for bad in [
            "api.example.com",
            "ftp://api.example.com",
            "https://",
            "https://api.example.com/v1",
            "https://api.example.com?x=1",
            "https://user@api.example.com",
        ] {
            assert!(PublicOrigin::configured(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_origin_is_the_configured_one_else_the_loopback_listeners() {
        let listener: std::net::SocketAddr = "127.0.0.1:9000".parse().unwrap();
        let asked = |headers: &[(&str, &str)]| {
            let mut req = TestRequest::default().peer_addr(listener);
            for (name, value) in headers {
                req = req.insert_header((*name, *value));
            }
            let req = req.to_http_request();
            // TestRequest's own listener address.
            (origin(&req), req.app_config().local_addr())
        };
        let (_, local) = asked(&[]);
        let own = format!("http://{local}");
        // A loopback name at this listener's port is kept, so a client that used it finds
        // the resource it asked for.
        let port = local.port();
        for (host, expected) in [
            (
                format!("localhost:{port}"),
                format!("http://localhost:{port}"),
            ),
            (
                format!("LOCALHOST:{port}"),
                format!("http://localhost:{port}"),
            ),
            (
                format!("127.0.0.1:{port}"),
                format!("http://127.0.0.1:{port}"),
            ),
            (format!("[::1]:{port}"), format!("http://[::1]:{port}")),
        ] {
            assert_eq!(asked(&[("host", &host)]).0, expected, "{host}");
        }
        // Any other host, another port, a forwarded header or a scheme: the listener's own.
        for headers in [
            vec![("host", "idreg.test:9000")],
            vec![("host", "evil.example")],
            vec![("host", "evil\", error=\"x")],
            vec![("host", "localhost:1")],
            vec![("host", "localhost.evil.example")],
            vec![
                ("x-forwarded-host", "evil.example"),
                ("x-forwarded-proto", "https"),
            ],
            vec![("forwarded", "host=evil.example;proto=https")],
        ] {
            assert_eq!(asked(&headers).0, own, "{headers:?}");
        }
        let req = TestRequest::default()
            .insert_header((header::HOST, "idreg.test:9000"))
            .app_data(web::Data::new(
                PublicOrigin::configured("https://api.example.com/").unwrap(),
            ))
            .to_http_request();
        assert_eq!(origin(&req), "https://api.example.com");
    }

    #[test]
    fn resources_and_their_metadata_paths() {
        let o = "https://api.example.com";
        assert_eq!(Protected::Api.resource(o), o);
        assert_eq!(Protected::Mcp.resource(o), "https://api.example.com/mcp");
        assert_eq!(
            Protected::Mcp.metadata_path(),
            "/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            Protected::Api.metadata_path(),
            "/.well-known/oauth-protected-resource"
        );
        for ours in [o, "https://api.example.com/", "https://api.example.com/mcp"] {
            assert!(is_our_resource(o, ours), "{ours}");
        }
        for other in [
            "https://api.example.com/v1",
            "https://api.example.com/mcp/",
            "https://api.example.com.evil",
            "https://api.example.org",
            "http://api.example.com",
            "",
        ] {
            assert!(!is_our_resource(o, other), "{other}");
        }
    }

    #[test]
    fn the_challenge_names_the_metadata_and_the_scopes() {
        let req = TestRequest::default()
            .insert_header((header::HOST, "idreg.test"))
            .app_data(web::Data::new(
                PublicOrigin::configured("http://idreg.test").unwrap(),
            ))
            .to_http_request();
        assert_eq!(
            challenge(&req, Protected::Mcp, &[Scope::KybRead, Scope::KycRead]),
            "Bearer realm=\"idreg\", resource_metadata=\"http://idreg.test/.well-known/oauth-protected-resource/mcp\", scope=\"kyb:read kyc:read\""
        );
        let req = TestRequest::default()
            .insert_header((header::HOST, "idreg.test"))
            .insert_header((header::AUTHORIZATION, "Bearer nope"))
            .to_http_request();
        assert!(
            challenge(&req, Protected::Api, &[Scope::EventsRead]).ends_with(
                "oauth-protected-resource\", scope=\"events:read\", error=\"invalid_token\""
            )
        );
    }

    #[test]
    fn the_metadata_documents_hold_what_the_sdks_require() {
        let o = "http://127.0.0.1:8080";
        let prm = serde_json::to_value(ProtectedResourceMetadata::of(o, Protected::Mcp)).unwrap();
        assert_eq!(prm["resource"], "http://127.0.0.1:8080/mcp");
        assert_eq!(prm["authorization_servers"], json!([o]));
        assert_eq!(prm["bearer_methods_supported"], json!(["header"]));
        assert_eq!(prm["scopes_supported"].as_array().unwrap().len(), 10);
        let asm = serde_json::to_value(AuthorizationServerMetadata::of(o, false)).unwrap();
        assert_eq!(asm["issuer"], o);
        assert_eq!(asm["token_endpoint"], "http://127.0.0.1:8080/oauth/token");
        assert_eq!(
            asm["authorization_endpoint"],
            "http://127.0.0.1:8080/oauth/authorize"
        );
        assert_eq!(asm["response_types_supported"], json!([]));
        assert_eq!(asm["grant_types_supported"], json!(["client_credentials"]));
        assert_eq!(
            asm["token_endpoint_auth_methods_supported"],
            json!(["client_secret_basic", "client_secret_post"])
        );
        assert!(asm.get("registration_endpoint").is_none());
        let people = serde_json::to_value(AuthorizationServerMetadata::of(o, true)).unwrap();
        assert_eq!(people["response_types_supported"], json!(["code"]));
        assert_eq!(people["code_challenge_methods_supported"], json!(["S256"]));
        assert_eq!(
            people["grant_types_supported"],
            json!(["client_credentials", "authorization_code", "refresh_token"])
        );
        assert_eq!(
            people["token_endpoint_auth_methods_supported"],
            json!(["client_secret_basic", "client_secret_post", "none"])
        );
        assert_eq!(people["client_id_metadata_document_supported"], true);
        assert_eq!(
            people["authorization_response_iss_parameter_supported"],
            true
        );
        assert_eq!(
            people["registration_endpoint"],
            "http://127.0.0.1:8080/oauth/register"
        );
    }
}
