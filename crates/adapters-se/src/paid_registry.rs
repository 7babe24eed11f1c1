//! [`SwedishPaidRegistry`]: the `PaidCompanyRegistry` port for Sweden, made of Bolagsverket's
//! company information API (officers, signatory rule, engagements) and its beneficial-owners
//! API (mutual TLS).

use crate::config::{SeConfigError, SePaidConfig};
use crate::foretagsinformation::ForetagsinformationClient;
use crate::verkliga_huvudman::VerkligaHuvudmanClient;
use async_trait::async_trait;
use domain::companies::paid::{EngagementPage, FetchedOfficers, FetchedOwners};
use domain::companies::ports::PaidCompanyRegistry;
use domain::companies::profile::Fetch;
use domain::companies::profile::RegistryFailure;
use domain::subjects::identifier::Identifier;

/// The Swedish paid tier. Building it reads the client certificate, so a deployment with a
/// missing or unusable certificate fails at start-up, naming the setting.
pub struct SwedishPaidRegistry {
    fi: ForetagsinformationClient,
    bo: VerkligaHuvudmanClient,
}

impl std::fmt::Debug for SwedishPaidRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SwedishPaidRegistry")
            .finish_non_exhaustive()
    }
}

impl SwedishPaidRegistry {
    pub fn new(config: &SePaidConfig) -> Result<Self, SeConfigError> {
        config.validate()?;
        Ok(SwedishPaidRegistry {
            fi: ForetagsinformationClient::new(&config.foretagsinformation)?,
            bo: VerkligaHuvudmanClient::new(&config.verkliga_huvudman)?,
        })
    }
}

/// A number the Swedish registry cannot take: nothing is called.
fn refused<T>(what: &str) -> Fetch<T> {
    tracing::warn!("the Swedish paid registry takes {what} only");
    Fetch {
        calls: Vec::new(),
        outcome: Err(RegistryFailure::NotFound),
    }
}

#[async_trait]
impl PaidCompanyRegistry for SwedishPaidRegistry {
    async fn fetch_officers(&self, orgnr: &Identifier) -> Fetch<FetchedOfficers> {
        if orgnr.id_type() != crate::identifiers::ORGNR {
            return refused("organisationsnummer");
        }
        self.fi
            .officers(orgnr.expose_canonical())
            .await
            .into_fetch()
    }

    async fn fetch_beneficial_owners(&self, orgnr: &Identifier) -> Fetch<FetchedOwners> {
        if orgnr.id_type() != crate::identifiers::ORGNR {
            return refused("organisationsnummer");
        }
        self.bo.owners(orgnr.expose_canonical()).await.into_fetch()
    }

    async fn fetch_engagements(&self, person: &Identifier, page: u32) -> Fetch<EngagementPage> {
        if ![
            crate::identifiers::PERSONNUMMER,
            crate::identifiers::SAMORDNINGSNUMMER,
        ]
        .contains(&person.id_type())
        {
            return refused("personnummer and samordningsnummer");
        }
        self.fi
            .engagements(person.expose_canonical(), page)
            .await
            .into_fetch()
    }
}
