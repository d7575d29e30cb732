//! Normalized reply → the JSON Qwen Code reads from a hook's stdout: Claude Code's
//! shape (`hookSpecificOutput` with `hookEventName`), limited to what Qwen Code 0.24.4
//! acts on (see `describe`).
//!
//! Every reply exits 0 (exit code 2 would hand stderr to the model as an error); "no
//! opinion" is empty stdout, which Qwen reads as success with nothing to add (any
//! other non-JSON stdout would be added to the model's context on SessionStart and
//! UserPromptSubmit). PreToolUse carries `permissionDecision` and its reason only:
//! Qwen drops `updatedInput` and `additionalContext` there, and reads no replacement
//! output anywhere, so neither is ever rendered.

use context_mode_sdk::EventKind;
use context_mode_sdk::reply::{context_reply, hook_event, prompt_reply};

use crate::describe::EVENTS;
use context_mode_sdk::adapter::{Rendered, Reply, Verdict};
use context_mode_sdk::reply::{hook_specific_output, non_blank};

pub fn render(reply: &Reply) -> Rendered {
    let stdout = match reply.event {
        EventKind::PreToolUse => pre_tool_use(reply),
        EventKind::UserPrompt => prompt_reply(EVENTS, reply),
        EventKind::PostToolUse | EventKind::SessionStart => context_reply(EVENTS, reply),
        EventKind::PreCompact | EventKind::Stop => None,
    };
    Rendered {
        stdout: stdout.unwrap_or_default(),
        stderr: String::new(),
        exit_code: 0,
    }
}

fn pre_tool_use(reply: &Reply) -> Option<String> {
    let decision = match reply.verdict {
        Verdict::NoOpinion => return None,
        Verdict::Allow => "allow",
        // Qwen returns a denial's reason to the model as the tool's error.
        Verdict::Redirect | Verdict::Deny => "deny",
        Verdict::Ask => "ask",
    };
    let reason = non_blank(&reply.reason).or(match reply.verdict {
        Verdict::Redirect | Verdict::Deny => Some("denied by context-mode"),
        _ => None,
    });
    Some(hook_specific_output(
        hook_event(EVENTS, reply)
            .put("permissionDecision", decision)
            .put_opt("permissionDecisionReason", reason),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::build_tool_call;
    use context_mode_sdk::replied_event;
    use context_mode_sdk::serde_json::json;

    fn reply(event: EventKind, verdict: Verdict) -> Reply {
        Reply::new(event, replied_event(EVENTS, "", event).cli, verdict)
    }

    fn out(reply: &Reply) -> String {
        let rendered = render(reply);
        assert_eq!((rendered.exit_code, rendered.stderr.as_str()), (0, ""));
        rendered.stdout
    }

    #[test]
    fn no_opinion_is_silent() {
        for event in [
            EventKind::PreToolUse,
            EventKind::PostToolUse,
            EventKind::UserPrompt,
            EventKind::SessionStart,
            EventKind::PreCompact,
            EventKind::Stop,
        ] {
            assert_eq!(out(&reply(event, Verdict::NoOpinion)), "", "{event:?}");
        }
    }

    #[test]
    fn redirect_deny_and_ask_carry_their_reason() {
        let mut r = reply(EventKind::PreToolUse, Verdict::Redirect);
        r.reason = Some("use mcp__context-mode__ctx_execute".to_owned());
        assert_eq!(
            out(&r),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"use mcp__context-mode__ctx_execute"}}"#
        );
        r.verdict = Verdict::Ask;
        assert!(out(&r).contains(r#""permissionDecision":"ask""#));
        r.verdict = Verdict::Deny;
        r.reason = None;
        assert!(out(&r).contains(r#""permissionDecisionReason":"denied by context-mode""#));
    }

    #[test]
    fn no_input_rewrite_no_pre_tool_context_no_output_replacement() {
        let mut r = reply(EventKind::PreToolUse, Verdict::Allow);
        r.tool = Some(build_tool_call(
            "run_shell_command",
            &json!({"command": "./gradlew build"}),
        ));
        r.updated_command = Some("./gradlew build 2>&1 | tail -30".to_owned());
        r.additional_context = Some("tip".to_owned());
        assert_eq!(
            out(&r),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#
        );
        let mut post = reply(EventKind::PostToolUse, Verdict::NoOpinion);
        post.tool = Some(build_tool_call("mcp__github__list_issues", &json!({})));
        post.updated_output = Some("3 chunks".to_owned());
        assert_eq!(out(&post), "");
        post.additional_context = Some("indexed as gh-issues".to_owned());
        assert_eq!(
            out(&post),
            r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"indexed as gh-issues"}}"#
        );
        let failure = Reply {
            native_event: "posttoolusefailure".to_owned(),
            ..post.clone()
        };
        assert!(out(&failure).contains(r#""hookEventName":"PostToolUseFailure""#));
    }

    #[test]
    fn prompt_and_session_start() {
        let mut prompt = reply(EventKind::UserPrompt, Verdict::NoOpinion);
        prompt.additional_context = Some("related: seq 12".to_owned());
        assert_eq!(
            out(&prompt),
            r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"related: seq 12"}}"#
        );
        prompt.verdict = Verdict::Deny;
        prompt.reason = Some("denied by security policy".to_owned());
        assert_eq!(
            out(&prompt),
            r#"{"decision":"block","reason":"denied by security policy"}"#
        );
        let mut start = reply(EventKind::SessionStart, Verdict::NoOpinion);
        start.additional_context = Some("state block".to_owned());
        assert_eq!(
            out(&start),
            r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"state block"}}"#
        );
        let mut stop = reply(EventKind::Stop, Verdict::Allow);
        stop.additional_context = Some("x".to_owned());
        assert_eq!(out(&stop), "");
    }
}
