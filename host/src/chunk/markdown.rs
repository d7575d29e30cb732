//! Markdown by headings: each H1–H4 section becomes one or more chunks titled with its
//! heading path. Inside a section, paragraphs and fenced code blocks are packed into
//! chunks of at most `MAX_CHUNK_BYTES`; a fence that fits is never cut, one that does
//! not is cut by lines and each piece re-fenced so it still reads as code.

use super::split::split_to_fit;
use super::{Chunk, ContentType};
use crate::limits::MAX_CHUNK_BYTES;

/// Deepest heading level that starts a new section; deeper ones are content.
const SECTION_LEVELS: usize = 4;

/// Whether `text` has ATX headings or code fences (used to sniff markdown).
pub(super) fn has_markdown_structure(text: &str) -> bool {
    text.lines()
        .take(2_000)
        .any(|line| heading(line).is_some() || fence_open(line).is_some())
}

/// A run of the section body: a paragraph (with its trailing blank lines) or a fence.
#[derive(Clone, Copy)]
struct Unit {
    start: usize,
    end: usize,
    fence: bool,
}

struct Fence {
    marker: u8,
    width: usize,
    start: usize,
}

pub(super) fn chunk_markdown(text: &str) -> Vec<Chunk> {
    let mut out = Vec::new();
    let mut path: [Option<String>; SECTION_LEVELS] = Default::default();
    let mut title = String::new();
    let mut units: Vec<Unit> = Vec::new();
    let mut paragraph: Option<usize> = None;
    let mut fence: Option<Fence> = None;
    let mut pos = 0;

    for line in text.split_inclusive('\n') {
        let (start, end) = (pos, pos + line.len());
        pos = end;
        if let Some(open) = &fence {
            if fence_closes(line, open) {
                units.push(Unit {
                    start: open.start,
                    end,
                    fence: true,
                });
                fence = None;
            }
            continue;
        }
        if let Some((marker, width)) = fence_open(line) {
            flush_paragraph(&mut paragraph, start, &mut units);
            fence = Some(Fence {
                marker,
                width,
                start,
            });
            continue;
        }
        if let Some((level, heading_text)) = heading(line) {
            flush_paragraph(&mut paragraph, start, &mut units);
            pack(text, &title, &units, &mut out);
            units.clear();
            let cleaned = clean_heading(heading_text);
            // A heading of badges only names nothing: its level stays empty.
            path[level - 1] = (!cleaned.is_empty()).then_some(cleaned);
            for deeper in path.iter_mut().skip(level) {
                *deeper = None;
            }
            title = path
                .iter()
                .flatten()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(" > ");
            continue;
        }
        if line.trim().is_empty() {
            flush_paragraph(&mut paragraph, end, &mut units);
        } else if paragraph.is_none() {
            paragraph = Some(start);
        }
    }
    if let Some(open) = fence {
        units.push(Unit {
            start: open.start,
            end: text.len(),
            fence: true,
        });
    }
    flush_paragraph(&mut paragraph, text.len(), &mut units);
    pack(text, &title, &units, &mut out);
    out
}

fn flush_paragraph(paragraph: &mut Option<usize>, end: usize, units: &mut Vec<Unit>) {
    if let Some(start) = paragraph.take() {
        units.push(Unit {
            start,
            end,
            fence: false,
        });
    }
}

/// Greedy packing of one section's units. Units are in text order and only blank lines
/// lie between them, so a chunk is the slice from its first unit to its last. A fence is
/// a chunk of its own, typed code, so `contentType: "code"` finds the code of a section
/// that is mostly prose, and `"prose"` its prose (ADR 22).
fn pack(text: &str, title: &str, units: &[Unit], out: &mut Vec<Chunk>) {
    let mut current: Option<(usize, usize, usize)> = None; // start, end, fenced bytes
    for unit in units {
        let len = unit.end - unit.start;
        if len > MAX_CHUNK_BYTES {
            emit(text, title, current.take(), out);
            split_oversized(&text[unit.start..unit.end], unit.fence, title, out);
            continue;
        }
        if unit.fence {
            emit(text, title, current.take(), out);
            emit(text, title, Some((unit.start, unit.end, len)), out);
            continue;
        }
        current = match current {
            Some((start, _, code)) if unit.end - start <= MAX_CHUNK_BYTES => {
                Some((start, unit.end, code))
            }
            previous => {
                emit(text, title, previous, out);
                Some((unit.start, unit.end, 0))
            }
        };
    }
    emit(text, title, current, out);
}

fn emit(text: &str, title: &str, span: Option<(usize, usize, usize)>, out: &mut Vec<Chunk>) {
    let Some((start, end, fenced)) = span else {
        return;
    };
    let content = text[start..end].trim_end();
    if content.trim().is_empty() {
        return;
    }
    let content_type = if fenced * 2 >= content.len() {
        ContentType::Code
    } else {
        ContentType::Prose
    };
    out.push(Chunk {
        title: title.to_string(),
        content: content.to_string(),
        content_type,
    });
}

/// A paragraph or fence larger than a chunk. A fence is cut inside (by lines) and every
/// piece gets the opening and closing fence lines again.
fn split_oversized(unit: &str, is_fence: bool, title: &str, out: &mut Vec<Chunk>) {
    let push = |content: String, content_type, out: &mut Vec<Chunk>| {
        if !content.trim().is_empty() {
            out.push(Chunk {
                title: title.to_string(),
                content,
                content_type,
            });
        }
    };
    if !is_fence {
        let content_type = if super::looks_like_code(unit) {
            ContentType::Code
        } else {
            ContentType::Prose
        };
        for piece in split_to_fit(unit, MAX_CHUNK_BYTES) {
            push(piece.trim_end().to_string(), content_type, out);
        }
        return;
    }
    let open_end = unit.find('\n').map_or(unit.len(), |i| i + 1);
    let open = unit[..open_end].trim_end();
    let body_and_close = &unit[open_end..];
    let trimmed = body_and_close.trim_end();
    let (body, close) = match trimmed.rfind('\n') {
        Some(i) if fence_open(&trimmed[i + 1..]).is_some() => {
            (&trimmed[..i + 1], trimmed[i + 1..].trim())
        }
        _ => (body_and_close, ""),
    };
    let marker_run = open.trim_start();
    let close = if close.is_empty() {
        &marker_run[..marker_run.len() - marker_run.trim_start_matches(['`', '~']).len()]
    } else {
        close
    };
    // Room for "open\n" + piece + "\n" + close.
    let budget = MAX_CHUNK_BYTES
        .saturating_sub(open.len() + close.len() + 2)
        .max(64);
    for piece in split_to_fit(body, budget) {
        let piece = piece.trim_end_matches('\n');
        let content = format!("{open}\n{piece}\n{close}");
        push(content, ContentType::Code, out);
    }
}

/// `(level, text)` of an ATX heading line (`#` to `######`, then a space or the end).
fn heading(line: &str) -> Option<(usize, &str)> {
    let line = line.trim_end_matches(['\n', '\r']);
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let level = rest.bytes().take_while(|&b| b == b'#').count();
    if level == 0 || level > 6 {
        return None;
    }
    let after = &rest[level..];
    if !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    if level > SECTION_LEVELS {
        return None;
    }
    Some((level, after))
}

/// The words of a heading a reader sees: what a result line shows and what the title
/// column contributes to ranking. Badges and images (`[![CI](svg)](link)`) say nothing
/// about the section and their URLs are made of words that match unrelated queries, so
/// they go; links keep their text, HTML tags and emphasis marks go, escapes and the
/// common entities become their character.
fn clean_heading(text: &str) -> String {
    let text = text.trim().trim_end_matches('#').trim();
    // Most headings are plain words; a large document has thousands of them.
    let marked = |b: u8| {
        matches!(
            b,
            b'\\' | b'`' | b'*' | b'~' | b'!' | b'[' | b'<' | b'&' | b'\t'
        )
    };
    if !text.bytes().any(marked) && !text.contains("  ") {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    strip_inline_markup(text, &mut out);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Entities a README heading uses, decoded (others are kept as written).
const ENTITIES: &[(&str, char)] = &[
    ("&lt;", '<'),
    ("&gt;", '>'),
    ("&amp;", '&'),
    ("&quot;", '"'),
    ("&#39;", '\''),
    ("&nbsp;", ' '),
];

fn strip_inline_markup(text: &str, out: &mut String) {
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let after = &rest[c.len_utf8()..];
        match c {
            '\\' if after.starts_with(|n: char| n.is_ascii_punctuation()) => {
                out.push_str(&after[..1]);
                rest = &after[1..];
            }
            '`' | '*' => rest = after,
            '~' if after.starts_with('~') => rest = &after[1..],
            '!' if after.starts_with('[') => match link_at(after) {
                Some((_, end)) => rest = &after[end..],
                None => {
                    out.push(c);
                    rest = after;
                }
            },
            '[' => match link_at(rest) {
                Some((label, end)) => {
                    strip_inline_markup(label, out);
                    rest = &rest[end..];
                }
                None => {
                    out.push(c);
                    rest = after;
                }
            },
            '<' => match html_tag_len(rest) {
                Some(len) => {
                    out.push(' ');
                    rest = &rest[len..];
                }
                None => {
                    out.push(c);
                    rest = after;
                }
            },
            '&' => match ENTITIES.iter().find(|(name, _)| rest.starts_with(name)) {
                Some((name, decoded)) => {
                    out.push(*decoded);
                    rest = &rest[name.len()..];
                }
                None => {
                    out.push(c);
                    rest = after;
                }
            },
            _ => {
                out.push(c);
                rest = after;
            }
        }
    }
}

/// `(label, length)` of a link at the start of `text`: `[label](target)` or
/// `[label][reference]`, brackets balanced. Brackets followed by anything else are text
/// (`[options]` in a signature).
fn link_at(text: &str) -> Option<(&str, usize)> {
    let label_end = balanced_end(text, b'[', b']')?;
    let target = &text[label_end..];
    let target_len = match target.as_bytes().first() {
        Some(b'(') => balanced_end(target, b'(', b')')?,
        Some(b'[') => balanced_end(target, b'[', b']')?,
        _ => return None,
    };
    Some((&text[1..label_end - 1], label_end + target_len))
}

/// The length of the bracketed run `text` starts with, through its matching close.
fn balanced_end(text: &str, open: u8, close: u8) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in text.bytes().enumerate() {
        if b == open {
            depth += 1;
        } else if b == close {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(i + 1);
            }
        }
    }
    None
}

/// The length of an HTML tag or comment at the start of `text` (`<sup>`, `</a>`,
/// `<img src="…"/>`); a `<` that starts no tag (`Array<string>`) is text.
fn html_tag_len(text: &str) -> Option<usize> {
    let body = text.strip_prefix('<')?;
    let first = body.chars().next()?;
    if !(first.is_ascii_alphabetic() || first == '/' || first == '!') {
        return None;
    }
    let name_end = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '/' | '!' | '-')))
        .unwrap_or(body.len());
    let name = body[..name_end].trim_start_matches(['/', '!']);
    if !(name.starts_with("--") || is_html_tag_name(name)) {
        return None;
    }
    body.find('>').map(|end| end + 2)
}

fn is_html_tag_name(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "a", "abbr", "b", "br", "code", "del", "em", "font", "i", "img", "ins", "kbd", "mark", "p",
        "picture", "s", "small", "source", "span", "strike", "strong", "sub", "sup", "u",
    ];
    let lower = name.to_ascii_lowercase();
    NAMES.binary_search(&lower.as_str()).is_ok()
}

/// `(marker, width)` when `line` opens a fence: 3+ backticks or tildes after ≤ 3 spaces.
fn fence_open(line: &str) -> Option<(u8, usize)> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let marker = *trimmed.as_bytes().first()?;
    if marker != b'`' && marker != b'~' {
        return None;
    }
    let width = trimmed.bytes().take_while(|&b| b == marker).count();
    if width < 3 {
        return None;
    }
    // A backtick fence's info string cannot contain backticks.
    if marker == b'`' && trimmed[width..].contains('`') {
        return None;
    }
    Some((marker, width))
}

fn fence_closes(line: &str, open: &Fence) -> bool {
    let trimmed = line.trim();
    let width = trimmed.bytes().take_while(|&b| b == open.marker).count();
    width >= open.width && width == trimmed.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heading_paths_become_titles() {
        let md =
            "# Guide\nintro\n## Deploy\nhow to deploy\n### Rollback\nundo it\n## Monitor\nwatch\n";
        let chunks = chunk_markdown(md);
        let titles: Vec<&str> = chunks.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(
            titles,
            vec![
                "Guide",
                "Guide > Deploy",
                "Guide > Deploy > Rollback",
                "Guide > Monitor"
            ]
        );
        assert_eq!(chunks[2].content, "undo it");
    }

    #[test]
    fn headings_inside_fences_are_code_not_sections() {
        let md = "# A\n```sh\n# not a heading\necho hi\n```\n";
        let chunks = chunk_markdown(md);
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].content_type, ContentType::Code);
        assert!(chunks[0].content.contains("# not a heading"));
    }

    #[test]
    fn a_fence_that_fits_is_kept_whole() {
        let para = format!("{}\n\n", "prose words here. ".repeat(100)); // ~1.8 KB
        let code = format!(
            "```rust\n{}```\n",
            "let value = compute(1, 2);\n".repeat(100)
        ); // ~2.7 KB
        let md = format!("# T\n{para}{code}");
        let chunks = chunk_markdown(&md);
        assert_eq!(chunks.len(), 2);
        assert!(chunks[1].content.starts_with("```rust") && chunks[1].content.ends_with("```"));
        assert_eq!(chunks[1].content_type, ContentType::Code);
        assert_eq!(chunks[0].content_type, ContentType::Prose);
    }

    #[test]
    fn a_small_fence_inside_prose_is_a_code_chunk_of_its_own() {
        let md = format!(
            "## Layout\n{}\n\n```html\n<div class=\"md:flex\"></div>\n```\n\nAfter the code.\n",
            "Prose that explains the layout at length. ".repeat(10)
        );
        let chunks = chunk_markdown(&md);
        let kinds: Vec<(ContentType, bool)> = chunks
            .iter()
            .map(|c| (c.content_type, c.content.contains("md:flex")))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (ContentType::Prose, false),
                (ContentType::Code, true),
                (ContentType::Prose, false)
            ]
        );
        assert!(chunks.iter().all(|c| c.title == "Layout"));
    }

    #[test]
    fn a_huge_fence_is_cut_and_refenced() {
        let code = format!(
            "```python\n{}```\n",
            "print('line of python code')\n".repeat(1000)
        );
        let chunks = chunk_markdown(&format!("## Script\n{code}"));
        assert!(chunks.len() > 5);
        for chunk in &chunks {
            assert!(chunk.content.len() <= MAX_CHUNK_BYTES);
            assert!(chunk.content.starts_with("```python\n") && chunk.content.ends_with("\n```"));
            assert_eq!(chunk.title, "Script");
        }
    }

    #[test]
    fn a_133_kb_block_without_blank_lines_becomes_many_chunks() {
        let block: String = (0..4_000)
            .map(|i| format!("entry {i} with ünïcödé text\n"))
            .collect();
        assert!(block.len() > 120_000);
        let chunks = chunk_markdown(&format!("# Dump\n{block}"));
        assert!(chunks.len() >= 30, "{} chunks", chunks.len());
        assert!(chunks.iter().all(|c| c.content.len() <= MAX_CHUNK_BYTES));
        let rejoined: String = chunks.iter().map(|c| format!("{}\n", c.content)).collect();
        assert_eq!(rejoined, block);
    }

    #[test]
    fn headings_lose_badges_links_tags_and_escapes() {
        for (heading, clean) in [
            (
                "# Chokidar [![Weekly downloads](https://img.shields.io/npm/dm/chokidar.svg)](https://github.com/paulmillr/chokidar)",
                "Chokidar",
            ),
            (
                "# minimist <sup>[![Version Badge][npm-version-svg]][package-url]</sup>",
                "minimist",
            ),
            (
                "## .ignores(pathname: [Pathname](#pathname-conventions)): boolean",
                ".ignores(pathname: Pathname): boolean",
            ),
            (
                "## <a name=\"upgrading-from-v4\"></a>Upgrading from v4?",
                "Upgrading from v4?",
            ),
            ("### NO\\_PROXY", "NO_PROXY"),
            ("### `options.shell` support", "options.shell support"),
            (
                "## .filter(paths: Array&lt;Pathname&gt;): Array&lt;Pathname&gt;",
                ".filter(paths: Array<Pathname>): Array<Pathname>",
            ),
            (
                "## <strike>.addIgnoreFile(path)</strike>",
                ".addIgnoreFile(path)",
            ),
            ("### ~~uuid.v8()~~", "uuid.v8()"),
            (
                "#### `toCanvas(text, [options], [cb(error, canvas)])`",
                "toCanvas(text, [options], [cb(error, canvas)])",
            ),
            (
                "### [extensions...] = mime.extensions[type]",
                "[extensions...] = mime.extensions[type]",
            ),
            ("## Array<string> and a < b", "Array<string> and a < b"),
        ] {
            let chunks = chunk_markdown(&format!("{heading}\nbody\n"));
            assert_eq!(chunks[0].title, clean, "{heading}");
        }
    }

    #[test]
    fn a_heading_of_badges_only_leaves_its_level_empty() {
        let md =
            "# [![CI](https://ci.example/badge.svg)](https://ci.example)\nintro\n## Usage\nrun\n";
        let titles: Vec<String> = chunk_markdown(md).into_iter().map(|c| c.title).collect();
        assert_eq!(titles, vec!["", "Usage"]);
    }

    #[test]
    fn h5_is_content_and_trailing_hashes_are_dropped() {
        let chunks = chunk_markdown("## Setup ##\n##### detail\ntext\n");
        assert_eq!(chunks[0].title, "Setup");
        assert!(chunks[0].content.starts_with("##### detail"));
    }
}
