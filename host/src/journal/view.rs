//! Reading journal rows back as state: which errors are still unresolved, which
//! blockers still open, which calls still pending, which tasks still open. Shared by
//! extraction (relating a new event to recent rows) and the state block (all rows).

use std::collections::{BTreeMap, HashSet};

use super::Category;
use super::text::{body, fields, parse_seqs};
use crate::store::JournalEntry;

/// Rows of one session, in seq order.
pub struct JournalView<'a> {
    rows: &'a [JournalEntry],
}

/// Task status as rows store it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskStatus {
    Pending,
    InProgress,
    Done,
}

impl TaskStatus {
    pub fn parse(text: &str) -> TaskStatus {
        match text
            .trim()
            .to_ascii_lowercase()
            .replace(['-', ' '], "_")
            .as_str()
        {
            "completed" | "complete" | "done" | "deleted" | "cancelled" | "canceled" | "true" => {
                TaskStatus::Done
            }
            "in_progress" | "active" | "doing" | "started" | "running" => TaskStatus::InProgress,
            _ => TaskStatus::Pending,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Pending => "pending",
            TaskStatus::InProgress => "in_progress",
            TaskStatus::Done => "completed",
        }
    }

    /// The checkbox a task line starts with.
    pub fn mark(self) -> &'static str {
        match self {
            TaskStatus::Pending => "[ ]",
            TaskStatus::InProgress => "[~]",
            TaskStatus::Done => "[x]",
        }
    }

    pub fn from_mark(mark: &str) -> Option<TaskStatus> {
        match mark {
            "[ ]" => Some(TaskStatus::Pending),
            "[~]" => Some(TaskStatus::InProgress),
            "[x]" => Some(TaskStatus::Done),
            _ => None,
        }
    }
}

/// One open task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenTask {
    pub status: TaskStatus,
    pub text: String,
}

/// The open tasks and the newest task row they come from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpenTasks {
    pub tasks: Vec<OpenTask>,
    pub latest_seq: Option<i64>,
}

impl<'a> JournalView<'a> {
    pub fn new(rows: &'a [JournalEntry]) -> Self {
        JournalView { rows }
    }

    pub fn rows(&self) -> &'a [JournalEntry] {
        self.rows
    }

    pub fn category(
        &self,
        category: Category,
    ) -> impl DoubleEndedIterator<Item = &'a JournalEntry> {
        let name = category.as_str();
        self.rows.iter().filter(move |r| r.category == name)
    }

    pub fn latest(&self, category: Category) -> Option<&'a JournalEntry> {
        self.category(category).next_back()
    }

    /// The newest row of `category` whose `slot` field is `slot`.
    pub fn latest_slot(&self, category: Category, slot: &str) -> Option<&'a JournalEntry> {
        self.category(category)
            .rev()
            .find(|r| fields(&r.data).get("slot") == Some(&slot))
    }

    /// Seqs named in the `field` of every row of `category`.
    fn named_by(&self, category: Category, field: &str) -> HashSet<i64> {
        self.category(category)
            .filter_map(|r| fields(&r.data).get(field).map(|v| parse_seqs(v)))
            .flatten()
            .collect()
    }

    /// Error rows no later success resolved, oldest first.
    pub fn unresolved_errors(&self) -> Vec<&'a JournalEntry> {
        let resolved = self.named_by(Category::Fix, "fixes");
        self.category(Category::Error)
            .filter(|r| !resolved.contains(&r.seq))
            .collect()
    }

    /// Unresolved errors of calls similar to `like`, oldest first.
    pub fn unresolved_errors_like(&self, like: &str) -> Vec<&'a JournalEntry> {
        self.unresolved_errors()
            .into_iter()
            .filter(|r| fields(&r.data).get("like") == Some(&like))
            .collect()
    }

    /// Whether an error row is resolved.
    pub fn is_resolved(&self, error_seq: i64) -> bool {
        self.named_by(Category::Fix, "fixes").contains(&error_seq)
    }

    /// Blockers no later prompt cleared, oldest first.
    pub fn open_blockers(&self) -> Vec<&'a JournalEntry> {
        let cleared = self.named_by(Category::Unblocked, "resolves");
        self.category(Category::Blocker)
            .filter(|r| !cleared.contains(&r.seq))
            .collect()
    }

    /// Calls still waiting for their post-tool-use, oldest first.
    pub fn pending(&self) -> Vec<&'a JournalEntry> {
        self.category(Category::Pending).collect()
    }

    /// The open tasks: the newest whole list (TodoWrite-style) plus tasks created and
    /// updated one at a time (TaskCreate/TaskUpdate-style), in the order they appeared.
    pub fn open_tasks(&self) -> OpenTasks {
        let mut list: Vec<OpenTask> = Vec::new();
        let mut items: BTreeMap<String, (usize, OpenTask)> = BTreeMap::new();
        let mut latest_seq = None;
        for row in self.category(Category::Task) {
            latest_seq = Some(row.seq);
            let f = fields(&row.data);
            if f.get("slot") == Some(&"list") {
                list = body(&row.data)
                    .lines()
                    .filter_map(|line| {
                        let status = TaskStatus::from_mark(line.get(..3)?)?;
                        Some(OpenTask {
                            status,
                            text: line[3..].trim().to_string(),
                        })
                    })
                    .collect();
            } else if let Some(id) = f.get("task") {
                let status = f
                    .get("status")
                    .map_or(TaskStatus::Pending, |s| TaskStatus::parse(s));
                let text = body(&row.data).trim().to_string();
                let order = items.len();
                let entry = items.entry((*id).to_string()).or_insert((
                    order,
                    OpenTask {
                        status,
                        text: format!("#{id}"),
                    },
                ));
                entry.1.status = status;
                if !text.is_empty() {
                    entry.1.text = format!("#{id} {text}");
                }
            }
        }
        let mut singles: Vec<(usize, OpenTask)> = items.into_values().collect();
        singles.sort_by_key(|(order, _)| *order);
        let tasks = list
            .into_iter()
            .chain(singles.into_iter().map(|(_, t)| t))
            .filter(|t| t.status != TaskStatus::Done)
            .collect();
        OpenTasks { tasks, latest_seq }
    }
}
