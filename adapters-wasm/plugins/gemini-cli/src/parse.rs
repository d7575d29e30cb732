//! Gemini CLI hook stdin → normalized event.
//!
//! Every hook gets `session_id`, `transcript_path`, `cwd`, `hook_event_name` and
//! `timestamp`; BeforeTool adds `tool_name`, `tool_input` (and `mcp_context` for MCP
//! tools), AfterTool adds `tool_response` (`llmContent`, `returnDisplay`, `error`),
//! SessionStart `source`, PreCompress `trigger`, BeforeAgent `prompt`.

use context_mode_sdk::json::{get_str, non_empty};
use context_mode_sdk::serde_json::{Map, Value};
use context_mode_sdk::{
    EventKind, NormalizedEvent, ToolCall, ToolKind, ToolResult, env_value, pid_session_id,
    session_id_from_transcript, session_source, tool_output,
};

use crate::describe::{ENV_PROJECT_DIR, ENV_PROJECT_DIR_ALIAS, ENV_SESSION_ID, EVENTS};
use context_mode_sdk::adapter::{ParseError, ParseInput};
use context_mode_sdk::{HostEvent, event_and_payload, event_tool_call};

pub fn parse(input: &ParseInput) -> Result<NormalizedEvent, ParseError> {
    let (event, payload) = event_and_payload(EVENTS, input)?;

    let transcript_path = non_empty(get_str(&payload, "transcript_path"));
    let session_id = session_id(&payload, transcript_path.as_deref(), input);
    let mut normalized = NormalizedEvent {
        project_dir: env_value(&input.env, ENV_PROJECT_DIR)
            .or_else(|| env_value(&input.env, ENV_PROJECT_DIR_ALIAS))
            .map(str::to_owned)
            .or_else(|| non_empty(get_str(&payload, "cwd"))),
        transcript_path,
        ..NormalizedEvent::new(event.kind, &input.native_event, session_id)
    };

    match event.kind {
        EventKind::PreToolUse => normalized.tool = Some(tool_call(&payload, event)?),
        EventKind::PostToolUse => {
            normalized.tool = Some(tool_call(&payload, event)?);
            normalized.outcome = Some(tool_result(&payload));
        }
        EventKind::SessionStart => {
            normalized.source = Some(session_source(
                get_str(&payload, "source").unwrap_or_default(),
            ));
        }
        EventKind::PreCompact => normalized.trigger = non_empty(get_str(&payload, "trigger")),
        EventKind::UserPrompt => {
            normalized.prompt = Some(get_str(&payload, "prompt").unwrap_or_default().to_owned());
        }
        EventKind::Stop => {}
    }
    Ok(normalized)
}

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

fn tool_call(payload: &Map<String, Value>, event: &HostEvent) -> Result<ToolCall, ParseError> {
    let mut call = event_tool_call(payload, event)?;
    if call.kind == ToolKind::WebFetch && call.url.is_none() {
        // Gemini's web_fetch takes a `prompt` that contains the URL(s) to read.
        call.url = context_mode_sdk::input_str(&call.input_json, "prompt")
            .and_then(|prompt| first_url(&prompt));
    }
    Ok(call)
}

/// The first `http://` or `https://` URL in free text, without trailing punctuation.
fn first_url(text: &str) -> Option<String> {
    let start = text.find("https://").or_else(|| text.find("http://"))?;
    let url: String = text[start..]
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, '"' | '\'' | '<' | '>' | '`'))
        .collect();
    let url = url.trim_end_matches(['.', ',', ';', ':', ')', ']', '!', '?']);
    (url.len() > "https://".len()).then(|| url.to_owned())
}

fn tool_result(payload: &Map<String, Value>) -> ToolResult {
    let response = payload.get("tool_response").unwrap_or(&Value::Null);
    tool_output(response).into_result(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::SessionSource;

    fn input(native: &str, stdin: &str) -> ParseInput {
        ParseInput {
            native_event: native.to_owned(),
            stdin: stdin.to_owned(),
            env: Vec::new(),
            parent_pid: 4242,
        }
    }

    fn common(extra: &str) -> String {
        format!(
            r#"{{"session_id":"9c1f6a0e-2b7d-4c3e-8f5a-1d2e3f4a5b6c","transcript_path":"/home/dev/.gemini/tmp/abc/chats/session-2026-01-02T10-00-9c1f6a0e.json","cwd":"/home/dev/app","timestamp":"2026-01-02T10:00:00.000Z",{extra}}}"#
        )
    }

    #[test]
    fn before_tool_shell() {
        let stdin = common(
            r#""hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"curl https://example.com","description":"fetch"}"#,
        );
        let event = parse(&input("beforetool", &stdin)).unwrap();
        assert_eq!(event.kind, EventKind::PreToolUse);
        assert_eq!(event.session_id, "9c1f6a0e-2b7d-4c3e-8f5a-1d2e3f4a5b6c");
        assert_eq!(event.project_dir.as_deref(), Some("/home/dev/app"));
        let tool = event.tool.unwrap();
        assert_eq!(tool.kind, ToolKind::Shell);
        assert_eq!(tool.command.as_deref(), Some("curl https://example.com"));
    }

    #[test]
    fn project_dir_from_gemini_then_claude_variable() {
        let stdin = common(r#""hook_event_name":"SessionStart","source":"startup""#);
        let mut with_env = input("sessionstart", &stdin);
        with_env.env = vec![
            ("CLAUDE_PROJECT_DIR".into(), "/alias".into()),
            ("GEMINI_PROJECT_DIR".into(), "/proj".into()),
        ];
        assert_eq!(
            parse(&with_env).unwrap().project_dir.as_deref(),
            Some("/proj")
        );
        with_env.env.pop();
        assert_eq!(
            parse(&with_env).unwrap().project_dir.as_deref(),
            Some("/alias")
        );
    }

    #[test]
    fn session_id_falls_back_to_the_environment_then_the_pid() {
        let mut env_only = input("sessionstart", r#"{"source":"resume"}"#);
        env_only.env = vec![("GEMINI_SESSION_ID".into(), "from-env".into())];
        let event = parse(&env_only).unwrap();
        assert_eq!(event.session_id, "from-env");
        assert_eq!(event.source, Some(SessionSource::Resume));
        assert_eq!(
            parse(&input("precompress", "{}")).unwrap().session_id,
            "pid-4242"
        );
    }

    #[test]
    fn web_fetch_finds_the_url_in_its_prompt() {
        let stdin = common(
            r#""tool_name":"web_fetch","tool_input":{"prompt":"Summarize https://docs.rs/serde_json/latest/serde_json/, please."}"#,
        );
        let tool = parse(&input("beforetool", &stdin)).unwrap().tool.unwrap();
        assert_eq!(tool.kind, ToolKind::WebFetch);
        assert_eq!(
            tool.url.as_deref(),
            Some("https://docs.rs/serde_json/latest/serde_json/")
        );
        assert_eq!(first_url("no links here"), None);
        assert_eq!(first_url("see http://x.io)"), Some("http://x.io".into()));
    }

    #[test]
    fn gemini_tool_names_and_ours() {
        for (name, kind) in [
            ("read_file", ToolKind::Read),
            ("read_many_files", ToolKind::Read),
            ("grep_search", ToolKind::Grep),
            ("search_file_content", ToolKind::Grep),
            ("activate_skill", ToolKind::Other),
            ("mcp_context-mode_ctx_execute", ToolKind::Ctx),
            ("mcp_github_list_issues", ToolKind::Mcp),
        ] {
            let stdin = common(&format!(r#""tool_name":"{name}","tool_input":{{}}"#));
            let tool = parse(&input("beforetool", &stdin)).unwrap().tool.unwrap();
            assert_eq!(tool.kind, kind, "{name}");
        }
    }

    #[test]
    fn after_tool_output_and_precompress_trigger() {
        let stdin = common(
            r#""hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"ls"},"tool_response":{"llmContent":"a.txt\nb.txt","returnDisplay":"a.txt\nb.txt","error":null}"#,
        );
        let outcome = parse(&input("aftertool", &stdin)).unwrap().outcome.unwrap();
        assert_eq!(outcome.output, "a.txt\nb.txt");
        assert!(!outcome.is_error);
        let compress = common(r#""hook_event_name":"PreCompress","trigger":"manual""#);
        assert_eq!(
            parse(&input("precompress", &compress))
                .unwrap()
                .trigger
                .as_deref(),
            Some("manual")
        );
    }

    #[test]
    fn before_agent_is_the_prompt() {
        let stdin = common(r#""hook_event_name":"BeforeAgent","prompt":"fix the login test""#);
        let event = parse(&input("beforeagent", &stdin)).unwrap();
        assert_eq!(event.kind, EventKind::UserPrompt);
        assert_eq!(event.prompt.as_deref(), Some("fix the login test"));
    }

    #[test]
    fn bad_input_is_one_line_and_unknown_events_fail() {
        for (native, stdin) in [
            ("beforetool", ""),
            ("beforetool", "[]"),
            ("aftertool", r#"{"tool_input":{}}"#),
        ] {
            match parse(&input(native, stdin)) {
                Err(ParseError::BadInput(message)) => assert!(!message.contains('\n')),
                other => panic!("{native} {stdin:?} gave {other:?}"),
            }
        }
        assert_eq!(
            parse(&input("AfterAgent", "{}")).unwrap_err(),
            ParseError::UnknownEvent("AfterAgent".into())
        );
    }
}
