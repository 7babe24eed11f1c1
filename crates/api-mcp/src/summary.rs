//! The one-line human summaries of `content[0]`, read off the REST body a tool returned.
//! They name companies, ids and counts; never an identifier of a person.

use serde_json::Value;

fn text<'a>(body: &'a Value, pointer: &str) -> &'a str {
    body.pointer(pointer).and_then(Value::as_str).unwrap_or("?")
}

fn count(body: &Value, pointer: &str) -> usize {
    body.pointer(pointer)
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn stale_note(body: &Value) -> &'static str {
    if body.get("stale").and_then(Value::as_bool) == Some(true) {
        " (stale: served from cache, the register could not be asked)"
    } else {
        ""
    }
}

/// `GET /v1/companies/{orgnr}`.
pub fn company_profile(body: &Value) -> String {
    format!(
        "{} ({}, {}): {}; subject {}{}",
        text(body, "/data/name"),
        text(body, "/data/orgnr"),
        text(body, "/data/country"),
        text(body, "/data/status"),
        text(body, "/data/subject_id"),
        stale_note(body),
    )
}

/// `GET /v1/companies/{orgnr}/officers` and `/signatories`.
pub fn officers(body: &Value) -> String {
    format!(
        "{} officer roles of {} ({}); signatory rule: {}{}",
        count(body, "/data/officers"),
        text(body, "/data/orgnr"),
        text(body, "/data/country"),
        body.pointer("/data/signatory_rule_text")
            .and_then(Value::as_str)
            .unwrap_or("none registered"),
        stale_note(body),
    )
}

/// `GET /v1/companies/{orgnr}/beneficial-owners`.
pub fn beneficial_owners(body: &Value) -> String {
    let reported = body.pointer("/data/no_ubo_reported") == Some(&Value::Bool(true));
    format!(
        "{} beneficial owners of {} ({}){}{}",
        count(body, "/data/owners"),
        text(body, "/data/orgnr"),
        text(body, "/data/country"),
        if reported { "; none reported" } else { "" },
        stale_note(body),
    )
}

/// `GET /v1/persons/{ref}/engagements`.
pub fn engagements(body: &Value) -> String {
    format!(
        "{} engagements of person {} ({}){}",
        count(body, "/data/engagements"),
        text(body, "/data/subject_id"),
        text(body, "/data/country"),
        stale_note(body),
    )
}

/// `GET /v1/subjects/{id}`.
pub fn subject(body: &Value) -> String {
    let mut countries: Vec<&str> = body
        .get("identifiers")
        .and_then(Value::as_array)
        .map(|ids| {
            ids.iter()
                .filter_map(|i| i.get("country").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    countries.sort_unstable();
    countries.dedup();
    let countries = if countries.is_empty() {
        String::new()
    } else {
        format!(" ({})", countries.join(", "))
    };
    format!(
        "Subject {} ({}): {}{}, {}, {}",
        text(body, "/subject_id"),
        text(body, "/kind"),
        plural(count(body, "/identifiers"), "identifier", "identifiers"),
        countries,
        plural(
            count(body, "/refs"),
            "customer reference",
            "customer references"
        ),
        plural(count(body, "/aliases"), "alias", "aliases"),
    )
}

/// `GET /v1/persons/{ref}`: the person's ref, country and markers; a name only when the
/// register gives one. Never an address (the body has them where the rules allow).
pub fn person_profile(body: &Value) -> String {
    let data = body.get("data").unwrap_or(&Value::Null);
    let names: Vec<&str> = ["/names/given_name", "/names/surname"]
        .iter()
        .filter_map(|p| data.pointer(p).and_then(Value::as_str))
        .collect();
    let who = if names.is_empty() {
        "no name given".to_owned()
    } else {
        names.join(" ")
    };
    let protected = text(data, "/markers/protected");
    let mut notes = Vec::new();
    if protected != "none" {
        notes.push(format!("protected ({protected}): no address is given"));
    }
    if let Some(d) = data
        .pointer("/markers/deceased_date")
        .and_then(Value::as_str)
    {
        notes.push(format!("deceased {d}"));
    }
    if let Some(d) = data
        .pointer("/markers/emigrated_date")
        .and_then(Value::as_str)
    {
        notes.push(format!("emigrated {d}"));
    }
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!("; {}", notes.join("; "))
    };
    format!(
        "Person {} ({}): {}{}; subject {}",
        text(data, "/person_ref"),
        text(data, "/country"),
        who,
        notes,
        text(data, "/subject_id"),
    )
}

/// `lookup_person`: the resolve body and the person body.
pub fn lookup_person(body: &Value) -> String {
    person_profile(body.get("person").unwrap_or(&Value::Null))
}

/// `POST /v1/companies/{orgnr}/refresh`.
pub fn refresh(body: &Value) -> String {
    format!(
        "{} ({}, {}) refreshed: {}; {} logged",
        text(body, "/data/name"),
        text(body, "/data/orgnr"),
        text(body, "/data/country"),
        text(body, "/data/status"),
        plural(
            body.get("events_emitted")
                .and_then(Value::as_u64)
                .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX)),
            "event",
            "events"
        ),
    )
}

/// A subscription body.
pub fn subscription(body: &Value) -> String {
    format!(
        "Subscription {} ({} of subject {}, {}): {}",
        text(body, "/subscription_id"),
        text(body, "/kind"),
        text(body, "/subject_id"),
        text(body, "/country"),
        text(body, "/status"),
    )
}

/// `GET /v1/subscriptions`.
pub fn subscriptions(body: &Value) -> String {
    plural(
        count(body, "/subscriptions"),
        "subscription",
        "subscriptions",
    )
}

/// A webhook endpoint (`create_webhook`, `get_webhook`, ...).
pub fn webhook(body: &Value) -> String {
    let secret = if body.get("secret").is_some() {
        "; its signing secret is in the body, shown this once"
    } else {
        ""
    };
    format!(
        "Webhook endpoint {} ({}): delivered up to seq {}{secret}",
        text(body, "/id"),
        text(body, "/status"),
        body.get("cursor").and_then(Value::as_i64).unwrap_or(0),
    )
}

/// `list_webhooks`.
pub fn webhooks(body: &Value) -> String {
    plural(
        count(body, "/endpoints"),
        "webhook endpoint",
        "webhook endpoints",
    )
}

/// `list_webhook_deliveries`.
pub fn webhook_deliveries(body: &Value) -> String {
    let next = body.get("next_cursor").and_then(Value::as_i64).unwrap_or(0);
    format!(
        "{}; next_cursor {next}",
        plural(
            count(body, "/deliveries"),
            "delivery attempt",
            "delivery attempts"
        )
    )
}

/// `GET /v1/events` (`list_events`, `list_changes`).
pub fn events(body: &Value) -> String {
    let next = body.get("next_cursor").and_then(Value::as_i64).unwrap_or(0);
    match count(body, "/events") {
        0 => format!("No events; next_cursor {next} (ask again later with it)"),
        n => format!("{}; next_cursor {next}", plural(n, "event", "events")),
    }
}

/// `lookup_company`: the resolve body and the company body.
pub fn lookup_company(body: &Value) -> String {
    let company = body.get("company").unwrap_or(&Value::Null);
    format!(
        "{} ({}, {}) is subject {}: {}{}",
        text(company, "/data/name"),
        text(company, "/data/orgnr"),
        text(company, "/data/country"),
        text(body, "/subject/subject_id"),
        text(company, "/data/status"),
        stale_note(company),
    )
}

/// A screening check body (`screen_subject`, `get_screening_check`): its band, how many
/// candidates and the best of them by list entry and score. Never the input screened (a
/// person's name or an organisation number).
pub fn screening_check(body: &Value) -> String {
    let candidates = body
        .get("candidates")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let whitelisted = candidates
        .iter()
        .filter(|c| c.get("whitelisted") == Some(&Value::Bool(true)))
        .count();
    let top = match candidates.first() {
        None => String::new(),
        Some(c) => format!(
            "; best {} `{}` at {} ({})",
            text(c, "/entity_id"),
            text(c, "/evidence/matched_name"),
            c.get("score")
                .and_then(Value::as_f64)
                .map_or("?".to_owned(), |s| format!("{s:.4}")),
            text(c, "/band"),
        ),
    };
    let whitelisted = if whitelisted == 0 {
        String::new()
    } else {
        format!(", {whitelisted} whitelisted")
    };
    format!(
        "Screening check {} ({}): {}; {}{}{}",
        text(body, "/id"),
        text(body, "/input_kind"),
        text(body, "/band"),
        plural(candidates.len(), "candidate", "candidates"),
        whitelisted,
        top,
    )
}

/// `GET /v1/screening/checks`: how many, and how many in each raised band.
pub fn screening_checks(body: &Value) -> String {
    let checks = body
        .get("checks")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let in_band = |band: &str| {
        checks
            .iter()
            .filter(|c| c.get("band").and_then(Value::as_str) == Some(band))
            .count()
    };
    format!(
        "{} (newest first): {} hit, {} review",
        plural(checks.len(), "screening check", "screening checks"),
        in_band("hit"),
        in_band("review"),
    )
}

/// `GET /v1/screening/overrides`: how many versions, and which one is active.
pub fn screening_overrides(body: &Value) -> String {
    let versions = body
        .get("versions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let active = versions
        .iter()
        .find(|v| v.get("status").and_then(Value::as_str) == Some("active"))
        .map_or(
            "none active (the service's policy applies)".to_owned(),
            |v| {
                format!(
                    "version {} ({}) active",
                    v.get("version").and_then(Value::as_u64).unwrap_or(0),
                    text(v, "/id")
                )
            },
        );
    format!(
        "{}; {active}",
        plural(versions.len(), "override version", "override versions"),
    )
}

/// `GET /v1/screening/whitelist`: how many entries, and how many are in effect now.
pub fn screening_whitelist(body: &Value) -> String {
    let entries = body
        .get("entries")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let effective = entries
        .iter()
        .filter(|e| e.get("effective") == Some(&Value::Bool(true)))
        .count();
    format!(
        "{}, {effective} in effect now",
        plural(entries.len(), "whitelist entry", "whitelist entries"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_person_summary_names_markers_and_never_an_address() {
        let protected = json!({"stale": false, "data": {"person_ref": "idr_X", "country": "SE",
            "names": {"given_name": null, "surname": null}, "markers": {"protected": "skyddad",
            "deceased_date": null, "emigrated_date": null}, "address": null, "subject_id": "01S"}});
        assert_eq!(
            person_profile(&protected),
            "Person idr_X (SE): no name given; protected (skyddad): no address is given; subject 01S"
        );
        let emigrated = json!({"person": {"stale": false, "data": {"person_ref": "idr_Y", "country": "SE",
            "names": {"given_name": "Ulf Erik", "surname": "Utvandrare"}, "markers": {"protected": "none",
            "deceased_date": null, "emigrated_date": "2022-05-17"},
            "foreign_address": {"line_1": "Strandvejen 10"}, "subject_id": "01T"}}});
        let s = lookup_person(&emigrated);
        assert_eq!(
            s,
            "Person idr_Y (SE): Ulf Erik Utvandrare; emigrated 2022-05-17; subject 01T"
        );
    }

    #[test]
    fn screening_summaries_name_the_band_and_the_best_entry_never_the_input() {
        let check = json!({"id": "chk_1", "input_kind": "adhoc", "band": "review",
            "input_snapshot": {"name": "Anna Andersson", "orgnr": "se:5560360793"},
            "candidates": [
                {"entity_id": "un_sc:QDi.1", "score": 0.8612, "band": "review", "whitelisted": false,
                 "evidence": {"matched_name": "ANNA ANDERSEN"}},
                {"entity_id": "un_sc:QDi.2", "score": 0.75, "band": "clear", "whitelisted": true,
                 "evidence": {"matched_name": "ANNE"}}]});
        let s = screening_check(&check);
        assert_eq!(
            s,
            "Screening check chk_1 (adhoc): review; 2 candidates, 1 whitelisted; best un_sc:QDi.1 `ANNA ANDERSEN` at 0.8612 (review)"
        );
        assert!(!s.contains("Andersson") && !s.contains("5560360793"));
        let clear =
            json!({"id": "chk_2", "input_kind": "subject", "band": "clear", "candidates": []});
        assert_eq!(
            screening_check(&clear),
            "Screening check chk_2 (subject): clear; 0 candidates"
        );
        assert_eq!(
            screening_checks(&json!({"checks": [check, clear]})),
            "2 screening checks (newest first): 0 hit, 1 review"
        );
        assert_eq!(
            screening_overrides(
                &json!({"versions": [{"id": "ovr_1", "version": 2, "status": "active"},
                {"id": "ovr_0", "version": 1, "status": "retired"}]})
            ),
            "2 override versions; version 2 (ovr_1) active"
        );
        assert_eq!(
            screening_overrides(&json!({"versions": []})),
            "0 override versions; none active (the service's policy applies)"
        );
        assert_eq!(
            screening_whitelist(&json!({"entries": [{"effective": true}, {"effective": false}]})),
            "2 whitelist entries, 1 in effect now"
        );
    }

    #[test]
    fn summaries_are_one_line() {
        let company = json!({"stale": true, "data": {"name": "Demo AB", "orgnr": "5560021361", "country": "SE", "status": "active", "subject_id": "01S"}});
        assert_eq!(
            company_profile(&company),
            "Demo AB (5560021361, SE): active; subject 01S (stale: served from cache, the register could not be asked)"
        );
        let subject_body = json!({"subject_id": "01S", "kind": "company", "identifiers": [{"country": "SE"}], "refs": [], "aliases": ["01S"]});
        assert_eq!(
            subject(&subject_body),
            "Subject 01S (company): 1 identifier (SE), 0 customer references, 1 alias"
        );
        let lookup = json!({"subject": {"subject_id": "01S"}, "company": company});
        assert!(
            lookup_company(&lookup).starts_with("Demo AB (5560021361, SE) is subject 01S: active")
        );
        for s in [
            company_profile(&company),
            subject(&subject_body),
            lookup_company(&lookup),
        ] {
            assert!(!s.contains('\n'));
        }
    }
}
