//! The one-line human summaries of `content[0]`, one per wire type a tool answers with
//! ([`Summary`]), read off the typed answer. They name companies, ids and counts; never an
//! identifier of a person, never the input of a screening.
//!
//! Where a line takes more than formatting (a person's markers, a check's best candidate,
//! counts by band), a plain function builds it from the values and the impl only picks
//! them, so the rule is tested on its own.

use crate::tools::companies::CompanyLookup;
use crate::tools::persons::PersonLookup;
use api_core::dto::screening::{
    OverrideVersionListDto, ScreeningCheckDto, ScreeningCheckListDto, WhitelistDto,
};
use api_core::dto::webhooks::{
    WebhookDeliveryPageDto, WebhookEndpointDto, WebhookEndpointListDto,
    WebhookEndpointWithSecretDto,
};
use api_core::dto::{
    BeneficialOwnersDto, CompanyProfileDto, EngagementsDto, Envelope, EventPageDto, OfficersDto,
    PersonProfileDto, RefreshDto, SubjectResponse, SubscriptionDto, SubscriptionListDto,
};
use domain::persons::profile::Protection;
use domain::screening::policy::{Band, OverrideStatus};

/// The one-line summary of a tool's answer (`content[0]`, and `summary` in
/// `structuredContent`).
pub trait Summary {
    fn summary(&self) -> String;
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn stale_note(stale: bool) -> &'static str {
    if stale {
        " (stale: served from cache, the register could not be asked)"
    } else {
        ""
    }
}

/// `GET /v1/companies/{orgnr}` (`get_company_profile`).
impl Summary for Envelope<CompanyProfileDto> {
    fn summary(&self) -> String {
        let d = &self.data;
        format!(
            "{} ({}, {}): {}; subject {}{}",
            d.name,
            d.orgnr,
            d.country,
            d.status,
            d.subject_id,
            stale_note(self.stale),
        )
    }
}

/// `GET /v1/companies/{orgnr}/officers` and `/signatories`.
impl Summary for Envelope<OfficersDto> {
    fn summary(&self) -> String {
        let d = &self.data;
        format!(
            "{} officer roles of {} ({}); signatory rule: {}{}",
            d.officers.len(),
            d.orgnr,
            d.meta.country,
            d.signatory_rule_text
                .as_deref()
                .unwrap_or("none registered"),
            stale_note(self.stale),
        )
    }
}

/// `GET /v1/companies/{orgnr}/beneficial-owners`.
impl Summary for Envelope<BeneficialOwnersDto> {
    fn summary(&self) -> String {
        let d = &self.data;
        format!(
            "{} beneficial owners of {} ({}){}{}",
            d.owners.len(),
            d.orgnr,
            d.meta.country,
            if d.no_ubo_reported {
                "; none reported"
            } else {
                ""
            },
            stale_note(self.stale),
        )
    }
}

/// `GET /v1/persons/{ref}/engagements`.
impl Summary for Envelope<EngagementsDto> {
    fn summary(&self) -> String {
        let d = &self.data;
        format!(
            "{} engagements of person {} ({}){}",
            d.engagements.len(),
            d.meta.subject_id,
            d.meta.country,
            stale_note(self.stale),
        )
    }
}

/// `GET /v1/subjects/{id}`.
impl Summary for SubjectResponse {
    fn summary(&self) -> String {
        subject_line(
            &self.subject_id,
            self.kind,
            self.identifiers.iter().map(|i| i.country),
            self.refs.len(),
            self.aliases.len(),
        )
    }
}

/// A subject: its kind, how many identifiers (and of which countries), references and
/// aliases.
fn subject_line<'a>(
    subject_id: &str,
    kind: &str,
    identifier_countries: impl ExactSizeIterator<Item = &'a str>,
    refs: usize,
    aliases: usize,
) -> String {
    let identifiers = identifier_countries.len();
    let mut countries: Vec<&str> = identifier_countries.collect();
    countries.sort_unstable();
    countries.dedup();
    let countries = if countries.is_empty() {
        String::new()
    } else {
        format!(" ({})", countries.join(", "))
    };
    format!(
        "Subject {subject_id} ({kind}): {}{countries}, {}, {}",
        plural(identifiers, "identifier", "identifiers"),
        plural(refs, "customer reference", "customer references"),
        plural(aliases, "alias", "aliases"),
    )
}

/// `GET /v1/persons/{ref}`.
impl Summary for Envelope<PersonProfileDto> {
    fn summary(&self) -> String {
        let d = &self.data;
        person_line(&PersonLine {
            person_ref: d.person_ref.as_deref(),
            country: d.country,
            given_name: d.names.given_name.as_deref(),
            surname: d.names.surname.as_deref(),
            protected: d.markers.protected,
            deceased: d.markers.deceased_date.as_deref(),
            emigrated: d.markers.emigrated_date.as_deref(),
            subject_id: &d.subject_id,
        })
    }
}

/// What a person's line says: the ref, country and markers, a name only when the register
/// gives one. Never an address (the body has them where the rules allow).
struct PersonLine<'a> {
    person_ref: Option<&'a str>,
    country: &'a str,
    given_name: Option<&'a str>,
    surname: Option<&'a str>,
    protected: &'a str,
    deceased: Option<&'a str>,
    emigrated: Option<&'a str>,
    subject_id: &'a str,
}

fn person_line(p: &PersonLine<'_>) -> String {
    let names: Vec<&str> = [p.given_name, p.surname].into_iter().flatten().collect();
    let who = if names.is_empty() {
        "no name given".to_owned()
    } else {
        names.join(" ")
    };
    let mut notes = Vec::new();
    if p.protected != Protection::None.as_str() {
        notes.push(format!("protected ({}): no address is given", p.protected));
    }
    if let Some(d) = p.deceased {
        notes.push(format!("deceased {d}"));
    }
    if let Some(d) = p.emigrated {
        notes.push(format!("emigrated {d}"));
    }
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!("; {}", notes.join("; "))
    };
    format!(
        "Person {} ({}): {who}{notes}; subject {}",
        p.person_ref.unwrap_or("?"),
        p.country,
        p.subject_id,
    )
}

/// `lookup_person`: the resolve body and the person body.
impl Summary for PersonLookup {
    fn summary(&self) -> String {
        self.person.summary()
    }
}

/// `POST /v1/companies/{orgnr}/refresh`.
impl Summary for RefreshDto {
    fn summary(&self) -> String {
        let d = &self.data;
        format!(
            "{} ({}, {}) refreshed: {}; {} logged",
            d.name,
            d.orgnr,
            d.country,
            d.status,
            plural(
                usize::try_from(self.events_emitted).unwrap_or(usize::MAX),
                "event",
                "events"
            ),
        )
    }
}

/// A subscription body.
impl Summary for SubscriptionDto {
    fn summary(&self) -> String {
        format!(
            "Subscription {} ({} of subject {}, {}): {}",
            self.subscription_id, self.kind, self.subject_id, self.country, self.status,
        )
    }
}

/// `GET /v1/subscriptions`.
impl Summary for SubscriptionListDto {
    fn summary(&self) -> String {
        plural(self.subscriptions.len(), "subscription", "subscriptions")
    }
}

/// A webhook endpoint (`get_webhook`, `disable_webhook`, `enable_webhook`).
impl Summary for WebhookEndpointDto {
    fn summary(&self) -> String {
        format!(
            "Webhook endpoint {} ({}): delivered up to seq {}",
            self.id, self.status, self.cursor,
        )
    }
}

/// A webhook endpoint with its secret (`create_webhook`, `rotate_webhook_secret`).
impl Summary for WebhookEndpointWithSecretDto {
    fn summary(&self) -> String {
        format!(
            "{}; its signing secret is in the body, shown this once",
            self.endpoint.summary()
        )
    }
}

/// `list_webhooks`.
impl Summary for WebhookEndpointListDto {
    fn summary(&self) -> String {
        plural(
            self.endpoints.len(),
            "webhook endpoint",
            "webhook endpoints",
        )
    }
}

/// `list_webhook_deliveries`.
impl Summary for WebhookDeliveryPageDto {
    fn summary(&self) -> String {
        format!(
            "{}; next_cursor {}",
            plural(
                self.deliveries.len(),
                "delivery attempt",
                "delivery attempts"
            ),
            self.next_cursor,
        )
    }
}

/// `GET /v1/events` (`list_events`, `list_changes`).
impl Summary for EventPageDto {
    fn summary(&self) -> String {
        let next = self.next_cursor;
        match self.events.len() {
            0 => format!("No events; next_cursor {next} (ask again later with it)"),
            n => format!("{}; next_cursor {next}", plural(n, "event", "events")),
        }
    }
}

/// `lookup_company`: the resolve body and the company body.
impl Summary for CompanyLookup {
    fn summary(&self) -> String {
        let d = &self.company.data;
        format!(
            "{} ({}, {}) is subject {}: {}{}",
            d.name,
            d.orgnr,
            d.country,
            self.subject.subject_id,
            d.status,
            stale_note(self.company.stale),
        )
    }
}

/// A screening check body (`screen_subject`, `get_screening_check`).
impl Summary for ScreeningCheckDto {
    fn summary(&self) -> String {
        check_line(
            &self.id,
            self.input_kind,
            self.band,
            self.candidates.iter().map(|c| Candidate {
                entity_id: &c.entity_id,
                matched_name: &c.evidence.matched_name,
                score: c.score,
                band: c.band,
                whitelisted: c.whitelisted,
            }),
        )
    }
}

/// What a check's line tells of one candidate.
struct Candidate<'a> {
    entity_id: &'a str,
    matched_name: &'a str,
    score: f64,
    band: &'a str,
    whitelisted: bool,
}

/// A check's band, how many candidates (and how many whitelisted) and the best of them by
/// list entry and score. Never the input screened (a person's name or an organisation
/// number).
fn check_line<'a>(
    id: &str,
    input_kind: &str,
    band: &str,
    candidates: impl Iterator<Item = Candidate<'a>>,
) -> String {
    let (mut count, mut whitelisted, mut top) = (0, 0, None);
    for c in candidates {
        if top.is_none() {
            top = Some(format!(
                "; best {} `{}` at {:.4} ({})",
                c.entity_id, c.matched_name, c.score, c.band
            ));
        }
        count += 1;
        whitelisted += usize::from(c.whitelisted);
    }
    let whitelisted = if whitelisted == 0 {
        String::new()
    } else {
        format!(", {whitelisted} whitelisted")
    };
    format!(
        "Screening check {id} ({input_kind}): {band}; {}{whitelisted}{}",
        plural(count, "candidate", "candidates"),
        top.unwrap_or_default(),
    )
}

/// `GET /v1/screening/checks`: how many, and how many in each raised band.
impl Summary for ScreeningCheckListDto {
    fn summary(&self) -> String {
        checks_line(self.checks.iter().map(|c| c.band))
    }
}

fn checks_line<'a>(bands: impl ExactSizeIterator<Item = &'a str>) -> String {
    let n = bands.len();
    let (mut hit, mut review) = (0, 0);
    for band in bands {
        hit += usize::from(band == Band::Hit.as_str());
        review += usize::from(band == Band::Review.as_str());
    }
    format!(
        "{} (newest first): {hit} hit, {review} review",
        plural(n, "screening check", "screening checks"),
    )
}

/// `GET /v1/screening/overrides`: how many versions, and which one is active.
impl Summary for OverrideVersionListDto {
    fn summary(&self) -> String {
        overrides_line(
            self.versions
                .iter()
                .map(|v| (v.version, v.id.as_str(), v.status)),
        )
    }
}

fn overrides_line<'a>(versions: impl ExactSizeIterator<Item = (u32, &'a str, &'a str)>) -> String {
    let n = versions.len();
    let active = versions
        .filter(|(_, _, status)| *status == OverrideStatus::Active.as_str())
        .map(|(version, id, _)| format!("version {version} ({id}) active"))
        .next()
        .unwrap_or_else(|| "none active (the service's policy applies)".to_owned());
    format!(
        "{}; {active}",
        plural(n, "override version", "override versions")
    )
}

/// `GET /v1/screening/whitelist`: how many entries, and how many are in effect now.
impl Summary for WhitelistDto {
    fn summary(&self) -> String {
        let effective = self.entries.iter().filter(|e| e.effective).count();
        format!(
            "{}, {effective} in effect now",
            plural(self.entries.len(), "whitelist entry", "whitelist entries"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person<'a>(protected: &'a str, emigrated: Option<&'a str>) -> PersonLine<'a> {
        PersonLine {
            person_ref: Some("idr_X"),
            country: "SE",
            given_name: None,
            surname: None,
            protected,
            deceased: None,
            emigrated,
            subject_id: "01S",
        }
    }

    #[test]
    fn a_person_summary_names_markers_and_never_an_address() {
        assert_eq!(
            person_line(&person("skyddad", None)),
            "Person idr_X (SE): no name given; protected (skyddad): no address is given; subject 01S"
        );
        let emigrated = PersonLine {
            given_name: Some("Ulf Erik"),
            surname: Some("Utvandrare"),
            ..person("none", Some("2022-05-17"))
        };
        assert_eq!(
            person_line(&emigrated),
            "Person idr_X (SE): Ulf Erik Utvandrare; emigrated 2022-05-17; subject 01S"
        );
        let unread = PersonLine {
            person_ref: None,
            deceased: Some("2020-01-02"),
            ..person("none", None)
        };
        assert_eq!(
            person_line(&unread),
            "Person ? (SE): no name given; deceased 2020-01-02; subject 01S"
        );
    }

    #[test]
    fn screening_summaries_name_the_band_and_the_best_entry_never_the_input() {
        let candidates = || {
            [
                Candidate {
                    entity_id: "un_sc:QDi.1",
                    matched_name: "ANNA ANDERSEN",
                    score: 0.8612,
                    band: "review",
                    whitelisted: false,
                },
                Candidate {
                    entity_id: "un_sc:QDi.2",
                    matched_name: "ANNE",
                    score: 0.75,
                    band: "clear",
                    whitelisted: true,
                },
            ]
        };
        let s = check_line("chk_1", "adhoc", "review", candidates().into_iter());
        assert_eq!(
            s,
            "Screening check chk_1 (adhoc): review; 2 candidates, 1 whitelisted; best un_sc:QDi.1 `ANNA ANDERSEN` at 0.8612 (review)"
        );
        assert_eq!(
            check_line("chk_2", "subject", "clear", std::iter::empty()),
            "Screening check chk_2 (subject): clear; 0 candidates"
        );
        assert_eq!(
            checks_line(["review", "clear", "hit", "review"].into_iter()),
            "4 screening checks (newest first): 1 hit, 2 review"
        );
        assert_eq!(
            checks_line(["clear"].into_iter()),
            "1 screening check (newest first): 0 hit, 0 review"
        );
        assert_eq!(
            overrides_line([(2, "ovr_1", "active"), (1, "ovr_0", "retired")].into_iter()),
            "2 override versions; version 2 (ovr_1) active"
        );
        assert_eq!(
            overrides_line(std::iter::empty()),
            "0 override versions; none active (the service's policy applies)"
        );
    }

    #[test]
    fn a_subject_summary_counts_and_names_each_country_once() {
        assert_eq!(
            subject_line("01S", "company", ["SE"].into_iter(), 0, 1),
            "Subject 01S (company): 1 identifier (SE), 0 customer references, 1 alias"
        );
        assert_eq!(
            subject_line("01P", "person", ["SE", "LT", "SE"].into_iter(), 2, 3),
            "Subject 01P (person): 3 identifiers (LT, SE), 2 customer references, 3 aliases"
        );
        assert_eq!(
            subject_line("01E", "person", std::iter::empty(), 1, 1),
            "Subject 01E (person): 0 identifiers, 1 customer reference, 1 alias"
        );
    }
}
