//! The screening matcher: deterministic, explainable, versioned. A name (and the facts that
//! come with it) is compared with list entries in two stages: a candidate index narrows the
//! lists to the entries sharing a token or a phonetic key with the query, then a pairwise
//! scorer gives each candidate a score with its reasons. The same input under the same
//! versions (matcher, policy, source versions) gives the same result, byte for byte.
//!
//! This module holds the first stage's foundation, [`normalise`]: folding every script the
//! lists use to comparable Latin tokens. The index and the scorer build on it.

pub mod normalise;

/// The matcher's version, recorded on every check (`matcher_version`). Any change that can
/// move a score changes it.
pub const MATCHER_VERSION: &str = "idreg-matcher/0.1.0";
