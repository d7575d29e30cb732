//! A policy whose world imports an interface cm does not provide (a vendor's
//! telemetry): it must install and decide, and fail only the calls that use it.
//! Denies `rm -rf /srv`; records an event (calls the import) for `telemetry …`.

wit_bindgen::generate!({
    world: "vendor-policy",
    path: "wit",
    generate_all,
});

use acme::vendor::telemetry;
use exports::context_mode::plugin::routing_policy::{
    Action, Decision, Guest, PolicyContext, PolicyInfo, ToolCall,
};

struct VendorPolicy;

impl Guest for VendorPolicy {
    fn describe() -> PolicyInfo {
        PolicyInfo {
            id: "vendor-import".into(),
            display_name: "A policy with a vendor import".into(),
            version: "1.0.0".into(),
        }
    }

    fn decide(call: ToolCall, _context: PolicyContext) -> Decision {
        let command = call.command.unwrap_or_default();
        let command = command.trim();
        let action = if command.starts_with("telemetry") {
            telemetry::emit(command);
            Action::Allow
        } else if command.starts_with("rm -rf /srv") {
            Action::Deny("vendor rule: /srv is not yours to delete".into())
        } else {
            Action::NoOpinion
        };
        Decision {
            action,
            nudge: None,
        }
    }
}

export!(VendorPolicy);
