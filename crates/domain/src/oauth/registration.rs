//! How a client becomes known: its metadata (RFC 7591 §2, the same fields a Client ID
//! Metadata Document holds) checked into an [`OAuthClient`], and the bounds on dynamic
//! registration (anyone may register, so it is rate-limited per address, idempotent for a
//! public client that sends the same metadata again, capped, and an unused registration
//! lapses).

use crate::oauth::client::{
    is_metadata_document_url, shown_name, ClientGrantType, OAuthClient, RedirectUri, Registration,
    TokenAuthMethod, MAX_REDIRECT_URIS, MAX_URI_BYTES,
};
use chrono::{DateTime, Duration, Utc};
use std::collections::HashMap;
use std::sync::Mutex;

/// A dynamic registration no person consented to within this lapses.
pub const UNUSED_REGISTRATION_LIFETIME: Duration = Duration::hours(24);
/// The most unused dynamic registrations held at once.
pub const UNUSED_REGISTRATION_CEILING: u32 = 10_000;
/// Registrations one peer address may make per [`REGISTRATION_WINDOW`].
pub const REGISTRATIONS_PER_WINDOW: u32 = 120;
pub const REGISTRATION_WINDOW: Duration = Duration::minutes(10);
/// A metadata document is read again at most this long after it was read (sooner when its
/// cache headers say so) and at least this long after.
pub const DOCUMENT_MAX_FRESH: Duration = Duration::hours(24);
pub const DOCUMENT_MIN_FRESH: Duration = Duration::minutes(5);

/// Client metadata as a registration request or a metadata document states it, every field
/// as sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientMetadata {
    pub client_id: Option<String>,
    pub client_name: Option<String>,
    pub client_uri: Option<String>,
    pub redirect_uris: Vec<String>,
    pub grant_types: Option<Vec<String>>,
    pub response_types: Option<Vec<String>>,
    pub token_endpoint_auth_method: Option<String>,
    pub scope: Option<String>,
    /// The document holds a `client_secret`, `jwks` or `jwks_uri` (a metadata document must
    /// not hold a secret, and key-based client authentication is not served).
    pub holds_key_material: bool,
}

/// Why metadata was refused, as RFC 7591 §3.2.2 names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetadataRefusal {
    /// `invalid_redirect_uri` or `invalid_client_metadata`.
    pub error: &'static str,
    pub description: String,
}

fn invalid(description: impl Into<String>) -> MetadataRefusal {
    MetadataRefusal {
        error: "invalid_client_metadata",
        description: description.into(),
    }
}

/// Checks metadata into a client with the id `client_id`. Grant types idreg does not serve
/// are dropped rather than refused (clients list what they can do: the device grant, the JWT
/// bearer grant), as long as `authorization_code` remains.
pub fn check_metadata(
    metadata: &ClientMetadata,
    client_id: &str,
    registration: Registration,
    now: DateTime<Utc>,
) -> Result<OAuthClient, MetadataRefusal> {
    if metadata.redirect_uris.is_empty() {
        return Err(MetadataRefusal {
            error: "invalid_redirect_uri",
            description: "`redirect_uris` must name at least one redirect URI".into(),
        });
    }
    if metadata.redirect_uris.len() > MAX_REDIRECT_URIS {
        return Err(MetadataRefusal {
            error: "invalid_redirect_uri",
            description: format!("at most {MAX_REDIRECT_URIS} redirect URIs"),
        });
    }
    let mut redirect_uris = Vec::new();
    for raw in &metadata.redirect_uris {
        let uri = RedirectUri::parse(raw).map_err(|why| MetadataRefusal {
            error: "invalid_redirect_uri",
            description: why,
        })?;
        if !redirect_uris.contains(&uri) {
            redirect_uris.push(uri);
        }
    }
    let grant_types: Vec<ClientGrantType> = match &metadata.grant_types {
        None => vec![ClientGrantType::AuthorizationCode],
        Some(listed) => {
            let mut kept: Vec<ClientGrantType> = listed
                .iter()
                .filter_map(|g| ClientGrantType::parse(g))
                .collect();
            kept.sort();
            kept.dedup();
            kept
        }
    };
    if !grant_types.contains(&ClientGrantType::AuthorizationCode) {
        return Err(invalid(
            "`grant_types` must include authorization_code: it is the one flow served to clients that register",
        ));
    }
    if let Some(types) = &metadata.response_types {
        if types.iter().any(|t| t != "code") {
            return Err(invalid("`response_types` may only hold code"));
        }
    }
    let auth_method = match (&metadata.token_endpoint_auth_method, registration) {
        // RFC 7591's default is client_secret_basic; a metadata document holds no secret.
        (None, Registration::Dynamic) => TokenAuthMethod::ClientSecretBasic,
        (None, Registration::MetadataDocument) => TokenAuthMethod::None,
        (Some(m), _) => TokenAuthMethod::parse(m).ok_or_else(|| {
            invalid(
                "`token_endpoint_auth_method` must be none, client_secret_basic or client_secret_post",
            )
        })?,
    };
    if registration == Registration::MetadataDocument {
        if auth_method != TokenAuthMethod::None {
            return Err(invalid(
                "a client metadata document's client authenticates with none: it holds no secret",
            ));
        }
        if metadata.holds_key_material {
            return Err(invalid(
                "a client metadata document must not hold a client_secret, and key-based client authentication (jwks, jwks_uri) is not served",
            ));
        }
        if metadata.client_id.as_deref() != Some(client_id) {
            return Err(invalid(
                "the document's client_id must be the URL it was read from",
            ));
        }
    }
    if let Some(uri) = &metadata.client_uri {
        if uri.len() > MAX_URI_BYTES || !uri.starts_with("https://") {
            return Err(invalid("`client_uri` must be an https URL"));
        }
    }
    let fallback = match registration {
        Registration::MetadataDocument => url::Url::parse(client_id)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_else(|| "unnamed client".into()),
        Registration::Dynamic => "unnamed client".into(),
    };
    let name = metadata
        .client_name
        .as_deref()
        .and_then(shown_name)
        .unwrap_or(fallback);
    Ok(OAuthClient {
        client_id: client_id.to_owned(),
        registration,
        name,
        client_uri: metadata.client_uri.clone(),
        redirect_uris,
        grant_types,
        auth_method,
        scope: metadata
            .scope
            .as_deref()
            .map(|s| s.chars().take(1000).collect()),
        created_at: now,
        expires_at: match registration {
            Registration::Dynamic => Some(now + UNUSED_REGISTRATION_LIFETIME),
            Registration::MetadataDocument => None,
        },
        fresh_until: None,
    })
}

/// Whether an id is a metadata document's URL rather than one idreg made up.
pub fn names_a_document(client_id: &str) -> bool {
    is_metadata_document_url(client_id)
}

/// How long a document read at `now` stays fresh: its `max-age`, within
/// [`DOCUMENT_MIN_FRESH`] and [`DOCUMENT_MAX_FRESH`].
pub fn fresh_until(now: DateTime<Utc>, max_age: Option<Duration>) -> DateTime<Utc> {
    now + max_age
        .unwrap_or(DOCUMENT_MAX_FRESH)
        .clamp(DOCUMENT_MIN_FRESH, DOCUMENT_MAX_FRESH)
}

/// What the same public metadata registered again is recognised by: its fields, written in
/// one order.
pub fn metadata_key(client: &OAuthClient) -> String {
    let uris: Vec<&str> = client.redirect_uris.iter().map(|r| r.as_str()).collect();
    let grants: Vec<&str> = client.grant_types.iter().map(|g| g.as_str()).collect();
    format!(
        "{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}",
        client.name,
        client.client_uri.as_deref().unwrap_or_default(),
        uris.join("\u{1e}"),
        grants.join("\u{1e}"),
        client.auth_method.as_str(),
        client.scope.as_deref().unwrap_or_default(),
    )
}

/// Registrations per peer address in fixed windows, in this process (each replica counts its
/// own: a loose bound, beside the store's ceiling).
#[derive(Default)]
pub struct RegistrationLimiter {
    windows: Mutex<HashMap<String, (DateTime<Utc>, u32)>>,
}

impl RegistrationLimiter {
    /// Counts one registration from `peer` at `now`; false when the peer is over its share.
    pub fn admit(&self, peer: Option<&str>, now: DateTime<Utc>) -> bool {
        let peer = peer.unwrap_or("unknown").to_owned();
        let mut windows = self
            .windows
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if windows.len() > 10_000 {
            windows.retain(|_, (start, _)| now - *start < REGISTRATION_WINDOW);
        }
        let entry = windows.entry(peer).or_insert((now, 0));
        if now - entry.0 >= REGISTRATION_WINDOW {
            *entry = (now, 0);
        }
        if entry.1 >= REGISTRATIONS_PER_WINDOW {
            return false;
        }
        entry.1 += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata() -> ClientMetadata {
        ClientMetadata {
            client_name: Some("Claude".into()),
            redirect_uris: vec!["https://claude.ai/api/mcp/auth_callback".into()],
            grant_types: Some(vec![
                "authorization_code".into(),
                "refresh_token".into(),
                "urn:ietf:params:oauth:grant-type:device_code".into(),
            ]),
            response_types: Some(vec!["code".into()]),
            token_endpoint_auth_method: Some("none".into()),
            ..ClientMetadata::default()
        }
    }

    #[test]
    fn unknown_grant_types_are_dropped_not_refused() {
        let c = check_metadata(&metadata(), "mcp_1", Registration::Dynamic, Utc::now()).unwrap();
        assert_eq!(
            c.grant_types,
            vec![
                ClientGrantType::AuthorizationCode,
                ClientGrantType::RefreshToken
            ]
        );
        assert_eq!(c.auth_method, TokenAuthMethod::None);
        assert!(c.expires_at.is_some());
    }

    #[test]
    fn refusals_name_rfc_7591s_codes() {
        let now = Utc::now();
        let mut m = metadata();
        m.redirect_uris = vec!["http://evil.example/cb".into()];
        assert_eq!(
            check_metadata(&m, "x", Registration::Dynamic, now)
                .unwrap_err()
                .error,
            "invalid_redirect_uri"
        );
        m = metadata();
        m.redirect_uris.clear();
        assert_eq!(
            check_metadata(&m, "x", Registration::Dynamic, now)
                .unwrap_err()
                .error,
            "invalid_redirect_uri"
        );
        m = metadata();
        m.grant_types = Some(vec!["client_credentials".into()]);
        assert_eq!(
            check_metadata(&m, "x", Registration::Dynamic, now)
                .unwrap_err()
                .error,
            "invalid_client_metadata"
        );
        m = metadata();
        m.token_endpoint_auth_method = Some("private_key_jwt".into());
        assert!(check_metadata(&m, "x", Registration::Dynamic, now).is_err());
        // RFC 7591's default method for a dynamic client holds a secret.
        m = metadata();
        m.token_endpoint_auth_method = None;
        assert_eq!(
            check_metadata(&m, "x", Registration::Dynamic, now)
                .unwrap()
                .auth_method,
            TokenAuthMethod::ClientSecretBasic
        );
    }

    #[test]
    fn a_document_names_itself_and_holds_no_secret() {
        let now = Utc::now();
        let url = "https://claude.ai/oauth/mcp-oauth-client-metadata";
        let mut m = metadata();
        m.client_id = Some(url.into());
        let c = check_metadata(&m, url, Registration::MetadataDocument, now).unwrap();
        assert_eq!(c.expires_at, None);
        assert_eq!(c.id_host(), "claude.ai");
        m.client_id = Some("https://claude.ai/other".into());
        assert!(check_metadata(&m, url, Registration::MetadataDocument, now).is_err());
        m.client_id = Some(url.into());
        m.holds_key_material = true;
        assert!(check_metadata(&m, url, Registration::MetadataDocument, now).is_err());
        m.holds_key_material = false;
        m.token_endpoint_auth_method = Some("client_secret_post".into());
        assert!(check_metadata(&m, url, Registration::MetadataDocument, now).is_err());
    }

    #[test]
    fn the_limiter_counts_per_peer_and_window() {
        let l = RegistrationLimiter::default();
        let now = Utc::now();
        for _ in 0..REGISTRATIONS_PER_WINDOW {
            assert!(l.admit(Some("10.0.0.1"), now));
        }
        assert!(!l.admit(Some("10.0.0.1"), now));
        assert!(l.admit(Some("10.0.0.2"), now));
        assert!(l.admit(Some("10.0.0.1"), now + REGISTRATION_WINDOW));
    }

    #[test]
    fn freshness_is_bounded() {
        let now = Utc::now();
        assert_eq!(fresh_until(now, None), now + DOCUMENT_MAX_FRESH);
        assert_eq!(
            fresh_until(now, Some(Duration::seconds(1))),
            now + DOCUMENT_MIN_FRESH
        );
        assert_eq!(
            fresh_until(now, Some(Duration::days(30))),
            now + DOCUMENT_MAX_FRESH
        );
    }
}
