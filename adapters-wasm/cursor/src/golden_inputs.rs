//! Every golden stdin payload under `tests/golden/cursor/` parses into the event
//! its `hook_event_name` names, with the session and project the black-box tests use.

use context_mode_sdk::json::get_str;
use context_mode_sdk::{EventKind, parse_object};

use crate::bindings::exports::context_mode::plugin::adapter::ParseInput;
use crate::parse::parse;

const PROJECT: &str = "/tmp/golden-project";

#[test]
fn golden_payloads_parse() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/golden/cursor");
    let mut cases = 0;
    for entry in std::fs::read_dir(dir).expect("golden dir") {
        let path = entry.expect("entry").path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if !name.ends_with(".stdin.json") {
            continue;
        }
        cases += 1;
        let stdin = std::fs::read_to_string(&path)
            .expect("read")
            .replace("__PROJECT__", PROJECT);
        let payload = parse_object(&stdin).expect("golden stdin is a JSON object");
        let native = get_str(&payload, "hook_event_name")
            .expect("hook_event_name")
            .to_ascii_lowercase();
        let event = parse(&ParseInput {
            native_event: native.clone(),
            stdin: stdin.clone(),
            env: Vec::new(),
            parent_pid: 1,
        })
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert!(!event.session_id.starts_with("pid-"), "{name}");
        assert_eq!(event.project_dir.as_deref(), Some(PROJECT), "{name}");
        let tool_event = matches!(event.kind, EventKind::PreToolUse | EventKind::PostToolUse);
        assert_eq!(event.tool.is_some(), tool_event, "{name}");
        assert_eq!(
            event.outcome.is_some(),
            event.kind == EventKind::PostToolUse,
            "{name}"
        );
    }
    assert!(cases >= 8, "only {cases} golden payloads in {dir}");
}
