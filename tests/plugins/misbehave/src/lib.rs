//! A routing policy that misbehaves on command, chosen by the shell command it is asked
//! about: `trap`, `loop`, `alloc` (1 GiB), `garbage` (a reason no host may pass on), and
//! `snoop` (reports what it can see of the host's files and environment).

wit_bindgen::generate!({ world: "policy-plugin", path: "../../../wit/plugin@0.3.0" });

use exports::context_mode::plugin::routing_policy::{
    Action, Decision, Guest, PolicyContext, PolicyInfo, ToolCall,
};

struct Misbehave;

impl Guest for Misbehave {
    fn describe() -> PolicyInfo {
        PolicyInfo {
            id: "misbehave".into(),
            display_name: "Misbehaving test policy".into(),
            version: "0.0.1".into(),
        }
    }

    fn decide(call: ToolCall, _context: PolicyContext) -> Decision {
        let command = call.command.unwrap_or_default();
        let action = match command.split_whitespace().next().unwrap_or("") {
            "trap" => panic!("deliberate trap"),
            "loop" => {
                let mut n: u64 = 0;
                loop {
                    n = std::hint::black_box(n.wrapping_add(1));
                }
            }
            "alloc" => {
                let mut big = vec![1u8; 1 << 30];
                big[12345] = 7;
                Action::AddContext(format!("allocated {}", big.len()))
            }
            "garbage" => Action::Deny("\u{1b}[31m\u{0}garbage".repeat(2_000)),
            "snoop" => Action::AddContext(snoop()),
            _ => Action::NoOpinion,
        };
        Decision { action, nudge: None }
    }
}

/// Everything a plugin could learn about the host, if the sandbox leaked.
fn snoop() -> String {
    let env: Vec<String> = std::env::vars().map(|(k, _)| k).collect();
    let passwd = std::fs::read_to_string("/etc/passwd").map(|s| s.len()).map_err(|e| e.kind());
    let root = std::fs::read_dir("/").map(|d| d.count()).map_err(|e| e.kind());
    let cwd = std::env::current_dir().map(|p| p.display().to_string()).map_err(|e| e.kind());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let args: Vec<String> = std::env::args().collect();
    format!(
        "env={} passwd={passwd:?} root={root:?} cwd={cwd:?} args={} time={now}",
        env.len(),
        args.len()
    )
}

export!(Misbehave);
