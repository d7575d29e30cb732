//! One normalized event → the journal rows it produces, given the session's recent
//! rows (to relate it to earlier events: error → fix, retry loops, pending calls).
//! Pure: no store access; [`super::record`] applies the result.

use super::Category;
use super::text::{fields, with_fields};
use super::view::JournalView;
use crate::model::{EventKind, NormalizedEvent};
use crate::store::JournalEntry;

/// A row to add. Text is redacted by the extractor before it is cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEntry {
    pub category: Category,
    pub priority: u8,
    pub summary: String,
    pub data: String,
    pub dedup: bool,
    /// Move an identical earlier row to the end instead of dropping this one, so
    /// "edited src/a.rs" counts as recent when it was edited again.
    pub refresh: bool,
}

impl NewEntry {
    pub fn new(category: Category, summary: impl Into<String>) -> NewEntry {
        NewEntry {
            category,
            priority: category.default_priority(),
            summary: summary.into(),
            data: String::new(),
            dedup: category.default_dedup(),
            refresh: false,
        }
    }

    pub fn data(mut self, data: impl Into<String>) -> NewEntry {
        self.data = data.into();
        self
    }

    pub fn priority(mut self, priority: u8) -> NewEntry {
        self.priority = priority;
        self
    }

    pub fn refresh(mut self) -> NewEntry {
        self.dedup = true;
        self.refresh = true;
        self
    }
}

/// Large pasted data: indexed whole under `label`; the journal row points at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paste {
    pub label: String,
    pub text: String,
}

/// What one event changes in the journal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extracted {
    pub entries: Vec<NewEntry>,
    /// Seqs of rows this event supersedes (a pending call that got its result, an MCP
    /// count row replaced by a higher count).
    pub retire: Vec<i64>,
    pub pastes: Vec<Paste>,
}

impl Extracted {
    pub fn push(&mut self, entry: NewEntry) {
        self.entries.push(entry);
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.retire.is_empty() && self.pastes.is_empty()
    }
}

/// The journal rows `event` produces. `recent` is the session's recent rows in seq
/// order (what [`super::record`] loads).
///
/// A pre-tool-use writes a pending-call marker; its post-tool-use retires it. A marker
/// still there at the next prompt, stop, compaction or session start became a
/// "rejected" row: the call got no result, because the user denied it or it was
/// interrupted.
pub fn extract(event: &NormalizedEvent, recent: &[JournalEntry]) -> Extracted {
    let view = JournalView::new(recent);
    let mut out = Extracted::default();
    let project_dir = event.project_dir.as_deref();
    match event.kind {
        EventKind::PreToolUse => {
            if let Some(tool) = &event.tool {
                super::tool::pending(tool, project_dir, &mut out);
            }
        }
        EventKind::PostToolUse => {
            if let Some(tool) = &event.tool {
                super::tool::post(tool, event.outcome.as_ref(), project_dir, &view, &mut out);
            }
        }
        EventKind::UserPrompt => {
            settle_pending(&view, &mut out);
            if let Some(prompt) = &event.prompt {
                super::prompt::entries(prompt, &view, &mut out);
            }
        }
        EventKind::Stop | EventKind::SessionStart => settle_pending(&view, &mut out),
        EventKind::PreCompact => {
            settle_pending(&view, &mut out);
            let trigger = event.trigger.as_deref().unwrap_or("unknown");
            out.push(NewEntry::new(
                Category::Compaction,
                format!("compaction ({trigger})"),
            ));
        }
    }
    out
}

/// Turns every pending call into a rejected one.
fn settle_pending(view: &JournalView<'_>, out: &mut Extracted) {
    for pending in view.pending() {
        let call = pending
            .summary
            .strip_prefix(super::tool::PENDING_PREFIX)
            .unwrap_or(&pending.summary);
        let like = fields(&pending.data)
            .get("like")
            .copied()
            .unwrap_or_default()
            .to_string();
        out.retire.push(pending.seq);
        out.push(
            NewEntry::new(
                Category::Rejected,
                format!("no result (denied by the user or interrupted): {call}"),
            )
            .data(with_fields(&[("like", like)], call)),
        );
    }
}
