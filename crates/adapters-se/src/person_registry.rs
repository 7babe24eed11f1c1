//! [`SwedishPersonRegistry`]: the `PersonRegistry` port for Sweden, SPAR's person search.

use crate::config::{SeConfigError, SparConfig};
use crate::spar::SparClient;
use async_trait::async_trait;
use domain::companies::profile::{Fetch, RegistryFailure};
use domain::persons::ports::PersonRegistry;
use domain::persons::profile::RegisterPerson;
use domain::subjects::identifier::Identifier;

/// Sweden's population register. Building it reads the organisation certificate, so a
/// missing, unreadable or wrongly locked keystore fails at start-up, naming the setting.
pub struct SwedishPersonRegistry {
    spar: SparClient,
}

impl std::fmt::Debug for SwedishPersonRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SwedishPersonRegistry")
            .finish_non_exhaustive()
    }
}

impl SwedishPersonRegistry {
    pub fn new(config: &SparConfig) -> Result<Self, SeConfigError> {
        Ok(SwedishPersonRegistry {
            spar: SparClient::new(config)?,
        })
    }
}

#[async_trait]
impl PersonRegistry for SwedishPersonRegistry {
    async fn fetch_person(&self, person: &Identifier, end_user: &str) -> Fetch<RegisterPerson> {
        if ![
            crate::identifiers::PERSONNUMMER,
            crate::identifiers::SAMORDNINGSNUMMER,
        ]
        .contains(&person.id_type())
        {
            tracing::warn!("SPAR is asked by personnummer and samordningsnummer only");
            return Fetch {
                calls: Vec::new(),
                outcome: Err(RegistryFailure::NotFound),
            };
        }
        // The canonical form is the 12-digit `IdNummer` SPAR takes.
        self.spar
            .person(person.expose_canonical(), end_user)
            .await
            .into_fetch()
    }
}
