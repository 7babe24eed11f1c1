//! Upstreams a country crate plugs into the sandbox, so adding a country edits no file here.
//!
//! A plug-in is a [`SandboxPlugin`] handed to [`crate::SandboxConfig::with_plugin`]. The
//! sandbox serves it as it serves its own sources:
//! - its requests are everything under `/<name>` ([`crate::RunningSandbox::plugin_base_url`]),
//!   answered by [`SandboxPlugin::answer`] with the path after the prefix;
//! - each runs under fault injection and the call log with the source
//!   `Source::Plugin(name)`: `POST /control/faults/<name>` arms `http_5xx`, `timeout`,
//!   `slow` and `malformed` faults on it, answered in its own error shape
//!   ([`SandboxPlugin::error`]), and `GET /control/calls?source=<name>` lists its calls;
//! - its own control routes (scripted changes to its data) are everything under
//!   `/control/plugins/<name>`, loopback peers only like the rest of `/control`;
//! - `POST /control/reset` resets it with the rest ([`SandboxPlugin::reset`]).
//!
//! A plug-in keeps its own data (interior mutability: it is shared by every worker).

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use std::collections::BTreeSet;
use std::sync::Mutex;

/// An upstream served by the sandbox on behalf of the crate that connects to it.
pub trait SandboxPlugin: Send + Sync + 'static {
    /// Its name: lower-case letters, digits and `-`, at most 32, not one of the sandbox's own
    /// sources or path prefixes (`no-brreg`). It is the path prefix, the fault and call-log
    /// key and the control path.
    fn name(&self) -> &'static str;

    /// The upstream's own answer for a failure status (503, 504, ...), used by injected faults.
    fn error(&self) -> fn(StatusCode, &HttpRequest) -> HttpResponse;

    /// Answers a request; `path` is the request's path after `/<name>` (`/enheter/974760673`).
    fn answer(&self, req: &HttpRequest, path: &str, body: &[u8]) -> HttpResponse;

    /// Answers a control request; `path` is the path after `/control/plugins/<name>`.
    fn control(&self, _req: &HttpRequest, _path: &str, _body: &[u8]) -> HttpResponse {
        HttpResponse::NotFound().json(serde_json::json!({ "error": "no such control route" }))
    }

    /// Puts its data back to the start (`POST /control/reset`).
    fn reset(&self) {}
}

/// Names the sandbox uses itself: its sources' spellings (`Source::as_str`) and its path
/// prefixes.
const TAKEN: [&str; 14] = [
    "bolagsverket",
    "bolagsverket-token",
    "ssbtgu",
    "scb",
    "lt",
    "foretagsinformation",
    "verkliga-huvudman",
    "personsokning",
    "model",
    "spar",
    "anthropic",
    "control",
    "mailbox",
    "plugins",
];

/// Whether `name` may name a plug-in (see [`SandboxPlugin::name`]); why not otherwise.
pub fn check_name(name: &str) -> Result<(), String> {
    let well_formed = !name.is_empty()
        && name.len() <= 32
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-');
    if !well_formed {
        return Err(
            "a plug-in's name is 1 to 32 lower-case letters, digits and inner hyphens".to_owned(),
        );
    }
    if TAKEN.contains(&name) {
        return Err(format!("`{name}` is one of the sandbox's own names"));
    }
    Ok(())
}

/// The one `'static` copy of a plug-in name read from outside (a control request, a JSON
/// call record): each distinct name is kept once for the life of the process.
pub(crate) fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(kept) = names.get(name) {
        return kept;
    }
    let kept: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(kept);
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_short_lower_case_and_not_the_sandboxs_own() {
        for good in ["no-brreg", "fi", "dk-cvr2"] {
            assert_eq!(check_name(good), Ok(()), "{good}");
        }
        for bad in [
            "", "NO", "no_brreg", "-no", "no-", "no/x", "lt", "control", "scb", "model",
        ] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        assert!(check_name(&"a".repeat(33)).is_err());
    }

    #[test]
    fn every_source_of_the_sandboxs_own_is_taken() {
        for source in crate::faults::Source::ALL {
            assert!(check_name(source.as_str()).is_err(), "{source}");
        }
    }

    #[test]
    fn a_name_is_kept_once() {
        let a = intern("no-brreg");
        let b = intern(&String::from("no-brreg"));
        assert!(std::ptr::eq(a, b));
    }
}
