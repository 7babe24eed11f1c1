//! The default run: the service with a demo tenant and grant made on first run, and a
//! ready curl walk-through printed on start. No hand-made configuration.
//!
//! The grant's ids are kept in `<state_dir>/demo.json`; its secret is never written down:
//! every start rotates it and prints the new one.

use crate::app::App;
use crate::cli::ServeArgs;
use crate::config::Config;
use anyhow::Context;
use domain::admin::{NewGrant, NewTenant};
use domain::country::{Country, CountrySet};
use domain::scope::{Scope, ScopeSet};
use domain::tenant::PermitStatus;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct DemoState {
    tenant_id: String,
    grant_id: String,
    client_id: String,
}

/// The demo's credentials for this run.
pub struct DemoCredentials {
    pub tenant_id: String,
    pub grant_id: String,
    pub client_id: String,
    pub client_secret: String,
}

/// Finds the demo tenant and grant (creating them on first run) and issues a fresh secret.
pub async fn ensure_demo_tenant(app: &App) -> anyhow::Result<DemoCredentials> {
    let admin = &app.services.admin;
    let path = app.config.state_dir.join("demo.json");
    let existing: Option<DemoState> = match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).ok(),
        Err(_) => None,
    };
    if let Some(state) = existing {
        // The database may have been reset since: only reuse what still exists.
        if admin.tenant(&state.tenant_id).await.is_ok() {
            if let Ok(issued) = admin.rotate_secret(&state.grant_id).await {
                if issued.grant.revoked_at.is_none() {
                    return Ok(DemoCredentials {
                        tenant_id: state.tenant_id,
                        grant_id: state.grant_id,
                        client_id: issued.grant.client_id.to_string(),
                        client_secret: issued.client_secret.expose().to_owned(),
                    });
                }
            }
        }
    }

    let both: CountrySet = [Country::Se, Country::Lt].into_iter().collect();
    let tenant = admin
        .create_tenant(NewTenant {
            name: "Demo Tenant AB".into(),
            own_country: Country::Se,
            provisioned: Some(both.clone()),
            activate: true,
        })
        .await
        .map_err(|f| anyhow::anyhow!("{f}"))?;
    let today = chrono::Utc::now().date_naive();
    admin
        .set_permit(
            &tenant.id.to_string(),
            today - chrono::Duration::days(1),
            today + chrono::Duration::days(365),
            PermitStatus::Active,
        )
        .await
        .map_err(|f| anyhow::anyhow!("{f}"))?;
    let issued = admin
        .create_grant(NewGrant {
            tenant_id: tenant.id,
            scopes: Scope::CONSUMER.into_iter().collect::<ScopeSet>(),
            countries: both,
            expires_at: None,
        })
        .await
        .map_err(|f| anyhow::anyhow!("{f}"))?;
    let state = DemoState {
        tenant_id: tenant.id.to_string(),
        grant_id: issued.grant.id.to_string(),
        client_id: issued.grant.client_id.to_string(),
    };
    std::fs::create_dir_all(&app.config.state_dir).context("creating the state dir")?;
    std::fs::write(&path, serde_json::to_string_pretty(&state)?)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(DemoCredentials {
        tenant_id: state.tenant_id,
        grant_id: state.grant_id,
        client_id: state.client_id,
        client_secret: issued.client_secret.expose().to_owned(),
    })
}

/// The demo's company-cache revalidation window, in seconds.
pub const DEMO_REVALIDATE_SECONDS: i64 = 30;

/// The walk-through printed on start.
pub fn walkthrough(base_url: &str, control_url: Option<&str>, c: &DemoCredentials) -> String {
    let control = control_url
        .map(|u| {
            format!(
                r#"
  # 8. Make the register fail; after the demo's {DEMO_REVALIDATE_SECONDS} s revalidation window the
  #    cached profile comes back with "stale": true (and an uncached company gives 503)
  curl -s -X POST {u}/faults/bolagsverket -H 'content-type: application/json' -d '{{"kind":"http_5xx","status":503}}'
  sleep {DEMO_REVALIDATE_SECONDS}; curl -s {base_url}/v1/companies/5561890038 -H "Authorization: Bearer $TOKEN" | head -c 80; echo
  curl -s {base_url}/v1/companies/5560021361 -H "Authorization: Bearer $TOKEN"
  curl -s -X DELETE {u}/faults/bolagsverket

  # 9. Monitoring: subscribe to a company; the scheduler running in this process logs its
  #    baseline within seconds. Script a rename in the sandbox and force a refresh
  #    (kyb:refresh; metered): the change is a company.changed event with old and new values.
  SUBJ=$(curl -s {base_url}/v1/companies/5560021361 -H "Authorization: Bearer $TOKEN" \
    | sed -E 's/.*"subject_id":"([^"]+)".*/\1/')
  curl -s {base_url}/v1/subscriptions -H "Authorization: Bearer $TOKEN" \
    -H 'content-type: application/json' -d '{{"subject_id":"'$SUBJ'","kind":"company","legal_basis":"aml_cdd"}}'
  sleep 6; curl -s "{base_url}/v1/events?cursor=0" -H "Authorization: Bearer $TOKEN"
  curl -s -X POST {u}/companies/5560021361 -H 'content-type: application/json' -d '{{"name":"Omdöpt Demo AB"}}'
  curl -s -X POST {base_url}/v1/companies/5560021361/refresh -H "Authorization: Bearer $TOKEN" | head -c 120; echo
  curl -s "{base_url}/v1/events?cursor=0&types=company.changed" -H "Authorization: Bearer $TOKEN"

The upstream sandbox (synthetic Bolagsverket, SCB, tax and Lithuanian registers) is at
{u}/.. ; its control API is {u} (faults, scripted changes, call log: see
crates/upstream-sandbox/README.md).
"#
            )
        })
        .unwrap_or_default();
    format!(
        r#"
idreg is running at {base_url}

Demo tenant {tenant} (SE, LT; active; person-register permit in force)
  client_id:     {client_id}
  client_secret: {client_secret}
  (the secret is new on every start; the old one stops working)

Walk-through (copy and paste):

  # 1. A token (form body; HTTP Basic with -u "$ID:$SECRET" works too)
  TOKEN=$(curl -s {base_url}/oauth/token \
    -d grant_type=client_credentials -d client_id={client_id} -d client_secret={client_secret} \
    | sed -E 's/.*"access_token":"([^"]+)".*/\1/')

  # 2. Resolve a company (a Bolagsverket test-environment number) to a subject id
  curl -s {base_url}/v1/subjects/resolve -H "Authorization: Bearer $TOKEN" \
    -H 'content-type: application/json' -d '{{"type":"orgnr","value":"5561890038","ref":"customer-42"}}'

  # 3. Resolve a person (Skatteverket's official test number): only an identifier_ref comes back
  curl -s {base_url}/v1/subjects/resolve -H "Authorization: Bearer $TOKEN" \
    -H 'content-type: application/json' -d '{{"type":"personnummer","value":"19811130-9285"}}'

  # 4. The company profile, each field group with its evidence
  curl -s {base_url}/v1/companies/5561890038 -H "Authorization: Bearer $TOKEN"

  # 5. Its latest annual report (a base64 zip holding the iXBRL filing)
  DOC=$(curl -s {base_url}/v1/companies/5561890038 -H "Authorization: Bearer $TOKEN" \
    | sed -E 's/.*"ref":"([^"]+)".*/\1/')
  curl -s {base_url}/v1/documents/$DOC -H "Authorization: Bearer $TOKEN" | head -c 300; echo

  # 6. The subject of step 2 (put its subject_id here)
  curl -s {base_url}/v1/subjects/SUBJECT_ID -H "Authorization: Bearer $TOKEN"

  # 7. The paid tier: officers and signatory rule, beneficial owners (persons only as refs),
  #    one officer's engagements, and the tenant's daily paid-call budget
  curl -s {base_url}/v1/companies/5560021361/officers -H "Authorization: Bearer $TOKEN"
  curl -s {base_url}/v1/companies/5560021361/beneficial-owners -H "Authorization: Bearer $TOKEN"
  REF=$(curl -s {base_url}/v1/companies/5560021361/officers -H "Authorization: Bearer $TOKEN" \
    | sed -E 's/.*"personal_number_ref":"(idr_[^"]+)".*/\1/')
  curl -s {base_url}/v1/persons/$REF/engagements -H "Authorization: Bearer $TOKEN"
  cargo run -q -p idreg -- admin budget show {tenant}

  # 8. Person data from SPAR (gated by the tenant's permit, counted against the daily
  #    person-lookup ceiling, never served stale): the person of step 3 by its ref, then a
  #    person with skyddad folkbokföring, whose profile carries no address of any kind
  PREF=$(curl -s {base_url}/v1/subjects/resolve -H "Authorization: Bearer $TOKEN" \
    -H 'content-type: application/json' -d '{{"type":"personnummer","value":"19811130-9285"}}' \
    | sed -E 's/.*"identifier_ref":"([^"]+)".*/\1/')
  curl -s {base_url}/v1/persons/$PREF -H "Authorization: Bearer $TOKEN"
  PROT=$(curl -s {base_url}/v1/subjects/resolve -H "Authorization: Bearer $TOKEN" \
    -H 'content-type: application/json' -d '{{"type":"personnummer","value":"19680216-9265"}}' \
    | sed -E 's/.*"identifier_ref":"([^"]+)".*/\1/')
  curl -s {base_url}/v1/persons/$PROT -H "Authorization: Bearer $TOKEN"
{control}
Stop with Ctrl-C. State (keys, demo ids) is kept in ./.idreg; the data in PostgreSQL.
"#,
        tenant = c.tenant_id,
        client_id = c.client_id,
        client_secret = c.client_secret,
    )
}

/// Runs the demo: prepare (with the sandbox), ensure the tenant, serve, print the walk-through.
pub async fn run(mut config: Config, args: ServeArgs) -> anyhow::Result<()> {
    let listen = args.listen.unwrap_or_else(|| config.listen.clone());
    config.sandbox = true;
    // A short revalidation window, so the walk-through can show stale serving; an explicit
    // setting wins.
    if std::env::var_os("IDREG_COMPANY_REVALIDATE_SECONDS").is_none() {
        config.company_revalidate_seconds = DEMO_REVALIDATE_SECONDS;
    }
    let app = App::prepare(config).await?;
    let credentials = ensure_demo_tenant(&app).await?;
    let server = app.start_http(&listen)?;
    let _scheduler = app.start_scheduler();
    let control = app.sandbox.as_ref().map(|s| s.control_url());
    println!(
        "{}",
        walkthrough(&server.base_url(), control.as_deref(), &credentials)
    );
    server.until_shutdown().await
}
