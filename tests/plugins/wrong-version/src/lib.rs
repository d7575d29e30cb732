//! A policy built against a contract version `cm` does not accept (0.9.0).

wit_bindgen::generate!({ world: "policy-plugin", path: "wit" });

use exports::context_mode::plugin::routing_policy::{
    Action, Decision, Guest, PolicyContext, PolicyInfo, ToolCall,
};

struct FromTheFuture;

impl Guest for FromTheFuture {
    fn describe() -> PolicyInfo {
        PolicyInfo { id: "future".into(), display_name: "Future".into(), version: "9.0.0".into() }
    }

    fn decide(_call: ToolCall, _context: PolicyContext) -> Decision {
        Decision { action: Action::NoOpinion, nudge: None }
    }
}

export!(FromTheFuture);
