//! A host's hook events as an adapter declares them, and the lookups every adapter
//! makes on that table: by `cm hook` name when parsing, by reply when rendering.

use serde_json::{Map, Value};

use crate::adapter::{Capabilities, EventBinding, ParseError, ParseInput};
use crate::{EventKind, ToolCall, parse_object, payload_tool_call};

/// One hook event of a host: the `cm hook <id> <cli>` name, the host's own name for
/// it (in its config and its replies), the kind and what the host's reply to it can
/// express.
pub struct HostEvent {
    pub cli: &'static str,
    pub name: &'static str,
    pub kind: EventKind,
    pub capabilities: Capabilities,
}

/// The event a `cm hook <id> <name>` name stands for (case-insensitive, so the
/// host's own spelling such as `PreToolUse` works too).
pub fn event_by_cli_name(events: &'static [HostEvent], name: &str) -> Option<&'static HostEvent> {
    let name = name.trim();
    events
        .iter()
        .find(|event| event.cli.eq_ignore_ascii_case(name))
}

/// The start of every adapter's `parse`: the event the input's `cm hook` name stands
/// for (else `UnknownEvent`) and stdin as a JSON object (else `BadInput`).
pub fn event_and_payload(
    events: &'static [HostEvent],
    input: &ParseInput,
) -> Result<(&'static HostEvent, Map<String, Value>), ParseError> {
    let event = event_by_cli_name(events, &input.native_event)
        .ok_or_else(|| ParseError::UnknownEvent(input.native_event.clone()))?;
    let payload = parse_object(&input.stdin).map_err(ParseError::BadInput)?;
    Ok((event, payload))
}

/// The tool call of a tool event's payload (`tool_name`, `tool_input`); when it has
/// none, `BadInput` naming the host's event.
pub fn event_tool_call(
    payload: &Map<String, Value>,
    event: &HostEvent,
) -> Result<ToolCall, ParseError> {
    payload_tool_call(payload).map_err(|why| ParseError::BadInput(format!("{} {why}", event.name)))
}

/// The event a reply answers: the native one when its kind matches (several native
/// events can share a kind, e.g. Claude Code's PostToolUse and PostToolUseFailure),
/// else the first of the reply's kind, else the first event.
pub fn replied_event(
    events: &'static [HostEvent],
    native_event: &str,
    kind: EventKind,
) -> &'static HostEvent {
    event_by_cli_name(events, native_event)
        .filter(|event| event.kind == kind)
        .or_else(|| events.iter().find(|event| event.kind == kind))
        .unwrap_or(&events[0])
}

/// The descriptor's `events`: each event under its `cm hook` name.
pub fn event_bindings(events: &[HostEvent]) -> Vec<EventBinding> {
    events
        .iter()
        .map(|event| EventBinding {
            native: event.cli.to_owned(),
            kind: event.kind,
            capabilities: event.capabilities,
        })
        .collect()
}

/// Owned copies of static strings (descriptor lists).
pub fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

impl crate::NormalizedEvent {
    /// An event of one session with nothing else known yet; `parse` fills in what the
    /// host's payload gives (project, transcript, tool, outcome, prompt, source, trigger).
    pub fn new(kind: crate::EventKind, native_event: &str, session_id: String) -> Self {
        crate::NormalizedEvent {
            kind,
            native_event: native_event.to_owned(),
            session_id,
            project_dir: None,
            transcript_path: None,
            tool: None,
            outcome: None,
            prompt: None,
            source: None,
            trigger: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVENTS: &[HostEvent] = &[
        HostEvent {
            cli: "pretooluse",
            name: "PreToolUse",
            kind: EventKind::PreToolUse,
            capabilities: Capabilities::BLOCK,
        },
        HostEvent {
            cli: "posttooluse",
            name: "PostToolUse",
            kind: EventKind::PostToolUse,
            capabilities: Capabilities::INJECT_CONTEXT,
        },
        HostEvent {
            cli: "posttoolusefailure",
            name: "PostToolUseFailure",
            kind: EventKind::PostToolUse,
            capabilities: Capabilities::INJECT_CONTEXT,
        },
    ];

    #[test]
    fn lookups_by_cli_name_and_by_reply() {
        assert_eq!(
            event_by_cli_name(EVENTS, " PostToolUse ").map(|e| e.name),
            Some("PostToolUse")
        );
        assert!(event_by_cli_name(EVENTS, "stop").is_none());
        let failure = replied_event(EVENTS, "posttoolusefailure", EventKind::PostToolUse);
        assert_eq!(failure.name, "PostToolUseFailure");
        let mismatched = replied_event(EVENTS, "pretooluse", EventKind::PostToolUse);
        assert_eq!(mismatched.name, "PostToolUse");
        assert_eq!(
            replied_event(EVENTS, "", EventKind::Stop).name,
            "PreToolUse"
        );
        let input = |native: &str, stdin: &str| ParseInput {
            native_event: native.to_owned(),
            stdin: stdin.to_owned(),
            env: Vec::new(),
            parent_pid: 1,
        };
        assert!(matches!(
            event_and_payload(EVENTS, &input("stop", "{}")),
            Err(ParseError::UnknownEvent(name)) if name == "stop"
        ));
        assert!(matches!(
            event_and_payload(EVENTS, &input("pretooluse", "[]")),
            Err(ParseError::BadInput(_))
        ));
        let (event, payload) = event_and_payload(EVENTS, &input("PreToolUse", "{}")).unwrap();
        assert_eq!(event.cli, "pretooluse");
        match event_tool_call(&payload, event) {
            Err(ParseError::BadInput(why)) => assert!(why.starts_with("PreToolUse "), "{why}"),
            other => panic!("{other:?}"),
        }
        let bindings = event_bindings(EVENTS);
        assert_eq!(bindings[2].native, "posttoolusefailure");
        assert_eq!(bindings[2].capabilities, Capabilities::INJECT_CONTEXT);
    }
}
