//! Every golden stdin payload under `tests/golden/pi/` parses into the event its
//! `.event` file names, with the session id the extension put in it.

use context_mode_sdk::golden::check_golden_payloads;

use crate::parse::parse;
use context_mode_sdk::adapter::ParseInput;

#[test]
fn golden_payloads_parse() {
    let cases = check_golden_payloads("pi", |native, stdin| {
        parse(&ParseInput {
            native_event: native.to_owned(),
            stdin: stdin.to_owned(),
            env: Vec::new(),
            parent_pid: 1,
        })
        .map_err(|e| format!("{e:?}"))
    });
    assert!(cases >= 6, "only {cases} golden payloads for pi");
}

context_mode_sdk::generated_parse_test!("pi");
