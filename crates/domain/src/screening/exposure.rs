//! What a PEP list's entry means on a given day under a policy: which offices and ties still
//! make the person exposed, explained as a candidate's reasons, and the band such a
//! candidate may reach.
//!
//! The rules (see `docs/decisions.md`, "PEP screening"):
//!
//! - **A PEP match is never a sanctions hit.** Being politically exposed asks for enhanced
//!   due diligence, not a freeze: a PEP list's candidate reaches at most `review`, and the
//!   reason `pep_not_sanction` says so. Screening reports what the lists say, never what to
//!   do about it.
//! - **An office counts** while it is held, and for the policy's window after it ended
//!   ([`PepPolicy::after_office_months`](crate::screening::policy::PepPolicy), at least the
//!   12 months EU law sets). The end is the term's own end date: a date in the past is the
//!   day the person left; a date in the future is a running term's scheduled end. A partial
//!   end date (`2025`, `2025-11`) is read as its last day, so a window is never cut short.
//!   A term the list marks ended without a date counts (the window cannot be placed). A term
//!   without an end and without a status counts as held: the list names the person for it.
//! - **A tie counts** while one of the PEP's offices counts (or the list gives the PEP
//!   none).
//! - **A person the list names without an office or a tie** counts: the list says the
//!   person is exposed and does not say why.
//! - When nothing counts any more, the candidate is `clear`, with reasons that say which
//!   office ended when (`pep_former_lapsed`), so a reviewer sees the history.
//!
//! Every reason is `neutral` (it explains why the person is listed, not how well the name
//! matched) except a lapsed office or tie, which is `down`.

use crate::screening::check::CheckReason;
use crate::screening::matcher::score::Contribution;
use crate::screening::policy::Band;
use crate::screening::sanctions::{
    Exposure, ExposureRole, HeldPosition, ListKind, ListedDate, RelationKind, TermStatus,
};
use chrono::{Months, NaiveDate};

/// The highest band a PEP list's candidate can have: being exposed is not a sanction.
pub const PEP_CEILING: Band = Band::Review;

/// The band a candidate of a `kind` of list can have at most, before its entry is assessed:
/// a PEP list's is [`PEP_CEILING`] (ordering candidates by it puts a sanctions hit first).
pub fn ceiling(kind: ListKind, band: Band) -> Band {
    match kind {
        ListKind::Sanctions => band,
        ListKind::Pep => band.min(PEP_CEILING),
    }
}

/// A PEP list's entry on one day.
#[derive(Clone, Debug, PartialEq)]
pub struct Assessment {
    /// Some office or tie still makes the person exposed.
    pub counts: bool,
    pub reasons: Vec<CheckReason>,
}

impl Assessment {
    /// The band a candidate of a PEP list gets: at most `review` while the exposure
    /// counts, `clear` once it does not.
    pub fn cap(&self, band: Band) -> Band {
        if self.counts {
            band.min(PEP_CEILING)
        } else {
            Band::Clear
        }
    }
}

/// Where a term stands on a day.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Term {
    Held,
    /// Left on `ended`; counts through `until`.
    Within {
        ended: ListedDate,
        until: NaiveDate,
    },
    /// Left on `ended`; counted through `until`, which has passed.
    Lapsed {
        ended: ListedDate,
        until: NaiveDate,
    },
    /// The list marks it ended and gives no date.
    EndedUndated,
}

impl Term {
    fn counts(self) -> bool {
        !matches!(self, Term::Lapsed { .. })
    }
}

/// The last day a date as precise as the list gives it can mean.
fn last_day(d: ListedDate) -> NaiveDate {
    let end_of_month = |year: i32, month: u32| {
        let next = if month == 12 {
            NaiveDate::from_ymd_opt(year + 1, 1, 1)
        } else {
            NaiveDate::from_ymd_opt(year, month + 1, 1)
        };
        next.and_then(|n| n.pred_opt()).unwrap_or(NaiveDate::MAX)
    };
    match d {
        ListedDate::Day(day) => day,
        ListedDate::Month { year, month } => end_of_month(year, month),
        ListedDate::Year(year) | ListedDate::Years { to: year, .. } => end_of_month(year, 12),
    }
}

/// The last day a term can have ended (the earliest day for a term without an end).
fn ended_on(p: &HeldPosition) -> NaiveDate {
    p.end.map_or(NaiveDate::MIN, last_day)
}

fn term(p: &HeldPosition, today: NaiveDate, months: u32) -> Term {
    if let Some(ended) = p.end {
        let last = last_day(ended);
        if last < today {
            let until = last
                .checked_add_months(Months::new(months))
                .unwrap_or(NaiveDate::MAX);
            return if today <= until {
                Term::Within { ended, until }
            } else {
                Term::Lapsed { ended, until }
            };
        }
    }
    match p.status {
        TermStatus::Ended => Term::EndedUndated,
        TermStatus::Current | TermStatus::Unknown => Term::Held,
    }
}

/// An office in words: `Minister of Finance (SE)`.
fn office(p: &HeldPosition) -> String {
    match &p.country {
        Some(c) => format!("{} ({c})", p.title),
        None => p.title.clone(),
    }
}

/// A term in words, for a reason's detail.
fn described(p: &HeldPosition, t: Term, months: u32) -> String {
    let office = office(p);
    match t {
        Term::Held => match (p.start, p.status) {
            (Some(s), TermStatus::Current) => {
                format!("{office}, in office since {}", s.to_wire())
            }
            (None, TermStatus::Current) => format!("{office}, in office"),
            (Some(s), _) => format!(
                "{office}, since {}; the list gives no end to the term",
                s.to_wire()
            ),
            (None, _) => format!("{office}; the list gives no end to the term"),
        },
        Term::Within { ended, until } => format!(
            "{office}, a former office: left {}; exposed through {until} ({months} months after \
             leaving office, the policy's window)",
            ended.to_wire()
        ),
        Term::Lapsed { ended, until } => format!(
            "{office}, a former office: left {}; the policy's window of {months} months after \
             leaving office ended {until}",
            ended.to_wire()
        ),
        Term::EndedUndated => {
            format!("{office}, a former office: the list marks the term ended and gives no date")
        }
    }
}

/// The office that best says who a PEP is: one held, else one within the window, else the
/// one left last.
fn principal(
    positions: &[HeldPosition],
    today: NaiveDate,
    months: u32,
) -> Option<(&HeldPosition, Term)> {
    let terms: Vec<(&HeldPosition, Term)> = positions
        .iter()
        .map(|p| (p, term(p, today, months)))
        .collect();
    let rank = |t: &Term| match t {
        Term::Held => (0, None),
        Term::Within { ended, .. } => (1, Some(std::cmp::Reverse(last_day(*ended)))),
        Term::EndedUndated => (2, None),
        Term::Lapsed { ended, .. } => (3, Some(std::cmp::Reverse(last_day(*ended)))),
    };
    terms.into_iter().min_by_key(|(_, t)| rank(t))
}

fn reason(code: &str, detail: String, counts: bool) -> CheckReason {
    CheckReason {
        code: code.to_owned(),
        detail,
        contributes: if counts {
            Contribution::Neutral
        } else {
            Contribution::Down
        },
    }
}

/// What `exposure` means on `today` when a former office counts for `months` after it
/// ended.
pub fn assess(exposure: &Exposure, today: NaiveDate, months: u32) -> Assessment {
    let mut reasons = Vec::new();
    let mut counts = false;

    // The person's own offices: every one that counts, and the last one left of those that
    // no longer do (the history, without listing every term of a long career).
    let mut lapsed: Option<(&HeldPosition, Term)> = None;
    for p in &exposure.positions {
        let t = term(p, today, months);
        if t.counts() {
            counts = true;
            let code = if t == Term::Held {
                "pep_position"
            } else {
                "pep_former"
            };
            reasons.push(reason(code, described(p, t, months), true));
        } else if lapsed.is_none_or(|(q, _)| ended_on(p) > ended_on(q)) {
            lapsed = Some((p, t));
        }
    }
    if let Some((p, t)) = lapsed {
        reasons.push(reason("pep_former_lapsed", described(p, t, months), false));
    }

    for tie in &exposure.relations {
        let (code, what) = match tie.kind {
            RelationKind::Family => ("pep_relative", "a family member"),
            RelationKind::Associate => ("pep_associate", "a close associate"),
        };
        let how = match &tie.relationship {
            Some(words) => format!("{what} ({words})"),
            None => what.to_owned(),
        };
        let (tie_counts, office) = match principal(&tie.pep_positions, today, months) {
            Some((p, t)) => (t.counts(), described(p, t, months)),
            None => (
                true,
                "the list gives the PEP's offices no detail".to_owned(),
            ),
        };
        counts |= tie_counts;
        reasons.push(reason(
            code,
            format!("{how} of {}: {office}", tie.pep_name),
            tie_counts,
        ));
    }

    if exposure.positions.is_empty() && exposure.relations.is_empty() {
        counts = true;
        let said = if exposure.roles.contains(&ExposureRole::Pep) {
            "politically exposed"
        } else {
            "a family member or close associate of a politically exposed person"
        };
        reasons.push(reason(
            "pep_listed",
            format!("the list names the person as {said}, without an office or a tie it explains"),
            true,
        ));
    }

    reasons.push(if counts {
        reason(
            "pep_not_sanction",
            "a list of politically exposed persons: being exposed is not a sanction, so this \
             candidate is at most `review`"
                .to_owned(),
            true,
        )
    } else {
        reason(
            "pep_lapsed",
            format!(
                "no office or tie counts any more: every one ended more than {months} months \
                 ago (the policy's window), so this candidate is `clear`"
            ),
            false,
        )
    });
    Assessment { counts, reasons }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screening::sanctions::PepRelation;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    fn office(end: Option<&str>, status: TermStatus) -> HeldPosition {
        HeldPosition {
            title: "Member of the Test Parliament".into(),
            country: Some("SE".into()),
            start: ListedDate::from_wire("2018-09-24"),
            end: end.and_then(ListedDate::from_wire),
            status,
        }
    }

    fn pep(positions: Vec<HeldPosition>) -> Exposure {
        Exposure {
            roles: vec![ExposureRole::Pep],
            positions,
            relations: vec![],
        }
    }

    fn codes(a: &Assessment) -> Vec<&str> {
        a.reasons.iter().map(|r| r.code.as_str()).collect()
    }

    #[test]
    fn a_held_office_counts_and_caps_at_review() {
        let a = assess(
            &pep(vec![office(None, TermStatus::Current)]),
            day("2026-11-28"),
            12,
        );
        assert!(a.counts);
        assert_eq!(codes(&a), ["pep_position", "pep_not_sanction"]);
        assert_eq!(a.cap(Band::Hit), Band::Review);
        assert_eq!(a.cap(Band::Review), Band::Review);
        assert_eq!(a.cap(Band::Clear), Band::Clear);
        // A running term's scheduled end is no departure.
        let a = assess(
            &pep(vec![office(Some("2030-09-30"), TermStatus::Current)]),
            day("2026-11-28"),
            12,
        );
        assert_eq!(codes(&a), ["pep_position", "pep_not_sanction"]);
    }

    #[test]
    fn a_former_office_counts_through_the_window_and_not_a_day_longer() {
        let left = pep(vec![office(Some("2025-11-30"), TermStatus::Ended)]);
        for (today, counts) in [
            ("2025-12-01", true),
            ("2026-11-28", true),
            ("2026-11-30", true),
            ("2026-12-01", false),
        ] {
            let a = assess(&left, day(today), 12);
            assert_eq!(a.counts, counts, "{today}");
            assert_eq!(
                a.cap(Band::Hit),
                if counts { Band::Review } else { Band::Clear }
            );
        }
        let within = assess(&left, day("2026-11-28"), 12);
        assert_eq!(codes(&within), ["pep_former", "pep_not_sanction"]);
        assert!(within.reasons[0].detail.contains("left 2025-11-30"));
        assert!(within.reasons[0].detail.contains("through 2026-11-30"));
        let lapsed = assess(&left, day("2026-12-01"), 12);
        assert_eq!(codes(&lapsed), ["pep_former_lapsed", "pep_lapsed"]);
        assert!(lapsed
            .reasons
            .iter()
            .all(|r| r.contributes == Contribution::Down));
        // A wider window keeps it.
        assert!(assess(&left, day("2026-12-01"), 24).counts);
    }

    #[test]
    fn a_partial_end_date_is_read_as_its_last_day() {
        let left_in_2025 = pep(vec![office(Some("2025"), TermStatus::Ended)]);
        assert!(assess(&left_in_2025, day("2026-12-31"), 12).counts);
        assert!(!assess(&left_in_2025, day("2027-01-01"), 12).counts);
        let left_in_feb = pep(vec![office(Some("2024-02"), TermStatus::Ended)]);
        assert!(assess(&left_in_feb, day("2025-02-28"), 12).counts);
        assert!(!assess(&left_in_feb, day("2025-03-01"), 12).counts);
    }

    #[test]
    fn an_ended_term_without_a_date_and_an_unknown_one_count() {
        let a = assess(
            &pep(vec![office(None, TermStatus::Ended)]),
            day("2026-11-28"),
            12,
        );
        assert!(a.counts);
        assert!(a.reasons[0].detail.contains("gives no date"));
        let a = assess(
            &pep(vec![office(None, TermStatus::Unknown)]),
            day("2026-11-28"),
            12,
        );
        assert!(a.counts);
        assert!(a.reasons[0].detail.contains("no end to the term"));
        let a = assess(&pep(vec![]), day("2026-11-28"), 12);
        assert!(a.counts);
        assert_eq!(codes(&a), ["pep_listed", "pep_not_sanction"]);
    }

    #[test]
    fn a_tie_counts_while_the_peps_office_does() {
        let spouse = |end: Option<&str>| Exposure {
            roles: vec![ExposureRole::Rca],
            positions: vec![],
            relations: vec![PepRelation {
                kind: RelationKind::Family,
                relationship: Some("spouse".into()),
                pep_entry_id: "p".into(),
                pep_name: "Prova Testperson".into(),
                pep_positions: vec![
                    office(Some("2010-01-01"), TermStatus::Ended),
                    office(
                        end,
                        if end.is_some() {
                            TermStatus::Ended
                        } else {
                            TermStatus::Current
                        },
                    ),
                ],
            }],
        };
        let a = assess(&spouse(None), day("2026-11-28"), 12);
        assert!(a.counts);
        assert_eq!(codes(&a), ["pep_relative", "pep_not_sanction"]);
        assert!(
            a.reasons[0]
                .detail
                .starts_with("a family member (spouse) of Prova Testperson: Member of the Test Parliament (SE), in office since 2018-09-24"),
            "{}",
            a.reasons[0].detail
        );
        let a = assess(&spouse(Some("2020-01-01")), day("2026-11-28"), 12);
        assert!(!a.counts);
        assert_eq!(codes(&a), ["pep_relative", "pep_lapsed"]);
        assert!(
            a.reasons[0].detail.contains("left 2020-01-01"),
            "the last office left"
        );
    }

    #[test]
    fn only_the_last_lapsed_office_is_told() {
        let a = assess(
            &pep(vec![
                office(Some("2001-01-01"), TermStatus::Ended),
                office(Some("2012-05-05"), TermStatus::Ended),
                office(Some("2006-01-01"), TermStatus::Ended),
            ]),
            day("2026-11-28"),
            12,
        );
        assert_eq!(codes(&a), ["pep_former_lapsed", "pep_lapsed"]);
        assert!(a.reasons[0].detail.contains("left 2012-05-05"));
    }
}
