//! A shallow look at a line serde could not read (not JSON, not UTF-8, too deep):
//! the `id` and whether there is a `method` among the top-level members, and how
//! deep the nesting goes. One pass, no recursion, any bytes.

use serde_json::value::RawValue;

#[derive(Debug, Default)]
pub struct ShallowScan {
    /// The top-level `"id"`, when it is one a reply can carry (string or number).
    pub id: Option<Box<RawValue>>,
    /// A top-level `"id"` member is there, whatever its value.
    pub has_id: bool,
    /// A top-level `"method"` member is there.
    pub has_method: bool,
    /// The deepest nesting of arrays and objects seen.
    pub max_depth: usize,
}

impl ShallowScan {
    pub fn of(line: &[u8]) -> ShallowScan {
        let mut scan = ShallowScan::default();
        let top_is_object = line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
        let mut depth = 0usize;
        // At depth 1 of the top object: the last key read, until its value starts.
        let mut key: Option<&[u8]> = None;
        let mut i = 0;
        while i < line.len() {
            match line[i] {
                b'"' => {
                    let end = string_end(line, i);
                    if top_is_object && depth == 1 && key.is_none() {
                        key = Some(&line[i + 1..end.saturating_sub(1).max(i + 1)]);
                    }
                    i = end;
                    continue;
                }
                b':' if top_is_object && depth == 1 => {
                    match key.take() {
                        Some(b"id") if !scan.has_id => {
                            scan.has_id = true;
                            scan.id = leading_value(&line[i + 1..]);
                        }
                        Some(b"method") => scan.has_method = true,
                        _ => {}
                    }
                    // The value follows: a string value must not be taken for a key.
                    key = Some(b"");
                }
                b',' if depth == 1 => key = None,
                b'{' | b'[' => {
                    depth += 1;
                    scan.max_depth = scan.max_depth.max(depth);
                }
                b'}' | b']' => depth = depth.saturating_sub(1),
                _ => {}
            }
            i += 1;
        }
        scan
    }
}

/// The index just past the string starting at `start` (its closing quote), or the
/// end of the line when it never closes.
fn string_end(line: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < line.len() {
        match line[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    line.len()
}

/// The JSON value at the start of `rest`, if it is an id a reply can carry and
/// it is whole (the next member or the end of the object follows: `"id":12` cut
/// from `"id":1234` is no id).
fn leading_value(rest: &[u8]) -> Option<Box<RawValue>> {
    let mut values = serde_json::Deserializer::from_slice(rest).into_iter::<&RawValue>();
    let value = values.next()?.ok()?;
    let after = rest.get(values.byte_offset()..)?;
    let next = after.iter().find(|b| !b.is_ascii_whitespace())?;
    matches!(next, b',' | b'}').then(|| reply_id(value))?
}

/// The id to put in a reply: a string or number as the client wrote it; `None`
/// (a null id) for anything else.
pub fn reply_id(raw: &RawValue) -> Option<Box<RawValue>> {
    let text = raw.get();
    text.starts_with(['"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'])
        .then(|| raw.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id_of(line: &str) -> Option<String> {
        ShallowScan::of(line.as_bytes())
            .id
            .map(|id| id.get().to_string())
    }

    #[test]
    fn finds_the_top_level_id_of_broken_lines() {
        assert_eq!(
            id_of(r#"{"jsonrpc":"2.0", "id" : 42,"method":"x","params":{"#).as_deref(),
            Some("42")
        );
        assert_eq!(
            id_of(r#"{"id":"abc","method":"x""#).as_deref(),
            Some(r#""abc""#)
        );
        assert_eq!(id_of(r#"{"method":"tools/call","params":{"id":3"#), None);
        assert_eq!(id_of(r#"{"method":"id","x":"id"}"#), None);
        assert_eq!(id_of(r#"["id", 3]"#), None);
        assert_eq!(id_of(r#"{"id":true}"#), None);
        assert_eq!(id_of(r#"{"k\"id":1}"#), None);
        assert_eq!(id_of(r#"{"id":12"#), None);
        assert!(ShallowScan::of(br#"{"id":null,"method":"x"#).has_id);
    }

    #[test]
    fn sees_a_method_and_measures_depth() {
        let scan = ShallowScan::of(br#"{"method":"m","params":[[["]]]]"]]]}"#);
        assert!(scan.has_method);
        assert_eq!(scan.max_depth, 4);
        assert!(!ShallowScan::of(br#"{"params":{"method":1}}"#).has_method);
    }
}
