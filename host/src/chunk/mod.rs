//! Cutting text into searchable chunks of at most `MAX_CHUNK_BYTES`: markdown by
//! headings, JSON by key path, HTML via markdown, everything else by line groups.
//! Every cut lands on a UTF-8 character boundary.

mod classify;
mod html;
mod json;
mod markdown;
mod split;
mod substring;
mod text;

pub use classify::looks_like_code;
pub use split::{floor_char_boundary, split_to_fit};
pub use substring::{has_cjk, needs_substring_index, substring_index_text, substring_tokens};

/// Whether a chunk is mostly code or mostly prose (the `contentType` search filter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContentType {
    Code,
    Prose,
}

impl ContentType {
    pub fn as_str(self) -> &'static str {
        match self {
            ContentType::Code => "code",
            ContentType::Prose => "prose",
        }
    }

    /// `"code"` or `"prose"` (any case).
    pub fn parse(text: &str) -> Option<ContentType> {
        match text.trim().to_ascii_lowercase().as_str() {
            "code" => Some(ContentType::Code),
            "prose" | "text" => Some(ContentType::Prose),
            _ => None,
        }
    }
}

/// One piece of indexed text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Heading path ("Guide > Deploy > Rollback"), JSON key path (`data.items[3]`) or
    /// line range ("lines 41-80").
    pub title: String,
    pub content: String,
    pub content_type: ContentType,
}

/// How to read a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Json,
    Html,
    /// Source code: line groups, every chunk typed as code.
    Code,
    /// Logs and plain text: line groups, typed per chunk.
    Text,
}

/// Picks a format from the file name's extension when there is one, else from the text.
pub fn detect_format(text: &str, name: Option<&str>) -> Format {
    if let Some(format) = name.and_then(format_from_name) {
        return format;
    }
    let head = &text[..floor_char_boundary(text, 64 * 1024)];
    let trimmed = head.trim_start();
    if trimmed.starts_with(['{', '[']) && json::is_json(text) {
        return Format::Json;
    }
    if trimmed.starts_with('<') {
        let probe = trimmed[..floor_char_boundary(trimmed, 1024)].to_ascii_lowercase();
        if probe.contains("<!doctype html") || probe.contains("<html") || probe.contains("<body") {
            return Format::Html;
        }
    }
    if markdown::has_markdown_structure(head) {
        return Format::Markdown;
    }
    Format::Text
}

fn format_from_name(name: &str) -> Option<Format> {
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "md" | "markdown" | "mdx" | "mdc" | "rst" => Format::Markdown,
        "json" | "jsonc" | "geojson" => Format::Json,
        "html" | "htm" | "xhtml" => Format::Html,
        "txt" | "log" | "csv" | "tsv" | "out" | "text" => Format::Text,
        _ if classify::is_code_extension(&ext) => Format::Code,
        _ => return None,
    })
}

/// Chunks `text` read as `format`. Text that is not valid in its format (broken JSON)
/// falls back to line groups. Empty input gives no chunks.
pub fn chunk_text(text: &str, format: Format) -> Vec<Chunk> {
    let normalized;
    let text = if text.contains('\r') {
        normalized = text.replace("\r\n", "\n");
        normalized.as_str()
    } else {
        text
    };
    if text.trim().is_empty() {
        return Vec::new();
    }
    match format {
        Format::Markdown => markdown::chunk_markdown(text),
        Format::Json => json::chunk_json(text).unwrap_or_else(|| text::chunk_lines(text, None)),
        Format::Html => markdown::chunk_markdown(&html::html_to_markdown(text)),
        Format::Code => text::chunk_lines(text, Some(ContentType::Code)),
        Format::Text => text::chunk_lines(text, None),
    }
}

/// The real tool outputs committed under `tests/fixtures/`: `CM_FIXTURES_DIR` overrides.
#[cfg(test)]
pub(crate) fn fixtures_dir() -> std::path::PathBuf {
    if let Some(dir) = std::env::var_os("CM_FIXTURES_DIR") {
        return dir.into();
    }
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

/// [`detect_format`] then [`chunk_text`].
pub fn chunk_auto(text: &str, name: Option<&str>) -> Vec<Chunk> {
    chunk_text(text, detect_format(text, name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::MAX_CHUNK_BYTES;

    #[test]
    fn formats_from_names_and_content() {
        assert_eq!(detect_format("x", Some("README.md")), Format::Markdown);
        assert_eq!(detect_format("x", Some("src/main.rs")), Format::Code);
        assert_eq!(detect_format("{\"a\": 1}", None), Format::Json);
        assert_eq!(detect_format("{not json", None), Format::Text);
        assert_eq!(
            detect_format("<!DOCTYPE html><html><body>x</body></html>", None),
            Format::Html
        );
        assert_eq!(
            detect_format("intro\n\n## Setup\nrun it\n", None),
            Format::Markdown
        );
        assert_eq!(
            detect_format("GET /a 200\nGET /b 404\n", None),
            Format::Text
        );
    }

    #[test]
    fn every_fixture_chunks_within_the_limit_and_loses_no_words() {
        let dir = fixtures_dir();
        let entries = std::fs::read_dir(&dir).expect("fixtures dir (set CM_FIXTURES_DIR)");
        let mut seen = 0;
        for entry in entries.filter_map(|e| e.ok()) {
            let path = entry.path();
            let text = std::fs::read_to_string(&path).expect("fixture is utf-8");
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let chunks = chunk_auto(&text, name.as_deref());
            assert!(!chunks.is_empty(), "{path:?} gave no chunks");
            for chunk in &chunks {
                assert!(
                    chunk.content.len() <= MAX_CHUNK_BYTES,
                    "{path:?}: {} bytes",
                    chunk.content.len()
                );
                assert!(!chunk.content.trim().is_empty(), "{path:?}: empty chunk");
            }
            // Every word of the input survives somewhere (titles hold markdown headings).
            let joined: String = chunks
                .iter()
                .map(|c| format!("{}\n{}\n", c.title, c.content))
                .collect();
            for word in text
                .split_whitespace()
                .filter(|w| w.len() > 3 && w.chars().all(char::is_alphanumeric))
            {
                assert!(joined.contains(word), "{path:?} lost {word:?}");
            }
            seen += 1;
        }
        assert!(seen > 10);
    }
}
