//! Typo correction against the vocabulary of whole words (`store::vocabulary`, ADR 22).
//! Candidates are the words sharing most of the typo's trigrams, plus, for a short
//! word, the words with its first letter; the closest by edit distance wins, the one in
//! more chunks on ties. Whole words are compared, not porter stems: "autentication"
//! (stem "autent") is one edit from the stem of "attention" but three letters from
//! "attention" itself, and one from "authentication".

use rusqlite::{Connection, OptionalExtension};

use crate::store::{has_word, typo_candidates};

/// Words shorter than this are not corrected (too many neighbours).
const MIN_CORRECTED_CHARS: usize = 3;

/// Candidates read from the vocabulary per word: enough that the right word is among
/// them when the vocabulary has tens of thousands (the 5 MB bench has 20,000).
const TYPO_CANDIDATES: usize = 300;

/// Candidates at the best distance whose chunk counts are compared, at most.
const TIED_CANDIDATES: usize = 8;

/// Largest edit distance accepted for a word of `chars` characters.
pub fn max_distance(chars: usize) -> usize {
    match chars {
        0..=4 => 1,
        5..=12 => 2,
        _ => 3,
    }
}

/// Edit distance of two strings by characters, counting an adjacent transposition as
/// one edit ("cahce" → "cache"), or `None` once it exceeds `limit`.
pub fn bounded_distance(a: &str, b: &str, limit: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let width = b.len() + 1;
    // Three rows: two back (for transpositions), previous, current.
    let mut before: Vec<usize> = vec![0; width];
    let mut previous: Vec<usize> = (0..width).collect();
    let mut current = vec![0; width];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        let mut row_min = current[0];
        for (j, cb) in b.iter().enumerate() {
            let mut cell = (previous[j] + usize::from(ca != cb))
                .min(previous[j + 1] + 1)
                .min(current[j] + 1);
            if i > 0 && j > 0 && *ca == b[j - 1] && a[i - 1] == *cb {
                cell = cell.min(before[j - 1] + 1);
            }
            current[j + 1] = cell;
            row_min = row_min.min(cell);
        }
        if row_min > limit {
            return None;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    let distance = previous[b.len()];
    (distance <= limit).then_some(distance)
}

/// The porter stem SQLite's tokenizer gives `word` (the word itself if it yields none).
pub fn porter_stem(conn: &Connection, word: &str) -> rusqlite::Result<String> {
    conn.execute_batch(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.cm_stemmer
             USING fts5(w, tokenize='porter unicode61 remove_diacritics 2');
         CREATE VIRTUAL TABLE IF NOT EXISTS temp.cm_stemmer_vocab
             USING fts5vocab('temp', 'cm_stemmer', 'row');
         DELETE FROM temp.cm_stemmer;",
    )?;
    conn.execute("INSERT INTO temp.cm_stemmer(w) VALUES (?1)", [word])?;
    let stem: Option<String> = conn
        .query_row("SELECT term FROM temp.cm_stemmer_vocab LIMIT 1", [], |r| {
            r.get(0)
        })
        .optional()?;
    conn.execute("DELETE FROM temp.cm_stemmer", [])?;
    Ok(stem.unwrap_or_else(|| word.to_lowercase()))
}

/// Chunks holding `word` (by its porter stem): zero for a word whose chunks are gone.
fn chunks_with(conn: &Connection, word: &str) -> rusqlite::Result<i64> {
    let stem = porter_stem(conn, word)?;
    conn.prepare_cached("SELECT doc FROM chunks_vocab WHERE term = ?1")?
        .query_row([stem], |r| r.get(0))
        .optional()
        .map(Option::unwrap_or_default)
}

/// A replacement for `word` (lowercase) from the vocabulary: the closest word within
/// the distance the word's length allows, the one in more chunks on ties. `None` when
/// the word is itself a known word or nothing is close enough.
pub fn correct_word(conn: &Connection, word: &str) -> rusqlite::Result<Option<String>> {
    let chars = word.chars().count();
    if chars < MIN_CORRECTED_CHARS || !word.chars().all(char::is_alphabetic) {
        return Ok(None);
    }
    if has_word(conn, word)? {
        return Ok(None);
    }
    let limit = max_distance(chars);
    let lengths = chars.saturating_sub(limit).max(2)..=chars + limit;
    let mut scored: Vec<(usize, String)> = typo_candidates(conn, word, lengths, TYPO_CANDIDATES)?
        .into_iter()
        .filter_map(|candidate| Some((bounded_distance(word, &candidate, limit)?, candidate)))
        .collect();
    scored.sort();
    let Some(best) = scored.first().map(|(d, _)| *d) else {
        return Ok(None);
    };
    let mut choice: Option<(i64, String)> = None;
    for (_, candidate) in scored
        .into_iter()
        .take_while(|(d, _)| *d == best)
        .take(TIED_CANDIDATES)
    {
        let chunks = chunks_with(conn, &candidate)?;
        if chunks > 0 && choice.as_ref().is_none_or(|(n, _)| chunks > *n) {
            choice = Some((chunks, candidate));
        }
    }
    Ok(choice.map(|(_, word)| word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(bounded_distance("kitten", "sitting", 3), Some(3));
        assert_eq!(bounded_distance("kitten", "sitting", 2), None);
        assert_eq!(bounded_distance("日本語", "日本", 1), Some(1));
        assert_eq!(bounded_distance("", "abc", 3), Some(3));
        assert_eq!(bounded_distance("cahce", "cache", 1), Some(1));
        assert_eq!(bounded_distance("supabsae", "supabase", 2), Some(1));
        assert_eq!(
            bounded_distance("autentication", "authentication", 3),
            Some(1)
        );
    }

    #[test]
    fn limits_follow_word_length() {
        assert_eq!(
            (
                max_distance(4),
                max_distance(5),
                max_distance(12),
                max_distance(13)
            ),
            (1, 2, 2, 3)
        );
    }

    #[test]
    fn stems_come_from_sqlite_porter() {
        let conn = Connection::open_in_memory().expect("db");
        assert_eq!(porter_stem(&conn, "Kubernetes").expect("stem"), "kubernet");
        assert_eq!(
            porter_stem(&conn, "authentication").expect("stem"),
            "authent"
        );
        assert_eq!(porter_stem(&conn, "caching").expect("stem"), "cach");
    }
}
