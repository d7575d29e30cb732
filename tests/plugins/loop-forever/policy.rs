// Shared by the loop-forever-* crates: a policy that never returns from `decide`, named
// after its crate, so several distinct ones can be installed at once (issue 12, item 16).

wit_bindgen::generate!({ world: "policy-plugin", path: "../../../wit/plugin@0.3.0" });

use exports::context_mode::plugin::routing_policy::{
    Decision, Guest, PolicyContext, PolicyInfo, ToolCall,
};

struct LoopForever;

impl Guest for LoopForever {
    fn describe() -> PolicyInfo {
        PolicyInfo {
            id: env!("CARGO_PKG_NAME").into(),
            display_name: "Loops on every call".into(),
            version: "0.1.0".into(),
        }
    }

    fn decide(_call: ToolCall, _context: PolicyContext) -> Decision {
        let mut n: u64 = 0;
        loop {
            n = std::hint::black_box(n.wrapping_add(1));
        }
    }
}

export!(LoopForever);
