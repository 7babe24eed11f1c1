//! What a presented token may carry beyond the authority block this service mints, decided
//! before any Datalog runs.
//!
//! Biscuit lets a holder append blocks to restrict a token (attenuation). The interface needs
//! none, and an appended block is attacker-controlled input to a Datalog engine whose own
//! execution limits are checked between rule iterations, not inside one: a single rule joining
//! a few hundred facts three ways runs for a minute inside one iteration. So the blocks a
//! holder may append are bounded by their *shape*, which makes the engine's work bounded
//! whatever the values:
//!
//! - at most [`MAX_APPENDED_BLOCKS`] appended blocks, each signed in the token's own chain (no
//!   third-party block: nothing here trusts another key);
//! - an appended block holds **checks only**: no facts, no rules, no `trusting` scopes. With
//!   no appended facts or rules the engine's world is the authority block's dozen facts and
//!   the verifier's `time`, and nothing can derive more;
//! - at most [`MAX_CHECKS_PER_BLOCK`] checks per block, [`MAX_QUERIES_PER_CHECK`] alternatives
//!   (`or`) per check, [`MAX_PREDICATES_PER_QUERY`] predicates per alternative (a join over
//!   at most 12 × 12 fact pairs), [`MAX_EXPRESSIONS_PER_QUERY`] expressions per alternative of
//!   at most [`MAX_OPS_PER_EXPRESSION`] operations each;
//! - no closures (`.all()`, `.any()`, lazy `&&`/`||` bodies), no regular expressions and no
//!   foreign functions: the operations left are constant-time comparisons and arithmetic
//!   over values already in the token.
//!
//! A token outside these bounds is refused as malformed, having cost a parse of at most
//! [`crate::token::MAX_TOKEN_LEN`] bytes. A holder can still do what attenuation is for:
//! shorten the lifetime (`check if time($t), $t < 2026-01-01T10:05:00Z`) or require a scope or
//! country the token has (`check if scope("kyb:read")`).

use biscuit_auth::format::schema::{self, op, op_binary, op_unary};
use biscuit_auth::Biscuit;
use prost::Message;

/// Appended blocks a token may carry.
pub const MAX_APPENDED_BLOCKS: usize = 3;
/// Checks per appended block.
pub const MAX_CHECKS_PER_BLOCK: usize = 4;
/// Alternatives (`or`) per check.
pub const MAX_QUERIES_PER_CHECK: usize = 2;
/// Predicates per alternative.
pub const MAX_PREDICATES_PER_QUERY: usize = 2;
/// Expressions per alternative.
pub const MAX_EXPRESSIONS_PER_QUERY: usize = 4;
/// Operations per expression.
pub const MAX_OPS_PER_EXPRESSION: usize = 16;

/// Why a token's appended blocks are not admitted (kept for tests and diagnostics; the
/// consumer sees only `invalid_token`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inadmissible {
    TooManyBlocks,
    ThirdPartyBlock,
    Unreadable,
    Facts,
    Rules,
    Scopes,
    TooManyChecks,
    TooManyQueries,
    TooManyPredicates,
    TooManyExpressions,
    TooManyOps,
    Operation,
}

/// Whether every appended block of `biscuit` is within the bounds above. The blocks are read
/// as the token carries them (their serialized form, signatures already verified), so what is
/// judged is exactly what the engine would run.
pub fn admit(biscuit: &Biscuit) -> Result<(), Inadmissible> {
    let container = biscuit.container();
    if container.blocks.len() > MAX_APPENDED_BLOCKS {
        return Err(Inadmissible::TooManyBlocks);
    }
    if container.blocks.is_empty() {
        return Ok(());
    }
    for signed in container.to_proto().blocks {
        if signed.external_signature.is_some() {
            return Err(Inadmissible::ThirdPartyBlock);
        }
        let block =
            schema::Block::decode(signed.block.as_slice()).map_err(|_| Inadmissible::Unreadable)?;
        admit_block(&block)?;
    }
    Ok(())
}

fn admit_block(block: &schema::Block) -> Result<(), Inadmissible> {
    if !block.facts.is_empty() {
        return Err(Inadmissible::Facts);
    }
    if !block.rules.is_empty() {
        return Err(Inadmissible::Rules);
    }
    if !block.scope.is_empty() {
        return Err(Inadmissible::Scopes);
    }
    if block.checks.len() > MAX_CHECKS_PER_BLOCK {
        return Err(Inadmissible::TooManyChecks);
    }
    block.checks.iter().try_for_each(admit_check)
}

fn admit_check(check: &schema::Check) -> Result<(), Inadmissible> {
    if check.queries.len() > MAX_QUERIES_PER_CHECK {
        return Err(Inadmissible::TooManyQueries);
    }
    check.queries.iter().try_for_each(admit_query)
}

fn admit_query(query: &schema::Rule) -> Result<(), Inadmissible> {
    if !query.scope.is_empty() {
        return Err(Inadmissible::Scopes);
    }
    if query.body.len() > MAX_PREDICATES_PER_QUERY {
        return Err(Inadmissible::TooManyPredicates);
    }
    if query.expressions.len() > MAX_EXPRESSIONS_PER_QUERY {
        return Err(Inadmissible::TooManyExpressions);
    }
    for expression in &query.expressions {
        if expression.ops.len() > MAX_OPS_PER_EXPRESSION {
            return Err(Inadmissible::TooManyOps);
        }
        expression.ops.iter().try_for_each(admit_op)?;
    }
    Ok(())
}

fn admit_op(op: &schema::Op) -> Result<(), Inadmissible> {
    use op_binary::Kind as B;
    use op_unary::Kind as U;
    let admitted = match &op.content {
        Some(op::Content::Value(_)) => true,
        Some(op::Content::Unary(unary)) => matches!(
            U::from_i32(unary.kind),
            Some(U::Negate | U::Parens | U::Length | U::TypeOf)
        ),
        Some(op::Content::Binary(binary)) => match B::from_i32(binary.kind) {
            Some(B::Regex | B::LazyAnd | B::LazyOr | B::All | B::Any | B::TryOr | B::Ffi)
            | None => false,
            Some(_) => true,
        },
        Some(op::Content::Closure(_)) | None => false,
    };
    if admitted {
        Ok(())
    } else {
        Err(Inadmissible::Operation)
    }
}

/// The largest check admitted: every bound at its limit, over facts every token has (its
/// scopes), and satisfied.
pub fn largest_admitted_check() -> String {
    // `$v.length() + 1 + 1 + 1 + 1 + 1 + 1 >= 0`: 2 + 6 * 2 + 2 operations.
    let expression = |v: &str| format!("{v}.length(){} >= 0", " + 1".repeat(6));
    let query = format!(
        "scope($a), scope($b), {}, {}, {}, {}",
        expression("$a"),
        expression("$b"),
        expression("$a"),
        expression("$b")
    );
    format!("check if {query} or {query};\n")
}

/// The largest appended block admitted: [`MAX_CHECKS_PER_BLOCK`] of the largest check.
pub fn largest_admitted_block() -> String {
    largest_admitted_check().repeat(MAX_CHECKS_PER_BLOCK)
}

/// `token` with as much appended as is admitted: the largest checks, block after block, as
/// long as the token stays within [`crate::MAX_TOKEN_LEN`]. Its verification is the worst case
/// the verifier accepts (timed by `cargo bench -p adapters-crypto --bench token`).
pub fn largest_admitted(mut token: Biscuit) -> Biscuit {
    for _ in 0..MAX_APPENDED_BLOCKS {
        let fitting = (1..=MAX_CHECKS_PER_BLOCK).rev().find_map(|checks| {
            let block = biscuit_auth::BlockBuilder::new()
                .code(largest_admitted_check().repeat(checks))
                .ok()?;
            let longer = token.append(block).ok()?;
            let len = longer.to_base64().ok()?.len();
            (len <= crate::MAX_TOKEN_LEN).then_some(longer)
        });
        match fitting {
            Some(longer) => token = longer,
            None => break,
        }
    }
    token
}

#[cfg(test)]
mod tests {
    use super::*;
    use biscuit_auth::{BlockBuilder, KeyPair};

    fn minted() -> (KeyPair, Biscuit) {
        let root = KeyPair::new();
        let token = Biscuit::builder()
            .code(
                r#"tenant("t"); grant("g"); generation(1);
                   issued_at(2025-03-01T10:00:00Z); expires_at(2025-03-01T10:15:00Z);
                   scope("kyb:read"); country("SE");
                   check if time($t), $t < 2025-03-01T10:15:00Z;"#,
            )
            .unwrap()
            .build(&root)
            .unwrap();
        (root, token)
    }

    fn with_blocks(codes: &[&str]) -> Biscuit {
        let (_, mut token) = minted();
        for code in codes {
            token = token
                .append(BlockBuilder::new().code(*code).unwrap())
                .unwrap();
        }
        token
    }

    #[test]
    fn the_minted_token_and_ordinary_attenuations_are_admitted() {
        for codes in [
            vec![],
            vec!["check if time($t), $t < 2025-03-01T10:05:00Z;"],
            vec![
                r#"check if scope("kyb:read");"#,
                r#"check if country("SE") or country("LT"); check if time($t), $t < 2025-03-01T10:05:00Z;"#,
            ],
            vec![r#"check if scope($s), country($c), $s == "kyb:read", $c != "LT";"#],
        ] {
            assert_eq!(admit(&with_blocks(&codes)), Ok(()), "{codes:?}");
        }
    }

    #[test]
    fn the_largest_shape_admitted_is_admitted() {
        let block = largest_admitted_block();
        let token = with_blocks(&[block.as_str(); MAX_APPENDED_BLOCKS]);
        assert_eq!(admit(&token), Ok(()));
        assert_eq!(token.block_count(), MAX_APPENDED_BLOCKS + 1);
    }

    #[test]
    fn one_more_of_anything_is_refused() {
        let worst = largest_admitted_block();
        let cases: Vec<(Vec<String>, Inadmissible)> = vec![
            (
                vec![worst.clone(); MAX_APPENDED_BLOCKS + 1],
                Inadmissible::TooManyBlocks,
            ),
            (
                vec![format!("{worst} check if true;")],
                Inadmissible::TooManyChecks,
            ),
            (
                vec!["check if true or true or true;".to_owned()],
                Inadmissible::TooManyQueries,
            ),
            (
                vec!["check if scope($a), scope($b), scope($c);".to_owned()],
                Inadmissible::TooManyPredicates,
            ),
            (
                vec!["check if time($t), $t > 0, $t > 1, $t > 2, $t > 3, $t > 4;".to_owned()],
                Inadmissible::TooManyExpressions,
            ),
            (
                vec![format!(
                    "check if scope($a), $a.length(){} >= 0;",
                    " + 1".repeat(7)
                )],
                Inadmissible::TooManyOps,
            ),
        ];
        for (codes, why) in cases {
            let codes: Vec<&str> = codes.iter().map(String::as_str).collect();
            assert_eq!(admit(&with_blocks(&codes)), Err(why), "{codes:?}");
        }
    }

    #[test]
    fn facts_rules_scopes_and_costly_operations_are_refused() {
        for (code, why) in [
            ("n(1);", Inadmissible::Facts),
            (r#"scope("kyb:refresh");"#, Inadmissible::Facts),
            ("time(2000-01-01T00:00:00Z);", Inadmissible::Facts),
            ("p($a) <- scope($a);", Inadmissible::Rules),
            (
                // The shape that held a worker for a minute: facts and a three-way join.
                "n(1); n(2); p($a, $b, $c) <- n($a), n($b), n($c);",
                Inadmissible::Facts,
            ),
            (
                "check if scope($s) trusting previous;",
                Inadmissible::Scopes,
            ),
            (
                r#"check if scope($s), $s.matches("^(a+)+$");"#,
                Inadmissible::Operation,
            ),
            (
                "check if [1, 2].all($x -> $x > 0);",
                Inadmissible::Operation,
            ),
            (
                "check if [1, 2].any($x -> $x > 0);",
                Inadmissible::Operation,
            ),
            ("check if true && false;", Inadmissible::Operation),
            ("check if false || true;", Inadmissible::Operation),
        ] {
            assert_eq!(admit(&with_blocks(&[code])), Err(why), "{code}");
        }
    }

    #[test]
    fn a_block_wide_trust_scope_is_refused() {
        let (_, token) = minted();
        let block = BlockBuilder::new()
            .code("check if true;")
            .unwrap()
            .scope(biscuit_auth::builder::Scope::Previous);
        assert_eq!(
            admit(&token.append(block).unwrap()),
            Err(Inadmissible::Scopes)
        );
    }

    #[test]
    fn third_party_blocks_are_refused() {
        let (_, token) = minted();
        let request = token.third_party_request().unwrap();
        let other = KeyPair::new();
        let block = request
            .create_block(
                &other.private(),
                BlockBuilder::new().code("check if true;").unwrap(),
            )
            .unwrap();
        let token = token.append_third_party(other.public(), block).unwrap();
        assert_eq!(admit(&token), Err(Inadmissible::ThirdPartyBlock));
    }
}
