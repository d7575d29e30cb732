//! A policy as large as a real toolchain's output (a 1 MiB table, like the data a
//! JavaScript or Python runtime carries), so a hook meets it over the inline-compile
//! limit: asks before `git push`, no opinion otherwise.

wit_bindgen::generate!({ world: "policy-plugin", path: "../../../wit/plugin@0.3.0" });

use exports::context_mode::plugin::routing_policy::{
    Action, Decision, Guest, PolicyContext, PolicyInfo, ToolCall,
};

const TABLE_BYTES: usize = 1024 * 1024;

/// Non-zero, so it is a data segment in the file rather than zeroed memory.
static TABLE: [u8; TABLE_BYTES] = [0x5a; TABLE_BYTES];

struct LargePolicy;

impl Guest for LargePolicy {
    fn describe() -> PolicyInfo {
        PolicyInfo {
            id: "large-policy".into(),
            display_name: "A large policy".into(),
            version: "1.0.0".into(),
        }
    }

    fn decide(call: ToolCall, _context: PolicyContext) -> Decision {
        let command = call.command.unwrap_or_default();
        // Read through black_box so the table is kept in the binary.
        let byte = std::hint::black_box(&TABLE)[command.len() % TABLE_BYTES];
        let action = if byte == 0x5a && command.trim_start().starts_with("git push") {
            Action::Ask("large policy: confirm the push first".into())
        } else {
            Action::NoOpinion
        };
        Decision {
            action,
            nudge: None,
        }
    }
}

export!(LargePolicy);
