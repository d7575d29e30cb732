//! Session continuity: what the hooks journal, the state block built before
//! compaction and handed back after it, journal rows matching a new prompt, and
//! `ctx_resume`.
//!
//! Hook wiring (one normalized event per hook call):
//!
//! | event | call |
//! |---|---|
//! | pre-tool-use (call allowed to run, platform has post-tool-use) | [`record`] |
//! | post-tool-use | [`record`] |
//! | user-prompt | [`record`], then [`prompt_context`] |
//! | pre-compact | [`pre_compact`] (record + [`build_state_block`] + save) |
//! | session-start | [`record`], then [`session_start_context`] |
//! | stop | [`record`] |
//!
//! Priorities (P1 survives longest in the state block and under eviction):
//!
//! | P | categories |
//! |---|---|
//! | 1 | last request¹, open tasks, unresolved errors, decisions and corrections, constraints, blockers (until cleared), role directives |
//! | 2 | files edited / written¹, user prompts, plans, git operations that change state, error→fix pairs, retry loops, rejected calls |
//! | 3 | files read, `git add`, environment (cwd, venv, node, worktree, installs), sub-agents, skills and slash commands, rules files, pasted data, intent, cleared blockers |
//! | 4 | read-only git (status, diff, log, show), MCP tools with counts, slow calls, references (URLs, `#123`), pending calls |
//!
//! ¹ The newest prompt, the open tasks, the unresolved errors and the changed files open
//! every state block whatever their stored priority.
//!
//! Everything stored is redacted first ([`redact`]); text is redacted whole and only
//! then cut, so a cut never leaves half a secret.

mod extract;
mod inject;
mod prompt;
mod record;
pub mod redact;
mod shell;
mod state;
mod tasks;
mod text;
mod tool;
mod view;

#[cfg(test)]
mod tests;

pub use extract::{Extracted, NewEntry, Paste, extract};
pub use inject::{
    prompt_context, resume, routing_block, saved_state_context, session_start_context,
    state_injection,
};
pub use record::{Recorded, pre_compact, record};
pub use redact::redact;
pub use state::build_state_block;

/// What a journal row is about. Stored as its [`Category::as_str`] name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    Prompt,
    Decision,
    Constraint,
    Blocker,
    /// A prompt saying a blocker is gone; names the blockers it clears.
    Unblocked,
    Role,
    Intent,
    Task,
    Plan,
    FileRead,
    FileEdit,
    FileWrite,
    Rules,
    Git,
    Error,
    /// A success of a call similar to earlier failures; names the errors it resolves.
    Fix,
    Retry,
    /// A call that got a pre-tool-use but never a post-tool-use.
    Rejected,
    /// A call between its pre-tool-use and its post-tool-use.
    Pending,
    Env,
    Subagent,
    Skill,
    Mcp,
    Slow,
    Reference,
    Paste,
    /// A compaction happened here (the boundary for prompt matches).
    Compaction,
    /// This session took over the state of another one (resume under a new id).
    Continues,
}

impl Category {
    pub const ALL: &'static [Category] = &[
        Category::Prompt,
        Category::Decision,
        Category::Constraint,
        Category::Blocker,
        Category::Unblocked,
        Category::Role,
        Category::Intent,
        Category::Task,
        Category::Plan,
        Category::FileRead,
        Category::FileEdit,
        Category::FileWrite,
        Category::Rules,
        Category::Git,
        Category::Error,
        Category::Fix,
        Category::Retry,
        Category::Rejected,
        Category::Pending,
        Category::Env,
        Category::Subagent,
        Category::Skill,
        Category::Mcp,
        Category::Slow,
        Category::Reference,
        Category::Paste,
        Category::Compaction,
        Category::Continues,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::Prompt => "prompt",
            Category::Decision => "decision",
            Category::Constraint => "constraint",
            Category::Blocker => "blocker",
            Category::Unblocked => "unblocked",
            Category::Role => "role",
            Category::Intent => "intent",
            Category::Task => "task",
            Category::Plan => "plan",
            Category::FileRead => "file-read",
            Category::FileEdit => "file-edit",
            Category::FileWrite => "file-write",
            Category::Rules => "rules",
            Category::Git => "git",
            Category::Error => "error",
            Category::Fix => "error-fix",
            Category::Retry => "retry-loop",
            Category::Rejected => "rejected",
            Category::Pending => "pending-call",
            Category::Env => "env",
            Category::Subagent => "subagent",
            Category::Skill => "skill",
            Category::Mcp => "mcp",
            Category::Slow => "slow-call",
            Category::Reference => "reference",
            Category::Paste => "paste",
            Category::Compaction => "compaction",
            Category::Continues => "continues",
        }
    }

    pub fn parse(name: &str) -> Option<Category> {
        Category::ALL.iter().copied().find(|c| c.as_str() == name)
    }

    /// The priority a row of this category gets unless the extractor says otherwise.
    pub fn default_priority(self) -> u8 {
        match self {
            Category::Decision
            | Category::Constraint
            | Category::Blocker
            | Category::Role
            | Category::Task
            | Category::Error
            | Category::Continues => 1,
            Category::Prompt
            | Category::Plan
            | Category::FileEdit
            | Category::FileWrite
            | Category::Git
            | Category::Fix
            | Category::Retry
            | Category::Rejected => 2,
            Category::Unblocked
            | Category::Intent
            | Category::FileRead
            | Category::Rules
            | Category::Env
            | Category::Subagent
            | Category::Skill
            | Category::Paste => 3,
            Category::Pending
            | Category::Mcp
            | Category::Slow
            | Category::Reference
            | Category::Compaction => 4,
        }
    }

    /// Whether a second identical row is dropped (re-reading a file, repeating a
    /// decision) rather than kept (every prompt, every failure counts).
    pub fn default_dedup(self) -> bool {
        !matches!(
            self,
            Category::Prompt
                | Category::Unblocked
                | Category::Intent
                | Category::Error
                | Category::Fix
                | Category::Retry
                | Category::Pending
                | Category::Subagent
                | Category::Slow
                | Category::Compaction
        )
    }
}
