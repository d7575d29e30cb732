//! Qwen Code hook stdin → normalized event.
//!
//! Qwen Code sends Claude Code's payload (its hooks guide, 0.24.4): every event
//! `session_id`, `transcript_path`, `cwd`, `hook_event_name`, `timestamp`,
//! `permission_mode`; tool events `tool_name` (the runtime id: `run_shell_command`,
//! `read_file`, `grep_search`, `glob`, `web_fetch`, `write_file`, `edit`, `agent`,
//! `mcp__<server>__<tool>`), `tool_input`, `tool_use_id`; PostToolUse `tool_response`
//! `{llmContent, returnDisplay}` and `duration_ms`; PostToolUseFailure `error`;
//! UserPromptSubmit `prompt` (and optional `submitted_prompt`); SessionStart `source`
//! (`startup|resume|clear|compact`); PreCompact `trigger`. The project comes from
//! `QWEN_PROJECT_DIR`, set for every command hook, then `cwd`.

use context_mode_sdk::adapter::{ParseError, ParseInput};
use context_mode_sdk::claude_wire::parse_claude_payload;
use context_mode_sdk::json::{get_str, non_empty};
use context_mode_sdk::serde_json::{Map, Value};
use context_mode_sdk::{NormalizedEvent, env_value, pid_session_id, session_id_from_transcript};

use crate::describe::{ENV_PROJECT_DIR, ENV_SESSION_ID, EVENTS};

pub fn parse(input: &ParseInput) -> Result<NormalizedEvent, ParseError> {
    parse_claude_payload(input, EVENTS, ENV_PROJECT_DIR, |payload, transcript| {
        session_id(payload, transcript, input)
    })
}

/// `session_id`, else `QWEN_CODE_SESSION_ID`, else the UUID of the transcript file's
/// name, else the parent pid.
fn session_id(
    payload: &Map<String, Value>,
    transcript: Option<&str>,
    input: &ParseInput,
) -> String {
    non_empty(get_str(payload, "session_id"))
        .or_else(|| env_value(&input.env, ENV_SESSION_ID).map(str::to_owned))
        .or_else(|| transcript.and_then(session_id_from_transcript))
        .unwrap_or_else(|| pid_session_id(input.parent_pid))
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::{SessionSource, ToolKind};

    const SESSION: &str = "5b0c7e2a-9d14-4f3b-8e6a-1c2d3e4f5a6b";

    fn input(native: &str, stdin: &str) -> ParseInput {
        ParseInput {
            native_event: native.to_owned(),
            stdin: stdin.to_owned(),
            env: Vec::new(),
            parent_pid: 777,
        }
    }

    fn common(extra: &str) -> String {
        format!(
            r#"{{"session_id":"{SESSION}","transcript_path":"/home/dev/.qwen/projects/app/chats/{SESSION}.jsonl","cwd":"/home/dev/app","timestamp":"2026-12-02T03:00:00.000Z","permission_mode":"default",{extra}}}"#
        )
    }

    #[test]
    fn shell_call_and_project() {
        let stdin = common(
            r#""hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{"command":"curl https://example.com/api","description":"Call the API","is_background":false},"tool_use_id":"toolu_1""#,
        );
        let event = parse(&input("pretooluse", &stdin)).unwrap();
        assert_eq!(event.session_id, SESSION);
        assert_eq!(event.project_dir.as_deref(), Some("/home/dev/app"));
        let tool = event.tool.unwrap();
        assert_eq!(tool.kind, ToolKind::Shell);
        assert_eq!(
            tool.command.as_deref(),
            Some("curl https://example.com/api")
        );
        let mut with_env = input("pretooluse", &stdin);
        with_env.env = vec![("QWEN_PROJECT_DIR".into(), "/proj".into())];
        assert_eq!(
            parse(&with_env).unwrap().project_dir.as_deref(),
            Some("/proj")
        );
    }

    #[test]
    fn qwen_tool_names_are_classified() {
        for (name, kind) in [
            ("read_file", ToolKind::Read),
            ("grep_search", ToolKind::Grep),
            ("glob", ToolKind::Grep),
            ("web_fetch", ToolKind::WebFetch),
            ("write_file", ToolKind::Edit),
            ("edit", ToolKind::Edit),
            ("agent", ToolKind::Agent),
            ("mcp__context-mode__ctx_execute", ToolKind::Ctx),
            ("mcp__github__list_issues", ToolKind::Mcp),
            ("todo_write", ToolKind::Other),
        ] {
            let stdin = common(&format!(r#""tool_name":"{name}","tool_input":{{}}"#));
            let tool = parse(&input("pretooluse", &stdin)).unwrap().tool.unwrap();
            assert_eq!(tool.kind, kind, "{name}");
        }
    }

    #[test]
    fn post_tool_use_llm_content_and_failure() {
        let stdin = common(
            r#""hook_event_name":"PostToolUse","tool_name":"run_shell_command","tool_input":{"command":"ls"},"tool_response":{"llmContent":"a.txt\nb.txt","returnDisplay":"a.txt\nb.txt"},"duration_ms":12"#,
        );
        let outcome = parse(&input("posttooluse", &stdin))
            .unwrap()
            .outcome
            .unwrap();
        assert_eq!(outcome.output, "a.txt\nb.txt");
        assert_eq!(outcome.duration_ms, Some(12));
        let failed = common(
            r#""hook_event_name":"PostToolUseFailure","tool_name":"run_shell_command","tool_input":{"command":"nope"},"error":"command not found","is_interrupt":false"#,
        );
        let outcome = parse(&input("posttoolusefailure", &failed))
            .unwrap()
            .outcome
            .unwrap();
        assert_eq!(
            (outcome.output.as_str(), outcome.is_error),
            ("command not found", true)
        );
    }

    #[test]
    fn lifecycle_events_and_session_fallbacks() {
        let start = common(
            r#""hook_event_name":"SessionStart","source":"compact","model":"qwen3-coder-plus""#,
        );
        assert_eq!(
            parse(&input("sessionstart", &start)).unwrap().source,
            Some(SessionSource::Compact)
        );
        let prompt = common(r#""hook_event_name":"UserPromptSubmit","prompt":"fix the build""#);
        assert_eq!(
            parse(&input("userpromptsubmit", &prompt))
                .unwrap()
                .prompt
                .as_deref(),
            Some("fix the build")
        );
        let compact =
            common(r#""hook_event_name":"PreCompact","trigger":"manual","custom_instructions":"""#);
        assert_eq!(
            parse(&input("precompact", &compact))
                .unwrap()
                .trigger
                .as_deref(),
            Some("manual")
        );
        let transcript_only = format!(
            r#"{{"transcript_path":"/home/dev/.qwen/projects/app/chats/{SESSION}.jsonl"}}"#
        );
        assert_eq!(
            parse(&input("stop", &transcript_only)).unwrap().session_id,
            SESSION
        );
        assert_eq!(parse(&input("stop", "{}")).unwrap().session_id, "pid-777");
        let mut env_only = input("stop", "{}");
        env_only.env = vec![("QWEN_CODE_SESSION_ID".into(), "from-env".into())];
        assert_eq!(parse(&env_only).unwrap().session_id, "from-env");
        assert_eq!(
            parse(&input("Notification", "{}")).unwrap_err(),
            ParseError::UnknownEvent("Notification".to_owned())
        );
        assert!(matches!(
            parse(&input("pretooluse", "[]")),
            Err(ParseError::BadInput(_))
        ));
    }
}
