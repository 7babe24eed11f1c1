//! The assistant's use cases against in-memory ports: what reaches the model, what is kept,
//! which tools run, and how an answer ends.

use crate::access::audit::{AccessRecord, AuditTrail};
use crate::access::caller::Caller;
use crate::access::gate::Gate;
use crate::access::ports::{MockAuditSink, MockGrantStore, MockTenantStore, MockTokenAuthority};
use crate::access::scope::{Scope, ScopeSet};
use crate::access::tenant::WrappedDataKey;
use crate::assistant::bounds::AssistantSettings;
use crate::assistant::conversation::{
    Block, Role, SealedTitle, SealedTurn, StoredConversation, Turn,
};
use crate::assistant::model::{
    ModelError, ModelEvent, ModelReply, ModelRequest, StopReason, ToolSpec,
};
use crate::assistant::ports::{
    Allowance, AssistantTools, AssistantVault, Citation, ConversationStore, LanguageModel,
    ModelSink, Resolved, ToolAnswer,
};
use crate::assistant::service::{AssistantEvent, AssistantService, AssistantSink, Ending};
use crate::error::{CryptoError, ErrorCode, StoreError};
use crate::fixtures::{access, clock, ctx, grant, now, tenant};
use crate::ids::{ConversationId, PortalUserId, TenantId};
use crate::portal::service::PortalCaller;
use crate::portal::sign_in::{PortalSession, TokenDigest, SESSION_LIFETIME};
use crate::portal::user::{Email, PortalRole};
use crate::subjects::identifier::shape::holds_personal_number;
use crate::subjects::identifier::Identifier;
use crate::Failure;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// One scripted model turn: what it streams and why it stops, or how it fails.
type Scripted = Result<(Vec<ModelEvent>, StopReason), ModelError>;

/// A kept turn: its conversation, place, time and sealed bytes.
type KeptTurn = (ConversationId, u32, DateTime<Utc>, SealedTurn);

/// A model playing scripted turns and keeping every request it got.
#[derive(Default)]
struct ScriptedModel {
    turns: Mutex<VecDeque<Scripted>>,
    requests: Mutex<Vec<ModelRequest>>,
}

#[async_trait]
impl LanguageModel for ScriptedModel {
    async fn stream(
        &self,
        request: &ModelRequest,
        sink: Arc<dyn ModelSink>,
    ) -> Result<ModelReply, ModelError> {
        self.requests.lock().unwrap().push(request.clone());
        let turn =
            self.turns.lock().unwrap().pop_front().unwrap_or_else(|| {
                Ok((vec![ModelEvent::Text("done".into())], StopReason::EndTurn))
            })?;
        for e in turn.0 {
            sink.event(e);
        }
        Ok(ModelReply {
            stop: turn.1,
            input_tokens: 1,
            output_tokens: 1,
        })
    }

    fn model(&self) -> String {
        "scripted".into()
    }
}

/// Tools answering with a call record; resolving a number gives a reference.
#[derive(Default)]
struct FakeTools {
    calls: Mutex<Vec<(String, String, ScopeSet)>>,
    offered_for: Mutex<Vec<ScopeSet>>,
}

#[async_trait(?Send)]
impl AssistantTools for FakeTools {
    fn offered(&self, scopes: &ScopeSet) -> Vec<ToolSpec> {
        self.offered_for.lock().unwrap().push(scopes.clone());
        ["get_company_profile", "get_person_profile"]
            .into_iter()
            .map(|name| ToolSpec {
                name: name.into(),
                description: String::new(),
                input_schema: "{}".into(),
            })
            .collect()
    }

    fn input_holds_personal_number(&self, input: &str) -> bool {
        holds_personal_number(input)
    }

    fn failure_content(&self, failure: &Failure) -> String {
        format!("{{\"error\":\"{}\"}}", failure.code.as_str())
    }

    async fn call(
        &self,
        caller: &Caller,
        _trail: &AuditTrail,
        name: &str,
        input: &str,
    ) -> Result<ToolAnswer, Failure> {
        self.calls
            .lock()
            .unwrap()
            .push((name.into(), input.into(), caller.scopes.clone()));
        Ok(ToolAnswer {
            content: "{\"call_ref\":\"call_1\"}".into(),
            summary: "Exempel AB, active".into(),
            citations: vec![Citation::Call("call_1".into())],
        })
    }

    async fn resolve(
        &self,
        _caller: &Caller,
        _trail: &AuditTrail,
        _identifier: &Identifier,
    ) -> Result<Resolved, Failure> {
        Ok(Resolved {
            identifier_ref: "idr_TEST".into(),
            subject_id: "SUBJECT".into(),
        })
    }
}

/// A store in memory, turns kept open (the fake vault seals nothing).
#[derive(Default)]
struct MemoryStore {
    heads: Mutex<Vec<StoredConversation>>,
    turns: Mutex<Vec<KeptTurn>>,
    calls: Mutex<u32>,
}

#[async_trait]
impl ConversationStore for MemoryStore {
    async fn insert_conversation(&self, c: &StoredConversation) -> Result<(), StoreError> {
        self.heads.lock().unwrap().push(c.clone());
        Ok(())
    }
    async fn set_title(
        &self,
        _tenant: &TenantId,
        id: &ConversationId,
        title: &SealedTitle,
    ) -> Result<(), StoreError> {
        for h in self.heads.lock().unwrap().iter_mut() {
            if h.id == *id {
                h.title = title.clone();
            }
        }
        Ok(())
    }
    async fn conversation(
        &self,
        tenant: &TenantId,
        user: &PortalUserId,
        id: &ConversationId,
    ) -> Result<Option<StoredConversation>, StoreError> {
        Ok(self
            .heads
            .lock()
            .unwrap()
            .iter()
            .find(|h| h.id == *id && h.tenant_id == *tenant && h.portal_user_id == *user)
            .cloned())
    }
    async fn conversations(
        &self,
        tenant: &TenantId,
        user: &PortalUserId,
        _limit: u32,
    ) -> Result<Vec<StoredConversation>, StoreError> {
        Ok(self
            .heads
            .lock()
            .unwrap()
            .iter()
            .filter(|h| h.tenant_id == *tenant && h.portal_user_id == *user)
            .cloned()
            .collect())
    }
    async fn turns(
        &self,
        _tenant: &TenantId,
        id: &ConversationId,
    ) -> Result<Vec<(u32, DateTime<Utc>, SealedTurn)>, StoreError> {
        Ok(self
            .turns
            .lock()
            .unwrap()
            .iter()
            .filter(|t| t.0 == *id)
            .map(|t| (t.1, t.2, t.3.clone()))
            .collect())
    }
    async fn append_turns(
        &self,
        _tenant: &TenantId,
        id: &ConversationId,
        first_seq: u32,
        turns: &[SealedTurn],
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut all = self.turns.lock().unwrap();
        if all.iter().any(|t| t.0 == *id && t.1 >= first_seq) {
            return Err(StoreError::Conflict);
        }
        for (turn, seq) in turns.iter().zip(first_seq..) {
            all.push((*id, seq, at, turn.clone()));
        }
        Ok(())
    }
    async fn delete_conversation(
        &self,
        _tenant: &TenantId,
        _user: &PortalUserId,
        id: &ConversationId,
    ) -> Result<bool, StoreError> {
        let mut heads = self.heads.lock().unwrap();
        let before = heads.len();
        heads.retain(|h| h.id != *id);
        Ok(heads.len() < before)
    }
    async fn purge_conversations(&self, _before: DateTime<Utc>) -> Result<u64, StoreError> {
        Ok(0)
    }
    async fn spend_model_call(
        &self,
        _tenant: &TenantId,
        _day: NaiveDate,
        per_day: u32,
    ) -> Result<Allowance, StoreError> {
        let mut calls = self.calls.lock().unwrap();
        if *calls >= per_day {
            return Ok(Allowance::Exhausted);
        }
        *calls += 1;
        Ok(Allowance::Spent {
            left: per_day - *calls,
        })
    }
    async fn model_calls(
        &self,
        _tenant: &TenantId,
        _from: NaiveDate,
        _to: NaiveDate,
    ) -> Result<Vec<(NaiveDate, u32)>, StoreError> {
        Ok(Vec::new())
    }
}

/// A vault that "seals" as debug text, so a test can read what would be stored.
struct PlainVault;

impl AssistantVault for PlainVault {
    fn seal_turn(
        &self,
        _t: &TenantId,
        _k: &WrappedDataKey,
        _c: &ConversationId,
        _seq: u32,
        turn: &Turn,
    ) -> Result<SealedTurn, CryptoError> {
        Ok(SealedTurn(encode(turn).into_bytes()))
    }
    fn open_turn(
        &self,
        _t: &TenantId,
        _k: &WrappedDataKey,
        _c: &ConversationId,
        _seq: u32,
        sealed: &SealedTurn,
    ) -> Result<Turn, CryptoError> {
        decode(&String::from_utf8_lossy(&sealed.0))
            .ok_or_else(|| CryptoError::Failed("unreadable".into()))
    }
    fn seal_title(
        &self,
        _t: &TenantId,
        _k: &WrappedDataKey,
        _c: &ConversationId,
        title: &str,
    ) -> Result<SealedTitle, CryptoError> {
        Ok(SealedTitle(title.as_bytes().to_vec()))
    }
    fn open_title(
        &self,
        _t: &TenantId,
        _k: &WrappedDataKey,
        _c: &ConversationId,
        sealed: &SealedTitle,
    ) -> Result<String, CryptoError> {
        Ok(String::from_utf8_lossy(&sealed.0).into_owned())
    }
}

/// A person's text turns only, one per line (enough for these tests: the model's turns
/// are kept as a marker with their text).
fn encode(turn: &Turn) -> String {
    let role = turn.role.as_str();
    let mut out = format!("{role}\u{1}");
    for b in &turn.blocks {
        match b {
            Block::Text(t) => out.push_str(&format!("T\u{2}{t}\u{1}")),
            Block::ToolUse { id, name, input } => {
                out.push_str(&format!("U\u{2}{id}\u{2}{name}\u{2}{input}\u{1}"))
            }
            Block::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => out.push_str(&format!(
                "R\u{2}{tool_use_id}\u{2}{content}\u{2}{is_error}\u{1}"
            )),
        }
    }
    out
}

fn decode(s: &str) -> Option<Turn> {
    let mut parts = s.split('\u{1}').filter(|p| !p.is_empty());
    let role = Role::parse(parts.next()?)?;
    let blocks = parts
        .map(|p| {
            let f: Vec<&str> = p.split('\u{2}').collect();
            match f[0] {
                "T" => Block::Text(f[1].into()),
                "U" => Block::ToolUse {
                    id: f[1].into(),
                    name: f[2].into(),
                    input: f[3].into(),
                },
                _ => Block::ToolResult {
                    tool_use_id: f[1].into(),
                    content: f[2].into(),
                    is_error: f[3] == "true",
                },
            }
        })
        .collect();
    Some(Turn { role, blocks })
}

#[derive(Default)]
struct Events(Mutex<Vec<AssistantEvent>>);

impl AssistantSink for Events {
    fn event(&self, event: AssistantEvent) {
        self.0.lock().unwrap().push(event);
    }
}

struct World {
    service: AssistantService,
    model: Arc<ScriptedModel>,
    tools: Arc<FakeTools>,
    store: Arc<MemoryStore>,
    audit: Arc<Mutex<Vec<AccessRecord>>>,
    person: PortalCaller,
    grant_id: String,
}

fn world(role: PortalRole, scopes: &str, settings: AssistantSettings) -> World {
    let t = tenant("SE");
    let g = grant(&t, scopes, "SE");
    let mut tenants = MockTenantStore::new();
    let tt = t.clone();
    tenants.expect_tenant().returning(move |_| Ok(tt.clone()));
    let mut grants = MockGrantStore::new();
    let (ga, ta) = (g.clone(), t.clone());
    grants
        .expect_grant_access()
        .returning(move |_, id| Ok((*id == ga.id).then(|| access(&ga, &ta))));
    // The tenant's grants: this one, and a revoked one no conversation may run under.
    let mut revoked = grant(&t, scopes, "SE");
    revoked.revoked_at = Some(now());
    let listed = vec![g.clone(), revoked];
    grants
        .expect_grants()
        .returning(move |_| Ok(listed.clone()));
    let audit_rows = Arc::new(Mutex::new(Vec::new()));
    let mut audit = MockAuditSink::new();
    let rows = audit_rows.clone();
    audit.expect_record_access().returning(move |r| {
        rows.lock().unwrap().extend_from_slice(r);
        Ok(())
    });
    let gate = Gate {
        authority: Arc::new(MockTokenAuthority::new()),
        grants: Arc::new(MockGrantStore::new()),
        audit: Arc::new(audit),
        clock: clock(),
    };
    let model = Arc::new(ScriptedModel::default());
    let tools = Arc::new(FakeTools::default());
    let store = Arc::new(MemoryStore::default());
    let service = AssistantService {
        calendar: Default::default(),
        model: Some(model.clone()),
        tools: tools.clone(),
        store: store.clone(),
        vault: Arc::new(PlainVault),
        tenants: Arc::new(tenants),
        grants: Arc::new(grants),
        gate: Arc::new(gate),
        clock: clock(),
        settings,
    };
    let person = PortalCaller {
        session: PortalSession {
            digest: TokenDigest(vec![1; 32]),
            tenant_id: t.id,
            user_id: PortalUserId::generate(),
            role,
            email: Email::parse("analyst@example.se").unwrap(),
            created_at: now(),
            last_seen_at: now(),
            expires_at: now() + SESSION_LIFETIME,
        },
        csrf: "csrf".into(),
    };
    World {
        service,
        model,
        tools,
        store,
        audit: audit_rows,
        person,
        grant_id: g.id.to_string(),
    }
}

impl World {
    fn grant(&self) -> String {
        self.grant_id.clone()
    }

    async fn ask(&self, text: &str) -> Result<Vec<AssistantEvent>, Failure> {
        let c = self.service.start(&self.person, &self.grant()).await?;
        self.ask_in(&c.id.to_string(), text).await
    }

    async fn ask_in(&self, id: &str, text: &str) -> Result<Vec<AssistantEvent>, Failure> {
        let prepared = self.service.prepare(&ctx(), &self.person, id, text).await?;
        let events = Arc::new(Events::default());
        self.service.answer(prepared, events.clone()).await;
        let out = events.0.lock().unwrap().clone();
        Ok(out)
    }

    fn script(&self, turns: Vec<Scripted>) {
        self.model.turns.lock().unwrap().extend(turns);
    }

    fn stored_text(&self) -> String {
        self.store
            .turns
            .lock()
            .unwrap()
            .iter()
            .map(|t| String::from_utf8_lossy(&t.3 .0).into_owned())
            .collect()
    }
}

fn tool(id: &str, name: &str, input: &str) -> ModelEvent {
    ModelEvent::ToolUse {
        id: id.into(),
        name: name.into(),
        input: input.into(),
    }
}

fn all_scopes() -> String {
    Scope::CONSUMER
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test]
async fn a_personal_number_is_resolved_and_never_reaches_the_model_or_the_store() {
    let w = world(
        PortalRole::Admin,
        &all_scopes(),
        AssistantSettings::default(),
    );
    // One of Skatteverket's test numbers, written with a fullwidth digit.
    let events = w
        .ask("Who is 19570413-31\u{FF10}6 and does 5560021361 still trade?")
        .await
        .unwrap();
    let AssistantEvent::Accepted { message, .. } = &events[0] else {
        panic!("{events:?}")
    };
    assert!(message.contains("identifier_ref idr_TEST"), "{message}");
    assert!(
        message.contains("5560021361"),
        "an organisation number is kept"
    );
    for request in w.model.requests.lock().unwrap().iter() {
        let text = format!("{:?}", request.turns);
        assert!(!holds_personal_number(&text), "{text}");
    }
    assert!(!holds_personal_number(&w.stored_text()));
    assert!(matches!(
        events.last(),
        Some(AssistantEvent::Done {
            stop: Ending::Answered,
            ..
        })
    ));
}

#[tokio::test]
async fn a_mistyped_number_refuses_the_message_and_nothing_is_kept() {
    let w = world(
        PortalRole::Admin,
        &all_scopes(),
        AssistantSettings::default(),
    );
    let err = w.ask("is 19570413-3107 listed?").await.unwrap_err();
    assert_eq!(err.code, ErrorCode::IdentifierInArgument);
    assert!(w.model.requests.lock().unwrap().is_empty());
    assert!(w.store.turns.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_tool_call_with_a_raw_number_is_refused_and_the_model_is_told() {
    let w = world(
        PortalRole::Admin,
        &all_scopes(),
        AssistantSettings::default(),
    );
    w.script(vec![
        Ok((
            vec![tool(
                "t1",
                "get_person_profile",
                "{\"ref\":\"195704133106\"}",
            )],
            StopReason::ToolUse,
        )),
        Ok((vec![ModelEvent::Text("sorry".into())], StopReason::EndTurn)),
    ]);
    let events = w.ask("tell me about the person").await.unwrap();
    assert!(
        w.tools.calls.lock().unwrap().is_empty(),
        "nothing looked up"
    );
    assert!(events.iter().any(|e| matches!(
        e,
        AssistantEvent::ToolResult {
            outcome: Err((ErrorCode::IdentifierInArgument, _)),
            ..
        }
    )));
    let second = &w.model.requests.lock().unwrap()[1];
    let last = second.turns.last().unwrap();
    assert!(matches!(
        &last.blocks[0],
        Block::ToolResult { is_error: true, content, .. } if content.contains("identifier_in_argument")
    ));
    // The number the model wrote is withheld from what is sent back to it, kept and shown.
    assert!(!holds_personal_number(&format!("{:?}", second.turns)));
    assert!(!holds_personal_number(&w.stored_text()));
    assert!(events.iter().all(|e| match e {
        AssistantEvent::ToolCall { input, .. } => !holds_personal_number(input),
        _ => true,
    }));
    // Audited as a refused tool call of the person, in the conversation.
    let rows = w.audit.lock().unwrap();
    let row = rows
        .iter()
        .find(|r| r.tool.as_deref() == Some("get_person_profile"))
        .unwrap();
    assert_eq!(row.error_code, Some(ErrorCode::IdentifierInArgument));
    assert_eq!(row.portal_user_id, Some(w.person.session.user_id));
    assert!(row.conversation_id.is_some());
}

#[tokio::test]
async fn tools_run_and_their_evidence_is_cited() {
    let w = world(
        PortalRole::Member,
        &all_scopes(),
        AssistantSettings::default(),
    );
    w.script(vec![
        Ok((
            vec![
                ModelEvent::Text("Looking".into()),
                tool("t1", "get_company_profile", "{\"orgnr\":\"5560021361\"}"),
            ],
            StopReason::ToolUse,
        )),
        Ok((
            vec![ModelEvent::Text("Active (call_1)".into())],
            StopReason::EndTurn,
        )),
    ]);
    let events = w.ask("is 5560021361 active?").await.unwrap();
    let calls = w.tools.calls.lock().unwrap();
    assert_eq!(calls.len(), 1);
    // A member's assistant reads companies and never persons or screening runs.
    assert!(calls[0].2.contains(Scope::KybRead));
    assert!(!calls[0].2.contains(Scope::KycRead));
    assert!(!calls[0].2.contains(Scope::ScreeningRun));
    let Some(AssistantEvent::Done { cited, .. }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(cited, &vec![Citation::Call("call_1".into())]);
}

#[tokio::test]
async fn the_round_cap_stops_a_model_that_keeps_calling_tools() {
    let settings = AssistantSettings {
        round_cap: 3,
        ..AssistantSettings::default()
    };
    let w = world(PortalRole::Admin, &all_scopes(), settings);
    w.script(
        (0..10)
            .map(|i| {
                Ok((
                    vec![tool(&format!("t{i}"), "get_company_profile", "{}")],
                    StopReason::ToolUse,
                ))
            })
            .collect(),
    );
    let events = w.ask("loop").await.unwrap();
    assert_eq!(w.model.requests.lock().unwrap().len(), 3);
    assert_eq!(
        w.tools.calls.lock().unwrap().len(),
        2,
        "the last round's call is not run"
    );
    assert!(matches!(
        events.last(),
        Some(AssistantEvent::Done {
            stop: Ending::RoundLimit,
            ..
        })
    ));
    // The next message goes on from a conversation whose every tool call has its result.
    let view = w
        .service
        .read(
            &w.person,
            &w.service.list(&w.person).await.unwrap()[0].id.to_string(),
        )
        .await
        .unwrap();
    let uses = view
        .turns
        .iter()
        .flat_map(|t| &t.turn.blocks)
        .filter(|b| matches!(b, Block::ToolUse { .. }))
        .count();
    let results = view
        .turns
        .iter()
        .flat_map(|t| &t.turn.blocks)
        .filter(|b| matches!(b, Block::ToolResult { .. }))
        .count();
    assert_eq!(uses, results);
}

#[tokio::test]
async fn the_daily_allowance_is_spent_then_refused() {
    let settings = AssistantSettings {
        daily_calls: 1,
        ..AssistantSettings::default()
    };
    let w = world(PortalRole::Admin, &all_scopes(), settings);
    let first = w.ask("one").await.unwrap();
    assert!(matches!(
        first.last(),
        Some(AssistantEvent::Done {
            calls_left: Some(0),
            ..
        })
    ));
    let second = w.ask("two").await.unwrap();
    assert!(matches!(
        second.last(),
        Some(AssistantEvent::Error {
            code: ErrorCode::BudgetExceeded,
            ..
        })
    ));
    assert_eq!(w.model.requests.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_model_failure_ends_the_answer_with_its_code_and_the_conversation_says_so() {
    let w = world(
        PortalRole::Admin,
        &all_scopes(),
        AssistantSettings::default(),
    );
    w.script(vec![Err(ModelError::Overloaded("529".into()))]);
    let events = w.ask("hello").await.unwrap();
    assert!(matches!(
        events.last(),
        Some(AssistantEvent::Error {
            code: ErrorCode::UpstreamUnavailable,
            ..
        })
    ));
    // The person may ask again at once: the conversation does not wait for the lost answer.
    let id = w.service.list(&w.person).await.unwrap()[0].id.to_string();
    assert!(w.ask_in(&id, "again").await.is_ok());
}

#[tokio::test]
async fn another_persons_conversation_is_not_found() {
    let w = world(
        PortalRole::Admin,
        &all_scopes(),
        AssistantSettings::default(),
    );
    let c = w.service.start(&w.person, &w.grant()).await.unwrap();
    let mut other = w.person.clone();
    other.session.user_id = PortalUserId::generate();
    let err = w.service.read(&other, &c.id.to_string()).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    let err = w
        .service
        .prepare(&ctx(), &other, &c.id.to_string(), "hi")
        .await
        .err()
        .unwrap();
    assert_eq!(err.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn without_a_model_the_assistant_is_off() {
    let mut w = world(
        PortalRole::Admin,
        &all_scopes(),
        AssistantSettings::default(),
    );
    w.service.model = None;
    let err = w.service.start(&w.person, &w.grant()).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::UpstreamUnavailable);
}

#[tokio::test]
async fn a_conversation_runs_under_a_live_grant_with_the_roles_scopes() {
    let w = world(
        PortalRole::Member,
        &all_scopes(),
        AssistantSettings::default(),
    );
    let eligible = w.service.grants(&w.person).await.unwrap();
    assert_eq!(eligible.len(), 1, "the revoked grant is not offered");
    assert_eq!(eligible[0].grant.id.to_string(), w.grant());
    assert!(eligible[0].scopes.contains(Scope::KybRead));
    assert!(!eligible[0].scopes.contains(Scope::KycRead));
}
