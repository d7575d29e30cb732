//! Candidate retrieval and ranking: bm25 lists from each FTS table (title weighted
//! `BM25_TITLE_WEIGHT` : 1), fused with Reciprocal Rank Fusion keyed by row, then a
//! rerank that rewards chunks holding more of the query's rarer words close together and
//! sections whose headings name them (ADR 44).

use std::collections::HashMap;

use rusqlite::{Connection, params};

use super::query::{ParsedQuery, QueryTerm};
use super::snippet::{find_all, tightest_span};
use super::words::{PlainWord, expansion_expression};
use crate::limits::{BM25_TITLE_WEIGHT, HEADING_ANCESTOR_SHARE, HEADING_MATCH_BOOST, RRF_K};

/// A ranked row: a chunk or a journal row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HitKey {
    Chunk(i64),
    Journal(i64),
}

/// What restricts the candidates.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    /// LIKE-escaped partial source label.
    pub source_like: Option<String>,
    pub content_type: Option<&'static str>,
    /// Only rows of this session.
    pub session: Option<String>,
    pub include_journal: bool,
}

/// Bytes of span at which the proximity bonus halves.
const PROXIMITY_HALF_SPAN_BYTES: f64 = 40.0;

fn chunk_list(
    conn: &Connection,
    table: &str,
    expression: &str,
    filters: &Filters,
    n: usize,
) -> rusqlite::Result<Vec<HitKey>> {
    let sql = format!(
        "SELECT c.id FROM {table} f
         JOIN chunks c INDEXED BY chunks_filter ON c.id = f.rowid
         JOIN sources s ON s.id = c.source_id
         WHERE {table} MATCH ?1
           AND (?2 IS NULL OR s.label LIKE '%' || ?2 || '%' ESCAPE '\\')
           AND (?3 IS NULL OR c.content_type = ?3)
           AND (?4 IS NULL OR s.session_id = ?4)
         ORDER BY bm25({table}, {BM25_TITLE_WEIGHT:.1}, 1.0)
         LIMIT ?5"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(
        params![
            expression,
            filters.source_like,
            filters.content_type,
            filters.session,
            n as i64
        ],
        |r| r.get(0).map(HitKey::Chunk),
    )?;
    rows.collect()
}

fn journal_list(
    conn: &Connection,
    table: &str,
    expression: &str,
    filters: &Filters,
    n: usize,
) -> rusqlite::Result<Vec<HitKey>> {
    let sql = format!(
        "SELECT j.id FROM {table} f
         JOIN journal j ON j.id = f.rowid
         WHERE {table} MATCH ?1 AND (?2 IS NULL OR j.session_id = ?2)
         ORDER BY bm25({table}, {BM25_TITLE_WEIGHT:.1}, 1.0)
         LIMIT ?3"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params![expression, filters.session, n as i64], |r| {
        r.get(0).map(HitKey::Journal)
    })?;
    rows.collect()
}

/// Chunks containing a CJK word too short for trigrams (a scan; only used when the
/// indexes found nothing).
fn like_list(
    conn: &Connection,
    needle: &str,
    filters: &Filters,
    n: usize,
) -> rusqlite::Result<Vec<HitKey>> {
    let mut stmt = conn.prepare_cached(
        "SELECT c.id FROM chunks c JOIN sources s ON s.id = c.source_id
         WHERE (c.content LIKE '%' || ?1 || '%' ESCAPE '\\' OR c.title LIKE '%' || ?1 || '%' ESCAPE '\\')
           AND (?2 IS NULL OR s.label LIKE '%' || ?2 || '%' ESCAPE '\\')
           AND (?3 IS NULL OR c.content_type = ?3)
           AND (?4 IS NULL OR s.session_id = ?4)
         ORDER BY c.id DESC LIMIT ?5",
    )?;
    let rows = stmt.query_map(
        params![
            crate::store::like_escape(needle),
            filters.source_like,
            filters.content_type,
            filters.session,
            n as i64
        ],
        |r| r.get(0).map(HitKey::Chunk),
    )?;
    rows.collect()
}

/// Every ranked list for `query`, each at most `n` long. `words` is what the indexes
/// know of its plain words (`words::look_up`).
pub fn ranked_lists(
    conn: &Connection,
    query: &ParsedQuery,
    words: &[PlainWord],
    filters: &Filters,
    n: usize,
) -> rusqlite::Result<Vec<Vec<HitKey>>> {
    let mut lists = Vec::new();
    let journal =
        filters.include_journal && filters.source_like.is_none() && filters.content_type.is_none();
    if let Some(expression) = query.porter_expression() {
        lists.push(chunk_list(conn, "chunks_fts", &expression, filters, n)?);
        if journal {
            lists.push(journal_list(conn, "journal_fts", &expression, filters, n)?);
        }
    }
    // A plain word the porter index has no word for may be part of an identifier (the
    // chunk trigram index) or of longer words (the vocabulary's expansions); the
    // journal's trigram index holds its whole text, so it finds both.
    let unmatched_words: Vec<&str> = words
        .iter()
        .filter(|w| !w.in_porter)
        .map(|w| w.word.as_str())
        .collect();
    if let Some(expression) = query.trigram_expression(&unmatched_words) {
        lists.push(chunk_list(conn, "chunks_trigram", &expression, filters, n)?);
        if journal {
            lists.push(journal_list(
                conn,
                "journal_trigram",
                &expression,
                filters,
                n,
            )?);
        }
    }
    if let Some(expression) = expansion_expression(words) {
        lists.push(chunk_list(conn, "chunks_fts", &expression, filters, n)?);
    }
    if lists.iter().all(Vec::is_empty) {
        for needle in &query.short_cjk {
            lists.push(like_list(conn, needle, filters, n)?);
        }
    }
    Ok(lists)
}

/// Reciprocal Rank Fusion: Σ 1 / (RRF_K + rank) over the lists, best first.
pub fn fuse(lists: &[Vec<HitKey>]) -> Vec<(HitKey, f64)> {
    let mut scores: HashMap<HitKey, f64> = HashMap::new();
    for list in lists {
        for (i, key) in list.iter().enumerate() {
            *scores.entry(*key).or_default() += 1.0 / (RRF_K + (i + 1) as f64);
        }
    }
    let mut fused: Vec<(HitKey, f64)> = scores.into_iter().collect();
    fused.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then_with(|| order_key(b.0).cmp(&order_key(a.0)))
    });
    fused
}

fn order_key(key: HitKey) -> (u8, i64) {
    match key {
        HitKey::Chunk(id) => (1, id),
        HitKey::Journal(id) => (0, id),
    }
}

/// One fused candidate as the rerank reads it.
pub struct Candidate {
    pub fused: f64,
    /// Title and content, ASCII-lowercased.
    pub text_lower: String,
    /// Bytes of `text_lower` that are the heading path; none for a row that has no
    /// headings (journal).
    pub headings_len: Option<usize>,
}

/// The fused scores adjusted by what each candidate holds of the query's words, each word
/// weighted by how few candidates hold it (a word every candidate has tells them apart
/// no better than none, a rare one is what was asked): up to +100% for holding every
/// word and up to +100% more for holding them close together (multi-word queries), then
/// a factor of up to 1 + `HEADING_MATCH_BOOST` for the words its headings hold.
pub fn rerank(terms: &[QueryTerm], candidates: &[Candidate]) -> Vec<f64> {
    let hits: Vec<Vec<Vec<usize>>> = candidates
        .iter()
        .map(|c| {
            terms
                .iter()
                .map(|term| {
                    let mut hits: Vec<usize> = find_all(&c.text_lower, &term.needles)
                        .into_iter()
                        .flatten()
                        .collect();
                    hits.sort_unstable();
                    hits.dedup();
                    hits
                })
                .collect()
        })
        .collect();
    let pool = candidates.len() as f64;
    let weights: Vec<f64> = (0..terms.len())
        .map(|t| {
            let holding = hits.iter().filter(|h| !h[t].is_empty()).count();
            if holding == 0 {
                0.0
            } else {
                (1.0 + pool / holding as f64).ln()
            }
        })
        .collect();
    let total: f64 = weights.iter().sum();
    candidates
        .iter()
        .zip(&hits)
        .map(|(c, per_term)| {
            let mut score = c.fused;
            if terms.len() >= 2 && total > 0.0 {
                let held: f64 = per_term
                    .iter()
                    .zip(&weights)
                    .filter(|(h, _)| !h.is_empty())
                    .map(|(_, w)| w)
                    .sum();
                let present = per_term.iter().filter(|h| !h.is_empty()).count();
                let proximity = if present >= 2 {
                    tightest_span(per_term).map_or(0.0, |(_, span)| {
                        1.0 / (1.0 + span as f64 / PROXIMITY_HALF_SPAN_BYTES)
                    })
                } else {
                    0.0
                };
                score *= 1.0 + held / total + proximity;
            }
            if let Some(headings) = c.headings_len.and_then(|len| c.text_lower.get(..len))
                && total > 0.0
            {
                score *=
                    1.0 + HEADING_MATCH_BOOST * heading_share(terms, &weights, headings) / total;
            }
            score
        })
        .collect()
}

/// The weight of the query words a heading path holds: a section whose own heading
/// names what was asked ("Inferring types" for "infer the type from a schema") is the
/// answer more often than body text elsewhere that mentions the words. Words in the
/// section's own heading (the path's last part) count fully, words only in the headings
/// above it (the document's name, the chapter) `HEADING_ANCESTOR_SHARE` as much.
fn heading_share(terms: &[QueryTerm], weights: &[f64], headings_lower: &str) -> f64 {
    let (ancestors, own) = headings_lower
        .rsplit_once(" > ")
        .unwrap_or(("", headings_lower));
    let holds =
        |text: &str, term: &QueryTerm| term.needles.iter().any(|n| text.contains(n.as_str()));
    terms
        .iter()
        .zip(weights)
        .map(|(term, weight)| {
            if holds(own, term) {
                *weight
            } else if holds(ancestors, term) {
                weight * HEADING_ANCESTOR_SHARE
            } else {
                0.0
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A candidate of fused score 1 with no headings.
    fn body(text: &str) -> Candidate {
        Candidate {
            fused: 1.0,
            text_lower: text.to_string(),
            headings_len: None,
        }
    }

    #[test]
    fn rrf_rewards_agreement_between_lists() {
        let a = vec![HitKey::Chunk(1), HitKey::Chunk(2), HitKey::Chunk(3)];
        let b = vec![HitKey::Chunk(2), HitKey::Chunk(3)];
        let fused = fuse(&[a, b]);
        assert_eq!(fused[0].0, HitKey::Chunk(2));
        let expected = 1.0 / 62.0 + 1.0 / 61.0;
        assert!((fused[0].1 - expected).abs() < 1e-12);
    }

    #[test]
    fn close_words_outrank_distant_ones() {
        let q = ParsedQuery::parse("rollback canary deployment");
        let close = "the canary deployment rollback is automatic";
        let far = format!(
            "rollback {} canary {} deployment",
            "x ".repeat(400),
            "y ".repeat(400)
        );
        let partial = "rollback only, nothing else here";
        let scores = rerank(&q.terms, &[body(close), body(&far), body(partial)]);
        let (s_close, s_far, s_partial) = (scores[0], scores[1], scores[2]);
        assert!(
            s_close > s_far && s_far > s_partial,
            "{s_close} {s_far} {s_partial}"
        );
    }

    #[test]
    fn words_in_the_own_heading_count_more_than_in_the_headings_above() {
        let q = ParsedQuery::parse("infer type schema");
        let candidate = |headings: &str| Candidate {
            fused: 1.0,
            text_lower: format!("{headings}\ninfers a type from a schema"),
            headings_len: Some(headings.len()),
        };
        let scores = rerank(
            &q.terms,
            &[
                candidate("zod > basic usage > inferring types"),
                candidate("inferring types > basic usage"),
                candidate("zod > basic usage"),
            ],
        );
        assert!(scores[0] > scores[1] && scores[1] > scores[2], "{scores:?}");
    }

    #[test]
    fn rare_words_weigh_more_than_words_every_candidate_has() {
        let q = ParsedQuery::parse("masking passwords output");
        let scores = rerank(
            &q.terms,
            &[
                body("passwords are masked in the output"),
                body("output output and more output, nothing masked"),
                body("output here"),
                body("output there"),
            ],
        );
        assert!(scores[0] > scores[1], "{scores:?}");
    }
}
