//! OAuth clients of the authorization-code flow: who they are, how they registered, where a
//! person's browser may be sent back to them, and the rule that compares a presented
//! redirect URI with the registered ones.
//!
//! A client registers by a Client ID Metadata Document (its `client_id` is the https URL of
//! a JSON document it publishes) or by Dynamic Client Registration (RFC 7591: idreg makes up
//! the id). Either way the redirect URIs are the client's own statement, and the only places
//! a browser is ever sent with a code or an error.

use chrono::{DateTime, Utc};
use url::Url;

/// The most redirect URIs a client may register.
pub const MAX_REDIRECT_URIS: usize = 10;
/// The longest redirect URI (or client URI) accepted.
pub const MAX_URI_BYTES: usize = 2000;
/// The longest client name kept; a longer one is cut at a character boundary.
pub const MAX_CLIENT_NAME_CHARS: usize = 100;

/// How a client came to be known.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Registration {
    /// RFC 7591 dynamic registration: idreg made up the `client_id`.
    Dynamic,
    /// A Client ID Metadata Document: the `client_id` is the document's https URL.
    MetadataDocument,
}

impl Registration {
    pub fn as_str(self) -> &'static str {
        match self {
            Registration::Dynamic => "dynamic",
            Registration::MetadataDocument => "metadata_document",
        }
    }

    pub fn parse(s: &str) -> Option<Registration> {
        [Registration::Dynamic, Registration::MetadataDocument]
            .into_iter()
            .find(|r| r.as_str() == s)
    }
}

/// How a client authenticates at the token endpoint.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TokenAuthMethod {
    /// A public client (a desktop or browser app): PKCE alone binds the code to it.
    None,
    ClientSecretBasic,
    ClientSecretPost,
}

impl TokenAuthMethod {
    pub const ALL: [TokenAuthMethod; 3] = [
        TokenAuthMethod::None,
        TokenAuthMethod::ClientSecretBasic,
        TokenAuthMethod::ClientSecretPost,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TokenAuthMethod::None => "none",
            TokenAuthMethod::ClientSecretBasic => "client_secret_basic",
            TokenAuthMethod::ClientSecretPost => "client_secret_post",
        }
    }

    pub fn parse(s: &str) -> Option<TokenAuthMethod> {
        Self::ALL.into_iter().find(|m| m.as_str() == s)
    }

    /// Whether the client holds a secret.
    pub fn is_confidential(self) -> bool {
        self != TokenAuthMethod::None
    }
}

/// A grant type a client of this flow may use.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ClientGrantType {
    AuthorizationCode,
    RefreshToken,
}

impl ClientGrantType {
    pub fn as_str(self) -> &'static str {
        match self {
            ClientGrantType::AuthorizationCode => "authorization_code",
            ClientGrantType::RefreshToken => "refresh_token",
        }
    }

    pub fn parse(s: &str) -> Option<ClientGrantType> {
        [
            ClientGrantType::AuthorizationCode,
            ClientGrantType::RefreshToken,
        ]
        .into_iter()
        .find(|g| g.as_str() == s)
    }
}

/// Schemes a redirect URI may never use: they run code, read local files or leave the web
/// for something no OAuth client listens on.
const FORBIDDEN_SCHEMES: [&str; 12] = [
    "javascript",
    "data",
    "file",
    "vbscript",
    "about",
    "blob",
    "filesystem",
    "ws",
    "wss",
    "ftp",
    "mailto",
    "view-source",
];

/// The loopback host names a native client may listen on (RFC 8252 §7.3, §8.3).
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// A registered redirect URI: `https` with a host; `http` on a loopback host (a native client's
/// listener, RFC 8252 §7.3); or a private-use scheme a desktop client claims (RFC 8252 §7.1,
/// `cursor://anysphere.cursor-mcp/oauth/callback`). Never a fragment, never credentials.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RedirectUri(String);

impl RedirectUri {
    pub fn parse(raw: &str) -> Result<RedirectUri, String> {
        if raw.is_empty() || raw.len() > MAX_URI_BYTES {
            return Err(format!("a redirect URI must be 1 to {MAX_URI_BYTES} bytes"));
        }
        if raw.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err("a redirect URI must not hold white space or control characters".into());
        }
        let url =
            Url::parse(raw).map_err(|_| "a redirect URI must be an absolute URI".to_owned())?;
        if url.fragment().is_some() || raw.contains('#') {
            return Err("a redirect URI must not have a fragment".into());
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err("a redirect URI must not carry credentials".into());
        }
        if matches!(url.scheme(), "http" | "https") {
            // Written as the parser reads it: `scheme://host`, no backslash (a lenient parser
            // would find a host in `https:///x` or `https:\\x` that the text does not show).
            let prefix = format!("{}://", url.scheme());
            let written = raw
                .get(..prefix.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(&prefix));
            let after = raw.get(prefix.len()..).unwrap_or("");
            if !written || after.starts_with('/') || raw.contains('\\') {
                return Err("a redirect URI must be written scheme://host/path".into());
            }
        }
        match url.scheme() {
            "https" if url.host_str().is_none_or(str::is_empty) => {
                return Err("an https redirect URI needs a host".into());
            }
            "http" if !url.host_str().is_some_and(is_loopback_host) => {
                return Err(
                    "an http redirect URI must name a loopback host (localhost, 127.0.0.1 \
                     or [::1]); use https otherwise"
                        .into(),
                );
            }
            scheme if FORBIDDEN_SCHEMES.contains(&scheme) => {
                return Err(format!("the scheme {scheme}: is not a redirect URI's"));
            }
            _ => {}
        }
        Ok(RedirectUri(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether it is a native client's loopback listener (`http` on a loopback host).
    pub fn is_loopback(&self) -> bool {
        Url::parse(&self.0)
            .is_ok_and(|u| u.scheme() == "http" && u.host_str().is_some_and(is_loopback_host))
    }

    /// The host a person is shown ("sends you back to ..."): the URI's host, or for a
    /// private-use scheme the scheme and its authority.
    pub fn shown_host(&self) -> String {
        match Url::parse(&self.0) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => {
                u.host_str().unwrap_or_default().to_owned()
            }
            Ok(u) => format!("{}://{}", u.scheme(), u.host_str().unwrap_or_default()),
            Err(_) => String::new(),
        }
    }

    /// Whether `presented` (a request's `redirect_uri`) is this registered URI: the same
    /// string exactly; or, for a loopback `http` URI, the same host name, path and query at
    /// any port (RFC 8252 §7.3: a native client's listener gets its port at run time). A
    /// loopback name never stands for another (`localhost` is not `127.0.0.1`).
    pub fn matches(&self, presented: &str) -> bool {
        if self.0 == presented {
            return true;
        }
        if !self.is_loopback() || presented.contains('#') {
            return false;
        }
        let (Ok(registered), Ok(asked)) = (Url::parse(&self.0), Url::parse(presented)) else {
            return false;
        };
        asked.scheme() == "http"
            && asked.username().is_empty()
            && asked.password().is_none()
            && asked.fragment().is_none()
            && asked.host_str() == registered.host_str()
            && asked.path() == registered.path()
            && asked.query() == registered.query()
            // The presented string is the one a browser is sent to: it must read back as
            // itself (no spelling the parser would normalise into another place).
            && presented.starts_with("http://")
            && !presented.contains('\\')
            && canonical_loopback(presented).as_deref() == Some(presented)
    }
}

/// A loopback `http` URI as the URL parser writes it, for comparing spellings.
fn canonical_loopback(raw: &str) -> Option<String> {
    let url = Url::parse(raw).ok()?;
    let mut written = url.to_string();
    // The parser adds a `/` to an empty path; a registered URI written without it still
    // names the same place.
    if url.path() == "/" && url.query().is_none() && !raw.ends_with('/') {
        written.pop();
    }
    Some(written)
}

fn is_loopback_host(host: &str) -> bool {
    LOOPBACK_HOSTS.contains(&host)
}

/// A client of the authorization-code flow, as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct OAuthClient {
    pub client_id: String,
    pub registration: Registration,
    /// The name a person is shown (the client's `client_name`; the host of its id when it
    /// gave none).
    pub name: String,
    pub client_uri: Option<String>,
    pub redirect_uris: Vec<RedirectUri>,
    pub grant_types: Vec<ClientGrantType>,
    pub auth_method: TokenAuthMethod,
    /// The scopes it said it would ask for (`scope`), unparsed: only a hint.
    pub scope: Option<String>,
    pub created_at: DateTime<Utc>,
    /// A dynamic registration no person consented to lapses then; `None` once used.
    pub expires_at: Option<DateTime<Utc>>,
    /// A metadata document is read again after this.
    pub fresh_until: Option<DateTime<Utc>>,
}

impl OAuthClient {
    /// The registered URI that `presented` names ([`RedirectUri::matches`]), if any.
    pub fn redirect_for(&self, presented: &str) -> Option<&RedirectUri> {
        self.redirect_uris.iter().find(|r| r.matches(presented))
    }

    pub fn may_refresh(&self) -> bool {
        self.grant_types.contains(&ClientGrantType::RefreshToken)
    }

    /// The host of its id, shown beside its name so that a name alone never vouches for a
    /// client: the metadata document's host, or `registered here` for a dynamic one.
    pub fn id_host(&self) -> String {
        match self.registration {
            Registration::MetadataDocument => Url::parse(&self.client_id)
                .ok()
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_default(),
            Registration::Dynamic => String::new(),
        }
    }

    /// Whether it may be used at `now` (an unused dynamic registration lapses).
    pub fn live(&self, now: DateTime<Utc>) -> bool {
        self.expires_at.is_none_or(|e| now < e)
    }
}

/// A client name as shown: trimmed, control characters dropped, at most
/// [`MAX_CLIENT_NAME_CHARS`] characters; `None` when nothing is left.
pub fn shown_name(raw: &str) -> Option<String> {
    let cleaned: String = raw
        .chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let cut: String = cleaned.chars().take(MAX_CLIENT_NAME_CHARS).collect();
    (!cut.is_empty()).then_some(cut)
}

/// Whether `client_id` has the shape of a Client ID Metadata Document's URL: `https`, a host,
/// a path other than `/`, no credentials, fragment, or `.`/`..` segment, within
/// [`MAX_URI_BYTES`].
pub fn is_metadata_document_url(client_id: &str) -> bool {
    if client_id.len() > MAX_URI_BYTES || !client_id.starts_with("https://") {
        return false;
    }
    let Ok(url) = Url::parse(client_id) else {
        return false;
    };
    let raw_path = client_id
        .strip_prefix("https://")
        .and_then(|rest| rest.find('/').map(|i| &rest[i..]))
        .unwrap_or("");
    url.scheme() == "https"
        && url.host_str().is_some_and(|h| !h.is_empty())
        && url.username().is_empty()
        && url.password().is_none()
        && url.fragment().is_none()
        && !client_id.contains('#')
        && url.path() != "/"
        && !raw_path
            .split(['/', '?'])
            .any(|segment| segment == "." || segment == "..")
        // The id is compared as a string: it must be the parser's own spelling of itself.
        && url.as_str() == client_id
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn uri(s: &str) -> RedirectUri {
        RedirectUri::parse(s).unwrap()
    }

    #[test]
    fn the_redirect_uris_clients_use_are_accepted() {
        for ok in [
            "https://claude.ai/api/mcp/auth_callback",
            "https://chatgpt.com/connector_platform_oauth_redirect",
            "http://127.0.0.1:33418/",
            "http://127.0.0.1/",
            "http://localhost:3118/callback",
            "http://[::1]:9000/cb",
            "cursor://anysphere.cursor-mcp/oauth/callback",
            "com.example.app:/oauth2redirect",
            "https://vscode.dev/redirect",
        ] {
            assert!(RedirectUri::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "/callback",
            "http://example.com/callback",
            "http://192.168.1.4/cb",
            "https://claude.ai/cb#frag",
            "https://user:pw@claude.ai/cb",
            "javascript:alert(1)",
            "data:text/html,hi",
            "file:///etc/passwd",
            "https:///nohost",
            "https://claude.ai/ cb",
            "https://claude.ai/\ncb",
            "https:\\\\claude.ai/cb",
            "http:/127.0.0.1/cb",
        ] {
            assert!(RedirectUri::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn exact_match_except_a_loopback_port() {
        let r = uri("https://claude.ai/api/mcp/auth_callback");
        assert!(r.matches("https://claude.ai/api/mcp/auth_callback"));
        for other in [
            "https://claude.ai/api/mcp/auth_callback/",
            "https://claude.ai/api/mcp/auth_callback?x=1",
            "https://CLAUDE.ai/api/mcp/auth_callback",
            "https://claude.ai:443/api/mcp/auth_callback",
            "https://claude.ai.evil.example/api/mcp/auth_callback",
            "http://claude.ai/api/mcp/auth_callback",
        ] {
            assert!(!r.matches(other), "{other}");
        }
        let l = uri("http://127.0.0.1/callback");
        assert!(l.matches("http://127.0.0.1:53124/callback"));
        assert!(l.matches("http://127.0.0.1/callback"));
        for other in [
            "http://localhost:53124/callback",
            "http://127.0.0.1:53124/other",
            "http://127.0.0.1:53124/callback?next=x",
            "http://127.0.0.1:53124/callback#x",
            "https://127.0.0.1:53124/callback",
            "http://user@127.0.0.1:53124/callback",
            "http://127.0.0.1:53124/a/../callback",
            "http://127.0.0.1:053124/callback",
            "http://127.0.0.1:53124\\@evil.example/callback",
        ] {
            assert!(!l.matches(other), "{other}");
        }
        let root = uri("http://127.0.0.1:33418/");
        assert!(root.matches("http://127.0.0.1:40000/"));
        assert!(!root.matches("http://127.0.0.1:40000/x"));
        let custom = uri("cursor://anysphere.cursor-mcp/oauth/callback");
        assert!(custom.matches("cursor://anysphere.cursor-mcp/oauth/callback"));
        assert!(!custom.matches("cursor://anysphere.cursor-mcp/oauth/callback2"));
    }

    #[test]
    fn metadata_document_urls() {
        for ok in [
            "https://claude.ai/oauth/mcp-oauth-client-metadata",
            "https://chatgpt.com/oauth/client.json",
            "https://127.0.0.1:8443/client.json",
        ] {
            assert!(is_metadata_document_url(ok), "{ok}");
        }
        for bad in [
            "http://claude.ai/oauth/x",
            "https://claude.ai/",
            "https://claude.ai",
            "https://u@claude.ai/x",
            "https://claude.ai/x#f",
            "https://claude.ai/a/../x",
            "https://claude.ai/./x",
            "https://CLAUDE.ai/x",
            "mcp_0123",
        ] {
            assert!(!is_metadata_document_url(bad), "{bad}");
        }
    }

    #[test]
    fn names_are_cleaned_and_bounded() {
        assert_eq!(
            shown_name("  Claude \n Desktop "),
            Some("Claude Desktop".into())
        );
        assert_eq!(shown_name("\u{0}\u{7}"), None);
        assert_eq!(shown_name(&"x".repeat(500)).unwrap().chars().count(), 100);
    }

    proptest! {
        /// Whatever is presented, a match is the registered string itself, or a loopback
        /// `http` URI on the registered host with the registered path and query: a browser
        /// is never sent anywhere else.
        #[test]
        fn a_match_is_the_registered_place(
            registered in prop::sample::select(vec![
                "https://claude.ai/api/mcp/auth_callback",
                "http://127.0.0.1/callback",
                "http://localhost:3118/callback",
                "http://[::1]:9/cb",
                "cursor://anysphere.cursor-mcp/oauth/callback",
            ]),
            presented in "(https?|cursor)://(claude\\.ai|127\\.0\\.0\\.1|localhost|\\[::1\\]|evil\\.example|anysphere\\.cursor-mcp)(:[0-9]{0,6})?(/[a-z_/.\\\\@#?=]{0,30})?",
        ) {
            let r = RedirectUri::parse(registered).unwrap();
            if r.matches(&presented) && presented != registered {
                {
                    let (a, b) = (Url::parse(&presented).unwrap(), Url::parse(registered).unwrap());
                    prop_assert_eq!(a.scheme(), "http");
                    prop_assert_eq!(a.host_str(), b.host_str());
                    prop_assert_eq!(a.path(), b.path());
                    prop_assert_eq!(a.query(), b.query());
                    prop_assert!(a.fragment().is_none());
                    prop_assert!(r.is_loopback());
                }
            }
        }
    }
}
