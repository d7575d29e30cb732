//! Building normalized events the way an adapter would, for the session tests.

use serde_json::{Value, json};

use crate::model::{EventKind, NormalizedEvent, SessionSource, ToolCall, ToolKind, ToolResult};
use crate::store::Store;

pub const PROJECT: &str = "/work/app";

pub fn open_store(dir: &tempfile::TempDir) -> Store {
    Store::open_path(&dir.path().join("context.db")).expect("open store")
}

pub fn event(kind: EventKind, session: &str) -> NormalizedEvent {
    NormalizedEvent {
        kind,
        native_event: String::new(),
        session_id: session.to_string(),
        project_dir: Some(PROJECT.to_string()),
        transcript_path: None,
        tool: None,
        outcome: None,
        prompt: None,
        source: None,
        trigger: None,
    }
}

pub fn prompt(session: &str, text: &str) -> NormalizedEvent {
    NormalizedEvent {
        prompt: Some(text.to_string()),
        ..event(EventKind::UserPrompt, session)
    }
}

pub fn session_start(session: &str, source: SessionSource) -> NormalizedEvent {
    NormalizedEvent {
        source: Some(source),
        ..event(EventKind::SessionStart, session)
    }
}

/// A tool call with the fields an adapter fills from `input`.
pub fn call(name: &str, kind: ToolKind, input: Value) -> ToolCall {
    let text = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
    let (mcp_server, mcp_tool) = match name.strip_prefix("mcp__").and_then(|r| r.split_once("__")) {
        Some((server, tool)) => (Some(server.to_string()), Some(tool.to_string())),
        None => (None, None),
    };
    ToolCall {
        name: name.to_string(),
        kind,
        input_json: input.to_string(),
        command: text("command"),
        path: text("file_path"),
        has_range: false,
        url: text("url"),
        prompt: text("prompt"),
        pattern: text("pattern"),
        mcp_server,
        mcp_tool,
    }
}

pub fn bash(command: &str) -> ToolCall {
    call("Bash", ToolKind::Shell, json!({ "command": command }))
}

pub fn read(path: &str) -> ToolCall {
    call(
        "Read",
        ToolKind::Read,
        json!({ "file_path": format!("{PROJECT}/{path}") }),
    )
}

pub fn edit(path: &str) -> ToolCall {
    call(
        "Edit",
        ToolKind::Edit,
        json!({ "file_path": format!("{PROJECT}/{path}"), "old_string": "a", "new_string": "b" }),
    )
}

pub fn todo(items: &[(&str, &str)]) -> ToolCall {
    let todos: Vec<Value> = items
        .iter()
        .map(|(content, status)| json!({ "content": content, "status": status, "activeForm": content }))
        .collect();
    call("TodoWrite", ToolKind::Other, json!({ "todos": todos }))
}

pub fn pre(session: &str, tool: &ToolCall) -> NormalizedEvent {
    NormalizedEvent {
        tool: Some(tool.clone()),
        ..event(EventKind::PreToolUse, session)
    }
}

pub fn post(session: &str, tool: &ToolCall, output: &str, exit: Option<i32>) -> NormalizedEvent {
    post_timed(session, tool, output, exit, None)
}

pub fn post_timed(
    session: &str,
    tool: &ToolCall,
    output: &str,
    exit: Option<i32>,
    duration_ms: Option<u64>,
) -> NormalizedEvent {
    NormalizedEvent {
        tool: Some(tool.clone()),
        outcome: Some(ToolResult {
            output: output.to_string(),
            is_error: exit.is_some_and(|c| c != 0),
            exit_code: exit,
            duration_ms,
        }),
        ..event(EventKind::PostToolUse, session)
    }
}

/// Records every event, failing the test on a store error.
pub fn play(store: &mut Store, events: &[NormalizedEvent]) {
    for e in events {
        crate::journal::record(store, e).expect("record");
    }
}

/// A call that ran: its pre-tool-use and post-tool-use.
pub fn ran(
    session: &str,
    tool: &ToolCall,
    output: &str,
    exit: Option<i32>,
) -> [NormalizedEvent; 2] {
    [pre(session, tool), post(session, tool, output, exit)]
}
