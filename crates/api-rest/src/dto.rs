//! Wire types of the REST surface and their conversion from domain types. Only this crate
//! (and api-mcp) knows JSON; the domain's types are converted here by hand.

use chrono::{DateTime, SecondsFormat, Utc};
use domain::evidence::Evidence;
use domain::subject::{Resolution, SubjectRecord};
use domain::tenant::Tenant;
use domain::{ErrorCode, Failure};
use serde::Serialize;
use serde_json::{Map, Value};

/// Timestamps on the wire: RFC 3339, UTC, millisecond precision.
pub fn timestamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct TokenResponse {
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: &'static str,
    pub expires_in: i64,
    /// The token's scopes, space-separated.
    pub scope: String,
    /// Country codes the token carries.
    pub countries: Vec<&'static str>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct EvidenceDto {
    pub source: &'static str,
    pub source_timestamp: String,
    pub call_ref: String,
    /// Deprecated alias of `call_ref`; removed in v2.
    pub transaction_ref: String,
    /// Present only when the upstream supplied one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstream_ref: Option<String>,
    pub digest: Option<String>,
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

#[derive(Serialize, utoipa::ToSchema)]
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

#[derive(Serialize, utoipa::ToSchema)]
pub struct SubjectIdentifierDto {
    pub identifier_ref: String,
    #[serde(rename = "type")]
    pub id_type: &'static str,
    pub country: &'static str,
    pub valid_from: String,
    pub valid_to: Option<String>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct CustomerRefDto {
    #[serde(rename = "ref")]
    pub reference: String,
    pub created_at: String,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct SubjectResponse {
    pub schema_version: &'static str,
    pub tenant_id: String,
    pub subject_id: String,
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

/// A JSON request body read field by field, so that every complaint names the field and
/// none repeats a value (serde's own messages quote the offending value).
pub struct JsonBody(Map<String, Value>);

impl JsonBody {
    pub fn parse(bytes: &[u8]) -> Result<JsonBody, Failure> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(Failure::bad_request("body", "a JSON object is required"));
        }
        match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Object(map)) => Ok(JsonBody(map)),
            Ok(_) => Err(Failure::bad_request("body", "must be a JSON object")),
            Err(e) => Err(Failure::new(
                ErrorCode::BadRequest,
                format!(
                    "`body`: not valid JSON (line {}, column {})",
                    e.line(),
                    e.column()
                ),
            )),
        }
    }

    pub fn from_map(map: Map<String, Value>) -> JsonBody {
        JsonBody(map)
    }

    /// A required string field.
    pub fn required_str(&self, field: &str) -> Result<String, Failure> {
        match self.0.get(field) {
            None | Some(Value::Null) => Err(Failure::bad_request(field, "is required")),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(Failure::bad_request(field, "must be a string")),
        }
    }

    /// An optional string field (absent or null gives `None`).
    pub fn optional_str(&self, field: &str) -> Result<Option<String>, Failure> {
        match self.0.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(Failure::bad_request(field, "must be a string")),
        }
    }
}
