//! The model that answers when the script is empty: deterministic, small, and enough to
//! demonstrate the portal assistant's tool loop without scripting anything.
//!
//! It reads the last `user` message of the request:
//!
//! 1. when it holds `tool_result` blocks, the answer is a text that names the tools that
//!    answered, cites every `call_ref` found in their results (JSON, walked at any depth) and
//!    the versions of any sanctions `lists`, repeats the first result's `summary`, and reports
//!    each result marked `is_error` with its text;
//! 2. else, when its text holds a Swedish organisation number (ten digits, or six, a hyphen
//!    and four; third digit at least 2) and `get_company_profile` is offered, it calls that
//!    tool with `{"orgnr": "<ten digits>"}`, adding `get_officers` and `get_signatories` (same
//!    argument, when offered) if the text asks about officers, the board, who signs or
//!    sanctions;
//! 3. else, when its text holds an identifier ref (a word starting `idr_`) and
//!    `get_person_profile` is offered, it calls that with `{"ref": "<the ref>"}`;
//! 4. else it answers a short help text saying what it can do.
//!
//! The argument names are those of idreg's MCP tools (`OrgnrArgs`, `PersonRefArgs`).

use super::script::Part;
use serde_json::{json, Value};
use std::collections::HashMap;

/// The answer to a request body (already checked): its content and stop reason.
pub(super) fn reply(body: &Value) -> (Vec<Part>, &'static str) {
    let messages: &[Value] = body
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let last_user = messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"));
    let Some(content) = last_user.and_then(|m| m.get("content")) else {
        return (vec![Part::Text(help(None, None))], "end_turn");
    };
    let results: Vec<&Value> = blocks(content)
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        .collect();
    if !results.is_empty() {
        let text = summarise(&results, &tool_names(messages));
        return (vec![Part::Text(text)], "end_turn");
    }

    let text = text_of(content);
    let offered: Vec<&str> = body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .collect();
    let offers = |name: &str| offered.contains(&name);

    let orgnr = find_orgnr(&text);
    if let Some(orgnr) = orgnr.as_deref().filter(|_| offers("get_company_profile")) {
        let input = json!({ "orgnr": orgnr });
        let mut tools = vec![Part::Tool {
            name: "get_company_profile".into(),
            input: input.clone(),
        }];
        if asks_about_roles(&text) {
            for name in ["get_officers", "get_signatories"] {
                if offers(name) {
                    tools.push(Part::Tool {
                        name: name.into(),
                        input: input.clone(),
                    });
                }
            }
        }
        let what = if tools.len() > 1 {
            "its profile, officers and signatories"
        } else {
            "its profile"
        };
        let preface = format!(
            "I'll look up {}-{} in the register: {what}.",
            &orgnr[..6],
            &orgnr[6..]
        );
        let mut parts = vec![Part::Text(preface)];
        parts.extend(tools);
        return (parts, "tool_use");
    }

    let person_ref = find_ref(&text);
    if let Some(r) = person_ref
        .as_deref()
        .filter(|_| offers("get_person_profile"))
    {
        return (
            vec![
                Part::Text(format!("I'll fetch the person profile of {r}.")),
                Part::Tool {
                    name: "get_person_profile".into(),
                    input: json!({ "ref": r }),
                },
            ],
            "tool_use",
        );
    }
    (
        vec![Part::Text(help(orgnr.as_deref(), person_ref.as_deref()))],
        "end_turn",
    )
}

/// The help text, noting an identifier it saw but had no tool for.
fn help(orgnr: Option<&str>, person_ref: Option<&str>) -> String {
    let mut text = String::new();
    if let Some(o) = orgnr {
        text.push_str(&format!(
            "I see the organisation number {o}, but no get_company_profile tool was offered to \
             me. "
        ));
    } else if let Some(r) = person_ref {
        text.push_str(&format!(
            "I see the identifier ref {r}, but no get_person_profile tool was offered to me. "
        ));
    }
    text.push_str(
        "I am idreg's sandbox model, a scripted stand-in for a real language model. Give me a \
         Swedish organisation number (such as 556002-1361) and I will fetch the company's \
         profile, and its officers and signatories when you ask who signs; give me a \
         person's identifier ref (idr_…) and I will fetch the person's profile. When the tools \
         have answered I sum up what they said and cite their evidence.",
    );
    text
}

/// The blocks of a message content (none for a plain string).
fn blocks(content: &Value) -> impl Iterator<Item = &Value> {
    content.as_array().into_iter().flatten()
}

/// The text of a content: the string itself, or its text blocks joined by newlines.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        other => texts(other).collect::<Vec<_>>().join("\n"),
    }
}

/// The texts of the text blocks of a content (or the string itself).
fn texts(content: &Value) -> impl Iterator<Item = &str> {
    content.as_str().into_iter().chain(
        blocks(content)
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str)),
    )
}

/// The name of each tool call of the conversation, by its id.
fn tool_names(messages: &[Value]) -> HashMap<&str, &str> {
    messages
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .filter_map(|m| m.get("content"))
        .flat_map(blocks)
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .filter_map(|b| {
            Some((
                b.get("id").and_then(Value::as_str)?,
                b.get("name").and_then(Value::as_str)?,
            ))
        })
        .collect()
}

/// What the tool results cite.
#[derive(Default)]
struct Evidence {
    call_refs: Vec<String>,
    list_versions: Vec<String>,
}

fn push_unique(list: &mut Vec<String>, value: String) {
    if !list.contains(&value) {
        list.push(value);
    }
}

impl Evidence {
    /// Collects every `call_ref` string, and the `list_version` or `version` of each item of
    /// a `lists` array, at any depth.
    fn walk(&mut self, v: &Value) {
        match v {
            Value::Object(map) => {
                for (key, value) in map {
                    if key == "call_ref" {
                        if let Some(r) = value.as_str() {
                            push_unique(&mut self.call_refs, r.to_owned());
                        }
                    }
                    if key == "lists" {
                        for item in value.as_array().into_iter().flatten() {
                            let version = item.get("list_version").or_else(|| item.get("version"));
                            match version {
                                Some(Value::String(s)) => {
                                    push_unique(&mut self.list_versions, s.clone())
                                }
                                Some(Value::Number(n)) => {
                                    push_unique(&mut self.list_versions, n.to_string())
                                }
                                _ => {}
                            }
                        }
                    }
                    self.walk(value);
                }
            }
            Value::Array(items) => items.iter().for_each(|i| self.walk(i)),
            _ => {}
        }
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The answer once the tools have answered.
fn summarise(results: &[&Value], names: &HashMap<&str, &str>) -> String {
    let mut answered: Vec<&str> = Vec::new();
    let mut failed: Vec<(&str, String)> = Vec::new();
    let mut evidence = Evidence::default();
    let mut summary: Option<String> = None;
    for result in results {
        let id = result
            .get("tool_use_id")
            .and_then(Value::as_str)
            .unwrap_or("?");
        let tool = names.get(id).copied().unwrap_or(id);
        let content = result.get("content").unwrap_or(&Value::Null);
        if result.get("is_error").and_then(Value::as_bool) == Some(true) {
            failed.push((tool, text_of(content)));
            continue;
        }
        if !answered.contains(&tool) {
            answered.push(tool);
        }
        for text in texts(content) {
            let Ok(json) = serde_json::from_str::<Value>(text.trim()) else {
                continue;
            };
            evidence.walk(&json);
            if summary.is_none() {
                summary = json
                    .get("summary")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
            }
        }
    }

    let mut out = Vec::new();
    if answered.is_empty() {
        out.push("The tools could not answer.".to_owned());
    } else {
        let cited = if evidence.call_refs.is_empty() {
            String::new()
        } else {
            format!(" (evidence: {})", evidence.call_refs.join(", "))
        };
        out.push(format!(
            "Here is what the register says, from {}{cited}.",
            and_list(&answered)
        ));
        if let Some(s) = summary {
            out.push(s);
        }
        if !evidence.list_versions.is_empty() {
            out.push(format!(
                "Sanctions list versions: {}.",
                evidence.list_versions.join(", ")
            ));
        }
        if evidence.call_refs.is_empty() {
            out.push("No evidence reference came with the results.".to_owned());
        }
    }
    for (tool, text) in failed {
        out.push(format!("The tool {tool} reported an error: {text}"));
    }
    out.join(" ")
}

/// The first Swedish organisation number in a text, as ten digits: ten digits, or six, a
/// hyphen and four, with no digit right before or after, and a third digit of at least 2 (so
/// a personal number, whose third digit is a month's first, is not taken).
pub(super) fn find_orgnr(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let digits = |from: usize, n: usize| {
        b.get(from..from + n)
            .is_some_and(|s| s.iter().all(u8::is_ascii_digit))
    };
    let free = |at: usize| b.get(at).is_none_or(|c| !c.is_ascii_digit());
    (0..b.len())
        .filter(|&i| i == 0 || !b[i - 1].is_ascii_digit())
        .find_map(|i| {
            let found = if digits(i, 10) && free(i + 10) {
                text[i..i + 10].to_owned()
            } else if digits(i, 6)
                && b.get(i + 6) == Some(&b'-')
                && digits(i + 7, 4)
                && free(i + 11)
            {
                format!("{}{}", &text[i..i + 6], &text[i + 7..i + 11])
            } else {
                return None;
            };
            (found.as_bytes()[2] >= b'2').then_some(found)
        })
}

/// The first identifier ref (`idr_…`) in a text.
pub(super) fn find_ref(text: &str) -> Option<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .find(|w| w.len() > 4 && w.starts_with("idr_"))
        .map(str::to_owned)
}

/// True when a text asks about officers, the board, who signs, or sanctions.
fn asks_about_roles(text: &str) -> bool {
    const STEMS: [&str; 8] = [
        "officer",
        "board",
        "director",
        "sign",
        "sanction",
        "styrelse",
        "firmateckn",
        "sanktion",
    ];
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| STEMS.iter().any(|s| w.starts_with(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts_json(parts: &[Part]) -> Vec<Value> {
        parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => json!({ "text": t }),
                Part::Tool { name, input } => json!({ "tool": name, "input": input }),
                Part::CutTool { name, .. } => json!({ "cut": name }),
            })
            .collect()
    }

    #[test]
    fn organisation_numbers() {
        assert_eq!(
            find_orgnr("Vem är 5560021361?").as_deref(),
            Some("5560021361")
        );
        assert_eq!(
            find_orgnr("about 556002-1361, please").as_deref(),
            Some("5560021361")
        );
        // A personal number (third digit a month's first), a 12-digit number, too few digits.
        assert_eq!(find_orgnr("570413-3106"), None);
        assert_eq!(find_orgnr("195704133106"), None);
        assert_eq!(find_orgnr("19570413-3106"), None);
        assert_eq!(find_orgnr("55600213611"), None);
        assert_eq!(find_orgnr("556002136"), None);
        assert_eq!(
            find_orgnr("x 123 then 7020008350").as_deref(),
            Some("7020008350")
        );
    }

    #[test]
    fn identifier_refs() {
        assert_eq!(
            find_ref("Who is idr_01JB2XK3M4N5P6Q7R8S9T0V1W2?").as_deref(),
            Some("idr_01JB2XK3M4N5P6Q7R8S9T0V1W2")
        );
        assert_eq!(find_ref("idr_ alone"), None);
    }

    fn tools(names: &[&str]) -> Value {
        Value::Array(
            names
                .iter()
                .map(|n| json!({"name": n, "input_schema": {"type": "object"}}))
                .collect(),
        )
    }

    #[test]
    fn asks_for_the_company_and_its_signatories() {
        let body = json!({
            "model": "m", "max_tokens": 100,
            "tools": tools(&["get_company_profile", "get_officers", "get_signatories"]),
            "messages": [{"role": "user", "content": "Who signs for 556002-1361?"}]
        });
        let (parts, stop) = reply(&body);
        assert_eq!(stop, "tool_use");
        let p = parts_json(&parts);
        assert_eq!(p.len(), 4);
        assert_eq!(
            p[1],
            json!({"tool": "get_company_profile", "input": {"orgnr": "5560021361"}})
        );
        assert_eq!(
            p[2],
            json!({"tool": "get_officers", "input": {"orgnr": "5560021361"}})
        );
        assert_eq!(
            p[3],
            json!({"tool": "get_signatories", "input": {"orgnr": "5560021361"}})
        );

        let body = json!({
            "model": "m", "max_tokens": 100,
            "tools": tools(&["get_company_profile"]),
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Profile of 5560021361"}]}]
        });
        let (parts, _) = reply(&body);
        assert_eq!(parts.len(), 2);
    }

    #[test]
    fn without_tools_it_helps() {
        let body = json!({
            "model": "m", "max_tokens": 100,
            "messages": [{"role": "user", "content": "Who signs for 556002-1361?"}]
        });
        let (parts, stop) = reply(&body);
        assert_eq!(stop, "end_turn");
        let p = parts_json(&parts);
        let text = p[0]["text"].as_str().unwrap();
        assert!(text.contains("no get_company_profile tool"), "{text}");
        assert!(text.contains("sandbox model"), "{text}");
    }

    #[test]
    fn sums_up_tool_results_with_their_evidence() {
        let body = json!({
            "model": "m", "max_tokens": 100,
            "messages": [
                {"role": "user", "content": "Who signs for 556002-1361?"},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "toolu_a", "name": "get_company_profile", "input": {}},
                    {"type": "tool_use", "id": "toolu_b", "name": "get_officers", "input": {}},
                    {"type": "tool_use", "id": "toolu_c", "name": "screen_subject", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_a", "content":
                        json!({"summary": "Testbolag AB, active.", "data": {"name": {"value": "Testbolag AB", "evidence": {"call_ref": "call_01A"}}}}).to_string()},
                    {"type": "tool_result", "tool_use_id": "toolu_b", "content": [{"type": "text", "text":
                        json!({"officers": [{"evidence": {"call_ref": "call_01B"}}, {"evidence": {"call_ref": "call_01A"}}]}).to_string()}]},
                    {"type": "tool_result", "tool_use_id": "toolu_c", "content":
                        json!({"lists": [{"list": "un", "list_version": "UN-2026-10-01"}, {"list": "eu", "version": 7}]}).to_string()},
                    {"type": "tool_result", "tool_use_id": "toolu_d", "is_error": true, "content": "forbidden for this tenant"}]}
            ]
        });
        let (parts, stop) = reply(&body);
        assert_eq!(stop, "end_turn");
        let text = parts_json(&parts)[0]["text"].as_str().unwrap().to_owned();
        assert!(
            text.starts_with("Here is what the register says, from get_company_profile, get_officers and screen_subject (evidence: call_01A, call_01B)."),
            "{text}"
        );
        assert!(text.contains("Testbolag AB, active."), "{text}");
        assert!(text.contains("UN-2026-10-01, 7"), "{text}");
        assert!(
            text.contains("The tool toolu_d reported an error: forbidden for this tenant"),
            "{text}"
        );
    }
}
