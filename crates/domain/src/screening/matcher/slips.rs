//! Slips of typing the candidate index looks past: a letter doubled (`mohhamed`), two
//! adjacent letters transposed (`mohamemd`), a letter moved across the boundary of two words
//! (`joh nsmith`). Each gives the spellings the word (or the two words) could have had
//! before the slip; the index looks them up as words, and the scorer judges the pair as it
//! judges any other (a slip is one edit; a moved boundary joins the same letters).

/// The shortest word whose slips are undone: in shorter words one letter is another name.
const MIN_LETTERS: usize = 4;
/// The fewest letters two words hold together for their boundary to be moved back.
const MIN_JOINED: usize = 6;
/// The fewest letters of either word split again: a two-letter word (`al`, `el`, `bin`'s
/// neighbours) is in thousands of names and would bring them all to be scored.
const MIN_PART: usize = 3;
/// How far a boundary is moved back: one or two letters either way.
const MAX_SHIFT: usize = 2;

/// The spellings `word` may have had before one slip: each doubled letter written once, and
/// each pair of adjacent letters swapped back.
pub fn undone(word: &str) -> Vec<String> {
    let letters: Vec<char> = word.chars().collect();
    let mut out: Vec<String> = Vec::new();
    if letters.len() < MIN_LETTERS {
        return out;
    }
    let mut add = |s: String| {
        if s != word && !out.contains(&s) {
            out.push(s);
        }
    };
    for i in 1..letters.len() {
        if letters[i] == letters[i - 1] {
            let mut once = letters.clone();
            once.remove(i);
            add(once.into_iter().collect());
        }
        if letters[i] != letters[i - 1] {
            let mut swapped = letters.clone();
            swapped.swap(i - 1, i);
            add(swapped.into_iter().collect());
        }
    }
    out
}

/// The two words `a b` may have been before a letter moved across their boundary: the same
/// letters split one or two letters earlier or later, each part at least [`MIN_PART`] letters.
pub fn resplit(a: &str, b: &str) -> Vec<(String, String)> {
    let joined: Vec<char> = a.chars().chain(b.chars()).collect();
    let at = a.chars().count();
    let mut out = Vec::new();
    if joined.len() < MIN_JOINED {
        return out;
    }
    for shift in 1..=MAX_SHIFT {
        for split in [at.checked_sub(shift), Some(at + shift)]
            .into_iter()
            .flatten()
        {
            if split >= MIN_PART && split + MIN_PART <= joined.len() {
                out.push((
                    joined[..split].iter().collect(),
                    joined[split..].iter().collect(),
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn each_kind_of_slip_is_undone() {
        assert!(undone("mohhamed").contains(&"mohamed".to_owned()));
        assert!(undone("mohamemd").contains(&"mohammed".to_owned()));
        assert!(resplit("joh", "nsmith").contains(&("john".to_owned(), "smith".to_owned())));
        assert!(resplit("johns", "mith").contains(&("john".to_owned(), "smith".to_owned())));
        // Short words are left alone: one letter off is another name.
        assert!(undone("ali").is_empty());
        assert!(resplit("al", "ia").is_empty());
    }

    proptest! {
        /// Whatever slip of the three kinds is made to a word, undoing finds the word again.
        #[test]
        fn a_doubled_or_transposed_letter_is_undone(word in "[a-z]{4,12}", at in 0usize..12) {
            let letters: Vec<char> = word.chars().collect();
            let at = at % letters.len();
            let mut doubled = letters.clone();
            doubled.insert(at, letters[at]);
            let doubled: String = doubled.into_iter().collect();
            prop_assert!(undone(&doubled).contains(&word) || doubled == word);
            if at + 1 < letters.len() && letters[at] != letters[at + 1] {
                let mut swapped = letters.clone();
                swapped.swap(at, at + 1);
                let swapped: String = swapped.into_iter().collect();
                prop_assert!(undone(&swapped).contains(&word));
            }
        }

        #[test]
        fn a_moved_boundary_is_split_back(a in "[a-z]{3,8}", b in "[a-z]{3,8}", shift in 1usize..=2, left in any::<bool>()) {
            let joined = format!("{a}{b}");
            let at = a.len();
            let moved = if left { at - shift.min(at - 2) } else { (at + shift).min(joined.len() - 2) };
            prop_assume!(moved != at);
            let (x, y) = joined.split_at(moved);
            prop_assert!(resplit(x, y).contains(&(a.clone(), b.clone())));
        }
    }
}
