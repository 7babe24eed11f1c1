//! A consumer's webhook endpoint and its deliveries: the values, the rules of an endpoint's
//! address, and the retry schedule.
//!
//! An endpoint is a cursor into its tenant's event log that the service advances by pushing:
//! each event after the cursor (of the endpoint's types, in the owning grant's countries) is
//! sent in `seq` order, and the cursor moves past an event only once the receiver answered
//! 2xx. A failed delivery is retried on the schedule of [`RetrySchedule`]; the events behind
//! it wait, so none is skipped and the order is kept. An endpoint that has failed for
//! [`RetrySchedule::disable_after`] is disabled, with a `webhook.endpoint_disabled` event in
//! the log; enabled again, it resumes at its cursor.

use crate::error::Failure;
use crate::ids::{EventId, GrantId, TenantId, WebhookEndpointId};
use chrono::{DateTime, Duration, Utc};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The longest endpoint address accepted, in bytes.
pub const MAX_URL_BYTES: usize = 2048;
/// The longest description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 200;
/// How many endpoints one grant may hold (active or disabled).
pub const MAX_ENDPOINTS_PER_GRANT: u32 = 10;
/// The shape of an accepted address, for interface schemas (the rest of the rule, a host's
/// address class, is the `webhook-url` format): `https://`, a host name or an IP literal, an
/// optional port, an optional path and query, no white space, credentials or fragment.
pub const URL_SHAPE_PATTERN: &str =
    "^https?://(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\\[[0-9A-Fa-f:.]+\\])(?::[0-9]{1,5})?(?:[/?][^\\s#]*)?$";
/// A description: no control characters.
pub const DESCRIPTION_PATTERN: &str = "^[^\\u0000-\\u001f\\u007f-\\u009f]*$";
/// How long an attempt stays in its endpoint's delivery log.
pub const DELIVERY_LOG_DAYS: i64 = 30;

/// What an endpoint's URL names as its host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndpointHost {
    /// An IP address written in the URL: never resolved, so checked where it is used.
    Ip(IpAddr),
    /// A DNS name.
    Name,
    /// The stored text no longer reads as a URL with a host.
    Unreadable,
}

/// An endpoint's address: absolute `https` (plain `http` only to a loopback host, and only
/// where the deployment allows loopback receivers), no credentials, no fragment, and an IP
/// literal only when it is publicly routable (a host name is checked when it is resolved, at
/// every delivery, by the same rule: [`address_allowed`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndpointUrl(String);

impl EndpointUrl {
    /// What the URL names as its host: an IP address written in it, or a DNS name (which the
    /// sender's resolver checks instead).
    pub fn host(&self) -> EndpointHost {
        match url::Url::parse(&self.0)
            .ok()
            .as_ref()
            .and_then(url::Url::host)
        {
            Some(url::Host::Ipv4(ip)) => EndpointHost::Ip(IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => EndpointHost::Ip(IpAddr::V6(ip)),
            Some(url::Host::Domain(_)) => EndpointHost::Name,
            None => EndpointHost::Unreadable,
        }
    }

    pub fn parse(raw: &str, allow_loopback: bool) -> Result<EndpointUrl, Failure> {
        let bad = |problem: &str| Failure::bad_request("url", problem);
        if raw.is_empty() {
            return Err(bad("must be an absolute https URL"));
        }
        if raw.len() > MAX_URL_BYTES {
            return Err(bad(&format!("must be at most {MAX_URL_BYTES} bytes")));
        }
        if raw.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(bad("must not hold white space or control characters"));
        }
        let url = url::Url::parse(raw).map_err(|_| bad("must be an absolute https URL"))?;
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad("must not carry credentials (user or password)"));
        }
        if url.fragment().is_some() {
            return Err(bad("must not have a fragment"));
        }
        if !host_as_written(raw, &url) {
            return Err(bad(
                "must name its host plainly: a DNS name of letters, digits and inner hyphens, \
                 or an IP address in its usual form",
            ));
        }
        let loopback = match url.host() {
            None => return Err(bad("must name a host")),
            Some(url::Host::Domain(d)) => {
                let d = d.trim_end_matches('.');
                d == "localhost" || d.ends_with(".localhost")
            }
            Some(url::Host::Ipv4(ip)) => {
                if !address_allowed(IpAddr::V4(ip), allow_loopback) {
                    return Err(bad(
                        "must name a publicly routable address (not private, loopback, \
                         link-local or reserved)",
                    ));
                }
                ip.is_loopback()
            }
            Some(url::Host::Ipv6(ip)) => {
                if !address_allowed(IpAddr::V6(ip), allow_loopback) {
                    return Err(bad(
                        "must name a publicly routable address (not private, loopback, \
                         link-local or reserved)",
                    ));
                }
                ip.is_loopback()
            }
        };
        if loopback && !allow_loopback {
            return Err(bad(
                "must not name a loopback host (this deployment does not deliver to loopback)",
            ));
        }
        match url.scheme() {
            "https" => {}
            "http" if loopback => {}
            "http" => return Err(bad("must use https (plain http only to a loopback host)")),
            _ => return Err(bad("must be an absolute https URL")),
        }
        Ok(EndpointUrl(url.into()))
    }

    /// An address as stored (already checked when it was registered).
    pub fn stored(s: String) -> EndpointUrl {
        EndpointUrl(s)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Whether the address names its host as the parser read it (no encoded, numeric-shortcut or
/// international forms a reader could take for another host), and a name is a DNS name.
fn host_as_written(raw: &str, url: &url::Url) -> bool {
    let prefix = format!("{}://", url.scheme());
    let Some(after) = raw
        .get(..prefix.len())
        .filter(|p| p.eq_ignore_ascii_case(&prefix))
        .map(|_| &raw[prefix.len()..])
    else {
        return false;
    };
    let authority = after.split(['/', '?', '#']).next().unwrap_or("");
    let host = match authority.rfind(':') {
        Some(i)
            if (1..=5).contains(&(authority.len() - i - 1))
                && authority[i + 1..].bytes().all(|b| b.is_ascii_digit()) =>
        {
            &authority[..i]
        }
        _ => authority,
    };
    let Some(parsed) = url.host_str() else {
        return false;
    };
    if !host.eq_ignore_ascii_case(parsed) {
        return false;
    }
    match url.host() {
        Some(url::Host::Domain(d)) => {
            d.len() <= 253
                && d.split('.').all(|label| {
                    !label.is_empty()
                        && label.len() <= 63
                        && !label.starts_with('-')
                        && !label.ends_with('-')
                        && label
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                })
        }
        _ => true,
    }
}

/// Whether a delivery may go to `ip`: publicly routable unicast, or loopback where the
/// deployment allows loopback receivers. Private, link-local, shared, reserved,
/// documentation, multicast and unspecified addresses never are (a tenant's endpoint must not
/// reach into the service's own network), nor an IPv6 address that embeds one of them.
pub fn address_allowed(ip: IpAddr, allow_loopback: bool) -> bool {
    if ip.is_loopback() || ipv6_embedded_v4(ip).is_some_and(|v4| v4.is_loopback()) {
        return allow_loopback;
    }
    match ip {
        IpAddr::V4(v4) => public_v4(v4),
        IpAddr::V6(v6) => match ipv6_embedded_v4(ip) {
            Some(v4) => public_v4(v4),
            None => public_v6(v6),
        },
    }
}

/// The IPv4 address an IPv6 address stands for, where the network delivers it there: an
/// IPv4-mapped `::ffff:a.b.c.d`, the NAT64 well-known prefix `64:ff9b::/96` (RFC 6052), and
/// 6to4's `2002:AABB:CCDD::/48` (RFC 3056, the address in the second and third groups).
fn ipv6_embedded_v4(ip: IpAddr) -> Option<Ipv4Addr> {
    match ip {
        IpAddr::V4(_) => None,
        IpAddr::V6(v6) => {
            let s = v6.segments();
            let o = v6.octets();
            if s[..5] == [0, 0, 0, 0, 0] && s[5] == 0xffff || s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                Some(Ipv4Addr::new(o[12], o[13], o[14], o[15]))
            } else if s[0] == 0x2002 {
                Some(Ipv4Addr::new(o[2], o[3], o[4], o[5]))
            } else {
                None
            }
        }
    }
}

fn public_v4(ip: Ipv4Addr) -> bool {
    let o = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || o[0] == 0
        // Shared address space (carrier-grade NAT), 100.64.0.0/10.
        || (o[0] == 100 && (o[1] & 0xc0) == 64)
        // IETF protocol assignments, 192.0.0.0/24.
        || (o[0] == 192 && o[1] == 0 && o[2] == 0)
        // Benchmarking, 198.18.0.0/15.
        || (o[0] == 198 && (o[1] & 0xfe) == 18)
        // Reserved, 240.0.0.0/4.
        || o[0] >= 240)
}

fn public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        // Unique local, fc00::/7.
        || (s[0] & 0xfe00) == 0xfc00
        // Link-local, fe80::/10, and the deprecated site-local fec0::/10.
        || (s[0] & 0xffc0) == 0xfe80
        || (s[0] & 0xffc0) == 0xfec0
        // Documentation, 2001:db8::/32.
        || (s[0] == 0x2001 && s[1] == 0x0db8)
        // IPv4-compatible and other addresses under ::/96 (deprecated).
        || s[..6] == [0, 0, 0, 0, 0, 0]
        // Teredo, 2001::/32: a tunnel to an IPv4 host behind NAT, whose address it hides;
        // never a receiver's.
        || (s[0] == 0x2001 && s[1] == 0)
        // NAT64's local-use prefix, 64:ff9b:1::/48 (RFC 8215): a translator into a network
        // of the operator's choosing.
        || (s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1)
        // Discard-only, 100::/64.
        || s[..4] == [0x100, 0, 0, 0])
}

/// The signing secret in the clear (`whsec_` and the base64 of 32 random bytes, as the
/// Standard Webhooks convention writes it). Shown to the consumer once, when the endpoint is
/// made or its secret rotated; stored only sealed under the tenant's key. Never printed by
/// `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret(String);

impl WebhookSecret {
    pub const PREFIX: &'static str = "whsec_";

    pub fn new(s: String) -> WebhookSecret {
        WebhookSecret(s)
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WebhookSecret(<redacted>)")
    }
}

/// A secret sealed under the tenant's key (opaque to all but the crypto adapter).
#[derive(Clone, PartialEq, Eq)]
pub struct SealedWebhookSecret(pub Vec<u8>);

impl std::fmt::Debug for SealedWebhookSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SealedWebhookSecret(<sealed>)")
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EndpointStatus {
    Active,
    Disabled,
}

impl EndpointStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            EndpointStatus::Active => "active",
            EndpointStatus::Disabled => "disabled",
        }
    }

    pub fn parse(s: &str) -> Option<EndpointStatus> {
        match s {
            "active" => Some(EndpointStatus::Active),
            "disabled" => Some(EndpointStatus::Disabled),
            _ => None,
        }
    }
}

/// Why an endpoint is disabled.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DisabledReason {
    /// The consumer disabled it.
    Consumer,
    /// Deliveries failed for longer than the schedule allows.
    Failing,
    /// The grant that owns it was revoked or expired, or no longer holds `events:read`.
    GrantLapsed,
}

impl DisabledReason {
    pub fn as_str(self) -> &'static str {
        match self {
            DisabledReason::Consumer => "consumer",
            DisabledReason::Failing => "failing",
            DisabledReason::GrantLapsed => "grant_lapsed",
        }
    }

    pub fn parse(s: &str) -> Option<DisabledReason> {
        match s {
            "consumer" => Some(DisabledReason::Consumer),
            "failing" => Some(DisabledReason::Failing),
            "grant_lapsed" => Some(DisabledReason::GrantLapsed),
            _ => None,
        }
    }
}

/// An endpoint as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct WebhookEndpoint {
    pub id: WebhookEndpointId,
    pub tenant_id: TenantId,
    /// The grant that registered it: the endpoint is that grant's, delivers what that grant
    /// may read now, and is seen and managed by it alone.
    pub grant_id: GrantId,
    pub url: EndpointUrl,
    /// Only events of these types (`None`: every type); `subscription.*` names the family.
    pub types: Option<Vec<String>>,
    pub description: Option<String>,
    pub status: EndpointStatus,
    pub disabled_reason: Option<DisabledReason>,
    pub disabled_at: Option<DateTime<Utc>>,
    /// The `seq` of the last event delivered or passed over (the endpoint's cursor).
    pub cursor: i64,
    /// Failed attempts in a row at the event after the cursor (0 when none failed).
    pub failures: i32,
    /// When the current run of failures began.
    pub failing_since: Option<DateTime<Utc>>,
    /// When the next attempt is due.
    pub next_attempt_at: DateTime<Utc>,
    /// How many attempts the endpoint's delivery log holds (each one's number).
    pub attempts: i64,
    pub created_at: DateTime<Utc>,
    pub secret_rotated_at: Option<DateTime<Utc>>,
}

/// An endpoint claimed by one replica's dispatcher until `lease_until`.
#[derive(Clone, Debug, PartialEq)]
pub struct ClaimedEndpoint {
    pub endpoint: WebhookEndpoint,
    pub sealed_secret: SealedWebhookSecret,
    pub lease_until: DateTime<Utc>,
}

/// What came of one attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttemptResult {
    /// The receiver answered 2xx.
    Delivered { status: u16 },
    /// The receiver answered, not 2xx.
    Refused { status: u16 },
    /// No answer: the kind of failure (`timeout`, `connect`, `tls`, `address_refused`, ...).
    Failed { error: String },
}

impl AttemptResult {
    /// The outcomes as the delivery log, the stores and the metrics name them.
    pub const OUTCOMES: [&'static str; 3] = ["delivered", "refused", "failed"];

    /// This attempt's outcome: `delivered` (2xx), `refused` (another status), `failed` (no
    /// answer).
    pub fn outcome(&self) -> &'static str {
        match self {
            AttemptResult::Delivered { .. } => Self::OUTCOMES[0],
            AttemptResult::Refused { .. } => Self::OUTCOMES[1],
            AttemptResult::Failed { .. } => Self::OUTCOMES[2],
        }
    }

    /// The kind of failure without an answer.
    pub fn error(&self) -> Option<&str> {
        match self {
            AttemptResult::Failed { error } => Some(error),
            _ => None,
        }
    }

    /// An attempt read back from its outcome, status and error (`None`: they do not fit).
    pub fn from_parts(outcome: &str, status: Option<u16>, error: Option<String>) -> Option<Self> {
        match (outcome, status) {
            ("delivered", Some(status)) => Some(AttemptResult::Delivered { status }),
            ("refused", Some(status)) => Some(AttemptResult::Refused { status }),
            ("failed", None) => Some(AttemptResult::Failed {
                error: error.unwrap_or_default(),
            }),
            _ => None,
        }
    }

    pub fn delivered(&self) -> bool {
        matches!(self, AttemptResult::Delivered { .. })
    }

    pub fn status(&self) -> Option<u16> {
        match self {
            AttemptResult::Delivered { status } | AttemptResult::Refused { status } => {
                Some(*status)
            }
            AttemptResult::Failed { .. } => None,
        }
    }
}

/// One attempt of the delivery log.
#[derive(Clone, Debug, PartialEq)]
pub struct Delivery {
    /// The attempt's number in the endpoint's log (1, 2, ...): the log's cursor.
    pub number: i64,
    pub endpoint_id: WebhookEndpointId,
    pub event_id: EventId,
    pub seq: i64,
    pub type_name: String,
    /// The attempt's number for this event (1 for the first).
    pub attempt: i32,
    pub attempted_at: DateTime<Utc>,
    pub result: AttemptResult,
    pub duration_ms: i64,
    /// When the event is tried again (a failed attempt of an endpoint still active).
    pub next_attempt_at: Option<DateTime<Utc>>,
}

/// When a failed event is tried again, and when an endpoint that keeps failing is disabled.
#[derive(Clone, Debug, PartialEq)]
pub struct RetrySchedule {
    /// The wait after the first failure, the second, ...; the last repeats.
    pub delays: Vec<Duration>,
    /// An endpoint failing this long (since its first failure in a row) is disabled.
    pub disable_after: Duration,
}

impl Default for RetrySchedule {
    /// 5 seconds, 5 minutes, 30 minutes, 2 hours, 5 hours, then every 10 hours; disabled
    /// after 5 days of failing.
    fn default() -> Self {
        RetrySchedule {
            delays: vec![
                Duration::seconds(5),
                Duration::minutes(5),
                Duration::minutes(30),
                Duration::hours(2),
                Duration::hours(5),
                Duration::hours(10),
            ],
            disable_after: Duration::days(5),
        }
    }
}

impl RetrySchedule {
    /// The wait after `failures` failures in a row (1 for the first).
    pub fn delay(&self, failures: i32) -> Duration {
        let i = usize::try_from(failures.max(1) - 1).unwrap_or(0);
        self.delays
            .get(i)
            .or(self.delays.last())
            .copied()
            .unwrap_or_else(|| Duration::seconds(5))
    }

    /// Whether an endpoint failing since `since` is to be disabled at `now`.
    pub fn gives_up(&self, since: DateTime<Utc>, now: DateTime<Utc>) -> bool {
        now - since >= self.disable_after
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn https_addresses_are_accepted_and_kept() {
        for good in [
            "https://hooks.example.com/idreg",
            "https://hooks.example.com:8443/a/b?c=d",
            "https://93.184.216.34/in",
            "https://[2606:2800:220:1:248:1893:25c8:1946]/in",
        ] {
            assert!(EndpointUrl::parse(good, false).is_ok(), "{good}");
        }
    }

    #[test]
    fn unsafe_addresses_are_refused() {
        for bad in [
            "",
            "hooks.example.com/x",
            "ftp://hooks.example.com/",
            "http://hooks.example.com/",
            "https://user:pw@hooks.example.com/",
            "https://hooks.example.com/#frag",
            "https://hooks.example.com/ x",
            " https://hooks.example.com/",
            "https://10.0.0.8/",
            "https://192.168.1.1/",
            "https://172.16.0.1/",
            "https://169.254.169.254/latest/meta-data",
            "https://100.64.0.1/",
            "https://0.0.0.0/",
            "https://[::1]/",
            "https://[fd00::1]/",
            "https://[fe80::1]/",
            "https://[::ffff:10.0.0.1]/",
            "https://127.0.0.1/",
            "https://localhost/",
            "http://127.0.0.1:8080/",
            "https://224.0.0.1/",
            "https://-/",
            "https://a..example/",
            "https://bücher.example/",
            "https://0x7f.1/",
            "https://2130706433/",
            "https://hooks.example.com:/",
            "https:hooks.example.com/",
            "https:/hooks.example.com/",
        ] {
            assert!(
                EndpointUrl::parse(bad, false).is_err(),
                "{bad:?} was accepted"
            );
        }
        assert!(
            EndpointUrl::parse(&format!("https://a.example/{}", "x".repeat(2100)), false).is_err()
        );
    }

    #[test]
    fn loopback_is_accepted_only_where_allowed() {
        for loopback in [
            "http://127.0.0.1:8080/hook",
            "http://localhost:9000/",
            "https://[::1]:9000/",
        ] {
            assert!(EndpointUrl::parse(loopback, true).is_ok(), "{loopback}");
            assert!(EndpointUrl::parse(loopback, false).is_err(), "{loopback}");
        }
        // Loopback allowed does not open the private ranges, nor plain http elsewhere.
        assert!(EndpointUrl::parse("http://10.0.0.1/", true).is_err());
        assert!(EndpointUrl::parse("http://hooks.example.com/", true).is_err());
    }

    #[test]
    fn an_attempt_reads_back_from_its_parts() {
        for a in [
            AttemptResult::Delivered { status: 204 },
            AttemptResult::Refused { status: 503 },
            AttemptResult::Failed {
                error: "timeout".into(),
            },
        ] {
            let back =
                AttemptResult::from_parts(a.outcome(), a.status(), a.error().map(Into::into));
            assert_eq!(back, Some(a));
        }
        assert_eq!(AttemptResult::from_parts("delivered", None, None), None);
        assert_eq!(AttemptResult::from_parts("failed", Some(500), None), None);
        assert_eq!(AttemptResult::from_parts("lost", Some(200), None), None);
    }

    #[test]
    fn the_schedule_repeats_its_last_delay() {
        let s = RetrySchedule::default();
        assert_eq!(s.delay(1), Duration::seconds(5));
        assert_eq!(s.delay(2), Duration::minutes(5));
        assert_eq!(s.delay(6), Duration::hours(10));
        assert_eq!(s.delay(60), Duration::hours(10));
        let t = chrono::Utc::now();
        assert!(!s.gives_up(t, t + Duration::days(4)));
        assert!(s.gives_up(t, t + Duration::days(5)));
    }

    proptest! {
        /// Whatever the text, an accepted address is https (or http to loopback where that is
        /// allowed), carries no credentials and no fragment, and fits the bound.
        #[test]
        fn an_accepted_address_is_always_safe(raw in "\\PC{0,80}|https?://[a-z0-9.:@\\[\\]#/-]{0,40}", loopback in any::<bool>()) {
            if let Ok(u) = EndpointUrl::parse(&raw, loopback) {
                let parsed = url::Url::parse(u.as_str()).unwrap();
                prop_assert!(parsed.username().is_empty() && parsed.password().is_none());
                prop_assert!(parsed.fragment().is_none());
                prop_assert!(u.as_str().len() <= MAX_URL_BYTES + 16);
                match parsed.scheme() {
                    "https" => {}
                    "http" => prop_assert!(loopback),
                    other => prop_assert!(false, "scheme {other}"),
                }
                if let Some(url::Host::Ipv4(ip)) = parsed.host() {
                    prop_assert!(address_allowed(IpAddr::V4(ip), loopback));
                }
                if let Some(url::Host::Ipv6(ip)) = parsed.host() {
                    prop_assert!(address_allowed(IpAddr::V6(ip), loopback));
                }
            }
        }

        /// Every IPv4 address is judged the same bare and written in each IPv6 form that
        /// stands for it: IPv4-mapped, NAT64's well-known prefix and 6to4 (any subnet and
        /// interface bits).
        #[test]
        fn embedded_addresses_are_judged_as_their_ipv4(
            a in any::<u32>(),
            rest in any::<[u16; 5]>(),
            loopback in any::<bool>(),
        ) {
            let v4 = Ipv4Addr::from(a);
            let bare = address_allowed(IpAddr::V4(v4), loopback);
            let [hi, lo] = [(a >> 16) as u16, a as u16];
            let nat64 = Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, hi, lo);
            let six_to_four = Ipv6Addr::new(0x2002, hi, lo, rest[0], rest[1], rest[2], rest[3], rest[4]);
            for form in [v4.to_ipv6_mapped(), nat64, six_to_four] {
                prop_assert_eq!(bare, address_allowed(IpAddr::V6(form), loopback), "{}", form);
            }
        }

        /// No Teredo address and no NAT64 local-use address is ever a receiver's, whatever
        /// it embeds.
        #[test]
        fn tunnel_addresses_are_refused(rest in any::<[u16; 6]>(), loopback in any::<bool>()) {
            let teredo = Ipv6Addr::new(0x2001, 0, rest[0], rest[1], rest[2], rest[3], rest[4], rest[5]);
            let local_nat64 = Ipv6Addr::new(0x64, 0xff9b, 1, rest[0], rest[1], rest[2], rest[3], rest[4]);
            prop_assert!(!address_allowed(IpAddr::V6(teredo), loopback));
            prop_assert!(!address_allowed(IpAddr::V6(local_nat64), loopback));
        }
    }
}
