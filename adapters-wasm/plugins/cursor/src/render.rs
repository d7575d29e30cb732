//! Normalized reply → the JSON Cursor reads from a hook's stdout.
//!
//! Cursor expects a JSON object from every hook; `{}` is "no opinion". A stopped
//! call carries its reason twice: `user_message` for the person, `agent_message`
//! for the model, which is what a redirect needs.

use context_mode_sdk::{EventKind, JsonObject};

use context_mode_sdk::adapter::{Rendered, Reply, Verdict};

/// What Cursor reads as "no opinion": an empty object.
const NOTHING: &str = "{}";

pub fn render(reply: &Reply) -> Rendered {
    let stdout = match reply.event {
        EventKind::PreToolUse => pre_tool_use(reply),
        _ => NOTHING.to_owned(),
    };
    Rendered {
        stdout,
        stderr: String::new(),
        exit_code: 0,
    }
}

fn pre_tool_use(reply: &Reply) -> String {
    let permission = match reply.verdict {
        Verdict::NoOpinion => return NOTHING.to_owned(),
        Verdict::Allow => return JsonObject::new().put("permission", "allow").to_compact(),
        Verdict::Redirect | Verdict::Deny => "deny",
        Verdict::Ask => "ask",
    };
    let reason = reply
        .reason
        .as_deref()
        .filter(|reason| !reason.trim().is_empty())
        .unwrap_or("denied by context-mode");
    JsonObject::new()
        .put("permission", permission)
        .put("user_message", reason)
        .put("agent_message", reason)
        .to_compact()
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
    fn no_opinion_is_an_empty_object_everywhere() {
        for (kind, native) in [
            (EventKind::PreToolUse, "pretooluse"),
            (EventKind::PostToolUse, "posttooluse"),
            (EventKind::Stop, "stop"),
        ] {
            let mut r = reply(kind, native, Verdict::NoOpinion);
            r.additional_context = Some("never shown to Cursor's model".into());
            assert_eq!(out(&r), "{}");
        }
    }

    #[test]
    fn deny_redirect_and_ask_reach_user_and_agent() {
        let mut r = reply(EventKind::PreToolUse, "pretooluse", Verdict::Redirect);
        r.reason = Some("redirected to ctx_execute".into());
        assert_eq!(
            out(&r),
            r#"{"permission":"deny","user_message":"redirected to ctx_execute","agent_message":"redirected to ctx_execute"}"#
        );
        r.verdict = Verdict::Ask;
        assert!(out(&r).starts_with(r#"{"permission":"ask","#));
        r.verdict = Verdict::Allow;
        assert_eq!(out(&r), r#"{"permission":"allow"}"#);
    }
}
