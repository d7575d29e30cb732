//! Every golden stdin payload under `tests/golden/kilo/` parses into the event its
//! `hook_event_name` names, with the session and project the black-box tests use.

use context_mode_sdk::golden::check_golden_payloads;

use crate::parse::parse;
use context_mode_sdk::adapter::ParseInput;

#[test]
fn golden_payloads_parse() {
    let cases = check_golden_payloads("kilo", |native, stdin| {
        parse(&ParseInput {
            native_event: native.to_owned(),
            stdin: stdin.to_owned(),
            env: Vec::new(),
            parent_pid: 1,
        })
        .map_err(|e| format!("{e:?}"))
    });
    assert!(cases >= 5, "only {cases} golden payloads for kilo");
}

context_mode_sdk::generated_parse_test!("kilo");
