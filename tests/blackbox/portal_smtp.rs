//! The portal's sign-in mail over SMTP (lettre) to a real SMTP server: aiosmtpd from PyPI,
//! printing every message it receives. The link arrives in a plain-text mail from the
//! configured sender to the user's address, and signs in; with the server gone, asking for a
//! link answers as for any address, and the failure is counted for the operator.

use blackbox::{free_port, test_python, TestApp};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

const FROM: &str = "idreg <no-reply@example.com>";

/// A quoted-printable body decoded (RFC 2045 6.7): soft line breaks joined, `=XX` octets
/// read, as a mail client shows it.
fn quoted_printable(body: &str) -> String {
    let joined = body.replace("=\r\n", "").replace("=\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'=' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
            if let Ok(b) = u8::from_str_radix(hex, 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn sign_in_links_go_out_over_smtp() {
    let Some(python) = test_python("aiosmtpd") else {
        return;
    };
    let port = free_port();
    let mut server = tokio::process::Command::new(python)
        .args([
            "-u",
            "-m",
            "aiosmtpd",
            "-n",
            "-l",
            &format!("127.0.0.1:{port}"),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("aiosmtpd starts");
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut received = BufReader::new(server.stdout.take().unwrap()).lines();

    let app = TestApp::spawn_with(|c| {
        c.smtp_url = Some(format!("smtp://127.0.0.1:{port}"));
        c.mail_from = Some(FROM.into());
    })
    .await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    app.app
        .services
        .portal_admin
        .create_user(&c.tenant_id, "lead@example.se", "admin", None)
        .await
        .unwrap();
    let browser = blackbox::portal::browser();
    let asked = browser
        .post(format!("{}/sign-in", app.portal_url))
        .form(&[("email", "lead@example.se")])
        .send()
        .await
        .unwrap();
    assert_eq!(asked.status(), 200);

    // The message as the server printed it, up to its end marker.
    let mut message = Vec::new();
    let read = async {
        while let Some(line) = received.next_line().await.unwrap() {
            if line.contains("END MESSAGE") {
                break;
            }
            message.push(line);
        }
    };
    tokio::time::timeout(Duration::from_secs(30), read)
        .await
        .expect("the mail reaches the SMTP server");
    let text = message.join("\n");
    assert!(
        text.contains("From: idreg <no-reply@example.com>"),
        "{text}"
    );
    assert!(text.contains("To: lead@example.se"), "{text}");
    assert!(text.contains("Subject: Your idreg sign-in link"), "{text}");
    assert!(text.contains("Content-Type: text/plain"), "{text}");
    assert!(
        app.sandbox().mailbox("lead@example.se").is_empty(),
        "SMTP, not the sandbox's mailbox"
    );
    assert!(
        text.contains("Content-Transfer-Encoding: quoted-printable"),
        "{text}"
    );
    let body = quoted_printable(&text[text.find("\n\n").unwrap()..]);
    assert!(body.contains(&app.portal_url), "{body}");
    let link = blackbox::portal::link_in(&body);
    let done = browser
        .post(format!("{}/sign-in/complete", app.portal_url))
        .form(&[("link", link)])
        .send()
        .await
        .unwrap();
    assert_eq!(done.status(), 303, "the mailed link signs in");

    // The server gone: the page answers as it does for any address (the asker learns
    // nothing: not whether the address is a user's, nor that mail is failing), names neither
    // the address nor the server, and the operator is told by the metric.
    server.kill().await.unwrap();
    let down = browser
        .post(format!("{}/sign-in", app.portal_url))
        .form(&[("email", "lead@example.se")])
        .send()
        .await
        .unwrap();
    assert_eq!(down.status(), 200);
    let page = down.text().await.unwrap();
    let unknown = blackbox::portal::browser()
        .post(format!("{}/sign-in", app.portal_url))
        .form(&[("email", "nobody@example.se")])
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(
        page, unknown,
        "a failing transport answers as an unknown address does"
    );
    assert!(
        !page.contains("lead@example.se") && !page.contains("127.0.0.1"),
        "{page}"
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let figures = app.app.meter.render(&app.app.services.gauges.read().await);
        if figures.contains(r#"idreg_portal_mail_total{outcome="failed"} 1"#) {
            assert!(
                figures.contains(r#"idreg_portal_mail_total{outcome="sent"} 1"#),
                "{figures}"
            );
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{figures}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
