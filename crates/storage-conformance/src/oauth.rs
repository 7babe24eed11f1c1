//! Agent connections: a dynamic registration answered again for the same public metadata,
//! bounded by its ceiling and lapsing unused (a consent keeps it); a metadata document's
//! client replaced when read again; a pending request decided once; a connection written with
//! its grant (and the same person's earlier one of the client revoked with it); a code used
//! once; a refresh family advanced by compare-and-set.

use super::*;
use domain::ids::PortalUserId;
use domain::oauth::authorization::{CheckedRequest, PendingAuthorization};
use domain::oauth::client::{
    ClientGrantType, OAuthClient, RedirectUri, Registration, TokenAuthMethod,
};
use domain::oauth::connection::Connection;
use domain::oauth::ports::Registered;
use domain::portal::sign_in::TokenDigest;

fn client(id: &str, registration: Registration) -> OAuthClient {
    OAuthClient {
        client_id: id.to_owned(),
        registration,
        name: "Agent".into(),
        client_uri: None,
        redirect_uris: vec![
            RedirectUri::parse("http://127.0.0.1/callback").unwrap(),
            RedirectUri::parse("cursor://anysphere.cursor-mcp/oauth/callback").unwrap(),
        ],
        grant_types: vec![
            ClientGrantType::AuthorizationCode,
            ClientGrantType::RefreshToken,
        ],
        auth_method: TokenAuthMethod::None,
        scope: Some("kyb:read".into()),
        created_at: t0(),
        expires_at: match registration {
            Registration::Dynamic => Some(t0() + Duration::hours(24)),
            Registration::MetadataDocument => None,
        },
        fresh_until: match registration {
            Registration::Dynamic => None,
            Registration::MetadataDocument => Some(t0() + Duration::hours(1)),
        },
    }
}

fn connection(grant: &Grant, client_id: &str, person: PortalUserId) -> Connection {
    Connection {
        tenant_id: grant.tenant_id,
        grant_id: grant.id,
        client_id: client_id.to_owned(),
        client_name: "Agent".into(),
        consented_by: person,
        resource: "https://idreg.example/mcp".into(),
        redirect_uri: "http://127.0.0.1:9/callback".into(),
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM".into(),
        code_digest: TokenDigest(random_bytes(32)),
        code_expires_at: t0() + Duration::minutes(5),
        code_used_at: None,
        refresh_generation: 0,
        refresh_rotated_at: None,
        refresh_expires_at: None,
        created_at: grant.created_at,
    }
}

pub async fn check_a_registration_is_answered_again_bounded_and_lapses_unused(stores: &Stores) {
    let oauth = &stores.oauth;
    let first = client("mcp_first", Registration::Dynamic);
    let made = oauth
        .register_oauth_client(&first, None, Some("key-a"), 3, t0())
        .await
        .unwrap();
    assert_eq!(made, Registered::New(first.clone()));
    let (read, secret) = oauth.oauth_client("mcp_first").await.unwrap().unwrap();
    assert_eq!(read, first, "reads back exactly");
    assert_eq!(secret, None);
    // The same public metadata: the same client.
    let again = oauth
        .register_oauth_client(
            &client("mcp_again", Registration::Dynamic),
            None,
            Some("key-a"),
            3,
            t0(),
        )
        .await
        .unwrap();
    assert_eq!(again, Registered::Existing(first.clone()));
    assert!(oauth.oauth_client("mcp_again").await.unwrap().is_none());
    // A confidential one keeps its hash; the ceiling counts unused registrations.
    let h = hash();
    let second = client("mcp_second", Registration::Dynamic);
    oauth
        .register_oauth_client(&second, Some(&h), None, 3, t0())
        .await
        .unwrap();
    assert_eq!(
        oauth.oauth_client("mcp_second").await.unwrap().unwrap().1,
        Some(h)
    );
    oauth
        .register_oauth_client(
            &client("mcp_third", Registration::Dynamic),
            None,
            Some("key-c"),
            3,
            t0(),
        )
        .await
        .unwrap();
    assert_eq!(
        oauth
            .register_oauth_client(
                &client("mcp_fourth", Registration::Dynamic),
                None,
                Some("key-d"),
                3,
                t0()
            )
            .await
            .unwrap(),
        Registered::CeilingReached
    );
    // A consent keeps a registration; past their lapse the others go with the next one.
    let (t, _) = tenant(stores, "SE").await;
    let g = new_grant(&t, "kyb:read", "SE");
    oauth
        .insert_connection(
            &g,
            &hash(),
            &connection(&g, "mcp_first", PortalUserId::generate()),
        )
        .await
        .unwrap();
    let later = t0() + Duration::hours(25);
    oauth
        .register_oauth_client(
            &client("mcp_fifth", Registration::Dynamic),
            None,
            Some("key-e"),
            3,
            later,
        )
        .await
        .unwrap();
    assert!(oauth
        .oauth_client("mcp_first")
        .await
        .unwrap()
        .unwrap()
        .0
        .expires_at
        .is_none());
    assert!(oauth.oauth_client("mcp_second").await.unwrap().is_none());
    assert!(oauth.oauth_client("mcp_third").await.unwrap().is_none());
}

pub async fn check_a_metadata_documents_client_is_replaced_when_read_again(stores: &Stores) {
    let url = "https://agent.example/oauth/client.json";
    let mut c = client(url, Registration::MetadataDocument);
    stores.oauth.put_document_client(&c).await.unwrap();
    assert_eq!(stores.oauth.oauth_client(url).await.unwrap().unwrap().0, c);
    c.name = "Agent, renamed".into();
    c.redirect_uris = vec![RedirectUri::parse("https://agent.example/cb").unwrap()];
    c.fresh_until = Some(t0() + Duration::hours(2));
    stores.oauth.put_document_client(&c).await.unwrap();
    assert_eq!(stores.oauth.oauth_client(url).await.unwrap().unwrap().0, c);
}

pub async fn check_a_pending_request_is_decided_once(stores: &Stores) {
    let pending = PendingAuthorization {
        digest: TokenDigest(random_bytes(32)),
        request: CheckedRequest {
            client_id: "mcp_x".into(),
            redirect_uri: "http://127.0.0.1:9/callback".into(),
            state: Some("st".into()),
            code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM".into(),
            resource: "https://idreg.example/mcp".into(),
            scopes: scopes("kyb:read events:read"),
            fresh_login: true,
        },
        issuer: "https://idreg.example".into(),
        created_at: t0(),
        expires_at: t0() + Duration::minutes(10),
        decided_at: None,
    };
    stores.oauth.insert_authorization(&pending).await.unwrap();
    assert_eq!(
        stores.oauth.authorization(&pending.digest).await.unwrap(),
        Some(pending.clone())
    );
    let at = t0() + Duration::minutes(1);
    assert!(stores
        .oauth
        .decide_authorization(&pending.digest, at)
        .await
        .unwrap());
    assert!(!stores
        .oauth
        .decide_authorization(&pending.digest, at)
        .await
        .unwrap());
    let read = stores
        .oauth
        .authorization(&pending.digest)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read.decided_at, Some(at));
    assert!(stores
        .oauth
        .authorization(&TokenDigest(random_bytes(32)))
        .await
        .unwrap()
        .is_none());
}

pub async fn check_a_connection_supersedes_the_persons_earlier_one_of_the_client(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (person, other) = (PortalUserId::generate(), PortalUserId::generate());
    let g1 = new_grant(&t, "kyb:read", "SE");
    let g2 = new_grant(&t, "kyb:read", "SE");
    let g3 = new_grant(&t, "kyb:read", "SE");
    assert!(stores
        .oauth
        .insert_connection(&g1, &hash(), &connection(&g1, "mcp_a", person))
        .await
        .unwrap()
        .is_empty());
    // Another person's connection of the same client stays.
    let c2 = connection(&g2, "mcp_a", other);
    assert!(stores
        .oauth
        .insert_connection(&g2, &hash(), &c2)
        .await
        .unwrap()
        .is_empty());
    let superseded = stores
        .oauth
        .insert_connection(&g3, &hash(), &connection(&g3, "mcp_a", person))
        .await
        .unwrap();
    assert_eq!(superseded, vec![g1.id]);
    assert!(stores
        .grants
        .grant(&t.id, &g1.id)
        .await
        .unwrap()
        .revoked_at
        .is_some());
    assert!(stores
        .grants
        .grant(&t.id, &g2.id)
        .await
        .unwrap()
        .revoked_at
        .is_none());
    let listed: Vec<GrantId> = stores
        .oauth
        .connections(&t.id)
        .await
        .unwrap()
        .iter()
        .map(|c| c.grant_id)
        .collect();
    assert_eq!(listed.len(), 3);
    assert_eq!(
        stores.oauth.connection(&t.id, &g2.id).await.unwrap(),
        Some(c2)
    );
    // Another tenant sees none of them.
    let (other_tenant, _) = tenant(stores, "SE").await;
    assert!(stores
        .oauth
        .connections(&other_tenant.id)
        .await
        .unwrap()
        .is_empty());
    assert!(stores
        .oauth
        .connection(&other_tenant.id, &g2.id)
        .await
        .unwrap()
        .is_none());
    // Countries outside the tenant's: nothing written.
    let outside = new_grant(&t, "kyb:read", "LT");
    assert!(matches!(
        stores
            .oauth
            .insert_connection(&outside, &hash(), &connection(&outside, "mcp_a", person))
            .await,
        Err(StoreError::GrantsOutsideCountries(_))
    ));
    assert!(stores
        .oauth
        .connection(&t.id, &outside.id)
        .await
        .unwrap()
        .is_none());
}

pub async fn check_a_code_is_used_once_and_a_refresh_family_advances_by_compare_and_set(
    stores: &Stores,
) {
    let (t, _) = tenant(stores, "SE").await;
    let g = new_grant(&t, "kyb:read", "SE");
    stores
        .oauth
        .insert_connection(
            &g,
            &hash(),
            &connection(&g, "mcp_a", PortalUserId::generate()),
        )
        .await
        .unwrap();
    let at = t0() + Duration::minutes(1);
    let lapse = at + Duration::days(30);
    assert!(stores
        .oauth
        .use_code(&t.id, &g.id, at, lapse)
        .await
        .unwrap());
    assert!(!stores
        .oauth
        .use_code(&t.id, &g.id, at, lapse)
        .await
        .unwrap());
    let c = stores
        .oauth
        .connection(&t.id, &g.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(c.code_used_at, Some(at));
    assert_eq!(c.refresh_generation, 1);
    assert_eq!(c.refresh_expires_at, Some(lapse));
    let later = at + Duration::minutes(1);
    assert!(stores
        .oauth
        .advance_refresh(&t.id, &g.id, 1, later, lapse)
        .await
        .unwrap());
    // The same generation again: another request moved it first.
    assert!(!stores
        .oauth
        .advance_refresh(&t.id, &g.id, 1, later, lapse)
        .await
        .unwrap());
    let c = stores
        .oauth
        .connection(&t.id, &g.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(c.refresh_generation, 2);
    assert_eq!(c.refresh_rotated_at, Some(later));
}
