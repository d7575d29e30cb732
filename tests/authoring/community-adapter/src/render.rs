//! Quill reads `{"verdict": "proceed"}` to go on, `{"verdict": "halt" | "confirm",
//! "note": "…"}` to stop or ask; it has no "no opinion", so that is `proceed` too.

use serde_json::json;

use crate::context_mode::plugin::types::EventKind;
use crate::exports::context_mode::plugin::adapter::{Rendered, Reply, Verdict};

pub fn render(reply: &Reply) -> Rendered {
    let note = reply.reason.as_deref().unwrap_or("stopped by context-mode");
    let stdout = match (reply.event, reply.verdict) {
        (EventKind::PreToolUse, Verdict::Redirect | Verdict::Deny) => {
            json!({ "verdict": "halt", "note": note })
        }
        (EventKind::PreToolUse, Verdict::Ask) => json!({ "verdict": "confirm", "note": note }),
        _ => json!({ "verdict": "proceed" }),
    };
    Rendered {
        stdout: stdout.to_string(),
        stderr: String::new(),
        exit_code: 0,
    }
}
