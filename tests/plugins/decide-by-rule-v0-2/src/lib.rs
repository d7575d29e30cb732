//! `decide-by-rule` as it was built for contract 0.2.0, kept against the frozen
//! `wit/plugin@0.2.0` snapshot: proves a policy built for an older contract still loads
//! and decides after the contract moved on. Its reason names the ctx-tool prefix the
//! 0.2.0 policy context carries, so a test sees that field converted too.

wit_bindgen::generate!({ world: "policy-plugin", path: "../../../wit/plugin@0.2.0" });

use exports::context_mode::plugin::routing_policy::{
    Action, Decision, Guest, PolicyContext, PolicyInfo, ToolCall,
};

struct AskBeforePush;

impl Guest for AskBeforePush {
    fn describe() -> PolicyInfo {
        PolicyInfo {
            id: "ask-before-push-v0-2".into(),
            display_name: "Ask before git push (contract 0.2.0)".into(),
            version: "1.2.3".into(),
        }
    }

    fn decide(call: ToolCall, context: PolicyContext) -> Decision {
        let command = call.command.unwrap_or_default();
        let action = if command.trim_start().starts_with("git push") || command.trim_start().starts_with("git status") {
            Action::Ask(format!(
                "team rule: confirm `{}` first, or run it in {}ctx_execute",
                command.trim(),
                context.ctx_tool_prefix
            ))
        } else {
            Action::NoOpinion
        };
        Decision { action, nudge: None }
    }
}

export!(AskBeforePush);
