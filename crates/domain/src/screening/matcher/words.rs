//! A name's words prepared once for the scorer's alignment (`score`): what the index keeps of
//! every listed name and a check builds of its query.

use crate::screening::matcher::phonetic::key;

/// A name's words prepared for alignment: each word and each adjacent pair joined, with
/// their phonetic keys and letter counts. Built once per listed name (in the index) and once
/// per query.
#[derive(Clone, Debug, Default)]
pub struct Words {
    /// (text, first word, last word, key).
    pub(super) items: Vec<(String, usize, usize, String)>,
    /// Letters of each word.
    pub(super) lens: Vec<usize>,
    pub(super) letters: usize,
}

impl Words {
    pub fn new(words: &[String]) -> Words {
        let mut items: Vec<(String, usize, usize, String)> = words
            .iter()
            .enumerate()
            .map(|(i, w)| (w.clone(), i, i, key(w)))
            .collect();
        for i in 1..words.len() {
            let joined = format!("{}{}", words[i - 1], words[i]);
            let k = key(&joined);
            items.push((joined, i - 1, i, k));
        }
        let lens: Vec<usize> = words.iter().map(|w| w.chars().count()).collect();
        Words {
            letters: lens.iter().sum(),
            items,
            lens,
        }
    }

    pub fn len(&self) -> usize {
        self.lens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }
}
