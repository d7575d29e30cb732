//! The text `ctx_fetch_and_index` returns: per page a source label, size, a short preview,
//! headings and terms; per failure its one line; and how to search what was indexed.
//! Always within `OUTPUT_CAP_BYTES`, previews within `FETCH_PREVIEW_BYTES` each.

use std::fmt::Write as _;

use super::tool::RequestOutcome;
use crate::limits;

const HEADINGS_SHOWN: usize = 5;
const TERMS_SHOWN: usize = 10;
const HEADING_MAX_BYTES: usize = 80;
const SOURCES_LISTED: usize = 10;

/// `search_tool` is the name the model knows `ctx_search` by.
pub fn render(outcomes: &[RequestOutcome], search_tool: &str) -> String {
    let indexed = outcomes.iter().filter(|o| o.result.is_ok()).count();
    if indexed == 0 {
        return outcomes
            .iter()
            .filter_map(|o| o.result.as_ref().err().map(ToString::to_string))
            .collect::<Vec<_>>()
            .join("\n");
    }
    let cached = outcomes
        .iter()
        .filter(|o| o.result.as_ref().is_ok_and(|p| p.cached))
        .count();
    // Previews share half the reply so a large batch still fits with its failures and footer.
    let preview_budget = (limits::OUTPUT_CAP_BYTES / 2 / indexed).min(limits::FETCH_PREVIEW_BYTES);

    let mut body = format!(
        "Indexed {indexed} of {} URL{}{}; the page text is in the index, not in this reply.\n",
        outcomes.len(),
        if outcomes.len() == 1 { "" } else { "s" },
        if cached > 0 {
            format!(" ({cached} from cache)")
        } else {
            String::new()
        },
    );
    for outcome in outcomes {
        match &outcome.result {
            Err(line) => {
                let _ = writeln!(body, "- {line}");
            }
            Ok(page) => {
                let s = &page.summary;
                let _ = write!(
                    body,
                    "- source \"{}\": {} → {} chunk{}, {}",
                    outcome.source,
                    outcome.url,
                    s.chunks,
                    if s.chunks == 1 { "" } else { "s" },
                    crate::human::bytes(s.bytes as u64)
                );
                if page.cached {
                    body.push_str(" (cached; `force: true` refetches)");
                }
                if page.truncated {
                    body.push_str(" (page over the size limit; only its start was fetched)");
                }
                body.push('\n');
                if let Some(final_url) = &page.redirected_to {
                    let _ = writeln!(body, "  redirected to {final_url}");
                }
                let headings: Vec<&str> = s
                    .headings
                    .iter()
                    .take(HEADINGS_SHOWN)
                    .map(|h| cut_at_char(h, HEADING_MAX_BYTES))
                    .collect();
                if !headings.is_empty() {
                    let _ = writeln!(body, "  headings: {}", headings.join(" · "));
                }
                if !s.terms.is_empty() {
                    let terms: Vec<&str> = s
                        .terms
                        .iter()
                        .take(TERMS_SHOWN)
                        .map(String::as_str)
                        .collect();
                    let _ = writeln!(body, "  terms: {}", terms.join(", "));
                }
                let preview = preview(&s.preview, preview_budget);
                if !preview.is_empty() {
                    let _ = writeln!(body, "  preview: {preview}");
                }
            }
        }
    }
    let footer = search_line(outcomes, search_tool);
    let room = limits::OUTPUT_CAP_BYTES.saturating_sub(footer.len() + 1);
    if body.len() > room {
        const CUT_NOTE: &str = "\n… (reply cut; every page above was indexed)\n";
        let kept = cut_at_char(&body, room.saturating_sub(CUT_NOTE.len()));
        body = format!("{kept}{CUT_NOTE}");
    }
    format!("{body}\n{footer}")
}

fn search_line(outcomes: &[RequestOutcome], search_tool: &str) -> String {
    let mut sources: Vec<&str> = Vec::new();
    for outcome in outcomes.iter().filter(|o| o.result.is_ok()) {
        if !sources.contains(&outcome.source.as_str()) {
            sources.push(&outcome.source);
        }
    }
    let first = sources.first().copied().unwrap_or_default();
    if sources.len() == 1 {
        return format!("Search it: {search_tool}(queries: [\"…\"], source: \"{first}\")");
    }
    let mut line = format!(
        "Search them: {search_tool}(queries: [\"…\"], source: \"{first}\") — sources of this call: "
    );
    let shown: Vec<String> = sources
        .iter()
        .take(SOURCES_LISTED)
        .map(|s| format!("\"{s}\""))
        .collect();
    line.push_str(&shown.join(", "));
    if sources.len() > SOURCES_LISTED {
        line.push_str(&format!(" and {} more", sources.len() - SOURCES_LISTED));
    }
    line
}

/// Whitespace collapsed, cut at a character boundary to at most `budget` bytes.
fn preview(text: &str, budget: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.len() <= budget {
        return flat;
    }
    let ellipsis = "…";
    format!(
        "{}{ellipsis}",
        cut_at_char(&flat, budget.saturating_sub(ellipsis.len()))
    )
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
pub fn cut_at_char(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fetch::tool::{IndexedSummary, PageIndexed};

    fn indexed(url: &str, source: &str, preview: &str) -> RequestOutcome {
        RequestOutcome {
            url: url.into(),
            source: source.into(),
            result: Ok(PageIndexed {
                summary: IndexedSummary {
                    chunks: 3,
                    bytes: 5_000,
                    preview: preview.into(),
                    headings: vec!["Guide > Deploy".into()],
                    terms: vec!["rollback".into(), "canary".into()],
                },
                cached: false,
                redirected_to: None,
                fetched_bytes: 9_000,
                truncated: false,
            }),
        }
    }

    #[test]
    fn one_page_reply_names_source_size_and_search() {
        let text = render(
            &[indexed(
                "http://h/docs",
                "h/docs",
                "Guide\n\nDeploy  carefully",
            )],
            "ctx_search",
        );
        assert_eq!(
            text,
            "Indexed 1 of 1 URL; the page text is in the index, not in this reply.\n\
             - source \"h/docs\": http://h/docs → 3 chunks, 4.9 KB\n  headings: Guide > Deploy\n  \
             terms: rollback, canary\n  preview: Guide Deploy carefully\n\n\
             Search it: ctx_search(queries: [\"…\"], source: \"h/docs\")"
        );
    }

    #[test]
    fn previews_and_whole_reply_stay_within_their_caps() {
        let long = "é".repeat(5_000);
        let one = render(&[indexed("http://h/a", "h/a", &long)], "ctx_search");
        let line = one
            .lines()
            .find(|l| l.starts_with("  preview: "))
            .expect("preview line");
        assert!(line.len() - "  preview: ".len() <= limits::FETCH_PREVIEW_BYTES);
        let many: Vec<RequestOutcome> = (0..200)
            .map(|i| indexed(&format!("http://h/{i}"), &format!("h/{i}"), &long))
            .collect();
        let text = render(&many, "ctx_search");
        assert!(text.len() <= limits::OUTPUT_CAP_BYTES, "{}", text.len());
        assert!(text.contains("reply cut; every page above was indexed"));
        assert!(text.ends_with("\"h/8\", \"h/9\" and 190 more"), "{text}");
    }

    #[test]
    fn all_failed_is_just_the_failure_lines() {
        let failed = RequestOutcome {
            url: "http://h/x".into(),
            source: "h/x".into(),
            result: Err(crate::fetch::FetchError::new(
                "http://h/x",
                crate::fetch::FetchFailure::Status(404),
            )
            .into()),
        };
        assert_eq!(
            render(&[failed], "ctx_search"),
            "Failed to fetch http://h/x: HTTP 404"
        );
    }

    #[test]
    fn cuts_never_split_a_character() {
        assert_eq!(cut_at_char("aé", 2), "a");
    }
}
