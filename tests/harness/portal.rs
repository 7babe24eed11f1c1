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

#[cfg(test)]
mod tests {
    #[test]
    fn the_link_is_taken_from_the_mail_up_to_its_end() {
        let text =
            "Sign in:\n\nhttp://p.test/sign-in/complete?link=pl_abc-_9\n\nThe link works once.";
        assert_eq!(super::link_in(text), "pl_abc-_9");
    }
}
