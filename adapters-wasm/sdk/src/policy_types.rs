//! What every routing policy needs on the contract's policy types: constructors, the
//! order rule scopes are consulted in, and the settings file and key a rule names.

use crate::policy::{
    Action, CtxTool, Decision, PermissionRule, PolicyContext, RuleEffect, RuleScope,
};

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

impl PermissionRule {
    pub fn new(pattern: &str, effect: RuleEffect, scope: RuleScope) -> PermissionRule {
        PermissionRule {
            pattern: pattern.to_string(),
            effect,
            scope,
        }
    }
}

impl Decision {
    /// The action, with no nudge.
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

impl CtxTool {
    /// Each of `tools` named `prefix` + its own name (how today's hosts name them; for
    /// tests and for policies that build a context themselves).
    pub fn with_prefix(prefix: &str, tools: &[&str]) -> Vec<CtxTool> {
        tools
            .iter()
            .map(|tool| CtxTool {
                tool: tool.to_string(),
                name: format!("{prefix}{tool}"),
            })
            .collect()
    }
}

impl PolicyContext {
    /// The name the model sees for `tool` on this host; a tool the host did not name
    /// keeps its own.
    pub fn ctx_tool_name<'a>(&'a self, tool: &'a str) -> &'a str {
        self.ctx_tools
            .iter()
            .find(|t| t.tool == tool)
            .map_or(tool, |t| t.name.as_str())
    }

    /// What stands before `ctx_execute` in this host's name for it: reasons that name
    /// several tools build each name as this prefix + the tool's own name.
    pub fn ctx_tool_prefix(&self) -> &str {
        self.ctx_tool_name("ctx_execute")
            .strip_suffix("ctx_execute")
            .unwrap_or_default()
    }
}
