//! Wire types of the interface's answers and their conversion from domain types, the same on
//! both surfaces (a REST response body, an MCP tool's `content[1]`). The domain knows no JSON;
//! its types are converted here by hand. Each type carries its OpenAPI schema (utoipa, for the
//! REST document) and its JSON Schema (schemars, for the MCP tools' output schemas).

use chrono::{DateTime, SecondsFormat, Utc};
use domain::access::tenant::Tenant;
use domain::companies::paid::{PaidData, ServedPaid};
use domain::evidence::Evidence;
use domain::persons::profile::ServedPerson;
use domain::subjects::subject::{Resolution, SubjectRecord};
use domain::Failure;
use serde::Serialize;
use serde_json::{Map, Value};

pub mod screening;
pub mod usage;
pub mod webhooks;

/// Timestamps on the wire: RFC 3339, UTC, millisecond precision.
pub fn timestamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct EvidenceDto {
    #[schema(schema_with = crate::schema::evidence_source)]
    pub source: &'static str,
    pub source_timestamp: String,
    pub call_ref: String,
    /// Deprecated alias of `call_ref`; removed in v2.
    pub transaction_ref: String,
    /// The upstream's own reference for the call; `null` when it supplied none.
    #[schema(required = true)]
    pub upstream_ref: Option<String>,
    #[schema(required = true)]
    pub digest: Option<String>,
    #[schema(required = true)]
    pub schema_version: Option<String>,
    pub retrieved_at: String,
}

impl From<&Evidence> for EvidenceDto {
    fn from(e: &Evidence) -> Self {
        EvidenceDto {
            source: e.source.as_str(),
            source_timestamp: timestamp(e.source_timestamp),
            call_ref: e.call_ref.to_string(),
            transaction_ref: e.call_ref.to_string(),
            upstream_ref: e.upstream_ref.clone(),
            digest: e.digest.clone(),
            schema_version: e.schema_version.clone(),
            retrieved_at: timestamp(e.retrieved_at),
        }
    }
}

#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ResolveResponse {
    pub subject_id: String,
    pub aliases: Vec<String>,
    pub identifier_ref: String,
}

impl From<&Resolution> for ResolveResponse {
    fn from(r: &Resolution) -> Self {
        ResolveResponse {
            subject_id: r.subject_id.to_string(),
            aliases: r.aliases.iter().map(ToString::to_string).collect(),
            identifier_ref: r.identifier_ref.to_string(),
        }
    }
}

#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct SubjectIdentifierDto {
    pub identifier_ref: String,
    #[serde(rename = "type")]
    #[schema(schema_with = crate::schema::identifier_type)]
    pub id_type: &'static str,
    #[schema(schema_with = crate::schema::country_code)]
    pub country: &'static str,
    pub valid_from: String,
    #[schema(required = true)]
    pub valid_to: Option<String>,
}

#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct CustomerRefDto {
    #[serde(rename = "ref")]
    pub reference: String,
    pub created_at: String,
}

#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct SubjectResponse {
    pub schema_version: &'static str,
    pub tenant_id: String,
    pub subject_id: String,
    #[schema(schema_with = crate::schema::subject_kind)]
    pub kind: &'static str,
    pub created_at: String,
    pub identifiers: Vec<SubjectIdentifierDto>,
    pub refs: Vec<CustomerRefDto>,
    pub aliases: Vec<String>,
    pub evidence: EvidenceDto,
}

impl SubjectResponse {
    pub fn new(tenant: &Tenant, s: &SubjectRecord) -> Self {
        SubjectResponse {
            schema_version: domain::evidence::SCHEMA_VERSION,
            tenant_id: tenant.id.to_string(),
            subject_id: s.subject_id.to_string(),
            kind: s.kind.as_str(),
            created_at: timestamp(s.created_at),
            identifiers: s
                .identifiers
                .iter()
                .map(|i| SubjectIdentifierDto {
                    identifier_ref: i.identifier_ref.to_string(),
                    id_type: i.id_type.as_str(),
                    country: i.country.code(),
                    valid_from: timestamp(i.valid_from),
                    valid_to: i.valid_to.map(timestamp),
                })
                .collect(),
            refs: s
                .refs
                .iter()
                .map(|r| CustomerRefDto {
                    reference: r.value.clone(),
                    created_at: timestamp(r.created_at),
                })
                .collect(),
            aliases: s.aliases.iter().map(ToString::to_string).collect(),
            evidence: EvidenceDto::from(&s.evidence),
        }
    }
}

/// The envelope of every data read.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct Envelope<T> {
    /// True when served from cache past its revalidation window because the upstream was
    /// unavailable (or the daily paid budget was exhausted).
    pub stale: bool,
    pub data: T,
}

/// The answer of a forced refresh: the company profile (never stale) and how many events
/// the refresh logged (under an active subscription; 0 without one).
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct RefreshDto {
    /// Always false: a refresh is never answered from the cache.
    pub stale: bool,
    pub data: CompanyProfileDto,
    /// The change events and the `refresh.completed` event this refresh logged.
    pub events_emitted: u32,
}

#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct AddressDto {
    #[schema(required = true)]
    pub street: Option<String>,
    #[schema(required = true)]
    pub postal_code: Option<String>,
    #[schema(required = true)]
    pub city: Option<String>,
    pub country: String,
}

#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct TaxDto {
    pub f_skatt: bool,
    pub vat: bool,
    pub employer: bool,
    pub evidence: EvidenceDto,
}

/// An activity (industry) code with its classification. Additive (1.9.0).
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ActivityCodeDto {
    /// The classification: `SNI2007` (Sweden's SNI 2007, five digits, the codes `sni`
    /// lists), `SN` (Norway's standard industrial classification, NACE-based, written
    /// `62.010`, in the version the register uses).
    pub scheme: String,
    /// The code as the register writes it.
    pub code: String,
}

/// One tax registration a source reported, with its evidence. Additive (1.9.0).
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct TaxRegistrationDto {
    /// `business_tax` (Sweden's F-skatt), `vat` or `employer`.
    #[schema(schema_with = crate::schema::tax_kind)]
    pub kind: &'static str,
    pub registered: bool,
    pub evidence: EvidenceDto,
}

#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct AnnualReportDto {
    pub year: i32,
    /// The document id for `GET /v1/documents/{id}`.
    #[serde(rename = "ref")]
    pub reference: String,
}

#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct CompanyProfileDto {
    pub orgnr: String,
    pub name: String,
    pub legal_form: String,
    pub status: &'static str,
    #[schema(required = true)]
    pub registered_at: Option<String>,
    pub address: AddressDto,
    /// The SNI 2007 codes among `activity_codes` (Sweden's); `[]` for a country whose
    /// register uses another classification.
    pub sni: Vec<String>,
    /// Every activity code the register gives, with its classification, in the register's
    /// order; `[]` when `unchecked` names `sni` or the register gives none. Additive (1.9.0).
    pub activity_codes: Vec<ActivityCodeDto>,
    #[schema(required = true)]
    pub employees_band: Option<String>,
    /// Sweden's three registrations (F-skatt, VAT, employer) from the tax authority: `null`
    /// when `unchecked` names `tax`, and for a country whose sources do not report all three
    /// (its registrations are in `tax_registrations`).
    #[schema(required = true)]
    pub tax: Option<TaxDto>,
    /// Each tax registration a source reported, with its evidence; `[]` when `unchecked`
    /// names `tax`. A kind the country's sources do not report is absent, never `false`.
    /// Additive (1.9.0).
    pub tax_registrations: Vec<TaxRegistrationDto>,
    #[schema(required = true)]
    pub latest_annual_report: Option<AnnualReportDto>,
    /// The field groups (`employees_band`, `latest_annual_report`, `sni`, `tax`) nothing
    /// checked when the profile was fetched, because their source could not be reached or the
    /// country's registers have none: their values are empty (`null`, `[]` for `sni`) because
    /// nothing checked them, never because a source said so. An empty group not listed here was
    /// checked and is empty. `[]` when every group was checked.
    #[schema(schema_with = crate::schema::unchecked_groups)]
    pub unchecked: Vec<&'static str>,
    pub evidence: EvidenceDto,
    #[schema(schema_with = crate::schema::country_code)]
    pub country: &'static str,
    pub schema_version: &'static str,
    pub tenant_id: String,
    pub subject_id: String,
    /// Older subject ids merged into `subject_id`; each stays a valid alias.
    pub aliases: Vec<String>,
}

impl CompanyProfileDto {
    pub fn new(tenant: &Tenant, served: &domain::companies::profile::ServedProfile) -> Self {
        let p = &served.profile;
        let d = &p.data;
        CompanyProfileDto {
            orgnr: d.orgnr.clone(),
            name: d.name.clone(),
            legal_form: d.legal_form.clone(),
            status: d.status.as_str(),
            registered_at: d.registered_at.map(|t| t.to_string()),
            address: AddressDto {
                street: d.address.street.clone(),
                postal_code: d.address.postal_code.clone(),
                city: d.address.city.clone(),
                country: d.address.country.clone(),
            },
            sni: d.sni(),
            activity_codes: d
                .activity_codes
                .iter()
                .map(|c| ActivityCodeDto {
                    scheme: c.scheme.clone(),
                    code: c.code.clone(),
                })
                .collect(),
            employees_band: d.employees_band.clone(),
            tax: p.tax.as_ref().and_then(|t| {
                let (f_skatt, vat, employer) = t.registrations.swedish_triple()?;
                Some(TaxDto {
                    f_skatt,
                    vat,
                    employer,
                    evidence: EvidenceDto::from(&t.evidence),
                })
            }),
            tax_registrations: p
                .tax
                .iter()
                .flat_map(|t| {
                    t.registrations.iter().map(|r| TaxRegistrationDto {
                        kind: r.kind.as_str(),
                        registered: r.registered,
                        evidence: EvidenceDto::from(&t.evidence),
                    })
                })
                .collect(),
            latest_annual_report: d.latest_annual_report.as_ref().map(|r| AnnualReportDto {
                year: r.year,
                reference: r.document_id.clone(),
            }),
            unchecked: p.unchecked.iter().map(|g| g.as_str()).collect(),
            evidence: EvidenceDto::from(&p.evidence),
            country: p.country.code(),
            schema_version: domain::evidence::SCHEMA_VERSION,
            tenant_id: tenant.id.to_string(),
            subject_id: served.subject.subject_id.to_string(),
            aliases: aliases(&served.subject),
        }
    }
}

/// The common tail of every paid-tier `data` object: evidence, country, versions, ids.
fn paid_meta(tenant: &Tenant, served: &ServedPaid) -> PaidMeta {
    PaidMeta {
        evidence: EvidenceDto::from(&served.object.evidence),
        country: served.object.country.code(),
        schema_version: domain::evidence::SCHEMA_VERSION,
        tenant_id: tenant.id.to_string(),
        subject_id: served.subject.subject_id.to_string(),
        aliases: aliases(&served.subject),
    }
}

/// Evidence and identity of a paid-tier object (flattened into it).
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct PaidMeta {
    /// Evidence of the one paid call the object rests on (source
    /// `companyreg.foretagsinformation`).
    pub evidence: EvidenceDto,
    #[schema(schema_with = crate::schema::country_code)]
    pub country: &'static str,
    pub schema_version: &'static str,
    pub tenant_id: String,
    /// The subject the object describes (the company, or the person of engagements).
    pub subject_id: String,
    /// Older subject ids merged into `subject_id`; each stays a valid alias.
    pub aliases: Vec<String>,
}

#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct OfficerDto {
    /// The role as the register writes it (`Styrelseledamot`).
    pub role: String,
    /// The register's role code (`LE`, `OF`, `SU`, `VD`, ...), when it gives one. Additive,
    /// provisional.
    #[schema(required = true)]
    pub role_code: Option<String>,
    pub name: String,
    /// The tenant's `identifier_ref` of the person (never the personal number); `null` for
    /// an organisation or a person the register names without a Swedish number.
    #[schema(required = true)]
    pub personal_number_ref: Option<String>,
    /// When the role was registered, if the register says.
    #[schema(required = true)]
    pub appointed_at: Option<String>,
}

/// Officers and the signatory rule (provisional: the paid tier's shapes may change
/// additively).
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct OfficersDto {
    pub orgnr: String,
    /// One entry per role held (a person with two roles appears twice).
    pub officers: Vec<OfficerDto>,
    /// The signatory rule as the register writes it (text passthrough).
    #[schema(required = true)]
    pub signatory_rule_text: Option<String>,
    #[serde(flatten)]
    pub meta: PaidMeta,
}

#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct OwnerDto {
    pub name: String,
    /// The tenant's `identifier_ref` of the owner (never the personal number); `null` for an
    /// owner without a Swedish number.
    #[schema(required = true)]
    pub personal_number_ref: Option<String>,
    /// How control is held, as the register writes it.
    pub nature_of_control: String,
    #[schema(schema_with = crate::schema::share_band)]
    pub share_band: &'static str,
}

/// Beneficial owners (provisional).
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct BeneficialOwnersDto {
    pub orgnr: String,
    pub owners: Vec<OwnerDto>,
    /// The company has reported no beneficial owner.
    pub no_ubo_reported: bool,
    #[serde(flatten)]
    pub meta: PaidMeta,
}

#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct EngagementDto {
    pub orgnr: String,
    pub role: String,
    /// The register's role code, when it gives one. Additive, provisional.
    #[schema(required = true)]
    pub role_code: Option<String>,
    #[schema(required = true)]
    pub since: Option<String>,
}

/// A person's engagements (provisional).
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct EngagementsDto {
    /// The `identifier_ref` the engagements were asked for.
    #[schema(required = true)]
    pub person_ref: Option<String>,
    pub engagements: Vec<EngagementDto>,
    #[serde(flatten)]
    pub meta: PaidMeta,
}

fn opt_ref(r: Option<&domain::ids::IdentifierRef>) -> Option<String> {
    r.map(ToString::to_string)
}

impl OfficersDto {
    pub fn new(tenant: &Tenant, served: &ServedPaid) -> Result<Self, Failure> {
        let PaidData::Officers(o) = &served.object.data else {
            return Err(Failure::internal("a paid object of another kind"));
        };
        Ok(OfficersDto {
            orgnr: o.orgnr.clone(),
            officers: o
                .officers
                .iter()
                .map(|x| OfficerDto {
                    role: x.role.clone(),
                    role_code: x.role_code.clone(),
                    name: x.name.clone(),
                    personal_number_ref: opt_ref(x.personal_number_ref.as_ref()),
                    appointed_at: x.appointed_at.map(|d| d.to_string()),
                })
                .collect(),
            signatory_rule_text: o.signatory_rule_text.clone(),
            meta: paid_meta(tenant, served),
        })
    }
}

impl BeneficialOwnersDto {
    pub fn new(tenant: &Tenant, served: &ServedPaid) -> Result<Self, Failure> {
        let PaidData::BeneficialOwners(o) = &served.object.data else {
            return Err(Failure::internal("a paid object of another kind"));
        };
        Ok(BeneficialOwnersDto {
            orgnr: o.orgnr.clone(),
            owners: o
                .owners
                .iter()
                .map(|x| OwnerDto {
                    name: x.name.clone(),
                    personal_number_ref: opt_ref(x.personal_number_ref.as_ref()),
                    nature_of_control: x.nature_of_control.clone(),
                    share_band: x.share_band.as_str(),
                })
                .collect(),
            no_ubo_reported: o.no_ubo_reported,
            meta: paid_meta(tenant, served),
        })
    }
}

impl EngagementsDto {
    pub fn new(tenant: &Tenant, served: &ServedPaid) -> Result<Self, Failure> {
        let PaidData::Engagements(e) = &served.object.data else {
            return Err(Failure::internal("a paid object of another kind"));
        };
        Ok(EngagementsDto {
            person_ref: opt_ref(e.person_ref.as_ref()),
            engagements: e
                .engagements
                .iter()
                .map(|x| EngagementDto {
                    orgnr: x.orgnr.clone(),
                    role: x.role.clone(),
                    role_code: x.role_code.clone(),
                    since: x.since.map(|d| d.to_string()),
                })
                .collect(),
            meta: paid_meta(tenant, served),
        })
    }
}

/// A person's names as the population register holds them.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct PersonNamesDto {
    /// Every given name, as registered.
    #[schema(required = true)]
    pub given_name: Option<String>,
    #[schema(required = true)]
    pub middle_name: Option<String>,
    #[schema(required = true)]
    pub surname: Option<String>,
    /// The register's own short form of the name for post (SPAR's `Aviseringsnamn`), as
    /// the register gives it; `null` when it gives none. Never composed by the service.
    #[schema(required = true)]
    pub notification_name: Option<String>,
    /// Additive: the given name(s) the register marks as the calling name (SPAR's
    /// `Tilltalsnamn` index applied to `given_name`); `null` when none is marked.
    #[schema(required = true)]
    pub calling_name: Option<String>,
}

/// Where the person is registered (folkbokförd). Under a protection marker only
/// `registered_at` is given.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct FolkbokforingDto {
    #[schema(required = true)]
    pub registered_at: Option<String>,
    /// `Hemvist` as the register words it (e.g. "Skriven på adressen").
    #[schema(required = true)]
    pub residence: Option<String>,
    /// Two-digit county (län) code.
    #[schema(required = true)]
    pub county_code: Option<String>,
    /// Four-digit municipality (kommun) code, county digits first.
    #[schema(required = true)]
    pub municipality_code: Option<String>,
}

/// The registered address in Sweden (folkbokföringsadress).
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct PersonAddressDto {
    /// The street line (SPAR's `Utdelningsadress2`).
    #[schema(required = true)]
    pub street: Option<String>,
    #[schema(required = true)]
    pub postal_code: Option<String>,
    #[schema(required = true)]
    pub city: Option<String>,
    /// ISO 3166-1 alpha-2: `SE`.
    pub country: &'static str,
    /// Additive: the c/o line.
    #[schema(required = true)]
    pub care_of: Option<String>,
    /// Additive: the line above the street (SPAR's `Utdelningsadress1`, e.g. a flat number).
    #[schema(required = true)]
    pub extra_line: Option<String>,
}

/// The address abroad of a person deregistered as emigrated.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ForeignAddressDto {
    #[schema(required = true)]
    pub line_1: Option<String>,
    #[schema(required = true)]
    pub line_2: Option<String>,
    #[schema(required = true)]
    pub line_3: Option<String>,
    /// The country as the register names it (e.g. `DANMARK`).
    #[schema(required = true)]
    pub country_name: Option<String>,
    /// Additive: the c/o line.
    #[schema(required = true)]
    pub care_of: Option<String>,
}

/// Additive: a special postal address (SPAR's `SarskildPostadress`), in Sweden or abroad.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct SpecialPostalAddressDto {
    #[schema(required = true)]
    pub care_of: Option<String>,
    #[schema(required = true)]
    pub line_1: Option<String>,
    #[schema(required = true)]
    pub line_2: Option<String>,
    #[schema(required = true)]
    pub line_3: Option<String>,
    /// Set for an address in Sweden.
    #[schema(required = true)]
    pub postal_code: Option<String>,
    /// Set for an address in Sweden.
    #[schema(required = true)]
    pub city: Option<String>,
    /// Set for an address abroad, as the register names the country.
    #[schema(required = true)]
    pub country_name: Option<String>,
}

/// Protection, death and emigration.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct PersonMarkersDto {
    /// `none`, `sekretess` (sekretessmarkering) or `skyddad` (skyddad folkbokföring). Under
    /// a marker no address of any kind is given: the marker is the data.
    #[schema(schema_with = crate::schema::protection)]
    pub protected: &'static str,
    #[schema(required = true)]
    pub protected_since: Option<String>,
    /// `YYYY-MM-DD`, or `YYYY-MM` / `YYYY` when the register knows only that much.
    #[schema(required = true)]
    pub deceased_date: Option<String>,
    /// `YYYY-MM-DD`, or `YYYY-MM` / `YYYY` when the register knows only that much.
    #[schema(required = true)]
    pub emigrated_date: Option<String>,
}

/// A person's profile from the population register. Never served stale.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct PersonProfileDto {
    /// The `identifier_ref` the profile was read by (never the personal number).
    #[schema(required = true)]
    pub person_ref: Option<String>,
    pub names: PersonNamesDto,
    #[schema(required = true)]
    pub birth_date: Option<String>,
    pub folkbokforing: FolkbokforingDto,
    /// `null` when the register gives none, and always under a protection marker.
    #[schema(required = true)]
    pub address: Option<PersonAddressDto>,
    /// Only for a person deregistered as emigrated without a protection marker; else `null`.
    #[schema(required = true)]
    pub foreign_address: Option<ForeignAddressDto>,
    /// Additive; `null` when there is none, and always under a protection marker.
    #[schema(required = true)]
    pub special_postal_address: Option<SpecialPostalAddressDto>,
    pub markers: PersonMarkersDto,
    #[schema(required = true)]
    pub latest_change_at: Option<String>,
    /// Evidence of the register call (source `personreg.personsokning`).
    pub evidence: EvidenceDto,
    #[schema(schema_with = crate::schema::country_code)]
    pub country: &'static str,
    pub schema_version: &'static str,
    pub tenant_id: String,
    pub subject_id: String,
    /// Older subject ids merged into `subject_id`; each stays a valid alias.
    pub aliases: Vec<String>,
}

impl PersonProfileDto {
    pub fn new(tenant: &Tenant, served: &ServedPerson) -> Self {
        use domain::persons::profile::PostalAddress;
        let p = &served.profile;
        let n = p.names();
        let date = |d: Option<chrono::NaiveDate>| d.map(|d| d.to_string());
        let partial =
            |d: Option<&domain::persons::profile::PartialDate>| d.map(|d| d.as_str().to_owned());
        let f = p.registration();
        let m = p.markers();
        PersonProfileDto {
            person_ref: Some(served.person_ref.to_string()),
            names: PersonNamesDto {
                given_name: n.given_name.clone(),
                middle_name: n.middle_name.clone(),
                surname: n.surname.clone(),
                notification_name: n.notification_name.clone(),
                calling_name: n.calling_name.clone(),
            },
            birth_date: date(p.birth_date()),
            folkbokforing: FolkbokforingDto {
                registered_at: date(f.and_then(|f| f.registered_at)),
                residence: f.and_then(|f| f.residence.clone()),
                county_code: f.and_then(|f| f.county_code.clone()),
                municipality_code: f.and_then(|f| f.municipality_code.clone()),
            },
            address: p.address().map(|a| PersonAddressDto {
                street: a.line_2.clone(),
                postal_code: a.postal_code.clone(),
                city: a.city.clone(),
                country: "SE",
                care_of: a.care_of.clone(),
                extra_line: a.line_1.clone(),
            }),
            foreign_address: p.foreign_address().map(|a| ForeignAddressDto {
                line_1: a.line_1.clone(),
                line_2: a.line_2.clone(),
                line_3: a.line_3.clone(),
                country_name: a.country_name.clone(),
                care_of: a.care_of.clone(),
            }),
            special_postal_address: p.special_postal_address().map(|a| match a {
                PostalAddress::Domestic(a) => SpecialPostalAddressDto {
                    care_of: a.care_of.clone(),
                    line_1: a.line_1.clone(),
                    line_2: a.line_2.clone(),
                    line_3: None,
                    postal_code: a.postal_code.clone(),
                    city: a.city.clone(),
                    country_name: None,
                },
                PostalAddress::Foreign(a) => SpecialPostalAddressDto {
                    care_of: a.care_of.clone(),
                    line_1: a.line_1.clone(),
                    line_2: a.line_2.clone(),
                    line_3: a.line_3.clone(),
                    postal_code: None,
                    city: None,
                    country_name: a.country_name.clone(),
                },
            }),
            markers: PersonMarkersDto {
                protected: m.protected.as_str(),
                protected_since: date(m.protected_since),
                deceased_date: partial(m.deceased_date.as_ref()),
                emigrated_date: partial(m.emigrated_date.as_ref()),
            },
            latest_change_at: date(p.latest_change_at()),
            evidence: EvidenceDto::from(&served.evidence),
            country: served.country.code(),
            schema_version: domain::persons::profile::PersonProfile::SCHEMA_VERSION,
            tenant_id: tenant.id.to_string(),
            subject_id: served.subject.subject_id.to_string(),
            aliases: aliases(&served.subject),
        }
    }
}

/// One event of the tenant's log.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct EventDto {
    /// Consumers dedupe on this.
    pub id: String,
    /// The event's place in the tenant's log: gap-free, strictly increasing.
    pub seq: i64,
    pub schema_version: &'static str,
    pub tenant_id: String,
    #[serde(rename = "type")]
    pub type_name: String,
    /// The country of the source that produced the event.
    #[schema(schema_with = crate::schema::country_code)]
    pub country: &'static str,
    /// The subject's canonical id (after merges); `null` for an event about no subject.
    #[schema(required = true)]
    pub subject_id: Option<String>,
    /// Additive: older subject ids merged into `subject_id`.
    pub aliases: Vec<String>,
    /// The consumer's reference of the subject, when it has one.
    #[serde(rename = "ref")]
    #[schema(required = true)]
    pub subject_ref: Option<String>,
    /// Additive: the producer's key for this event; the same key is never logged twice.
    pub idempotency_key: String,
    pub occurred_at: String,
    pub recorded_at: String,
    /// The event's data (per type); `{"purged": true}` after its retention ended.
    #[schema(value_type = Object)]
    #[schemars(with = "serde_json::Map<String, serde_json::Value>")]
    pub data: Value,
    pub evidence: EvidenceDto,
}

/// A page of the event log.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct EventPageDto {
    pub events: Vec<EventDto>,
    /// The cursor to ask with next (the same cursor when nothing lies beyond it).
    pub next_cursor: i64,
}

fn event_data(d: &domain::monitoring::event::EventData) -> Value {
    use domain::monitoring::event::EventData;
    match d {
        EventData::Null => Value::Null,
        EventData::Bool(b) => Value::Bool(*b),
        EventData::Int(i) => Value::Number((*i).into()),
        EventData::Number(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
        EventData::Text(t) => Value::String(t.clone()),
        EventData::List(l) => Value::Array(l.iter().map(event_data).collect()),
        EventData::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), event_data(v)))
                .collect::<Map<_, _>>(),
        ),
    }
}

impl EventDto {
    /// An event as the log shows it: a page of `GET /v1/events` holds these, and a webhook
    /// delivery's body is one.
    pub fn of(
        tenant_id: &domain::ids::TenantId,
        e: &domain::monitoring::event::LoggedEvent,
    ) -> Self {
        EventDto {
            id: e.event.id.to_string(),
            seq: e.seq,
            schema_version: domain::evidence::SCHEMA_VERSION,
            tenant_id: tenant_id.to_string(),
            type_name: e.event.type_name.clone(),
            country: e.event.country.code(),
            subject_id: e.subject.as_ref().map(|s| s.subject_id.to_string()),
            aliases: e.subject.as_ref().map(aliases).unwrap_or_default(),
            subject_ref: e.event.subject_ref.clone(),
            idempotency_key: e.event.idempotency_key.clone(),
            occurred_at: timestamp(e.event.occurred_at),
            recorded_at: timestamp(e.recorded_at),
            data: event_data(&e.event.data),
            evidence: EvidenceDto::from(&e.event.evidence),
        }
    }
}

impl EventPageDto {
    pub fn new(tenant: &Tenant, page: &domain::monitoring::event::EventPage) -> Self {
        EventPageDto {
            events: page
                .events
                .iter()
                .map(|e| EventDto::of(&tenant.id, e))
                .collect(),
            next_cursor: page.next_cursor,
        }
    }
}

#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct DocumentDto {
    pub document_id: String,
    pub filename: String,
    pub content_type: String,
    /// The archive (a zip of the annual-report filing), base64.
    pub content_base64: String,
    pub evidence: EvidenceDto,
    #[schema(schema_with = crate::schema::country_code)]
    pub country: &'static str,
    pub schema_version: &'static str,
    pub tenant_id: String,
    pub subject_id: String,
    /// Older subject ids merged into `subject_id`; each stays a valid alias.
    pub aliases: Vec<String>,
}

impl DocumentDto {
    pub fn new(tenant: &Tenant, d: &domain::companies::profile::ServedDocument) -> Self {
        use base64::Engine;
        DocumentDto {
            document_id: d.document_id.clone(),
            filename: d.filename.clone(),
            content_type: d.content_type.clone(),
            content_base64: base64::engine::general_purpose::STANDARD.encode(&d.bytes),
            evidence: EvidenceDto::from(&d.evidence),
            country: d.country.code(),
            schema_version: domain::evidence::SCHEMA_VERSION,
            tenant_id: tenant.id.to_string(),
            subject_id: d.subject.subject_id.to_string(),
            aliases: aliases(&d.subject),
        }
    }
}

fn aliases(subject: &domain::subjects::subject::SubjectHandle) -> Vec<String> {
    subject.aliases.iter().map(ToString::to_string).collect()
}

/// A subscription.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct SubscriptionDto {
    pub subscription_id: String,
    /// The subject's canonical id: a merge moves the subscription to the merged subject.
    pub subject_id: String,
    /// `person` or `company`.
    pub kind: &'static str,
    /// `aml_cdd`, `contract`, `legal_obligation`, `consent` or `legitimate_interest`.
    pub legal_basis: &'static str,
    /// Free text, never parsed.
    #[schema(required = true)]
    pub legal_basis_ref: Option<String>,
    /// `active`, `suspended` or `ended`.
    pub status: &'static str,
    /// Light checks (free tier) every this many days.
    pub check_days: u32,
    /// Paid full refreshes every this many days.
    pub full_refresh_days: u32,
    pub created_at: String,
    #[schema(required = true)]
    pub suspended_at: Option<String>,
    #[schema(required = true)]
    pub ended_at: Option<String>,
    /// When an ended subscription's events lose their data (`{purged: true}`).
    #[schema(required = true)]
    pub purge_after: Option<String>,
    /// When the scheduler next looks at it; `null` once ended.
    #[schema(required = true)]
    pub next_run_at: Option<String>,
    /// Additive: the country of the identifier it watches.
    #[schema(schema_with = crate::schema::country_code)]
    pub country: &'static str,
    /// Additive: why it is suspended (`country_deprovisioned`, `permit_lapsed`); `null` when not.
    #[schema(required = true)]
    pub suspension_reason: Option<&'static str>,
    /// Additive: older subject ids merged into `subject_id`; each stays a valid alias.
    pub aliases: Vec<String>,
    /// Additive.
    pub tenant_id: String,
    /// Additive: the version of this body's shape.
    pub schema_version: &'static str,
}

impl SubscriptionDto {
    pub fn new(
        tenant: &domain::ids::TenantId,
        s: &domain::monitoring::subscription::Subscription,
    ) -> Self {
        SubscriptionDto {
            subscription_id: s.id.to_string(),
            subject_id: s.subject_id.to_string(),
            kind: s.kind.as_str(),
            legal_basis: s.legal_basis.as_str(),
            legal_basis_ref: s.legal_basis_ref.clone(),
            status: s.status.as_str(),
            check_days: s.check_days,
            full_refresh_days: s.full_refresh_days,
            created_at: timestamp(s.created_at),
            suspended_at: s.suspended_at.map(timestamp),
            ended_at: s.ended_at.map(timestamp),
            purge_after: s.purge_after.map(timestamp),
            next_run_at: s.next_run_at.map(timestamp),
            country: s.country.code(),
            suspension_reason: s.suspension_reason.map(|r| r.as_str()),
            aliases: s.aliases.iter().map(ToString::to_string).collect(),
            tenant_id: tenant.to_string(),
            schema_version: domain::evidence::SCHEMA_VERSION,
        }
    }
}

/// A list of subscriptions, newest first.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct SubscriptionListDto {
    pub subscriptions: Vec<SubscriptionDto>,
}
