//! The state block: at most [`STATE_BUDGET_BYTES`] of the session's journal, built at
//! pre-compact and handed back after the compaction.
//!
//! Layout: a header; then what every block carries when it exists — the last request,
//! the open tasks, the unresolved errors (never resolved ones) and the changed files;
//! then one line per remaining row, P1 first and newest first within a priority, as
//! many as fit. The same rows always give the same bytes (nothing depends on the
//! clock). A line longer than [`STATE_LINE_MAX_BYTES`] is cut and ends with a
//! `ctx_resume(seq)` pointer to its row.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashSet};

use super::Category;
use super::text::{body, cut, fields, one_line};
use super::view::JournalView;
use crate::limits::{STATE_BUDGET_BYTES, STATE_LINE_MAX_BYTES};
use crate::store::{JournalEntry, Store, StoreError};

pub const HEADER: &str =
    "## Session state (from the journal; ctx_resume(seq) returns one row in full)";
/// The last request's share of the budget.
const LAST_REQUEST_MAX_BYTES: usize = STATE_BUDGET_BYTES / 6;
/// The open tasks' share of the budget.
const TASKS_MAX_BYTES: usize = STATE_BUDGET_BYTES / 6;
/// The changed files' share of the budget.
const FILES_MAX_BYTES: usize = STATE_BUDGET_BYTES / 6;
/// Unresolved errors shown (each the newest of a group of similar calls).
const ERROR_GROUPS_SHOWN: usize = 2;
const ERROR_LINE_MAX_BYTES: usize = STATE_BUDGET_BYTES / 10;

/// The state block of a session; empty when it journalled nothing worth carrying.
pub fn build_state_block(store: &Store, session_id: &str) -> Result<String, StoreError> {
    let rows = store.journal_list(session_id, 0, usize::MAX)?;
    Ok(render(&rows))
}

/// `text` on one line, at most `max` bytes; a longer one is cut and points at its row.
pub fn line_with_pointer(text: &str, seq: i64, max: usize) -> String {
    let text = one_line(text);
    if text.len() <= max {
        return text;
    }
    let pointer = format!(" … ctx_resume({seq})");
    let mut out = cut(&text, max.saturating_sub(pointer.len()))
        .trim_end()
        .to_string();
    out.push_str(&pointer);
    out
}

/// A list joined with `sep` within `max` bytes, ending with "+N more" when it is cut.
fn bounded_list(
    prefix: &str,
    items: &[String],
    sep: &str,
    max: usize,
    more: impl Fn(usize) -> String,
) -> String {
    let mut out = prefix.to_string();
    for (i, item) in items.iter().enumerate() {
        let separator = if i == 0 { "" } else { sep };
        let rest = items.len() - i - 1;
        let tail = if rest > 0 {
            more(rest).len() + sep.len()
        } else {
            0
        };
        if out.len() + separator.len() + item.len() + tail > max {
            let left = items.len() - i;
            if i > 0 {
                out.push_str(sep);
            }
            out.push_str(&more(left));
            return cut(&out, max).to_string();
        }
        out.push_str(separator);
        out.push_str(item);
    }
    out
}

/// The block for `rows` (one session, seq order).
pub fn render(rows: &[JournalEntry]) -> String {
    let view = JournalView::new(rows);
    let mut head: Vec<String> = Vec::new();

    let last_prompt = view.latest(Category::Prompt);
    if let Some(prompt) = last_prompt {
        let text = body(&prompt.data);
        let text = if text.trim().is_empty() {
            prompt.summary.as_str()
        } else {
            text
        };
        head.push(line_with_pointer(
            &format!("Last request (#{}): {text}", prompt.seq),
            prompt.seq,
            LAST_REQUEST_MAX_BYTES,
        ));
    }

    let tasks = view.open_tasks();
    if let (false, Some(seq)) = (tasks.tasks.is_empty(), tasks.latest_seq) {
        let items: Vec<String> = tasks
            .tasks
            .iter()
            .map(|t| format!("{} {}", t.status.mark(), one_line(&t.text)))
            .collect();
        head.push(bounded_list(
            "Open tasks: ",
            &items,
            "; ",
            TASKS_MAX_BYTES,
            |n| format!("+{n} more (ctx_resume({seq}))"),
        ));
    }

    let mut groups: Vec<(String, &JournalEntry, usize)> = Vec::new();
    for error in view.unresolved_errors().into_iter().rev() {
        let f = fields(&error.data);
        let key = match (f.get("like"), f.get("args")) {
            (Some(like), args) => format!("{like}\u{0}{}", args.unwrap_or(&"")),
            (None, _) => error.summary.clone(),
        };
        match groups.iter_mut().find(|(k, _, _)| *k == key) {
            Some(group) => group.2 += 1,
            None => groups.push((key, error, 1)),
        }
    }
    for (_, error, count) in groups.iter().take(ERROR_GROUPS_SHOWN) {
        let times = if *count > 1 {
            format!(", {count}×")
        } else {
            String::new()
        };
        head.push(line_with_pointer(
            &format!(
                "Unresolved error (#{}{times}): {}",
                error.seq, error.summary
            ),
            error.seq,
            ERROR_LINE_MAX_BYTES,
        ));
    }
    if groups.len() > ERROR_GROUPS_SHOWN {
        head.push(format!(
            "+{} more unresolved errors",
            groups.len() - ERROR_GROUPS_SHOWN
        ));
    }

    let changed = newest_paths(&view, &[Category::FileEdit, Category::FileWrite]);
    if !changed.is_empty() {
        head.push(bounded_list(
            "Files changed: ",
            &changed,
            ", ",
            FILES_MAX_BYTES,
            |n| format!("+{n} more"),
        ));
    }

    let mut candidates = fill_candidates(&view, last_prompt.map(|p| p.seq));
    if head.is_empty() && candidates.is_empty() {
        return String::new();
    }
    candidates.sort_by_key(|(priority, seq, _)| (*priority, Reverse(*seq)));

    let mut out = String::from(HEADER);
    for line in head {
        if out.len() + 1 + line.len() <= STATE_BUDGET_BYTES {
            out.push('\n');
            out.push_str(&line);
        }
    }
    for (_, _, line) in candidates {
        if out.len() + 1 + line.len() <= STATE_BUDGET_BYTES {
            out.push('\n');
            out.push_str(&line);
        }
    }
    out
}

/// Distinct paths of file rows, newest first (`edited src/a.rs` → `src/a.rs`).
fn newest_paths(view: &JournalView<'_>, categories: &[Category]) -> Vec<String> {
    let names: Vec<&str> = categories.iter().map(|c| c.as_str()).collect();
    let mut seen = HashSet::new();
    view.rows()
        .iter()
        .rev()
        .filter(|r| names.contains(&r.category.as_str()))
        .filter_map(|r| r.summary.split_once(' ').map(|(_, path)| path.to_string()))
        .filter(|path| seen.insert(path.clone()))
        .collect()
}

/// One line per row that is neither in the head nor superseded, with its priority
/// and seq for ordering; aggregates (files read, MCP tools) take their newest row's.
fn fill_candidates(view: &JournalView<'_>, last_prompt: Option<i64>) -> Vec<(u8, i64, String)> {
    let mut lines = Vec::new();
    let open_blockers: HashSet<i64> = view.open_blockers().iter().map(|r| r.seq).collect();
    let mut newest_slot: BTreeMap<(String, String), i64> = BTreeMap::new();
    for row in view.rows() {
        if let Some(slot) = fields(&row.data).get("slot") {
            newest_slot.insert((row.category.clone(), (*slot).to_string()), row.seq);
        }
    }
    for row in view.rows() {
        let Some(category) = Category::parse(&row.category) else {
            continue;
        };
        let f = fields(&row.data);
        if let Some(slot) = f.get("slot")
            && newest_slot.get(&(row.category.clone(), (*slot).to_string())) != Some(&row.seq)
        {
            continue;
        }
        let label = match category {
            Category::Prompt if Some(row.seq) == last_prompt => continue,
            Category::Prompt => "earlier request: ",
            Category::Decision => "decision: ",
            Category::Constraint => "constraint: ",
            Category::Role => "role: ",
            Category::Blocker if open_blockers.contains(&row.seq) => "blocker: ",
            Category::Retry => {
                let first = f.get("first").and_then(|s| s.parse::<i64>().ok());
                if first.is_none_or(|seq| view.is_resolved(seq)) {
                    continue;
                }
                ""
            }
            Category::Plan
            | Category::Git
            | Category::Fix
            | Category::Rejected
            | Category::Env
            | Category::Subagent
            | Category::Skill
            | Category::Rules
            | Category::Slow
            | Category::Reference
            | Category::Paste
            | Category::Intent => "",
            Category::Blocker
            | Category::Unblocked
            | Category::Task
            | Category::FileRead
            | Category::FileEdit
            | Category::FileWrite
            | Category::Error
            | Category::Pending
            | Category::Mcp
            | Category::Compaction
            | Category::Continues => continue,
        };
        let text = format!("- #{} {label}{}", row.seq, row.summary);
        lines.push((
            row.priority,
            row.seq,
            line_with_pointer(&text, row.seq, STATE_LINE_MAX_BYTES),
        ));
    }
    let read = newest_paths(view, &[Category::FileRead]);
    if let Some(newest) = view.latest(Category::FileRead) {
        lines.push((
            newest.priority,
            newest.seq,
            bounded_list("- Files read: ", &read, ", ", STATE_LINE_MAX_BYTES, |n| {
                format!("+{n} more")
            }),
        ));
    }
    let mcp: Vec<&JournalEntry> = view.category(Category::Mcp).rev().collect();
    if let Some(newest) = mcp.first() {
        let tools: Vec<String> = mcp
            .iter()
            .map(|r| r.summary.trim_start_matches("mcp ").to_string())
            .collect();
        lines.push((
            newest.priority,
            newest.seq,
            bounded_list("- MCP tools: ", &tools, ", ", STATE_LINE_MAX_BYTES, |n| {
                format!("+{n} more")
            }),
        ));
    }
    lines
}
