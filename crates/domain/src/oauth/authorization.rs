//! The authorization endpoint's rules (RFC 6749 §4.1, RFC 7636, RFC 8707, RFC 9207): what a
//! request must hold, which faults are shown to the person and never sent to the client (an
//! unknown client, a redirect URI it did not register, PKCE missing or not `S256`, a resource
//! that is not this service: redirecting on any of them would make idreg an open redirect or
//! hand a code to the wrong place), and which go back to the client's registered redirect URI.

use crate::access::scope::{Scope, ScopeSet};
use crate::oauth::client::{ClientGrantType, OAuthClient};
use crate::portal::sign_in::TokenDigest;
use chrono::{DateTime, Duration, Utc};

/// How long a person has between the client's request and their decision.
pub const REQUEST_LIFETIME: Duration = Duration::minutes(10);
/// The longest `state` kept (it is the client's, echoed back as sent).
pub const MAX_STATE_BYTES: usize = 1024;

/// The query of `GET /oauth/authorize`, each parameter as sent (at most once).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthorizeParams {
    pub response_type: Option<String>,
    pub client_id: Option<String>,
    pub redirect_uri: Option<String>,
    pub state: Option<String>,
    pub scope: Option<String>,
    pub code_challenge: Option<String>,
    pub code_challenge_method: Option<String>,
    /// RFC 8707 resource indicators (the one parameter that may repeat).
    pub resources: Vec<String>,
    pub prompt: Option<String>,
    /// A parameter that came more than once (RFC 6749 §3.1 forbids it).
    pub repeated: Option<String>,
}

/// Why an authorization request was not taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthorizeRefusal {
    /// Shown to the person in the browser; nothing is sent to any redirect URI.
    Shown {
        error: &'static str,
        description: String,
    },
    /// Sent back to the client at its registered redirect URI, with `state` and `iss`.
    Redirected {
        redirect_uri: String,
        error: &'static str,
        description: String,
        state: Option<String>,
    },
}

impl AuthorizeRefusal {
    fn shown(error: &'static str, description: impl Into<String>) -> Self {
        AuthorizeRefusal::Shown {
            error,
            description: description.into(),
        }
    }
}

/// This service's resource identifiers (RFC 8707), canonical: the API (the origin) and the
/// MCP endpoint (`<origin>/mcp`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OurResources {
    pub api: String,
    pub mcp: String,
}

impl OurResources {
    /// The canonical resource `presented` names: one of ours, its scheme and host in any case
    /// (RFC 8707 asks servers to accept that), the origin with or without its root `/`.
    pub fn canonical(&self, presented: &str) -> Option<String> {
        let root = format!("{}/", self.api);
        if presented.eq_ignore_ascii_case(&self.api) || presented.eq_ignore_ascii_case(&root) {
            Some(self.api.clone())
        } else if presented.eq_ignore_ascii_case(&self.mcp) {
            Some(self.mcp.clone())
        } else {
            None
        }
    }
}

/// What the person is asked to decide, once a request has passed every check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedRequest {
    pub client_id: String,
    /// The redirect URI as the request presented it (a registered one, or a loopback one at
    /// another port): where the answer goes.
    pub redirect_uri: String,
    pub state: Option<String>,
    pub code_challenge: String,
    pub resource: String,
    /// The consumer scopes asked for; names idreg does not know are left out (clients ask for
    /// their own words, `offline_access` among them; the token's `scope` says what it got).
    pub scopes: ScopeSet,
    /// `prompt=login`: a new sign-in even with a live session.
    pub fresh_login: bool,
}

/// A request waiting for the person's decision, as stored (its id in the consent page's
/// address; the store keeps its digest).
#[derive(Clone, Debug, PartialEq)]
pub struct PendingAuthorization {
    pub digest: TokenDigest,
    pub request: CheckedRequest,
    /// The authorization server's issuer, as the request reached it: `iss` of the answer.
    pub issuer: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub decided_at: Option<DateTime<Utc>>,
}

impl PendingAuthorization {
    pub fn open(&self, now: DateTime<Utc>) -> bool {
        self.decided_at.is_none() && now < self.expires_at
    }
}

/// Whether `challenge` has the shape of an S256 code challenge: the base64url SHA-256 of the
/// verifier, 43 characters, no padding.
pub fn is_s256_challenge(challenge: &str) -> bool {
    challenge.len() == 43
        && challenge
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Whether `verifier` is a PKCE code verifier (RFC 7636 §4.1): 43 to 128 unreserved
/// characters.
pub fn is_code_verifier(verifier: &str) -> bool {
    (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
}

/// The known consumer scopes among the words of `scope`.
pub fn asked_scopes(scope: Option<&str>) -> ScopeSet {
    scope
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(Scope::parse)
        .filter(|s| s.is_consumer_scope())
        .collect()
}

/// Checks an authorization request against its client (`None`: no client has that id).
/// Faults that must not redirect are checked first, in RFC 6749's order: the client, then
/// the redirect URI, then PKCE and the resource; only then may an error go to the client.
pub fn check(
    client: Option<&OAuthClient>,
    params: &AuthorizeParams,
    ours: &OurResources,
    now: DateTime<Utc>,
) -> Result<CheckedRequest, AuthorizeRefusal> {
    use AuthorizeRefusal as R;
    if let Some(name) = params
        .repeated
        .as_deref()
        .filter(|n| matches!(*n, "client_id" | "redirect_uri"))
    {
        return Err(R::shown(
            "invalid_request",
            format!("`{name}` must not be repeated"),
        ));
    }
    let Some(client_id) = params.client_id.as_deref().filter(|c| !c.is_empty()) else {
        return Err(R::shown("invalid_request", "`client_id` is required"));
    };
    let Some(client) = client.filter(|c| c.client_id == client_id && c.live(now)) else {
        return Err(R::shown(
            "invalid_client",
            "no client of this service has that client_id (register it, or publish its metadata document)",
        ));
    };
    let redirect_uri = match params.redirect_uri.as_deref() {
        Some(presented) => match client.redirect_for(presented) {
            Some(_) => presented.to_owned(),
            None => {
                return Err(R::shown(
                    "invalid_request",
                    "`redirect_uri` is not one this client registered",
                ))
            }
        },
        // RFC 6749 §3.1.2.3: it may be left out when the client registered exactly one.
        None => match client.redirect_uris.as_slice() {
            [only] => only.as_str().to_owned(),
            _ => {
                return Err(R::shown(
                    "invalid_request",
                    "`redirect_uri` is required: this client registered more than one",
                ))
            }
        },
    };
    let Some(code_challenge) = params.code_challenge.as_deref() else {
        return Err(R::shown(
            "invalid_request",
            "`code_challenge` is required (PKCE with S256)",
        ));
    };
    if params.code_challenge_method.as_deref() != Some("S256") {
        return Err(R::shown(
            "invalid_request",
            "`code_challenge_method` must be S256 (plain is not accepted)",
        ));
    }
    if !is_s256_challenge(code_challenge) {
        return Err(R::shown(
            "invalid_request",
            "`code_challenge` must be an S256 challenge: 43 base64url characters",
        ));
    }
    let resource = match params.resources.as_slice() {
        [] => ours.mcp.clone(),
        [one] => ours.canonical(one).ok_or_else(|| {
            R::shown(
                "invalid_target",
                format!(
                    "`resource` must name this service: {} or {}",
                    ours.api, ours.mcp
                ),
            )
        })?,
        _ => {
            return Err(R::shown(
                "invalid_target",
                "name one `resource`: a connection is made for one",
            ))
        }
    };

    // From here on the client is known and the redirect URI is its own.
    let state = params.state.clone();
    let back = |error: &'static str, description: &str| R::Redirected {
        redirect_uri: redirect_uri.clone(),
        error,
        description: description.to_owned(),
        state: state.clone(),
    };
    if let Some(name) = params.repeated.as_deref() {
        return Err(back(
            "invalid_request",
            &format!("`{name}` must not be repeated"),
        ));
    }
    if state.as_ref().is_some_and(|s| s.len() > MAX_STATE_BYTES) {
        return Err(R::shown(
            "invalid_request",
            format!("`state` must be at most {MAX_STATE_BYTES} bytes"),
        ));
    }
    match params.response_type.as_deref() {
        Some("code") => {}
        None => return Err(back("invalid_request", "`response_type` is required")),
        Some(_) => {
            return Err(back(
                "unsupported_response_type",
                "only the authorization code flow (response_type=code) is served",
            ))
        }
    }
    if !client
        .grant_types
        .contains(&ClientGrantType::AuthorizationCode)
    {
        return Err(back(
            "unauthorized_client",
            "this client did not register the authorization_code grant",
        ));
    }
    let prompts: Vec<&str> = params
        .prompt
        .as_deref()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    if prompts.contains(&"none") {
        return Err(back(
            "consent_required",
            "a person decides every connection: prompt=none cannot be answered",
        ));
    }
    Ok(CheckedRequest {
        client_id: client.client_id.clone(),
        redirect_uri,
        state,
        code_challenge: code_challenge.to_owned(),
        resource,
        scopes: asked_scopes(params.scope.as_deref()),
        fresh_login: prompts.contains(&"login"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oauth::client::{RedirectUri, Registration, TokenAuthMethod};
    use proptest::prelude::*;

    fn ours() -> OurResources {
        OurResources {
            api: "https://idreg.example".into(),
            mcp: "https://idreg.example/mcp".into(),
        }
    }

    fn client() -> OAuthClient {
        OAuthClient {
            client_id: "mcp_01".into(),
            registration: Registration::Dynamic,
            name: "Test client".into(),
            client_uri: None,
            redirect_uris: vec![
                RedirectUri::parse("https://client.example/cb").unwrap(),
                RedirectUri::parse("http://127.0.0.1/cb").unwrap(),
            ],
            grant_types: vec![
                ClientGrantType::AuthorizationCode,
                ClientGrantType::RefreshToken,
            ],
            auth_method: TokenAuthMethod::None,
            scope: None,
            created_at: Utc::now(),
            expires_at: None,
            fresh_until: None,
        }
    }

    const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

    fn params() -> AuthorizeParams {
        AuthorizeParams {
            response_type: Some("code".into()),
            client_id: Some("mcp_01".into()),
            redirect_uri: Some("https://client.example/cb".into()),
            state: Some("xyz".into()),
            scope: Some("kyb:read offline_access claudeai".into()),
            code_challenge: Some(CHALLENGE.into()),
            code_challenge_method: Some("S256".into()),
            resources: vec!["https://idreg.example/mcp".into()],
            prompt: Some("consent".into()),
            repeated: None,
        }
    }

    fn shown(r: Result<CheckedRequest, AuthorizeRefusal>) -> &'static str {
        match r {
            Err(AuthorizeRefusal::Shown { error, .. }) => error,
            other => panic!("not shown: {other:?}"),
        }
    }

    #[test]
    fn a_good_request_passes_with_what_idreg_knows_of_its_scopes() {
        let c = client();
        let checked = check(Some(&c), &params(), &ours(), Utc::now()).unwrap();
        assert_eq!(checked.resource, "https://idreg.example/mcp");
        assert_eq!(checked.scopes.to_string(), "kyb:read");
        assert_eq!(checked.state.as_deref(), Some("xyz"));
        assert!(!checked.fresh_login);
        let mut p = params();
        p.redirect_uri = Some("http://127.0.0.1:4711/cb".into());
        p.resources = vec!["HTTPS://IDREG.EXAMPLE/".into()];
        let checked = check(Some(&c), &p, &ours(), Utc::now()).unwrap();
        assert_eq!(checked.redirect_uri, "http://127.0.0.1:4711/cb");
        assert_eq!(checked.resource, "https://idreg.example");
    }

    #[test]
    fn faults_that_would_make_an_open_redirect_are_shown_not_sent() {
        let c = client();
        let now = Utc::now();
        let with = |f: &dyn Fn(&mut AuthorizeParams)| {
            let mut p = params();
            f(&mut p);
            p
        };
        assert_eq!(
            shown(check(None, &params(), &ours(), now)),
            "invalid_client"
        );
        assert_eq!(
            shown(check(
                Some(&c),
                &with(&|p| p.client_id = None),
                &ours(),
                now
            )),
            "invalid_request"
        );
        assert_eq!(
            shown(check(
                Some(&c),
                &with(&|p| p.redirect_uri = Some("https://evil.example/cb".into())),
                &ours(),
                now
            )),
            "invalid_request"
        );
        assert_eq!(
            shown(check(
                Some(&c),
                &with(&|p| p.redirect_uri = None),
                &ours(),
                now
            )),
            "invalid_request"
        );
        assert_eq!(
            shown(check(
                Some(&c),
                &with(&|p| p.code_challenge = None),
                &ours(),
                now
            )),
            "invalid_request"
        );
        assert_eq!(
            shown(check(
                Some(&c),
                &with(&|p| p.code_challenge_method = Some("plain".into())),
                &ours(),
                now
            )),
            "invalid_request"
        );
        assert_eq!(
            shown(check(
                Some(&c),
                &with(&|p| p.code_challenge_method = None),
                &ours(),
                now
            )),
            "invalid_request"
        );
        assert_eq!(
            shown(check(
                Some(&c),
                &with(&|p| p.resources = vec!["https://other.example/mcp".into()]),
                &ours(),
                now
            )),
            "invalid_target"
        );
        let mut lapsed = client();
        lapsed.expires_at = Some(now - Duration::seconds(1));
        assert_eq!(
            shown(check(Some(&lapsed), &params(), &ours(), now)),
            "invalid_client"
        );
    }

    #[test]
    fn other_faults_go_back_to_the_client_with_its_state() {
        let c = client();
        let mut p = params();
        p.response_type = Some("token".into());
        match check(Some(&c), &p, &ours(), Utc::now()) {
            Err(AuthorizeRefusal::Redirected {
                redirect_uri,
                error,
                state,
                ..
            }) => {
                assert_eq!(redirect_uri, "https://client.example/cb");
                assert_eq!(error, "unsupported_response_type");
                assert_eq!(state.as_deref(), Some("xyz"));
            }
            other => panic!("{other:?}"),
        }
        p = params();
        p.prompt = Some("none".into());
        assert!(matches!(
            check(Some(&c), &p, &ours(), Utc::now()),
            Err(AuthorizeRefusal::Redirected {
                error: "consent_required",
                ..
            })
        ));
    }

    #[test]
    fn verifiers_and_challenges_have_their_shapes() {
        assert!(is_s256_challenge(CHALLENGE));
        assert!(!is_s256_challenge(&CHALLENGE[1..]));
        assert!(!is_s256_challenge(&format!("{}=", &CHALLENGE[1..])));
        assert!(is_code_verifier(
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        ));
        assert!(!is_code_verifier("short"));
        assert!(!is_code_verifier(&"a".repeat(129)));
        assert!(!is_code_verifier(&format!("{}!", "a".repeat(50))));
    }

    proptest! {
        /// Whatever a request holds, the only place an answer is ever sent is a redirect URI
        /// the client registered (or that URI's loopback listener at another port).
        #[test]
        fn no_request_redirects_where_the_client_did_not_register(
            redirect in proptest::option::of("(https?|cursor|javascript)://[a-z0-9.:\\[\\]@]{1,24}(/[a-z/_.?=#]{0,16})?"),
            response_type in proptest::option::of("code|token|id_token|"),
            method in proptest::option::of("S256|plain|s256"),
            challenge in proptest::option::of("[A-Za-z0-9_-]{40,45}"),
            resource in proptest::collection::vec("https://(idreg|other)\\.example(/mcp)?/?", 0..3),
            prompt in proptest::option::of("none|consent|login|none consent"),
            known in any::<bool>(),
        ) {
            let c = client();
            let p = AuthorizeParams {
                response_type,
                client_id: Some("mcp_01".into()),
                redirect_uri: redirect,
                state: Some("s".into()),
                scope: None,
                code_challenge: challenge,
                code_challenge_method: method,
                resources: resource,
                prompt,
                repeated: None,
            };
            let result = check(known.then_some(&c), &p, &ours(), Utc::now());
            let sent_to = match &result {
                Ok(checked) => Some(checked.redirect_uri.clone()),
                Err(AuthorizeRefusal::Redirected { redirect_uri, .. }) => Some(redirect_uri.clone()),
                Err(AuthorizeRefusal::Shown { .. }) => None,
            };
            if let Some(to) = sent_to {
                prop_assert!(known);
                prop_assert!(c.redirect_for(&to).is_some(), "{to}");
            }
        }
    }
}
