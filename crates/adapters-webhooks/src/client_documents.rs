//! Reading Client ID Metadata Documents (`domain::oauth::ports::ClientDocuments`) under the
//! webhook sender's rules: the name must resolve outside private networks (loopback only when
//! the operator allows it, for tests), no redirect is followed, the answer must be 200 and is
//! read up to [`DOCUMENT_READ_LIMIT`], and `Cache-Control: max-age` says how long it may be
//! kept.

use crate::CheckedResolver;
use async_trait::async_trait;
use domain::oauth::ports::ClientDocuments;
use domain::oauth::registration::ClientMetadata;
use std::sync::Arc;
use std::time::Duration;

/// The most of a document read. Some clients' documents are a few kilobytes (a cap of five
/// refused real ones); this leaves room and still bounds a hostile server.
pub const DOCUMENT_READ_LIMIT: usize = 64 * 1024;
/// How long reading one document may take.
pub const DOCUMENT_TIMEOUT: Duration = Duration::from_secs(5);

pub struct HttpClientDocuments {
    client: reqwest::Client,
}

impl HttpClientDocuments {
    /// `allow_loopback` lets documents on loopback addresses through (tests only);
    /// `extra_root` is a PEM certificate to trust beside the system's (a test's own CA).
    pub fn new(
        allow_loopback: bool,
        extra_root: Option<&[u8]>,
    ) -> Result<HttpClientDocuments, reqwest::Error> {
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .https_only(true)
            .timeout(DOCUMENT_TIMEOUT)
            .connect_timeout(DOCUMENT_TIMEOUT)
            .user_agent(concat!("idreg-oauth/", env!("CARGO_PKG_VERSION")))
            .dns_resolver(Arc::new(CheckedResolver { allow_loopback }));
        if let Some(pem) = extra_root {
            builder = builder.tls_certs_merge([reqwest::Certificate::from_pem(pem)?]);
        }
        Ok(HttpClientDocuments {
            client: builder.build()?,
        })
    }
}

/// `max-age` of a `Cache-Control` value (`no-store` and `no-cache` are zero).
fn max_age(value: &str) -> Option<Duration> {
    let mut found = None;
    for directive in value.split(',').map(str::trim) {
        let lower = directive.to_ascii_lowercase();
        if lower == "no-store" || lower == "no-cache" {
            return Some(Duration::ZERO);
        }
        if let Some(secs) = lower.strip_prefix("max-age=") {
            found = secs
                .trim_matches('"')
                .parse::<u64>()
                .ok()
                .map(Duration::from_secs);
        }
    }
    found
}

#[async_trait]
impl ClientDocuments for HttpClientDocuments {
    async fn fetch(&self, url: &str) -> Result<(ClientMetadata, Option<chrono::Duration>), String> {
        let mut response = self
            .client
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| {
                if crate::failure_kind(&e) == "address_refused" {
                    "its host resolves only to addresses this service does not reach".to_owned()
                } else if e.is_timeout() {
                    "it did not answer in time".to_owned()
                } else {
                    "it could not be reached".to_owned()
                }
            })?;
        if response.status() != reqwest::StatusCode::OK {
            return Err(format!(
                "it answered {} (200 is needed)",
                response.status().as_u16()
            ));
        }
        let cache = response
            .headers()
            .get(reqwest::header::CACHE_CONTROL)
            .and_then(|v| v.to_str().ok())
            .and_then(max_age);
        if response
            .content_length()
            .is_some_and(|n| n > DOCUMENT_READ_LIMIT as u64)
        {
            return Err(format!("it is larger than {DOCUMENT_READ_LIMIT} bytes"));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|_| "it broke off".to_owned())?
        {
            body.extend_from_slice(&chunk);
            if body.len() > DOCUMENT_READ_LIMIT {
                return Err(format!("it is larger than {DOCUMENT_READ_LIMIT} bytes"));
            }
        }
        let metadata = api_core::oauth::client_metadata(&body)?;
        Ok((
            metadata,
            cache.and_then(|d| chrono::Duration::from_std(d).ok()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_headers() {
        assert_eq!(max_age("max-age=600"), Some(Duration::from_secs(600)));
        assert_eq!(max_age("public, max-age=60"), Some(Duration::from_secs(60)));
        assert_eq!(max_age("no-store"), Some(Duration::ZERO));
        assert_eq!(max_age("public"), None);
    }
}
