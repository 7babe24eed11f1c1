//! The matcher on PEP lists, measured as it is on sanctions lists: the share of listed PEPs
//! found (their entry reaching `review`) when written as people and other systems write
//! them, and the share of names that are not listed reaching `review`.
//!
//! PEP data that may be published here does not exist in quantity (the official member lists
//! name real people, and the licensed feeds may not be copied), so the list is made up: the
//! synthetic FollowTheMoney sample and the synthetic Riksdag member list under `testdata/pep/`,
//! and [`SYNTHETIC_PEPS`] more persons drawn by a fixed sequence from pools of common Swedish
//! and Lithuanian given names and surnames (a common name is no person; the pairs are drawn).
//! Lithuanian surnames come in their masculine and feminine forms, with their diacritics.
//!
//! - **Variants of a listed PEP** ([`Variant`]): the name with its diacritics dropped, in
//!   fullwidth compatibility forms, surname first, without a second given name, and with one
//!   slip of typing. Found when the PEP's entry reaches review, first when ranked first.
//! - **Neighbours**: names drawn from the same pools whose given name and surname pair no
//!   listed PEP has, and whose words neither hold a listed PEP's words nor are held by them
//!   (`Maria Nilsson` may well be the listed `Åsa Maria Nilsson`: not a negative); the hard
//!   negatives of a national PEP list: the same common names, another person. Counted when
//!   anything reaches review.
//! - The sanctions evaluation's negatives are screened against the PEP list too.

use super::{review, slipped, Draw, Flagged, Found, Slip};
use crate::{read_path, ListFormat};
use domain::screening::matcher::index::ListIndex;
use domain::screening::matcher::normalise::fold;
use domain::screening::matcher::score::Weights;
use domain::screening::matcher::{Matcher, Query};
use domain::screening::sanctions::{
    EntryKind, Exposure, ExposureRole, HeldPosition, ListEntry, ListSource, ListedCountry,
    ListedDate, ListedName, NameQuality, SourceVersion, SourceVersionId, TermStatus,
};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

/// How many persons are drawn besides the samples.
pub const SYNTHETIC_PEPS: usize = 600;

const SE_GIVEN: [&str; 30] = [
    "Anna", "Eva", "Maria", "Karin", "Sara", "Lena", "Kerstin", "Ingrid", "Birgitta", "Elin",
    "Johanna", "Åsa", "Görel", "Ebba", "Erik", "Lars", "Karl", "Anders", "Johan", "Per", "Nils",
    "Lennart", "Mikael", "Jan", "Hans", "Olof", "Gunnar", "Sven", "Björn", "Mats",
];
const SE_SURNAMES: [&str; 30] = [
    "Andersson",
    "Johansson",
    "Karlsson",
    "Nilsson",
    "Eriksson",
    "Larsson",
    "Olsson",
    "Persson",
    "Svensson",
    "Gustafsson",
    "Pettersson",
    "Jonsson",
    "Jansson",
    "Hansson",
    "Bengtsson",
    "Jönsson",
    "Lindberg",
    "Lindström",
    "Lindqvist",
    "Lindgren",
    "Bergström",
    "Lundberg",
    "Lundqvist",
    "Sjöberg",
    "Wallin",
    "Engström",
    "Håkansson",
    "Öberg",
    "Ekström",
    "Åberg",
];
/// Given names, and whether the person is a woman (the surname's form follows).
const LT_GIVEN: [(&str, bool); 16] = [
    ("Jonas", false),
    ("Petras", false),
    ("Antanas", false),
    ("Tomas", false),
    ("Mindaugas", false),
    ("Darius", false),
    ("Giedrius", false),
    ("Žygimantas", false),
    ("Rūta", true),
    ("Aistė", true),
    ("Eglė", true),
    ("Jurgita", true),
    ("Dalia", true),
    ("Vilma", true),
    ("Gintarė", true),
    ("Ieva", true),
];
/// Surnames, masculine and married feminine forms.
const LT_SURNAMES: [(&str, &str); 12] = [
    ("Kazlauskas", "Kazlauskienė"),
    ("Jankauskas", "Jankauskienė"),
    ("Petrauskas", "Petrauskienė"),
    ("Stankevičius", "Stankevičienė"),
    ("Vasiliauskas", "Vasiliauskienė"),
    ("Žukauskas", "Žukauskienė"),
    ("Butkus", "Butkienė"),
    ("Paulauskas", "Paulauskienė"),
    ("Urbonas", "Urbonienė"),
    ("Kavaliauskas", "Kavaliauskienė"),
    ("Šimkus", "Šimkienė"),
    ("Balčiūnas", "Balčiūnienė"),
];
const OFFICES: [(&str, &str); 6] = [
    ("SE", "Member of the Riksdag (Riksdagsledamot)"),
    ("SE", "Statsråd, Finansdepartementet"),
    ("SE", "Justice of the Supreme Court of Sweden"),
    ("LT", "Member of the Seimas"),
    ("LT", "Minister of Finance of Lithuania"),
    ("LT", "Mayor of Vilnius"),
];

/// A drawn person: given names, surname, country.
#[derive(Clone, Debug)]
pub struct Person {
    pub given: Vec<String>,
    pub surname: String,
    pub country: &'static str,
}

impl Person {
    pub fn name(&self) -> String {
        format!("{} {}", self.given.join(" "), self.surname)
    }

    /// The pair that tells two drawn persons apart: first given name and surname, folded.
    fn pair(&self) -> (String, String) {
        (fold(&self.given[0]), fold(&self.surname))
    }
}

fn draw_person(draw: &mut Draw) -> Person {
    if draw.below(3) < 2 {
        let mut given = vec![SE_GIVEN[draw.below(SE_GIVEN.len())].to_owned()];
        if draw.below(3) == 0 {
            let second = SE_GIVEN[draw.below(SE_GIVEN.len())];
            if second != given[0] {
                given.push(second.to_owned());
            }
        }
        Person {
            given,
            surname: SE_SURNAMES[draw.below(SE_SURNAMES.len())].to_owned(),
            country: "SE",
        }
    } else {
        let (given, woman) = LT_GIVEN[draw.below(LT_GIVEN.len())];
        let (man, wife) = LT_SURNAMES[draw.below(LT_SURNAMES.len())];
        Person {
            given: vec![given.to_owned()],
            surname: if woman { wife } else { man }.to_owned(),
            country: "LT",
        }
    }
}

/// The drawn PEPs: distinct by their first given name and surname.
pub fn drawn_peps() -> Vec<Person> {
    let mut draw = Draw(20_261_128);
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    while out.len() < SYNTHETIC_PEPS {
        let p = draw_person(&mut draw);
        if seen.insert(p.pair()) {
            out.push(p);
        }
    }
    out
}

fn entry(i: usize, p: &Person, draw: &mut Draw) -> ListEntry {
    let offices: Vec<&(&str, &str)> = OFFICES.iter().filter(|(c, _)| *c == p.country).collect();
    let (country, title) = offices[draw.below(offices.len())];
    let year = 1950 + i32::try_from(draw.below(45)).unwrap_or(0);
    ListEntry {
        source_entry_id: format!("synth-drawn-{i:04}"),
        kind: EntryKind::Person,
        names: vec![ListedName {
            full: p.name(),
            quality: NameQuality::Strong,
        }],
        birth_dates: vec![ListedDate::Year(year)],
        nationalities: vec![],
        countries: vec![ListedCountry {
            code: Some((*country).to_owned()),
            name: country.to_lowercase(),
        }],
        identifiers: vec![],
        programs: vec![],
        listed_on: None,
        exposure: Some(Exposure {
            roles: vec![ExposureRole::Pep],
            positions: vec![HeldPosition {
                title: (*title).to_owned(),
                country: Some((*country).to_owned()),
                start: Some(ListedDate::Year(2022)),
                end: None,
                status: TermStatus::Current,
            }],
            relations: vec![],
        }),
    }
}

/// The PEP lists measured, loaded together: the two samples and the drawn persons.
pub fn pep_matcher(testdata: &Path) -> Matcher {
    let version = |source: ListSource, digest: String, entries: &[ListEntry]| SourceVersion {
        id: SourceVersionId::generate(),
        source,
        digest,
        published_at: None,
        imported_at: chrono::Utc::now(),
        entry_count: u32::try_from(entries.len()).unwrap_or(u32::MAX),
        skipped_count: 0,
    };
    let mut lists = Vec::new();
    let ftm = read_path(
        &testdata.join("pep/synthetic-peps.ftm.json"),
        Some(ListFormat::FtmPep),
    )
    .expect("the FtM PEP sample");
    let riksdagen = read_path(
        &testdata.join("pep/riksdagen-personlista.synthetic.json"),
        Some(ListFormat::RiksdagenJson),
    )
    .expect("the Riksdag sample");
    let mut ftm_entries = ftm.list.entries;
    let mut draw = Draw(7_919);
    ftm_entries.extend(
        drawn_peps()
            .iter()
            .enumerate()
            .map(|(i, p)| entry(i, p, &mut draw)),
    );
    lists.push((
        version(ListSource::FtmPeps, ftm.digest, &ftm_entries),
        ftm_entries,
    ));
    lists.push((
        version(
            ListSource::Riksdagen,
            riksdagen.digest,
            &riksdagen.list.entries,
        ),
        riksdagen.list.entries,
    ));
    Matcher {
        index: ListIndex::build(lists),
        weights: Weights::default(),
    }
}

/// How a listed PEP's name is written by whoever screens it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `Bjorn Oberg` for `Björn Öberg`, `Zukauskiene` for `Žukauskienė`.
    NoDiacritics,
    /// `ＡＮＮＡ　ＢＥＲＧ`: fullwidth compatibility forms, as some systems copy names.
    Fullwidth,
    /// `Öberg Björn`.
    SurnameFirst,
    /// `Karl Nilsson` for `Karl Erik Nilsson` (only names with two given names).
    OneGivenName,
    /// One slip of typing: a letter doubled or two adjacent letters transposed.
    Slip,
}

impl Variant {
    pub const ALL: [Variant; 5] = [
        Variant::NoDiacritics,
        Variant::Fullwidth,
        Variant::SurnameFirst,
        Variant::OneGivenName,
        Variant::Slip,
    ];

    pub fn describe(self) -> &'static str {
        match self {
            Variant::NoDiacritics => "diacritics dropped (`Zukauskiene` for `Žukauskienė`)",
            Variant::Fullwidth => "fullwidth forms (`ＡＮＮＡ　ＢＥＲＧ`)",
            Variant::SurnameFirst => "surname first (`Öberg Björn`)",
            Variant::OneGivenName => "the second given name left out",
            Variant::Slip => "one slip of typing (a letter doubled or transposed)",
        }
    }
}

/// Latin letters with their diacritics dropped, the rest kept.
fn plain(s: &str) -> String {
    fold(s)
        .split(' ')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn fullwidth(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            ' ' => '\u{3000}',
            '!'..='~' => char::from_u32(c as u32 + 0xFEE0).unwrap_or(c),
            other => other,
        })
        .collect()
}

/// Each drawn PEP written as `variant` says; `None` when the variant does not apply.
fn written(p: &Person, variant: Variant, draw: &mut Draw) -> Option<String> {
    match variant {
        Variant::NoDiacritics => {
            let name = p.name();
            let plain = plain(&name);
            (fold(&name) == fold(&plain) && plain != name && !name.is_ascii()).then_some(plain)
        }
        Variant::Fullwidth => Some(fullwidth(&plain(&p.name()))),
        Variant::SurnameFirst => Some(format!("{} {}", p.surname, p.given.join(" "))),
        Variant::OneGivenName => {
            (p.given.len() > 1).then(|| format!("{} {}", p.given[0], p.surname))
        }
        Variant::Slip => {
            let words: Vec<String> = fold(&p.name()).split(' ').map(str::to_owned).collect();
            let kind = if draw.below(2) == 0 {
                Slip::Doubled
            } else {
                Slip::Transposed
            };
            slipped(&words, kind, draw)
        }
    }
}

/// Every drawn PEP written as `variant` says, screened by name alone against the PEP lists.
pub fn variants(matcher: &Matcher, variant: Variant) -> Found {
    let index = &matcher.index;
    let mut draw = Draw(20_261_128 ^ variant as u64);
    let mut out = Found::default();
    for (i, p) in drawn_peps().iter().enumerate() {
        let Some(name) = written(p, variant, &mut draw) else {
            continue;
        };
        let id = format!("synth-drawn-{i:04}");
        let right: Vec<usize> = index
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.entry.source_entry_id == id)
            .map(|(n, _)| n)
            .collect();
        let query = Query {
            name: name.clone(),
            ..Query::default()
        };
        out.judge(matcher, &query, &right, format!("{name} for {}", p.name()));
    }
    out
}

/// Names from the same pools that no listed PEP bears (by given name and surname), screened
/// by name alone: counted when anything reaches review.
pub fn neighbours(matcher: &Matcher, count: usize) -> Flagged {
    let listed: BTreeSet<(String, String)> = drawn_peps().iter().map(Person::pair).collect();
    let words =
        |name: &str| -> BTreeSet<String> { fold(name).split(' ').map(str::to_owned).collect() };
    let listed_words: Vec<BTreeSet<String>> =
        drawn_peps().iter().map(|p| words(&p.name())).collect();
    let mut draw = Draw(4_242);
    let mut seen = BTreeSet::new();
    let mut out = Flagged::default();
    let mut tries = 0;
    while out.cases < count && tries < count * 50 {
        tries += 1;
        let p = draw_person(&mut draw);
        let mine = words(&p.name());
        let nested = listed_words
            .iter()
            .any(|l| l.is_subset(&mine) || l.is_superset(&mine));
        if listed.contains(&p.pair()) || nested || !seen.insert(p.name()) {
            continue;
        }
        let query = Query {
            name: p.name(),
            ..Query::default()
        };
        out.cases += 1;
        let started = Instant::now();
        let candidates = matcher.screen(&query, review(), 1);
        out.times.push(started.elapsed());
        if let Some(c) = candidates.first() {
            out.flagged.push(format!(
                "{} ~ {} ({:.2})",
                p.name(),
                matcher.index.names[c.name].full,
                c.score
            ));
        }
    }
    out
}
