//! Output shaping (DESIGN §4 "Output rules"): small output returns whole; large output
//! is indexed whole and replaced by what matches the intent, or by a head/tail preview,
//! with the source label and one `ctx_search` line. Failures carry the exit code, stdout
//! and the stderr tail. Nothing ever exceeds OUTPUT_CAP_BYTES, and no cut splits a character.

use std::fmt::Write as _;

use super::{Reply, Service};
use crate::chunk::{detect_format, floor_char_boundary};
use crate::limits::{OUTPUT_CAP_BYTES, REPLACE_TRIGGER_BYTES, STDERR_TAIL_BYTES};
use crate::sandbox::ExecOutcome;
use crate::search::{SearchOptions, distinctive_terms, index_document, search};
use crate::store::{NewSource, SourceKind};

/// Bytes of the head and of the tail shown in a preview of unindexed-intent output.
const PREVIEW_EDGE_BYTES: usize = 1_536;
/// Chunks returned for an intent.
const INTENT_RESULTS: usize = 5;
/// Searchable terms listed with indexed output.
const TERMS_SHOWN: usize = 12;

/// Where large output went, for the reply.
struct Indexed {
    label: String,
    source_id: i64,
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
        let intent = intent.map(str::trim).filter(|i| !i.is_empty());
        if text.len() <= REPLACE_TRIGGER_BYTES
            || (intent.is_none() && text.len() <= OUTPUT_CAP_BYTES)
        {
            return Reply::ok(text);
        }
        let indexed = match self.index_output(tool, what, text) {
            Ok(indexed) => indexed,
            // Indexing failed: still never flood the context.
            Err(err) => {
                tracing::warn!("cannot index {tool} output: {err}");
                return Reply::ok(preview(text, &format!("(output not indexed: {err})")));
            }
        };
        let mut reply = format!(
            "{} of output indexed as source \"{}\".\n",
            crate::search::human_bytes(text.len() as u64),
            indexed.label
        );
        if let Some(intent) = intent {
            match self.intent_matches(&indexed, intent) {
                Some(matches) => {
                    let _ = writeln!(reply, "Parts matching \"{intent}\":\n{matches}");
                }
                None => {
                    let _ = writeln!(reply, "Nothing matched \"{intent}\"; head and tail:");
                    reply.push_str(&preview_edges(text));
                }
            }
        } else {
            reply.push_str(&preview_edges(text));
        }
        reply.push_str(&self.search_hint(&indexed));
        Reply::ok(cap_reply(reply))
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
            match self.index_output(tool, what, stdout) {
                Ok(indexed) => format!(
                    "{}{}",
                    preview_edges(stdout),
                    self.search_hint(&indexed).trim_end()
                ),
                Err(_) => preview(stdout, ""),
            }
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

    fn index_output(&self, tool: &str, what: &str, text: &str) -> Result<Indexed, String> {
        let label = self.source_label(tool.trim_start_matches("ctx_"), what);
        let mut store = self.store().map_err(|r| r.text)?;
        let source = NewSource::new(
            &label,
            SourceKind::Execute,
            Some(&self.session_id),
            text.len(),
        );
        let indexed = index_document(&mut store, source, text, detect_format(text, None))
            .map_err(|e| e.to_string())?;
        Ok(Indexed {
            label,
            source_id: indexed.source_id,
        })
    }

    fn intent_matches(&self, indexed: &Indexed, intent: &str) -> Option<String> {
        let store = self.store().ok()?;
        let mut options = SearchOptions::new(&self.session_id);
        options.limit = INTENT_RESULTS;
        options.source = Some(&indexed.label);
        options.include_journal = false;
        let outcome = search(&store, intent, &options).ok()?;
        if outcome.hits.is_empty() {
            return None;
        }
        let budget = OUTPUT_CAP_BYTES - 1_200;
        let mut text = String::new();
        for hit in &outcome.hits {
            let title = if hit.title.is_empty() {
                String::new()
            } else {
                format!(" › {}", hit.title)
            };
            let entry = format!("---{title}\n{}\n", hit.snippet.trim_end());
            if text.len() + entry.len() > budget {
                break;
            }
            text.push_str(&entry);
        }
        Some(text)
    }

    fn search_hint(&self, indexed: &Indexed) -> String {
        let terms = self
            .store()
            .ok()
            .and_then(|store| distinctive_terms(&store, indexed.source_id, TERMS_SHOWN).ok())
            .unwrap_or_default();
        let mut hint = String::new();
        if !terms.is_empty() {
            let _ = writeln!(hint, "\nSearchable terms: {}", terms.join(", "));
        }
        let example = terms.first().map(String::as_str).unwrap_or("error");
        let _ = writeln!(
            hint,
            "More: ctx_search(queries: [\"{example}\"], source: \"{}\")",
            indexed.label
        );
        hint
    }
}

/// The head and tail of a long text around an omission line.
fn preview_edges(text: &str) -> String {
    if text.len() <= 2 * PREVIEW_EDGE_BYTES {
        return format!("{}\n", text.trim_end());
    }
    let head_end = floor_char_boundary(text, PREVIEW_EDGE_BYTES);
    let head_end = text[..head_end].rfind('\n').map_or(head_end, |i| i + 1);
    let mut tail_start = floor_char_boundary(text, text.len() - PREVIEW_EDGE_BYTES);
    while !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    let tail_start = text[tail_start..]
        .find('\n')
        .map_or(tail_start, |i| tail_start + i + 1);
    format!(
        "{}\n[… {} omitted …]\n{}\n",
        text[..head_end].trim_end(),
        crate::search::human_bytes((tail_start - head_end) as u64),
        text[tail_start..].trim_end()
    )
}

/// A preview for output that could not be indexed.
fn preview(text: &str, note: &str) -> String {
    cap_reply(format!("{}{note}", preview_edges(text)))
}

/// Cuts a reply to OUTPUT_CAP_BYTES on a character boundary.
pub(super) fn cap_reply(mut text: String) -> String {
    if text.len() > OUTPUT_CAP_BYTES {
        let marker = "\n[… cut at the output cap …]";
        let end = floor_char_boundary(&text, OUTPUT_CAP_BYTES - marker.len());
        text.truncate(end);
        text.push_str(marker);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preview_keeps_head_and_tail_whole_lines_and_characters() {
        let text: String = (0..2_000).map(|i| format!("línea {i} ✓\n")).collect();
        let shown = preview_edges(&text);
        assert!(shown.starts_with("línea 0 ✓\n"));
        assert!(shown.trim_end().ends_with("línea 1999 ✓"));
        assert!(shown.contains("omitted"));
        assert!(shown.len() < 2 * PREVIEW_EDGE_BYTES + 100);
    }

    #[test]
    fn cap_never_exceeds_the_limit_nor_splits_a_character() {
        let text = "é".repeat(OUTPUT_CAP_BYTES);
        let capped = cap_reply(text);
        assert!(capped.len() <= OUTPUT_CAP_BYTES);
        assert!(capped.ends_with("cap …]"));
    }
}
