//! Typo correction against the indexed vocabulary. The vocabulary (`chunks_vocab`,
//! fts5vocab over the porter index) holds stems, so the query word is stemmed by the
//! same tokenizer first (through a scratch FTS5 table in the connection's temp schema)
//! and compared stem to stem: "kuberntes" → "kubernt" is one edit from "kubernet".

use rusqlite::{Connection, OptionalExtension};

/// Words shorter than this are not corrected (too many neighbours).
const MIN_CORRECTED_CHARS: usize = 3;

/// Largest edit distance accepted for a word of `chars` characters.
pub fn max_distance(chars: usize) -> usize {
    match chars {
        0..=4 => 1,
        5..=12 => 2,
        _ => 3,
    }
}

/// Levenshtein distance of two strings (by characters), or `None` once it exceeds `limit`.
pub fn bounded_levenshtein(a: &str, b: &str, limit: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        let mut row_min = current[0];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
            row_min = row_min.min(current[j + 1]);
        }
        if row_min > limit {
            return None;
        }
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

/// A replacement for `word` from the vocabulary: the closest stem within the distance
/// the word's length allows, the more frequent one on ties. `None` when the word is
/// already in the vocabulary or nothing is close enough.
pub fn correct_word(conn: &Connection, word: &str) -> rusqlite::Result<Option<String>> {
    let chars = word.chars().count();
    if chars < MIN_CORRECTED_CHARS || !word.chars().all(char::is_alphabetic) {
        return Ok(None);
    }
    let stem = porter_stem(conn, word)?;
    let limit = max_distance(chars);
    let known: bool = conn.query_row(
        "SELECT EXISTS(SELECT 1 FROM chunks_vocab WHERE term = ?1)",
        [&stem],
        |r| r.get(0),
    )?;
    if known {
        return Ok(None);
    }
    let stem_chars = stem.chars().count();
    // Only terms sharing the first letter: fts5vocab computes counts for every row it
    // visits (it reads the postings), so a full scan costs milliseconds per word,
    // while a range seek is cheap. Typos in the first letter are rare.
    let Some(first) = stem.chars().next() else {
        return Ok(None);
    };
    let after_first =
        char::from_u32(first as u32 + 1).map_or_else(|| "\u{10FFFF}".to_string(), String::from);
    let mut stmt = conn.prepare_cached(
        "SELECT term, doc FROM chunks_vocab WHERE term >= ?1 AND term < ?2 AND length(term) BETWEEN ?3 AND ?4",
    )?;
    let low = stem_chars.saturating_sub(limit).max(2) as i64;
    let high = (chars.max(stem_chars) + limit) as i64;
    let mut rows = stmt.query(rusqlite::params![first.to_string(), after_first, low, high])?;
    let mut best: Option<(usize, i64, String)> = None;
    while let Some(row) = rows.next()? {
        let term: String = row.get(0)?;
        let docs: i64 = row.get(1)?;
        let by_stem = bounded_levenshtein(&stem, &term, limit);
        let by_word = bounded_levenshtein(word, &term, limit);
        let Some(distance) = by_stem.into_iter().chain(by_word).min() else {
            continue;
        };
        let better = match &best {
            None => true,
            Some((d, n, _)) => distance < *d || (distance == *d && docs > *n),
        };
        if better {
            best = Some((distance, docs, term));
        }
    }
    Ok(best.map(|(_, _, term)| term))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(bounded_levenshtein("kitten", "sitting", 3), Some(3));
        assert_eq!(bounded_levenshtein("kitten", "sitting", 2), None);
        assert_eq!(bounded_levenshtein("日本語", "日本", 1), Some(1));
        assert_eq!(bounded_levenshtein("", "abc", 3), Some(3));
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
