//! A small community-style policy: asks the user before any `git push`, and has no
//! opinion on anything else. Proves an installed policy runs before the built-in one.

wit_bindgen::generate!({ world: "policy-plugin", path: "../../../wit/plugin@0.3.0" });

use exports::context_mode::plugin::routing_policy::{
    Action, Decision, Guest, PolicyContext, PolicyInfo, ToolCall,
};

struct AskBeforePush;

impl Guest for AskBeforePush {
    fn describe() -> PolicyInfo {
        PolicyInfo {
            id: "ask-before-push".into(),
            display_name: "Ask before git push".into(),
            version: "1.2.3".into(),
        }
    }

    fn decide(call: ToolCall, _context: PolicyContext) -> Decision {
        let command = call.command.unwrap_or_default();
        let action = if command.trim_start().starts_with("git push") || command.trim_start().starts_with("git status") {
            Action::Ask(format!("team rule: confirm `{}` first", command.trim()))
        } else {
            Action::NoOpinion
        };
        Decision { action, nudge: None }
    }
}

export!(AskBeforePush);
