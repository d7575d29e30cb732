//! Pieces of a rendered reply that several hosts share.

use crate::adapter::{Reply, Verdict};
use crate::{EventKind, JsonObject};

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
