//! What the agent reads instead of a large output: the output is indexed whole as a new
//! source, and the reply carries the parts matching an intent (else head and tail), the
//! distinctive terms and one `ctx_search` line — never more than OUTPUT_CAP_BYTES, never
//! cut inside a character. Used by the sandbox tools and by PostToolUse output replacement.

use std::fmt::Write as _;

use super::{SearchOptions, distinctive_terms, index_document, search};
use crate::chunk::{detect_format, floor_char_boundary};
use crate::limits::OUTPUT_CAP_BYTES;
use crate::store::{NewSource, Store, StoreError};

use crate::limits::PREVIEW_EDGE_BYTES;
/// Chunks returned for an intent.
const INTENT_RESULTS: usize = 5;
/// Searchable terms listed with indexed output.
const TERMS_SHOWN: usize = 12;

/// Indexes `text` as `source` and returns the digest the agent reads; `search_tool` is
/// the name the model knows `ctx_search` by (a hook knows its host's spelling).
pub fn index_and_digest(
    store: &mut Store,
    source: NewSource<'_>,
    text: &str,
    intent: Option<&str>,
    session_id: &str,
    search_tool: &str,
) -> Result<String, StoreError> {
    let label = source.label.to_string();
    let indexed = index_document(store, source, text, detect_format(text, None))?;
    let mut reply = format!(
        "{} of output indexed as source \"{label}\".\n",
        crate::human::bytes(text.len() as u64)
    );
    let intent = intent.map(str::trim).filter(|i| !i.is_empty());
    match intent.and_then(|intent| matches(store, &label, intent, session_id).map(|m| (intent, m)))
    {
        Some((intent, found)) => {
            let _ = writeln!(reply, "Parts matching \"{intent}\":\n{found}");
        }
        None => {
            if let Some(intent) = intent {
                let _ = writeln!(reply, "Nothing matched \"{intent}\"; head and tail:");
            }
            reply.push_str(&preview_edges(text));
        }
    }
    let terms = distinctive_terms(store, indexed.source_id, TERMS_SHOWN).unwrap_or_default();
    if !terms.is_empty() {
        let _ = writeln!(reply, "\nSearchable terms: {}", terms.join(", "));
    }
    let example = terms.first().map(String::as_str).unwrap_or("error");
    let _ = writeln!(
        reply,
        "More: {search_tool}(queries: [\"{example}\"], source: \"{label}\")"
    );
    Ok(cap_reply(reply))
}

fn matches(store: &Store, label: &str, intent: &str, session_id: &str) -> Option<String> {
    let mut options = SearchOptions::new(session_id);
    options.limit = INTENT_RESULTS;
    options.source = Some(label);
    options.include_journal = false;
    let outcome = search(store, intent, &options).ok()?;
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

/// The head and tail of a long text around an omission line.
pub fn preview_edges(text: &str) -> String {
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
        crate::human::bytes((tail_start - head_end) as u64),
        text[tail_start..].trim_end()
    )
}

/// A preview for output that could not be indexed.
pub fn preview(text: &str, note: &str) -> String {
    cap_reply(format!("{}{note}", preview_edges(text)))
}

/// Cuts a reply to OUTPUT_CAP_BYTES on a character boundary.
pub fn cap_reply(mut text: String) -> String {
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
