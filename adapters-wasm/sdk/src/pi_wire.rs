//! The bytes between the Pi / OMP extension shim (`configs/pi/context-mode.js`) and
//! `cm hook <pi|omp> <event>`. Both hosts load the same extension API (`pi.on(event,
//! handler)`), so one shim and one wire serve both adapters.
//!
//! stdin: one JSON object in Claude's key names, which the shim builds from the host's
//! event and its `ctx.sessionManager`: every event `hook_event_name`, `session_id`,
//! `transcript_path` (the session file), `cwd`; `tool_call` `tool_name`, `tool_call_id`,
//! `tool_input`; `tool_result` the same plus `tool_response: {content, isError}`;
//! `session_start` `source` (Pi's `reason`; OMP sends none); `before_agent_start`
//! `prompt`.
//!
//! stdout: nothing (the host goes on as without the extension), or one JSON object the
//! shim applies: `{"block": true, "reason"}` (the host's own `tool_call` result, the
//! reason handed to the model as the tool's error), `{"input": {…}}` (the whole new
//! tool input), `{"content": [{type: "text", text}]}` (the tool result the model sees),
//! `{"context": "…"}` (text the shim hands the model as a message at the next
//! `before_agent_start`, the one event of both hosts that can add a message).

use serde_json::{Map, Value};

use crate::adapter::{
    Capabilities, ConfigEdit, ConfigFormat, EditKind, ParseError, ParseInput, Rendered, Reply,
    SetupInput, SetupPlan, Verdict,
};
use crate::claude_wire::parse_claude_payload;
use crate::json::{JsonObject, get_str, non_empty};
use crate::reply::{non_blank, updated_input};
use crate::{
    EventKind, HostEvent, NormalizedEvent, SessionSource, pid_session_id,
    session_id_from_transcript,
};

/// The events the shim forwards, under the hosts' own names (the same in Pi and OMP).
pub const PI_EVENTS: &[HostEvent] = &[
    // `{block, reason}`: the reason is the tool's error result the model reads. A new
    // input: Pi runs the mutated `event.input`, OMP the returned `input`.
    HostEvent {
        cli: "tool_call",
        name: "tool_call",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK.union(Capabilities::REWRITE_INPUT),
    },
    // A returned `content` replaces what the model sees.
    HostEvent {
        cli: "tool_result",
        name: "tool_result",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::REWRITE_OUTPUT,
    },
    // Neither host takes text from these two; the shim holds it for the next
    // `before_agent_start`.
    HostEvent {
        cli: "session_start",
        name: "session_start",
        kind: EventKind::SessionStart,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    HostEvent {
        cli: "session_compact",
        name: "session_compact",
        kind: EventKind::SessionStart,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    // Fires on each prompt before the agent loop; its `message` reaches the model.
    HostEvent {
        cli: "before_agent_start",
        name: "before_agent_start",
        kind: EventKind::UserPrompt,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    // Observed only: the shim never returns a result, so the host compacts its own way.
    HostEvent {
        cli: "session_before_compact",
        name: "session_before_compact",
        kind: EventKind::PreCompact,
        capabilities: Capabilities::empty(),
    },
];

/// The shim (`configs/pi/context-mode.js`) with the command that runs `cm`, the adapter
/// id and the MCP client name it sends `cm serve` filled in, each as a JS string.
pub fn shim_source(template: &str, cm: &str, adapter: &str, client: &str) -> String {
    let quoted = |text: &str| Value::from(text).to_string();
    template
        .replace("\"__CM__\"", &quoted(cm))
        .replace("\"__ADAPTER__\"", &quoted(adapter))
        .replace("\"__CLIENT__\"", &quoted(client))
}

/// Where one host keeps the extension and its routing file, and what it is called.
pub struct PiHost {
    pub adapter: &'static str,
    pub display_name: &'static str,
    pub client_name: &'static str,
    /// The shim written whole here (the host's user-level `extensions/` directory).
    pub extension_file: &'static str,
    /// The user-level `AGENTS.md`; a project's is `{project}/AGENTS.md` in both hosts.
    pub global_agents_md: &'static str,
    pub routing_text: &'static str,
}

/// The setup plan of either host: the extension (a `hooks` edit: it carries the events
/// and the tools, so there is no `mcp-server` edit) and the optional routing text.
pub fn pi_setup_plan(host: &PiHost, shim: &str, input: &SetupInput) -> SetupPlan {
    let cm = crate::setup::cm_command(&input.cm_command);
    let (routing_file, scope) = if input.project_dir.is_some() {
        ("{project}/AGENTS.md", "this project")
    } else {
        (host.global_agents_md, "every project")
    };
    SetupPlan {
        edits: vec![
            ConfigEdit {
                kind: EditKind::Hooks,
                file: host.extension_file.to_owned(),
                format: ConfigFormat::Text,
                content: shim_source(shim, cm, host.adapter, host.client_name),
                summary: format!(
                    "Install the context-mode extension (its hooks and the ctx_* tools) into {}",
                    host.display_name
                ),
                optional: false,
            },
            ConfigEdit {
                kind: EditKind::Instructions,
                file: routing_file.to_owned(),
                format: ConfigFormat::Text,
                content: host.routing_text.to_owned(),
                summary: format!(
                    "Add context-mode's routing rules to {}'s AGENTS.md for {scope}",
                    host.display_name
                ),
                optional: true,
            },
        ],
    }
}

/// The shim's payload for one event → the normalized event.
pub fn parse_pi_payload(
    input: &ParseInput,
    events: &'static [HostEvent],
) -> Result<NormalizedEvent, ParseError> {
    let parent_pid = input.parent_pid;
    // No project variable: both hosts name the project only as the session's cwd.
    let mut event = parse_claude_payload(input, events, "", |payload, transcript| {
        session_id(payload, transcript, parent_pid)
    })?;
    if event.kind == EventKind::SessionStart {
        let payload = crate::parse_object(&input.stdin).unwrap_or_default();
        event.source = Some(start_source(&input.native_event, &payload));
    }
    Ok(event)
}

fn session_id(payload: &Map<String, Value>, transcript: Option<&str>, parent_pid: u32) -> String {
    non_empty(get_str(payload, "session_id"))
        .or_else(|| transcript.and_then(session_id_from_transcript))
        .unwrap_or_else(|| pid_session_id(parent_pid))
}

/// Pi's `session_start` reasons: `startup`; `new` (`/new`, an empty session); `resume`,
/// `fork` and `reload`, which carry a conversation on. `session_compact` fires after a
/// compaction, when the stored state block is what the model needs.
fn start_source(native_event: &str, payload: &Map<String, Value>) -> SessionSource {
    if native_event.eq_ignore_ascii_case("session_compact") {
        return SessionSource::Compact;
    }
    match get_str(payload, "source")
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        None | Some("" | "startup") => SessionSource::Startup,
        Some("new") => SessionSource::Clear,
        Some("resume" | "fork" | "reload") => SessionSource::Resume,
        Some("compact") => SessionSource::Compact,
        Some(_) => SessionSource::Unknown,
    }
}

/// The reply → what the shim applies (see the module comment). Exit code 0 always:
/// the shim reads stdout only.
pub fn render_pi_reply(reply: &Reply) -> Rendered {
    let stdout = match reply.event {
        EventKind::PreToolUse => tool_call_reply(reply),
        EventKind::PostToolUse => non_blank(&reply.updated_output).map(|text| {
            let block = JsonObject::new().put("type", "text").put("text", text);
            JsonObject::new()
                .put("content", Value::Array(vec![block.into_value()]))
                .to_compact()
        }),
        EventKind::SessionStart | EventKind::UserPrompt => non_blank(&reply.additional_context)
            .map(|text| JsonObject::new().put("context", text).to_compact()),
        EventKind::PreCompact | EventKind::Stop => None,
    };
    Rendered {
        stdout: stdout.map(|s| s + "\n").unwrap_or_default(),
        stderr: String::new(),
        exit_code: 0,
    }
}

fn tool_call_reply(reply: &Reply) -> Option<String> {
    match reply.verdict {
        // Neither host can ask the user from an extension in print mode; a call that
        // needs a person is stopped with the reason, like a deny.
        Verdict::Redirect | Verdict::Deny | Verdict::Ask => {
            let reason = non_blank(&reply.reason).unwrap_or("denied by context-mode");
            Some(
                JsonObject::new()
                    .put("block", true)
                    .put("reason", reason.trim_end())
                    .to_compact(),
            )
        }
        Verdict::Allow | Verdict::NoOpinion => {
            updated_input(reply).map(|input| JsonObject::new().put("input", input).to_compact())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVENTS: &[HostEvent] = PI_EVENTS;

    fn input(native: &str, stdin: &str) -> ParseInput {
        ParseInput {
            native_event: native.to_owned(),
            stdin: stdin.to_owned(),
            env: Vec::new(),
            parent_pid: 77,
        }
    }

    #[test]
    fn sources_sessions_and_the_pid_fallback() {
        let start = |native: &str, stdin: &str| parse_pi_payload(&input(native, stdin), EVENTS);
        let fresh = start(
            "session_start",
            r#"{"hook_event_name":"session_start","session_id":"s1","cwd":"/p"}"#,
        )
        .unwrap();
        assert_eq!(fresh.source, Some(SessionSource::Startup));
        assert_eq!(
            (fresh.session_id.as_str(), fresh.project_dir.as_deref()),
            ("s1", Some("/p"))
        );
        for (reason, source) in [
            ("new", SessionSource::Clear),
            ("fork", SessionSource::Resume),
            ("reload", SessionSource::Resume),
            ("resume", SessionSource::Resume),
            ("odd", SessionSource::Unknown),
        ] {
            let stdin = format!(r#"{{"session_id":"s","source":"{reason}"}}"#);
            assert_eq!(start("session_start", &stdin).unwrap().source, Some(source));
        }
        let compacted = start("session_compact", r#"{"session_id":"s"}"#).unwrap();
        assert_eq!(compacted.source, Some(SessionSource::Compact));
        let file = "/h/.pi/agent/sessions/--p--/2026-12-02T06-31-41-463Z_01a23573-a695-710a-912c-00fb2dcccccf.jsonl";
        let from_file = start(
            "session_start",
            &format!(r#"{{"transcript_path":"{file}"}}"#),
        )
        .unwrap();
        assert_eq!(from_file.transcript_path.as_deref(), Some(file));
        assert_eq!(start("session_start", "{}").unwrap().session_id, "pid-77");
    }

    #[test]
    fn a_tool_call_needs_its_tool() {
        let call = parse_pi_payload(
            &input(
                "tool_call",
                r#"{"session_id":"s","tool_name":"bash","tool_input":{"command":"ls"}}"#,
            ),
            EVENTS,
        )
        .unwrap();
        assert_eq!(call.tool.unwrap().command.as_deref(), Some("ls"));
        assert!(matches!(
            parse_pi_payload(&input("tool_call", r#"{"session_id":"s"}"#), EVENTS),
            Err(ParseError::BadInput(_))
        ));
    }

    #[test]
    fn the_shim_gets_its_command_as_a_js_string() {
        let template = "const CM = \"__CM__\";\nconst ADAPTER = \"__ADAPTER__\";\nconst CLIENT = \"__CLIENT__\";";
        assert_eq!(
            shim_source(
                template,
                r#"/Users/Jane "J" Doe/cm"#,
                "omp",
                "omp-coding-agent"
            ),
            "const CM = \"/Users/Jane \\\"J\\\" Doe/cm\";\nconst ADAPTER = \"omp\";\nconst CLIENT = \"omp-coding-agent\";"
        );
    }

    #[test]
    fn replies_the_shim_applies() {
        let mut stop = Reply::new(EventKind::PreToolUse, "tool_call", Verdict::Redirect);
        stop.reason = Some("use ctx_execute\n".to_owned());
        assert_eq!(
            render_pi_reply(&stop).stdout,
            "{\"block\":true,\"reason\":\"use ctx_execute\"}\n"
        );
        let quiet = Reply::new(EventKind::PreToolUse, "tool_call", Verdict::NoOpinion);
        assert_eq!(render_pi_reply(&quiet).stdout, "");
        let mut post = Reply::new(EventKind::PostToolUse, "tool_result", Verdict::NoOpinion);
        post.updated_output = Some("short".to_owned());
        assert_eq!(
            render_pi_reply(&post).stdout,
            "{\"content\":[{\"type\":\"text\",\"text\":\"short\"}]}\n"
        );
        let mut start = Reply::new(EventKind::SessionStart, "session_start", Verdict::NoOpinion);
        start.additional_context = Some("routing".to_owned());
        let rendered = render_pi_reply(&start);
        assert_eq!(rendered.stdout, "{\"context\":\"routing\"}\n");
        assert_eq!((rendered.exit_code, rendered.stderr.as_str()), (0, ""));
        let compact = Reply::new(
            EventKind::PreCompact,
            "session_before_compact",
            Verdict::NoOpinion,
        );
        assert_eq!(render_pi_reply(&compact).stdout, "");
    }
}
