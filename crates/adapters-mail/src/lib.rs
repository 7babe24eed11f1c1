#![doc = include_str!("../README.md")]

use async_trait::async_trait;
use domain::meter::Meter;
use domain::portal::ports::{Mail, MailError, Mailer};
use std::sync::Arc;
use std::time::Duration;

/// Mail into the sandbox's mailbox.
pub struct SandboxMailbox {
    url: String,
    client: reqwest::Client,
}

impl SandboxMailbox {
    /// `control_url` is the sandbox's control API (`RunningSandbox::control_url`).
    pub fn new(control_url: &str) -> Result<SandboxMailbox, reqwest::Error> {
        Ok(SandboxMailbox {
            url: format!("{}/mailbox", control_url.trim_end_matches('/')),
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(5))
                .redirect(reqwest::redirect::Policy::none())
                .build()?,
        })
    }
}

#[async_trait]
impl Mailer for SandboxMailbox {
    async fn send(&self, mail: &Mail) -> Result<(), MailError> {
        let body = serde_json::json!({
            "to": mail.to.as_str(),
            "subject": mail.subject,
            "text": mail.text,
        });
        let answer = self
            .client
            .post(&self.url)
            .json(&body)
            .send()
            .await
            .map_err(|_| MailError::Failed("the sandbox's mailbox could not be reached".into()))?;
        if answer.status().is_success() {
            Ok(())
        } else {
            Err(MailError::Failed(format!(
                "the sandbox's mailbox answered {}",
                answer.status().as_u16()
            )))
        }
    }
}

/// Mail over SMTP (lettre): `smtps://` (TLS from the first byte), `smtp://...?tls=required`
/// (STARTTLS, refusing a server without it) or plain `smtp://` to a relay on the same host or
/// network; credentials in the URL, percent-encoded. Certificates are checked against the
/// platform's roots. A failure names its kind, never the recipient or the server's words
/// (which may quote the address).
pub struct SmtpMailer {
    transport: lettre::AsyncSmtpTransport<lettre::Tokio1Executor>,
    from: lettre::message::Mailbox,
}

impl SmtpMailer {
    /// How long one delivery may take, connection included.
    pub const TIMEOUT: Duration = Duration::from_secs(20);

    /// `url` names the server; `from` the sender (`idreg <no-reply@example.com>`).
    pub fn new(url: &str, from: &str) -> Result<SmtpMailer, MailError> {
        let transport = lettre::AsyncSmtpTransport::<lettre::Tokio1Executor>::from_url(url)
            .map_err(|_| {
                MailError::Failed(
                    "the SMTP URL is not smtp://host[:port][?tls=required|opportunistic] or \
                     smtps://host[:port]"
                        .into(),
                )
            })?
            .timeout(Some(Self::TIMEOUT))
            .build();
        let from = from
            .parse()
            .map_err(|_| MailError::Failed("the sender is not a mail address".into()))?;
        Ok(SmtpMailer { transport, from })
    }
}

#[async_trait]
impl Mailer for SmtpMailer {
    async fn send(&self, mail: &Mail) -> Result<(), MailError> {
        use lettre::AsyncTransport;
        let to: lettre::Address = mail
            .to
            .as_str()
            .parse()
            .map_err(|_| MailError::Failed("the recipient is not a mail address".into()))?;
        let message = lettre::Message::builder()
            .from(self.from.clone())
            .to(lettre::message::Mailbox::new(None, to))
            .subject(mail.subject.as_str())
            .header(lettre::message::header::ContentType::TEXT_PLAIN)
            // lettre picks the encoding: quoted-printable for lines past 76 characters, as a
            // sign-in link's line is; every mail client decodes it.
            .body(mail.text.clone())
            .map_err(|_| MailError::Failed("the mail could not be composed".into()))?;
        self.transport.send(message).await.map(|_| ()).map_err(|e| {
            let kind = if e.is_permanent() {
                "refused it"
            } else if e.is_transient() {
                "asked to try later"
            } else if e.is_timeout() {
                "did not answer in time"
            } else {
                "could not be reached"
            };
            MailError::Failed(format!("the mail server {kind}"))
        })
    }
}

/// A deployment with no mail transport configured: every mail is refused (the portal's
/// sign-in then answers 503 `upstream_unavailable`), never silently dropped.
pub struct NoTransport;

#[async_trait]
impl Mailer for NoTransport {
    async fn send(&self, _: &Mail) -> Result<(), MailError> {
        Err(MailError::NoTransport)
    }
}

/// Hands mail to a transport off the request path: [`Mailer::send`] queues the mail and
/// answers at once, and one background task sends the queue in order. A sign-in request thus
/// takes as long whether or not the address is a user's (no timing tells), and a slow or
/// missing transport never holds a request. Each outcome is counted
/// (`idreg_portal_mail_total{outcome}`) and a failure logged, without the address.
pub struct Outbox {
    queue: tokio::sync::mpsc::Sender<Mail>,
    meter: Arc<dyn Meter>,
}

impl Outbox {
    /// Mail waiting beyond this is refused (counted `queue_full`).
    pub const CAPACITY: usize = 256;

    /// Starts the sending task on the current Tokio runtime.
    pub fn start(transport: Arc<dyn Mailer>, meter: Arc<dyn Meter>) -> Arc<Outbox> {
        let (queue, mut waiting) = tokio::sync::mpsc::channel::<Mail>(Self::CAPACITY);
        let counted = meter.clone();
        tokio::spawn(async move {
            while let Some(mail) = waiting.recv().await {
                match transport.send(&mail).await {
                    Ok(()) => counted.portal_mail("sent"),
                    Err(MailError::NoTransport) => {
                        counted.portal_mail("no_transport");
                        tracing::warn!(
                            "a portal sign-in link was not sent: no mail transport is configured (IDREG_SMTP_URL)"
                        );
                    }
                    Err(e) => {
                        counted.portal_mail("failed");
                        tracing::warn!(error = %e, "a portal sign-in link could not be sent");
                    }
                }
            }
        });
        Arc::new(Outbox { queue, meter })
    }
}

#[async_trait]
impl Mailer for Outbox {
    async fn send(&self, mail: &Mail) -> Result<(), MailError> {
        self.queue.try_send(mail.clone()).map_err(|_| {
            self.meter.portal_mail("queue_full");
            tracing::warn!("a portal sign-in link was dropped: the mail queue is full");
            MailError::Failed("the mail queue is full".into())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::portal::user::Email;

    #[tokio::test]
    async fn a_mail_reaches_the_sandbox_mailbox_of_its_address() {
        let sandbox = upstream_sandbox::Sandbox::start(Default::default()).unwrap();
        let mailer = SandboxMailbox::new(&sandbox.control_url()).unwrap();
        let mail = Mail {
            to: Email::parse("anna@example.se").unwrap(),
            subject: "Your idreg sign-in link".into(),
            text: "https://portal.example/sign-in/complete?link=pl_x".into(),
        };
        mailer.send(&mail).await.unwrap();
        let got = sandbox.control().mailbox("ANNA@example.se");
        assert_eq!(got.len(), 1);
        assert_eq!(
            (
                got[0].to.as_str(),
                got[0].subject.as_str(),
                got[0].text.as_str()
            ),
            ("anna@example.se", mail.subject.as_str(), mail.text.as_str())
        );
        assert!(sandbox.control().mailbox("bertil@example.se").is_empty());
        // A mailbox that cannot be reached is an error, not a silent loss.
        let nowhere = SandboxMailbox::new("http://127.0.0.1:9/_control").unwrap();
        assert!(nowhere.send(&mail).await.is_err());
        assert!(NoTransport.send(&mail).await.is_err());
    }

    #[test]
    fn an_smtp_mailer_takes_the_three_url_forms_and_a_sender_address() {
        for url in [
            "smtp://127.0.0.1:2525",
            "smtp://user:p%40ss@mail.example.com:587?tls=required",
            "smtps://mail.example.com",
        ] {
            assert!(
                SmtpMailer::new(url, "idreg <no-reply@example.com>").is_ok(),
                "{url}"
            );
        }
        for (url, from) in [
            ("http://mail.example.com", "no-reply@example.com"),
            (
                "smtp://mail.example.com?tls=sometimes",
                "no-reply@example.com",
            ),
            ("not a url", "no-reply@example.com"),
            ("smtp://mail.example.com", "no-reply"),
        ] {
            let e = SmtpMailer::new(url, from).err().expect("refused");
            // The refusal never repeats the URL (it may carry a password).
            assert!(!e.to_string().contains("example.com"), "{e}");
        }
    }
}
