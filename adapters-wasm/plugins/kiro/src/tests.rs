//! Every golden stdin payload under `tests/golden/kiro/` parses into the event its
//! `hook_event_name` names, with the project the black-box tests use; Kiro sends no
//! session id, so the session is the parent-pid fallback.

use context_mode_sdk::golden::check_golden_payloads_without_session;

use crate::parse::parse;
use context_mode_sdk::adapter::ParseInput;

#[test]
fn golden_payloads_parse() {
    let cases = check_golden_payloads_without_session("kiro", |native, stdin| {
        parse(&ParseInput {
            native_event: native.to_owned(),
            stdin: stdin.to_owned(),
            env: Vec::new(),
            parent_pid: 1,
        })
        .map_err(|e| format!("{e:?}"))
    });
    assert!(cases >= 6, "only {cases} golden payloads for kiro");
}

context_mode_sdk::generated_parse_test!("kiro");
