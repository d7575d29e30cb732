//! The vocabulary: every distinct word of the stored chunks once (lowercase, letters
//! only), in the substrings file with a trigram index of its own (ADR 22).
//!
//! The porter index holds stems ("authentication" → "authent"), so neither a partial
//! word longer than the stem ("authenticat") nor one from inside a word ("thenticat")
//! can be found through it, and the chunk trigram index holds identifiers, not plain
//! words (trigrams of every word would cost several times the porter index, ADR 10).
//! A few tens of thousands of distinct words are cheap to index by trigram, so search
//! looks a partial word up here and searches the porter index for the whole words it
//! is part of; typo correction takes its candidates from here too (words sharing the
//! typo's trigrams), whatever their first letter.
//!
//! Words are only added: a word whose last chunk was deleted stays until the file is
//! rebuilt or emptied, and the porter search for it then finds nothing.

use std::collections::HashSet;

use rusqlite::{Connection, params};

use crate::chunk::{Chunk, has_cjk};
use crate::limits::{
    TYPO_FIRST_LETTER_MAX_CHARS, VOCABULARY_WORD_MAX_CHARS, VOCABULARY_WORD_MIN_CHARS,
};

/// Words of a short typo's first letter compared with it, at most: every one of them in
/// a vocabulary of tens of thousands (a bounded edit distance of a short word is cheap).
const FIRST_LETTER_SCAN_ROWS: i64 = 2_000;

/// Vocabulary rows read per partial word before the best are picked.
const CONTAINING_SCAN_ROWS: i64 = 400;

/// Adds the distinct words of `text` to `seen`, lowercase. A word is a run of letters,
/// as the porter tokenizer splits text (so `snake_case` gives `snake` and `case`, and
/// `useLayoutEffect` gives `uselayouteffect`); runs holding CJK are left to the chunk
/// trigram index, which has them whole.
pub fn collect_words(text: &str, seen: &mut HashSet<String>) {
    let mut lower = String::new();
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        let chars = run.chars().count();
        if !(VOCABULARY_WORD_MIN_CHARS..=VOCABULARY_WORD_MAX_CHARS).contains(&chars)
            || !run.chars().all(char::is_alphabetic)
            || has_cjk(run)
        {
            continue;
        }
        lower.clear();
        lower.extend(run.chars().flat_map(char::to_lowercase));
        if !seen.contains(lower.as_str()) {
            seen.insert(lower.clone());
        }
    }
}

/// Adds the words of `chunks` that are not in the vocabulary yet (inside the caller's
/// transaction on the substrings file).
pub(super) fn add_chunk_words(conn: &Connection, chunks: &[Chunk]) -> rusqlite::Result<()> {
    let mut seen = HashSet::new();
    for chunk in chunks {
        collect_words(&chunk.title, &mut seen);
        collect_words(&chunk.content, &mut seen);
    }
    add_words(conn, seen)
}

/// Adds `words` (lowercase, distinct) that are not in the vocabulary yet.
pub(super) fn add_words(
    conn: &Connection,
    words: impl IntoIterator<Item = String>,
) -> rusqlite::Result<()> {
    let mut insert =
        conn.prepare_cached("INSERT INTO vocabulary(word) VALUES (?1) ON CONFLICT DO NOTHING")?;
    let mut index =
        conn.prepare_cached("INSERT INTO vocabulary_trigram(rowid, word) VALUES (?1, ?2)")?;
    for word in words {
        if insert.execute([&word])? == 1 {
            index.execute(params![conn.last_insert_rowid(), word])?;
        }
    }
    Ok(())
}

/// Empties the vocabulary.
pub(super) fn clear(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "DELETE FROM vocabulary;
         INSERT INTO vocabulary_trigram(vocabulary_trigram) VALUES ('delete-all');",
    )
}

/// Whether `word` (lowercase) is in the vocabulary.
pub fn has_word(conn: &Connection, word: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT EXISTS(SELECT 1 FROM vocabulary WHERE word = ?1)")?
        .query_row([word], |r| r.get(0))
}

/// Up to `limit` words that contain `partial` (lowercase, at least three characters):
/// the words it starts first, then the shortest.
pub fn words_containing(
    conn: &Connection,
    partial: &str,
    limit: usize,
) -> rusqlite::Result<Vec<String>> {
    if partial.chars().nth(2).is_none() {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare_cached(
        "SELECT v.word FROM vocabulary_trigram t JOIN vocabulary v ON v.id = t.rowid
         WHERE vocabulary_trigram MATCH ?1 LIMIT ?2",
    )?;
    let mut words: Vec<String> = stmt
        .query_map(
            params![super::fts_string(partial), CONTAINING_SCAN_ROWS],
            |r| r.get(0),
        )?
        .collect::<rusqlite::Result<_>>()?;
    words.retain(|w| w != partial);
    words.sort_by(|a, b| {
        (!a.starts_with(partial), a.len(), a.as_str()).cmp(&(
            !b.starts_with(partial),
            b.len(),
            b.as_str(),
        ))
    });
    words.truncate(limit);
    Ok(words)
}

/// Words that might be what `word` (lowercase) was meant to be: the `limit` sharing
/// most of its trigrams, and for a short word (too few trigrams to share after a typo)
/// those with its first letter; each `lengths` long (in characters).
pub fn typo_candidates(
    conn: &Connection,
    word: &str,
    lengths: std::ops::RangeInclusive<usize>,
    limit: usize,
) -> rusqlite::Result<Vec<String>> {
    let chars: Vec<char> = word.chars().collect();
    let trigrams: Vec<String> = chars
        .windows(3)
        .map(|w| super::fts_string(&w.iter().collect::<String>()))
        .collect();
    let (low, high) = (*lengths.start() as i64, *lengths.end() as i64);
    let mut candidates: Vec<String> = Vec::new();
    if !trigrams.is_empty() {
        let mut stmt = conn.prepare_cached(
            "SELECT v.word FROM vocabulary_trigram t JOIN vocabulary v ON v.id = t.rowid
             WHERE vocabulary_trigram MATCH ?1 AND length(v.word) BETWEEN ?2 AND ?3
             ORDER BY t.rank LIMIT ?4",
        )?;
        let rows = stmt.query_map(
            params![trigrams.join(" OR "), low, high, limit as i64],
            |r| r.get(0),
        )?;
        for row in rows {
            candidates.push(row?);
        }
    }
    if chars.len() <= TYPO_FIRST_LETTER_MAX_CHARS
        && let Some(first) = chars.first()
    {
        let after = char::from_u32(*first as u32 + 1).unwrap_or(char::MAX);
        let mut stmt = conn.prepare_cached(
            "SELECT word FROM vocabulary WHERE word >= ?1 AND word < ?2
             AND length(word) BETWEEN ?3 AND ?4 LIMIT ?5",
        )?;
        let rows = stmt.query_map(
            params![
                first.to_string(),
                after.to_string(),
                low,
                high,
                FIRST_LETTER_SCAN_ROWS
            ],
            |r| r.get::<_, String>(0),
        )?;
        for row in rows {
            let candidate = row?;
            if !candidates.contains(&candidate) {
                candidates.push(candidate);
            }
        }
    }
    Ok(candidates)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_letter_runs_lowercased_once() {
        let mut seen = HashSet::new();
        collect_words(
            "Authentication via useLayoutEffect, snake_case ts2339 a ab 日本語 Straße authentication",
            &mut seen,
        );
        let mut words: Vec<&str> = seen.iter().map(String::as_str).collect();
        words.sort_unstable();
        assert_eq!(
            words,
            vec![
                "authentication",
                "case",
                "snake",
                "straße",
                "uselayouteffect",
                "via"
            ]
        );
    }
}
