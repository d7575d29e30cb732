//! Normalized reply → the object the shim returns from OpenClaw's hook (**verified**
//! on 2026.9.6, ADR 29): `before_tool_call` takes `{block: true, blockReason}` (the
//! call does not run; the model gets the reason as the tool's result),
//! `{requireApproval: {title, description}}` (the user decides; an unanswered request
//! denies) and `{params}` (the complete new arguments); `before_prompt_build` takes
//! `{prependContext}` (text before the turn's prompt). Every other hook's result is
//! ignored, so `{}`; the shim hands an empty object back as "nothing".

use context_mode_sdk::reply::{non_blank, updated_input};
use context_mode_sdk::{EventKind, JsonObject};

use context_mode_sdk::adapter::{Rendered, Reply, Verdict};

const NOTHING: &str = "{}";

pub fn render(reply: &Reply) -> Rendered {
    let stdout = match reply.event {
        EventKind::PreToolUse => before_tool_call(reply),
        EventKind::UserPrompt => non_blank(&reply.additional_context)
            .map(|text| JsonObject::new().put("prependContext", text).to_compact())
            .unwrap_or_else(|| NOTHING.to_owned()),
        EventKind::PostToolUse
        | EventKind::SessionStart
        | EventKind::PreCompact
        | EventKind::Stop => NOTHING.to_owned(),
    };
    Rendered {
        stdout,
        stderr: String::new(),
        exit_code: 0,
    }
}

fn before_tool_call(reply: &Reply) -> String {
    match reply.verdict {
        Verdict::Redirect | Verdict::Deny => JsonObject::new()
            .put("block", true)
            .put(
                "blockReason",
                non_blank(&reply.reason).unwrap_or("denied by context-mode"),
            )
            .to_compact(),
        Verdict::Ask => {
            let approval = JsonObject::new()
                .put("title", "context-mode asks before this call")
                .put(
                    "description",
                    non_blank(&reply.reason).unwrap_or("context-mode asks before this call"),
                )
                .put("severity", "warning");
            JsonObject::new()
                .put("requireApproval", approval)
                .to_compact()
        }
        Verdict::Allow | Verdict::NoOpinion => match updated_input(reply) {
            Some(params) => JsonObject::new().put("params", params).to_compact(),
            None => NOTHING.to_owned(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::build_tool_call;
    use context_mode_sdk::serde_json::{Value, json};

    fn out(reply: &Reply) -> Value {
        let rendered = render(reply);
        assert_eq!((rendered.exit_code, rendered.stderr.as_str()), (0, ""));
        context_mode_sdk::serde_json::from_str(&rendered.stdout).unwrap()
    }

    fn pre(verdict: Verdict, reason: Option<&str>) -> Reply {
        let mut reply = Reply::new(EventKind::PreToolUse, "before_tool_call", verdict);
        reply.reason = reason.map(str::to_owned);
        reply.tool = Some(build_tool_call(
            "bash",
            &json!({"command": "npm test", "timeout": 60}),
        ));
        reply
    }

    #[test]
    fn a_stopped_call_blocks_with_the_reason() {
        for verdict in [Verdict::Redirect, Verdict::Deny] {
            assert_eq!(
                out(&pre(
                    verdict,
                    Some("redirected to context-mode__ctx_execute")
                )),
                json!({"block": true, "blockReason": "redirected to context-mode__ctx_execute"})
            );
        }
        assert_eq!(
            out(&pre(Verdict::Deny, None))["blockReason"],
            "denied by context-mode"
        );
    }

    #[test]
    fn an_ask_requires_approval_and_a_rewrite_gives_all_params() {
        let ask = out(&pre(Verdict::Ask, Some("matches Bash(git push *)")));
        assert_eq!(
            ask["requireApproval"]["description"],
            "matches Bash(git push *)"
        );
        let mut rewrite = pre(Verdict::Allow, None);
        rewrite.updated_command = Some("npm test 2>&1 | tail -40".into());
        assert_eq!(
            out(&rewrite),
            json!({"params": {"command": "npm test 2>&1 | tail -40", "timeout": 60}})
        );
        assert_eq!(out(&pre(Verdict::NoOpinion, None)), json!({}));
    }

    #[test]
    fn only_the_prompt_carries_context() {
        let mut prompt = Reply::new(
            EventKind::UserPrompt,
            "before_prompt_build",
            Verdict::NoOpinion,
        );
        prompt.additional_context = Some("context-mode is active".into());
        assert_eq!(
            out(&prompt),
            json!({"prependContext": "context-mode is active"})
        );
        prompt.additional_context = Some(" \n".into());
        assert_eq!(out(&prompt), json!({}));
        for (kind, native) in [
            (EventKind::SessionStart, "session_start"),
            (EventKind::PostToolUse, "after_tool_call"),
            (EventKind::PreCompact, "before_compaction"),
        ] {
            let mut reply = Reply::new(kind, native, Verdict::Deny);
            reply.additional_context = Some("held by the host instead".into());
            assert_eq!(out(&reply), json!({}));
        }
    }
}
