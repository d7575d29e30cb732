//! Searching the project store: both FTS5 indexes (and the journal), fused with RRF,
//! reranked by proximity, typo-corrected when nothing matched; snippets around the
//! matches. Also indexing (text, paths, memory files), the flood guard and the
//! `ctx_index` / `ctx_search` / `ctx_purge` services.

mod caps;
mod digest;
mod flood;
mod format;
mod fuzzy;
mod indexing;
mod memory;
mod query;
mod rank;
mod snippet;
mod tools;
mod walk;
mod words;

#[cfg(test)]
mod tests;

use rusqlite::OptionalExtension;

pub use caps::{cut_note as query_cut_note, searched_part as searched_query, too_many_queries};
pub use digest::{cap_reply, index_and_digest, preview, preview_edges};
pub use flood::{FLOOD_NORMAL_ENV, FLOOD_REDUCED_ENV, FLOOD_WINDOW_ENV, FloodGuard, FloodLevel};
pub use format::search_answers as format_search_answers;
pub use indexing::{distinctive_terms, index_document};
pub use memory::{MEMORY_FILE_NAMES, MemoryIndexReport, index_memory_files};
pub use query::ParsedQuery;
pub use snippet::make_snippet;
pub use tools::{
    IndexParams, OtherWorktree, PurgeParams, SearchParams, SearchScope, ToolContext, ToolReply,
    ctx_index, ctx_index_with, ctx_purge, ctx_purge_preview, ctx_search, ctx_search_with,
    purge_scope,
};
pub use walk::{
    IndexPathError, PathIndexReport, WalkHooks, WalkOptions, index_path, index_path_with,
};

use crate::chunk::ContentType;
use crate::limits::{SEARCH_DEFAULT_LIMIT, SNIPPET_MAX_BYTES};
use crate::store::{Origin, Store, StoreError, like_escape};
use rank::{Filters, HitKey};

/// Which rows a search looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// Only what this session indexed or journalled.
    Session,
    /// Everything in the project's store (memory files included).
    #[default]
    Project,
}

/// Result order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sort {
    #[default]
    Relevance,
    /// The most relevant `limit` results, shown oldest first.
    Timeline,
}

/// Where a hit comes from, relative to the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HitOrigin {
    ThisSession,
    EarlierSession,
    Memory,
}

impl HitOrigin {
    pub fn label(self) -> &'static str {
        match self {
            HitOrigin::ThisSession => "this session",
            HitOrigin::EarlierSession => "earlier session",
            HitOrigin::Memory => "memory",
        }
    }
}

/// How to search.
#[derive(Debug, Clone)]
pub struct SearchOptions<'a> {
    /// The caller's session: decides "this session" against "earlier session".
    pub session_id: &'a str,
    pub limit: usize,
    /// Partial, case-insensitive match on the source label.
    pub source: Option<&'a str>,
    pub content_type: Option<ContentType>,
    pub scope: Scope,
    pub sort: Sort,
    /// Budget of each snippet.
    pub snippet_bytes: usize,
    /// Whether journal rows are searched too (never with a source or contentType filter).
    pub include_journal: bool,
}

impl<'a> SearchOptions<'a> {
    pub fn new(session_id: &'a str) -> Self {
        SearchOptions {
            session_id,
            limit: SEARCH_DEFAULT_LIMIT,
            source: None,
            content_type: None,
            scope: Scope::Project,
            sort: Sort::Relevance,
            snippet_bytes: SNIPPET_MAX_BYTES,
            include_journal: true,
        }
    }
}

/// One search result.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    pub key: HitRef,
    pub source_label: String,
    /// Heading path / key path / line range; the category for journal rows.
    pub title: String,
    pub origin: HitOrigin,
    pub content_type: ContentType,
    pub snippet: String,
    pub score: f64,
    pub created_at: i64,
}

/// Which row a hit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HitRef {
    Chunk { id: i64 },
    Journal { session_seq: i64 },
}

/// The answer to one query.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchOutcome {
    pub hits: Vec<SearchHit>,
    /// (typed word, word searched instead) when typo correction ran.
    pub corrections: Vec<(String, String)>,
    /// The query had only stopwords, operators or punctuation.
    pub nothing_to_search: bool,
}

/// Candidates fetched from each list: enough for a good fused top `limit`.
fn list_depth(limit: usize) -> usize {
    (limit * 4).clamp(30, 400)
}

/// Searches the store for `query`. A damaged index file met on the way is rebuilt
/// and the query answered from the rebuilt one.
pub fn search(
    store: &Store,
    query: &str,
    options: &SearchOptions<'_>,
) -> Result<SearchOutcome, StoreError> {
    match search_once(store, query, options) {
        Err(err) if store.repair_index(&err) => search_once(store, query, options),
        other => other,
    }
}

fn search_once(
    store: &Store,
    query: &str,
    options: &SearchOptions<'_>,
) -> Result<SearchOutcome, StoreError> {
    let parsed = ParsedQuery::parse(query);
    if parsed.is_empty() || options.limit == 0 {
        return Ok(SearchOutcome {
            nothing_to_search: parsed.is_empty(),
            ..Default::default()
        });
    }
    let conn = store.search_conn()?;
    let filters = Filters {
        source_like: options.source.map(like_escape),
        content_type: options.content_type.map(ContentType::as_str),
        session: (options.scope == Scope::Session).then(|| options.session_id.to_string()),
        include_journal: options.include_journal,
    };
    let plain_words = words::look_up(conn, &parsed)?;
    let hits = run(conn, &parsed, &plain_words, &filters, options)?;
    correct_typos(conn, &parsed, &plain_words, hits, &filters, options)
}

/// Typo correction: each word that nothing indexed holds, whole or in part (or every
/// word, when the query matched nothing), is replaced by the closest vocabulary word and
/// the query asked again. The corrected answer is kept when it has hits.
fn correct_typos(
    conn: &rusqlite::Connection,
    parsed: &ParsedQuery,
    plain_words: &[words::PlainWord],
    hits: Vec<SearchHit>,
    filters: &Filters,
    options: &SearchOptions<'_>,
) -> Result<SearchOutcome, StoreError> {
    let nothing = hits.is_empty();
    let unknown = |word: &str| plain_words.iter().any(|w| w.word == word && w.unknown());
    let mut corrected = parsed.clone();
    if nothing {
        corrected.substrings.clear();
        corrected.plain_substrings.clear();
        corrected.short_cjk.clear();
    }
    let mut corrections = Vec::new();
    for term in &mut corrected.terms {
        if !(nothing || unknown(&term.word)) {
            continue;
        }
        if let Some(replacement) = fuzzy::correct_word(conn, &term.word)? {
            corrected.plain_substrings.retain(|w| *w != term.word);
            corrected.substrings.retain(|w| *w != term.word);
            corrections.push((term.word.clone(), replacement.clone()));
            *term = query::QueryTerm::new(replacement);
        }
    }
    let answer = |hits, corrections| SearchOutcome {
        hits,
        corrections,
        nothing_to_search: false,
    };
    if corrections.is_empty() {
        return Ok(answer(hits, corrections));
    }
    let kept_words: Vec<words::PlainWord> = plain_words
        .iter()
        .filter(|w| corrected.plain_substrings.contains(&w.word))
        .cloned()
        .collect();
    let again = run(conn, &corrected, &kept_words, filters, options)?;
    if again.is_empty() {
        return Ok(answer(hits, Vec::new()));
    }
    Ok(answer(again, corrections))
}

struct Row {
    /// The chunk's source (none for a journal row).
    source_id: Option<i64>,
    label: String,
    title: String,
    content: String,
    session_id: Option<String>,
    origin: Origin,
    content_type: ContentType,
    created_at: i64,
    public: HitRef,
}

fn load(conn: &rusqlite::Connection, key: HitKey) -> rusqlite::Result<Option<Row>> {
    match key {
        HitKey::Chunk(id) => conn
            .prepare_cached(
                "SELECT s.label, c.title, c.content, s.session_id, s.origin, c.content_type, s.created_at, s.id
                 FROM chunks c JOIN sources s ON s.id = c.source_id WHERE c.id = ?1",
            )?
            .query_row([id], |r| {
                Ok(Row {
                    source_id: Some(r.get(7)?),
                    label: r.get(0)?,
                    title: r.get(1)?,
                    content: r.get(2)?,
                    session_id: r.get(3)?,
                    origin: if r.get::<_, String>(4)? == "memory" { Origin::Memory } else { Origin::Session },
                    content_type: ContentType::parse(&r.get::<_, String>(5)?).unwrap_or(ContentType::Prose),
                    created_at: r.get(6)?,
                    public: HitRef::Chunk { id },
                })
            })
            .optional(),
        HitKey::Journal(id) => conn
            .prepare_cached("SELECT session_id, seq, category, summary, data, created_at FROM journal WHERE id = ?1")?
            .query_row([id], |r| {
                let seq: i64 = r.get(1)?;
                let summary: String = r.get(3)?;
                let data: String = r.get(4)?;
                Ok(Row {
                    source_id: None,
                    label: format!("journal #{seq}"),
                    title: r.get(2)?,
                    content: if data.is_empty() { summary } else { format!("{summary}\n{data}") },
                    session_id: Some(r.get(0)?),
                    origin: Origin::Session,
                    content_type: ContentType::Prose,
                    created_at: r.get(5)?,
                    public: HitRef::Journal { session_seq: seq },
                })
            })
            .optional(),
    }
}

fn run(
    conn: &rusqlite::Connection,
    parsed: &ParsedQuery,
    plain_words: &[words::PlainWord],
    filters: &Filters,
    options: &SearchOptions<'_>,
) -> Result<Vec<SearchHit>, StoreError> {
    let depth = list_depth(options.limit);
    let lists = rank::ranked_lists(conn, parsed, plain_words, filters, depth)?;
    let fused = rank::fuse(&lists);
    let needles = parsed.needles();
    let rerank_pool = (options.limit * 3).max(30);
    let mut rows = Vec::new();
    let mut candidates = Vec::new();
    for (key, score) in fused.into_iter().take(rerank_pool) {
        let Some(row) = load(conn, key)? else {
            continue;
        };
        candidates.push(rank::Candidate {
            fused: score,
            text_lower: format!("{}\n{}", row.title, row.content).to_ascii_lowercase(),
            headings_len: row.source_id.map(|_| row.title.len()),
        });
        rows.push(row);
    }
    let scores = rank::rerank(&parsed.terms, &candidates);
    let mut scored: Vec<(f64, Row)> = scores.into_iter().zip(rows).collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    one_per_section(&mut scored);
    scored.truncate(options.limit);
    if options.sort == Sort::Timeline {
        scored.sort_by_key(|(_, row)| (row.created_at, order_of(row.public)));
    }
    Ok(scored
        .into_iter()
        .map(|(score, row)| {
            let origin = match (row.origin, row.session_id.as_deref()) {
                (Origin::Memory, _) => HitOrigin::Memory,
                (_, Some(s)) if s == options.session_id => HitOrigin::ThisSession,
                _ => HitOrigin::EarlierSession,
            };
            // A journal seq is per session: name the session when it is not the caller's.
            let source_label = match (row.public, origin, row.session_id.as_deref()) {
                (HitRef::Journal { .. }, HitOrigin::EarlierSession, Some(session)) => {
                    let short: String = session.chars().take(12).collect();
                    format!("{} of session {short}", row.label)
                }
                _ => row.label,
            };
            SearchHit {
                key: row.public,
                origin,
                snippet: make_snippet(&row.content, &needles, options.snippet_bytes),
                source_label,
                title: row.title,
                content_type: row.content_type,
                score,
                created_at: row.created_at,
            }
        })
        .collect())
}

/// Keeps the best chunk of each section (a source's chunks under one heading path):
/// two pieces of one section are one answer, and the slot goes to another section.
/// Chunks without a title (text before a document's first heading) are not a section.
fn one_per_section(scored: &mut Vec<(f64, Row)>) {
    let mut seen = std::collections::HashSet::new();
    scored.retain(|(_, row)| match row.source_id {
        Some(source) if !row.title.is_empty() => seen.insert((source, row.title.clone())),
        _ => true,
    });
}

fn order_of(key: HitRef) -> i64 {
    match key {
        HitRef::Chunk { id } => id,
        HitRef::Journal { session_seq } => session_seq,
    }
}
