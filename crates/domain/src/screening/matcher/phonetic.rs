//! A phonetic key per folded word: the candidate index's second way in, so that spellings
//! the lists and their copies use for one name (Mohammed, Muhammad, Mohamed, `mhmd` from
//! Arabic script; Abdurakhmanov, Abdurahmanov; doubled or swapped vowels) meet.
//!
//! The key is the word's consonant skeleton: the first letter (a vowel as `a`), then the
//! consonants in order with vowels, `h`, `w` and `y` left out, sounds that transliterations
//! spell differently merged (`c`/`q`/`ch` → `k`, `gh` → `g`, `kh` silent inside a word like
//! `h`, `ph`/`v`/`w` → `f`, `z` → `s`, `dh`/`th` → `t`, `j`/`dj`/`dzh` → `j`), and repeats collapsed, also
//! across a vowel. A word of
//! digits is its own key; `?` is dropped (it stands for an unknown letter).

/// The phonetic key of one folded word (see [`crate::screening::matcher::normalise::fold`]).
pub fn key(word: &str) -> String {
    if word.chars().all(|c| c.is_ascii_digit()) {
        return word.to_owned();
    }
    let letters: Vec<char> = word.chars().filter(|c| *c != '?').collect();
    let mut out = String::with_capacity(letters.len());
    let mut last: Option<char> = None;
    let mut i = 0;
    while i < letters.len() {
        let c = letters[i];
        let next = letters.get(i + 1).copied();
        let (sound, skip) = match (c, next) {
            // `kh` (Cyrillic х, Arabic خ) is spelled `h` as often: silent like `h` inside a word.
            ('k', Some('h')) => (if i == 0 { Some('k') } else { None }, 1),
            ('c', Some('h')) => (Some('k'), 1),
            ('g', Some('h')) => (Some('g'), 1),
            ('p', Some('h')) => (Some('f'), 1),
            ('t' | 'd', Some('h')) => (Some('t'), 1),
            ('s' | 'z', Some('h')) => (Some('s'), 1),
            ('d', Some('j')) => (Some('j'), 1),
            ('d', Some('z')) if letters.get(i + 2) == Some(&'h') => (Some('j'), 2),
            ('t', Some('s')) => (Some('s'), 1),
            ('c', Some('k')) => (Some('k'), 1),
            ('a' | 'e' | 'i' | 'o' | 'u' | 'y', _) => (if i == 0 { Some('a') } else { None }, 0),
            ('h' | 'w', _) if i > 0 => (None, 0),
            ('c' | 'q', _) => (Some('k'), 0),
            ('v' | 'w', _) => (Some('f'), 0),
            ('z', _) => (Some('s'), 0),
            ('d', _) => (Some('t'), 0),
            ('b', _) => (Some('p'), 0),
            (other, _) => (Some(other), 0),
        };
        // Repeats collapse across vowels too: Arabic script writes no short vowels, so
        // `mhmd` must meet `mohammed`.
        if let Some(s) = sound {
            if last != Some(s) {
                out.push(s);
            }
            last = Some(s);
        }
        i += 1 + skip;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::key;

    #[test]
    fn spellings_of_one_name_share_a_key() {
        for group in [
            &["mohammed", "muhammad", "mohamed", "mhmd", "mohammad"][..],
            &["abdurakhmanov", "abdurahmanov", "abdourakhmanov"],
            &["ghazi", "gazi", "ghazy"],
            &["youssef", "yusuf", "yousef"],
            &["dzhokhar", "djokhar"],
        ] {
            let k = key(group[0]);
            for w in group {
                assert_eq!(key(w), k, "{w} vs {}", group[0]);
            }
        }
    }

    #[test]
    fn different_names_keep_different_keys() {
        assert_ne!(key("salek"), key("salim"));
        assert_ne!(key("barr"), key("bakr"));
        assert_eq!(key("1989"), "1989");
        assert_eq!(key("ko?"), key("ko"));
        assert_eq!(key(""), "");
    }
}
