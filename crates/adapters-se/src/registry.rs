//! [`SwedishCompanyRegistry`]: the `CompanyRegistry` port for Sweden, made of VDM
//! (register data, annual reports), SSBTGU (tax registrations) and SCB (size class).

use crate::config::{SeConfig, SeConfigError};
use crate::scb::ScbClient;
use crate::ssbtgu::SsbtguClient;
use crate::vdm::{valid_document_id, VdmClient};
use async_trait::async_trait;
use connector_kit::Step;
use domain::companies::ports::{CompanyRegistry, DocumentArchive};
use domain::companies::profile::{
    ActivityCode, CompanyRegisterData, DocumentFetch, FetchedDocument, FetchedProfile,
    OptionalGroup, ProfileFetch, RegistryFailure, UpstreamCall, SNI_2007,
};
use domain::subjects::identifier::Identifier;

/// The Swedish company registry (free tiers only: every call costs 0).
///
/// A profile takes `POST /organisationer` first (it decides whether the company exists);
/// when that succeeds, `POST /dokumentlista`, SSBTGU and SCB run concurrently. The register
/// data and the tax registrations are required; the document list and SCB are optional. Calls are
/// listed in that order (plus a refused VDM call before its retry, if a token was
/// refused).
pub struct SwedishCompanyRegistry {
    vdm: VdmClient,
    ssbtgu: SsbtguClient,
    scb: ScbClient,
}

impl std::fmt::Debug for SwedishCompanyRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SwedishCompanyRegistry")
            .finish_non_exhaustive()
    }
}

impl SwedishCompanyRegistry {
    /// Validates the configuration, reads the certificate files and builds the clients.
    /// No network traffic happens until the first fetch.
    pub fn new(config: &SeConfig) -> Result<Self, SeConfigError> {
        config.validate()?;
        Ok(SwedishCompanyRegistry {
            vdm: VdmClient::new(&config.vdm)?,
            ssbtgu: SsbtguClient::new(&config.ssbtgu)?,
            scb: ScbClient::new(&config.scb)?,
        })
    }

    /// Reads time from `clock` when deciding whether the cached gateway token is due for
    /// renewal (the wall clock unless set; tests move a clock of their own).
    pub fn with_clock(mut self, clock: std::sync::Arc<dyn domain::clock::Clock>) -> Self {
        self.vdm.set_clock(clock);
        self
    }
}

/// Appends a step's calls; returns the index of its last call (the one its result rests on).
fn take<T>(
    calls: &mut Vec<UpstreamCall>,
    step: Step<T>,
) -> (Option<usize>, Result<T, RegistryFailure>) {
    calls.extend(step.calls);
    let last = calls.len().checked_sub(1);
    (last, step.result)
}

fn no_call() -> RegistryFailure {
    RegistryFailure::Unavailable("a result without a recorded call".into())
}

#[async_trait]
impl CompanyRegistry for SwedishCompanyRegistry {
    async fn fetch_profile(&self, orgnr: &Identifier) -> ProfileFetch {
        if orgnr.id_type() != crate::identifiers::ORGNR {
            tracing::warn!(
                id_type = %orgnr.id_type(),
                "the Swedish registry takes organisationsnummer only"
            );
            return ProfileFetch {
                calls: Vec::new(),
                outcome: Err(RegistryFailure::NotFound),
            };
        }
        let id = orgnr.expose_canonical();
        let mut calls = Vec::new();

        let (main_call, company) = take(&mut calls, self.vdm.organisationer(id).await);
        let (company, main_call) = match (company, main_call) {
            (Ok(c), Some(i)) => (c, i),
            (Err(f), _) => {
                return ProfileFetch {
                    calls,
                    outcome: Err(f),
                }
            }
            // A result always rests on a recorded call; refuse rather than point nowhere.
            (Ok(_), None) => {
                return ProfileFetch {
                    calls,
                    outcome: Err(no_call()),
                }
            }
        };

        let (docs, tax, scb) = tokio::join!(
            self.vdm.dokumentlista(id),
            self.ssbtgu.tax(id),
            self.scb.employees_band(id),
        );
        let (_, docs) = take(&mut calls, docs);
        let before_tax = calls.len();
        let (tax_call, tax) = take(&mut calls, tax);
        let (_, band) = take(&mut calls, scb);

        let outcome = (|| {
            // The tax registrations are required (the profile's `tax` flags are not
            // nullable); the document list and the size class are optional: a failure there
            // leaves the group empty and names it as unchecked, never as "none".
            let tax = tax?;
            let tax_call = tax_call.filter(|i| *i >= before_tax).ok_or_else(no_call)?;
            let mut unchecked = Vec::new();
            let latest_annual_report = docs.unwrap_or_else(|failure| {
                tracing::warn!(source = "vdm", %failure, "the document list failed; served as unchecked");
                unchecked.push(OptionalGroup::LatestAnnualReport);
                None
            });
            let employees_band = band.unwrap_or_else(|failure| {
                tracing::warn!(source = "scb", %failure, "the size class failed; served as unchecked");
                unchecked.push(OptionalGroup::EmployeesBand);
                None
            });
            Ok(FetchedProfile {
                data: CompanyRegisterData {
                    orgnr: id.to_owned(),
                    name: company.name,
                    legal_form: company.legal_form,
                    status: company.status,
                    registered_at: company.registered_at,
                    address: company.address,
                    activity_codes: company
                        .sni
                        .into_iter()
                        .map(|code| ActivityCode::new(SNI_2007, code))
                        .collect(),
                    employees_band,
                    latest_annual_report,
                },
                tax: Some((tax, tax_call)),
                unchecked,
                main_call,
            })
        })();
        ProfileFetch { calls, outcome }
    }
}

/// Bolagsverket's annual-report archive (VDM's documents).
#[async_trait]
impl DocumentArchive for SwedishCompanyRegistry {
    async fn fetch_document(&self, document_id: &str) -> DocumentFetch {
        if !valid_document_id(document_id) {
            return DocumentFetch {
                calls: Vec::new(),
                outcome: Err(RegistryFailure::NotFound),
            };
        }
        let step = self.vdm.dokument(document_id).await;
        DocumentFetch {
            calls: step.calls,
            outcome: step.result.map(|bytes| FetchedDocument {
                document_id: document_id.to_owned(),
                filename: format!("{document_id}.zip"),
                content_type: "application/zip".to_owned(),
                bytes,
            }),
        }
    }
}
