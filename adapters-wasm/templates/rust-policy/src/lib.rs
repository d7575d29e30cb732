//! `{{id}}`: a context-mode routing policy. context-mode asks it about every tool call
//! an agent is about to make (a shell command, a file read, a fetch…), after the
//! built-in policy has applied the user's permission rules, and takes its first answer
//! other than "no opinion".
//!
//! A policy is a pure function: it gets the call and a context, and returns a decision.
//! It runs sandboxed: no files, no environment, no network, no clock (docs/PLUGINS.md).

// The contract: wit/plugin.wit, world `policy-plugin`.
wit_bindgen::generate!({ world: "policy-plugin", path: "wit" });

use exports::context_mode::plugin::routing_policy::{
    Action, Decision, Guest, PolicyContext, PolicyInfo, ToolCall,
};

struct Plugin;

impl Guest for Plugin {
    fn describe() -> PolicyInfo {
        PolicyInfo {
            // `cm plugin add` installs under this id; adding it again replaces it.
            id: "{{id}}".into(),
            display_name: "{{id}}".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }

    fn decide(call: ToolCall, _context: PolicyContext) -> Decision {
        // `command` is set for shell calls only, whatever the host calls its shell tool.
        let action = match call.command.as_deref() {
            Some(command) if is_force_push(command) => Action::Ask(format!(
                "{{id}}: `{}` rewrites the remote's history; confirm it",
                command.trim()
            )),
            // Everything else: let the other policies and the built-in one decide.
            _ => Action::NoOpinion,
        };
        Decision {
            action,
            // Set only when the action is a once-per-session hint (see the contract).
            nudge: None,
        }
    }
}

/// The example rule: `git push` with `--force`, `-f` or `--force-with-lease`.
fn is_force_push(command: &str) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    words.windows(2).any(|pair| pair == ["git", "push"])
        && words.iter().any(|w| *w == "-f" || w.starts_with("--force"))
}

export!(Plugin);
