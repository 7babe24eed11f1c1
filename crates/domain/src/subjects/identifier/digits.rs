//! Digits as people write them, in any script: what the personal-number shape rule reads
//! (`shape`), so a number written in fullwidth, Arabic-Indic, Devanagari or any other digits
//! (or as superscripts, circled digits, ...) is recognised like its ASCII spelling.
//!
//! The table is Unicode's own (UnicodeData.txt, Unicode 18.0): every character whose numeric
//! type is *Decimal* (general category Nd, the digits of a script) or *Digit* (compatibility
//! digits such as `²` or `①`), as runs of consecutive code points with consecutive values.
//! Nothing here ever formats a number: it reads values one character at a time.

/// `(first code point, its value, run length)`, in code-point order.
const DIGITS: [(u32, u8, u8); 98] = [
    (0x0030, 0, 10),  // DIGIT ZERO
    (0x00B2, 2, 2),   // SUPERSCRIPT TWO
    (0x00B9, 1, 1),   // SUPERSCRIPT ONE
    (0x0660, 0, 10),  // ARABIC-INDIC DIGIT ZERO
    (0x06F0, 0, 10),  // EXTENDED ARABIC-INDIC DIGIT ZERO
    (0x07C0, 0, 10),  // NKO DIGIT ZERO
    (0x0966, 0, 10),  // DEVANAGARI DIGIT ZERO
    (0x09E6, 0, 10),  // BENGALI DIGIT ZERO
    (0x0A66, 0, 10),  // GURMUKHI DIGIT ZERO
    (0x0AE6, 0, 10),  // GUJARATI DIGIT ZERO
    (0x0B66, 0, 10),  // ORIYA DIGIT ZERO
    (0x0BE6, 0, 10),  // TAMIL DIGIT ZERO
    (0x0C66, 0, 10),  // TELUGU DIGIT ZERO
    (0x0CE6, 0, 10),  // KANNADA DIGIT ZERO
    (0x0D66, 0, 10),  // MALAYALAM DIGIT ZERO
    (0x0DE6, 0, 10),  // SINHALA LITH DIGIT ZERO
    (0x0E50, 0, 10),  // THAI DIGIT ZERO
    (0x0ED0, 0, 10),  // LAO DIGIT ZERO
    (0x0F20, 0, 10),  // TIBETAN DIGIT ZERO
    (0x1040, 0, 10),  // MYANMAR DIGIT ZERO
    (0x1090, 0, 10),  // MYANMAR SHAN DIGIT ZERO
    (0x1369, 1, 9),   // ETHIOPIC DIGIT ONE
    (0x17E0, 0, 10),  // KHMER DIGIT ZERO
    (0x1810, 0, 10),  // MONGOLIAN DIGIT ZERO
    (0x1946, 0, 10),  // LIMBU DIGIT ZERO
    (0x19D0, 0, 10),  // NEW TAI LUE DIGIT ZERO
    (0x19DA, 1, 1),   // NEW TAI LUE THAM DIGIT ONE
    (0x1A80, 0, 10),  // TAI THAM HORA DIGIT ZERO
    (0x1A90, 0, 10),  // TAI THAM THAM DIGIT ZERO
    (0x1B50, 0, 10),  // BALINESE DIGIT ZERO
    (0x1BB0, 0, 10),  // SUNDANESE DIGIT ZERO
    (0x1C40, 0, 10),  // LEPCHA DIGIT ZERO
    (0x1C50, 0, 10),  // OL CHIKI DIGIT ZERO
    (0x2070, 0, 1),   // SUPERSCRIPT ZERO
    (0x2074, 4, 6),   // SUPERSCRIPT FOUR
    (0x2080, 0, 10),  // SUBSCRIPT ZERO
    (0x2460, 1, 9),   // CIRCLED DIGIT ONE
    (0x2474, 1, 9),   // PARENTHESIZED DIGIT ONE
    (0x2488, 1, 9),   // DIGIT ONE FULL STOP
    (0x24EA, 0, 1),   // CIRCLED DIGIT ZERO
    (0x24F5, 1, 9),   // DOUBLE CIRCLED DIGIT ONE
    (0x24FF, 0, 1),   // NEGATIVE CIRCLED DIGIT ZERO
    (0x2776, 1, 9),   // DINGBAT NEGATIVE CIRCLED DIGIT ONE
    (0x2780, 1, 9),   // DINGBAT CIRCLED SANS-SERIF DIGIT ONE
    (0x278A, 1, 9),   // DINGBAT NEGATIVE CIRCLED SANS-SERIF DIGIT ONE
    (0xA620, 0, 10),  // VAI DIGIT ZERO
    (0xA8D0, 0, 10),  // SAURASHTRA DIGIT ZERO
    (0xA900, 0, 10),  // KAYAH LI DIGIT ZERO
    (0xA9D0, 0, 10),  // JAVANESE DIGIT ZERO
    (0xA9F0, 0, 10),  // MYANMAR TAI LAING DIGIT ZERO
    (0xAA50, 0, 10),  // CHAM DIGIT ZERO
    (0xABF0, 0, 10),  // MEETEI MAYEK DIGIT ZERO
    (0xFF10, 0, 10),  // FULLWIDTH DIGIT ZERO
    (0x104A0, 0, 10), // OSMANYA DIGIT ZERO
    (0x10A40, 1, 4),  // KHAROSHTHI DIGIT ONE
    (0x10D30, 0, 10), // HANIFI ROHINGYA DIGIT ZERO
    (0x10D40, 0, 10), // GARAY DIGIT ZERO
    (0x10E60, 1, 9),  // RUMI DIGIT ONE
    (0x11052, 1, 9),  // BRAHMI NUMBER ONE
    (0x11066, 0, 10), // BRAHMI DIGIT ZERO
    (0x110F0, 0, 10), // SORA SOMPENG DIGIT ZERO
    (0x11136, 0, 10), // CHAKMA DIGIT ZERO
    (0x111D0, 0, 10), // SHARADA DIGIT ZERO
    (0x112F0, 0, 10), // KHUDAWADI DIGIT ZERO
    (0x11450, 0, 10), // NEWA DIGIT ZERO
    (0x114D0, 0, 10), // TIRHUTA DIGIT ZERO
    (0x11650, 0, 10), // MODI DIGIT ZERO
    (0x116C0, 0, 10), // TAKRI DIGIT ZERO
    (0x116D0, 0, 10), // MYANMAR PAO DIGIT ZERO
    (0x116DA, 0, 10), // MYANMAR EASTERN PWO KAREN DIGIT ZERO
    (0x11730, 0, 10), // AHOM DIGIT ZERO
    (0x118E0, 0, 10), // WARANG CITI DIGIT ZERO
    (0x11950, 0, 10), // DIVES AKURU DIGIT ZERO
    (0x11BF0, 0, 10), // SUNUWAR DIGIT ZERO
    (0x11C50, 0, 10), // BHAIKSUKI DIGIT ZERO
    (0x11D50, 0, 10), // MASARAM GONDI DIGIT ZERO
    (0x11DA0, 0, 10), // GUNJALA GONDI DIGIT ZERO
    (0x11DE0, 0, 10), // TOLONG SIKI DIGIT ZERO
    (0x11F50, 0, 10), // KAWI DIGIT ZERO
    (0x16130, 0, 10), // GURUNG KHEMA DIGIT ZERO
    (0x16A60, 0, 10), // MRO DIGIT ZERO
    (0x16AC0, 0, 10), // TANGSA DIGIT ZERO
    (0x16B50, 0, 10), // PAHAWH HMONG DIGIT ZERO
    (0x16D70, 0, 10), // KIRAT RAI DIGIT ZERO
    (0x1CCF0, 0, 10), // OUTLINED DIGIT ZERO
    (0x1D7CE, 0, 10), // MATHEMATICAL BOLD DIGIT ZERO
    (0x1D7D8, 0, 10), // MATHEMATICAL DOUBLE-STRUCK DIGIT ZERO
    (0x1D7E2, 0, 10), // MATHEMATICAL SANS-SERIF DIGIT ZERO
    (0x1D7EC, 0, 10), // MATHEMATICAL SANS-SERIF BOLD DIGIT ZERO
    (0x1D7F6, 0, 10), // MATHEMATICAL MONOSPACE DIGIT ZERO
    (0x1E140, 0, 10), // NYIAKENG PUACHUE HMONG DIGIT ZERO
    (0x1E2F0, 0, 10), // WANCHO DIGIT ZERO
    (0x1E4F0, 0, 10), // NAG MUNDARI DIGIT ZERO
    (0x1E5F1, 0, 10), // OL ONAL DIGIT ZERO
    (0x1E950, 0, 10), // ADLAM DIGIT ZERO
    (0x1F100, 0, 1),  // DIGIT ZERO FULL STOP
    (0x1F101, 0, 10), // DIGIT ZERO COMMA
    (0x1FBF0, 0, 10), // SEGMENTED DIGIT ZERO
];

/// The digit value of `c` in any script, if it is a digit.
pub fn value(c: char) -> Option<u8> {
    let cp = u32::from(c);
    if c.is_ascii() {
        return c.is_ascii_digit().then(|| (cp - u32::from('0')) as u8);
    }
    let at = DIGITS.partition_point(|(start, _, _)| *start <= cp);
    let (start, first, len) = DIGITS[at.checked_sub(1)?];
    let offset = cp - start;
    // `offset < len <= 10`, so the value stays a digit.
    (offset < u32::from(len)).then(|| first + offset as u8)
}

/// Characters that change nothing about the digits around them when displayed: format
/// controls (zero-width space and joiners, direction marks, the soft hyphen, the byte order
/// mark), variation selectors, tags, and combining marks (an accent or a keycap drawn on a
/// digit). Unicode's Default_Ignorable_Code_Point ranges and the combining-mark blocks.
pub fn ignorable(c: char) -> bool {
    matches!(
        u32::from(c),
        0x00AD
            | 0x034F
            | 0x061C
            | 0x115F..=0x1160
            | 0x17B4..=0x17B5
            | 0x180B..=0x180F
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x206F
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0xFFF0..=0xFFF8
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0000..=0xE0FFF
            // Combining marks: diacritics, their extensions and supplement, marks for
            // symbols (the keycap), half marks.
            | 0x0300..=0x036F
            | 0x1AB0..=0x1AFF
            | 0x1DC0..=0x1DFF
            | 0x20D0..=0x20FF
            | 0xFE20..=0xFE2F
    )
}

/// Characters people put between the groups of a number: spaces of every width, hyphens and
/// dashes, plus and minus signs, full stops and slashes (and their fullwidth and small forms).
pub fn separator(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '-' | '+'
                | '.'
                | '/'
                | '\u{2010}'..='\u{2015}'
                | '\u{2212}'
                | '\u{2044}'
                | '\u{207A}'..='\u{207B}'
                | '\u{208A}'..='\u{208B}'
                | '\u{FE52}'
                | '\u{FE58}'
                | '\u{FE62}'..='\u{FE63}'
                | '\u{FF0B}'
                | '\u{FF0D}'..='\u{FF0F}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_ordered_and_its_runs_are_disjoint_digit_runs() {
        for pair in DIGITS.windows(2) {
            let (start, _, len) = pair[0];
            assert!(start + u32::from(len) <= pair[1].0, "{:#X}", pair[1].0);
        }
        for (start, first, len) in DIGITS {
            assert!(
                len >= 1 && u32::from(first) + u32::from(len) <= 10,
                "{start:#X}"
            );
            for offset in 0..u32::from(len) {
                let c = char::from_u32(start + offset).unwrap();
                assert!(c.is_numeric(), "{c:?} is a numeric character");
            }
        }
    }

    #[test]
    fn every_decimal_digit_of_every_script_has_its_value() {
        use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
        // An independent source: the general category of every code point. Decimal digits
        // (Nd) come in runs of ten from a zero, so the value is the offset in the run.
        let mut run_start = None;
        let mut checked = 0;
        for cp in 0..=0x10FFFFu32 {
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            if c.general_category() == GeneralCategory::DecimalNumber {
                let start = *run_start.get_or_insert(cp);
                let expected = ((cp - start) % 10) as u8;
                assert_eq!(value(c), Some(expected), "{cp:#X}");
                checked += 1;
            } else {
                run_start = None;
                assert!(
                    value(c).is_none() || c.general_category() == GeneralCategory::OtherNumber,
                    "{cp:#X} has a value but is no digit"
                );
            }
        }
        assert!(checked >= 650, "{checked} decimal digits checked");
    }

    #[test]
    fn spellings_of_one_digit() {
        for (c, v) in [
            ('7', 7),
            ('\u{FF17}', 7),  // fullwidth
            ('\u{0667}', 7),  // Arabic-Indic
            ('\u{06F7}', 7),  // extended Arabic-Indic (Persian)
            ('\u{096D}', 7),  // Devanagari
            ('\u{0E57}', 7),  // Thai
            ('\u{1D7D5}', 7), // mathematical bold
            ('\u{2077}', 7),  // superscript
            ('\u{2466}', 7),  // circled
            ('\u{1F108}', 7), // digit seven comma
        ] {
            assert_eq!(value(c), Some(v), "{c:?}");
        }
        for c in ['a', 'x', ' ', '-', '\u{2155}', '\u{216B}', '\u{3007}'] {
            assert_eq!(value(c), None, "{c:?}");
        }
    }
}
