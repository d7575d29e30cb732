//! Normalized reply → what Kimi Code CLI reads from a hook.
//!
//! **Verified** (`externalHooks/internal/runHook.ts`): on exit 0 Kimi parses stdout as
//! JSON and reads a top-level `message` (or `hookSpecificOutput.message`) and
//! `hookSpecificOutput.permissionDecision`; only `"deny"` means anything, with
//! `permissionDecisionReason` as the reason the model reads ("Blocked by <event>
//! hook" when empty). Exit 2 blocks too, with stderr as the reason; every reply here
//! exits 0 and says it in JSON (the reference's `hookSpecificOutput` deny form).
//! `hookEventName` is not read by Kimi; it is written for symmetry with the
//! Claude-family replies and for the logs. A UserPromptSubmit `message` is appended to
//! the turn as `<hook_result hook_event="UserPromptSubmit">…</hook_result>`.

use context_mode_sdk::reply::hook_event;
use context_mode_sdk::{EventKind, JsonObject};

use crate::describe::EVENTS;
use context_mode_sdk::adapter::{Rendered, Reply, Verdict};
use context_mode_sdk::reply::{hook_specific_output, non_blank};

pub fn render(reply: &Reply) -> Rendered {
    let stdout = match reply.event {
        EventKind::PreToolUse => stops(reply).then(|| deny(reply)),
        EventKind::UserPrompt => user_prompt(reply),
        EventKind::PostToolUse
        | EventKind::SessionStart
        | EventKind::PreCompact
        | EventKind::Stop => None,
    };
    Rendered {
        stdout: stdout.unwrap_or_default(),
        stderr: String::new(),
        exit_code: 0,
    }
}

/// A redirect, a deny, or an ask Kimi cannot put to the user: the call must not run.
fn stops(reply: &Reply) -> bool {
    matches!(
        reply.verdict,
        Verdict::Redirect | Verdict::Deny | Verdict::Ask
    )
}

fn deny(reply: &Reply) -> String {
    let reason = non_blank(&reply.reason).unwrap_or("denied by context-mode");
    hook_specific_output(
        hook_event(EVENTS, reply)
            .put("permissionDecision", "deny")
            .put("permissionDecisionReason", reason),
    )
}

fn user_prompt(reply: &Reply) -> Option<String> {
    if stops(reply) {
        return Some(deny(reply));
    }
    let context = non_blank(&reply.additional_context)?;
    Some(JsonObject::new().put("message", context).to_compact())
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
    fn letting_a_call_run_says_nothing_and_rewrites_are_never_sent() {
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
            r.reason = Some("redirected to mcp__context-mode__ctx_execute".into());
            assert_eq!(
                out(&r),
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"redirected to mcp__context-mode__ctx_execute"}}"#
            );
        }
        let blank = reply(EventKind::PreToolUse, "pretooluse", Verdict::Deny);
        assert!(out(&blank).contains(r#""permissionDecisionReason":"denied by context-mode""#));
    }

    #[test]
    fn prompts_carry_a_message_or_a_deny_and_the_rest_is_silent() {
        let mut prompt = reply(
            EventKind::UserPrompt,
            "userpromptsubmit",
            Verdict::NoOpinion,
        );
        prompt.additional_context = Some("state block".into());
        assert_eq!(out(&prompt), r#"{"message":"state block"}"#);
        let mut blocked = reply(EventKind::UserPrompt, "userpromptsubmit", Verdict::Deny);
        blocked.reason = Some("denied by security policy".into());
        assert_eq!(
            out(&blocked),
            r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","permissionDecision":"deny","permissionDecisionReason":"denied by security policy"}}"#
        );
        for (kind, native) in [
            (EventKind::PostToolUse, "posttooluse"),
            (EventKind::PostToolUse, "posttoolusefailure"),
            (EventKind::SessionStart, "sessionstart"),
            (EventKind::PreCompact, "precompact"),
            (EventKind::Stop, "stop"),
        ] {
            let mut r = reply(kind, native, Verdict::NoOpinion);
            r.additional_context = Some("x".into());
            assert_eq!(out(&r), "", "{native}");
        }
    }
}
