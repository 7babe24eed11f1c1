//! The `Idempotency-Key` field's value and what is kept of a request under it.

use crate::error::{ErrorCode, Failure};
use std::fmt;

/// A client's idempotency key. The draft makes the field a Structured Fields String
/// (`"8e03978e-40d5-43e8-bc93-6894a57f9324"`); the bare form most clients send (a UUID
/// without quotes) is accepted too. Its text is never stored or logged: the store keys on
/// an HMAC of it under the tenant's key.
#[derive(Clone, PartialEq, Eq)]
pub struct IdempotencyKey(String);

impl fmt::Debug for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("IdempotencyKey(<redacted>)")
    }
}

/// The header's name, as messages name it.
pub const FIELD: &str = "Idempotency-Key";

impl IdempotencyKey {
    /// The longest key accepted, in characters.
    pub const MAX_LEN: usize = 255;

    /// Reads the field's value: a Structured Fields String (printable ASCII between double
    /// quotes, `\"` and `\\` escaped) or a bare token of visible ASCII (a value opening with
    /// a double quote is a String), 1 to 255 characters
    /// once unquoted. Anything else is 400 `bad_request` naming the field, never quoting it.
    pub fn parse(field: &str) -> Result<IdempotencyKey, Failure> {
        let refuse = |why: &str| Failure::bad_request(FIELD, why);
        let field = field.trim_matches(|c| c == ' ' || c == '\t');
        let key = if let Some(quoted) = field.strip_prefix('"') {
            let mut key = String::new();
            let mut chars = quoted.chars();
            let mut closed = false;
            while let Some(c) = chars.next() {
                match c {
                    '\\' => match chars.next() {
                        Some(e @ ('"' | '\\')) => key.push(e),
                        _ => {
                            return Err(refuse(
                                "has an escape a Structured Fields String does not allow",
                            ))
                        }
                    },
                    '"' => {
                        closed = true;
                        break;
                    }
                    ' '..='~' => key.push(c),
                    _ => return Err(refuse("must be printable ASCII")),
                }
            }
            if !closed {
                return Err(refuse("is a String without its closing quote"));
            }
            // Parameters after the String are allowed by Structured Fields and ignored;
            // anything else is not.
            let rest = chars.as_str();
            if !(rest.is_empty() || rest.starts_with(';')) {
                return Err(refuse("has text after its String"));
            }
            key
        } else {
            if !field.chars().all(|c| ('!'..='~').contains(&c)) {
                return Err(refuse("must be visible ASCII (or a quoted String)"));
            }
            field.to_owned()
        };
        if key.is_empty() {
            return Err(refuse("must not be empty"));
        }
        if key.chars().count() > Self::MAX_LEN {
            return Err(refuse(&format!(
                "must be at most {} characters",
                Self::MAX_LEN
            )));
        }
        Ok(IdempotencyKey(key))
    }

    /// The key's text, for the keyed hash that names it in the store (and nothing else).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// What distinguishes one request from another under a key: the credential, the method,
/// the target (path and query as sent) and the body's bytes. Compared only as a keyed hash.
pub struct RequestPrint<'a> {
    pub method: &'a str,
    pub target: &'a str,
    pub body: &'a [u8],
}

/// The answer kept for a key: the body of a success (its status is the operation's), or the
/// code and message of a failure (its body is made from them again, byte for byte).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoredAnswer {
    Success(String),
    Failure { code: ErrorCode, message: String },
}

/// What the credential held when a kept answer was made: its scopes and countries, and
/// whether the tenant's person-register permit was in force. A replay is served only while the
/// credential still holds all of it ([`HeldRights::lost_since`]): an answer made under a right
/// since withdrawn (`kyc:read`, a country, the permit) is not handed out again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeldRights {
    pub scopes: crate::access::scope::ScopeSet,
    pub countries: crate::countries::country::CountrySet,
    pub permit_in_force: bool,
}

impl HeldRights {
    /// What of `self` the caller no longer holds, named for the refusal (scope names,
    /// country codes, the permit); `None` when nothing was lost.
    pub fn lost_since(&self, now: &HeldRights) -> Option<String> {
        let mut lost: Vec<String> = self
            .scopes
            .iter()
            .filter(|s| !now.scopes.contains(*s))
            .map(|s| format!("the scope {}", s.as_str()))
            .collect();
        lost.extend(
            self.countries
                .iter()
                .filter(|c| !now.countries.contains(*c))
                .map(|c| format!("the country {}", c.code())),
        );
        if self.permit_in_force && !now.permit_in_force {
            lost.push("a person-register permit in force".to_owned());
        }
        (!lost.is_empty()).then(|| lost.join(", "))
    }
}

/// A kept answer and the rights it was made under (`None`: kept before the rights were
/// recorded, replayed on the scope check alone).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptAnswer {
    pub answer: StoredAnswer,
    pub held: Option<HeldRights>,
}

impl StoredAnswer {
    /// The answer as the request's outcome.
    pub fn into_outcome(self) -> Result<String, Failure> {
        match self {
            StoredAnswer::Success(body) => Ok(body),
            StoredAnswer::Failure { code, message } => Err(Failure::new(code, message)),
        }
    }

    /// What is kept of an outcome, or `None` when it is not kept: a refusal for a spent
    /// daily limit (nothing was done; a retry after the renewal should run) and an outage
    /// of the service's own storage (nothing could be relied on, and nothing can be kept).
    /// Every other answer, a failure of an upstream register included, is kept: the work
    /// may have spent a budget, and the key must never spend it twice.
    pub fn of(outcome: Result<&str, &Failure>) -> Option<StoredAnswer> {
        match outcome {
            Ok(body) => Some(StoredAnswer::Success(body.to_owned())),
            Err(f) if f.code == ErrorCode::BudgetExceeded || f.retry_after().is_some() => None,
            Err(f) => Some(StoredAnswer::Failure {
                code: f.code,
                message: f.message.clone(),
            }),
        }
    }
}

/// The `Idempotency-Key` field: a Structured Fields String of 1 to 255 printable ASCII
/// characters (with its parameters, which are ignored) or the bare key of 1 to 255 visible
/// ASCII characters ([`IdempotencyKey::parse`]).
pub const IDEMPOTENCY_KEY_PATTERN: &str =
    "^[ \\t]*(?:\"(?:[ !#-\\[\\]-~]|\\\\[\"\\\\]){1,255}\"(?:;[^\\u0000]*)?|[!#-~][!-~]{0,254})[ \\t]*$";
