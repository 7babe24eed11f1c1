//! Conversions between rows and domain types. A value that does not convert is a storage
//! fault (`Backend`), never silently dropped. An error that says the server could not be
//! reached is `Unavailable`, so the consumer is told to retry rather than shown a fault.

use diesel::result::{ConnectionError, DatabaseErrorKind, Error as DieselError};
use domain::access::scope::{Scope, ScopeSet};
use domain::countries::country::{Country, CountrySet};
use domain::error::StoreError;
use std::str::FromStr;

pub(crate) fn backend(e: DieselError) -> StoreError {
    match e {
        DieselError::NotFound => StoreError::NotFound,
        other if unreachable(&other) => StoreError::Unavailable(other.to_string()),
        other => StoreError::Backend(other.to_string()),
    }
}

/// Whether a query failed because the server could not be reached or went away, rather than
/// because of the query: the connection closed or broke (diesel-async reports every client
/// error without a SQLSTATE as `UnableToSendCommand`, with tokio-postgres's message), or the
/// server ended the session (SQLSTATE class 57P: `admin_shutdown`, `crash_shutdown`,
/// `cannot_connect_now`, ...). diesel does not expose the SQLSTATE, so the server's messages
/// for that class are recognised by their wording.
fn unreachable(e: &DieselError) -> bool {
    match e {
        DieselError::DatabaseError(DatabaseErrorKind::ClosedConnection, _) => true,
        DieselError::DatabaseError(DatabaseErrorKind::UnableToSendCommand, info) => {
            connection_lost(info.message())
        }
        DieselError::DatabaseError(DatabaseErrorKind::Unknown, info) => {
            server_unavailable(info.message())
        }
        DieselError::RollbackErrorOnCommit { commit_error, .. } => unreachable(commit_error),
        _ => false,
    }
}

/// tokio-postgres's messages (always English, from the client) for a connection that closed,
/// failed or timed out; its other client errors (a protocol mismatch, a bad parameter count)
/// are faults of the query and stay `Backend`.
fn connection_lost(message: &str) -> bool {
    [
        "connection closed",
        "error communicating with the server",
        "error connecting to server",
        "timeout waiting for server",
    ]
    .iter()
    .any(|prefix| message.starts_with(prefix))
}

/// PostgreSQL's messages for SQLSTATE class 57P: "terminating connection due to
/// administrator command" (57P01), "terminating connection because of crash of another server
/// process" (57P02), "the database system is starting up / shutting down / in recovery mode /
/// not yet accepting connections" (57P03). (Class 08 never reaches a query as a server
/// message: a broken connection is a client error, see [`connection_lost`].) A server whose
/// `lc_messages` is not English answers these as `Backend`: a 500 instead of a 503, for the
/// requests in flight at the moment of a shutdown only; the checkouts after it fail to
/// connect, which is recognised whatever the language.
fn server_unavailable(message: &str) -> bool {
    message.starts_with("terminating connection") || message.starts_with("the database system is")
}

/// A connection could not be established: every cause but a malformed URL means the server
/// could not be reached (refused, unknown host, shutting down, too many clients).
pub(crate) fn connection_failed(e: ConnectionError) -> StoreError {
    match e {
        ConnectionError::InvalidConnectionUrl(_) | ConnectionError::InvalidCString(_) => {
            StoreError::Backend(format!("connecting: {e}"))
        }
        other => StoreError::Unavailable(format!("connecting: {other}")),
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

/// A write that would give a subject a second unended subscription of a kind (the partial
/// unique index refuses it) is `SubscriptionExists`; other failures are what they are.
pub(crate) fn one_unended_per_subject(written: diesel::QueryResult<usize>) -> Result<(), TxError> {
    match written {
        Ok(_) => Ok(()),
        Err(DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => {
            Err(TxError(StoreError::SubscriptionExists))
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db_error(kind: DatabaseErrorKind, message: &str) -> DieselError {
        DieselError::DatabaseError(kind, Box::new(message.to_owned()))
    }

    #[test]
    fn a_server_that_went_away_is_unavailable() {
        for e in [
            db_error(DatabaseErrorKind::ClosedConnection, "server closed"),
            db_error(DatabaseErrorKind::UnableToSendCommand, "connection closed"),
            db_error(
                DatabaseErrorKind::UnableToSendCommand,
                "error communicating with the server: Broken pipe (os error 32)",
            ),
            db_error(
                DatabaseErrorKind::Unknown,
                "terminating connection due to administrator command",
            ),
            db_error(
                DatabaseErrorKind::Unknown,
                "terminating connection because of crash of another server process",
            ),
            db_error(
                DatabaseErrorKind::Unknown,
                "the database system is shutting down",
            ),
            DieselError::RollbackErrorOnCommit {
                rollback_error: Box::new(db_error(
                    DatabaseErrorKind::UnableToSendCommand,
                    "connection closed",
                )),
                commit_error: Box::new(db_error(
                    DatabaseErrorKind::UnableToSendCommand,
                    "connection closed",
                )),
            },
        ] {
            let text = e.to_string();
            assert!(matches!(backend(e), StoreError::Unavailable(_)), "{text}");
        }
    }

    #[test]
    fn faults_of_the_query_stay_backend_errors() {
        for e in [
            db_error(DatabaseErrorKind::UniqueViolation, "duplicate key value"),
            db_error(
                DatabaseErrorKind::Unknown,
                "syntax error at or near \"FROM\"",
            ),
            db_error(
                DatabaseErrorKind::UnableToSendCommand,
                "unexpected message from server",
            ),
            DieselError::RollbackTransaction,
        ] {
            let text = e.to_string();
            assert!(matches!(backend(e), StoreError::Backend(_)), "{text}");
        }
        assert_eq!(backend(DieselError::NotFound), StoreError::NotFound);
    }

    #[test]
    fn a_connection_that_cannot_be_made_is_unavailable_unless_the_url_is_malformed() {
        assert!(matches!(
            connection_failed(ConnectionError::BadConnection("refused".into())),
            StoreError::Unavailable(_)
        ));
        assert!(matches!(
            connection_failed(ConnectionError::CouldntSetupConfiguration(db_error(
                DatabaseErrorKind::Unknown,
                "the database system is starting up",
            ))),
            StoreError::Unavailable(_)
        ));
        assert!(matches!(
            connection_failed(ConnectionError::InvalidConnectionUrl("no".into())),
            StoreError::Backend(_)
        ));
    }
}
