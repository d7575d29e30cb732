//! JSON by key path. A value that fits is one chunk; a larger object or array is
//! walked, its members packed into chunks titled with their key path (`data.items[3-7]`),
//! and any member still too large walked in turn. Chunks are slices of the original
//! text, so key order and formatting stay as the tool printed them.

use super::split::split_to_fit;
use super::{Chunk, ContentType};
use crate::limits::MAX_CHUNK_BYTES;

/// Whether `text` is one valid JSON document.
pub(super) fn is_json(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// The chunks of a JSON document, or `None` when it is not valid JSON.
pub(super) fn chunk_json(text: &str) -> Option<Vec<Chunk>> {
    if !is_json(text) {
        return None;
    }
    let bytes = text.as_bytes();
    let start = skip_ws(bytes, 0);
    let end = skip_value(bytes, start);
    let mut out = Vec::new();
    walk(text, start, end, "", &mut out);
    Some(out)
}

fn walk(text: &str, start: usize, end: usize, path: &str, out: &mut Vec<Chunk>) {
    let slice = &text[start..end];
    if slice.len() <= MAX_CHUNK_BYTES {
        push(out, path, slice);
        return;
    }
    match slice.as_bytes()[0] {
        b'{' => {
            let members = object_members(text.as_bytes(), start, end);
            let items: Vec<Item> = members
                .into_iter()
                .map(|m| Item {
                    start: m.key_start,
                    end: m.value_end,
                    value_start: m.value_start,
                    path: join_key(path, &m.key),
                })
                .collect();
            pack(text, &items, path, out, |first, last| {
                if first == last {
                    items_path(&items, first)
                } else {
                    path.to_string()
                }
            });
        }
        b'[' => {
            let elements = array_elements(text.as_bytes(), start, end);
            let items: Vec<Item> = elements
                .iter()
                .enumerate()
                .map(|(i, &(s, e))| Item {
                    start: s,
                    end: e,
                    value_start: s,
                    path: format!("{path}[{i}]"),
                })
                .collect();
            pack(text, &items, path, out, |first, last| {
                if first == last {
                    format!("{path}[{first}]")
                } else {
                    format!("{path}[{first}-{last}]")
                }
            });
        }
        _ => {
            for piece in split_to_fit(slice, MAX_CHUNK_BYTES) {
                push(out, path, piece);
            }
        }
    }
}

struct Item {
    /// Start of the member text (the key's quote for object members).
    start: usize,
    end: usize,
    value_start: usize,
    path: String,
}

fn items_path(items: &[Item], index: usize) -> String {
    items.get(index).map(|i| i.path.clone()).unwrap_or_default()
}

/// Packs consecutive small items into one chunk (the slice from the first to the last);
/// an item too large on its own is walked by its own path.
fn pack(
    text: &str,
    items: &[Item],
    parent: &str,
    out: &mut Vec<Chunk>,
    title_of: impl Fn(usize, usize) -> String,
) {
    let mut group: Option<(usize, usize)> = None; // first, last item index
    let flush = |group: Option<(usize, usize)>, out: &mut Vec<Chunk>| {
        if let Some((first, last)) = group {
            push(
                out,
                &title_of(first, last),
                &text[items[first].start..items[last].end],
            );
        }
    };
    for (i, item) in items.iter().enumerate() {
        if item.end - item.start > MAX_CHUNK_BYTES {
            flush(group.take(), out);
            walk(text, item.value_start, item.end, &item.path, out);
            continue;
        }
        group = match group {
            Some((first, _)) if item.end - items[first].start <= MAX_CHUNK_BYTES => {
                Some((first, i))
            }
            previous => {
                flush(previous, out);
                Some((i, i))
            }
        };
    }
    flush(group, out);
    if items.is_empty() {
        push(out, parent, "");
    }
}

fn push(out: &mut Vec<Chunk>, title: &str, content: &str) {
    let content = content.trim();
    if content.is_empty() {
        return;
    }
    out.push(Chunk {
        title: title.to_string(),
        content: content.to_string(),
        content_type: ContentType::Code,
    });
}

fn join_key(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '$' | '@'));
    match (path.is_empty(), plain) {
        (true, true) => key.to_string(),
        (false, true) => format!("{path}.{key}"),
        (_, false) => format!("{path}[{}]", serde_json::Value::String(key.to_string())),
    }
}

struct Member {
    key: String,
    key_start: usize,
    value_start: usize,
    value_end: usize,
}

fn object_members(bytes: &[u8], start: usize, end: usize) -> Vec<Member> {
    let mut members = Vec::new();
    let mut i = skip_ws(bytes, start + 1);
    while i < end && bytes[i] == b'"' {
        let key_start = i;
        let key_end = skip_string(bytes, i);
        let raw_key = std::str::from_utf8(&bytes[key_start..key_end]).unwrap_or("\"\"");
        let key = serde_json::from_str::<String>(raw_key).unwrap_or_default();
        i = skip_ws(bytes, key_end);
        if bytes.get(i) != Some(&b':') {
            break;
        }
        let value_start = skip_ws(bytes, i + 1);
        let value_end = skip_value(bytes, value_start);
        members.push(Member {
            key,
            key_start,
            value_start,
            value_end,
        });
        i = skip_ws(bytes, value_end);
        if bytes.get(i) == Some(&b',') {
            i = skip_ws(bytes, i + 1);
        }
    }
    members
}

fn array_elements(bytes: &[u8], start: usize, end: usize) -> Vec<(usize, usize)> {
    let mut elements = Vec::new();
    let mut i = skip_ws(bytes, start + 1);
    while i < end && bytes[i] != b']' {
        let value_end = skip_value(bytes, i);
        if value_end <= i {
            break;
        }
        elements.push((i, value_end));
        i = skip_ws(bytes, value_end);
        if bytes.get(i) == Some(&b',') {
            i = skip_ws(bytes, i + 1);
        }
    }
    elements
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && matches!(bytes[i], b' ' | b'\n' | b'\r' | b'\t') {
        i += 1;
    }
    i
}

/// End (exclusive) of the string starting at the quote at `i`.
fn skip_string(bytes: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return i + 1,
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// End (exclusive) of the value starting at `i`. Containers are skipped by counting
/// brackets outside strings: the document was validated before.
fn skip_value(bytes: &[u8], i: usize) -> usize {
    match bytes.get(i) {
        Some(b'"') => skip_string(bytes, i),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut j = i;
            while j < bytes.len() {
                match bytes[j] {
                    b'"' => {
                        j = skip_string(bytes, j);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            bytes.len()
        }
        Some(_) => {
            let mut j = i;
            while j < bytes.len()
                && !matches!(bytes[j], b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t')
            {
                j += 1;
            }
            j
        }
        None => i,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_json_is_one_chunk() {
        let chunks = chunk_json(r#"{"a": 1, "b": [1, 2]}"#).expect("valid");
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].title, "");
    }

    #[test]
    fn large_json_is_cut_by_key_path_with_records_grouped() {
        let items: Vec<String> = (0..200)
            .map(|i| {
                format!(
                    r#"{{"id": {i}, "name": "item-{i}", "tags": ["x", "y"], "note": "{}"}}"#,
                    "n".repeat(60)
                )
            })
            .collect();
        let doc = format!(
            r#"{{"meta": {{"count": 200}}, "data": {{"items": [{}]}}}}"#,
            items.join(", ")
        );
        let chunks = chunk_json(&doc).expect("valid");
        assert!(chunks.len() > 4);
        assert!(chunks.iter().all(|c| c.content.len() <= MAX_CHUNK_BYTES));
        assert_eq!(chunks[0].title, "meta");
        assert!(
            chunks[1].title.starts_with("data.items[0-"),
            "{}",
            chunks[1].title
        );
        let joined: String = chunks.iter().map(|c| c.content.as_str()).collect();
        for i in 0..200 {
            assert!(joined.contains(&format!("\"item-{i}\"")), "item {i} lost");
        }
    }

    #[test]
    fn a_huge_string_is_split_under_its_path_and_odd_keys_are_quoted() {
        let doc = format!(r#"{{"weird key": {{"body": "{}"}}}}"#, "é".repeat(5000));
        let chunks = chunk_json(&doc).expect("valid");
        assert!(chunks.len() >= 3);
        assert!(
            chunks
                .iter()
                .all(|c| c.title == "[\"weird key\"].body" && c.content.len() <= MAX_CHUNK_BYTES)
        );
    }

    #[test]
    fn broken_json_is_refused() {
        assert!(chunk_json("{\"a\": ").is_none());
    }
}
