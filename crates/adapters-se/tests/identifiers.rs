//! The identifier rules over Sweden's and Lithuania's schemes installed together, as the
//! binary installs them: the wire form's prefixes (`wire`), and the shape rule that finds a
//! personal number in free text (`shape`), which reads every installed person scheme.

use adapters_lt::identifiers::{ASMENS_KODAS, IMONES_KODAS, LT};
use adapters_se::identifiers::{ORGNR, PERSONNUMMER, SAMORDNINGSNUMMER};
use chrono::{Datelike, NaiveDate};
use domain::countries::country::Country;
use domain::subjects::identifier::shape::{holds_personal_number, personal_number_spans};
use domain::subjects::identifier::{
    digits, scheme, split_prefix, Identifier, IdentifierError, IdentifierType,
};
use proptest::prelude::*;

/// Sweden's and Lithuania's schemes, as the binary installs them.
fn schemes() {
    adapters_se::identifiers::install();
    adapters_lt::identifiers::install();
}

mod wire {
    use super::*;

    const PNR: IdentifierType = PERSONNUMMER;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()
    }

    fn parse(ty: IdentifierType, wire: &str) -> Result<String, IdentifierError> {
        Identifier::parse(ty, wire, today()).map(|i| i.expose_canonical().to_owned())
    }

    #[test]
    fn type_names_round_trip() {
        schemes();
        for &ty in scheme::known() {
            assert_eq!(IdentifierType::parse(ty.as_str()), Some(ty));
            assert_eq!(ty.to_string(), ty.as_str());
        }
        assert_eq!(IdentifierType::parse("Personnummer"), None);
    }

    #[test]
    fn no_prefix_means_sweden() {
        schemes();
        assert_eq!(
            split_prefix("5560021361").unwrap(),
            (Country::Se, "5560021361")
        );
        assert_eq!(parse(ORGNR, "5560021361"), parse(ORGNR, "se:5560021361"));
    }

    #[test]
    fn uppercase_prefix_is_refused() {
        schemes();
        for wire in ["SE:5560021361", "Se:5560021361", "LT:110443493"] {
            assert_eq!(
                parse(ORGNR, wire),
                Err(IdentifierError::UnknownPrefix),
                "{wire}"
            );
            assert_eq!(
                Identifier::parse_company(wire),
                Err(IdentifierError::UnknownPrefix)
            );
        }
    }

    #[test]
    fn unknown_prefix_is_refused() {
        schemes();
        for wire in [
            "no:5560021361",
            "fi:5560021361",
            ":5560021361",
            "sweden:5560021361",
            "se :5560021361",
        ] {
            assert_eq!(
                parse(ORGNR, wire),
                Err(IdentifierError::UnknownPrefix),
                "{wire}"
            );
        }
    }

    #[test]
    fn type_of_another_country_is_refused() {
        schemes();
        assert_eq!(
            parse(PNR, "lt:198112199289"),
            Err(IdentifierError::TypeCountryMismatch {
                ty: PNR,
                prefix: "lt"
            })
        );
        assert_eq!(
            parse(IMONES_KODAS, "se:110443493"),
            Err(IdentifierError::TypeCountryMismatch {
                ty: IMONES_KODAS,
                prefix: "se"
            })
        );
    }

    #[test]
    fn empty_or_blank_values_are_malformed() {
        schemes();
        for &ty in scheme::known() {
            let prefix = ty.country().prefix();
            for wire in [
                format!("{prefix}:"),
                format!("  {prefix}:  "),
                format!("{prefix}:\t"),
            ] {
                assert_eq!(
                    parse(ty, &wire),
                    Err(IdentifierError::Malformed(ty)),
                    "{ty} {wire:?}"
                );
            }
        }
        for wire in ["", "   ", "\n"] {
            assert_eq!(parse(PNR, wire), Err(IdentifierError::Malformed(PNR)));
        }
    }

    #[test]
    fn outer_whitespace_is_trimmed_and_inner_whitespace_refused() {
        schemes();
        assert_eq!(
            parse(ORGNR, " \tse:556002-1361\n").as_deref(),
            Ok("5560021361")
        );
        assert_eq!(
            parse(ORGNR, "se: 5560021361"),
            Err(IdentifierError::Malformed(ORGNR))
        );
        assert_eq!(
            parse(ORGNR, "556002 1361"),
            Err(IdentifierError::Malformed(ORGNR))
        );
    }

    #[test]
    fn a_second_prefix_is_malformed() {
        schemes();
        assert_eq!(
            parse(ORGNR, "se:se:5560021361"),
            Err(IdentifierError::Malformed(ORGNR))
        );
    }

    #[test]
    fn parse_company_picks_the_scheme_from_the_prefix() {
        schemes();
        let se = Identifier::parse_company("556002-1361").unwrap();
        assert_eq!(se.id_type(), ORGNR);
        assert_eq!(se.country(), Country::Se);
        assert_eq!(se.expose_wire(), "se:5560021361");
        let lt = Identifier::parse_company("lt:110443493").unwrap();
        assert_eq!(lt.id_type(), IMONES_KODAS);
        assert_eq!(lt.country(), LT);
        assert!(Identifier::parse_company("se:8112199289").is_err());
    }

    #[test]
    fn parse_reads_as_of_today() {
        schemes();
        // A twelve-digit number does not depend on the date it is read.
        let n = Identifier::parse(PNR, "19811219-9289", today()).unwrap();
        assert_eq!(n.expose_canonical(), "198112199289");
        assert_eq!(n.id_type(), PNR);
        assert_eq!(n.country(), Country::Se);
    }

    #[test]
    fn the_century_of_a_ten_digit_number_depends_on_the_reading_date() {
        schemes();
        let ten = "811219-9289";
        let in_2026 = Identifier::parse(PNR, ten, today()).unwrap();
        assert_eq!(in_2026.expose_canonical(), "198112199289");
        let in_2090 = NaiveDate::from_ymd_opt(2090, 1, 1).unwrap();
        let read_later = Identifier::parse(PNR, ten, in_2090).unwrap();
        assert_eq!(read_later.expose_canonical(), "208112199289");
    }

    #[test]
    fn a_stored_canonical_value_is_restored_without_a_date() {
        schemes();
        let n = Identifier::restore(PNR, "198112199289").unwrap();
        assert_eq!(n.expose_canonical(), "198112199289");
        let lt = Identifier::restore(IMONES_KODAS, "110443493").unwrap();
        assert_eq!(lt.expose_wire(), "lt:110443493");
        // Only the canonical form: a ten-digit or separated form is not a stored value.
        assert!(Identifier::restore(PNR, "8112199289").is_err());
        assert!(Identifier::restore(PNR, "19811219-9289").is_err());
        // The check digit is verified again.
        assert!(Identifier::restore(PNR, "198112199288").is_err());
    }

    #[test]
    fn debug_hides_the_value() {
        schemes();
        let n = Identifier::parse(PNR, "198112199289", today()).unwrap();
        let debug = format!("{n:?}");
        assert!(!debug.contains("8112199289"), "{debug}");
        assert!(debug.contains("personnummer"));
    }

    #[test]
    fn error_messages_name_the_rule_not_the_value() {
        schemes();
        let cases = [
            (PNR, "lt:198112199289"),
            (PNR, "XX:198112199289"),
            (PNR, "198112199288"),
            (PNR, "198113189876"),
            (PNR, "198112799289"),
            (ORGNR, "4560021361"),
            (ORGNR, "abc"),
        ];
        for (ty, wire) in cases {
            let e = parse(ty, wire).unwrap_err();
            let message = e.to_string();
            let digits: String = wire.chars().filter(char::is_ascii_digit).collect();
            assert!(digits.is_empty() || !message.contains(&digits), "{message}");
            assert!(!message.contains(wire), "{message}");
            assert!(!e.reason().is_empty());
        }
    }

    /// Wire strings of every kind: anything at all, digit strings of identifier lengths
    /// with and without prefixes and separators, the same written with other scripts' digits,
    /// NUL and spaces mixed in, and valid numbers (Skatteverket's test numbers, real company
    /// codes) with one character changed or added.
    fn wire_inputs() -> impl Strategy<Value = String> {
        let valid = prop_oneof![
            Just("198112199289"),
            Just("811219-9289"),
            Just("19570413-3106"),
            Just("5560021361"),
            Just("556002-1361"),
            Just("lt:38703181745"),
            Just("lt:304656794"),
            Just("se:198111852383"),
        ];
        prop_oneof![
            "\\PC{0,20}",
            "(se:|lt:|SE:|)[0-9]{9,12}",
            "(se:|lt:|)[0-9]{6,8}[-+]?[0-9]{4}",
            "(se:|lt:| |)[0-9\\-+ \\x00\u{0660}-\u{0669}\u{FF10}-\u{FF19}\u{0966}-\u{096F}]{6,14}",
            (valid.clone(), any::<usize>(), "\\PC").prop_map(|(v, at, c)| {
                let mut chars: Vec<char> = v.chars().collect();
                let at = at % chars.len();
                chars[at] = c.chars().next().unwrap_or('0');
                chars.into_iter().collect()
            }),
            (
                valid,
                any::<usize>(),
                "[\\x00 \u{FF10}-\u{FF19}\u{0660}-\u{0669}]"
            )
                .prop_map(|(v, at, c)| {
                    let mut s = v.to_owned();
                    let at = (at % (s.len() + 1)).min(s.len());
                    let at = (0..=at).rev().find(|i| s.is_char_boundary(*i)).unwrap_or(0);
                    s.insert_str(at, &c);
                    s
                }),
            Just("198112199289".to_owned()),
        ]
    }

    /// What parses is written in ASCII digits with at most a `-` or `+` (after a prefix):
    /// never with a NUL, a space inside or another script's digits.
    fn written_in_ascii(wire: &str) -> bool {
        let value = wire.trim().split_once(':').map_or(wire.trim(), |(_, v)| v);
        value
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'-' || b == b'+')
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn any_input_is_refused_or_canonical(wire in wire_inputs(), which in 0usize..5) {
            schemes();
            // Whatever comes in, parsing does not panic, and what parses is stable.
            let ty = scheme::known()[which];
            match parse(ty, &wire) {
                Ok(canonical) => {
                    prop_assert!(written_in_ascii(&wire), "accepted {:?}", wire);
                    prop_assert!(!canonical.is_empty());
                    prop_assert!(canonical.bytes().all(|b| b.is_ascii_digit()));
                    let again = parse(ty, &format!("{}:{canonical}", ty.country().prefix()));
                    prop_assert_eq!(again.as_ref(), Ok(&canonical));
                }
                Err(e) => {
                    let digits: String = wire.chars().filter(char::is_ascii_digit).collect();
                    let message = e.to_string();
                    prop_assert!(digits.len() < 4 || !message.contains(&digits), "{}", message);
                }
            }
        }
    }

    /// The strategy above reaches both branches: a fair share of its inputs parse.
    #[test]
    fn the_any_input_strategy_reaches_accepted_values() {
        schemes();
        use proptest::strategy::ValueTree;
        use proptest::test_runner::TestRunner;
        let mut runner = TestRunner::deterministic();
        let strategy = wire_inputs();
        let (mut accepted, mut refused) = (0, 0);
        for _ in 0..4000 {
            let wire = strategy.new_tree(&mut runner).unwrap().current();
            let parses = scheme::known().iter().any(|ty| parse(*ty, &wire).is_ok());
            if parses {
                accepted += 1;
            } else {
                refused += 1;
            }
        }
        assert!(accepted >= 200, "{accepted} of 4000 inputs parse");
        assert!(refused >= 2000, "{refused} of 4000 inputs are refused");
    }
}

mod shape {
    use super::*;

    #[test]
    fn names_carrying_a_personal_number_are_recognised_however_written() {
        schemes();
        // Skatteverket's test numbers, synthetic coordination numbers (unknown month and
        // day included) and a synthetic Lithuanian code (its check digit wrong on purpose).
        for name in [
            "Anna Test 19570413-3106",
            "Anna Test 195704133106",
            "5704133106",
            "570413-3106 Anna",
            "Bo 570413+3106",
            "samordning 19811190-1234",
            "Jonas 38703181740",
            "Jonas 387 0318 1740",
            "x195704133106y",
            // Other scripts: fullwidth, Arabic-Indic, Devanagari, mixed.
            "Anna \u{FF18}\u{FF11}\u{FF11}\u{FF11}\u{FF13}\u{FF10}-\u{FF19}\u{FF12}\u{FF18}\u{FF15}",
            "Anna \u{0668}\u{0661}\u{0661}\u{0661}\u{0663}\u{0660}\u{0669}\u{0662}\u{0668}\u{0665}",
            "Anna \u{096E}\u{0967}\u{0967}\u{0967}\u{0969}\u{0966}-\u{096F}\u{0968}\u{096E}\u{096B}",
            "Anna 8\u{FF11}1\u{0661}30-9\u{0968}85",
            // Skatteverket's test coordination numbers with an unknown day and month.
            "Nils 171160+2399",
            "Nils 19150072-2390",
            // Spaced, dashed and hidden.
            "Anna 811130 - 9285",
            "Anna 811130\u{2013}9285",
            "Anna 8\u{200B}1\u{00AD}1130-9285",
            "Anna 811130\u{FE0F}\u{20E3}-9285",
            "Anna 81 11 30 92 85",
            "Anna \u{2460}\u{2467}1130-9285",
        ] {
            assert!(holds_personal_number(name), "{name:?}");
        }
    }

    /// Found by fuzzing (`personal_number_shape`): coordination numbers with an unknown day
    /// (60) or month (00), which the parser accepts. One of Skatteverket's test numbers, and
    /// synthetic shapes whose check digits are wrong (nobody's number).
    #[test]
    fn coordination_numbers_with_an_unknown_day_or_month_are_recognised() {
        schemes();
        for name in [
            "id 1812602397",
            "Bo 191400601234",
            "Bo 140060-1234",
            "Bo 19140068-1234",
            "Bo 1411601234",
        ] {
            assert!(holds_personal_number(name), "{name}");
        }
    }

    /// Found by fuzzing (`personal_number_shape`): a Lithuanian personal code of the
    /// exceptional kind (`9`, no date in it), which the parser accepts when its check digit
    /// holds. Synthetic; the same digits with a wrong check digit pass.
    #[test]
    fn exceptional_lithuanian_codes_are_recognised_by_their_check_digit() {
        schemes();
        assert!(holds_personal_number("ref 372 99280584138"));
        assert!(!holds_personal_number("ref 372 99280584139"));
    }

    #[test]
    fn names_and_other_numbers_pass() {
        schemes();
        for name in [
            "Anna Testsson",
            "Snow Storm 2",
            "IMO 9187629",
            "Company 5560021361 AB",
            "Flight 1234-5678",
            "1957",
            "Al-Qaida 99999999999",
            "",
            "\u{FF11}\u{FF19}\u{FF15}\u{FF17}",
            "Room 12, floor 3",
        ] {
            assert!(!holds_personal_number(name), "{name:?}");
        }
    }

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 25).unwrap()
    }

    fn accepted(ty: IdentifierType, wire: &str) -> bool {
        Identifier::parse(ty, &format!("{}:{wire}", ty.country().prefix()), today()).is_ok()
    }

    /// The zero of every script with ten decimal digits (ASCII, fullwidth, Arabic-Indic,
    /// Devanagari, ... 70 and more), found once by scanning every code point.
    fn scripts() -> &'static [char] {
        static ZEROS: std::sync::OnceLock<Vec<char>> = std::sync::OnceLock::new();
        ZEROS.get_or_init(|| {
            (0..=0x10FFFFu32)
                .filter_map(char::from_u32)
                .filter(|&c| {
                    digits::value(c) == Some(0)
                        && (1..10u32).all(|v| {
                            char::from_u32(u32::from(c) + v).and_then(digits::value)
                                == Some(v as u8)
                        })
                })
                .collect()
        })
    }

    /// A Swedish number the parser accepts, in one of the spellings it accepts: personal or
    /// coordination (unknown month or day now and then), 10 or 12 digits, no separator, `-`
    /// or `+` (the latter for those born at least 100 years before this year).
    fn swedish() -> impl Strategy<Value = (IdentifierType, String)> {
        schemes();
        let first = NaiveDate::from_ymd_opt(1800, 1, 1).unwrap();
        let span = (today() - first).num_days();
        (0..=span, 1u32..=999, any::<bool>(), 0u8..10, 0u8..6).prop_map(
            move |(offset, serial, coordination, unknown, form)| {
                let born = first + chrono::Duration::days(offset);
                let (ty, month, day) = if coordination {
                    let month = if unknown == 0 { 0 } else { born.month() };
                    let day = if unknown == 1 { 60 } else { born.day() + 60 };
                    (SAMORDNINGSNUMMER, month, day)
                } else {
                    (PERSONNUMMER, born.month(), born.day())
                };
                let yy = born.year() % 100;
                let payload = format!("{yy:02}{month:02}{day:02}{serial:03}");
                let values: Vec<u8> = payload.bytes().map(|b| b - b'0').collect();
                let check = adapters_se::identifiers::luhn::check_digit(&values);
                let ten = format!("{payload}{check}");
                let old = born.year() <= today().year() - 100;
                let separator = if old { "+" } else { "-" };
                let century = born.year() / 100;
                let wire = match form {
                    0 => ten.clone(),
                    1 => format!("{}{separator}{}", &ten[..6], &ten[6..]),
                    2 => format!("{century}{ten}"),
                    3 => format!("{century}{}-{}", &ten[..6], &ten[6..]),
                    4 if old => format!("{century}{}+{}", &ten[..6], &ten[6..]),
                    _ => format!("{}-{}", &ten[..6], &ten[6..]),
                };
                (ty, wire)
            },
        )
    }

    /// A Lithuanian personal code the parser accepts: a century digit with a real date not
    /// after today, or the exceptional 9 with any date part.
    fn lithuanian() -> impl Strategy<Value = (IdentifierType, String)> {
        schemes();
        let first = NaiveDate::from_ymd_opt(1800, 1, 1).unwrap();
        let span = (today() - first).num_days();
        (
            0..=span,
            0u32..=999,
            any::<bool>(),
            any::<bool>(),
            0u32..1_000_000,
        )
            .prop_map(move |(offset, serial, female, exceptional, date_part)| {
                let born = first + chrono::Duration::days(offset);
                let head = if exceptional {
                    format!("9{date_part:06}{serial:03}")
                } else {
                    let g = (born.year() / 100 - 18) * 2 + 1 + i32::from(female);
                    format!(
                        "{g}{:02}{:02}{:02}{serial:03}",
                        born.year() % 100,
                        born.month(),
                        born.day()
                    )
                };
                let values: Vec<u8> = head.bytes().map(|b| b - b'0').collect();
                let check = adapters_lt::identifiers::asmens_check_digit(&values);
                (ASMENS_KODAS, format!("{head}{check}"))
            })
    }

    /// `wire` with every ASCII digit written in the script whose zero is chosen for it, the
    /// separators now and then spelt otherwise, and invisible characters now and then.
    fn respell(wire: &str, zeros: &[char], picks: &[usize], extras: &[u8]) -> String {
        let mut out = String::new();
        for (i, c) in wire.chars().enumerate() {
            let extra = extras[i % extras.len()];
            match c.to_digit(10) {
                Some(d) => {
                    let zero = zeros[picks[i % picks.len()] % zeros.len()];
                    out.push(char::from_u32(u32::from(zero) + d).unwrap());
                }
                None => out.push(match (c, extra % 4) {
                    ('-', 1) => '\u{2010}',
                    ('-', 2) => '\u{FF0D}',
                    ('+', 1) => '\u{FF0B}',
                    _ => c,
                }),
            }
            match extra {
                200.. => out.push('\u{200B}'),
                190.. => out.push('\u{00AD}'),
                185.. => out.push(' '),
                _ => {}
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Every number the parsers accept, in every spelling they accept and in every digit
        /// script, embedded in a name, is refused.
        #[test]
        fn every_accepted_number_in_every_script_is_refused(
            (ty, wire) in prop_oneof![swedish(), lithuanian()],
            picks in proptest::collection::vec(any::<usize>(), 1..4),
            extras in proptest::collection::vec(any::<u8>(), 1..6),
            before in "[A-Za-z\u{00C5}\u{00C4}\u{00D6}\u{00E5}\u{00E4}\u{00F6} ]{0,12}",
            after in "[ A-Za-z]{0,12}",
        ) {
            prop_assert!(accepted(ty, &wire), "the generator made a number the parser accepts");
            let zeros = scripts();
            prop_assert!(zeros.len() >= 70, "{} scripts", zeros.len());
            let written = respell(&wire, zeros, &picks, &extras);
            let name = format!("{before} {written}{after}");
            prop_assert!(holds_personal_number(&name));
            prop_assert!(holds_personal_number(&written));
        }

        /// Whatever the text: text without a digit holds no number, and what stands beyond a
        /// character that is neither a digit, a separator nor invisible changes nothing.
        #[test]
        fn the_answer_depends_only_on_the_digit_runs(text in "\\PC{0,40}") {
            schemes();
            let answer = holds_personal_number(&text);
            if !text.chars().any(|c| digits::value(c).is_some()) {
                prop_assert!(!answer);
            }
            prop_assert_eq!(holds_personal_number(&format!("Q|{text}|Q")), answer);
            prop_assert_eq!(holds_personal_number(&format!("{text}|1957")), answer);
        }

        /// The places found are exactly what makes a text hold a number: with each one
        /// replaced, no number is left; a text holding one has a place; and every accepted
        /// number, however spelled, is read back as the parser's own spelling.
        #[test]
        fn replacing_the_places_found_leaves_no_number(
            text in "[0-9 +\\-.a\u{FF10}-\u{FF19}\u{200B}]{0,48}",
            (ty, wire) in prop_oneof![swedish(), lithuanian()],
            picks in proptest::collection::vec(any::<usize>(), 1..4),
            extras in proptest::collection::vec(any::<u8>(), 1..6),
        ) {
            for text in [text.clone(), format!("{text} {} x", respell(&wire, scripts(), &picks, &extras))] {
                let spans = personal_number_spans(&text);
                prop_assert_eq!(spans.is_empty(), !holds_personal_number(&text));
                let mut cleaned = text.clone();
                for span in spans.iter().rev() {
                    cleaned.replace_range(span.range.clone(), "X");
                }
                prop_assert!(!holds_personal_number(&cleaned), "{cleaned:?}");
            }
            let spans = personal_number_spans(&respell(&wire, scripts(), &picks, &extras));
            prop_assert_eq!(spans.len(), 1);
            let read = Identifier::parse(ty, &format!("{}:{}", ty.country().prefix(), spans[0].written), today());
            prop_assert!(read.is_ok(), "{:?}", ty);
        }
    }

    #[test]
    fn each_script_spells_a_refused_number() {
        schemes();
        // Every script, one at a time, for one of Skatteverket's test numbers.
        let zeros = scripts();
        assert!(zeros.len() >= 70);
        for (i, _) in zeros.iter().enumerate() {
            let written = respell("811130-9285", zeros, &[i], &[0]);
            assert!(
                holds_personal_number(&format!("Anna {written}")),
                "{written:?}"
            );
        }
    }
}
