//! Writing the regular expressions the interface declares for its inputs (each pattern lives
//! beside the parser it stands for; this is what they share). Imports nothing, so any value
//! may use it.

/// `name` with the characters a regular expression gives a meaning escaped.
pub fn regex_escape(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if ".*+?()[]{}|^$\\".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_character_a_pattern_gives_a_meaning_is_escaped() {
        assert_eq!(regex_escape("subscription.*"), "subscription\\.\\*");
        assert_eq!(regex_escape("kyb:read"), "kyb:read");
        assert_eq!(
            regex_escape("a(b)[c]{d}|e^$\\+?"),
            "a\\(b\\)\\[c\\]\\{d\\}\\|e\\^\\$\\\\\\+\\?"
        );
    }
}
