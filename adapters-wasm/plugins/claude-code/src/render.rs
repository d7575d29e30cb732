//! Normalized reply → the exact JSON Claude Code reads from a hook's stdout.
//!
//! Claude Code reads structured replies only on exit code 0, so every reply
//! exits 0; "nothing to say" is empty stdout. Output is compact JSON with no
//! trailing newline and a fixed key order.

use context_mode_sdk::EventKind;
use context_mode_sdk::reply::updated_input;
use context_mode_sdk::reply::{context_reply, hook_event, prompt_reply};

use crate::describe::EVENTS;
use context_mode_sdk::adapter::{Rendered, Reply, Verdict};
use context_mode_sdk::reply::{hook_specific_output, non_blank};

pub fn render(reply: &Reply) -> Rendered {
    let stdout = match reply.event {
        EventKind::PreToolUse => pre_tool_use(reply),
        EventKind::PostToolUse => post_tool_use(reply),
        EventKind::UserPrompt => prompt_reply(EVENTS, reply),
        EventKind::SessionStart => context_reply(EVENTS, reply),
        EventKind::PreCompact | EventKind::Stop => None,
    };
    Rendered {
        stdout: stdout.unwrap_or_default(),
        stderr: String::new(),
        exit_code: 0,
    }
}

fn pre_tool_use(reply: &Reply) -> Option<String> {
    // Claude shows a deny reason to the model, which is what a redirect needs.
    let decision = match reply.verdict {
        Verdict::NoOpinion => None,
        Verdict::Allow => Some("allow"),
        Verdict::Redirect | Verdict::Deny => Some("deny"),
        Verdict::Ask => Some("ask"),
    };
    let stops_call = matches!(reply.verdict, Verdict::Redirect | Verdict::Deny);
    let updated_input = if stops_call {
        None
    } else {
        updated_input(reply)
    };
    let context = non_blank(&reply.additional_context);
    if decision.is_none() && updated_input.is_none() && context.is_none() {
        return None;
    }
    let specific = hook_event(EVENTS, reply)
        .put_opt("permissionDecision", decision)
        .put_opt(
            "permissionDecisionReason",
            decision.and(non_blank(&reply.reason)),
        )
        .put_opt("updatedInput", updated_input)
        .put_opt("additionalContext", context);
    Some(hook_specific_output(specific))
}

fn post_tool_use(reply: &Reply) -> Option<String> {
    let context = non_blank(&reply.additional_context);
    // Claude Code replaces output only for MCP tools (`updatedMCPToolOutput`).
    let is_mcp_tool = reply
        .tool
        .as_ref()
        .is_some_and(|tool| tool.name.starts_with("mcp__"));
    let updated_output = reply.updated_output.as_deref().filter(|_| is_mcp_tool);
    if context.is_none() && updated_output.is_none() {
        return None;
    }
    let specific = hook_event(EVENTS, reply)
        .put_opt("additionalContext", context)
        .put_opt("updatedMCPToolOutput", updated_output);
    Some(hook_specific_output(specific))
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::replied_event;
    use context_mode_sdk::serde_json::json;
    use context_mode_sdk::{ToolCall, build_tool_call};

    fn reply(event: EventKind, verdict: Verdict) -> Reply {
        Reply::new(event, replied_event(EVENTS, "", event).cli, verdict)
    }

    fn bash(command: &str) -> ToolCall {
        build_tool_call(
            "Bash",
            &json!({"command": command, "description": "d", "timeout": 60000}),
        )
    }

    fn out(reply: &Reply) -> String {
        let rendered = render(reply);
        assert_eq!(rendered.exit_code, 0);
        assert_eq!(rendered.stderr, "");
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
    fn redirect_renders_as_deny_with_the_reason() {
        let mut r = reply(EventKind::PreToolUse, Verdict::Redirect);
        r.reason = Some("redirected to ctx_execute: run it there".to_owned());
        r.tool = Some(bash("curl https://example.com"));
        r.updated_command = Some("ignored".to_owned());
        assert_eq!(
            out(&r),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"redirected to ctx_execute: run it there"}}"#
        );
    }

    #[test]
    fn deny_and_ask_carry_their_reason() {
        let mut deny = reply(EventKind::PreToolUse, Verdict::Deny);
        deny.reason = Some("denied by security policy: Bash(sudo *)".to_owned());
        assert!(out(&deny).contains(r#""permissionDecision":"deny","permissionDecisionReason":"denied by security policy: Bash(sudo *)""#));
        let mut ask = reply(EventKind::PreToolUse, Verdict::Ask);
        ask.reason = Some("confirm".to_owned());
        assert!(
            out(&ask)
                .contains(r#""permissionDecision":"ask","permissionDecisionReason":"confirm""#)
        );
    }

    #[test]
    fn rewrite_echoes_the_complete_input() {
        let mut r = reply(EventKind::PreToolUse, Verdict::Allow);
        r.tool = Some(bash("./gradlew build"));
        r.updated_command = Some("./gradlew build 2>&1 | tail -30".to_owned());
        assert_eq!(
            out(&r),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"./gradlew build 2>&1 | tail -30","description":"d","timeout":60000}}}"#
        );
    }

    #[test]
    fn sub_agent_prompt_rewrite_without_a_decision() {
        let mut r = reply(EventKind::PreToolUse, Verdict::NoOpinion);
        r.tool = Some(build_tool_call(
            "Task",
            &json!({"description": "Find uses", "prompt": "find callers", "subagent_type": "Explore"}),
        ));
        r.updated_prompt = Some("find callers\n\nrouting block".to_owned());
        assert_eq!(
            out(&r),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"description":"Find uses","prompt":"find callers\n\nrouting block","subagent_type":"Explore"}}}"#
        );
    }

    #[test]
    fn additional_context_alone_and_blank_context_ignored() {
        let mut r = reply(EventKind::PreToolUse, Verdict::NoOpinion);
        r.additional_context = Some("tip: use ctx_search".to_owned());
        assert_eq!(
            out(&r),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"tip: use ctx_search"}}"#
        );
        r.additional_context = Some("  ".to_owned());
        assert_eq!(out(&r), "");
    }

    #[test]
    fn post_tool_use_replaces_output_only_for_mcp_tools() {
        let mut r = reply(EventKind::PostToolUse, Verdict::NoOpinion);
        r.tool = Some(build_tool_call("mcp__github__list_issues", &json!({})));
        r.updated_output = Some("3 matching chunks".to_owned());
        r.additional_context = Some("indexed as gh-issues".to_owned());
        assert_eq!(
            out(&r),
            r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"indexed as gh-issues","updatedMCPToolOutput":"3 matching chunks"}}"#
        );
        r.tool = Some(bash("ls"));
        assert_eq!(
            out(&r),
            r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"indexed as gh-issues"}}"#
        );
        r.additional_context = None;
        assert_eq!(out(&r), "");
    }

    #[test]
    fn prompt_and_session_start_inject_context() {
        let mut prompt = reply(EventKind::UserPrompt, Verdict::NoOpinion);
        prompt.additional_context = Some("related: seq 12".to_owned());
        assert_eq!(
            out(&prompt),
            r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"related: seq 12"}}"#
        );
        let mut start = reply(EventKind::SessionStart, Verdict::NoOpinion);
        start.additional_context = Some("state block".to_owned());
        assert_eq!(
            out(&start),
            r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"state block"}}"#
        );
    }

    #[test]
    fn blocked_prompt_and_silent_compact_and_stop() {
        let mut prompt = reply(EventKind::UserPrompt, Verdict::Deny);
        prompt.reason = Some("denied by security policy".to_owned());
        assert_eq!(
            out(&prompt),
            r#"{"decision":"block","reason":"denied by security policy"}"#
        );
        for event in [EventKind::PreCompact, EventKind::Stop] {
            let mut r = reply(event, Verdict::Allow);
            r.additional_context = Some("x".to_owned());
            assert_eq!(out(&r), "");
        }
    }

    #[test]
    fn rewrite_without_tool_input_still_names_the_field() {
        let mut r = reply(EventKind::PreToolUse, Verdict::Allow);
        r.updated_command = Some("ls".to_owned());
        assert_eq!(
            out(&r),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}"#
        );
    }
}
