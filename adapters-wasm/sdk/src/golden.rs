//! A check every adapter runs in its unit tests: each golden stdin payload under
//! `tests/golden/<platform>/` parses into the event its `<case>.event` file names (else
//! its `hook_event_name`), with the session and project the black-box tests use.
//! Native only: it reads files.

use crate::json::get_str;
use crate::{EventKind, NormalizedEvent, parse_object};

/// The project directory the golden payloads name (`__PROJECT__` is replaced by it).
pub const GOLDEN_PROJECT: &str = "/tmp/golden-project";

/// `tests/golden/<platform>/` of the repository.
pub fn golden_dir(platform: &str) -> String {
    format!(
        "{}/../../tests/golden/{platform}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Parses every `*.stdin.json` of `tests/golden/<platform>/` with `parse(native event,
/// stdin)` and checks the event's session, project, tool and outcome; panics with the
/// payload's file name on the first mismatch. Returns how many payloads it checked.
pub fn check_golden_payloads(
    platform: &str,
    parse: impl Fn(&str, &str) -> Result<NormalizedEvent, String>,
) -> usize {
    check(platform, SessionIds::FromPayload, parse)
}

/// [`check_golden_payloads`] for a host whose payloads carry no session id (Kiro): the
/// session is the `pid-<parent>` fallback.
pub fn check_golden_payloads_without_session(
    platform: &str,
    parse: impl Fn(&str, &str) -> Result<NormalizedEvent, String>,
) -> usize {
    check(platform, SessionIds::ParentPid, parse)
}

#[derive(PartialEq)]
enum SessionIds {
    FromPayload,
    ParentPid,
}

/// The `cm hook` event of a golden case: its `<case>.event` file when there is one (hosts
/// that name the event only on the command line), else the payload's `hook_event_name`.
pub fn golden_event(
    stdin_path: &std::path::Path,
    payload: &serde_json::Map<String, serde_json::Value>,
) -> Option<String> {
    let name = stdin_path.file_name()?.to_str()?;
    let case = name.strip_suffix(".stdin.json")?;
    let sidecar = stdin_path.with_file_name(format!("{case}.event"));
    match std::fs::read_to_string(sidecar) {
        Ok(event) => Some(event.trim().to_owned()),
        Err(_) => get_str(payload, "hook_event_name").map(str::to_ascii_lowercase),
    }
}

fn check(
    platform: &str,
    sessions: SessionIds,
    parse: impl Fn(&str, &str) -> Result<NormalizedEvent, String>,
) -> usize {
    let dir = golden_dir(platform);
    let mut cases = 0;
    for entry in std::fs::read_dir(&dir).expect("golden dir") {
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
            .replace("__PROJECT__", GOLDEN_PROJECT);
        let payload = parse_object(&stdin).expect("golden stdin is a JSON object");
        let native = golden_event(&path, &payload)
            .unwrap_or_else(|| panic!("{name}: no {name}.event file and no hook_event_name"));
        let event = parse(&native, &stdin).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            event.session_id.starts_with("pid-"),
            sessions == SessionIds::ParentPid,
            "{name}: session {}",
            event.session_id
        );
        assert_eq!(event.project_dir.as_deref(), Some(GOLDEN_PROJECT), "{name}");
        let tool_event = matches!(event.kind, EventKind::PreToolUse | EventKind::PostToolUse);
        assert_eq!(event.tool.is_some(), tool_event, "{name}");
        assert_eq!(
            event.outcome.is_some(),
            event.kind == EventKind::PostToolUse,
            "{name}"
        );
    }
    cases
}
