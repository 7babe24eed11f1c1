//! Conversions between rows and domain types. A value that does not convert is a storage
//! fault (`Backend`), never silently dropped.

use diesel::result::Error as DieselError;
use domain::country::{Country, CountrySet};
use domain::ports::StoreError;
use domain::scope::{Scope, ScopeSet};
use std::str::FromStr;

pub(crate) fn backend(e: DieselError) -> StoreError {
    match e {
        DieselError::NotFound => StoreError::NotFound,
        other => StoreError::Backend(other.to_string()),
    }
}

pub(crate) fn corrupt(what: &str) -> StoreError {
    StoreError::Backend(format!("stored value does not convert: {what}"))
}

pub(crate) fn parse_id<T: FromStr>(s: &str, what: &str) -> Result<T, StoreError> {
    s.parse().map_err(|_| corrupt(what))
}

pub(crate) fn countries_from_row(codes: &[String]) -> Result<CountrySet, StoreError> {
    codes
        .iter()
        .map(|c| Country::from_code(c).ok_or_else(|| corrupt("country")))
        .collect()
}

pub(crate) fn countries_to_row(set: &CountrySet) -> Vec<String> {
    set.iter().map(|c| c.code().to_owned()).collect()
}

pub(crate) fn scopes_from_row(names: &[String]) -> Result<ScopeSet, StoreError> {
    names
        .iter()
        .map(|s| Scope::parse(s).ok_or_else(|| corrupt("scope")))
        .collect()
}

pub(crate) fn scopes_to_row(set: &ScopeSet) -> Vec<String> {
    set.iter().map(|s| s.as_str().to_owned()).collect()
}

/// The error type of transactions: diesel needs `From<diesel::result::Error>`, which the
/// domain's `StoreError` cannot implement here.
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
