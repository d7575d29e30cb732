//! Plain-Rust mirrors of the `routing-policy` WIT types, so every rule runs
//! and is tested natively; `component.rs` converts at the boundary.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    Shell,
    Read,
    Grep,
    Edit,
    WebFetch,
    WebSearch,
    Agent,
    Mcp,
    Ctx,
    Other,
}

/// One tool call, normalized by the adapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    pub name: String,
    pub kind: ToolKind,
    pub input_json: String,
    pub command: Option<String>,
    pub path: Option<String>,
    pub has_range: bool,
    pub url: Option<String>,
    pub prompt: Option<String>,
    pub pattern: Option<String>,
    pub mcp_server: Option<String>,
    pub mcp_tool: Option<String>,
}

impl ToolCall {
    /// A call with only a name and a kind; tests fill in the rest.
    pub fn new(name: &str, kind: ToolKind) -> ToolCall {
        ToolCall {
            name: name.to_string(),
            kind,
            input_json: "{}".to_string(),
            command: None,
            path: None,
            has_range: false,
            url: None,
            prompt: None,
            pattern: None,
            mcp_server: None,
            mcp_tool: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RuleScope {
    ProjectLocal,
    Project,
    User,
}

impl RuleScope {
    /// Closest first: the order in which scopes are consulted.
    pub const CLOSEST_FIRST: [RuleScope; 3] =
        [RuleScope::ProjectLocal, RuleScope::Project, RuleScope::User];

    /// The settings file the scope's rules come from, as a user would name it.
    pub fn settings_file(self) -> &'static str {
        match self {
            RuleScope::ProjectLocal => ".claude/settings.local.json",
            RuleScope::Project => ".claude/settings.json",
            RuleScope::User => "~/.claude/settings.json",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleEffect {
    Allow,
    Deny,
    Ask,
}

impl RuleEffect {
    /// The settings key a rule of this effect lives under.
    pub fn settings_key(self) -> &'static str {
        match self {
            RuleEffect::Allow => "permissions.allow",
            RuleEffect::Deny => "permissions.deny",
            RuleEffect::Ask => "permissions.ask",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRule {
    pub pattern: String,
    pub effect: RuleEffect,
    pub scope: RuleScope,
}

impl PermissionRule {
    pub fn new(pattern: &str, effect: RuleEffect, scope: RuleScope) -> PermissionRule {
        PermissionRule {
            pattern: pattern.to_string(),
            effect,
            scope,
        }
    }
}

/// What the host gathered for this call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyContext {
    pub platform: String,
    pub ctx_tool_prefix: String,
    pub server_live: bool,
    pub rules: Vec<PermissionRule>,
    pub nudges_shown: Vec<String>,
    pub file_size_bytes: Option<u64>,
    pub project_dir: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    NoOpinion,
    Allow,
    Redirect(String),
    Deny(String),
    Ask(String),
    Rewrite {
        command: Option<String>,
        prompt: Option<String>,
        /// Why the call must not run unchanged; `None` when it may (see the WIT `rewrite`).
        reason: Option<String>,
    },
    AddContext(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub action: Action,
    pub nudge: Option<String>,
}

impl Decision {
    pub fn of(action: Action) -> Decision {
        Decision {
            action,
            nudge: None,
        }
    }

    pub fn no_opinion() -> Decision {
        Decision::of(Action::NoOpinion)
    }
}
