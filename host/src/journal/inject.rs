//! What the journal gives back to the agent: the routing block at session start, the
//! state block after compaction or resume, journal rows matching a new prompt, and the
//! `ctx_resume` answer.

use super::Category;
use super::state::line_with_pointer;
use super::text::{body, cut, fields, one_line, with_fields};
use crate::limits::{
    PROMPT_MATCH_MAX_BYTES, RESUME_CAP_BYTES, STATE_BUDGET_BYTES, STATE_LINE_MAX_BYTES,
};
use crate::model::{CtxToolNames, SessionSource};
use crate::search::ParsedQuery;
use crate::store::{JournalEntry, NewJournalEntry, Store, StoreError};

/// The compact routing block injected at session start, naming this platform's tools
/// as its model sees them.
pub fn routing_block(names: &CtxToolNames) -> String {
    let [execute, batch, file, fetch, search, resume] = [
        "ctx_execute",
        "ctx_batch_execute",
        "ctx_execute_file",
        "ctx_fetch_and_index",
        "ctx_search",
        "ctx_resume",
    ]
    .map(|tool| names.name(tool));
    format!(
        "context-mode is active: large tool output can stay out of this conversation.\n\
         - Commands, builds, tests, log reads: {execute}(language, code); only what the code prints comes back. \
         Several commands plus questions in one call: {batch}(commands, queries).\n\
         - Analysing a large file: {file}(path, language, code); the file's content stays out.\n\
         - Web pages and docs: {fetch}(url), then {search}(queries). \
         These tools have full network access.\n\
         - Earlier output, indexed docs and notes: {search}(queries).\n\
         - After a compaction: {resume}() for the session state, {resume}(seq) for one journal row.\n\
         - Small reads, edits and short commands run as usual."
    )
}

/// The context to inject at session start: the routing block on startup; after a
/// compaction or a resume, the session's stored state block (or one built now from its
/// journal, or else the newest unconsumed block of the project when this session id is
/// new, linking the two sessions); nothing after a clear.
pub fn session_start_context(
    store: &mut Store,
    session_id: &str,
    source: SessionSource,
    ctx_tools: &CtxToolNames,
) -> Result<Option<String>, StoreError> {
    let state = match source {
        SessionSource::Clear => return Ok(None),
        SessionSource::Startup => return Ok(Some(routing_block(ctx_tools))),
        SessionSource::Compact | SessionSource::Resume | SessionSource::Unknown => {
            state_for(store, session_id, source != SessionSource::Unknown)?
        }
    };
    Ok(match (state, source) {
        (Some(block), _) => Some(state_injection(&block, ctx_tools)),
        (None, SessionSource::Unknown) => Some(routing_block(ctx_tools)),
        (None, _) => None,
    })
}

/// The state block saved at the session's last compaction, taken (so given once), as
/// injected: for hosts that fire no SessionStart after compacting (Gemini CLI), on the
/// next event that can carry context.
pub fn saved_state_context(
    store: &mut Store,
    session_id: &str,
    ctx_tools: &CtxToolNames,
) -> Result<Option<String>, StoreError> {
    Ok(store
        .take_state_block(session_id)?
        .map(|saved| state_injection(&saved.block, ctx_tools)))
}

/// A state block and the line naming the tools that reach further, within
/// STATE_BUDGET_BYTES together: the block's last lines (its lowest-priority rows) give
/// way to the pointer line; a pointer that cannot fit at all is left out.
pub fn state_injection(block: &str, ctx_tools: &CtxToolNames) -> String {
    let pointer = format!(
        "A row in full: {}(seq); older output: {}(queries).",
        ctx_tools.name("ctx_resume"),
        ctx_tools.name("ctx_search")
    );
    let mut lines: Vec<&str> = block.lines().collect();
    let total = |lines: &[&str]| lines.iter().map(|l| l.len() + 1).sum::<usize>() + pointer.len();
    while lines.len() > 1 && total(&lines) > STATE_BUDGET_BYTES {
        lines.pop();
    }
    let mut out = lines.join("\n");
    if total(&lines) <= STATE_BUDGET_BYTES {
        out.push('\n');
        out.push_str(&pointer);
    } else {
        out = cut(&out, STATE_BUDGET_BYTES).to_string();
    }
    out
}

fn state_for(
    store: &mut Store,
    session_id: &str,
    adopt_other: bool,
) -> Result<Option<String>, StoreError> {
    if let Some(block) = store.take_state_block(session_id)? {
        return Ok(Some(block.block));
    }
    if store.journal_count(session_id)? > 0 {
        let block = super::build_state_block(store, session_id)?;
        return Ok((!block.is_empty()).then_some(block));
    }
    if !adopt_other {
        return Ok(None);
    }
    let Some(block) = store.take_newest_state_block()? else {
        return Ok(None);
    };
    if block.session_id != session_id {
        let data = with_fields(&[("source", block.session_id.clone())], "");
        let summary = format!("continues session {}", block.session_id);
        let row = NewJournalEntry {
            session_id,
            category: Category::Continues.as_str(),
            priority: Category::Continues.default_priority(),
            summary: &summary,
            data: &data,
            dedup: true,
        };
        store.journal_insert_above(&row, &block.session_id)?;
    }
    Ok(Some(block.block))
}

/// The session this one continues, when it took over another's state.
fn continued_session(store: &Store, session_id: &str) -> Result<Option<String>, StoreError> {
    Ok(store
        .journal_in_categories(session_id, &[Category::Continues.as_str()], 1, 400)?
        .last()
        .and_then(|r| fields(&r.data).get("source").map(|s| (*s).to_string())))
}

/// Journal rows from before the last compaction (or from the session this one
/// continues) that match `prompt` by BM25, as one block of at most
/// [`PROMPT_MATCH_MAX_BYTES`]; `None` when there is no such history or nothing matches
/// well (a row must hold two of the prompt's words, or its only word). Rows already in
/// the session's newest state block are left out.
pub fn prompt_context(
    store: &Store,
    session_id: &str,
    prompt: &str,
) -> Result<Option<String>, StoreError> {
    let boundary = store
        .journal_in_categories(session_id, &[Category::Compaction.as_str()], 1, 0)?
        .last()
        .map(|r| r.seq);
    let earlier = continued_session(store, session_id)?;
    if boundary.is_none() && earlier.is_none() {
        return Ok(None);
    }
    let parsed = ParsedQuery::parse(prompt);
    let Some(expression) = parsed.porter_expression() else {
        return Ok(None);
    };
    let needed = parsed.terms.len().min(2);
    let shown = store
        .latest_state_block(session_id)?
        .map(|b| b.block)
        .unwrap_or_default();
    let mut stmt = store.conn().prepare_cached(
        "SELECT j.session_id, j.seq, j.category, j.summary, j.data FROM journal_fts f
         JOIN journal j ON j.id = f.rowid
         WHERE journal_fts MATCH ?1
           AND ((j.session_id = ?2 AND j.seq < ?3) OR j.session_id = ?4)
           AND j.category NOT IN ('pending-call', 'compaction', 'continues', 'unblocked')
         ORDER BY bm25(journal_fts, 5.0, 1.0), j.id DESC
         LIMIT 12",
    )?;
    let rows = stmt.query_map(
        rusqlite::params![expression, session_id, boundary.unwrap_or(0), earlier],
        |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
            ))
        },
    )?;
    let header = "Journal rows from before the compaction matching this prompt (ctx_resume(seq) returns one in full):";
    let mut out = String::from(header);
    for row in rows {
        let (row_session, seq, category, summary, data) = row.map_err(StoreError::from)?;
        let text = format!("{summary}\n{}", body(&data)).to_lowercase();
        let held = parsed
            .terms
            .iter()
            .filter(|t| t.needles.iter().any(|n| text.contains(n.as_str())))
            .count();
        if held < needed || shown.contains(&format!("#{seq} ")) && row_session == session_id {
            continue;
        }
        let origin = if row_session == session_id {
            String::new()
        } else {
            "earlier session ".to_string()
        };
        let line = line_with_pointer(
            &format!("- {origin}#{seq} {category}: {summary}"),
            seq,
            STATE_LINE_MAX_BYTES,
        );
        if out.len() + 1 + line.len() <= PROMPT_MATCH_MAX_BYTES {
            out.push('\n');
            out.push_str(&line);
        }
    }
    Ok((out.len() > header.len()).then_some(out))
}

/// The `ctx_resume` answer: without `seq`, the session's state now (or its newest
/// stored block); with `seq`, that journal row in full — looked up in this session,
/// then in the session it continues — at most [`RESUME_CAP_BYTES`].
pub fn resume(store: &Store, session_id: &str, seq: Option<i64>) -> Result<String, StoreError> {
    let earlier = continued_session(store, session_id)?;
    let Some(seq) = seq else {
        let block = super::build_state_block(store, session_id)?;
        if !block.is_empty() {
            return Ok(cut(&block, RESUME_CAP_BYTES).to_string());
        }
        for session in std::iter::once(session_id).chain(earlier.as_deref()) {
            if let Some(stored) = store.latest_state_block(session)? {
                return Ok(cut(&stored.block, RESUME_CAP_BYTES).to_string());
            }
        }
        return Ok("No journal rows for this session yet.".to_string());
    };
    let mut row = store.journal_get(session_id, seq)?;
    if row.is_none()
        && let Some(earlier) = &earlier
    {
        row = store.journal_get(earlier, seq)?;
    }
    Ok(match row {
        Some(row) => render_row(&row, session_id),
        None => {
            let count = store.journal_count(session_id)?;
            format!(
                "No journal row #{seq} in this session ({count} rows); ctx_resume() shows the session state."
            )
        }
    })
}

fn render_row(row: &JournalEntry, session_id: &str) -> String {
    let from = if row.session_id == session_id {
        String::new()
    } else {
        format!(" of session {}", row.session_id)
    };
    let mut out = format!(
        "#{}{from} {} (P{})\n{}",
        row.seq, row.category, row.priority, row.summary
    );
    let f = fields(&row.data);
    for (name, label) in [
        ("fixes", "resolves errors"),
        ("resolves", "clears blockers"),
        ("source", "source"),
        ("count", "count"),
    ] {
        if let Some(value) = f.get(name) {
            let value = if matches!(name, "fixes" | "resolves") {
                value
                    .split_whitespace()
                    .map(|s| format!("#{s}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            } else {
                (*value).to_string()
            };
            out.push_str(&format!("\n{label}: {value}"));
        }
    }
    let body = body(&row.data).trim();
    if !body.is_empty() && one_line(body) != row.summary {
        out.push_str("\n\n");
        out.push_str(body);
    }
    if out.len() > RESUME_CAP_BYTES {
        let note = "\n… (cut; ctx_search finds the rest)";
        let mut cut_out = cut(&out, RESUME_CAP_BYTES - note.len()).to_string();
        cut_out.push_str(note);
        return cut_out;
    }
    out
}
