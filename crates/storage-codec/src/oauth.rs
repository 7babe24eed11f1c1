//! An OAuth client's lists as both stores keep them: its redirect URIs one per line (a
//! redirect URI holds no white space), its grant types space-separated; and the client read
//! back from its columns, every value checked again.

use crate::corrupt;
use chrono::{DateTime, Utc};
use domain::access::grant::SecretHash;
use domain::error::StoreError;
use domain::oauth::client::{
    ClientGrantType, OAuthClient, RedirectUri, Registration, TokenAuthMethod,
};

pub fn redirect_uris_to_text(client: &OAuthClient) -> String {
    client
        .redirect_uris
        .iter()
        .map(|u| u.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn grant_types_to_text(client: &OAuthClient) -> String {
    client
        .grant_types
        .iter()
        .map(|g| g.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A client's columns as read, times already converted.
pub struct ClientColumns {
    pub client_id: String,
    pub registration: String,
    pub client_name: String,
    pub client_uri: Option<String>,
    pub redirect_uris: String,
    pub grant_types: String,
    pub auth_method: String,
    pub scope: Option<String>,
    pub secret_hash: Option<String>,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub fresh_until: Option<DateTime<Utc>>,
}

impl ClientColumns {
    pub fn into_client(self) -> Result<(OAuthClient, Option<SecretHash>), StoreError> {
        let client = OAuthClient {
            registration: Registration::parse(&self.registration)
                .ok_or_else(|| corrupt("client registration"))?,
            name: self.client_name,
            client_uri: self.client_uri,
            redirect_uris: self
                .redirect_uris
                .lines()
                .map(|u| RedirectUri::parse(u).map_err(|_| corrupt("redirect uri")))
                .collect::<Result<_, _>>()?,
            grant_types: self
                .grant_types
                .split_whitespace()
                .map(|g| ClientGrantType::parse(g).ok_or_else(|| corrupt("grant type")))
                .collect::<Result<_, _>>()?,
            auth_method: TokenAuthMethod::parse(&self.auth_method)
                .ok_or_else(|| corrupt("client auth method"))?,
            scope: self.scope,
            created_at: self.created_at,
            expires_at: self.expires_at,
            fresh_until: self.fresh_until,
            client_id: self.client_id,
        };
        Ok((client, self.secret_hash.map(SecretHash)))
    }
}
