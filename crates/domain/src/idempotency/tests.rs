//! The key's grammar (property tests), what is kept, and the use case with every port
//! mocked.

use super::key::{HeldRights, IdempotencyKey, KeptAnswer, RequestPrint, StoredAnswer};
use super::ports::{ClaimOutcome, MockIdempotencyStore, MockIdempotencyVault};
use super::service::{Begin, IdempotencyService, LEASE_SECONDS, RETENTION_HOURS};
use crate::error::{ErrorCode, Failure};
use crate::fixtures::{caller, clock, now};
use crate::operation::Operation;
use std::sync::{Arc, Mutex};

mod grammar {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_forms_clients_send_are_read() {
        let uuid = "8e03978e-40d5-43e8-bc93-6894a57f9324";
        assert_eq!(IdempotencyKey::parse(uuid).unwrap().expose(), uuid);
        assert_eq!(
            IdempotencyKey::parse(&format!("\"{uuid}\""))
                .unwrap()
                .expose(),
            uuid
        );
        assert_eq!(
            IdempotencyKey::parse(r#""a \"b\" \\ c";p=1"#)
                .unwrap()
                .expose(),
            r#"a "b" \ c"#
        );
        assert_eq!(IdempotencyKey::parse("  k1\t").unwrap().expose(), "k1");
    }

    #[test]
    fn malformed_keys_are_refused_naming_the_field() {
        for bad in [
            "", "\"\"", "a b", "\"open", "\"a\"b", r#""a\n""#, "é", "\"é\"",
        ] {
            let f = IdempotencyKey::parse(bad).unwrap_err();
            assert_eq!(f.code, ErrorCode::BadRequest, "{bad:?}");
            assert!(f.message.starts_with("`Idempotency-Key`"), "{bad:?}");
        }
        let long = "k".repeat(256);
        assert!(IdempotencyKey::parse(&long).is_err());
        assert!(IdempotencyKey::parse(&"k".repeat(255)).is_ok());
    }

    proptest! {
        /// Every bare key of visible ASCII up to the limit (not opening with a quote, which
        /// makes it a String) reads back as itself, and its quoted String form (escaped)
        /// reads back to the same key.
        #[test]
        fn bare_and_quoted_forms_agree(key in "[!#-~][!-~]{0,254}") {
            let bare = IdempotencyKey::parse(&key).unwrap();
            prop_assert_eq!(bare.expose(), key.as_str());
            let quoted = format!("\"{}\"", key.replace('\\', "\\\\").replace('"', "\\\""));
            prop_assert_eq!(IdempotencyKey::parse(&quoted).unwrap(), bare);
        }

        /// Whatever the field holds, a refusal never quotes it.
        #[test]
        fn a_refusal_never_echoes_the_value(field in "\\PC{0,300}") {
            if let Err(f) = IdempotencyKey::parse(&field) {
                let trimmed = field.trim();
                if trimmed.chars().count() > 3 {
                    prop_assert!(!f.message.contains(trimmed));
                }
            }
        }
    }
}

#[test]
fn spent_limits_and_storage_outages_are_not_kept_and_everything_else_is() {
    assert_eq!(
        StoredAnswer::of(Ok("{}")),
        Some(StoredAnswer::Success("{}".into()))
    );
    let budget = Failure::new(ErrorCode::BudgetExceeded, "spent");
    assert_eq!(StoredAnswer::of(Err(&budget)), None);
    let outage = Failure::storage_unavailable("down");
    assert_eq!(StoredAnswer::of(Err(&outage)), None);
    let upstream = Failure::new(ErrorCode::UpstreamUnavailable, "the register is down");
    assert_eq!(
        StoredAnswer::of(Err(&upstream)),
        Some(StoredAnswer::Failure {
            code: ErrorCode::UpstreamUnavailable,
            message: "the register is down".into()
        })
    );
    let kept = StoredAnswer::of(Err(&upstream)).unwrap();
    assert_eq!(kept.into_outcome(), Err(upstream));
}

const PRINT: RequestPrint<'static> = RequestPrint {
    method: "POST",
    target: "/v1/subjects/resolve",
    body: br#"{"type":"orgnr","value":"5560021361"}"#,
};

fn vault(materials: Arc<Mutex<Vec<Vec<u8>>>>) -> MockIdempotencyVault {
    let mut v = MockIdempotencyVault::new();
    v.expect_key_hash()
        .returning(|_, _, k| Ok(format!("h:{}", k.expose().len())));
    v.expect_fingerprint().returning(move |_, _, m| {
        materials.lock().unwrap().push(m.to_vec());
        Ok(format!("f:{}", m.len()))
    });
    v.expect_seal_answer()
        .returning(|_, _, a| Ok(format!("{a:?}").into_bytes()));
    v.expect_open_answer().returning(|_, _, _| {
        Ok(KeptAnswer {
            answer: StoredAnswer::Success("{\"kept\":true}".into()),
            held: None,
        })
    });
    v
}

/// The vault of [`vault`], whose kept answer was made under `held`.
fn vault_holding(held: HeldRights) -> MockIdempotencyVault {
    let mut v = MockIdempotencyVault::new();
    v.expect_key_hash().returning(|_, _, _| Ok("h".into()));
    v.expect_fingerprint().returning(|_, _, _| Ok("f".into()));
    v.expect_open_answer().returning(move |_, _, _| {
        Ok(KeptAnswer {
            answer: StoredAnswer::Success("{\"kept\":true}".into()),
            held: Some(held.clone()),
        })
    });
    v
}

#[tokio::test]
async fn a_replay_is_refused_once_the_credential_lost_a_right_its_answer_was_made_under() {
    use crate::access::scope::ScopeSet;
    use crate::countries::country::CountrySet;
    let c = caller("SE", "kyb:read", "SE");
    let key = IdempotencyKey::parse("k1").unwrap();
    let held = |scopes: &str, countries: &str, permit: bool| HeldRights {
        scopes: ScopeSet::parse_list(scopes).unwrap(),
        countries: CountrySet::parse_list(countries).unwrap(),
        permit_in_force: permit,
    };
    for (then, lost) in [
        (held("kyb:read", "SE", false), None),
        (
            held("kyb:read kyc:read", "SE", false),
            Some("the scope kyc:read"),
        ),
        (held("kyb:read", "SE,LT", false), Some("the country LT")),
        (
            held("kyb:read", "SE", true),
            Some("a person-register permit in force"),
        ),
    ] {
        let mut store = MockIdempotencyStore::new();
        store
            .expect_claim()
            .return_once(|_, _| Ok(ClaimOutcome::Answered(b"sealed".to_vec())));
        let s = IdempotencyService {
            calendar: Default::default(),
            store: Arc::new(store),
            vault: Arc::new(vault_holding(then)),
            clock: clock(),
        };
        let begun = s.begin(&c, Operation::ResolveSubject, &key, &PRINT).await;
        match lost {
            None => assert!(matches!(begun.unwrap(), Begin::Replay(Ok(_)))),
            Some(lost) => {
                let f = begun.unwrap_err();
                assert_eq!(f.code, ErrorCode::Forbidden);
                assert!(f.message.contains(lost), "{}", f.message);
            }
        }
    }
}

fn service(store: MockIdempotencyStore) -> (IdempotencyService, Arc<Mutex<Vec<Vec<u8>>>>) {
    let materials = Arc::new(Mutex::new(Vec::new()));
    (
        IdempotencyService {
            calendar: Default::default(),
            store: Arc::new(store),
            vault: Arc::new(vault(materials.clone())),
            clock: clock(),
        },
        materials,
    )
}

#[tokio::test]
async fn a_free_key_runs_and_its_answer_is_kept_for_a_day() {
    let mut store = MockIdempotencyStore::new();
    store
        .expect_claim()
        .withf(|_, c| {
            c.now == now()
                && c.lease_until == now() + chrono::Duration::seconds(LEASE_SECONDS)
                && c.expires_at == now() + chrono::Duration::hours(RETENTION_HOURS)
                && c.key_hash == "h:2"
        })
        .times(1)
        .return_once(|_, _| Ok(ClaimOutcome::Claimed));
    store
        .expect_complete()
        .withf(|_, k, _, sealed| k == "h:2" && !sealed.is_empty())
        .times(1)
        .return_once(|_, _, _, _| Ok(()));
    store.expect_release().never();
    let (s, materials) = service(store);
    let c = caller("SE", "kyb:read", "SE");
    let key = IdempotencyKey::parse("k1").unwrap();
    let Begin::Run(ticket) = s
        .begin(&c, Operation::ResolveSubject, &key, &PRINT)
        .await
        .unwrap()
    else {
        panic!("a free key runs")
    };
    s.finish(&c, ticket, Ok("{\"subject_id\":\"x\"}"))
        .await
        .unwrap();
    // The fingerprint binds the credential, the method, the target and the body.
    let material = String::from_utf8(materials.lock().unwrap()[0].clone()).unwrap();
    assert_eq!(
        material,
        format!(
            "{}\nPOST /v1/subjects/resolve\n{}",
            c.grant_id,
            std::str::from_utf8(PRINT.body).unwrap()
        )
    );
}

#[tokio::test]
async fn an_answered_key_replays_a_reused_key_is_422_and_a_running_one_409() {
    let c = caller("SE", "kyb:read", "SE");
    let key = IdempotencyKey::parse("k1").unwrap();
    for (outcome, expected) in [
        (ClaimOutcome::Answered(b"sealed".to_vec()), None),
        (ClaimOutcome::Reused, Some(ErrorCode::IdempotencyKeyReused)),
        (ClaimOutcome::InUse, Some(ErrorCode::IdempotencyKeyInUse)),
    ] {
        let mut store = MockIdempotencyStore::new();
        store.expect_claim().return_once(move |_, _| Ok(outcome));
        store.expect_complete().never();
        let (s, _) = service(store);
        let begun = s.begin(&c, Operation::ResolveSubject, &key, &PRINT).await;
        match expected {
            None => match begun.unwrap() {
                Begin::Replay(Ok(body)) => assert_eq!(body, "{\"kept\":true}"),
                other => panic!("{other:?}"),
            },
            Some(code) => assert_eq!(begun.unwrap_err().code, code),
        }
    }
}

#[tokio::test]
async fn a_caller_without_the_routes_scope_is_refused_before_the_store_is_asked() {
    let mut store = MockIdempotencyStore::new();
    store.expect_claim().never();
    let (s, _) = service(store);
    let c = caller("SE", "events:read", "SE");
    let key = IdempotencyKey::parse("k1").unwrap();
    let f = s
        .begin(&c, Operation::RefreshCompany, &key, &PRINT)
        .await
        .unwrap_err();
    assert_eq!(f.code, ErrorCode::Forbidden);
}

#[tokio::test]
async fn an_answer_that_is_not_kept_frees_the_key() {
    let mut store = MockIdempotencyStore::new();
    store
        .expect_claim()
        .return_once(|_, _| Ok(ClaimOutcome::Claimed));
    store.expect_complete().never();
    store
        .expect_release()
        .times(1)
        .return_once(|_, _, _| Ok(()));
    let (s, _) = service(store);
    let c = caller("SE", "kyb:refresh", "SE");
    let key = IdempotencyKey::parse("k1").unwrap();
    let Begin::Run(ticket) = s
        .begin(&c, Operation::RefreshCompany, &key, &PRINT)
        .await
        .unwrap()
    else {
        panic!()
    };
    let spent = Failure::new(ErrorCode::BudgetExceeded, "spent");
    s.finish(&c, ticket, Err(&spent)).await.unwrap();
}
