//! Pieces of a rendered reply that several hosts share.

use serde_json::Value;

use crate::adapter::{Reply, Verdict};
use crate::json::to_compact;
use crate::tool_call::{COMMAND_KEYS, PROMPT_KEYS, replace_input_field};
use crate::{EventKind, HostEvent, JsonObject, replied_event};

impl Reply {
    /// A reply with only its event and verdict, every optional part empty.
    pub fn new(event: EventKind, native_event: &str, verdict: Verdict) -> Reply {
        Reply {
            event,
            native_event: native_event.to_owned(),
            verdict,
            reason: None,
            tool: None,
            updated_command: None,
            updated_prompt: None,
            updated_output: None,
            additional_context: None,
        }
    }
}

/// A reply's text when it says something: `None` when absent or blank.
pub fn non_blank(text: &Option<String>) -> Option<&str> {
    text.as_deref().filter(|text| !text.trim().is_empty())
}

/// `{"hookSpecificOutput": <specific>}`, compact: the envelope Claude Code, Codex CLI
/// and Gemini CLI read an event's specific answer from.
pub fn hook_specific_output(specific: JsonObject) -> String {
    JsonObject::new()
        .put("hookSpecificOutput", specific)
        .to_compact()
}

/// `{"hookEventName": <the host's name for the event answered>}`: how Claude-shaped
/// replies (Claude Code, Codex, Gemini CLI, Qwen Code, Kimi, VS Code) start their
/// specific answer.
pub fn hook_event(events: &'static [HostEvent], reply: &Reply) -> JsonObject {
    let event = replied_event(events, &reply.native_event, reply.event);
    JsonObject::new().put("hookEventName", event.name)
}

/// The reply of an event whose only answer is context:
/// `{"hookSpecificOutput":{"hookEventName":…,"additionalContext":…}}`, or nothing.
pub fn context_reply(events: &'static [HostEvent], reply: &Reply) -> Option<String> {
    let context = non_blank(&reply.additional_context)?;
    Some(hook_specific_output(
        hook_event(events, reply).put("additionalContext", context),
    ))
}

/// A prompt stopped the Claude way, `{"decision":"block","reason":…}`, for a redirect
/// or a deny; else the prompt's context, if any.
pub fn prompt_reply(events: &'static [HostEvent], reply: &Reply) -> Option<String> {
    if matches!(reply.verdict, Verdict::Redirect | Verdict::Deny) {
        let blocked = JsonObject::new()
            .put("decision", "block")
            .put_opt("reason", non_blank(&reply.reason));
        return Some(blocked.to_compact());
    }
    context_reply(events, reply)
}

/// The complete original input with `command` and/or `prompt` replaced, for hosts that
/// take a whole new input (Claude Code's `updatedInput`, Copilot CLI's `modifiedArgs`,
/// VS Code's `updatedInput`, which must still match the tool's schema); `None` when the
/// reply rewrites nothing.
pub fn updated_input(reply: &Reply) -> Option<Value> {
    if reply.updated_command.is_none() && reply.updated_prompt.is_none() {
        return None;
    }
    let mut input_json = reply
        .tool
        .as_ref()
        .map(|tool| tool.input_json.clone())
        .unwrap_or_default();
    let mut updated = None;
    for (new_value, keys) in [
        (&reply.updated_command, COMMAND_KEYS),
        (&reply.updated_prompt, PROMPT_KEYS),
    ] {
        if let Some(new_value) = new_value {
            let value = replace_input_field(&input_json, keys, new_value);
            input_json = to_compact(&value);
            updated = Some(value);
        }
    }
    updated
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_text_is_no_text_and_the_envelope_is_compact() {
        assert_eq!(non_blank(&None), None);
        assert_eq!(non_blank(&Some(" \n".to_owned())), None);
        assert_eq!(non_blank(&Some(" tip ".to_owned())), Some(" tip "));
        assert_eq!(
            hook_specific_output(JsonObject::new().put("hookEventName", "Stop")),
            r#"{"hookSpecificOutput":{"hookEventName":"Stop"}}"#
        );
    }
}
