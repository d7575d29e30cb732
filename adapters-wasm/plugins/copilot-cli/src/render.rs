//! Normalized reply → the JSON Copilot CLI reads from a hook's stdout.
//!
//! Copilot CLI's command-hook replies are top-level objects, not Claude Code's
//! `hookSpecificOutput` envelope (reference 000; GitHub's hooks reference):
//! preToolUse `permissionDecision` (`allow|deny|ask`), `permissionDecisionReason`
//! (shown to the agent: what a redirect needs), `modifiedArgs` (the complete
//! substitute arguments), `additionalContext`; postToolUse `modifiedResult`
//! (`{resultType: "success", textResultForLlm}`, what the model gets instead of the
//! result) and `additionalContext`; userPromptSubmitted and sessionStart
//! `additionalContext`. All of it seen working on 1.0.102 but preToolUse's context. Every reply exits 0; `{}` is "no opinion" (the
//! docs accept empty output too, but 1.0.57 turned preToolUse hook *errors* into
//! denials, so the reply is always a parseable object).

use context_mode_sdk::reply::updated_input;
use context_mode_sdk::{EventKind, JsonObject};

use context_mode_sdk::adapter::{Rendered, Reply, Verdict};
use context_mode_sdk::reply::non_blank;

/// What Copilot CLI reads as "no opinion".
const NOTHING: &str = "{}";

pub fn render(reply: &Reply) -> Rendered {
    let stdout = match reply.event {
        EventKind::PreToolUse => pre_tool_use(reply),
        EventKind::PostToolUse => post_tool_use(reply),
        EventKind::UserPrompt | EventKind::SessionStart => context_only(reply),
        EventKind::PreCompact | EventKind::Stop => NOTHING.to_owned(),
    };
    Rendered {
        stdout,
        stderr: String::new(),
        exit_code: 0,
    }
}

fn pre_tool_use(reply: &Reply) -> String {
    let decision = match reply.verdict {
        Verdict::NoOpinion => None,
        Verdict::Allow => Some("allow"),
        Verdict::Redirect | Verdict::Deny => Some("deny"),
        Verdict::Ask => Some("ask"),
    };
    let stops_call = matches!(reply.verdict, Verdict::Redirect | Verdict::Deny);
    // "Required when decision is deny": never leave a denial without one.
    let reason = match decision {
        Some(_) => non_blank(&reply.reason).or(stops_call.then_some("denied by context-mode")),
        None => None,
    };
    let modified_args = if stops_call {
        None
    } else {
        updated_input(reply)
    };
    JsonObject::new()
        .put_opt("permissionDecision", decision)
        .put_opt("permissionDecisionReason", reason)
        .put_opt("modifiedArgs", modified_args)
        .put_opt("additionalContext", non_blank(&reply.additional_context))
        .to_compact()
}

/// postToolUseFailure takes no JSON answer; postToolUse may replace the result.
fn post_tool_use(reply: &Reply) -> String {
    if reply
        .native_event
        .eq_ignore_ascii_case("posttoolusefailure")
    {
        return NOTHING.to_owned();
    }
    let modified = reply.updated_output.as_deref().map(|text| {
        JsonObject::new()
            .put("resultType", "success")
            .put("textResultForLlm", text)
    });
    JsonObject::new()
        .put_opt("modifiedResult", modified)
        .put_opt("additionalContext", non_blank(&reply.additional_context))
        .to_compact()
}

fn context_only(reply: &Reply) -> String {
    JsonObject::new()
        .put_opt("additionalContext", non_blank(&reply.additional_context))
        .to_compact()
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::build_tool_call;
    use context_mode_sdk::serde_json::json;

    fn reply(event: EventKind, native: &str, verdict: Verdict) -> Reply {
        Reply::new(event, native, verdict)
    }

    fn out(reply: &Reply) -> String {
        let rendered = render(reply);
        assert_eq!((rendered.exit_code, rendered.stderr.as_str()), (0, ""));
        rendered.stdout
    }

    #[test]
    fn no_opinion_is_an_empty_object_everywhere() {
        for (kind, native) in [
            (EventKind::PreToolUse, "pretooluse"),
            (EventKind::PostToolUse, "posttooluse"),
            (EventKind::UserPrompt, "userpromptsubmit"),
            (EventKind::SessionStart, "sessionstart"),
            (EventKind::PreCompact, "precompact"),
            (EventKind::Stop, "stop"),
        ] {
            assert_eq!(
                out(&reply(kind, native, Verdict::NoOpinion)),
                "{}",
                "{native}"
            );
        }
        let mut stop = reply(EventKind::Stop, "stop", Verdict::Allow);
        stop.additional_context = Some("never read on agentStop".into());
        assert_eq!(out(&stop), "{}");
    }

    #[test]
    fn redirect_and_deny_are_top_level_denials_with_the_reason() {
        let mut r = reply(EventKind::PreToolUse, "pretooluse", Verdict::Redirect);
        r.reason = Some("use context-mode-ctx_execute".into());
        r.tool = Some(build_tool_call("bash", &json!({"command": "curl x"})));
        r.updated_command = Some("ignored".into());
        assert_eq!(
            out(&r),
            r#"{"permissionDecision":"deny","permissionDecisionReason":"use context-mode-ctx_execute"}"#
        );
        r.verdict = Verdict::Deny;
        r.reason = None;
        assert_eq!(
            out(&r),
            r#"{"permissionDecision":"deny","permissionDecisionReason":"denied by context-mode"}"#
        );
        r.verdict = Verdict::Ask;
        r.reason = Some("confirm".into());
        assert_eq!(
            out(&r),
            r#"{"permissionDecision":"ask","permissionDecisionReason":"confirm","modifiedArgs":{"command":"ignored"}}"#
        );
    }

    #[test]
    fn rewrite_sends_the_complete_modified_args() {
        let mut r = reply(EventKind::PreToolUse, "pretooluse", Verdict::Allow);
        r.tool = Some(build_tool_call(
            "bash",
            &json!({"command": "./gradlew build", "description": "Build", "mode": "sync"}),
        ));
        r.updated_command = Some("./gradlew build 2>&1 | tail -30".into());
        assert_eq!(
            out(&r),
            r#"{"permissionDecision":"allow","modifiedArgs":{"command":"./gradlew build 2>&1 | tail -30","description":"Build","mode":"sync"}}"#
        );
        let mut task = reply(EventKind::PreToolUse, "pretooluse", Verdict::NoOpinion);
        task.tool = Some(build_tool_call(
            "task",
            &json!({"agent_type": "explore", "prompt": "find"}),
        ));
        task.updated_prompt = Some("find\n\nrouting".into());
        assert_eq!(
            out(&task),
            r#"{"modifiedArgs":{"agent_type":"explore","prompt":"find\n\nrouting"}}"#
        );
    }

    #[test]
    fn context_is_top_level_and_output_is_a_modified_result() {
        let mut post = reply(EventKind::PostToolUse, "posttooluse", Verdict::NoOpinion);
        post.additional_context = Some("indexed".into());
        post.updated_output = Some("3 matching chunks".into());
        assert_eq!(
            out(&post),
            r#"{"modifiedResult":{"resultType":"success","textResultForLlm":"3 matching chunks"},"additionalContext":"indexed"}"#
        );
        post.updated_output = None;
        assert_eq!(out(&post), r#"{"additionalContext":"indexed"}"#);
        post.native_event = "posttoolusefailure".into();
        assert_eq!(out(&post), "{}");
        let mut start = reply(EventKind::SessionStart, "sessionstart", Verdict::NoOpinion);
        start.additional_context = Some("state".into());
        assert_eq!(out(&start), r#"{"additionalContext":"state"}"#);
        let mut pre = reply(EventKind::PreToolUse, "pretooluse", Verdict::NoOpinion);
        pre.additional_context = Some("tip".into());
        assert_eq!(out(&pre), r#"{"additionalContext":"tip"}"#);
        pre.additional_context = Some("  ".into());
        assert_eq!(out(&pre), "{}");
    }
}
