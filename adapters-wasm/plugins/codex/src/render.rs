//! Normalized reply → the JSON Codex CLI reads from a hook's stdout.
//!
//! Every reply exits 0 with compact JSON or nothing. PreToolUse says only "deny":
//! Codex rejects `permissionDecision: "allow"` without an input rewrite and
//! `"ask"` altogether, so letting a call run is saying nothing.

use context_mode_sdk::reply::{context_reply, hook_event};
use context_mode_sdk::{EventKind, JsonObject};

use crate::describe::EVENTS;
use context_mode_sdk::adapter::{Rendered, Reply, Verdict};
use context_mode_sdk::reply::{hook_specific_output, non_blank};

pub fn render(reply: &Reply) -> Rendered {
    let stdout = match reply.event {
        EventKind::PreToolUse => pre_tool_use(reply),
        EventKind::PostToolUse | EventKind::SessionStart => context_reply(EVENTS, reply),
        EventKind::UserPrompt => user_prompt(reply),
        EventKind::PreCompact | EventKind::Stop => None,
    };
    Rendered {
        stdout: stdout.unwrap_or_default(),
        stderr: String::new(),
        exit_code: 0,
    }
}

fn stops(reply: &Reply) -> bool {
    matches!(
        reply.verdict,
        Verdict::Redirect | Verdict::Deny | Verdict::Ask
    )
}

fn pre_tool_use(reply: &Reply) -> Option<String> {
    if !stops(reply) {
        return None;
    }
    // Codex requires a non-empty reason with a deny; it reaches the model.
    let reason = non_blank(&reply.reason).unwrap_or("denied by context-mode");
    let specific = hook_event(EVENTS, reply)
        .put("permissionDecision", "deny")
        .put("permissionDecisionReason", reason);
    Some(hook_specific_output(specific))
}

fn user_prompt(reply: &Reply) -> Option<String> {
    if stops(reply) {
        let reason = non_blank(&reply.reason).unwrap_or("denied by context-mode");
        return Some(
            JsonObject::new()
                .put("decision", "block")
                .put("reason", reason)
                .to_compact(),
        );
    }
    context_reply(EVENTS, reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(event: EventKind, native: &str, verdict: Verdict) -> Reply {
        Reply::new(event, native, verdict)
    }

    fn out(reply: &Reply) -> String {
        let rendered = render(reply);
        assert_eq!((rendered.exit_code, rendered.stderr.as_str()), (0, ""));
        rendered.stdout
    }

    #[test]
    fn letting_a_call_run_says_nothing() {
        for verdict in [Verdict::NoOpinion, Verdict::Allow] {
            let mut r = reply(EventKind::PreToolUse, "pretooluse", verdict);
            r.updated_command = Some("ignored".into());
            r.additional_context = Some("ignored".into());
            assert_eq!(out(&r), "");
        }
    }

    #[test]
    fn redirect_deny_and_ask_are_a_deny_with_the_reason() {
        for verdict in [Verdict::Redirect, Verdict::Deny, Verdict::Ask] {
            let mut r = reply(EventKind::PreToolUse, "pretooluse", verdict);
            r.reason = Some("redirected to mcp__context_mode__ctx_execute".into());
            assert_eq!(
                out(&r),
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"redirected to mcp__context_mode__ctx_execute"}}"#
            );
        }
    }

    #[test]
    fn context_on_post_tool_use_session_start_and_prompts() {
        for (kind, native, name) in [
            (EventKind::PostToolUse, "posttooluse", "PostToolUse"),
            (EventKind::SessionStart, "sessionstart", "SessionStart"),
            (
                EventKind::UserPrompt,
                "userpromptsubmit",
                "UserPromptSubmit",
            ),
        ] {
            let mut r = reply(kind, native, Verdict::NoOpinion);
            r.additional_context = Some("tip".into());
            assert_eq!(
                out(&r),
                format!(
                    r#"{{"hookSpecificOutput":{{"hookEventName":"{name}","additionalContext":"tip"}}}}"#
                )
            );
        }
        let mut blocked = reply(EventKind::UserPrompt, "userpromptsubmit", Verdict::Deny);
        blocked.reason = Some("denied by security policy".into());
        assert_eq!(
            out(&blocked),
            r#"{"decision":"block","reason":"denied by security policy"}"#
        );
        for (kind, native) in [
            (EventKind::PreCompact, "precompact"),
            (EventKind::Stop, "stop"),
        ] {
            let mut r = reply(kind, native, Verdict::NoOpinion);
            r.additional_context = Some("x".into());
            assert_eq!(out(&r), "");
        }
    }
}
