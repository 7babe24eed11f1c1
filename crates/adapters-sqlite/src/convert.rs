//! Conversions between SQLite's values and domain types, and the store's errors. A value that
//! does not convert is a storage fault (`Backend`), never silently dropped. A store that is
//! locked past the wait, or whose file cannot be opened, is `Unavailable`: a retry may
//! succeed.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use domain::access::scope::{Scope, ScopeSet};
use domain::countries::country::{Country, CountrySet};
use domain::error::StoreError;
use std::str::FromStr;

pub(crate) fn backend(e: DieselError) -> StoreError {
    match e {
        DieselError::NotFound => StoreError::NotFound,
        DieselError::DatabaseError(DatabaseErrorKind::Unknown, ref info)
            if busy(info.message()) =>
        {
            StoreError::Unavailable(e.to_string())
        }
        other => StoreError::Backend(other.to_string()),
    }
}

/// SQLite's messages for a lock not had within the busy timeout (`SQLITE_BUSY`,
/// `SQLITE_LOCKED`).
fn busy(message: &str) -> bool {
    message.starts_with("database is locked") || message.starts_with("database table is locked")
}

pub(crate) fn corrupt(what: &str) -> StoreError {
    StoreError::Backend(format!("stored value does not convert: {what}"))
}

pub(crate) fn parse_id<T: FromStr>(s: &str, what: &str) -> Result<T, StoreError> {
    s.parse().map_err(|_| corrupt(what))
}

/// A time as stored: microseconds since the Unix epoch, UTC.
pub(crate) fn micros(t: DateTime<Utc>) -> i64 {
    t.timestamp_micros()
}

pub(crate) fn time(stored: i64) -> Result<DateTime<Utc>, StoreError> {
    DateTime::from_timestamp_micros(stored).ok_or_else(|| corrupt("time"))
}

pub(crate) fn day(d: NaiveDate) -> String {
    d.format("%Y-%m-%d").to_string()
}

pub(crate) fn parse_day(stored: &str) -> Result<NaiveDate, StoreError> {
    NaiveDate::parse_from_str(stored, "%Y-%m-%d").map_err(|_| corrupt("date"))
}

/// A list of names as stored: a JSON array of strings.
pub(crate) fn list<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    serde_json::Value::Array(
        names
            .into_iter()
            .map(|n| serde_json::Value::String(n.to_owned()))
            .collect(),
    )
    .to_string()
}

pub(crate) fn parse_list(stored: &str, what: &str) -> Result<Vec<String>, StoreError> {
    serde_json::from_str(stored).map_err(|_| corrupt(what))
}

pub(crate) fn countries_to_row(set: &CountrySet) -> String {
    list(set.iter().map(|c| c.code()))
}

pub(crate) fn countries_from_row(stored: &str) -> Result<CountrySet, StoreError> {
    parse_list(stored, "countries")?
        .iter()
        .map(|c| Country::from_code(c).ok_or_else(|| corrupt("country")))
        .collect()
}

pub(crate) fn scopes_to_row(set: &ScopeSet) -> String {
    list(set.iter().map(|s| s.as_str()))
}

pub(crate) fn scopes_from_row(stored: &str) -> Result<ScopeSet, StoreError> {
    parse_list(stored, "scopes")?
        .iter()
        .map(|s| Scope::parse(s).ok_or_else(|| corrupt("scope")))
        .collect()
}

/// A failure inside a transaction: the store's own, or diesel's (which also rolls back).
pub(crate) struct TxError(pub StoreError);

impl From<DieselError> for TxError {
    fn from(e: DieselError) -> Self {
        TxError(backend(e))
    }
}

impl From<StoreError> for TxError {
    fn from(e: StoreError) -> Self {
        TxError(e)
    }
}

impl From<TxError> for StoreError {
    fn from(e: TxError) -> Self {
        e.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_not_had_in_time_is_unavailable_anything_else_backend() {
        let locked = DieselError::DatabaseError(
            DatabaseErrorKind::Unknown,
            Box::new("database is locked".to_owned()),
        );
        assert!(matches!(backend(locked), StoreError::Unavailable(_)));
        let fault = DieselError::DatabaseError(
            DatabaseErrorKind::Unknown,
            Box::new("no such table: x".to_owned()),
        );
        assert!(matches!(backend(fault), StoreError::Backend(_)));
        assert_eq!(backend(DieselError::NotFound), StoreError::NotFound);
    }

    #[test]
    fn times_and_days_round_trip_exactly() {
        let t = DateTime::from_timestamp_micros(1_764_000_000_123_456).unwrap();
        assert_eq!(time(micros(t)).unwrap(), t);
        let d = NaiveDate::from_ymd_opt(2026, 2, 28).unwrap();
        assert_eq!(parse_day(&day(d)).unwrap(), d);
        assert!(parse_day("28/02/2026").is_err());
        assert_eq!(
            parse_list(&list(["SE", "LT"]), "x").unwrap(),
            vec!["SE".to_owned(), "LT".to_owned()]
        );
    }
}
