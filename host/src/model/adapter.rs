//! What the host knows about an agent host's adapter and exchanges with it: its
//! descriptor, one hook call's input, and the reply to render.

use super::{CtxToolNames, EventKind, ToolCall};

/// What an adapter's host can express on one event (a set of flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Capabilities(u8);

impl Capabilities {
    /// Can stop a tool call.
    pub const BLOCK: Self = Self(1);
    /// Can ask the user to confirm a tool call.
    pub const ASK: Self = Self(1 << 1);
    /// Can replace the tool input before the call runs.
    pub const REWRITE_INPUT: Self = Self(1 << 2);
    /// Can replace the tool output the model sees.
    pub const REWRITE_OUTPUT: Self = Self(1 << 3);
    /// Can add text to the model's context.
    pub const INJECT_CONTEXT: Self = Self(1 << 4);

    pub const fn empty() -> Self {
        Self(0)
    }

    /// Every flag.
    pub const fn all() -> Self {
        Self(0b1_1111)
    }

    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for Capabilities {
    type Output = Self;
    fn bitor(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
}

impl std::ops::BitOrAssign for Capabilities {
    fn bitor_assign(&mut self, other: Self) {
        self.0 |= other.0;
    }
}

/// One native event the adapter handles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventBinding {
    /// `cm hook <platform> <native>`; matched case-insensitively.
    pub native: String,
    pub kind: EventKind,
    pub capabilities: Capabilities,
}

/// Static facts about an adapter, plus how its host names our MCP tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Descriptor {
    /// Stable id, also the `<platform>` of `cm hook <platform> <event>`.
    pub id: String,
    pub display_name: String,
    pub version: String,
    /// MCP `clientInfo.name` values this host sends, matched case-insensitively (a
    /// trailing `*` matches by prefix).
    pub client_names: Vec<String>,
    pub env_markers: Vec<String>,
    pub file_markers: Vec<String>,
    pub events: Vec<EventBinding>,
    /// The only environment variables `parse` gets and setup paths may name.
    pub env_vars: Vec<String>,
    /// The names the model sees for our tools, served as [`super::MCP_SERVER_NAME`].
    pub ctx_tools: CtxToolNames,
}

/// One hook call for `parse`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseInput {
    pub native_event: String,
    pub stdin: String,
    /// The set values of the variables the descriptor names.
    pub env: Vec<(String, String)>,
    pub parent_pid: u32,
}

/// Why `parse` failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    UnknownEvent(String),
    BadInput(String),
}

/// The host-independent verdict on a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    NoOpinion,
    Allow,
    /// Stop the call and point the model at a `ctx_*` tool.
    Redirect,
    Deny,
    Ask,
}

/// What the hook answers, for the adapter to render in its host's shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub event: EventKind,
    pub native_event: String,
    pub verdict: Verdict,
    pub reason: Option<String>,
    pub tool: Option<ToolCall>,
    pub updated_command: Option<String>,
    pub updated_prompt: Option<String>,
    pub updated_output: Option<String>,
    pub additional_context: Option<String>,
}

/// What the hook process prints and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
}
