//! What every routing policy needs on the contract's policy types: constructors, the
//! order rule scopes are consulted in, and the settings file and key a rule names.

use crate::policy::{Action, Decision, PermissionRule, RuleEffect, RuleScope};

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
