//! A policy that redirects by rewriting: a shell command containing `make-noisy` is
//! rewritten to keep only its tail, with a reason (it must not run unchanged); one
//! containing `make-quiet` gets the same rewrite without a reason (it may run as is).
//! Proves, end to end, how each host's pre-tool-use carries a rewrite it can or
//! cannot apply.

wit_bindgen::generate!({ world: "policy-plugin", path: "../../../wit/plugin@0.3.0" });

use context_mode::plugin::types::ToolKind;
use exports::context_mode::plugin::routing_policy::{
    Action, Decision, Guest, PolicyContext, PolicyInfo, Rewrite, ToolCall,
};

struct RewriteWithReason;

/// The rewrite both markers get: only the last lines of the output come back.
fn tail_of(command: &str) -> String {
    format!("{} | tail -30", command.trim())
}

impl Guest for RewriteWithReason {
    fn describe() -> PolicyInfo {
        PolicyInfo {
            id: "rewrite-with-reason".into(),
            display_name: "Rewrite noisy builds".into(),
            version: "0.1.0".into(),
        }
    }

    fn decide(call: ToolCall, _context: PolicyContext) -> Decision {
        let command = match (call.kind, call.command) {
            (ToolKind::Shell, Some(command)) => command,
            _ => String::new(),
        };
        let action = if command.contains("make-noisy") {
            let rewritten = tail_of(&command);
            Action::Rewrite(Rewrite {
                reason: Some(format!(
                    "redirected to `{rewritten}`: the full build log would flood the context (test)"
                )),
                command: Some(rewritten),
                prompt: None,
            })
        } else if command.contains("make-quiet") {
            Action::Rewrite(Rewrite {
                command: Some(tail_of(&command)),
                prompt: None,
                reason: None,
            })
        } else {
            Action::NoOpinion
        };
        Decision {
            action,
            nudge: None,
        }
    }
}

export!(RewriteWithReason);
