//! Bolagsverket "API för värdefulla datamängder" (VDM v1): the OAuth2 token,
//! `POST /organisationer`, `POST /dokumentlista` and `GET /dokument/{dokumentId}`.
//!
//! The identifier travels in the POST body (never in a URL). Every data call carries a
//! fresh `X-Request-Id`; VDM echoes it on answers (header) and in error bodies
//! (`requestId`), which becomes the call's `upstream_ref`.

use crate::config::{SeConfigError, VdmConfig};
use crate::gateway::{Gateway, GatewayAuth};
use crate::USER_AGENT;
use connector_kit::{build_client, status_failure, Operation, Step, MAX_DATA_BYTES};
use domain::companies::profile::{AnnualReportRef, RegistryFailure};
use reqwest::header::ACCEPT;
use std::time::Duration;

mod documents;
mod organisationer;

pub use documents::valid_document_id;
pub(crate) use documents::{check_zip, read_dokumentlista};
use organisationer::parse_date;
pub(crate) use organisationer::{read_organisationer, VdmCompany};

const SCHEMA: &str = "vdm-v1";

pub(crate) const OP_ORGANISATIONER: Operation = Operation {
    source: crate::sources::VARDEFULLA_DATAMANGDER,
    name: "POST /organisationer",
    schema_version: SCHEMA,
    cost: 0,
};
pub(crate) const OP_DOKUMENTLISTA: Operation = Operation {
    source: crate::sources::VARDEFULLA_DATAMANGDER,
    name: "POST /dokumentlista",
    schema_version: SCHEMA,
    cost: 0,
};
pub(crate) const OP_DOKUMENT: Operation = Operation {
    source: crate::sources::VARDEFULLA_DATAMANGDER,
    name: "GET /dokument/{dokumentId}",
    schema_version: SCHEMA,
    cost: 0,
};

/// The VDM connector: the gateway client and VDM's own settings.
pub(crate) struct VdmClient {
    gateway: Gateway,
    base_url: String,
    document_timeout: Duration,
    max_document_bytes: usize,
}

impl VdmClient {
    pub fn new(c: &VdmConfig) -> Result<Self, SeConfigError> {
        Ok(VdmClient {
            gateway: Gateway::new(
                build_client("vdm", USER_AGENT, c.timeouts, &c.tls)?,
                GatewayAuth {
                    label: "companyreg.vardefulla-datamangder",
                    token_url: c.token_url.clone(),
                    client_id: c.client_id.clone(),
                    client_secret: c.client_secret.clone(),
                    scope: c.scope.clone(),
                    client_auth: c.client_auth,
                    refresh_margin: c.token_refresh_margin,
                },
            ),
            base_url: c.base_url.trim_end_matches('/').to_owned(),
            document_timeout: c.document_timeout,
            max_document_bytes: c.max_document_bytes,
        })
    }

    /// The clock the gateway token's renewal reads.
    pub fn set_clock(&mut self, clock: std::sync::Arc<dyn domain::clock::Clock>) {
        self.gateway.set_clock(clock);
    }

    // -----------------------------------------------------------------------------------
    // Data
    // -----------------------------------------------------------------------------------

    /// `POST /organisationer`: the register data of one organisation.
    pub async fn organisationer(&self, id: &str) -> Step<VdmCompany> {
        let url = format!("{}/organisationer", self.base_url);
        let body = serde_json::json!({ "identitetsbeteckning": id });
        self.gateway
            .call(
                &OP_ORGANISATIONER,
                MAX_DATA_BYTES,
                None,
                |http| {
                    http.post(&url)
                        .header(ACCEPT, "application/json")
                        .json(&body)
                },
                |a| match a.status {
                    200 => read_organisationer(&a.body, id),
                    s => Err(status_failure(&OP_ORGANISATIONER.label(), s)),
                },
            )
            .await
    }

    /// `POST /dokumentlista`: the newest annual report on file, if any.
    pub async fn dokumentlista(&self, id: &str) -> Step<Option<AnnualReportRef>> {
        let url = format!("{}/dokumentlista", self.base_url);
        let body = serde_json::json!({ "identitetsbeteckning": id });
        self.gateway
            .call(
                &OP_DOKUMENTLISTA,
                MAX_DATA_BYTES,
                None,
                |http| {
                    http.post(&url)
                        .header(ACCEPT, "application/json")
                        .json(&body)
                },
                |a| match a.status {
                    200 => read_dokumentlista(&a.body),
                    s => Err(status_failure(&OP_DOKUMENTLISTA.label(), s)),
                },
            )
            .await
    }

    /// `GET /dokument/{dokumentId}`: an annual-report archive. The id must have passed
    /// [`valid_document_id`].
    pub async fn dokument(&self, document_id: &str) -> Step<Vec<u8>> {
        debug_assert!(valid_document_id(document_id));
        let url = format!("{}/dokument/{}", self.base_url, document_id);
        self.gateway
            .call(
                &OP_DOKUMENT,
                self.max_document_bytes,
                Some(self.document_timeout),
                |http| http.get(&url).header(ACCEPT, "application/zip"),
                |a| match a.status {
                    200 => check_zip(&a.body).map(|()| a.body.clone()),
                    404 => Err(RegistryFailure::NotFound),
                    s => Err(status_failure(&OP_DOKUMENT.label(), s)),
                },
            )
            .await
    }
}

/// A failure for an answer that cannot be read.
fn garbled(op: &Operation, why: &str) -> RegistryFailure {
    RegistryFailure::Garbled(format!("{}: {why}", op.label()))
}

/// A recorded VDM answer from `testdata/vdm/`.
#[cfg(test)]
fn sample(name: &str) -> Vec<u8> {
    crate::samples::read(&format!("vdm/{name}"))
}

#[cfg(test)]
fn sample_json(name: &str) -> serde_json::Value {
    serde_json::from_slice(&sample(name)).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gateway::gateway_meta;
    use connector_kit::Answer;

    #[test]
    fn error_bodies_give_the_upstream_reference() {
        let a = Answer {
            status: 400,
            headers: Default::default(),
            body: sample("dokumentlista-400-not-in-test-allowlist.json"),
        };
        assert_eq!(
            gateway_meta(&a).upstream_ref.as_deref(),
            Some("6943ffa4-a86f-402b-8c44-5b1d5a8e03ba")
        );
        assert!(matches!(
            status_failure(&OP_DOKUMENTLISTA.label(), a.status),
            RegistryFailure::Garbled(_)
        ));
    }
}
