//! Normalized reply → the JSON Gemini CLI reads from a hook's stdout.
//!
//! Gemini CLI parses stdout as JSON on exit code 0; when stdout is empty it parses
//! stderr instead, so both stay empty for "nothing to say". Every reply exits 0.

use context_mode_sdk::reply::{context_reply, hook_event};
use context_mode_sdk::serde_json::Value;
use context_mode_sdk::tool_call::{COMMAND_KEYS, PROMPT_KEYS};
use context_mode_sdk::{EventKind, JsonObject};

use crate::describe::EVENTS;
use context_mode_sdk::adapter::{Rendered, Reply, Verdict};
use context_mode_sdk::reply::{hook_specific_output, non_blank};

pub fn render(reply: &Reply) -> Rendered {
    let stdout = match reply.event {
        EventKind::PreToolUse => before_tool(reply),
        EventKind::PostToolUse | EventKind::SessionStart | EventKind::UserPrompt => {
            context_reply(EVENTS, reply)
        }
        EventKind::PreCompact | EventKind::Stop => None,
    };
    Rendered {
        stdout: stdout.unwrap_or_default(),
        stderr: String::new(),
        exit_code: 0,
    }
}

fn before_tool(reply: &Reply) -> Option<String> {
    match reply.verdict {
        // The reason reaches the model as the tool's error, which is what a redirect needs.
        // An ask only arrives from a host that ignored the capability flags: stop the call.
        Verdict::Redirect | Verdict::Deny | Verdict::Ask => {
            let reason = non_blank(&reply.reason).unwrap_or("denied by context-mode");
            Some(
                JsonObject::new()
                    .put("decision", "deny")
                    .put("reason", reason)
                    .to_compact(),
            )
        }
        Verdict::Allow | Verdict::NoOpinion => {
            let changed = changed_fields(reply)?;
            let specific = hook_event(EVENTS, reply).put("tool_input", changed);
            Some(hook_specific_output(specific))
        }
    }
}

/// Only the replaced fields: Gemini merges `tool_input` over the model's arguments.
fn changed_fields(reply: &Reply) -> Option<JsonObject> {
    let input_json = reply
        .tool
        .as_ref()
        .map(|tool| tool.input_json.as_str())
        .unwrap_or("{}");
    let original: Value = context_mode_sdk::serde_json::from_str(input_json).unwrap_or(Value::Null);
    let mut changed = JsonObject::new();
    for (new_value, keys) in [
        (&reply.updated_command, COMMAND_KEYS),
        (&reply.updated_prompt, PROMPT_KEYS),
    ] {
        if let Some(new_value) = new_value {
            let key = keys
                .iter()
                .find(|key| original.get(**key).is_some())
                .unwrap_or(&keys[0]);
            changed = changed.put(key, new_value.as_str());
        }
    }
    (!changed.is_empty()).then_some(changed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::build_tool_call;
    use context_mode_sdk::serde_json::json;

    fn reply(event: EventKind, native: &str, verdict: Verdict) -> Reply {
        Reply {
            tool: Some(build_tool_call(
                "run_shell_command",
                &json!({"command": "./gradlew build", "description": "Build"}),
            )),
            ..Reply::new(event, native, verdict)
        }
    }

    fn out(reply: &Reply) -> String {
        let rendered = render(reply);
        assert_eq!((rendered.exit_code, rendered.stderr.as_str()), (0, ""));
        rendered.stdout
    }

    #[test]
    fn nothing_to_say_is_silent_on_every_event() {
        for (kind, native) in [
            (EventKind::PreToolUse, "beforetool"),
            (EventKind::PostToolUse, "aftertool"),
            (EventKind::PreCompact, "precompress"),
            (EventKind::SessionStart, "sessionstart"),
            (EventKind::UserPrompt, "beforeagent"),
        ] {
            assert_eq!(out(&reply(kind, native, Verdict::NoOpinion)), "");
        }
        assert_eq!(
            out(&reply(EventKind::PreToolUse, "beforetool", Verdict::Allow)),
            ""
        );
    }

    #[test]
    fn redirect_and_deny_are_a_deny_decision_with_the_reason() {
        for verdict in [Verdict::Redirect, Verdict::Deny] {
            let mut r = reply(EventKind::PreToolUse, "beforetool", verdict);
            r.reason = Some("redirected to mcp_context-mode_ctx_execute".into());
            assert_eq!(
                out(&r),
                r#"{"decision":"deny","reason":"redirected to mcp_context-mode_ctx_execute"}"#
            );
        }
    }

    #[test]
    fn rewrite_sends_only_the_changed_field() {
        let mut r = reply(EventKind::PreToolUse, "beforetool", Verdict::Allow);
        r.updated_command = Some("./gradlew build 2>&1 | tail -30".into());
        assert_eq!(
            out(&r),
            r#"{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"./gradlew build 2>&1 | tail -30"}}}"#
        );
    }

    #[test]
    fn context_goes_to_after_tool_session_start_and_before_agent_only() {
        let mut after = reply(EventKind::PostToolUse, "aftertool", Verdict::NoOpinion);
        after.additional_context = Some("tip".into());
        assert_eq!(
            out(&after),
            r#"{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"tip"}}"#
        );
        let mut start = reply(EventKind::SessionStart, "sessionstart", Verdict::NoOpinion);
        start.additional_context = Some("routing".into());
        assert!(
            out(&start).contains(r#""hookEventName":"SessionStart","additionalContext":"routing""#)
        );
        let mut prompt = reply(EventKind::UserPrompt, "beforeagent", Verdict::NoOpinion);
        prompt.additional_context = Some("state".into());
        assert_eq!(
            out(&prompt),
            r#"{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"state"}}"#
        );
        let mut compress = reply(EventKind::PreCompact, "precompress", Verdict::NoOpinion);
        compress.additional_context = Some("x".into());
        assert_eq!(out(&compress), "");
    }
}
