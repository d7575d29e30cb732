//! context-mode's reply → what the host reads from the hook's stdout. This host reads
//!
//! ```json
//! {"decision": "allow" | "block" | "ask", "reason": "…", "context": "…"}
//! ```
//!
//! and `{}` as "no opinion". The exit code stays 0: a failing hook must never stop
//! the agent (context-mode itself fails open the same way).

use serde_json::{Map, Value};

use crate::context_mode::plugin::types::EventKind;
use crate::exports::context_mode::plugin::adapter::{Rendered, Reply, Verdict};

pub fn render(reply: &Reply) -> Rendered {
    let mut out = Map::new();
    if reply.event == EventKind::PreToolUse {
        let decision = match reply.verdict {
            Verdict::NoOpinion => None,
            Verdict::Allow => Some("allow"),
            // A redirect stops the call; its reason tells the model which ctx_* tool to
            // call instead, so it must reach the model.
            Verdict::Redirect | Verdict::Deny => Some("block"),
            Verdict::Ask => Some("ask"),
        };
        if let Some(decision) = decision {
            out.insert("decision".into(), decision.into());
        }
        if decision.is_some_and(|d| d != "allow") {
            let reason = reply.reason.as_deref().unwrap_or("stopped by context-mode");
            out.insert("reason".into(), reason.into());
        }
    }
    // Only set on events whose capabilities include inject-context.
    if let Some(context) = &reply.additional_context {
        out.insert("context".into(), context.as_str().into());
    }
    Rendered {
        stdout: Value::Object(out).to_string(),
        stderr: String::new(),
        exit_code: 0,
    }
}
