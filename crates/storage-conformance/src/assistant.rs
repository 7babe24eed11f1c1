//! The assistant's store: a conversation is its tenant's and its user's alone; turns are
//! appended at their places, a place already taken refused as a conflict that writes nothing;
//! a conversation is deleted with its turns, and purged with them once unused past the
//! cutoff; the daily model calls are spent atomically, never past the allowance. A tool call
//! the assistant made is audited naming the user and the conversation, and read back so.

use super::*;
use domain::access::audit::OnBehalf;
use domain::assistant::conversation::{SealedTitle, SealedTurn, StoredConversation};
use domain::assistant::ports::Allowance;
use domain::ids::{ConversationId, PortalUserId};
use domain::portal::user::{Email, PortalRole, PortalUser};

/// A portal user of `t`, stored.
async fn portal_user(stores: &Stores, t: &Tenant) -> PortalUserId {
    let user = PortalUser {
        id: PortalUserId::generate(),
        tenant_id: t.id,
        email: Email::parse(&format!("{}@example.com", ulid::Ulid::generate()).to_lowercase())
            .unwrap(),
        role: PortalRole::Member,
        created_at: t0(),
        created_by: None,
        disabled_at: None,
    };
    stores
        .portal
        .create_user(&user)
        .await
        .unwrap()
        .expect("a new address");
    user.id
}

fn head(t: &Tenant, user: PortalUserId, grant: GrantId, at: DateTime<Utc>) -> StoredConversation {
    StoredConversation {
        id: ConversationId::generate(),
        tenant_id: t.id,
        portal_user_id: user,
        grant_id: grant,
        title: SealedTitle(random_bytes(40)),
        created_at: at,
        updated_at: at,
    }
}

fn sealed() -> SealedTurn {
    SealedTurn(random_bytes(64))
}

/// A conversation started by `user` of `t` at `at` (under a grant of the tenant), stored.
async fn started(
    stores: &Stores,
    t: &Tenant,
    user: PortalUserId,
    at: DateTime<Utc>,
) -> StoredConversation {
    let (g, _) = grant(stores, t, "SE").await;
    let c = head(t, user, g.id, at);
    stores
        .conversations
        .insert_conversation(&c)
        .await
        .expect("insert_conversation");
    c
}

async fn turn_count(stores: &Stores, c: &StoredConversation) -> i64 {
    stores
        .backing
        .count("assistant_turns", &format!("conversation_id = '{}'", c.id))
        .await
}

pub async fn check_a_conversation_is_its_tenants_and_users_alone(stores: &Stores) {
    let store = &stores.conversations;
    let (t, _) = tenant(stores, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    let (me, colleague) = (portal_user(stores, &t).await, portal_user(stores, &t).await);
    let c = started(stores, &t, me, t0()).await;

    // Reads back exactly, for its user at its tenant only.
    assert_eq!(
        store.conversation(&t.id, &me, &c.id).await.unwrap(),
        Some(c.clone())
    );
    assert_eq!(
        store.conversation(&t.id, &colleague, &c.id).await.unwrap(),
        None
    );
    assert_eq!(
        store.conversation(&other.id, &me, &c.id).await.unwrap(),
        None
    );
    assert!(store
        .conversations(&t.id, &colleague, 10)
        .await
        .unwrap()
        .is_empty());
    assert!(store
        .conversations(&other.id, &me, 10)
        .await
        .unwrap()
        .is_empty());

    // Its grant may be another tenant's (the test twin's): the store keeps whichever.
    let (twin_grant, _) = grant(stores, &other, "SE").await;
    let later = head(&t, me, twin_grant.id, t0() + Duration::minutes(5));
    store.insert_conversation(&later).await.unwrap();
    // Most recently used first, at most `limit`.
    assert_eq!(
        store.conversations(&t.id, &me, 10).await.unwrap(),
        vec![later.clone(), c.clone()]
    );
    assert_eq!(
        store.conversations(&t.id, &me, 1).await.unwrap(),
        vec![later.clone()]
    );
    // Used again, the older one comes first.
    store
        .append_turns(&t.id, &c.id, 0, &[sealed()], t0() + Duration::minutes(9))
        .await
        .unwrap();
    let listed: Vec<ConversationId> = store
        .conversations(&t.id, &me, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(listed, vec![c.id, later.id]);

    // The title is replaced at its tenant only.
    let title = SealedTitle(random_bytes(33));
    store.set_title(&t.id, &c.id, &title).await.unwrap();
    let read = store
        .conversation(&t.id, &me, &c.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read.title, title);
    assert_eq!(
        store
            .set_title(&other.id, &c.id, &SealedTitle(random_bytes(8)))
            .await
            .unwrap_err(),
        StoreError::NotFound
    );
}

pub async fn check_turns_append_in_order_and_a_taken_place_is_a_conflict_that_writes_nothing(
    stores: &Stores,
) {
    let store = &stores.conversations;
    let (t, _) = tenant(stores, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    let me = portal_user(stores, &t).await;
    let c = started(stores, &t, me, t0()).await;
    assert!(store.turns(&t.id, &c.id).await.unwrap().is_empty());

    let (first, second) = (sealed(), sealed());
    let at = t0() + Duration::seconds(1);
    store
        .append_turns(&t.id, &c.id, 0, &[first.clone(), second.clone()], at)
        .await
        .unwrap();
    assert_eq!(
        store.turns(&t.id, &c.id).await.unwrap(),
        vec![(0, at, first.clone()), (1, at, second.clone())]
    );
    let used = store
        .conversation(&t.id, &me, &c.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(used.updated_at, at, "marked used");
    assert_eq!(used.created_at, t0());

    // Place 1 is taken (place 2 is free): nothing of the append is written, not even the use.
    let refused = store
        .append_turns(
            &t.id,
            &c.id,
            1,
            &[sealed(), sealed()],
            at + Duration::seconds(1),
        )
        .await;
    assert_eq!(refused.unwrap_err(), StoreError::Conflict);
    assert_eq!(
        store.turns(&t.id, &c.id).await.unwrap(),
        vec![(0, at, first.clone()), (1, at, second.clone())]
    );
    assert_eq!(turn_count(stores, &c).await, 2);
    assert_eq!(
        store
            .conversation(&t.id, &me, &c.id)
            .await
            .unwrap()
            .unwrap()
            .updated_at,
        at
    );

    // The next place is free.
    let third = sealed();
    let later = at + Duration::seconds(2);
    store
        .append_turns(&t.id, &c.id, 2, std::slice::from_ref(&third), later)
        .await
        .unwrap();
    assert_eq!(
        store.turns(&t.id, &c.id).await.unwrap(),
        vec![(0, at, first), (1, at, second), (2, later, third)]
    );

    // Two tabs racing for one place: one writes, the others are conflicts.
    let racers = (0..8).map(|_| {
        let store = store.clone();
        let (tenant, id) = (t.id, c.id);
        tokio::spawn(async move {
            store
                .append_turns(&tenant, &id, 3, &[sealed()], later + Duration::seconds(1))
                .await
        })
    });
    let mut written = 0;
    for racer in racers.collect::<Vec<_>>() {
        match racer.await.unwrap() {
            Ok(()) => written += 1,
            Err(e) => assert_eq!(e, StoreError::Conflict),
        }
    }
    assert_eq!(written, 1);
    assert_eq!(turn_count(stores, &c).await, 4);

    // No conversation, or another tenant's: not found, nothing written.
    assert_eq!(
        store
            .append_turns(&t.id, &ConversationId::generate(), 0, &[sealed()], later)
            .await
            .unwrap_err(),
        StoreError::NotFound
    );
    assert_eq!(
        store
            .append_turns(&other.id, &c.id, 9, &[sealed()], later)
            .await
            .unwrap_err(),
        StoreError::NotFound
    );
    assert!(store.turns(&other.id, &c.id).await.unwrap().is_empty());
    assert_eq!(turn_count(stores, &c).await, 4);
}

pub async fn check_a_conversation_is_deleted_by_its_user_with_its_turns(stores: &Stores) {
    let store = &stores.conversations;
    let (t, _) = tenant(stores, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    let (me, colleague) = (portal_user(stores, &t).await, portal_user(stores, &t).await);
    let c = started(stores, &t, me, t0()).await;
    let kept = started(stores, &t, me, t0()).await;
    for conversation in [&c, &kept] {
        store
            .append_turns(&t.id, &conversation.id, 0, &[sealed(), sealed()], t0())
            .await
            .unwrap();
    }

    // Not another user's, nor another tenant's, to delete.
    assert!(!store
        .delete_conversation(&t.id, &colleague, &c.id)
        .await
        .unwrap());
    assert!(!store
        .delete_conversation(&other.id, &me, &c.id)
        .await
        .unwrap());
    assert_eq!(turn_count(stores, &c).await, 2);

    assert!(store.delete_conversation(&t.id, &me, &c.id).await.unwrap());
    assert_eq!(store.conversation(&t.id, &me, &c.id).await.unwrap(), None);
    assert!(store.turns(&t.id, &c.id).await.unwrap().is_empty());
    assert_eq!(turn_count(stores, &c).await, 0, "its turns went with it");
    assert!(!store.delete_conversation(&t.id, &me, &c.id).await.unwrap());

    // The other conversation is untouched.
    assert_eq!(store.turns(&t.id, &kept.id).await.unwrap().len(), 2);
    assert_eq!(
        store.conversations(&t.id, &me, 10).await.unwrap(),
        vec![kept]
    );
}

pub async fn check_the_purge_removes_only_conversations_last_used_before_the_cutoff(
    stores: &Stores,
) {
    let store = &stores.conversations;
    let (a, _) = tenant(stores, "SE").await;
    let (b, _) = tenant(stores, "SE").await;
    let (ua, ub) = (portal_user(stores, &a).await, portal_user(stores, &b).await);
    let cutoff = t0() + Duration::days(30);
    let old_a = started(stores, &a, ua, t0()).await;
    let old_b = started(stores, &b, ub, t0()).await;
    // Started long ago, used since: kept.
    let revived = started(stores, &a, ua, t0()).await;
    // Used at the cutoff itself: kept.
    let at_cutoff = started(stores, &b, ub, cutoff).await;
    let recent = started(stores, &a, ua, cutoff + Duration::days(1)).await;
    for (c, at) in [
        (&old_a, t0()),
        (&old_b, t0() + Duration::days(29)),
        (&revived, cutoff + Duration::hours(1)),
    ] {
        store
            .append_turns(&c.tenant_id, &c.id, 0, &[sealed(), sealed()], at)
            .await
            .unwrap();
    }

    assert_eq!(store.purge_conversations(cutoff).await.unwrap(), 2);
    for (gone, user) in [(&old_a, ua), (&old_b, ub)] {
        assert_eq!(
            store
                .conversation(&gone.tenant_id, &user, &gone.id)
                .await
                .unwrap(),
            None
        );
        assert_eq!(turn_count(stores, gone).await, 0, "its turns went with it");
    }
    for (kept, user) in [(&revived, ua), (&at_cutoff, ub), (&recent, ua)] {
        assert!(store
            .conversation(&kept.tenant_id, &user, &kept.id)
            .await
            .unwrap()
            .is_some());
    }
    assert_eq!(turn_count(stores, &revived).await, 2);
    assert_eq!(store.purge_conversations(cutoff).await.unwrap(), 0);
}

pub async fn check_concurrent_model_calls_never_pass_the_daily_allowance(stores: &Stores) {
    let store = &stores.conversations;
    let (t, _) = tenant(stores, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    let day = NaiveDate::from_ymd_opt(2026, 12, 9).unwrap();

    let spends = (0..20).map(|_| {
        let store = store.clone();
        let tenant = t.id;
        tokio::spawn(async move { store.spend_model_call(&tenant, day, 5).await })
    });
    let mut left = Vec::new();
    let mut exhausted = 0;
    for spend in spends.collect::<Vec<_>>() {
        match spend.await.unwrap().unwrap() {
            Allowance::Spent { left: l } => left.push(l),
            Allowance::Exhausted => exhausted += 1,
        }
    }
    left.sort_unstable();
    assert_eq!(
        left,
        vec![0, 1, 2, 3, 4],
        "five spent, each leaving one fewer"
    );
    assert_eq!(exhausted, 15);
    assert_eq!(
        store.model_calls(&t.id, day, day).await.unwrap(),
        vec![(day, 5)]
    );
    assert_eq!(
        store.spend_model_call(&t.id, day, 5).await.unwrap(),
        Allowance::Exhausted
    );

    // Days and tenants are counted apart; a larger allowance spends on.
    let next = day.succ_opt().unwrap();
    assert_eq!(
        store.spend_model_call(&t.id, next, 5).await.unwrap(),
        Allowance::Spent { left: 4 }
    );
    assert_eq!(
        store.spend_model_call(&t.id, day, 7).await.unwrap(),
        Allowance::Spent { left: 1 }
    );
    assert_eq!(
        store.spend_model_call(&other.id, day, 5).await.unwrap(),
        Allowance::Spent { left: 4 }
    );
    // An allowance of none spends nothing.
    let third = next.succ_opt().unwrap();
    assert_eq!(
        store.spend_model_call(&t.id, third, 0).await.unwrap(),
        Allowance::Exhausted
    );
    // The days with calls, in order, within the range asked.
    let before = day.pred_opt().unwrap();
    assert_eq!(
        store.model_calls(&t.id, before, third).await.unwrap(),
        vec![(day, 6), (next, 1)]
    );
    assert_eq!(
        store.model_calls(&t.id, next, next).await.unwrap(),
        vec![(next, 1)]
    );
    assert_eq!(
        store.model_calls(&other.id, before, third).await.unwrap(),
        vec![(day, 1)]
    );
}

pub async fn check_a_tool_calls_audit_row_names_the_user_and_the_conversation(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (g, _) = grant(stores, &t, "SE").await;
    let me = portal_user(stores, &t).await;
    let conversation = ConversationId::generate();
    let ctx = RequestContext {
        request_id: RequestId::generate(),
        received_at: t0(),
        peer: None,
        resource: None,
    };
    let record = AccessRecord::new(
        &ctx,
        Operation::GetSubject,
        t.id,
        g.id,
        Surface::Assistant,
        200,
        Outcome::Allowed,
    )
    .on_behalf(Some(OnBehalf {
        portal_user: me,
        conversation,
    }));
    stores.audit.record_access(&[record]).await.unwrap();
    let rows = stores.backing.audit_rows(ctx.request_id).await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["surface"], "assistant");
    assert_eq!(rows[0]["portal_user_id"], me.to_string());
    assert_eq!(rows[0]["conversation_id"], conversation.to_string());
    assert_eq!(stores.backing.access_rows(ctx.request_id).await.len(), 1);

    let read = stores
        .audit_log
        .audit_entries(&t.id, &AuditFilter::default(), 10)
        .await
        .unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].portal_user_id, Some(me.to_string()));
    assert_eq!(read[0].conversation_id, Some(conversation.to_string()));
    assert_eq!(read[0].grant_id, Some(g.id.to_string()));

    // A request made for no one names no conversation.
    let ctx = RequestContext {
        request_id: RequestId::generate(),
        received_at: t0() + Duration::seconds(1),
        peer: None,
        resource: None,
    };
    let plain = AccessRecord::new(
        &ctx,
        Operation::GetSubject,
        t.id,
        g.id,
        Surface::Rest,
        403,
        Outcome::Refused,
    );
    stores.audit.record_access(&[plain]).await.unwrap();
    assert_eq!(
        stores.backing.audit_rows(ctx.request_id).await[0]["conversation_id"],
        Value::Null
    );
    let refused = AuditFilter {
        outcome: Some(Outcome::Refused),
        ..AuditFilter::default()
    };
    let read = stores
        .audit_log
        .audit_entries(&t.id, &refused, 10)
        .await
        .unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(
        (
            read[0].portal_user_id.as_deref(),
            read[0].conversation_id.as_deref()
        ),
        (None, None)
    );
}
