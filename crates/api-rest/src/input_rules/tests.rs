//! Every declared pattern (each beside its parser in the domain) against that parser, for
//! every input: generated
//! from the pattern (each match is accepted, up to its format's rule) and from an alphabet
//! around it (each accepted string matches).

use super::*;
use chrono::NaiveDate;
use domain::access::scope::{Scope, ScopeSet};
use domain::idempotency::key::IdempotencyKey;
use domain::ids::SubjectId;
use domain::monitoring::event::{parse_cursor, parse_types, EventType};
use domain::subjects::identifier::{Identifier, IdentifierError};
use proptest::prelude::*;
use regex::Regex;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("the pattern compiles")
}

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 26).unwrap()
}

/// What a format decides beyond the shape: a check digit.
fn only_the_format_refuses(e: &IdentifierError) -> bool {
    matches!(e, IdentifierError::CheckDigit(_))
}

#[test]
fn decimal_at_most_is_exact_at_its_edges() {
    crate::install_schemes();
    for max in [
        0u64,
        1,
        9,
        10,
        19,
        99,
        100,
        305,
        1000,
        9_223_372_036_854_775_807,
        u64::MAX,
    ] {
        let r = re(&format!("^(?:{})$", decimal_at_most(max)));
        for n in [0u64, 1, 9, 10, 11, 99, 100, 101, 305, 306, 999, 1000, 1001]
            .into_iter()
            .chain([max.saturating_sub(1), max, max.saturating_add(1)])
        {
            assert_eq!(r.is_match(&n.to_string()), n <= max, "{n} against {max}");
        }
        assert!(!r.is_match("01"));
        assert!(!r.is_match(""));
    }
}

/// Every installed identifier type (the schemes installed first, as the binary does).
fn known_types() -> impl Strategy<Value = domain::subjects::identifier::IdentifierType> {
    crate::install_schemes();
    proptest::sample::select(domain::subjects::identifier::scheme::known().to_vec())
}

proptest! {
    #[test]
    fn decimal_at_most_matches_exactly_the_numbers_up_to_max(max in any::<u64>(), n in any::<u64>()) {
        crate::install_schemes();
        let r = re(&format!("^(?:{})$", decimal_at_most(max)));
        prop_assert_eq!(r.is_match(&n.to_string()), n <= max);
        prop_assert_eq!(r.is_match(&(n % 1000).to_string()), n % 1000 <= max);
    }

    #[test]
    fn the_cursor_pattern_is_the_cursor_parser(s in "[0-9+\\-. a]{0,3}|[0-9]{1,21}|9223372036854775[0-9]{3}") {
        crate::install_schemes();
        prop_assert_eq!(re(&cursor_pattern()).is_match(&s), parse_cursor(&s).is_ok(), "{:?}", s);
    }

    #[test]
    fn the_event_types_pattern_is_the_types_parser(
        parts in proptest::collection::vec(
            prop_oneof![
                proptest::sample::select(EventType::ALL.map(EventType::name).to_vec()).prop_map(str::to_owned),
                "[ ,a-z.*]{0,4}",
            ],
            0..5,
        ),
        seps in proptest::collection::vec("[ ,]{0,3}", 5),
    ) {
        let s: String = parts.iter().zip(&seps).map(|(p, sep)| format!("{p}{sep}")).collect();
        prop_assert_eq!(
            re(&event_types_pattern()).is_match(&s),
            parse_types(Some(&s)).is_ok(),
            "{:?}", s
        );
    }

    #[test]
    fn the_scope_pattern_is_the_scope_list_parser(
        parts in proptest::collection::vec(
            prop_oneof![
                proptest::sample::select(Scope::CONSUMER.map(Scope::as_str).to_vec()).prop_map(str::to_owned),
                "[a-z:]{0,6}",
            ],
            0..4,
        ),
        seps in proptest::collection::vec("[ ,]{0,2}", 4),
    ) {
        let s: String = parts.iter().zip(&seps).map(|(p, sep)| format!("{sep}{p}")).collect();
        // Blank asks for every scope of the grant.
        let accepted = s.trim().is_empty()
            || ScopeSet::parse_list(&s).is_ok_and(|set| set.iter().count() > 0 && set.iter().all(|s| s.is_consumer_scope()));
        prop_assert_eq!(re(&scope_list_pattern()).is_match(&s), accepted, "{:?}", s);
    }

    #[test]
    fn the_idempotency_key_pattern_is_the_key_parser(
        s in "[ \\t]?(\"[ -~]{0,6}\"|\"[ -~]{0,3}|[ -~]{0,6})(;[a-z=]{0,3})?[ \\t]?|\"[a-z]{250,260}\"|[a-z]{250,260}",
    ) {
        prop_assert_eq!(re(IDEMPOTENCY_KEY).is_match(&s), IdempotencyKey::parse(&s).is_ok(), "{:?}", s);
    }

    #[test]
    fn the_ulid_pattern_is_the_id_parser(s in "[0-9A-Za-z]{25,27}|[0-7][0-9A-Z]{25}") {
        crate::install_schemes();
        prop_assert_eq!(
            re(&format!("^{ULID}$")).is_match(&s),
            s.parse::<SubjectId>().is_ok(),
            "{:?}", s
        );
    }

    #[test]
    fn the_company_code_pattern_is_the_company_parser_up_to_the_check_digit(
        s in "((se|lt|SE|xx):)?(16)?[0-9]{6}-?[0-9]{3,4}|lt:[0-9]{8,10}|[0-9-]{9,13}",
    ) {
        crate::install_schemes();
        let shape_ok = match Identifier::parse_company(&s) {
            Ok(_) => true,
            Err(e) => only_the_format_refuses(&e),
        };
        prop_assert_eq!(re(&company_code_pattern()).is_match(&s), shape_ok, "{:?}", s);
    }

    /// Both ways: every number the parser accepts matches its pattern, and a number the
    /// pattern matches is refused, if at all, only for what the format states (a check
    /// digit, the calendar and today).
    #[test]
    fn each_identifier_pattern_is_its_parser_up_to_the_format(
        ty in known_types(),
        s in "((se|lt):)?[0-9]{6,12}|((se|lt):)?[0-9]{6,8}[-+][0-9]{4}|(se:)?(16)?[0-9]{6}-[0-9]{4}|(19|20)[0-9]{2}(0[0-9]|1[0-3])(0[0-9]|[12][0-9]|3[0-2]|[5-9][0-9])[-+]?[0-9]{4}|lt:[0-9]{11}",
    ) {
        let matches = re(&ty.pattern()).is_match(&s);
        let value = s.strip_prefix("se:").unwrap_or(&s);
        // A twelve-digit number written with `+` names a person of 100 or more: today's.
        let centenarian = value.len() == 13 && value.as_bytes()[8] == b'+';
        match Identifier::parse(ty, &s, today()) {
            Ok(_) => prop_assert!(matches, "{:?} {:?} is accepted but not matched", ty, s),
            Err(e) => {
                let formats = match e {
                    IdentifierError::CheckDigit(_) | IdentifierError::Date(_) => true,
                    IdentifierError::Malformed(_) => centenarian,
                    _ => false,
                };
                prop_assert!(
                    !matches || formats,
                    "{:?} {:?} is matched but refused as {:?}", ty, s, e
                );
            }
        }
    }

    #[test]
    fn text_patterns_refuse_only_nul_and_blank(s in "[a \\x00\\t\\n]{0,4}") {
        crate::install_schemes();
        prop_assert_eq!(re(TEXT).is_match(&s), domain::text::checked("f", &s).is_ok());
        prop_assert_eq!(re(NOT_BLANK).is_match(&s), !s.contains('\0') && !s.trim().is_empty());
    }
}

proptest! {
    /// Every address the service accepts (loopback allowed, so the widest rule) has the shape
    /// the document declares; what the shape lets through and the service refuses is the
    /// `webhook-url` format's (an address class).
    #[test]
    fn the_webhook_url_pattern_holds_every_accepted_address(
        s in "https?://[a-z0-9.\\-\\[\\]:]{1,30}(/[a-z0-9/?=&%.~_-]{0,20})?|\\PC{0,40}"
    ) {
        use domain::webhooks::endpoint::{EndpointUrl, URL_SHAPE_PATTERN};
        if EndpointUrl::parse(&s, true).is_ok() {
            prop_assert!(re(URL_SHAPE_PATTERN).is_match(&s), "{s:?}");
        }
    }
}

#[test]
fn the_webhook_patterns_take_what_the_service_takes() {
    crate::install_schemes();
    use domain::webhooks::endpoint::{EndpointUrl, DESCRIPTION_PATTERN, URL_SHAPE_PATTERN};
    for ok in [
        "https://hooks.example.com/idreg?x=1",
        "https://hooks-1.example.com:8443/a",
        "https://[2606:2800:220:1:248:1893:25c8:1946]/in",
        "http://127.0.0.1:9000/hook",
    ] {
        assert!(EndpointUrl::parse(ok, true).is_ok(), "{ok}");
        assert!(re(URL_SHAPE_PATTERN).is_match(ok), "{ok}");
    }
    for shape_refuses in [
        "ftp://x.example/",
        "https://a@b.example/",
        "https://b.example/#f",
        "https://b.example/ x",
    ] {
        assert!(
            !re(URL_SHAPE_PATTERN).is_match(shape_refuses),
            "{shape_refuses}"
        );
        assert!(
            EndpointUrl::parse(shape_refuses, true).is_err(),
            "{shape_refuses}"
        );
    }
    let d = re(DESCRIPTION_PATTERN);
    assert!(d.is_match("ops pager, Malmö"));
    for bad in ["a\u{0}b", "a\nb", "a\u{85}b"] {
        assert!(!d.is_match(bad), "{bad:?}");
    }
}

#[test]
fn every_format_named_in_the_rules_is_described() {
    crate::install_schemes();
    let mut doc = serde_json::to_value(crate::openapi::document("0.0.0", &[])).unwrap();
    apply(&mut doc);
    let mut named = Vec::new();
    collect_formats(&doc, &mut named);
    for f in named {
        let builtin = [
            "int32",
            "int64",
            "date-time",
            "date",
            "uri",
            "double",
            "binary",
            "byte",
        ];
        assert!(
            builtin.contains(&f.as_str()) || formats().iter().any(|(name, _)| *name == f),
            "format `{f}` is not described in FORMATS"
        );
    }
}

fn collect_formats(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            if let Some(Value::String(f)) = map.get("format") {
                out.push(f.clone());
            }
            map.values().for_each(|v| collect_formats(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_formats(v, out)),
        _ => {}
    }
}
