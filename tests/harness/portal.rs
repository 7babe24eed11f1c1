//! What every test of the tenant portal does as a browser would: keep cookies, follow no
//! redirect (a test reads each `Location`), and take the one-time link out of a sign-in mail.

/// A client of the portal's listener that keeps cookies like a browser and follows no
/// redirect.
pub fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a cookie-keeping client")
}

/// The one-time link (`pl_...`) a sign-in mail's text carries after `link=`.
pub fn link_in(mail_text: &str) -> &str {
    let at = mail_text.find("link=").expect("a sign-in link in the mail") + "link=".len();
    mail_text[at..]
        .split_whitespace()
        .next()
        .expect("a sign-in link in the mail")
}

/// A person signed in to the portal: their browser (cookies kept) and the session's CSRF
/// token.
pub struct SignedIn {
    pub http: reqwest::Client,
    pub csrf: String,
    pub portal: String,
}

/// Makes a portal user of `tenant` with `role` and signs them in as a browser does: the
/// link asked for, read from the sandbox's mailbox, redeemed ([`sign_in_as`]).
pub async fn sign_in(app: &crate::TestApp, tenant: &str, email: &str, role: &str) -> SignedIn {
    app.app
        .services
        .portal_admin
        .create_user(tenant, email, role, None)
        .await
        .expect("a portal user");
    sign_in_as(app, email).await
}

/// Signs an existing portal user in as a browser does.
pub async fn sign_in_as(app: &crate::TestApp, email: &str) -> SignedIn {
    let http = browser();
    let portal = app.portal_url.clone();
    let asked = http
        .post(format!("{portal}/sign-in"))
        .form(&[("email", email)])
        .send()
        .await
        .expect("sign-in asked");
    assert_eq!(asked.status(), 200);
    let mail = app.sandbox().mailbox(email);
    let link = link_in(&mail.last().expect("a mail").text).to_owned();
    let done = http
        .post(format!("{portal}/sign-in/complete"))
        .form(&[("link", link)])
        .send()
        .await
        .expect("sign-in completed");
    assert_eq!(done.status(), 303);
    let me: serde_json::Value = http
        .get(format!("{portal}/v1/portal/session"))
        .send()
        .await
        .expect("the session")
        .json()
        .await
        .expect("the session's JSON");
    SignedIn {
        http,
        csrf: me["csrf_token"].as_str().expect("a CSRF token").to_owned(),
        portal,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_link_is_taken_from_the_mail_up_to_its_end() {
        let text =
            "Sign in:\n\nhttp://p.test/sign-in/complete?link=pl_abc-_9\n\nThe link works once.";
        assert_eq!(super::link_in(text), "pl_abc-_9");
    }
}
