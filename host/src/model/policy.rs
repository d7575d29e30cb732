//! What a routing policy is asked and answers.

use super::CtxToolNames;

/// Where a permission rule was found; closer scopes win.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleScope {
    ProjectLocal,
    Project,
    User,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleEffect {
    Allow,
    Deny,
    Ask,
}

/// One Claude-style permission rule, e.g. `Bash(sudo *)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRule {
    pub pattern: String,
    pub effect: RuleEffect,
    pub scope: RuleScope,
}

impl From<crate::permissions::Rule> for PermissionRule {
    fn from(rule: crate::permissions::Rule) -> Self {
        use crate::permissions::{Effect, Scope};
        PermissionRule {
            pattern: rule.pattern,
            effect: match rule.effect {
                Effect::Allow => RuleEffect::Allow,
                Effect::Deny => RuleEffect::Deny,
                Effect::Ask => RuleEffect::Ask,
            },
            scope: match rule.scope {
                Scope::ProjectLocal => RuleScope::ProjectLocal,
                Scope::Project => RuleScope::Project,
                Scope::User => RuleScope::User,
            },
        }
    }
}

/// What a pure policy cannot look up itself; the host gathers it per call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyContext {
    /// The adapter id, e.g. `claude-code`.
    pub platform: String,
    /// The names the model sees for our tools on this platform.
    pub ctx_tools: CtxToolNames,
    /// A live `cm serve` is reachable, so redirects to `ctx_*` tools can be followed.
    pub server_live: bool,
    pub rules: Vec<PermissionRule>,
    /// Ids of the once-per-session nudges already shown.
    pub nudges_shown: Vec<String>,
    /// For a read: the file's size, when it exists.
    pub file_size_bytes: Option<u64>,
    pub project_dir: String,
}

/// A replacement of normalized input fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewrite {
    pub command: Option<String>,
    pub prompt: Option<String>,
    /// Set when the call must not run unchanged: where input cannot be rewritten, the
    /// host stops the call with this reason instead.
    pub reason: Option<String>,
}

/// What to do with the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    NoOpinion,
    Allow,
    Redirect(String),
    Deny(String),
    Ask(String),
    Rewrite(Rewrite),
    AddContext(String),
}

/// A policy's answer, with the id of the once-per-session nudge it shows, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub action: Action,
    pub nudge: Option<String>,
}

/// Static facts about a policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyInfo {
    pub id: String,
    pub display_name: String,
    pub version: String,
}
