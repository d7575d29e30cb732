//! Output shaping of the sandbox tools: small output returns whole;
//! large output goes through [`index_and_digest`]. Failures carry the exit code,
//! stdout and the stderr tail. Nothing ever exceeds OUTPUT_CAP_BYTES.
//! [`printable`] is the last step of every tool reply the model reads.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::{Reply, Service};
use crate::limits::{OUTPUT_CAP_BYTES, REPLACE_TRIGGER_BYTES, STDERR_TAIL_BYTES};
use crate::sandbox::ExecOutcome;
use crate::search::{cap_reply, index_and_digest, preview};
use crate::store::{NewSource, SourceKind};

/// Why large output could not be indexed (the reply then carries a bounded preview).
#[derive(Debug, thiserror::Error)]
enum DigestError {
    /// The store is not there; the text is the reply a call needing it gets.
    #[error("{0}")]
    NoStore(String),
    #[error(transparent)]
    Index(crate::store::StoreError),
}

impl Service {
    /// Shapes one execution's output into the reply the agent reads, and records stats.
    pub(super) fn shape_execution(
        &self,
        tool: &str,
        what: &str,
        outcome: &ExecOutcome,
        intent: Option<&str>,
    ) -> Reply {
        let raw_bytes = outcome.stdout_total_bytes + outcome.stderr_total_bytes;
        let reply = if outcome.is_error() {
            self.shape_failure(tool, what, outcome)
        } else {
            let mut reply = self.shape_text(tool, what, &outcome.stdout, intent);
            if let Some(bg) = &outcome.background {
                reply.text = format!(
                    "still running in the background (pid {}; output continues in {})\n{}",
                    bg.pid,
                    bg.stdout_log.display(),
                    reply.text
                );
            }
            reply
        };
        self.record_stats(tool, raw_bytes, reply.text.len() as u64, false);
        reply
    }

    /// Shapes successful text output.
    pub(super) fn shape_text(
        &self,
        tool: &str,
        what: &str,
        text: &str,
        intent: Option<&str>,
    ) -> Reply {
        let has_intent = intent.is_some_and(|i| !i.trim().is_empty());
        if text.len() <= REPLACE_TRIGGER_BYTES || (!has_intent && text.len() <= OUTPUT_CAP_BYTES) {
            return Reply::ok(text);
        }
        match self.digest(tool, what, text, intent) {
            Ok(digest) => Reply::ok(digest),
            // Indexing failed: still never flood the context.
            Err(err) => {
                tracing::warn!("cannot index {tool} output: {err}");
                Reply::ok(preview(text, &format!("(output not indexed: {err})")))
            }
        }
    }

    fn shape_failure(&self, tool: &str, what: &str, outcome: &ExecOutcome) -> Reply {
        let mut head = String::new();
        if outcome.compile_failed {
            head.push_str("compile failed");
        } else if outcome.timed_out {
            let _ = write!(
                head,
                "timed out after {} ms; the process group was stopped; output so far",
                outcome.duration.as_millis()
            );
        } else if let Some(code) = outcome.exit_code {
            let _ = write!(head, "exit code {code}");
        } else if let Some(signal) = outcome.signal {
            let _ = write!(head, "killed by signal {signal}");
        }
        let stderr = outcome.stderr_tail(STDERR_TAIL_BYTES);
        let stderr_block = if stderr.trim().is_empty() {
            String::new()
        } else {
            format!("\nstderr (tail):\n{}", stderr.trim_end())
        };
        let budget = OUTPUT_CAP_BYTES.saturating_sub(head.len() + stderr_block.len() + 400);
        let stdout = &outcome.stdout;
        let body = if stdout.len() <= budget {
            stdout.trim_end().to_string()
        } else {
            self.digest(tool, what, stdout, None)
                .unwrap_or_else(|_| preview(stdout, ""))
                .trim_end()
                .to_string()
        };
        let mut text = head;
        if !body.is_empty() {
            let _ = write!(text, "\nstdout:\n{body}");
        }
        text.push_str(&stderr_block);
        Reply {
            text: cap_reply(text),
            is_error: true,
        }
    }

    fn digest(
        &self,
        tool: &str,
        what: &str,
        text: &str,
        intent: Option<&str>,
    ) -> Result<String, DigestError> {
        let label = self.source_label(tool.trim_start_matches("ctx_"), what);
        let mut store = self
            .store()
            .map_err(|reply| DigestError::NoStore(reply.text))?;
        let session_id = self.session_id();
        let source = NewSource::new(&label, SourceKind::Execute, Some(&session_id), text.len());
        let names = self.reply_names();
        let search = names.name("ctx_search");
        index_and_digest(&mut store, source, text, intent, &session_id, search)
            .map_err(DigestError::Index)
    }
}

/// Text the model can read: control characters (a NUL or BEL a program printed,
/// binary bytes in a fetched page) become their visible Unicode control pictures
/// (`␀`, `␇`), ANSI colour and cursor sequences are dropped, a CR before a newline
/// is dropped; newlines and tabs stay. Borrowed when there is nothing to change.
pub fn printable(text: &str) -> Cow<'_, str> {
    let needs_change = |c: char| c.is_control() && c != '\n' && c != '\t';
    let Some(first) = text.find(needs_change) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    let mut chars = text[first..].chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\u{1b}' if chars.peek() == Some(&'[') => {
                // CSI: parameters and intermediates up to one final byte in @..~.
                chars.next();
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            // C0 controls have pictures at U+2400 + code; DEL's is U+2421.
            '\0'..='\u{1f}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}')),
            '\u{7f}' => out.push('\u{2421}'),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn control_characters_become_visible_and_lines_stay() {
        assert_eq!(printable("a\0b\x07c"), "a\u{2400}b\u{2407}c");
        assert_eq!(printable("one\r\ntwo\tthree\n"), "one\ntwo\tthree\n");
        assert_eq!(
            printable("\x1b[1;31mred\x1b[0m \x7f\u{85}"),
            "red \u{2421}\u{fffd}"
        );
        assert_eq!(printable("lone\rcr"), "lone\u{240d}cr");
        assert!(matches!(
            printable("plain\ttext\n"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
