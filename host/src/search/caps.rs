//! Bounds on what one search call takes (issue 12). A query longer than
//! SEARCH_QUERY_MAX_BYTES is a pasted document, not a question: it is cut at a character
//! boundary, searched, and the reply says so. A call with more than SEARCH_MAX_QUERIES
//! queries is refused with one line, before anything runs.

use crate::chunk::floor_char_boundary;
use crate::limits::{SEARCH_MAX_QUERIES, SEARCH_QUERY_MAX_BYTES, SEARCH_TERM_MAX_BYTES};

/// `text` cut to at most `max` bytes, at a character boundary.
fn cut_at(text: &str, max: usize) -> &str {
    &text[..floor_char_boundary(text, max)]
}

/// The part of `query` that is searched.
pub fn searched_part(query: &str) -> &str {
    cut_at(query, SEARCH_QUERY_MAX_BYTES)
}

/// The part of one word, identifier or path of a query that is searched.
pub(super) fn searched_term(term: &str) -> &str {
    cut_at(term, SEARCH_TERM_MAX_BYTES)
}

/// The refusal of a call with too many queries, naming the tool.
pub fn too_many_queries(tool: &str, count: usize) -> Option<String> {
    (count > SEARCH_MAX_QUERIES).then(|| {
        format!(
            "{tool} takes at most {SEARCH_MAX_QUERIES} queries per call (got {count}); \
             send the most important ones, or several calls"
        )
    })
}

/// The reply's note about the queries (as given) that are searched only in part.
pub fn cut_note<S: AsRef<str>>(queries: &[S]) -> Option<String> {
    let cut: Vec<String> = (1..)
        .zip(queries)
        .map(|(n, query)| (n, query.as_ref()))
        .filter(|(_, query)| searched_part(query).len() < query.len())
        .map(|(n, query)| format!("query {n} ({})", crate::human::bytes(query.len() as u64)))
        .collect();
    (!cut.is_empty()).then(|| {
        format!(
            "Note: {} searched by its first {} only (queries are capped at that size).\n",
            cut.join(", "),
            crate::human::bytes(SEARCH_QUERY_MAX_BYTES as u64)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_fall_on_character_boundaries() {
        let text = "é".repeat(SEARCH_QUERY_MAX_BYTES);
        let part = searched_part(&text);
        assert!(part.len() <= SEARCH_QUERY_MAX_BYTES && part.len() >= SEARCH_QUERY_MAX_BYTES - 1);
        assert!(part.chars().all(|c| c == 'é'));
        assert_eq!(searched_part("short"), "short");
        assert_eq!(
            searched_term(&"x".repeat(1_000)).len(),
            SEARCH_TERM_MAX_BYTES
        );
    }

    #[test]
    fn the_query_count_is_capped() {
        assert!(too_many_queries("ctx_search", SEARCH_MAX_QUERIES).is_none());
        let refusal = too_many_queries("ctx_search", 10_000).unwrap_or_default();
        assert!(
            refusal.contains(&format!("at most {SEARCH_MAX_QUERIES} queries"))
                && refusal.contains("10000"),
            "{refusal}"
        );
        assert_eq!(refusal.lines().count(), 1);
    }
}
