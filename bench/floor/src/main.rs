//! The floor: one route, `GET /v1/companies/{orgnr}`, doing the least a durable,
//! multi-tenant cached read must do on this stack (actix-web, tokio, diesel-async over a
//! deadpool of PostgreSQL connections), so that idreg's request path has a reference to be
//! measured against on the same machine (`cargo xtask bench --floor`):
//!
//! 1. verify the bearer token's Ed25519 signature and expiry;
//! 2. read the grant by primary key (not revoked, not expired, its tenant the token's, the
//!    scope held);
//! 3. read the tenant's cached company document by primary key, without parsing it;
//! 4. write an audit row and an access row in one transaction, durably (PostgreSQL's
//!    `synchronous_commit` as configured, on by default);
//! 5. answer 200 with the document.
//!
//! Each actix worker has a pool of its own, made on its thread, so a query never changes
//! thread. Not part of the service.
//!
//! Settings (environment): `FLOOR_DATABASE_URL` (required), `FLOOR_LISTEN` (default
//! `127.0.0.1:0`), `FLOOR_WORKERS` (default 2), `FLOOR_POOL_SIZE` (per worker, default 16),
//! `FLOOR_ORGNRS_FILE` (where to write the seeded organisation numbers, one a line). Once it
//! listens it prints one JSON line: `{"url": .., "token": ..}`.

mod store;
mod token;

use actix_web::http::header::{ContentType, AUTHORIZATION};
use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use diesel::{ExpressionMethods as _, OptionalExtension as _, QueryDsl as _};
use diesel_async::{AsyncConnection as _, RunQueryDsl as _};
use ed25519_dalek::{SigningKey, VerifyingKey};
use store::{access_rows, audit_rows, cached_companies, grants, PgPool, RawJson};

const ROUTE: &str = "/v1/companies/{orgnr}";
const SCOPE: &str = "kyb:read";

struct Floor {
    pool: PgPool,
    key: VerifyingKey,
}

fn refusal(status: actix_web::http::StatusCode, code: &'static str) -> HttpResponse {
    HttpResponse::build(status)
        .content_type(ContentType::json())
        .body(format!(r#"{{"error":{{"code":"{code}"}}}}"#))
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

async fn company(
    request: HttpRequest,
    orgnr: web::Path<String>,
    floor: web::Data<Floor>,
) -> HttpResponse {
    use actix_web::http::StatusCode;
    let claims = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .and_then(|t| token::verify(&floor.key, t, now()));
    let Some(claims) = claims else {
        return refusal(StatusCode::UNAUTHORIZED, "unauthorized");
    };
    let orgnr = orgnr.into_inner();
    if orgnr.len() != 10 || !orgnr.bytes().all(|b| b.is_ascii_digit()) {
        return refusal(StatusCode::BAD_REQUEST, "invalid_identifier");
    }
    let Ok(mut conn) = floor.pool.get().await else {
        return refusal(StatusCode::SERVICE_UNAVAILABLE, "unavailable");
    };
    let grant = grants::table
        .filter(grants::id.eq(claims.grant))
        .filter(grants::revoked_at.is_null())
        .filter(grants::expires_at.gt(diesel::dsl::now))
        .select((grants::tenant_id, grants::scopes))
        .first::<(i64, String)>(&mut conn)
        .await
        .optional();
    match grant {
        Ok(Some((tenant, scopes)))
            if tenant == claims.tenant && scopes.split(' ').any(|s| s == SCOPE) => {}
        Ok(_) => return refusal(StatusCode::FORBIDDEN, "forbidden"),
        Err(_) => return refusal(StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
    }
    let doc = cached_companies::table
        .filter(cached_companies::tenant_id.eq(claims.tenant))
        .filter(cached_companies::orgnr.eq(&orgnr))
        .select(cached_companies::doc)
        .first::<RawJson>(&mut conn)
        .await
        .optional();
    let doc = match doc {
        Ok(Some(doc)) => doc,
        Ok(None) => return refusal(StatusCode::NOT_FOUND, "not_found"),
        Err(_) => return refusal(StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
    };
    let (tenant, grant, subject) = (claims.tenant, claims.grant, orgnr.as_str());
    let logged = conn
        .transaction(async move |conn| {
            diesel::insert_into(audit_rows::table)
                .values((
                    audit_rows::tenant_id.eq(tenant),
                    audit_rows::grant_id.eq(grant),
                    audit_rows::action.eq("company.read"),
                    audit_rows::subject.eq(subject),
                ))
                .execute(conn)
                .await?;
            diesel::insert_into(access_rows::table)
                .values((
                    access_rows::tenant_id.eq(tenant),
                    access_rows::grant_id.eq(grant),
                    access_rows::method.eq("GET"),
                    access_rows::route.eq(ROUTE),
                    access_rows::status.eq(200_i16),
                ))
                .execute(conn)
                .await?;
            Ok::<_, diesel::result::Error>(())
        })
        .await;
    if logged.is_err() {
        return refusal(StatusCode::SERVICE_UNAVAILABLE, "unavailable");
    }
    HttpResponse::Ok()
        .content_type(ContentType::json())
        .body(doc.0)
}

fn setting(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_owned())
}

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    let url = std::env::var("FLOOR_DATABASE_URL")
        .map_err(|_| anyhow::anyhow!("FLOOR_DATABASE_URL is required"))?;
    let workers: usize = setting("FLOOR_WORKERS", "2").parse()?;
    let pool_size: usize = setting("FLOOR_POOL_SIZE", "16").parse()?;
    store::prepare(&url).await?;
    if let Ok(file) = std::env::var("FLOOR_ORGNRS_FILE") {
        let orgnrs: String = (0..store::COMPANIES)
            .map(|i| format!("{}\n", store::FIRST_ORGNR + i))
            .collect();
        std::fs::write(file, orgnrs)?;
    }
    let signing = SigningKey::from_bytes(&rand::random());
    let key = signing.verifying_key();
    let token = token::mint(
        &signing,
        &token::Claims {
            tenant: 1,
            grant: 1,
            exp: now() + 24 * 3600,
        },
    );
    let server = HttpServer::new(move || {
        // Made on the worker's own thread: its connections live on this worker's runtime.
        let floor = Floor {
            pool: store::pool(&url, pool_size),
            key,
        };
        App::new()
            .app_data(web::Data::new(floor))
            .route(ROUTE, web::get().to(company))
    })
    .workers(workers)
    .bind(setting("FLOOR_LISTEN", "127.0.0.1:0"))?;
    let address = server.addrs()[0];
    println!(
        "{}",
        serde_json::json!({ "url": format!("http://{address}"), "token": token })
    );
    server.run().await?;
    Ok(())
}
