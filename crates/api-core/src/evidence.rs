//! The evidence a response body names, read off its wire form: every `call_ref` (an upstream
//! call record) and the sanctions list versions a check was made against
//! (`source_version_ids`). The portal assistant cites them (`api-mcp`'s tool layer) and its
//! page shows them (`api-portal`).

use domain::assistant::ports::Citation;
use serde_json::Value;

/// Each `call_ref` and list version of `body`, once, in the order found.
pub fn citations(body: &Value) -> Vec<Citation> {
    let mut out = Vec::new();
    collect(body, &mut out);
    out
}

fn collect(body: &Value, out: &mut Vec<Citation>) {
    match body {
        Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("call_ref", Value::String(r)) => push(out, Citation::Call(r.clone())),
                    ("source_version_ids", Value::Array(ids)) => {
                        for id in ids.iter().filter_map(Value::as_str) {
                            push(out, Citation::ListVersion(id.to_owned()));
                        }
                    }
                    _ => collect(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
        _ => {}
    }
}

fn push(out: &mut Vec<Citation>, c: Citation) {
    if !out.contains(&c) {
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn call_refs_and_list_versions_are_cited_once() {
        let body = json!({
            "data": {"name": {"value": "X", "evidence": {"call_ref": "call_A"}},
                     "status": {"evidence": {"call_ref": "call_A"}}},
            "check": {"source_version_ids": ["lv_1", "lv_2"]},
            "more": [{"call_ref": "call_B"}]
        });
        let out = citations(&body);
        assert_eq!(out.len(), 4, "{out:?}");
        for c in [
            Citation::Call("call_A".into()),
            Citation::Call("call_B".into()),
            Citation::ListVersion("lv_1".into()),
            Citation::ListVersion("lv_2".into()),
        ] {
            assert!(out.contains(&c), "{c:?}");
        }
        assert!(citations(&json!({"name": "no evidence"})).is_empty());
    }
}
