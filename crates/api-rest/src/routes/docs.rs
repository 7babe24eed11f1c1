//! The served documentation of the error codes: the page each problem details `type` URI
//! names (`/docs/errors/{code}`), and their index. No credential, no tenant data, not
//! audited; the text is the contract's own (`api_core::codes`: each code's condition and title).

use actix_web::http::header;
use actix_web::{web, HttpResponse};
use api_core::codes::{condition, title};
use api_core::problem::ERROR_DOCS_PATH;
use domain::ErrorCode;

/// HTML text of a plain string.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Escaped text with the contract's `code` spans as `<code>`.
fn prose(text: &str) -> String {
    escape(text)
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("<code>{part}</code>")
            } else {
                part.to_owned()
            }
        })
        .collect()
}

fn page(heading: &str, body: &str) -> HttpResponse {
    let html = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{heading} · idreg</title>\n\
         <style>body{{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#111;background:#fff}}\
         code,pre{{font-family:ui-monospace,monospace;background:#f2f2f2;padding:0 .2em}}pre{{padding:.6em;overflow-x:auto}}\
         a{{color:#0b4f9c}}table{{border-collapse:collapse}}td,th{{text-align:left;padding:.2em .6em;border-bottom:1px solid #ddd}}</style>\n\
         </head>\n<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n"
    );
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/html; charset=utf-8"))
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .body(html)
}

/// The index of every error code.
#[utoipa::path(
    get,
    path = "/docs/errors",
    operation_id = "get_error_docs",
    tag = "contract",
    security(()),
    responses((status = 200, description = "Every error code with its status and title (HTML)", body = String, content_type = "text/html"))
)]
pub async fn index() -> HttpResponse {
    let rows: String = ErrorCode::ALL
        .iter()
        .map(|code| {
            format!(
                "<tr><td><a href=\"{ERROR_DOCS_PATH}/{c}\"><code>{c}</code></a></td><td>{s}</td><td>{t}</td></tr>\n",
                c = code.as_str(),
                s = code.status(),
                t = escape(title(*code)),
            )
        })
        .collect();
    page(
        "Error codes",
        &format!(
            "<h1>Error codes</h1>\n<p>Every error answer is <code>{{\"error\": &lt;code&gt;, \"message\": &lt;text&gt;}}</code>; \
             clients act on the code. A request whose <code>Accept</code> names <code>application/problem+json</code> \
             gets the same answer as RFC 9457 problem details, whose <code>type</code> is the code's page below.</p>\n\
             <table>\n<thead><tr><th scope=\"col\">Code</th><th scope=\"col\">Status</th><th scope=\"col\">Title</th></tr></thead>\n<tbody>\n{rows}</tbody>\n</table>"
        ),
    )
}

/// One error code's page: the `type` of its problem details.
#[utoipa::path(
    get,
    path = "/docs/errors/{code}",
    operation_id = "get_error_doc",
    tag = "contract",
    security(()),
    params(("code" = String, Path, description = "An error code of the interface", pattern = "^[a-z_]{1,40}$")),
    responses(
        (status = 200, description = "The code's page (HTML)", body = String, content_type = "text/html"),
        (status = 404, description = "No such code", body = api_core::ErrorBody),
    )
)]
pub async fn code(code: web::Path<String>) -> HttpResponse {
    let Some(code) = ErrorCode::ALL.iter().find(|c| c.as_str() == code.as_str()) else {
        use actix_web::ResponseError;
        return api_core::ApiError(domain::Failure::new(
            ErrorCode::NotFound,
            "no such error code; the index lists every code",
        ))
        .error_response();
    };
    let name = code.as_str();
    let example = serde_json::json!({
        "type": format!("https://idreg.example{ERROR_DOCS_PATH}/{name}"),
        "title": title(*code),
        "status": code.status(),
        "detail": "what happened this time",
        "instance": "urn:idreg:request:req_01JCZ7Q4S3Y6T4N2M5R8V9W0XA",
        "error": name,
        "message": "what happened this time",
    });
    let example = serde_json::to_string_pretty(&example).unwrap_or_default();
    page(
        name,
        &format!(
            "<p><a href=\"{ERROR_DOCS_PATH}\">Error codes</a></p>\n<h1><code>{name}</code></h1>\n\
             <p><strong>{title}</strong> — HTTP {status}.</p>\n<h2>When</h2>\n<p>{when}</p>\n\
             <h2>The answer</h2>\n<p>The body is <code>{{\"error\": \"{name}\", \"message\": …}}</code>. \
             With <code>Accept: application/problem+json</code> it is RFC 9457 problem details:</p>\n<pre>{example}</pre>\n\
             <p><code>instance</code> names the request by its id, the <code>X-Request-Id</code> of the answer, which the \
             operator finds in the audit trail. Messages never repeat an identifier the request carried.</p>",
            title = escape(title(*code)),
            status = code.status(),
            when = prose(condition(*code)),
            example = escape(&example),
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_code_spans_are_marked() {
        assert_eq!(
            prose("`<origin>/mcp` & more"),
            "<code>&lt;origin&gt;/mcp</code> &amp; more"
        );
    }
}
