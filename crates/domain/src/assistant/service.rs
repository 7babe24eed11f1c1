//! The assistant's use cases: start a conversation under a grant, list, read and delete a
//! person's conversations, and answer a message (the model's rounds of tool calls, streamed
//! as events).
//!
//! Answering is two steps, so a surface can answer a refusal with its status before it
//! starts a stream: [`AssistantService::prepare`] checks everything that can refuse the
//! message (the conversation, the grant, the text, its personal numbers, a message still
//! being answered) and keeps the person's turn; [`AssistantService::answer`] then runs the
//! model and the tools, sending each [`AssistantEvent`] as it happens, and keeps what was
//! said. Every refusal after the first byte is an [`AssistantEvent::Error`].

use crate::access::audit::{AuditTrail, OnBehalf, RequestContext};
use crate::access::caller::Caller;
use crate::access::gate::Gate;
use crate::access::ports::{GrantAccess, GrantStore, TenantStore};
use crate::access::tenant::TenantStatus;
use crate::assistant::bounds::{self, AssistantSettings};
use crate::assistant::conversation::{
    Block, Conversation, Role, StoredConversation, StoredTurn, Turn,
};
use crate::assistant::model::{ModelError, ModelEvent, ModelRequest, StopReason, ToolSpec};
use crate::assistant::ports::{
    Allowance, AssistantTools, AssistantVault, Citation, ConversationStore, LanguageModel,
    ModelSink,
};
use crate::assistant::scan;
use crate::clock::Clock;
use crate::companies::budget::BudgetCalendar;
use crate::error::{ErrorCode, StoreError};
use crate::ids::{ConversationId, GrantId, TenantId};
use crate::operation::{Operation, Surface};
use crate::portal::service::PortalCaller;
use crate::subjects::identifier::shape::holds_personal_number;
use crate::Failure;
use std::sync::{Arc, Mutex};

/// What the person's browser is told, in order, while a message is answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AssistantEvent {
    /// The message was taken: as the model gets it (numbers replaced by references).
    Accepted { message: String, model: String },
    /// Text of the answer as it is written.
    Text(String),
    /// The model called a tool.
    ToolCall {
        id: String,
        name: String,
        input: String,
    },
    /// The tool answered, or was refused (its error code and message).
    ToolResult {
        id: String,
        name: String,
        outcome: Result<String, (ErrorCode, String)>,
        citations: Vec<Citation>,
    },
    /// The answer ended: why, what it cited, and the model calls left today.
    Done {
        stop: Ending,
        cited: Vec<Citation>,
        calls_left: Option<u32>,
    },
    /// The answer could not go on: the API's error code and a message. Nothing follows.
    Error { code: ErrorCode, message: String },
}

/// Why an answer ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The model answered.
    Answered,
    /// The model kept calling tools past the round cap; it was stopped.
    RoundLimit,
    /// The model ran out of tokens.
    MaxTokens,
}

impl Ending {
    pub fn as_str(self) -> &'static str {
        match self {
            Ending::Answered => "answered",
            Ending::RoundLimit => "round_limit",
            Ending::MaxTokens => "max_tokens",
        }
    }
}

/// Where an answer's events go.
pub trait AssistantSink: Send + Sync {
    fn event(&self, event: AssistantEvent);
}

/// A grant a conversation may run under, with the scopes the person would hold there.
#[derive(Clone, Debug, PartialEq)]
pub struct EligibleGrant {
    pub grant: crate::access::grant::Grant,
    pub scopes: crate::access::scope::ScopeSet,
}

/// A conversation as its person sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversationView {
    pub conversation: Conversation,
    pub turns: Vec<StoredTurn>,
}

/// A message taken and checked, ready to be answered.
pub struct Prepared {
    caller: Caller,
    /// The conversation's tenant: the person's (the grant may be its test twin's).
    tenant: TenantId,
    conversation: ConversationId,
    history: Vec<Turn>,
    next_seq: u32,
    message: String,
    tools: Vec<ToolSpec>,
}

impl Prepared {
    /// The message as the model gets it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

pub struct AssistantService {
    /// The model, when the operator configured one; without it the assistant is off.
    pub model: Option<Arc<dyn LanguageModel>>,
    pub tools: Arc<dyn AssistantTools>,
    pub store: Arc<dyn ConversationStore>,
    pub vault: Arc<dyn AssistantVault>,
    pub tenants: Arc<dyn TenantStore>,
    pub grants: Arc<dyn GrantStore>,
    pub gate: Arc<Gate>,
    pub clock: Arc<dyn Clock>,
    /// The deployment's calendar (the budget's day).
    pub calendar: BudgetCalendar,
    pub settings: AssistantSettings,
}

fn off() -> Failure {
    Failure::new(
        ErrorCode::UpstreamUnavailable,
        "the assistant is not configured on this deployment (the operator sets its model)",
    )
}

fn not_found() -> Failure {
    Failure::not_found("conversation")
}

impl AssistantService {
    /// The configured model's name, or `None` when the assistant is off.
    pub fn model_name(&self) -> Option<String> {
        self.model.as_ref().map(|m| m.model())
    }

    fn model(&self) -> Result<&Arc<dyn LanguageModel>, Failure> {
        self.model.as_ref().ok_or_else(off)
    }

    /// The grant `id` of the person's tenant or its test twin, with its tenant and key.
    async fn grant_of(&self, caller: &PortalCaller, id: &GrantId) -> Result<GrantAccess, Failure> {
        let live = self
            .tenants
            .tenant(&caller.session.tenant_id)
            .await
            .map_err(Failure::internal)?;
        for tenant in std::iter::once(live.id).chain(live.test_tenant) {
            if let Some(access) = self
                .grants
                .grant_access(&tenant, id)
                .await
                .map_err(Failure::internal)?
            {
                return Ok(access);
            }
        }
        Err(Failure::not_found("grant"))
    }

    /// The principal of the person's message: the conversation's grant as it stands now,
    /// bounded by the person's role ([`bounds::scopes`]).
    async fn admit(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        head: &StoredConversation,
    ) -> Result<Caller, Failure> {
        let access = self.grant_of(caller, &head.grant_id).await?;
        let now = self.clock.now();
        if let Some(lapse) = access.grant.lapse(now) {
            return Err(Failure::new(
                ErrorCode::Forbidden,
                format!(
                    "the conversation's grant is {}: start a conversation under a live grant",
                    match lapse {
                        crate::access::grant::GrantLapse::Revoked => "revoked",
                        crate::access::grant::GrantLapse::Expired => "expired",
                    }
                ),
            ));
        }
        if access.tenant.status != TenantStatus::Active {
            return Err(Failure::new(
                ErrorCode::TenantPending,
                "the tenant is not yet activated",
            ));
        }
        Ok(Caller {
            tenant_id: access.grant.tenant_id,
            grant_id: access.grant.id,
            scopes: bounds::scopes(caller.session.role, &access.grant.scopes),
            countries: access.grant.countries.clone(),
            tenant: access.tenant,
            data_key: access.data_key,
            surface: Surface::Assistant,
            context: ctx.clone(),
            connection: false,
            on_behalf: Some(OnBehalf {
                portal_user: caller.session.user_id,
                conversation: head.id,
            }),
        })
    }

    async fn head(&self, caller: &PortalCaller, id: &str) -> Result<StoredConversation, Failure> {
        let id: ConversationId = id.trim().parse().map_err(|_| not_found())?;
        self.store
            .conversation(&caller.session.tenant_id, &caller.session.user_id, &id)
            .await
            .map_err(Failure::internal)?
            .ok_or_else(not_found)
    }

    fn open_head(
        &self,
        head: &StoredConversation,
        access: &GrantAccess,
    ) -> Result<Conversation, Failure> {
        let title = self
            .vault
            .open_title(
                &access.grant.tenant_id,
                &access.data_key,
                &head.id,
                &head.title,
            )
            .map_err(Failure::internal)?;
        Ok(Conversation {
            id: head.id,
            tenant_id: head.tenant_id,
            portal_user_id: head.portal_user_id,
            grant_id: head.grant_id,
            title,
            created_at: head.created_at,
            updated_at: head.updated_at,
        })
    }

    async fn open_turns(
        &self,
        head: &StoredConversation,
        access: &GrantAccess,
    ) -> Result<Vec<StoredTurn>, Failure> {
        let sealed = self
            .store
            .turns(&head.tenant_id, &head.id)
            .await
            .map_err(Failure::internal)?;
        sealed
            .into_iter()
            .map(|(seq, at, sealed)| {
                self.vault
                    .open_turn(
                        &access.grant.tenant_id,
                        &access.data_key,
                        &head.id,
                        seq,
                        &sealed,
                    )
                    .map(|turn| StoredTurn { seq, at, turn })
                    .map_err(Failure::internal)
            })
            .collect()
    }

    /// The grants a conversation of the person may run under: the live ones of their tenant
    /// and its test twin, newest first, each with the scopes the person's role leaves.
    pub async fn grants(&self, caller: &PortalCaller) -> Result<Vec<EligibleGrant>, Failure> {
        let live = self
            .tenants
            .tenant(&caller.session.tenant_id)
            .await
            .map_err(Failure::internal)?;
        let now = self.clock.now();
        let mut out = Vec::new();
        for tenant in std::iter::once(live.id).chain(live.test_tenant) {
            for grant in self
                .grants
                .grants(&tenant)
                .await
                .map_err(Failure::internal)?
            {
                if grant.lapse(now).is_none() {
                    out.push(EligibleGrant {
                        scopes: bounds::scopes(caller.session.role, &grant.scopes),
                        grant,
                    });
                }
            }
        }
        out.sort_by_key(|e| std::cmp::Reverse((e.grant.created_at, e.grant.id)));
        Ok(out)
    }

    /// Starts a conversation under the grant `grant` of the person's tenant (or its test
    /// twin): a live grant, whose scopes the person's role bounds.
    pub async fn start(&self, caller: &PortalCaller, grant: &str) -> Result<Conversation, Failure> {
        self.model()?;
        let grant = crate::text::checked("grant_id", grant)?;
        let id: GrantId = grant
            .trim()
            .parse()
            .map_err(|_| Failure::not_found("grant"))?;
        let access = self.grant_of(caller, &id).await?;
        let now = self.clock.now();
        if access.grant.lapse(now).is_some() {
            return Err(Failure::new(
                ErrorCode::Forbidden,
                "the grant is revoked or expired: pick a live grant",
            ));
        }
        let id = ConversationId::generate();
        let tenant = caller.session.tenant_id;
        let title = self
            .vault
            .seal_title(&access.grant.tenant_id, &access.data_key, &id, "")
            .map_err(Failure::internal)?;
        let head = StoredConversation {
            id,
            tenant_id: tenant,
            portal_user_id: caller.session.user_id,
            grant_id: access.grant.id,
            title,
            created_at: now,
            updated_at: now,
        };
        self.store
            .insert_conversation(&head)
            .await
            .map_err(Failure::internal)?;
        self.open_head(&head, &access)
    }

    /// The person's conversations, most recently used first.
    pub async fn list(&self, caller: &PortalCaller) -> Result<Vec<Conversation>, Failure> {
        let heads = self
            .store
            .conversations(
                &caller.session.tenant_id,
                &caller.session.user_id,
                bounds::LIST_LIMIT,
            )
            .await
            .map_err(Failure::internal)?;
        let mut out = Vec::with_capacity(heads.len());
        for head in heads {
            let access = self.grant_of(caller, &head.grant_id).await?;
            out.push(self.open_head(&head, &access)?);
        }
        Ok(out)
    }

    /// One of the person's conversations with its turns; another's is not found.
    pub async fn read(&self, caller: &PortalCaller, id: &str) -> Result<ConversationView, Failure> {
        let head = self.head(caller, id).await?;
        let access = self.grant_of(caller, &head.grant_id).await?;
        Ok(ConversationView {
            conversation: self.open_head(&head, &access)?,
            turns: self.open_turns(&head, &access).await?,
        })
    }

    /// Deletes one of the person's conversations and everything said in it.
    pub async fn delete(&self, caller: &PortalCaller, id: &str) -> Result<(), Failure> {
        let id: ConversationId = id.trim().parse().map_err(|_| not_found())?;
        let deleted = self
            .store
            .delete_conversation(&caller.session.tenant_id, &caller.session.user_id, &id)
            .await
            .map_err(Failure::internal)?;
        if deleted {
            Ok(())
        } else {
            Err(not_found())
        }
    }

    /// The model calls the person's tenant made today and its daily allowance, or `None`
    /// when the assistant is off.
    pub async fn calls_today(&self, caller: &PortalCaller) -> Result<Option<(u32, u32)>, Failure> {
        if self.model.is_none() {
            return Ok(None);
        }
        let day = self.calendar.day(self.clock.now());
        let used = self
            .store
            .model_calls(&caller.session.tenant_id, day, day)
            .await
            .map_err(Failure::internal)?
            .into_iter()
            .map(|(_, n)| n)
            .sum();
        Ok(Some((used, self.settings.daily_calls)))
    }

    /// Deletes the conversations last used longer ago than the retention; how many.
    pub async fn purge(&self) -> Result<u64, Failure> {
        let before = self.clock.now() - self.settings.retention;
        self.store
            .purge_conversations(before)
            .await
            .map_err(Failure::internal)
    }

    /// Takes the person's message: checks it, resolves each personal number in it to the
    /// tenant's subject (the model gets the reference), and keeps it as the conversation's
    /// next turn. Nothing leaves the service here.
    pub async fn prepare(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        id: &str,
        text: &str,
    ) -> Result<Prepared, Failure> {
        self.model()?;
        let text = crate::text::checked("message", text)?;
        if text.trim().is_empty() {
            return Err(Failure::bad_request("message", "must not be empty"));
        }
        if text.chars().count() > bounds::MAX_MESSAGE_CHARS {
            return Err(Failure::bad_request(
                "message",
                &format!("must be at most {} characters", bounds::MAX_MESSAGE_CHARS),
            ));
        }
        let head = self.head(caller, id).await?;
        let principal = self.admit(ctx, caller, &head).await?;
        let access = self.grant_of(caller, &head.grant_id).await?;
        let stored = self.open_turns(&head, &access).await?;
        let now = self.clock.now();
        if let Some(last) = stored.last() {
            if is_persons_message(&last.turn) && now - last.at < bounds::answer_hold() {
                return Err(busy());
            }
        }
        let next_seq = stored.last().map_or(0, |t| t.seq + 1);

        // Personal numbers: resolved here, or the message is refused.
        let found = scan::personal_numbers(text, self.calendar.day(now))?;
        let trail = AuditTrail::new();
        let mut references = Vec::with_capacity(found.len());
        let mut failure = None;
        for f in &found {
            match self.tools.resolve(&principal, &trail, &f.identifier).await {
                Ok(r) => references.push(scan::reference(&r.identifier_ref, &r.subject_id)),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        self.gate.commit(&trail).await?;
        if let Some(e) = failure {
            return Err(e);
        }
        let message = scan::replace(text, &found, |i| references[i].clone())?;

        let turn = Turn::user_text(message.clone());
        let sealed = self
            .vault
            .seal_turn(
                &access.grant.tenant_id,
                &access.data_key,
                &head.id,
                next_seq,
                &turn,
            )
            .map_err(Failure::internal)?;
        match self
            .store
            .append_turns(&head.tenant_id, &head.id, next_seq, &[sealed], now)
            .await
        {
            Ok(()) => {}
            Err(StoreError::Conflict) => return Err(busy()),
            Err(StoreError::NotFound) => return Err(not_found()),
            Err(e) => return Err(Failure::internal(e)),
        }
        if next_seq == 0 {
            // The title: the first message's first words, as the model gets them.
            self.set_title(&head, &access, &message).await?;
        }
        let history: Vec<Turn> = stored.into_iter().map(|t| t.turn).collect();
        let tools = self.tools.offered(&principal.scopes);
        Ok(Prepared {
            caller: principal,
            tenant: head.tenant_id,
            conversation: head.id,
            history,
            next_seq: next_seq + 1,
            message,
            tools,
        })
    }

    async fn set_title(
        &self,
        head: &StoredConversation,
        access: &GrantAccess,
        message: &str,
    ) -> Result<(), Failure> {
        let title = scan::title(message, bounds::TITLE_CHARS);
        let sealed = self
            .vault
            .seal_title(&access.grant.tenant_id, &access.data_key, &head.id, &title)
            .map_err(Failure::internal)?;
        self.store
            .set_title(&head.tenant_id, &head.id, &sealed)
            .await
            .map_err(Failure::internal)
    }

    /// Answers a prepared message: the model's rounds, each tool call run for the person
    /// under the conversation's grant, every event sent to `sink` as it happens. What was
    /// said is kept, whatever the ending.
    pub async fn answer(&self, prepared: Prepared, sink: Arc<dyn AssistantSink>) {
        let model = match self.model() {
            Ok(m) => m.clone(),
            Err(e) => {
                sink.event(error_event(&e));
                return;
            }
        };
        sink.event(AssistantEvent::Accepted {
            message: prepared.message.clone(),
            model: model.model(),
        });
        let Prepared {
            caller,
            tenant,
            conversation,
            mut history,
            next_seq,
            message,
            tools,
        } = prepared;
        history.push(Turn::user_text(message));
        let offered: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
        let mut said: Vec<Turn> = Vec::new();
        let mut cited: Vec<Citation> = Vec::new();
        let mut calls_left = None;
        let mut round = 0u32;
        let mut ending: Result<Ending, Failure> = loop {
            // The allowance first: a call not allowed is not made.
            let day = self.calendar.day(self.clock.now());
            match self
                .store
                .spend_model_call(&tenant, day, self.settings.daily_calls)
                .await
            {
                Ok(Allowance::Spent { left }) => calls_left = Some(left),
                Ok(Allowance::Exhausted) => {
                    break Err(allowance_spent(self.settings.daily_calls, self.calendar));
                }
                Err(e) => {
                    break Err(Failure::internal(e));
                }
            }
            let request = ModelRequest {
                system: system_prompt(&caller, day),
                tools: tools.clone(),
                turns: history.iter().chain(&said).cloned().collect(),
                max_tokens: bounds::MAX_TOKENS,
            };
            let relay = Arc::new(Relay {
                sink: sink.clone(),
                blocks: Mutex::new(Vec::new()),
            });
            let reply = model.stream(&request, relay.clone()).await;
            let blocks = relay.take();
            let reply = match reply {
                Ok(reply) => reply,
                Err(e) => {
                    break Err(model_failure(&e));
                }
            };
            let uses: Vec<(String, String, String)> = blocks
                .iter()
                .filter_map(|b| match b {
                    Block::ToolUse { id, name, input } => {
                        Some((id.clone(), name.clone(), input.clone()))
                    }
                    _ => None,
                })
                .collect();
            // What the model wrote is kept, and sent back to it, with any number shaped like
            // a personal identity number withheld (it was never sent one).
            if !blocks.is_empty() {
                said.push(Turn {
                    role: Role::Assistant,
                    blocks: blocks.into_iter().map(withheld).collect(),
                });
            }
            if uses.is_empty() {
                break Ok(match reply.stop {
                    StopReason::MaxTokens => Ending::MaxTokens,
                    _ => Ending::Answered,
                });
            }
            // Every tool call gets its result, run or not: the model's next turn (and the
            // next message) needs one for each.
            let cut_off = reply.stop == StopReason::MaxTokens;
            let capped = round + 1 >= self.settings.round_cap;
            let mut results = Vec::with_capacity(uses.len());
            for (i, (id, name, input)) in uses.into_iter().enumerate() {
                sink.event(AssistantEvent::ToolCall {
                    id: id.clone(),
                    name: name.clone(),
                    input: scan::withhold(&input),
                });
                let outcome = if cut_off {
                    Err(Failure::bad_request(
                        "input",
                        "the tool call was cut off (the model ran out of tokens); not run",
                    ))
                } else if capped {
                    Err(Failure::new(
                        ErrorCode::RateLimited,
                        "not run: this message reached its cap of tool-call rounds",
                    ))
                } else if i >= bounds::CALLS_PER_ROUND {
                    Err(Failure::new(
                        ErrorCode::RateLimited,
                        format!(
                            "not run: at most {} tool calls a round",
                            bounds::CALLS_PER_ROUND
                        ),
                    ))
                } else {
                    self.run_tool(&caller, &offered, &name, &input).await
                };
                let (content, is_error, event) = match outcome {
                    Ok(answer) => {
                        for c in &answer.citations {
                            if !cited.contains(c) {
                                cited.push(c.clone());
                            }
                        }
                        (
                            answer.content,
                            false,
                            AssistantEvent::ToolResult {
                                id: id.clone(),
                                name: name.clone(),
                                outcome: Ok(answer.summary),
                                citations: answer.citations,
                            },
                        )
                    }
                    Err(f) => (
                        self.tools.failure_content(&f),
                        true,
                        AssistantEvent::ToolResult {
                            id: id.clone(),
                            name: name.clone(),
                            outcome: Err((f.code, f.message.clone())),
                            citations: Vec::new(),
                        },
                    ),
                };
                sink.event(event);
                results.push(Block::ToolResult {
                    tool_use_id: id,
                    content,
                    is_error,
                });
            }
            said.push(Turn {
                role: Role::User,
                blocks: results,
            });
            if cut_off {
                break Ok(Ending::MaxTokens);
            }
            if capped {
                break Ok(Ending::RoundLimit);
            }
            round += 1;
        };

        // An answer that broke off leaves a line saying so, so the conversation reads true
        // and the person's message does not wait for an answer that will not come.
        if let Err(f) = &ending {
            said.push(Turn {
                role: Role::Assistant,
                blocks: vec![Block::Text(format!(
                    "[no answer: {} ({})]",
                    f.code.as_str(),
                    f.message
                ))],
            });
        }
        if let Err(e) = self
            .keep(&caller, tenant, conversation, next_seq, &said)
            .await
        {
            if ending.is_ok() {
                ending = Err(e);
            }
        }
        sink.event(match ending {
            Ok(stop) => AssistantEvent::Done {
                stop,
                cited,
                calls_left,
            },
            Err(f) => error_event(&f),
        });
    }

    /// Runs one tool call: offered, no raw personal number in its arguments, then the tool
    /// layer; its `mcp.tool_call` row (surface `assistant`, naming the person and the
    /// conversation) is written with the rows of the routes it ran.
    async fn run_tool(
        &self,
        caller: &Caller,
        offered: &[String],
        name: &str,
        input: &str,
    ) -> Result<crate::assistant::ports::ToolAnswer, Failure> {
        let trail = AuditTrail::new();
        let result = if !offered.iter().any(|o| o == name) {
            Err(Failure::new(
                ErrorCode::Forbidden,
                format!("`{}` is not a tool offered here", short(name)),
            ))
        } else if holds_personal_number(input) || self.tools.input_holds_personal_number(input) {
            Err(scan::number_in_tool_call())
        } else {
            self.tools.call(caller, &trail, name, input).await
        };
        self.gate.note(
            &trail,
            caller,
            Operation::McpToolCall,
            result.as_ref().map(|_| 200).map_err(|f| f.code),
            Some(short(name)),
        );
        self.gate.commit(&trail).await?;
        result
    }

    async fn keep(
        &self,
        caller: &Caller,
        tenant: TenantId,
        conversation: ConversationId,
        first_seq: u32,
        said: &[Turn],
    ) -> Result<(), Failure> {
        if said.is_empty() {
            return Ok(());
        }
        let sealed = said
            .iter()
            .zip(first_seq..)
            .map(|(turn, seq)| {
                self.vault.seal_turn(
                    &caller.tenant_id,
                    &caller.data_key,
                    &conversation,
                    seq,
                    turn,
                )
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(Failure::internal)?;
        self.store
            .append_turns(&tenant, &conversation, first_seq, &sealed, self.clock.now())
            .await
            .map_err(|e| match e {
                StoreError::Conflict => busy(),
                e => Failure::internal(e),
            })
    }
}

/// The model's events on their way: text goes to the person at once; the blocks are kept
/// for the conversation (text pieces joined).
struct Relay {
    sink: Arc<dyn AssistantSink>,
    blocks: Mutex<Vec<Block>>,
}

impl Relay {
    fn take(&self) -> Vec<Block> {
        std::mem::take(&mut *self.blocks.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl ModelSink for Relay {
    fn event(&self, event: ModelEvent) {
        let mut blocks = self.blocks.lock().unwrap_or_else(|p| p.into_inner());
        match (&event, blocks.last_mut()) {
            (ModelEvent::Text(t), Some(Block::Text(last))) => last.push_str(t),
            _ => blocks.push(event.block()),
        }
        drop(blocks);
        if let ModelEvent::Text(t) = event {
            self.sink.event(AssistantEvent::Text(t));
        }
    }
}

/// A block the model wrote, with any personal number in it withheld
/// ([`scan::withhold`]).
fn withheld(block: Block) -> Block {
    match block {
        Block::Text(t) => Block::Text(scan::withhold(&t)),
        Block::ToolUse { id, name, input } => Block::ToolUse {
            id,
            name,
            input: scan::withhold(&input),
        },
        other => other,
    }
}

/// Whether a turn is a person's message (not the results of tools).
fn is_persons_message(turn: &Turn) -> bool {
    turn.role == Role::User && turn.blocks.iter().any(|b| matches!(b, Block::Text(_)))
}

fn busy() -> Failure {
    Failure::new(
        ErrorCode::RateLimited,
        "a message in this conversation is still being answered; send yours when it ends",
    )
}

fn allowance_spent(per_day: u32, calendar: BudgetCalendar) -> Failure {
    Failure::new(
        ErrorCode::BudgetExceeded,
        format!(
            "the tenant's {per_day} assistant model calls for today are spent; the allowance \
             renews at midnight {}",
            calendar.zone()
        ),
    )
}

/// The API's failure for a model that failed after the adapter's retries.
fn model_failure(e: &ModelError) -> Failure {
    match e {
        ModelError::RateLimited(_) => Failure::new(
            ErrorCode::RateLimited,
            "the assistant's model is rate limiting this service; try again in a minute",
        ),
        ModelError::Overloaded(_) => Failure::new(
            ErrorCode::UpstreamUnavailable,
            "the assistant's model is overloaded; try again shortly",
        ),
        ModelError::Unavailable(_) | ModelError::Interrupted(_) => Failure::new(
            ErrorCode::UpstreamUnavailable,
            "the assistant's model did not answer in full; try again",
        ),
        ModelError::Rejected(_) => Failure::new(
            ErrorCode::UpstreamUnavailable,
            "the assistant's model refused the request (a configuration fault the operator \
             can see in the log)",
        ),
    }
}

fn error_event(f: &Failure) -> AssistantEvent {
    AssistantEvent::Error {
        code: f.code,
        message: f.message.clone(),
    }
}

/// A model-written name, cut for a message or an audit row.
fn short(name: &str) -> &str {
    match name.char_indices().nth(64) {
        Some((at, _)) => &name[..at],
        None => name,
    }
}

/// What the model is told about its place: whose assistant it is, what it may do, and how
/// it must treat people's numbers and evidence.
pub fn system_prompt(caller: &Caller, today: chrono::NaiveDate) -> String {
    let countries: Vec<&str> = caller.countries.iter().map(|c| c.prefix()).collect();
    format!(
        "You are the assistant of idreg, a register service for compliance analysts, in the \
         tenant portal. Today is {today}. Answer from idreg's tools only: never invent \
         register data. Cite the evidence each fact rests on: the call_ref of the upstream \
         call and, for screening, the list versions. The tools run under the analyst's grant \
         (countries: {countries}); a refusal names its error code: say so plainly. People \
         are referred to by identifier_ref: the analyst's message names them that way, and \
         a tool's argument must never hold a personal identity number (such a call is \
         refused with identifier_in_argument). Answer in the language of the question, \
         briefly.",
        countries = countries.join(", ")
    )
}
