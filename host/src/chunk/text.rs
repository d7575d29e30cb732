//! Plain text, logs and source code: consecutive line groups of at most
//! `MAX_CHUNK_BYTES`, cut at blank lines when there are any, else at line ends.

use super::split::split_to_fit;
use super::{Chunk, ContentType, looks_like_code};
use crate::limits::MAX_CHUNK_BYTES;

/// Chunks titled by line range ("lines 41-80"). `forced` types every chunk; `None`
/// types each chunk by how it looks.
pub(super) fn chunk_lines(text: &str, forced: Option<ContentType>) -> Vec<Chunk> {
    let mut out = Vec::new();
    let mut line = 1usize;
    for piece in split_to_fit(text, MAX_CHUNK_BYTES) {
        let newlines = bytecount(piece.as_bytes());
        let first = line;
        line += newlines;
        let content = piece.trim_end();
        let leading = content.len() - content.trim_start_matches('\n').len();
        let content = &content[leading..];
        if content.trim().is_empty() {
            continue;
        }
        let first = first + leading;
        let last = first + bytecount(content.as_bytes());
        let content_type = forced.unwrap_or_else(|| {
            if looks_like_code(content) {
                ContentType::Code
            } else {
                ContentType::Prose
            }
        });
        out.push(Chunk {
            title: if first == last {
                format!("line {first}")
            } else {
                format!("lines {first}-{last}")
            },
            content: content.to_string(),
            content_type,
        });
    }
    out
}

fn bytecount(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ranges_are_exact() {
        let text: String = (1..=2000)
            .map(|i| format!("2024-05-01T10:00:{i:05} INFO request {i} done\n"))
            .collect();
        let chunks = chunk_lines(&text, None);
        assert!(chunks.len() > 10);
        assert!(chunks[0].title.starts_with("lines 1-"));
        for chunk in &chunks {
            let (a, b) = chunk
                .title
                .trim_start_matches("lines ")
                .split_once('-')
                .expect("range");
            let first: usize = a.parse().expect("first");
            let last: usize = b.parse().expect("last");
            assert!(
                chunk
                    .content
                    .starts_with(&format!("2024-05-01T10:00:{first:05} "))
            );
            assert!(chunk.content.ends_with(&format!("request {last} done")));
            assert_eq!(chunk.content_type, ContentType::Prose);
        }
    }
}
