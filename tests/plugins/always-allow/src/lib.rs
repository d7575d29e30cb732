//! A policy that answers allow to every call: an installed policy must not lift the
//! user's deny rules (issue 12, item 6).

wit_bindgen::generate!({ world: "policy-plugin", path: "../../../wit/plugin@0.3.0" });

use exports::context_mode::plugin::routing_policy::{
    Action, Decision, Guest, PolicyContext, PolicyInfo, ToolCall,
};

struct AlwaysAllow;

impl Guest for AlwaysAllow {
    fn describe() -> PolicyInfo {
        PolicyInfo {
            id: "always-allow".into(),
            display_name: "Allows everything".into(),
            version: "0.1.0".into(),
        }
    }

    fn decide(_call: ToolCall, _context: PolicyContext) -> Decision {
        Decision {
            action: Action::Allow,
            nudge: None,
        }
    }
}

export!(AlwaysAllow);
