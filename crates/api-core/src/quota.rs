//! A metered answer's quota on HTTP: the `RateLimit-Policy` and `RateLimit` fields of the
//! IETF draft "RateLimit header fields for HTTP" (draft-ietf-httpapi-ratelimit-headers-10:
//! each a Structured Fields List, RFC 9651, of String items named for the policy; `q` and
//! `w` on the policy, `r` and `t` on the limit), written by the `sfv` crate. A spent limit's
//! 429 adds `Retry-After` with the seconds until it renews.

use actix_web::http::header::{HeaderName, HeaderValue, RETRY_AFTER};
use actix_web::HttpResponse;
use domain::usage::quota::{QuotaLine, WINDOW_SECONDS};
use sfv::{Integer, KeyRef, ListSerializer, StringRef};

/// The field that describes the policies (stable across responses).
pub const POLICY_FIELD: &str = "ratelimit-policy";
/// The field that carries the current standing against them.
pub const RATELIMIT_FIELD: &str = "ratelimit";

fn integer(v: i64) -> Integer {
    Integer::try_from(v.max(0)).unwrap_or(Integer::MAX)
}

fn key(name: &'static str) -> &'static KeyRef {
    KeyRef::from_str(name).unwrap_or_else(|_| unreachable!("a key of the draft: {name}"))
}

fn policy_name(line: &QuotaLine) -> &'static StringRef {
    let name = line.limit.policy();
    StringRef::from_str(name).unwrap_or_else(|_| unreachable!("a policy name: {name}"))
}

/// `RateLimit-Policy`: `"paid";q=500;w=86400` for each line.
pub fn policy_field(lines: &[QuotaLine]) -> Option<String> {
    let mut list = ListSerializer::new();
    for line in lines {
        let _ = list
            .bare_item(policy_name(line))
            .parameter(key("q"), integer(line.quota))
            .parameter(key("w"), integer(WINDOW_SECONDS));
    }
    list.finish()
}

/// `RateLimit`: `"paid";r=497;t=3600` for each line.
pub fn ratelimit_field(lines: &[QuotaLine]) -> Option<String> {
    let mut list = ListSerializer::new();
    for line in lines {
        let _ = list
            .bare_item(policy_name(line))
            .parameter(key("r"), integer(line.remaining))
            .parameter(key("t"), integer(line.reset_seconds));
    }
    list.finish()
}

/// Puts both fields on `response`; on a 429 also `Retry-After`, the seconds until the
/// soonest spent limit renews.
pub fn insert(response: &mut HttpResponse, lines: &[QuotaLine]) {
    let headers = response.headers_mut();
    for (name, value) in [
        (POLICY_FIELD, policy_field(lines)),
        (RATELIMIT_FIELD, ratelimit_field(lines)),
    ] {
        if let Some(value) = value.and_then(|v| HeaderValue::from_str(&v).ok()) {
            headers.insert(HeaderName::from_static(name), value);
        }
    }
    if response.status().as_u16() == 429 {
        let renews = lines
            .iter()
            .filter(|l| l.remaining == 0)
            .map(|l| l.reset_seconds)
            .min();
        if let Some(value) = renews.and_then(|s| HeaderValue::from_str(&s.to_string()).ok()) {
            response.headers_mut().insert(RETRY_AFTER, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::usage::quota::Limit;
    use sfv::{BareItem, List, ListEntry, Parser};

    fn line(limit: Limit, quota: i64, remaining: i64, reset: i64) -> QuotaLine {
        QuotaLine {
            limit,
            quota,
            used: quota - remaining,
            remaining,
            reset_seconds: reset,
        }
    }

    #[test]
    fn the_fields_are_the_drafts_lists() {
        let lines = [
            line(Limit::PaidCalls, 500, 497, 3600),
            line(Limit::PersonLookups, 20, 0, 3600),
        ];
        assert_eq!(
            policy_field(&lines).unwrap(),
            r#""paid";q=500;w=86400, "person_lookups";q=20;w=86400"#
        );
        assert_eq!(
            ratelimit_field(&lines).unwrap(),
            r#""paid";r=497;t=3600, "person_lookups";r=0;t=3600"#
        );
        // And a Structured Fields parser reads them back.
        let parsed: List = Parser::new(&ratelimit_field(&lines).unwrap())
            .parse()
            .unwrap();
        let ListEntry::Item(first) = &parsed[0] else {
            panic!("an item")
        };
        assert_eq!(
            first.bare_item,
            BareItem::String("paid".to_owned().try_into().unwrap())
        );
        assert_eq!(first.params.get("r"), Some(&BareItem::Integer(497.into())));
    }

    #[test]
    fn a_spent_limit_tells_when_to_retry() {
        let lines = [line(Limit::PaidCalls, 5, 0, 42)];
        let mut response = HttpResponse::TooManyRequests().finish();
        insert(&mut response, &lines);
        assert_eq!(response.headers().get(RETRY_AFTER).unwrap(), "42");
        let mut ok = HttpResponse::Ok().finish();
        insert(&mut ok, &lines);
        assert!(ok.headers().get(RETRY_AFTER).is_none());
        assert_eq!(ok.headers().get("ratelimit").unwrap(), r#""paid";r=0;t=42"#);
    }
}
