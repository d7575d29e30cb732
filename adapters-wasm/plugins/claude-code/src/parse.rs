//! Claude Code hook stdin → normalized event.

use context_mode_sdk::adapter::{ParseError, ParseInput};
use context_mode_sdk::claude_wire::parse_claude_payload;
use context_mode_sdk::json::{get_str, non_empty};
use context_mode_sdk::serde_json::{Map, Value};
use context_mode_sdk::{NormalizedEvent, env_value, pid_session_id, session_id_from_transcript};

use crate::describe::{ENV_LEGACY_SESSION_ID, ENV_PROJECT_DIR, ENV_SESSION_ID, EVENTS};

pub fn parse(input: &ParseInput) -> Result<NormalizedEvent, ParseError> {
    parse_claude_payload(input, EVENTS, ENV_PROJECT_DIR, |payload, transcript| {
        session_id(payload, transcript, input)
    })
}

/// The transcript file's UUID survives `--resume`, so it outranks `session_id`.
fn session_id(
    payload: &Map<String, Value>,
    transcript: Option<&str>,
    input: &ParseInput,
) -> String {
    transcript
        .and_then(session_id_from_transcript)
        .or_else(|| non_empty(get_str(payload, "session_id")))
        .or_else(|| env_value(&input.env, ENV_SESSION_ID).map(str::to_owned))
        .or_else(|| env_value(&input.env, ENV_LEGACY_SESSION_ID).map(str::to_owned))
        .unwrap_or_else(|| pid_session_id(input.parent_pid))
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::{EventKind, SessionSource, ToolKind};

    const UUID: &str = "3f2a9c1e-7b4d-4e8a-9c2f-5d6e7f8a9b0c";

    fn input(native: &str, stdin: &str) -> ParseInput {
        ParseInput {
            native_event: native.to_owned(),
            stdin: stdin.to_owned(),
            env: Vec::new(),
            parent_pid: 777,
        }
    }

    fn with_env(mut input: ParseInput, env: &[(&str, &str)]) -> ParseInput {
        input.env = env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        input
    }

    fn common(extra: &str) -> String {
        format!(
            r#"{{"session_id":"sess-field","transcript_path":"/home/dev/.claude/projects/-home-dev-app/{UUID}.jsonl","cwd":"/home/dev/app","permission_mode":"default",{extra}}}"#
        )
    }

    #[test]
    fn pretooluse_bash() {
        let stdin = common(
            r#""hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"curl https://example.com/api","description":"Call the API"}"#,
        );
        let event = parse(&input("pretooluse", &stdin)).unwrap();
        assert_eq!(event.kind, EventKind::PreToolUse);
        assert_eq!(event.native_event, "pretooluse");
        assert_eq!(event.session_id, UUID);
        assert_eq!(event.project_dir.as_deref(), Some("/home/dev/app"));
        let tool = event.tool.unwrap();
        assert_eq!(tool.kind, ToolKind::Shell);
        assert_eq!(
            tool.command.as_deref(),
            Some("curl https://example.com/api")
        );
        assert_eq!(
            tool.input_json,
            r#"{"command":"curl https://example.com/api","description":"Call the API"}"#
        );
        assert!(event.outcome.is_none());
    }

    #[test]
    fn event_names_are_case_insensitive_and_unknown_ones_fail() {
        let stdin = common(r#""hook_event_name":"Stop","stop_hook_active":false"#);
        assert_eq!(parse(&input("Stop", &stdin)).unwrap().kind, EventKind::Stop);
        assert_eq!(
            parse(&input("Notification", &stdin)).unwrap_err(),
            ParseError::UnknownEvent("Notification".to_owned())
        );
    }

    #[test]
    fn session_id_fallback_chain() {
        let no_transcript = r#"{"session_id":"abc","cwd":"/p"}"#;
        assert_eq!(
            parse(&input("stop", no_transcript)).unwrap().session_id,
            "abc"
        );
        let odd_transcript = r#"{"session_id":"abc","transcript_path":"/tmp/t.jsonl"}"#;
        assert_eq!(
            parse(&input("stop", odd_transcript)).unwrap().session_id,
            "abc"
        );
        let env_only = with_env(input("stop", "{}"), &[("CLAUDE_SESSION_ID", "from-env")]);
        assert_eq!(parse(&env_only).unwrap().session_id, "from-env");
        let both = with_env(
            input("stop", "{}"),
            &[
                ("CLAUDE_SESSION_ID", "legacy"),
                ("CLAUDE_CODE_SESSION_ID", "current"),
            ],
        );
        assert_eq!(parse(&both).unwrap().session_id, "current");
        assert_eq!(parse(&input("stop", "{}")).unwrap().session_id, "pid-777");
    }

    #[test]
    fn project_dir_prefers_the_env_variable() {
        let stdin = common(r#""hook_event_name":"Stop""#);
        let event = parse(&with_env(
            input("stop", &stdin),
            &[("CLAUDE_PROJECT_DIR", "/proj")],
        ))
        .unwrap();
        assert_eq!(event.project_dir.as_deref(), Some("/proj"));
        assert_eq!(parse(&input("stop", "{}")).unwrap().project_dir, None);
    }

    #[test]
    fn posttooluse_bash_response_becomes_output() {
        let stdin = common(
            r#""hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"npm test"},"tool_response":{"stdout":"5 passing","stderr":"1 warning","interrupted":false,"isImage":false},"duration_ms":1234"#,
        );
        let event = parse(&input("posttooluse", &stdin)).unwrap();
        let result = event.outcome.unwrap();
        assert_eq!(result.output, "5 passing\n1 warning");
        assert!(!result.is_error);
        assert_eq!(result.duration_ms, Some(1234));
        assert_eq!(event.tool.unwrap().command.as_deref(), Some("npm test"));
    }

    #[test]
    fn posttooluse_read_and_string_responses() {
        let read = common(
            r#""tool_name":"Read","tool_input":{"file_path":"/a.txt"},"tool_response":{"type":"text","file":{"filePath":"/a.txt","content":"hello"}}"#,
        );
        assert_eq!(
            parse(&input("posttooluse", &read))
                .unwrap()
                .outcome
                .unwrap()
                .output,
            "hello"
        );
        let mcp = common(
            r#""tool_name":"mcp__github__get_issue","tool_input":{"number":1},"tool_response":"issue body""#,
        );
        let event = parse(&input("posttooluse", &mcp)).unwrap();
        assert_eq!(event.outcome.unwrap().output, "issue body");
        assert_eq!(event.tool.unwrap().kind, ToolKind::Mcp);
    }

    #[test]
    fn prompt_source_and_trigger() {
        let prompt = common(r#""hook_event_name":"UserPromptSubmit","prompt":"fix the build""#);
        assert_eq!(
            parse(&input("userpromptsubmit", &prompt))
                .unwrap()
                .prompt
                .as_deref(),
            Some("fix the build")
        );
        let start = common(r#""hook_event_name":"SessionStart","source":"compact""#);
        assert_eq!(
            parse(&input("sessionstart", &start)).unwrap().source,
            Some(SessionSource::Compact)
        );
        let no_source = common(r#""hook_event_name":"SessionStart""#);
        assert_eq!(
            parse(&input("sessionstart", &no_source)).unwrap().source,
            Some(SessionSource::Unknown)
        );
        let compact =
            common(r#""hook_event_name":"PreCompact","trigger":"auto","custom_instructions":"""#);
        assert_eq!(
            parse(&input("precompact", &compact))
                .unwrap()
                .trigger
                .as_deref(),
            Some("auto")
        );
    }

    #[test]
    fn our_tools_under_both_spellings_are_ctx() {
        for name in [
            "mcp__plugin_context-mode_context-mode__ctx_search",
            "mcp__context-mode__ctx_search",
        ] {
            let stdin = common(&format!(
                r#""tool_name":"{name}","tool_input":{{"queries":["x"]}}"#
            ));
            let tool = parse(&input("pretooluse", &stdin)).unwrap().tool.unwrap();
            assert_eq!(tool.kind, ToolKind::Ctx, "{name}");
        }
    }

    #[test]
    fn bad_input_is_one_line() {
        for (native, stdin) in [
            ("pretooluse", ""),
            ("pretooluse", "not json"),
            ("pretooluse", "[]"),
            ("pretooluse", r#"{"tool_input":{}}"#),
            ("posttooluse", r#"{"tool_name":""}"#),
            ("userpromptsubmit", r#"{"prompt":5}"#),
        ] {
            match parse(&input(native, stdin)) {
                Err(ParseError::BadInput(message)) => {
                    assert!(!message.is_empty() && !message.contains('\n'), "{message}");
                }
                other => panic!("{native} {stdin:?} gave {other:?}"),
            }
        }
    }
}

#[cfg(test)]
mod failure_tests {
    use super::*;
    use context_mode_sdk::EventKind;

    #[test]
    fn a_failed_tool_is_a_post_tool_use_with_its_error_as_output() {
        let stdin = r#"{"session_id":"s","cwd":"/p","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"npm test"},"error":"Command failed with exit code 1: 2 failing","tool_use_id":"t"}"#;
        let event = parse(&ParseInput {
            native_event: "posttoolusefailure".into(),
            stdin: stdin.into(),
            env: Vec::new(),
            parent_pid: 1,
        })
        .expect("parses");
        assert_eq!(event.kind, EventKind::PostToolUse);
        let outcome = event.outcome.expect("outcome");
        assert!(outcome.is_error);
        assert_eq!(outcome.output, "Command failed with exit code 1: 2 failing");
        assert_eq!(
            event.tool.expect("tool").command.as_deref(),
            Some("npm test")
        );
    }
}
