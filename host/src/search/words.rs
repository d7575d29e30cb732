//! What the indexes know of each plain word of a query (letters only, no inner capital):
//! whether the porter index has a word starting like it, and if not, the whole words
//! of the vocabulary it is part of (ADR 22). "authenticat" is longer than the stem
//! "authent" and "thenticat" starts inside the word, so neither reaches
//! "authentication" through the porter index; the vocabulary gives them the words to
//! search for instead.

use rusqlite::Connection;

use super::query::{ParsedQuery, quote};
use crate::store::words_containing;

/// Whole words searched for one partial word, at most (the words it starts first,
/// then the shortest).
const EXPANSIONS_PER_WORD: usize = 16;

/// One plain word of the query and what the indexes have for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlainWord {
    pub word: String,
    /// The porter index has a word starting like this one.
    pub in_porter: bool,
    /// When it has not: the vocabulary's words containing this one.
    pub expansions: Vec<String>,
}

impl PlainWord {
    /// Nothing indexed holds this word, whole or in part: a typo, maybe.
    pub fn unknown(&self) -> bool {
        !self.in_porter && self.expansions.is_empty()
    }
}

/// Looks up every plain word of `query`.
pub fn look_up(conn: &Connection, query: &ParsedQuery) -> rusqlite::Result<Vec<PlainWord>> {
    query
        .plain_substrings
        .iter()
        .map(|word| {
            let in_porter = porter_has(conn, word)?;
            let expansions = if in_porter {
                Vec::new()
            } else {
                words_containing(conn, word, EXPANSIONS_PER_WORD)?
            };
            Ok(PlainWord {
                word: word.clone(),
                in_porter,
                expansions,
            })
        })
        .collect()
}

/// `"w1" OR "w2"` of every expansion, for the porter index (each word stemmed there, so
/// "authentication" also finds "authenticated").
pub fn expansion_expression(words: &[PlainWord]) -> Option<String> {
    let quoted: Vec<String> = words
        .iter()
        .flat_map(|w| &w.expansions)
        .map(|w| quote(w))
        .collect();
    (!quoted.is_empty()).then(|| quoted.join(" OR "))
}

/// Whether any chunk has a word starting like `word` (by the porter index).
fn porter_has(conn: &Connection, word: &str) -> rusqlite::Result<bool> {
    let expression = format!("{}*", quote(word));
    conn.prepare_cached("SELECT EXISTS(SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ?1)")?
        .query_row([expression], |r| r.get(0))
}
