//! Codex CLI hook stdin → normalized event.
//!
//! Every hook gets `session_id`, `transcript_path` (or null), `cwd`,
//! `hook_event_name` and `model`; tool events add `turn_id`, `tool_name` (`Bash` for
//! shell calls, `apply_patch`, `mcp__<server>__<tool>`, …), `tool_use_id` and
//! `tool_input`; PostToolUse adds `tool_response`; SessionStart `source`,
//! PreCompact `trigger`, UserPromptSubmit `prompt`.

use context_mode_sdk::json::{get_str, non_empty};
use context_mode_sdk::serde_json::{Map, Value};
use context_mode_sdk::{
    EventKind, NormalizedEvent, ToolResult, env_value, pid_session_id, session_id_from_transcript,
    session_source, tool_output,
};

use crate::describe::{ENV_THREAD_ID, EVENTS};
use context_mode_sdk::adapter::{ParseError, ParseInput};
use context_mode_sdk::{event_and_payload, event_tool_call};

pub fn parse(input: &ParseInput) -> Result<NormalizedEvent, ParseError> {
    let (event, payload) = event_and_payload(EVENTS, input)?;

    let transcript_path = non_empty(get_str(&payload, "transcript_path"));
    let session_id = session_id(&payload, transcript_path.as_deref(), input);
    let mut normalized = NormalizedEvent {
        project_dir: non_empty(get_str(&payload, "cwd")),
        transcript_path,
        ..NormalizedEvent::new(event.kind, &input.native_event, session_id)
    };

    match event.kind {
        EventKind::PreToolUse => normalized.tool = Some(event_tool_call(&payload, event)?),
        EventKind::PostToolUse => {
            normalized.tool = Some(event_tool_call(&payload, event)?);
            normalized.outcome = Some(tool_result(&payload));
        }
        EventKind::UserPrompt => {
            let prompt = get_str(&payload, "prompt").ok_or_else(|| {
                ParseError::BadInput("UserPromptSubmit stdin has no \"prompt\" string".to_owned())
            })?;
            normalized.prompt = Some(prompt.to_owned());
        }
        EventKind::SessionStart => {
            normalized.source = Some(session_source(
                get_str(&payload, "source").unwrap_or_default(),
            ));
        }
        EventKind::PreCompact => normalized.trigger = non_empty(get_str(&payload, "trigger")),
        EventKind::Stop => {}
    }
    Ok(normalized)
}

/// `session_id` is Codex's thread id, which `codex resume` keeps.
fn session_id(
    payload: &Map<String, Value>,
    transcript: Option<&str>,
    input: &ParseInput,
) -> String {
    non_empty(get_str(payload, "session_id"))
        .or_else(|| env_value(&input.env, ENV_THREAD_ID).map(str::to_owned))
        .or_else(|| transcript.and_then(session_id_from_transcript))
        .unwrap_or_else(|| pid_session_id(input.parent_pid))
}

fn tool_result(payload: &Map<String, Value>) -> ToolResult {
    let response = payload.get("tool_response").unwrap_or(&Value::Null);
    tool_output(response).into_result(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::{SessionSource, ToolKind};

    const THREAD: &str = "019ddc81-6b73-7803-8933-4b42c634e273";

    fn input(native: &str, stdin: &str) -> ParseInput {
        ParseInput {
            native_event: native.to_owned(),
            stdin: stdin.to_owned(),
            env: Vec::new(),
            parent_pid: 99,
        }
    }

    fn common(extra: &str) -> String {
        format!(
            r#"{{"session_id":"{THREAD}","transcript_path":"/home/dev/.codex/sessions/2026/01/02/rollout-2026-01-02T10-00-00-{THREAD}.jsonl","cwd":"/home/dev/app","model":"gpt-5-codex",{extra}}}"#
        )
    }

    #[test]
    fn every_codex_shell_tool_is_shell() {
        for name in [
            "Bash",
            "shell",
            "shell_command",
            "exec_command",
            "local_shell",
            "container.exec",
        ] {
            let stdin = common(&format!(
                r#""hook_event_name":"PreToolUse","turn_id":"t1","tool_name":"{name}","tool_use_id":"call_1","tool_input":{{"command":"curl https://example.com"}}"#
            ));
            let event = parse(&input("pretooluse", &stdin)).unwrap();
            assert_eq!(event.session_id, THREAD);
            assert_eq!(event.project_dir.as_deref(), Some("/home/dev/app"));
            let tool = event.tool.unwrap();
            assert_eq!(tool.kind, ToolKind::Shell, "{name}");
            assert_eq!(tool.command.as_deref(), Some("curl https://example.com"));
        }
    }

    #[test]
    fn argv_commands_patches_grep_and_mcp() {
        let argv = common(
            r#""tool_name":"shell","tool_input":{"command":["bash","-lc","./gradlew build"],"workdir":"/home/dev/app"}"#,
        );
        let tool = parse(&input("pretooluse", &argv)).unwrap().tool.unwrap();
        assert_eq!(tool.command.as_deref(), Some("./gradlew build"));
        for (name, kind) in [
            ("apply_patch", ToolKind::Edit),
            ("grep_files", ToolKind::Grep),
            ("mcp__context_mode__ctx_execute", ToolKind::Ctx),
            ("mcp__github__get_issue", ToolKind::Mcp),
        ] {
            let stdin = common(&format!(r#""tool_name":"{name}","tool_input":{{}}"#));
            let tool = parse(&input("pretooluse", &stdin)).unwrap().tool.unwrap();
            assert_eq!(tool.kind, kind, "{name}");
        }
    }

    #[test]
    fn post_tool_use_prompt_source_trigger() {
        let post = common(
            r#""hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":"a.txt\nb.txt""#,
        );
        let event = parse(&input("posttooluse", &post)).unwrap();
        assert_eq!(event.outcome.unwrap().output, "a.txt\nb.txt");
        let prompt = common(r#""hook_event_name":"UserPromptSubmit","prompt":"fix the build""#);
        assert_eq!(
            parse(&input("userpromptsubmit", &prompt))
                .unwrap()
                .prompt
                .as_deref(),
            Some("fix the build")
        );
        let start = common(r#""hook_event_name":"SessionStart","source":"resume""#);
        assert_eq!(
            parse(&input("sessionstart", &start)).unwrap().source,
            Some(SessionSource::Resume)
        );
        let compact = common(r#""hook_event_name":"PreCompact","trigger":"auto""#);
        assert_eq!(
            parse(&input("precompact", &compact))
                .unwrap()
                .trigger
                .as_deref(),
            Some("auto")
        );
    }

    #[test]
    fn session_id_fallbacks_and_null_transcript() {
        let no_id = r#"{"transcript_path":null,"cwd":"/p"}"#;
        let mut with_env = input("stop", no_id);
        with_env.env = vec![("CODEX_THREAD_ID".into(), "thread-env".into())];
        assert_eq!(parse(&with_env).unwrap().session_id, "thread-env");
        assert_eq!(parse(&input("stop", no_id)).unwrap().session_id, "pid-99");
    }

    #[test]
    fn bad_input_is_one_line() {
        for (native, stdin) in [("pretooluse", "nope"), ("userpromptsubmit", "{}")] {
            match parse(&input(native, stdin)) {
                Err(ParseError::BadInput(message)) => assert!(!message.contains('\n')),
                other => panic!("{native}: {other:?}"),
            }
        }
    }
}
