//! Normalized reply → the reply object the shim applies (its fields in `opencode_wire`). Every
//! reply exits 0 and is one JSON object; `{}` leaves the host's event as it was.
//!
//! - `tool.execute.before`: a call that must not run → `block` with the reason (the
//!   model reads it as the tool's error, **verified**); OpenCode asks the user only
//!   through its own permission rules, so an ask arrives here as a denial; a rewrite
//!   → `args`, the complete input with the command or prompt replaced;
//! - `tool.execute.after`: `output` replaces the result, `append` adds context after it
//!   (both land in the tool result the model reads, **verified**);
//! - `experimental.chat.system.transform`: `system`, one more system-prompt entry;
//! - `chat.message`, `experimental.session.compacting`: nothing to say.

use crate::adapter::{Rendered, Reply, Verdict};
use crate::reply::{non_blank, updated_input};
use crate::{EventKind, JsonObject};

pub fn render_opencode_reply(reply: &Reply) -> Rendered {
    let context = non_blank(&reply.additional_context);
    let object = match reply.event {
        EventKind::PreToolUse => pre_tool_use(reply),
        EventKind::PostToolUse => JsonObject::new()
            .put_opt("output", reply.updated_output.as_deref())
            .put_opt("append", context),
        EventKind::SessionStart => JsonObject::new().put_opt("system", context),
        EventKind::UserPrompt | EventKind::PreCompact | EventKind::Stop => JsonObject::new(),
    };
    Rendered {
        stdout: object.to_compact(),
        stderr: String::new(),
        exit_code: 0,
    }
}

fn pre_tool_use(reply: &Reply) -> JsonObject {
    match reply.verdict {
        Verdict::Redirect | Verdict::Deny | Verdict::Ask => JsonObject::new().put(
            "block",
            non_blank(&reply.reason).unwrap_or("denied by context-mode"),
        ),
        Verdict::NoOpinion | Verdict::Allow => {
            JsonObject::new().put_opt("args", updated_input(reply))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ToolCall, ToolKind};

    fn reply(event: EventKind, native: &str, verdict: Verdict) -> Reply {
        Reply::new(event, native, verdict)
    }

    #[test]
    fn a_stopped_call_throws_the_reason() {
        for verdict in [Verdict::Redirect, Verdict::Deny, Verdict::Ask] {
            let mut r = reply(EventKind::PreToolUse, "tool.execute.before", verdict);
            r.reason = Some("redirected to context-mode_ctx_execute(…)".into());
            let out = render_opencode_reply(&r);
            assert_eq!(
                out.stdout,
                r#"{"block":"redirected to context-mode_ctx_execute(…)"}"#
            );
            assert_eq!((out.exit_code, out.stderr.as_str()), (0, ""));
        }
        let blank = render_opencode_reply(&reply(
            EventKind::PreToolUse,
            "tool.execute.before",
            Verdict::Deny,
        ));
        assert_eq!(blank.stdout, r#"{"block":"denied by context-mode"}"#);
    }

    #[test]
    fn a_rewrite_is_the_whole_input() {
        let mut r = reply(EventKind::PreToolUse, "tool.execute.before", Verdict::Allow);
        let mut tool = ToolCall::new("bash", ToolKind::Shell);
        tool.input_json = r#"{"command":"npm test","description":"tests","timeout":60}"#.into();
        r.tool = Some(tool);
        r.updated_command = Some("npm test 2>&1 | tail -n 40".into());
        assert_eq!(
            render_opencode_reply(&r).stdout,
            r#"{"args":{"command":"npm test 2>&1 | tail -n 40","description":"tests","timeout":60}}"#
        );
        let quiet = render_opencode_reply(&reply(
            EventKind::PreToolUse,
            "tool.execute.before",
            Verdict::Allow,
        ));
        assert_eq!(quiet.stdout, "{}");
    }

    #[test]
    fn results_prompts_and_the_system_prompt() {
        let mut after = reply(
            EventKind::PostToolUse,
            "tool.execute.after",
            Verdict::NoOpinion,
        );
        after.updated_output = Some("digest".into());
        after.additional_context = Some("state".into());
        assert_eq!(
            render_opencode_reply(&after).stdout,
            r#"{"output":"digest","append":"state"}"#
        );
        let mut start = reply(
            EventKind::SessionStart,
            "experimental.chat.system.transform",
            Verdict::NoOpinion,
        );
        start.additional_context = Some("context-mode is active".into());
        assert_eq!(
            render_opencode_reply(&start).stdout,
            r#"{"system":"context-mode is active"}"#
        );
        for (kind, native) in [
            (EventKind::UserPrompt, "chat.message"),
            (EventKind::PreCompact, "experimental.session.compacting"),
        ] {
            let mut r = reply(kind, native, Verdict::Deny);
            r.additional_context = Some("ignored".into());
            assert_eq!(render_opencode_reply(&r).stdout, "{}");
        }
    }
}
