//! Normalized reply → the JSON agy reads from a hook's stdout.
//!
//! PreToolUse always answers with a top-level `decision` (**third-party live test**,
//! agy 1.1.2): agy fails closed on a missing or malformed one (it prompts instead of
//! running), so letting a call run is an explicit `{"decision":"allow"}`, which does
//! not skip agy's own confirmation either; the fail-open reply `cm` falls back to is
//! this same allow. A stopped call is `{"decision":"deny","reason":…}`, the reason
//! reaching the model; an ask is `"ask"` (`"force_ask"` would also ignore the user's
//! "always allow" grants). This is the Gemini CLI family's flat shape; the reference
//! documents no agy reply at all, and exit code 2 is not used: how agy treats it is
//! **unverified**. PostToolUse and Stop print nothing (no reply field is known).

use context_mode_sdk::adapter::{Rendered, Reply, Verdict};
use context_mode_sdk::reply::non_blank;
use context_mode_sdk::{EventKind, JsonObject};

pub fn render(reply: &Reply) -> Rendered {
    let stdout = match reply.event {
        EventKind::PreToolUse => pre_tool_use(reply),
        _ => String::new(),
    };
    Rendered {
        stdout,
        stderr: String::new(),
        exit_code: 0,
    }
}

fn pre_tool_use(reply: &Reply) -> String {
    let decision = match reply.verdict {
        Verdict::NoOpinion | Verdict::Allow => {
            return JsonObject::new().put("decision", "allow").to_compact();
        }
        Verdict::Redirect | Verdict::Deny => "deny",
        Verdict::Ask => "ask",
    };
    let reason = non_blank(&reply.reason).unwrap_or("denied by context-mode");
    JsonObject::new()
        .put("decision", decision)
        .put("reason", reason)
        .to_compact()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(reply: &Reply) -> String {
        let rendered = render(reply);
        assert_eq!((rendered.exit_code, rendered.stderr.as_str()), (0, ""));
        rendered.stdout
    }

    #[test]
    fn pre_tool_use_always_decides() {
        for verdict in [Verdict::NoOpinion, Verdict::Allow] {
            let mut r = Reply::new(EventKind::PreToolUse, "pretooluse", verdict);
            r.updated_command = Some("ignored".into());
            r.additional_context = Some("ignored".into());
            assert_eq!(out(&r), r#"{"decision":"allow"}"#);
        }
        for (verdict, decision) in [
            (Verdict::Redirect, "deny"),
            (Verdict::Deny, "deny"),
            (Verdict::Ask, "ask"),
        ] {
            let mut r = Reply::new(EventKind::PreToolUse, "pretooluse", verdict);
            r.reason = Some("redirected to context-mode/ctx_execute".into());
            assert_eq!(
                out(&r),
                format!(
                    r#"{{"decision":"{decision}","reason":"redirected to context-mode/ctx_execute"}}"#
                )
            );
        }
    }

    #[test]
    fn post_tool_use_and_stop_are_silent() {
        for (kind, native) in [
            (EventKind::PostToolUse, "posttooluse"),
            (EventKind::Stop, "stop"),
        ] {
            let mut r = Reply::new(kind, native, Verdict::Deny);
            r.additional_context = Some("x".into());
            assert_eq!(out(&r), "");
        }
    }
}
