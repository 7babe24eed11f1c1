//! The Luhn (modulus 10, weights 2 and 1) check digit of Swedish personal and organisation
//! numbers. Digits are passed as values `0..=9`, not as ASCII.

/// The Luhn sum of `digits`, doubling every second digit counted from the right-most one
/// that is *not* doubled. With `payload_only`, the right-most digit is treated as the first
/// doubled one (the check digit is missing).
fn sum(digits: &[u8], payload_only: bool) -> u32 {
    digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            let doubled = (i % 2 == 1) != payload_only;
            let d = u32::from(d);
            if doubled {
                let twice = 2 * d;
                if twice > 9 {
                    twice - 9
                } else {
                    twice
                }
            } else {
                d
            }
        })
        .sum()
}

/// The check digit to append to `payload` (tests generate valid numbers with it).
pub fn check_digit(payload: &[u8]) -> u8 {
    // The sum is at most 9 per digit, so it fits in u8 arithmetic after `% 10`.
    ((10 - sum(payload, true) % 10) % 10) as u8
}

/// Whether the last digit of `digits` is the Luhn check digit of the others.
pub fn is_valid(digits: &[u8]) -> bool {
    !digits.is_empty() && sum(digits, false).is_multiple_of(10)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(s: &str) -> Vec<u8> {
        s.bytes().map(|b| b - b'0').collect()
    }

    #[test]
    fn known_numbers_check() {
        // Skatteverket's worked example and a Bolagsverket test company.
        assert!(is_valid(&values("8112199289")));
        assert!(is_valid(&values("5560021361")));
        assert!(!is_valid(&values("5560021362")));
        assert_eq!(check_digit(&values("811218987")), 6);
        assert_eq!(check_digit(&values("556002136")), 1);
    }

    #[test]
    fn check_digit_makes_the_number_valid() {
        for n in 0..100_000u32 {
            let payload = values(&format!("{n:09}"));
            let mut full = payload.clone();
            full.push(check_digit(&payload));
            assert!(is_valid(&full), "{n}");
        }
    }

    #[test]
    fn empty_is_not_valid() {
        assert!(!is_valid(&[]));
    }
}
