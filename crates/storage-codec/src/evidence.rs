//! Event data and evidence as the stores keep them in JSON (an event's `data` and `evidence`,
//! a baseline's evidence).

use crate::{corrupt, parse_id};
use chrono::{DateTime, Utc};
use domain::error::StoreError;
use domain::evidence::{Evidence, EvidenceSource};
use domain::monitoring::event::EventData;
use serde_json::{Map, Number, Value};

pub fn data_to_json(d: &EventData) -> Value {
    match d {
        EventData::Null => Value::Null,
        EventData::Bool(b) => Value::Bool(*b),
        EventData::Int(i) => Value::Number((*i).into()),
        EventData::Number(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
        EventData::Text(t) => Value::String(t.clone()),
        EventData::List(l) => Value::Array(l.iter().map(data_to_json).collect()),
        EventData::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), data_to_json(v)))
                .collect::<Map<_, _>>(),
        ),
    }
}

pub fn data_from_json(v: Value) -> EventData {
    match v {
        Value::Null => EventData::Null,
        Value::Bool(b) => EventData::Bool(b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => EventData::Int(i),
            None => EventData::Number(n.as_f64().unwrap_or(0.0)),
        },
        Value::String(s) => EventData::Text(s),
        Value::Array(a) => EventData::List(a.into_iter().map(data_from_json).collect()),
        Value::Object(o) => {
            EventData::Object(o.into_iter().map(|(k, v)| (k, data_from_json(v))).collect())
        }
    }
}

pub fn evidence_to_json(e: &Evidence) -> Value {
    serde_json::json!({
        "source": e.source.as_str(),
        "source_timestamp": e.source_timestamp,
        "call_ref": e.call_ref.to_string(),
        "upstream_ref": e.upstream_ref,
        "digest": e.digest,
        "schema_version": e.schema_version,
        "retrieved_at": e.retrieved_at,
    })
}

pub fn evidence_from_json(v: &Value) -> Result<Evidence, StoreError> {
    let text = |k: &str| v.get(k).and_then(Value::as_str);
    let time = |k: &str| -> Result<DateTime<Utc>, StoreError> {
        text(k)
            .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.with_timezone(&Utc))
            .ok_or_else(|| corrupt("event evidence time"))
    };
    Ok(Evidence {
        source: text("source")
            .and_then(EvidenceSource::parse)
            .ok_or_else(|| corrupt("event evidence source"))?,
        source_timestamp: time("source_timestamp")?,
        call_ref: parse_id(
            text("call_ref").ok_or_else(|| corrupt("event call ref"))?,
            "call ref",
        )?,
        upstream_ref: text("upstream_ref").map(str::to_owned),
        digest: text("digest").map(str::to_owned),
        schema_version: text("schema_version").map(str::to_owned),
        retrieved_at: time("retrieved_at")?,
    })
}
