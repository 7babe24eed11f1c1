//! SCB's företagsregister API ("Sök på var", JE = juridiska enheter), under
//! [`crate::SCB_PREFIX`]: `POST /api/je/hamtaforetag` and `POST /api/je/raknaforetag`
//! (paths case-insensitive, as the ASP.NET original; the real prefix
//! `/nv0101/v1/sokpavar` is accepted too).
//!
//! The answer is a flat JSON array of rows with SCB's Swedish column names, every value a
//! string; an unknown organisation gives `[]`. The real service authenticates with a
//! client certificate plus an API id; the sandbox requires a non-empty `api-id` (or
//! `APIId`) header and no certificate.

use crate::data::{employees_class_text, Company, Dataset};
use crate::faults::{Source, Upstream};
use crate::state::SandboxState;
use crate::util::OrderedObject;
use crate::SCB_PREFIX;
use actix_web::http::{Method, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use serde_json::Value;

/// Most rows one `hamtaforetag` returns.
pub const MAX_ROWS: usize = 2000;

pub(crate) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::scope(SCB_PREFIX).default_service(web::to(dispatch)));
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Hamta,
    Rakna,
}

async fn dispatch(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    let lower = req.path()[SCB_PREFIX.len()..].to_lowercase();
    let path = lower.strip_prefix("/nv0101/v1/sokpavar").unwrap_or(&lower);
    let op = match path.trim_end_matches('/') {
        "/api/je/hamtaforetag" => Op::Hamta,
        "/api/je/raknaforetag" => Op::Rakna,
        _ => {
            return HttpResponse::NotFound()
                .content_type("text/plain; charset=utf-8")
                .body("Not Found")
        }
    };
    if req.method() != Method::POST {
        return HttpResponse::MethodNotAllowed()
            .json(serde_json::json!({"Message": "The requested resource does not support this http method."}));
    }
    let st = state.clone();
    let r = req.clone();
    state
        .faults
        .guarded(&UPSTREAM, &req, move |_| async move {
            if st.require_scb_api_id && !has_api_id(&r) {
                return HttpResponse::Unauthorized()
                    .content_type("text/plain; charset=utf-8")
                    .body("Unauthorized: api-id header missing");
            }
            let query = match parse_query(&body) {
                Ok(q) => q,
                Err(msg) => {
                    return HttpResponse::BadRequest().json(serde_json::json!({ "Message": msg }))
                }
            };
            let ds = st.read();
            let hits = match select(&ds, &query) {
                Ok(h) => h,
                Err(msg) => {
                    return HttpResponse::BadRequest().json(serde_json::json!({ "Message": msg }))
                }
            };
            match op {
                Op::Rakna => HttpResponse::Ok().json(hits.len()),
                Op::Hamta => {
                    let rows: Vec<OrderedObject> =
                        hits.iter().take(MAX_ROWS).map(|c| row(c)).collect();
                    HttpResponse::Ok().json(rows)
                }
            }
        })
        .await
}

fn has_api_id(req: &HttpRequest) -> bool {
    ["api-id", "apiid"].iter().any(|h| {
        req.headers()
            .get(*h)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| !v.trim().is_empty())
    })
}

#[derive(Debug, Default)]
struct Variabel {
    variabel: String,
    operator: String,
    varde1: String,
}

#[derive(Debug, Default)]
struct Query {
    foretagsstatus: Option<String>,
    variabler: Vec<Variabel>,
}

/// A key of a JSON object, matched case-insensitively (ASP.NET model binding).
fn get_ci<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.as_object()?
        .iter()
        .find(|(k, _)| k.to_lowercase() == key)
        .map(|(_, v)| v)
}

fn as_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

fn parse_query(body: &[u8]) -> Result<Query, String> {
    let v: Value =
        serde_json::from_slice(body).map_err(|_| "The request is invalid.".to_owned())?;
    if !v.is_object() {
        return Err("The request is invalid.".into());
    }
    let mut q = Query {
        foretagsstatus: get_ci(&v, "företagsstatus").map(|x| as_text(Some(x))),
        variabler: Vec::new(),
    };
    if let Some(list) = get_ci(&v, "variabler") {
        let list = list
            .as_array()
            .ok_or_else(|| "Variabler måste vara en lista.".to_owned())?;
        for item in list {
            q.variabler.push(Variabel {
                variabel: as_text(get_ci(item, "variabel")),
                operator: as_text(get_ci(item, "operator")),
                varde1: as_text(get_ci(item, "varde1")),
            });
        }
    }
    Ok(q)
}

fn digits(s: &str) -> String {
    s.chars().filter(char::is_ascii_digit).collect()
}

fn pe_org_nr(c: &Company) -> String {
    if c.id.len() == 12 {
        c.id.clone()
    } else {
        format!("16{}", c.id)
    }
}

fn text_match(op: &str, value: &str, wanted: &str) -> Result<bool, String> {
    let (v, w) = (value.to_lowercase(), wanted.to_lowercase());
    match op.to_lowercase().as_str() {
        "arlikamed" => Ok(v == w),
        "innehaller" => Ok(v.contains(&w)),
        "borjarpa" => Ok(v.starts_with(&w)),
        _ => Err(format!("Operatorn '{op}' stöds inte för variabeln.")),
    }
}

fn select<'a>(ds: &'a Dataset, q: &Query) -> Result<Vec<&'a Company>, String> {
    let mut out = Vec::new();
    for c in ds.companies() {
        let Some(s) = &c.scb else { continue };
        match q.foretagsstatus.as_deref() {
            Some("1") if !s.verksam => continue,
            Some("0") if s.verksam => continue,
            _ => {}
        }
        let mut keep = true;
        for var in &q.variabler {
            let name = var.variabel.to_lowercase();
            let ok = if name.starts_with("orgnr") {
                if !var.operator.eq_ignore_ascii_case("arlikamed") {
                    return Err(format!(
                        "Operatorn '{}' stöds inte för variabeln.",
                        var.operator
                    ));
                }
                c.orgnr10() == digits(&var.varde1)
            } else if name.starts_with("peorgnr") {
                pe_org_nr(c) == digits(&var.varde1)
            } else if name == "namn" || name == "företagsnamn" {
                text_match(&var.operator, &s.namn, var.varde1.trim())?
            } else {
                return Err(format!("Variabeln '{}' finns inte.", var.variabel));
            };
            keep &= ok;
        }
        if keep {
            out.push(c);
        }
    }
    Ok(out)
}

/// One `hamtaforetag` row (column order as SCB lists them).
pub fn row(c: &Company) -> OrderedObject {
    let mut r = OrderedObject::new();
    let Some(s) = &c.scb else { return r };
    let t = c.tax.unwrap_or(crate::data::TaxRecord {
        f_skatt: false,
        moms: false,
        arbetsgivare: false,
    });
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    r.push("PeOrgNr", pe_org_nr(c));
    r.push("OrgNr", c.orgnr10());
    r.push("Företagsnamn", s.namn.clone());
    r.push("COAdress", opt(&s.postadress.co_adress));
    r.push("PostAdress", opt(&s.postadress.utdelningsadress));
    r.push("PostNr", opt(&s.postadress.postnummer));
    r.push("PostOrt", opt(&s.postadress.postort));
    let seat = s.seat.clone();
    r.push(
        "Säteskommun, kod",
        seat.as_ref()
            .map(|x| x.kommun_kod.clone())
            .unwrap_or_default(),
    );
    r.push(
        "Säteskommun",
        seat.as_ref().map(|x| x.kommun.clone()).unwrap_or_default(),
    );
    r.push(
        "Säteslän, kod",
        seat.as_ref().map(|x| x.lan_kod.clone()).unwrap_or_default(),
    );
    r.push("Säteslän", seat.map(|x| x.lan).unwrap_or_default());
    r.push("Antal arbetsställen", s.workplaces.to_string());
    r.push("Stkl, kod", s.employees_class.clone());
    r.push("Storleksklass", employees_class_text(&s.employees_class));
    r.push("Företagsstatus, kod", if s.verksam { "1" } else { "0" });
    r.push(
        "Företagsstatus",
        if s.verksam {
            "Är verksam"
        } else {
            "Ej verksam"
        },
    );
    r.push("Registrerad hos SKV, kod", "1");
    r.push("Registrerad hos SKV", "Registrerad");
    r.push("Juridisk form, kod", s.juridisk_form.kod.clone());
    r.push("Juridisk form", s.juridisk_form.klartext.clone());
    r.push("Registreringsdatum", opt(&s.registreringsdatum));
    for i in 0..5 {
        let (k, t) = s
            .sni
            .get(i)
            .map(|x| (x.kod.clone(), x.klartext.clone()))
            .unwrap_or_else(|| ("     ".to_owned(), String::new()));
        r.push(format!("Bransch_{}, kod", i + 1), k);
        r.push(format!("Bransch_{}", i + 1), t);
    }
    r.push("Reklam, kod", if s.reklamsparr { "21" } else { "11" });
    r.push(
        "Reklam",
        if s.reklamsparr {
            "Reklamspärrad"
        } else {
            "Ej reklamspärrad"
        },
    );
    r.push("Fskattstatus, kod", if t.f_skatt { "1" } else { "0" });
    r.push(
        "Fskattstatus",
        if t.f_skatt {
            "Är registrerad för F-skatt"
        } else {
            "Är inte registrerad för F-skatt"
        },
    );
    r.push("Momsstatus, kod", if t.moms { "1" } else { "0" });
    r.push(
        "Momsstatus",
        if t.moms {
            "Är registrerad för moms"
        } else {
            "Är inte registrerad för moms"
        },
    );
    r.push(
        "Arbetsgivarstatus, kod",
        if t.arbetsgivare { "1" } else { "0" },
    );
    r.push(
        "Arbetsgivarstatus",
        if t.arbetsgivare {
            "Är registrerad som vanlig arbetsgivare"
        } else {
            "Är inte registrerad som arbetsgivare"
        },
    );
    r
}

/// SCB's företagsregister as the fault injector sees it: it fails in plain text.
pub(crate) const UPSTREAM: Upstream = Upstream {
    source: Source::Scb,
    error: server_error,
    field_fel: None,
};

fn server_error(status: StatusCode, _: &HttpRequest) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("text/plain; charset=utf-8")
        .body(status.canonical_reason().unwrap_or("Service Unavailable"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testnr;

    #[test]
    fn rows_are_strings_with_padded_branches() {
        let ds = Dataset::standard();
        let c = ds.company(testnr::HB).unwrap();
        let v = serde_json::to_value(row(c)).unwrap();
        let o = v.as_object().unwrap();
        assert!(o.values().all(Value::is_string));
        assert_eq!(o["PeOrgNr"], "169124001992");
        assert_eq!(o["Bransch_1, kod"], "68204");
        assert_eq!(o["Bransch_2, kod"], "     ");
        assert_eq!(o["Juridisk form, kod"], "53");
    }

    #[test]
    fn queries() {
        let ds = Dataset::standard();
        let q = parse_query(
            r#"{"Företagsstatus":"1","Registreringsstatus":"1","variabler":[{"Variabel":"OrgNr (10 siffror)","Operator":"ArLikaMed","Varde1":"9124001992","Varde2":""}]}"#
                .as_bytes(),
        )
        .unwrap();
        assert_eq!(select(&ds, &q).unwrap().len(), 1);
        let q = parse_query(
            br#"{"Variabler":[{"Variabel":"OrgNr (10 siffror)","Operator":"ArLikaMed","Varde1":"5567223705"}]}"#,
        )
        .unwrap();
        assert!(select(&ds, &q).unwrap().is_empty(), "missing at SCB");
        let q = parse_query(
            br#"{"variabler":[{"Variabel":"Nope","Operator":"ArLikaMed","Varde1":"x"}]}"#,
        )
        .unwrap();
        assert!(select(&ds, &q).is_err());
    }
}
