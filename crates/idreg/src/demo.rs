//! The default run: the service with a demo tenant and grant made on first run, and a
//! ready curl walk-through printed on start. No hand-made configuration: screening is made
//! usable too (the bundled UN and OFAC list files and a PEP list of invented people imported,
//! a no-op by digest once stored; the default policy published when none is active), and an
//! ad-hoc sanctions check, a PEP check and one `name_is_identifier` refusal are run through
//! the REST API on start, their results printed.
//!
//! The grant's ids are kept in `<state_dir>/demo.json`; its secret is never written down:
//! every start rotates it and prints the new one.

use crate::app::App;
use crate::cli::ServeArgs;
use crate::config::Config;
use adapters_screening::ListFormat;
use anyhow::Context;
use domain::access::admin::{NewGrant, NewTenant};
use domain::access::scope::{Scope, ScopeSet};
use domain::access::tenant::PermitStatus;
use domain::countries::country::{Country, CountrySet};
use domain::screening::policy::PolicyConfig;
use domain::screening::sanctions::ImportOutcome;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Serialize, Deserialize)]
struct DemoState {
    tenant_id: String,
    grant_id: String,
    client_id: String,
    /// The live tenant whose test twin `tenant_id` is (its portal users belong to it); a demo
    /// made before the portal lacks it and is made anew.
    #[serde(default)]
    live_tenant_id: Option<String>,
}

/// The demo's credentials for this run.
pub struct DemoCredentials {
    pub tenant_id: String,
    /// The live tenant (the portal's).
    pub live_tenant_id: String,
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
        // A demo made before test mode kept live credentials: it is made anew.
        let test_mode = state
            .client_id
            .starts_with(domain::ids::ClientId::TEST_PREFIX);
        let live = state.live_tenant_id.clone().unwrap_or_default();
        if test_mode
            && admin.tenant(&state.tenant_id).await.is_ok()
            && admin.tenant(&live).await.is_ok()
        {
            if let Ok(issued) = admin.rotate_secret(&state.grant_id).await {
                if issued.grant.revoked_at.is_none() {
                    // A grant made by an older demo may lack scopes added since (screening).
                    let consumer: ScopeSet = Scope::CONSUMER.into_iter().collect();
                    if !consumer.is_subset(&issued.grant.scopes) {
                        let all: ScopeSet =
                            issued.grant.scopes.iter().chain(consumer.iter()).collect();
                        admin
                            .update_grant(&state.grant_id, Some(all), None)
                            .await
                            .map_err(|f| anyhow::anyhow!("{f}"))?;
                    }
                    return Ok(DemoCredentials {
                        tenant_id: state.tenant_id,
                        live_tenant_id: live,
                        grant_id: state.grant_id,
                        client_id: issued.grant.client_id.to_string(),
                        client_secret: issued.client_secret.expose().to_owned(),
                    });
                }
            }
        }
    }

    // Every country this build serves; the demo tenant itself is Swedish.
    let both: CountrySet = crate::countries::COUNTRIES
        .iter()
        .map(|c| c.country)
        .collect();
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
            // The demo's credentials are test-mode ones: the sandbox registers, data apart
            // from live data.
            test: true,
            owner: domain::access::grant::GrantOwner::Operator,
        })
        .await
        .map_err(|f| anyhow::anyhow!("{f}"))?;
    let state = DemoState {
        // The tenant whose data the walk-through reads and writes: the test twin.
        tenant_id: issued.grant.tenant_id.to_string(),
        grant_id: issued.grant.id.to_string(),
        client_id: issued.grant.client_id.to_string(),
        live_tenant_id: Some(tenant.id.to_string()),
    };
    std::fs::create_dir_all(&app.config.state_dir).context("creating the state dir")?;
    std::fs::write(&path, serde_json::to_string_pretty(&state)?)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(DemoCredentials {
        tenant_id: state.tenant_id,
        live_tenant_id: tenant.id.to_string(),
        grant_id: state.grant_id,
        client_id: state.client_id,
        client_secret: issued.client_secret.expose().to_owned(),
    })
}

/// The demo's company-cache revalidation window, in seconds.
pub const DEMO_REVALIDATE_SECONDS: i64 = 30;

/// The walk-through printed on start.
/// `screening` is the demonstration printed before the closing line.
pub fn walkthrough(
    base_url: &str,
    control_url: Option<&str>,
    c: &DemoCredentials,
    screening: &str,
    store: &str,
) -> String {
    let control = control_url
        .map(|u| {
            format!(
                r#"
  # 11. Make the register fail; after the demo's {DEMO_REVALIDATE_SECONDS} s revalidation window the
  #     cached profile comes back with "stale": true (and an uncached company gives 503)
  curl -s -X POST {u}/faults/bolagsverket -H 'content-type: application/json' -d '{{"kind":"http_5xx","status":503}}'
  sleep {DEMO_REVALIDATE_SECONDS}; curl -s {base_url}/v1/companies/5561890038 -H "Authorization: Bearer $TOKEN" | head -c 80; echo
  curl -s {base_url}/v1/companies/5560021361 -H "Authorization: Bearer $TOKEN"
  curl -s -X DELETE {u}/faults/bolagsverket

  # 12. Monitoring: subscribe to a company; the scheduler running in this process logs its
  #     baseline within seconds. Script a rename in the sandbox and force a refresh
  #     (kyb:refresh; metered): the change is a company.changed event with old and new values.
  SUBJ=$(curl -s {base_url}/v1/companies/5560021361 -H "Authorization: Bearer $TOKEN" \
    | sed -E 's/.*"subject_id":"([^"]+)".*/\1/')
  curl -s {base_url}/v1/subscriptions -H "Authorization: Bearer $TOKEN" \
    -H 'content-type: application/json' -d '{{"subject_id":"'$SUBJ'","kind":"company","legal_basis":"aml_cdd"}}'
  sleep 6; curl -s "{base_url}/v1/events?cursor=0" -H "Authorization: Bearer $TOKEN"
  curl -s -X POST {u}/companies/5560021361 -H 'content-type: application/json' -d '{{"name":"Omdöpt Demo AB"}}'
  curl -s -X POST {base_url}/v1/companies/5560021361/refresh -H "Authorization: Bearer $TOKEN" | head -c 120; echo
  curl -s "{base_url}/v1/events?cursor=0&types=company.changed" -H "Authorization: Bearer $TOKEN"

The upstream sandbox (synthetic registers of every country this build serves) is at
{u}/.. ; its control API is {u} (faults, scripted changes, call log: see
crates/upstream-sandbox/README.md).
"#
            )
        })
        .unwrap_or_default();
    format!(
        r#"
idreg is running at {base_url}

Demo tenant {live_tenant} ({countries}; active; person-register permit in force; its portal users
  sign in below), and its test twin {tenant}, whose test-mode credentials these are (answers
  say `Idreg-Mode: test`; the sandbox registers serve them, on data apart from live data;
  `idreg admin tenant wipe-test {tenant}` clears it):
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
{other_countries}
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

  # 9. Sanctions screening (screening:run): an ad-hoc check of a name on the UN list, with a
  #    birth date and a nationality: the band, and the candidates best first, each with its
  #    reasons (the demo ran it on start: see below). A name holding a personal number is
  #    refused with 400 name_is_identifier before anything is looked up or stored. Then the
  #    tenant's checks, newest first, and the operator's policy versions.
  curl -s {base_url}/v1/screening/checks -H "Authorization: Bearer $TOKEN" \
    -H 'content-type: application/json' -d '{screening_body}'
  curl -s {base_url}/v1/screening/checks -H "Authorization: Bearer $TOKEN" \
    -H 'content-type: application/json' -d '{refused_body}'
  curl -s "{base_url}/v1/screening/checks?limit=5" -H "Authorization: Bearer $TOKEN" | head -c 300; echo
  cargo run -q -p idreg -- screening policy list

  # 10. MCP at {base_url}/mcp, same token. An MCP client needs only that URL and the client id
  #     and secret above: a 401 names the metadata that leads to the token endpoint. A tool call
  #     of the per-request revision 2026-07-28 (no handshake; content[1] is step 4's body):
  curl -si -X POST {base_url}/mcp | grep -i www-authenticate
  curl -s {base_url}/.well-known/oauth-protected-resource/mcp; echo
  curl -s {base_url}/.well-known/oauth-authorization-server; echo
  curl -s {base_url}/mcp -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \
    -H 'accept: application/json, text/event-stream' -H 'mcp-protocol-version: 2026-07-28' \
    -H 'mcp-method: tools/call' -H 'mcp-name: get_company_profile' \
    -d '{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"get_company_profile","arguments":{{"orgnr":"5561890038"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}' | head -c 400; echo
{control}
{screening}
Stop with Ctrl-C. Keys and demo ids are kept in the state folder; the data in the {store}.
"#,
        tenant = c.tenant_id,
        live_tenant = c.live_tenant_id,
        countries = crate::countries::COUNTRIES
            .iter()
            .map(|c| c.country.code())
            .collect::<Vec<_>>()
            .join(", "),
        other_countries = other_countries(base_url),
        client_id = c.client_id,
        client_secret = c.client_secret,
        screening_body = SCREENING_BODY,
        refused_body = REFUSED_BODY,
    )
}

/// Step 4's lines for each country that names a demo company: its note as comment lines,
/// then the request.
fn other_countries(base_url: &str) -> String {
    let mut out = String::new();
    for demo in crate::countries::COUNTRIES
        .iter()
        .filter_map(|c| c.demo_company)
    {
        let mut line = String::from("  #   ");
        for word in demo.note.split_whitespace() {
            if line.len() + word.len() + 1 > 94 {
                out.push_str(&line);
                out.push('\n');
                line = String::from("  #   ");
            }
            line.push(' ');
            line.push_str(word);
        }
        out.push_str(&line);
        out.push('\n');
        out.push_str(&format!(
            "  curl -s {base_url}/v1/companies/{} -H \"Authorization: Bearer $TOKEN\"\n",
            demo.code
        ));
    }
    out
}

/// The demo tenant's portal users: an admin, and a member to be the whitelist's second pair
/// of eyes (synthetic addresses).
pub const DEMO_PORTAL_USERS: [(&str, &str); 2] = [
    ("lead@example.se", "admin"),
    ("reviewer@example.se", "member"),
];

/// Makes the demo tenant's portal users when they are missing.
async fn ensure_portal_users(app: &App, tenant: &str) -> anyhow::Result<()> {
    let have = app
        .services
        .portal_admin
        .users(tenant)
        .await
        .map_err(|f| anyhow::anyhow!("{f}"))?;
    for (email, role) in DEMO_PORTAL_USERS {
        if !have.iter().any(|u| u.email.as_str() == email) {
            app.services
                .portal_admin
                .create_user(tenant, email, role, None)
                .await
                .map_err(|f| anyhow::anyhow!("{f}"))?;
        }
    }
    Ok(())
}

/// Where the demo serves the tenant portal unless `IDREG_PORTAL_LISTEN` says otherwise.
pub const DEMO_PORTAL_LISTEN: &str = "127.0.0.1:8081";

/// Runs the demo: prepare (with the sandbox), ensure the tenant, serve, print the walk-through.
pub async fn run(mut config: Config, args: ServeArgs) -> anyhow::Result<()> {
    let listen = args.listen.unwrap_or_else(|| config.listen.clone());
    config.sandbox = true;
    // The demo's printed credentials are test-mode ones, served by the same sandbox.
    config.test_mode = true;
    // A short revalidation window, so the walk-through can show stale serving; an explicit
    // setting wins.
    if std::env::var_os("IDREG_COMPANY_REVALIDATE_SECONDS").is_none() {
        config.company_revalidate_seconds = DEMO_REVALIDATE_SECONDS;
    }
    // A receiver on this machine can take the demo's webhooks; an explicit setting wins.
    if std::env::var_os("IDREG_WEBHOOK_ALLOW_LOOPBACK").is_none() {
        config.webhook_allow_loopback = true;
    }
    config.check_public_origin(&listen)?;
    let app = App::prepare(config).await?;
    let credentials = ensure_demo_tenant(&app).await?;
    let screening = ensure_screening(&app).await;
    let metrics_listen = args
        .metrics_listen
        .or_else(|| app.config.metrics_listen.clone());
    crate::metrics::check_apart(&listen, metrics_listen.as_deref())?;
    let server = app.start_http(&listen)?;
    let _metrics = metrics_listen.map(|m| app.start_metrics(&m)).transpose()?;
    let _scheduler = app.start_scheduler();
    let _webhooks = app.start_webhooks();
    // The tenant portal on its own origin (its sign-in links go to the sandbox's mailbox:
    // GET <sandbox control>/mailbox?to=<address>).
    let portal_listen = app
        .config
        .portal_listen
        .clone()
        .unwrap_or_else(|| DEMO_PORTAL_LISTEN.to_owned());
    let portal = app.start_portal(&portal_listen)?;
    ensure_portal_users(&app, &credentials.live_tenant_id).await?;
    let control = app.sandbox.as_ref().map(|s| s.control_url());
    println!(
        "tenant portal: {}/sign-in as {} (admin) or {} (member); the sign-in mail lands in the sandbox's mailbox: {}/mailbox?to=<address>",
        portal.base_url(),
        DEMO_PORTAL_USERS[0].0,
        DEMO_PORTAL_USERS[1].0,
        control.as_deref().unwrap_or("<sandbox control>"),
    );
    if let Some(model) = app.assistant.model_name() {
        println!(
            "portal assistant: {}/assistant (model {model}): pick the demo grant and ask, e.g. \"Is 5560021361 still active?\"",
            portal.base_url(),
        );
    }
    let screening = screening_demonstration(&server.base_url(), &credentials, &screening).await;
    println!(
        "{}",
        walkthrough(
            &server.base_url(),
            control.as_deref(),
            &credentials,
            &screening,
            &crate::store::StoreUrl::parse(&app.config.store_url())
                .map(|u| u.describe())
                .unwrap_or_default(),
        )
    );
    server.until_shutdown().await
}

/// The list files bundled with the source tree (their provenance is in
/// `crates/adapters-screening/testdata/PROVENANCE.md`): the UN Security Council Consolidated
/// List (2026-02-27), OFAC's SDN list (July 2021) and its consolidated non-SDN list
/// (December 2025), each complete; and a PEP list of invented people (the synthetic
/// FollowTheMoney sample), so the demo shows a PEP candidate without any real PEP data.
pub const BUNDLED_LISTS: [(&str, ListFormat); 4] = [
    ("un/un_sc_consolidated_2026-02-27.xml", ListFormat::UnXml),
    ("ofac_sdn_2021-07", ListFormat::OfacCsv),
    ("ofac_cons_2025-12", ListFormat::OfacCsv),
    ("pep/synthetic-peps.ftm.json", ListFormat::FtmPep),
];

/// Where the bundled lists are: beside this crate in the source tree the binary was built
/// from.
pub fn bundled_lists_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../adapters-screening/testdata")
}

/// The ad-hoc check the demo runs: a name on the UN list (Eric Badege, listed with birth year
/// 1971 and Congolese nationality), written in the other order, with a birth date in that
/// year.
pub const SCREENING_BODY: &str =
    r#"{"name":"Badege Eric","birth_date":"1971-06-15","nationalities":["CD"]}"#;
/// The PEP check the demo runs: the spouse of a (synthetic) minister on the bundled PEP list.
pub const PEP_BODY: &str = r#"{"name":"Henrik Provholm"}"#;
/// A name holding a Swedish personal number (Skatteverket's test number): refused.
pub const REFUSED_BODY: &str = r#"{"name":"Anna Svensson 19811130-9285"}"#;

/// What the demo made of screening on start, for the printed summary.
#[derive(Default)]
pub struct ScreeningSetup {
    /// One line per list: what the import did.
    pub lists: Vec<String>,
    /// The active policy, in words.
    pub policy: Option<String>,
    /// What went wrong, if anything (the demo runs on without screening then).
    pub problems: Vec<String>,
}

/// Makes screening usable: imports the bundled lists (a file already stored is recognised by
/// its digest and stays the version it is), publishes the default policy when none is active,
/// and builds the matcher's index before the server answers. A problem is reported, never
/// fatal: the rest of the demo works without screening.
pub async fn ensure_screening(app: &App) -> ScreeningSetup {
    let mut setup = ScreeningSetup::default();
    let dir = bundled_lists_dir();
    if !dir.is_dir() {
        setup.problems.push(format!(
            "the bundled lists are not at {} (run the demo from its source tree, or import lists with `idreg lists import`)",
            dir.display()
        ));
    }
    for (file, format) in BUNDLED_LISTS {
        if !dir.is_dir() {
            break;
        }
        let path = dir.join(file);
        let read = {
            let path = path.clone();
            tokio::task::spawn_blocking(move || adapters_screening::read_path(&path, Some(format)))
                .await
        };
        let read = match read {
            Ok(Ok(read)) => read,
            Ok(Err(e)) => {
                setup
                    .problems
                    .push(format!("reading {}: {e}", path.display()));
                continue;
            }
            Err(e) => {
                setup
                    .problems
                    .push(format!("reading {}: {e}", path.display()));
                continue;
            }
        };
        let source = read.list.source;
        match app.services.lists.import(read.list, &read.digest).await {
            Ok(ImportOutcome::Stored(v)) => setup.lists.push(format!(
                "{source}: {} entries, imported now as {}",
                v.entry_count, v.id
            )),
            Ok(ImportOutcome::AlreadyStored(v)) => setup.lists.push(format!(
                "{source}: {} entries, version {} (stored before)",
                v.entry_count, v.id
            )),
            Err(f) => setup.problems.push(format!("importing {source}: {f}")),
        }
    }
    let admin = &app.services.screening_admin;
    let policy = match admin.policies().await {
        Ok(policies) => match policies.into_iter().find(|p| p.active) {
            Some(p) => Ok(p),
            None => {
                admin
                    .publish_policy(PolicyConfig::default(), "idreg demo")
                    .await
            }
        },
        Err(f) => Err(f),
    };
    match policy {
        Ok(p) => {
            setup.policy = Some(format!(
                "version {} (review from {:.2}, hit from {:.2}, by {})",
                p.version, p.config.review, p.config.hit, p.created_by
            ))
        }
        Err(f) => setup
            .problems
            .push(format!("publishing the default policy: {f}")),
    }
    if let Err(f) = app.services.screening.warm().await {
        setup
            .problems
            .push(format!("building the screening index: {f}"));
    }
    setup
}

/// Runs the demo's screening check and its refusal through the REST API (a token of the demo
/// grant, `POST /v1/screening/checks`) and describes both.
pub async fn screening_demonstration(
    base_url: &str,
    c: &DemoCredentials,
    setup: &ScreeningSetup,
) -> String {
    let mut out = String::from("Screening (lists bundled with the source, imported on start):\n");
    for line in &setup.lists {
        let _ = writeln!(out, "  {line}");
    }
    if let Some(policy) = &setup.policy {
        let _ = writeln!(out, "  policy {policy}");
    }
    for problem in &setup.problems {
        let _ = writeln!(out, "  problem: {problem}");
    }
    let _ = writeln!(out, "\nStep 9, run just now through the REST API:\n");
    match run_screening_requests(base_url, c).await {
        Ok(text) => out.push_str(&text),
        Err(e) => {
            let _ = writeln!(out, "  the screening requests failed: {e:#}");
        }
    }
    out
}

async fn run_screening_requests(base_url: &str, c: &DemoCredentials) -> anyhow::Result<String> {
    let client = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(30))
        .build()?;
    let token: Value = client
        .post(format!("{base_url}/oauth/token"))
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", c.client_id.as_str()),
            ("client_secret", c.client_secret.as_str()),
        ])
        .send()
        .await?
        .json()
        .await?;
    let token = token["access_token"]
        .as_str()
        .with_context(|| format!("no access token: {token}"))?
        .to_owned();
    let check = |body: &'static str| {
        let client = client.clone();
        let token = token.clone();
        async move {
            let response = client
                .post(format!("{base_url}/v1/screening/checks"))
                .bearer_auth(token)
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await?;
            let status = response.status().as_u16();
            let body: Value = response.json().await?;
            anyhow::Ok((status, body))
        }
    };
    let mut out = String::new();

    for body_text in [SCREENING_BODY, PEP_BODY] {
        let (status, body) = check(body_text).await?;
        if body_text == PEP_BODY {
            out.push('\n');
        }
        let _ = writeln!(out, "  POST /v1/screening/checks {body_text}");
        describe_check(&mut out, status, &body);
    }

    let (status, body) = check(REFUSED_BODY).await?;
    let _ = writeln!(out, "\n  POST /v1/screening/checks {REFUSED_BODY}");
    let _ = writeln!(
        out,
        "  -> {status} {}: {}",
        body["error"].as_str().unwrap_or("?"),
        body["message"].as_str().unwrap_or("")
    );
    Ok(out)
}

/// A check's answer in a few lines: its band and candidates, and the first candidate's
/// reasons.
fn describe_check(out: &mut String, status: u16, body: &Value) {
    if status != 201 {
        let _ = writeln!(
            out,
            "  -> {status} {}: {}",
            body["error"].as_str().unwrap_or("?"),
            body["message"].as_str().unwrap_or("")
        );
        return;
    }
    let _ = writeln!(
        out,
        "  -> 201 check {}: band {}, {} candidate(s), policy {}, lists {}",
        body["id"].as_str().unwrap_or("?"),
        body["band"].as_str().unwrap_or("?"),
        body["candidate_count"],
        body["policy_version_id"].as_str().unwrap_or("?"),
        body["source_version_ids"]
            .as_array()
            .map(|v| v.len())
            .unwrap_or(0),
    );
    let Some(first) = body["candidates"].get(0) else {
        let _ = writeln!(out, "     no candidate");
        return;
    };
    let _ = writeln!(
        out,
        "     first candidate: {} \"{}\" ({}, {} list), score {}, band {}",
        first["entity_id"].as_str().unwrap_or("?"),
        first["listing"]["names"][0]["name"].as_str().unwrap_or("?"),
        first["listing"]["kind"].as_str().unwrap_or("?"),
        first["list_kind"].as_str().unwrap_or("?"),
        first["score"],
        first["band"].as_str().unwrap_or("?"),
    );
    for reason in first["reasons"].as_array().into_iter().flatten() {
        let _ = writeln!(
            out,
            "       {:<8} {:<22} {}",
            reason["contributes"].as_str().unwrap_or("?"),
            reason["code"].as_str().unwrap_or("?"),
            reason["detail"].as_str().unwrap_or("")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walkthrough_names_every_country_and_asks_for_each_demo_company() {
        crate::countries::install_schemes();
        let c = DemoCredentials {
            tenant_id: "t".into(),
            live_tenant_id: "l".into(),
            grant_id: "g".into(),
            client_id: "c".into(),
            client_secret: "s".into(),
        };
        let text = walkthrough("http://h", None, &c, "", "store");
        let codes: Vec<&str> = crate::countries::COUNTRIES
            .iter()
            .map(|p| p.country.code())
            .collect();
        assert!(text.contains(&format!("({}; active;", codes.join(", "))));
        for demo in crate::countries::COUNTRIES
            .iter()
            .filter_map(|p| p.demo_company)
        {
            let request = format!("curl -s http://h/v1/companies/{} -H", demo.code);
            let at = text.find(&request).expect("the company is asked for");
            // The note comes just before, as comment lines no wider than the rest.
            let before: Vec<&str> = text[..at].lines().rev().skip(1).take(2).collect();
            assert!(before
                .iter()
                .all(|l| l.starts_with("  #    ") && l.len() <= 96));
        }
    }
}
