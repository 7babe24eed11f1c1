#![doc = include_str!("../README.md")]

use async_trait::async_trait;
use domain::portal::ports::{Mail, MailError, Mailer};
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
            .map_err(|_| MailError("the sandbox's mailbox could not be reached".into()))?;
        if answer.status().is_success() {
            Ok(())
        } else {
            Err(MailError(format!(
                "the sandbox's mailbox answered {}",
                answer.status().as_u16()
            )))
        }
    }
}

/// A deployment with no mail transport configured: every mail is refused (the portal's
/// sign-in then answers 503 `upstream_unavailable`), never silently dropped.
pub struct NoTransport;

#[async_trait]
impl Mailer for NoTransport {
    async fn send(&self, _: &Mail) -> Result<(), MailError> {
        Err(MailError(
            "no mail transport is configured for this deployment".into(),
        ))
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
}
