//! Turning what the agent typed into safe FTS5 expressions. Every term goes into the
//! expression as a double-quoted string (quotes doubled), so no user text is ever read
//! as FTS syntax: `NEAR(`, `*`, `^`, `:`, `-`, `AND`/`OR`/`NOT` are just characters.

use crate::chunk::{needs_substring_index, substring_tokens};

/// At most this many terms of one query are searched (the rest are ignored).
const MAX_TERMS: usize = 16;

/// Common English words that carry no search meaning. A query made only of these (and
/// operators or punctuation) matches nothing.
const STOPWORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "because", "been", "being", "both", "but", "by", "can", "could", "did", "do", "does", "doing",
    "each", "etc", "for", "from", "had", "has", "have", "having", "he", "her", "here", "hers",
    "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "my",
    "near", "no", "nor", "not", "of", "on", "or", "our", "ours", "she", "should", "so", "some",
    "such", "than", "that", "the", "their", "theirs", "them", "then", "there", "these", "they",
    "this", "those", "to", "too", "very", "was", "we", "were", "what", "when", "where", "which",
    "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours",
];

/// Whether a lowercase word is a stopword.
pub fn is_stopword(word: &str) -> bool {
    STOPWORDS.binary_search(&word).is_ok()
}

/// One meaningful word of the query, with the lowercase strings that locate it in a
/// chunk (the word, and an approximate stem so "caching" also finds "cached").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryTerm {
    pub word: String,
    pub needles: Vec<String>,
}

impl QueryTerm {
    /// The term for a lowercase word.
    pub fn new(word: String) -> QueryTerm {
        QueryTerm {
            needles: needles_for(&word),
            word,
        }
    }
}

/// A parsed query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedQuery {
    /// Words for the porter index (lowercase, no stopwords).
    pub terms: Vec<QueryTerm>,
    /// Identifier-like substrings of ≥ 3 characters for the trigram index (lowercase,
    /// punctuation inside kept: `src/main.rs`, `useEff`, `ts2339`).
    pub substrings: Vec<String>,
    /// Plain words (letters only): the trigram index holds identifiers, not plain words,
    /// so these go to it only when the porter index has nothing for them
    /// ("layouteff" typed in lowercase still finds `useLayoutEffect`).
    pub plain_substrings: Vec<String>,
    /// CJK words of 1–2 characters: too short for trigrams, searched with LIKE.
    pub short_cjk: Vec<String>,
}

impl ParsedQuery {
    pub fn parse(query: &str) -> ParsedQuery {
        let query = super::caps::searched_part(query);
        let mut parsed = ParsedQuery::default();
        for word in query
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(super::caps::searched_term)
        {
            if let Some(lower) = meaningful_word(word) {
                if has_cjk(&lower) && lower.chars().count() < 3 {
                    push_unique(&mut parsed.short_cjk, lower.clone());
                }
                if parsed.terms.len() < MAX_TERMS && !parsed.terms.iter().any(|t| t.word == lower) {
                    parsed.terms.push(QueryTerm::new(lower));
                }
            }
        }
        for token in substring_tokens(query) {
            let token = super::caps::searched_term(token);
            let meaningful = token
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| !w.is_empty() && meaningful_word(w).is_some());
            if meaningful && token.chars().nth(2).is_some() && parsed.substrings.len() < MAX_TERMS {
                let clean: String = token.chars().filter(|c| !c.is_control()).collect();
                if needs_substring_index(&clean) {
                    push_unique(&mut parsed.substrings, clean.to_lowercase());
                } else {
                    push_unique(&mut parsed.plain_substrings, clean.to_lowercase());
                }
            }
        }
        parsed
    }

    /// Nothing left to search for (only stopwords, operators, punctuation).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
            && self.substrings.is_empty()
            && self.plain_substrings.is_empty()
            && self.short_cjk.is_empty()
    }

    /// `"w1"* OR "w2"*` for the porter index: each word as a prefix of its stem, so
    /// "caching" finds "cached" (stem "cach") and "config" finds "configuration".
    /// Words of one or two characters match whole.
    pub fn porter_expression(&self) -> Option<String> {
        let parts: Vec<String> = self
            .terms
            .iter()
            .map(|t| {
                if t.word.chars().nth(2).is_some() {
                    format!("{}*", quote(&t.word))
                } else {
                    quote(&t.word)
                }
            })
            .collect();
        (!parts.is_empty()).then(|| parts.join(" OR "))
    }

    /// `"sub1" OR "sub2"` for the trigram index: the identifier-like substrings and
    /// the plain words in `extra`.
    pub fn trigram_expression(&self, extra: &[&str]) -> Option<String> {
        or_of(
            self.substrings
                .iter()
                .map(String::as_str)
                .chain(extra.iter().copied()),
        )
    }

    /// Every string that locates a match in a chunk: term needles and substrings.
    pub fn needles(&self) -> Vec<String> {
        let mut all: Vec<String> = Vec::new();
        for term in &self.terms {
            for needle in &term.needles {
                push_unique(&mut all, needle.clone());
            }
        }
        for sub in self.substrings.iter().chain(&self.plain_substrings) {
            push_unique(&mut all, ascii_lower(sub));
        }
        all
    }
}

/// The lowercase word, unless it is an operator, a stopword or a single ASCII character.
fn meaningful_word(word: &str) -> Option<String> {
    if matches!(word, "AND" | "OR" | "NOT" | "NEAR") {
        return None;
    }
    let lower = word.to_lowercase();
    let single_ascii = lower.len() == 1 && lower.is_ascii();
    (!single_ascii && !is_stopword(&lower)).then_some(lower)
}

fn push_unique(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

fn or_of<'a>(items: impl Iterator<Item = &'a str>) -> Option<String> {
    let quoted: Vec<String> = items.map(quote).collect();
    (!quoted.is_empty()).then(|| quoted.join(" OR "))
}

pub use crate::store::fts_string as quote;

/// Lowercases ASCII letters only, so byte offsets stay those of the original text.
pub fn ascii_lower(text: &str) -> String {
    text.to_ascii_lowercase()
}

pub use crate::chunk::has_cjk;

/// Suffixes stripped to locate inflected forms in snippets ("caching" → "cach").
const SUFFIXES: &[&str] = &[
    "ational", "ization", "ations", "ation", "ments", "ment", "ness", "ings", "ing", "edly", "ies",
    "ied", "ers", "er", "ed", "es", "ly", "s",
];

fn needles_for(word: &str) -> Vec<String> {
    let lower = ascii_lower(word);
    let mut needles = vec![lower.clone()];
    if let Some(stem) = approximate_stem(&lower) {
        needles.push(stem);
    }
    needles
}

/// A prefix shared by the word's inflections, when stripping a suffix leaves ≥ 3 chars.
pub fn approximate_stem(word: &str) -> Option<String> {
    for suffix in SUFFIXES {
        if let Some(stem) = word.strip_suffix(suffix)
            && stem.chars().count() >= 3
        {
            let stem = stem
                .strip_suffix('e')
                .filter(|s| s.chars().count() >= 3)
                .unwrap_or(stem);
            return Some(stem.to_string());
        }
    }
    let trimmed = word.strip_suffix('e').filter(|s| s.chars().count() >= 3)?;
    Some(trimmed.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopwords_are_sorted_for_binary_search() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOPWORDS);
    }

    #[test]
    fn operators_and_punctuation_leave_nothing() {
        for q in [
            r#"NEAR("a" "b") OR * ^:"#,
            "the and of to",
            "AND OR NOT",
            "*",
            "\"\"",
            "-",
            ":^*()",
            "",
        ] {
            assert!(ParsedQuery::parse(q).is_empty(), "{q:?} should be empty");
        }
    }

    #[test]
    fn identifiers_keep_their_substring_and_words() {
        let q = ParsedQuery::parse("how does useEff work in src/main.rs?");
        let words: Vec<&str> = q.terms.iter().map(|t| t.word.as_str()).collect();
        assert_eq!(words, vec!["useeff", "work", "src", "main", "rs"]);
        assert_eq!(q.substrings, vec!["useeff", "src/main.rs"]);
        assert_eq!(q.plain_substrings, vec!["work"]);
        assert_eq!(
            q.porter_expression().as_deref(),
            Some(r#""useeff"* OR "work"* OR "src"* OR "main"* OR "rs""#)
        );
    }

    #[test]
    fn quotes_are_escaped() {
        let q = ParsedQuery::parse(r#"path\to"file"#);
        assert_eq!(q.plain_substrings, vec!["file"]);
        assert_eq!(
            q.trigram_expression(&["extra"]).as_deref(),
            Some(r#""path\to" OR "extra""#)
        );
        assert_eq!(quote(r#"a"b"#), r#""a""b""#);
    }

    #[test]
    fn stems_find_inflections() {
        assert_eq!(approximate_stem("caching").as_deref(), Some("cach"));
        assert_eq!(approximate_stem("cached").as_deref(), Some("cach"));
        assert_eq!(approximate_stem("cache").as_deref(), Some("cach"));
        assert_eq!(approximate_stem("deployments").as_deref(), Some("deploy"));
    }

    #[test]
    fn short_cjk_is_kept_for_like() {
        let q = ParsedQuery::parse("中文");
        assert_eq!(q.short_cjk, vec!["中文"]);
        assert!(!q.is_empty());
    }
}
