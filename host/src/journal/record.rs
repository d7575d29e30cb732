//! Applying an event to the store: load the session's recent rows, extract, index
//! pasted data, then retire / insert / evict in one write transaction.

use super::Category;
use super::extract::{Extracted, extract};
use super::redact::redact;
use super::text::cut;
use crate::chunk::Format;
use crate::limits::{
    JOURNAL_CONTEXT_ROWS, JOURNAL_DATA_MAX_BYTES, JOURNAL_MAX_ROWS_PER_PRIORITY,
    JOURNAL_SUMMARY_MAX_BYTES,
};
use crate::model::{EventKind, NormalizedEvent};
use crate::store::{
    JournalEntry, JournalInsert, JournalOp, NewJournalEntry, NewSource, SourceKind, Store,
    StoreError, content_hash,
};

/// Rows whose state outlives the recent window: a pending call, an MCP count, an
/// error still waiting for its fix, a blocker still open.
const STICKY: &[Category] = &[
    Category::Pending,
    Category::Mcp,
    Category::Blocker,
    Category::Unblocked,
    Category::Retry,
    Category::Intent,
    Category::Env,
    Category::Error,
    Category::Fix,
];
/// The most sticky rows read per event.
const STICKY_ROWS: usize = 300;
/// Characters of each row's data read for relating events (the header fields).
const CONTEXT_DATA_CHARS: usize = 400;

/// What recording one event did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recorded {
    /// Seqs of new rows.
    pub inserted: Vec<i64>,
    /// Rows dropped as duplicates of existing ones.
    pub duplicates: usize,
    /// Rows retired (pending calls answered or turned into rejections, replaced counts).
    pub retired: usize,
    /// Pasted data indexed (source labels).
    pub pasted: Vec<String>,
}

/// The session's rows an event is related to: the newest rows plus every sticky row
/// still in the journal, in seq order.
fn context_rows(store: &Store, session_id: &str) -> Result<Vec<JournalEntry>, StoreError> {
    let mut rows = store.journal_recent(session_id, JOURNAL_CONTEXT_ROWS, CONTEXT_DATA_CHARS)?;
    let names: Vec<&str> = STICKY.iter().map(|c| c.as_str()).collect();
    let oldest_recent = rows.first().map_or(i64::MAX, |r| r.seq);
    rows.extend(
        store
            .journal_in_categories(session_id, &names, STICKY_ROWS, CONTEXT_DATA_CHARS)?
            .into_iter()
            .filter(|r| r.seq < oldest_recent),
    );
    rows.sort_by_key(|r| r.seq);
    Ok(rows)
}

/// Journals one event: extract its rows against the session's recent ones, index
/// pasted data, then apply everything in one transaction with the per-priority bound
/// ([`JOURNAL_MAX_ROWS_PER_PRIORITY`]).
///
/// Call it for pre-tool-use only when the call will run (the policy allowed it or asks
/// the user) and only on platforms that also deliver post-tool-use: a pre-tool-use
/// without its post-tool-use is journalled as a rejected call.
pub fn record(store: &mut Store, event: &NormalizedEvent) -> Result<Recorded, StoreError> {
    let session_id = event.session_id.trim();
    if session_id.is_empty() {
        return Ok(Recorded::default());
    }
    let context = if event.kind == EventKind::PreToolUse {
        Vec::new()
    } else {
        context_rows(store, session_id)?
    };
    let extracted = extract(event, &context);
    apply(store, session_id, extracted)
}

/// Writes extracted rows: the one place every stored text passes through redaction
/// and the size caps.
pub(crate) fn apply(
    store: &mut Store,
    session_id: &str,
    extracted: Extracted,
) -> Result<Recorded, StoreError> {
    let mut recorded = Recorded::default();
    if extracted.is_empty() {
        return Ok(recorded);
    }
    for paste in &extracted.pastes {
        let text = redact(&paste.text);
        let hash = content_hash(&text);
        let mut source = NewSource::new(
            &paste.label,
            SourceKind::Journal,
            Some(session_id),
            text.len(),
        );
        source.content_hash = Some(&hash);
        crate::search::index_document(store, source, &text, Format::Text)?;
        recorded.pasted.push(paste.label.clone());
    }
    let texts: Vec<(String, String)> = extracted
        .entries
        .iter()
        .map(|e| {
            (
                cut(&redact(&e.summary), JOURNAL_SUMMARY_MAX_BYTES).to_string(),
                cut(&redact(&e.data), JOURNAL_DATA_MAX_BYTES).to_string(),
            )
        })
        .collect();
    let mut ops: Vec<JournalOp<'_>> = extracted
        .retire
        .iter()
        .map(|seq| JournalOp::Retire(*seq))
        .collect();
    for (entry, (summary, data)) in extracted.entries.iter().zip(&texts) {
        let row = NewJournalEntry {
            session_id,
            category: entry.category.as_str(),
            priority: entry.priority,
            summary,
            data,
            dedup: entry.dedup,
        };
        ops.push(if entry.refresh {
            JournalOp::Refresh(row)
        } else {
            JournalOp::Insert(row)
        });
    }
    recorded.retired = extracted.retire.len();
    for result in store.journal_apply(session_id, &ops, JOURNAL_MAX_ROWS_PER_PRIORITY)? {
        match result {
            JournalInsert::Inserted { seq } => recorded.inserted.push(seq),
            JournalInsert::Duplicate { .. } => recorded.duplicates += 1,
        }
    }
    Ok(recorded)
}

/// Pre-compact: journal the event (pending calls settle, a compaction marker), build
/// the state block and store it for the session-start that follows the compaction.
/// Returns the block (empty when the session has journalled nothing).
pub fn pre_compact(store: &mut Store, event: &NormalizedEvent) -> Result<String, StoreError> {
    record(store, event)?;
    let block = super::build_state_block(store, &event.session_id)?;
    if !block.is_empty() {
        store.save_state_block(&event.session_id, &block)?;
    }
    Ok(block)
}
