//! Sign-in to the portal by one-time link, the sessions it opens, and sign-out.

use crate::access::audit::{
    Outcome, PortalAuditRecord, RequestContext, SecurityReason, SecurityRecord,
};
use crate::access::ports::AuditSink;
use crate::clock::Clock;
use crate::error::{ErrorCode, Failure};
use crate::portal::action::PortalAction;
use crate::portal::ports::{Mail, Mailer, PortalSecrets, PortalStore};
use crate::portal::sign_in::{
    link_failure, PortalSession, Redemption, SignInLink, TokenKind, LINKS_PER_WINDOW,
    LINK_LIFETIME, LINK_WINDOW, SESSION_IDLE, SESSION_LIFETIME,
};
use crate::portal::user::{Email, PortalUser};
use std::sync::Arc;

pub struct PortalSignIn {
    pub store: Arc<dyn PortalStore>,
    pub secrets: Arc<dyn PortalSecrets>,
    pub mailer: Arc<dyn Mailer>,
    /// Every sign-in attempt is recorded: a known user's in their tenant's audit log, any
    /// other in the security log.
    pub audit: Arc<dyn AuditSink>,
    pub clock: Arc<dyn Clock>,
}

/// The security-log row of a sign-in attempt no portal user answers for.
fn security_row(
    ctx: &RequestContext,
    action: PortalAction,
    reason: SecurityReason,
) -> SecurityRecord {
    SecurityRecord {
        request_id: ctx.request_id,
        occurred_at: ctx.received_at,
        method: action.method(),
        route: action.route(),
        status: if action == PortalAction::SignInRequested {
            202
        } else {
            401
        },
        reason,
        client_id: None,
        peer: ctx.peer.clone(),
    }
}

/// What a sign-in request did, for the surface: the binding cookie to set (the browser's own
/// when it sent a well-formed one). How many links went out is never told to the browser.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkRequested {
    pub binding: String,
    /// Links sent, and requests over the limit (for the audit trail).
    pub sent: u32,
    pub limited: u32,
}

/// A signed-in browser: the session cookie to set and its CSRF token.
#[derive(Clone, Debug, PartialEq)]
pub struct SignedIn {
    pub session_token: String,
    pub csrf: String,
    pub session: PortalSession,
}

/// A request made under a live session.
#[derive(Clone, Debug, PartialEq)]
pub struct PortalCaller {
    pub session: PortalSession,
    pub csrf: String,
}

impl PortalSignIn {
    /// `POST /sign-in`: mails a link to every active user with the address (one per tenant),
    /// bound to the asking browser. The answer is the same whether or not anyone has it.
    /// `origin` is the portal's (`https://portal.example.com`), which the mailed link names.
    pub async fn request_link(
        &self,
        ctx: &RequestContext,
        email: &str,
        binding: Option<&str>,
        origin: &str,
    ) -> Result<LinkRequested, Failure> {
        let email = Email::parse(crate::text::checked("email", email)?)?;
        let binding = binding
            .filter(|b| TokenKind::Binding.fits(b))
            .map(str::to_owned)
            .unwrap_or_else(|| self.secrets.new_token(TokenKind::Binding));
        let now = self.clock.now();
        let users = self
            .store
            .active_users_by_email(&email)
            .await
            .map_err(Failure::internal)?;
        let mut requested = LinkRequested {
            binding,
            sent: 0,
            limited: 0,
        };
        if users.is_empty() {
            self.audit
                .record_security(&security_row(
                    ctx,
                    PortalAction::SignInRequested,
                    SecurityReason::UnknownPortalAddress,
                ))
                .await
                .map_err(Failure::internal)?;
        }
        for user in users {
            let mut row = PortalAuditRecord::concluded(
                ctx,
                user.tenant_id,
                user.id,
                PortalAction::SignInRequested,
                Ok(202),
            );
            let token = self.secrets.new_token(TokenKind::Link);
            let link = SignInLink {
                digest: self.secrets.digest(&token),
                tenant_id: user.tenant_id,
                user_id: user.id,
                binding: self.secrets.digest(&requested.binding),
                created_at: now,
                expires_at: now + LINK_LIFETIME,
            };
            let stored = self
                .store
                .record_link(&link, LINKS_PER_WINDOW, now - LINK_WINDOW)
                .await
                .map_err(Failure::internal)?;
            if !stored {
                requested.limited += 1;
                row.outcome = Outcome::Refused;
                row.detail = Some("links_per_window");
                self.audit
                    .record_portal(&row)
                    .await
                    .map_err(Failure::internal)?;
                continue;
            }
            // The mail is handed to the outbox; a transport that cannot take it is the
            // operator's to fix (counted and logged there) and never told to the asker, whose
            // answer must not say whether the address is a user's.
            let handed = self.mailer.send(&link_mail(&user, &token, origin)).await;
            if handed.is_err() {
                row.outcome = Outcome::Failed;
                row.detail = Some("mail_not_sent");
            }
            // The row says whether the mail was handed over, whichever way it went.
            self.audit
                .record_portal(&row)
                .await
                .map_err(Failure::internal)?;
            if handed.is_ok() {
                requested.sent += 1;
            }
        }
        Ok(requested)
    }
}

fn link_mail(user: &PortalUser, token: &str, origin: &str) -> Mail {
    {
        let url = format!(
            "{}/sign-in/complete?link={token}",
            origin.trim_end_matches('/')
        );
        Mail {
            to: user.email.clone(),
            subject: "Your idreg sign-in link".to_owned(),
            text: format!(
                "Sign in to the idreg portal (tenant {tenant}):\n\n{url}\n\nThe link works once, \
                 for 15 minutes, in the browser you asked from. If you did not ask for it, ignore \
                 this mail.\n",
                tenant = user.tenant_id
            ),
        }
    }
}

impl PortalSignIn {
    /// Redeems a link in the browser that asked for it: the session cookie to set, or the
    /// specification's code (`invalid_link`, `link_invalid`, `link_used`, `link_expired`).
    pub async fn redeem(
        &self,
        ctx: &RequestContext,
        link: &str,
        binding: Option<&str>,
    ) -> Result<SignedIn, Failure> {
        let result = self.redeem_unrecorded(link, binding).await;
        match &result {
            Ok(signed) => {
                let row = PortalAuditRecord::concluded(
                    ctx,
                    signed.session.tenant_id,
                    signed.session.user_id,
                    PortalAction::SignedIn,
                    Ok(200),
                );
                self.audit
                    .record_portal(&row)
                    .await
                    .map_err(Failure::internal)?;
            }
            Err(f) if f.code.status() == 401 => {
                self.audit
                    .record_security(&security_row(
                        ctx,
                        PortalAction::SignedIn,
                        SecurityReason::PortalLinkRefused,
                    ))
                    .await
                    .map_err(Failure::internal)?;
            }
            Err(_) => {}
        }
        result
    }

    async fn redeem_unrecorded(
        &self,
        link: &str,
        binding: Option<&str>,
    ) -> Result<SignedIn, Failure> {
        if !TokenKind::Link.fits(link) {
            return Err(link_failure(ErrorCode::InvalidLink));
        }
        let Some(binding) = binding.filter(|b| TokenKind::Binding.fits(b)) else {
            return Err(link_failure(ErrorCode::LinkInvalid));
        };
        let now = self.clock.now();
        let session_token = self.secrets.new_token(TokenKind::Session);
        let redeemed = self
            .store
            .redeem_link(
                &self.secrets.digest(link),
                &self.secrets.digest(binding),
                &self.secrets.digest(&session_token),
                now,
                now + SESSION_LIFETIME,
            )
            .await
            .map_err(Failure::internal)?;
        match redeemed {
            Redemption::Unknown => Err(link_failure(ErrorCode::LinkInvalid)),
            Redemption::Used => Err(link_failure(ErrorCode::LinkUsed)),
            Redemption::Expired => Err(link_failure(ErrorCode::LinkExpired)),
            Redemption::SignedIn(session) => Ok(SignedIn {
                csrf: self.secrets.csrf_token(&session_token),
                session_token,
                session,
            }),
        }
    }

    /// The caller of a portal request: its session cookie's live session, else 401 (saying
    /// what the portal takes: a session, never a bearer token).
    pub async fn caller(&self, session_token: Option<&str>) -> Result<PortalCaller, Failure> {
        let no_session = || {
            Failure::new(
                ErrorCode::Unauthorized,
                "a live portal session is required: sign in by a one-time link (the portal takes no bearer token)",
            )
        };
        let Some(token) = session_token.filter(|t| TokenKind::Session.fits(t)) else {
            return Err(no_session());
        };
        let session = self
            .store
            .session(&self.secrets.digest(token), self.clock.now(), SESSION_IDLE)
            .await
            .map_err(Failure::internal)?
            .ok_or_else(no_session)?;
        Ok(PortalCaller {
            session,
            csrf: self.secrets.csrf_token(token),
        })
    }

    /// Every write of the portal: the CSRF token it carries must be the session's.
    pub fn check_csrf(
        &self,
        caller: &PortalCaller,
        presented: Option<&str>,
    ) -> Result<(), Failure> {
        let matches = presented.is_some_and(|p| {
            p.len() == caller.csrf.len()
                && p.bytes()
                    .zip(caller.csrf.bytes())
                    .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                    == 0
        });
        if matches {
            Ok(())
        } else {
            Err(Failure::new(
                ErrorCode::Forbidden,
                "the request does not carry this session's CSRF token; reload the page",
            ))
        }
    }

    /// Signs out: the session ends now (an unknown or ended one is already out).
    pub async fn sign_out(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        session_token: Option<&str>,
    ) -> Result<(), Failure> {
        if let Some(token) = session_token.filter(|t| TokenKind::Session.fits(t)) {
            self.store
                .end_session(&self.secrets.digest(token), self.clock.now())
                .await
                .map_err(Failure::internal)?;
        }
        let row = PortalAuditRecord::concluded(
            ctx,
            caller.session.tenant_id,
            caller.session.user_id,
            PortalAction::SignedOut,
            Ok(204),
        );
        self.audit
            .record_portal(&row)
            .await
            .map_err(Failure::internal)
    }
}
