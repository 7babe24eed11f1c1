//! Lithuania's open data (Spinta "UAPI" at get.data.gov.lt), under [`crate::LT_PREFIX`]:
//!
//! - `GET /datasets/gov/rc/jar/iregistruoti/JuridinisAsmuo?ja_kodas=110443493`
//!   → `{"_data":[{...}],"_page":{"next":...}}`; an unknown code gives `"_data": []`.
//!   Also `select(a,b,forma.pavadinimas)`, `limit(N)`, `page("token")`, `sort(...)`
//!   (ignored: rows come sorted by `ja_kodas`) and `format(json)`.
//! - `GET /datasets/gov/rc/jar/iregistruoti/JuridinisAsmuo/{_id}` (one object).
//! - `GET /datasets/gov/rc/jar/formos_statusai/Forma[/{_id}]` and `.../Statusas[/{_id}]`
//!   (the classifiers that `forma._id` / `statusas._id` point to).

use crate::data::{lt_form_id, lt_status_id, LtCompany, LT_FORMS, LT_STATUSES};
use crate::faults::{Source, Upstream};
use crate::state::SandboxState;
use crate::util::{uuid_from_seed, OrderedObject};
use crate::LT_PREFIX;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use base64::Engine;
use serde::Serialize;
use serde_json::{json, Value};

const JA_TYPE: &str = "datasets/gov/rc/jar/iregistruoti/JuridinisAsmuo";
const FORMA_TYPE: &str = "datasets/gov/rc/jar/formos_statusai/Forma";
const STATUSAS_TYPE: &str = "datasets/gov/rc/jar/formos_statusai/Statusas";

pub(crate) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::scope(LT_PREFIX).default_service(web::to(dispatch)));
}

fn spinta_error(status: StatusCode, code: &str, message: &str) -> HttpResponse {
    HttpResponse::build(status).json(json!({
        "errors": [{
            "type": if status.is_server_error() { "system" } else { "model" },
            "code": code,
            "template": message,
            "context": {},
            "message": message,
        }]
    }))
}

/// The open-data service as the fault injector sees it.
pub(crate) const UPSTREAM: Upstream = Upstream {
    source: Source::Lt,
    error: server_error,
    field_fel: None,
};

/// The 5xx answer for fault injection.
fn server_error(status: StatusCode, _: &HttpRequest) -> HttpResponse {
    spinta_error(
        status,
        if status == StatusCode::GATEWAY_TIMEOUT {
            "GatewayTimeout"
        } else {
            "ServiceUnavailable"
        },
        status.canonical_reason().unwrap_or("Server error"),
    )
}

#[derive(Serialize)]
struct Ref {
    _id: String,
}

#[derive(Serialize)]
struct JaRecord {
    _type: &'static str,
    _id: String,
    _revision: String,
    ja_kodas: u32,
    ja_pavadinimas: String,
    pilnas_adresas: Option<String>,
    adresas: Option<Ref>,
    reg_data: String,
    isreg_data: Option<String>,
    forma: Ref,
    statusas: Ref,
    stat_data: Option<String>,
}

fn revision(c: &LtCompany) -> String {
    uuid_from_seed(&format!(
        "rev:{}:{}:{:?}:{}:{}:{:?}",
        c.ja_kodas, c.ja_pavadinimas, c.pilnas_adresas, c.forma, c.statusas, c.isreg_data
    ))
}

fn record(c: &LtCompany) -> JaRecord {
    JaRecord {
        _type: JA_TYPE,
        _id: c.record_id.clone(),
        _revision: revision(c),
        ja_kodas: c.ja_kodas,
        ja_pavadinimas: c.ja_pavadinimas.clone(),
        pilnas_adresas: c.pilnas_adresas.clone(),
        adresas: c.adresas_id.clone().map(|_id| Ref { _id }),
        reg_data: c.reg_data.clone(),
        isreg_data: c.isreg_data.clone(),
        forma: Ref {
            _id: lt_form_id(c.forma),
        },
        statusas: Ref {
            _id: lt_status_id(c.statusas),
        },
        stat_data: c.stat_data.clone(),
    }
}

fn forma_json(kodas: u32) -> Value {
    let name = LT_FORMS
        .iter()
        .find(|f| f.0 == kodas)
        .map(|f| f.1)
        .unwrap_or("");
    json!({"_type": FORMA_TYPE, "_id": lt_form_id(kodas), "kodas": kodas, "pavadinimas": name})
}

fn statusas_json(kodas: u32) -> Value {
    let name = LT_STATUSES
        .iter()
        .find(|s| s.0 == kodas)
        .map(|s| s.1)
        .unwrap_or("");
    json!({"_type": STATUSAS_TYPE, "_id": lt_status_id(kodas), "kodas": kodas, "pavadinimas": name})
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(if b[i] == b'+' { b' ' } else { b[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[derive(Debug, Default)]
struct SpintaQuery {
    ja_kodas: Option<u32>,
    select: Vec<String>,
    limit: Option<usize>,
    after: Option<u32>,
}

fn parse_query(qs: &str) -> Result<SpintaQuery, Box<HttpResponse>> {
    let mut q = SpintaQuery::default();
    for raw in qs.split('&').filter(|p| !p.is_empty()) {
        let part = percent_decode(raw);
        let bad = |m: &str| Box::new(spinta_error(StatusCode::BAD_REQUEST, "InvalidValue", m));
        if let Some(v) = part.strip_prefix("ja_kodas=") {
            let v = v.trim().trim_matches('"');
            q.ja_kodas = Some(
                v.parse()
                    .map_err(|_| bad(&format!("Invalid value for property ja_kodas: {v}")))?,
            );
        } else if let Some(inner) = part
            .strip_prefix("select(")
            .and_then(|s| s.strip_suffix(')'))
        {
            q.select = inner
                .split(',')
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect();
        } else if let Some(inner) = part
            .strip_prefix("limit(")
            .and_then(|s| s.strip_suffix(')'))
        {
            q.limit = Some(inner.trim().parse().map_err(|_| bad("Invalid limit"))?);
        } else if let Some(inner) = part.strip_prefix("page(").and_then(|s| s.strip_suffix(')')) {
            let token = inner.trim().trim_matches('"');
            let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(token.trim_end_matches('='))
                .or_else(|_| base64::engine::general_purpose::STANDARD.decode(token))
                .map_err(|_| bad("Invalid page token"))?;
            let v: Value = serde_json::from_slice(&raw).map_err(|_| bad("Invalid page token"))?;
            q.after = v.get(0).and_then(Value::as_u64).map(|n| n as u32);
        } else if part.starts_with("sort(") || part.starts_with("format(") {
            // Rows are always sorted by ja_kodas; only JSON is served.
        } else {
            return Err(Box::new(spinta_error(
                StatusCode::BAD_REQUEST,
                "UnknownRequestParameter",
                &format!("Unknown request parameter '{part}'."),
            )));
        }
    }
    Ok(q)
}

fn page_token(c: &LtCompany) -> String {
    let raw = serde_json::to_vec(&json!([c.ja_kodas, c.record_id])).unwrap_or_default();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw)
}

fn project(c: &LtCompany, select: &[String]) -> Value {
    let full = serde_json::to_value(record(c)).unwrap_or(Value::Null);
    if select.is_empty() {
        return full;
    }
    let mut out = OrderedObject::new();
    let mut nested: Vec<(String, OrderedObject)> = Vec::new();
    for s in select {
        match s.split_once('.') {
            Some((parent, child)) => {
                let src = match parent {
                    "forma" => forma_json(c.forma),
                    "statusas" => statusas_json(c.statusas),
                    _ => full.get(parent).cloned().unwrap_or(Value::Null),
                };
                let val = src.get(child).cloned().unwrap_or(Value::Null);
                match nested.iter_mut().find(|(p, _)| p == parent) {
                    Some((_, o)) => o.push(child, val),
                    None => {
                        let mut o = OrderedObject::new();
                        o.push(child, val);
                        nested.push((parent.to_owned(), o));
                    }
                }
            }
            None => out.push(s.clone(), full.get(s).cloned().unwrap_or(Value::Null)),
        }
    }
    for (p, o) in nested {
        out.push(p, serde_json::to_value(o).unwrap_or(Value::Null));
    }
    serde_json::to_value(out).unwrap_or(Value::Null)
}

async fn dispatch(state: web::Data<SandboxState>, req: HttpRequest) -> HttpResponse {
    let st = state.clone();
    let r = req.clone();
    state
        .faults
        .guarded(&UPSTREAM, &req, move |_| async move { answer(&st, &r) })
        .await
}

fn answer(state: &SandboxState, req: &HttpRequest) -> HttpResponse {
    if req.method() != actix_web::http::Method::GET {
        return spinta_error(
            StatusCode::METHOD_NOT_ALLOWED,
            "UnsupportedMethod",
            "Only GET is supported here.",
        );
    }
    let path = req.path()[LT_PREFIX.len()..].trim_end_matches('/');
    let path = path.strip_suffix("/:format/json").unwrap_or(path);
    let ds = state.read();
    let ja = "/datasets/gov/rc/jar/iregistruoti/JuridinisAsmuo";
    let forma = "/datasets/gov/rc/jar/formos_statusai/Forma";
    let statusas = "/datasets/gov/rc/jar/formos_statusai/Statusas";
    if path == ja {
        let q = match parse_query(req.query_string()) {
            Ok(q) => q,
            Err(resp) => return *resp,
        };
        let mut rows: Vec<&LtCompany> = ds
            .lt_companies()
            .iter()
            .filter(|c| q.ja_kodas.is_none_or(|k| c.ja_kodas == k))
            .filter(|c| q.after.is_none_or(|a| c.ja_kodas > a))
            .collect();
        rows.sort_by_key(|c| c.ja_kodas);
        rows.truncate(q.limit.unwrap_or(100));
        let next = rows.last().map(|c| page_token(c));
        let data: Vec<Value> = rows.iter().map(|c| project(c, &q.select)).collect();
        return HttpResponse::Ok().json(json!({ "_data": data, "_page": { "next": next } }));
    }
    if let Some(id) = path.strip_prefix(ja).and_then(|s| s.strip_prefix('/')) {
        return match ds.lt_companies().iter().find(|c| c.record_id == id) {
            Some(c) => HttpResponse::Ok().json(record(c)),
            None => spinta_error(
                StatusCode::NOT_FOUND,
                "ItemDoesNotExist",
                &format!("Resource {id:?} not found."),
            ),
        };
    }
    let classifier = |items: Vec<Value>, rest: &str| -> HttpResponse {
        match rest.strip_prefix('/') {
            None if rest.is_empty() => {
                HttpResponse::Ok().json(json!({ "_data": items, "_page": { "next": null } }))
            }
            Some(id) => match items.into_iter().find(|v| v["_id"] == id) {
                Some(v) => HttpResponse::Ok().json(v),
                None => spinta_error(
                    StatusCode::NOT_FOUND,
                    "ItemDoesNotExist",
                    &format!("Resource {id:?} not found."),
                ),
            },
            None => spinta_error(StatusCode::NOT_FOUND, "ModelNotFound", "Model not found."),
        }
    };
    if let Some(rest) = path.strip_prefix(forma) {
        return classifier(LT_FORMS.iter().map(|f| forma_json(f.0)).collect(), rest);
    }
    if let Some(rest) = path.strip_prefix(statusas) {
        return classifier(
            LT_STATUSES.iter().map(|s| statusas_json(s.0)).collect(),
            rest,
        );
    }
    spinta_error(
        StatusCode::NOT_FOUND,
        "ModelNotFound",
        &format!("Model {path:?} not found."),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_parsing() {
        let q =
            parse_query("ja_kodas=110443493&select(ja_kodas,forma.pavadinimas)&limit(5)").unwrap();
        assert_eq!(q.ja_kodas, Some(110443493));
        assert_eq!(q.select, vec!["ja_kodas", "forma.pavadinimas"]);
        assert_eq!(q.limit, Some(5));
        let q = parse_query("select(ja_kodas%2Cja_pavadinimas)").unwrap();
        assert_eq!(q.select.len(), 2);
        assert!(parse_query("ja_kodas=abc").is_err());
    }

    #[test]
    fn projection_nests_refs() {
        let ds = crate::data::Dataset::standard();
        let c = ds.lt_company(110443493).unwrap();
        let v = project(c, &["ja_kodas".into(), "forma.pavadinimas".into()]);
        assert_eq!(v["ja_kodas"], 110443493);
        assert_eq!(v["forma"]["pavadinimas"], "Akcinė bendrovė");
    }
}
