//! What goes into the trigram index. Trigram-indexing every byte of every chunk costs
//! about six times the porter index (one token per character), so the trigram index
//! gets only the tokens the porter index cannot find by word or word prefix:
//! identifiers (`useLayoutEffect`, `TS2339`, `snake_case`), paths and URLs
//! (`src/main.rs`), and non-ASCII runs (CJK has no spaces between words). Each such
//! token is stored once per chunk. Queries are split into tokens by the same rules.

use std::collections::HashSet;

/// Bytes that end a token: ASCII whitespace, quoting, brackets and operators. All are
/// ASCII, so splitting on bytes never cuts a UTF-8 character (non-ASCII characters,
/// ideographic space included, stay inside tokens).
fn is_separator(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t'
            | b'\n'
            | b'\r'
            | b'\x0b'
            | b'\x0c'
            | b'"'
            | b'\''
            | b'`'
            | b','
            | b';'
            | b'('
            | b')'
            | b'{'
            | b'}'
            | b'['
            | b']'
            | b'<'
            | b'>'
            | b'|'
            | b'*'
            | b'!'
            | b'?'
            | b'='
            | b'&'
            | b'+'
            | b'^'
            | b'~'
    )
}

/// ASCII punctuation trimmed from token ends (underscores are part of identifiers).
fn is_edge_punctuation(b: u8) -> bool {
    b.is_ascii() && !b.is_ascii_alphanumeric() && b != b'_'
}

/// The tokens of `text`, split at whitespace and separators, with ASCII punctuation
/// trimmed from both ends. Empty tokens are skipped.
pub fn substring_tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_ascii() && is_separator(c as u8))
        .filter_map(|token| {
            let bytes = token.as_bytes();
            let start = bytes.iter().position(|&b| !is_edge_punctuation(b))?;
            let end = bytes.iter().rposition(|&b| !is_edge_punctuation(b))? + 1;
            // Both ends sit next to ASCII bytes or the token's ends: char boundaries.
            Some(&token[start..end])
        })
}

/// Whether the porter index cannot serve `token` by word or prefix: it is non-ASCII,
/// mixes case after its first letter, mixes digits and letters, or holds inner
/// punctuation. Needs at least 3 characters (the trigram minimum).
pub fn needs_substring_index(token: &str) -> bool {
    if token.chars().nth(2).is_none() {
        return false;
    }
    let bytes = token.as_bytes();
    if !token.is_ascii() {
        return true;
    }
    let mut digit = false;
    let mut letter = false;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'A'..=b'Z' if i > 0 => return true,
            b'A'..=b'Z' | b'a'..=b'z' => letter = true,
            b'0'..=b'9' => digit = true,
            b'_' | b'.' | b'/' | b'\\' | b'-' | b':' | b'@' | b'#' | b'$' | b'%' => return true,
            _ => {}
        }
    }
    digit && letter
}

/// Whether `text` holds Chinese, Japanese or Korean characters (no spaces between words,
/// so only substring matching finds them).
pub fn has_cjk(text: &str) -> bool {
    text.chars().any(|c| {
        matches!(c as u32,
            0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
    })
}

/// The trigram-indexed text of a chunk: its distinct substring-worthy tokens, one per line.
pub fn substring_index_text(content: &str) -> String {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut out = String::new();
    for token in substring_tokens(content) {
        if needs_substring_index(token) && seen.insert(token) {
            out.push_str(token);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_identifiers_paths_and_non_ascii_are_kept() {
        let text = "The useLayoutEffect hook (see src/main.rs) fails with TS2339; \
                    snake_case and 日本語テキスト too. Plain words like configuration stay out. useLayoutEffect";
        assert_eq!(
            substring_index_text(text),
            "useLayoutEffect\nsrc/main.rs\nTS2339\nsnake_case\n日本語テキスト\n"
        );
    }

    #[test]
    fn json_is_split_into_keys_and_values() {
        let tokens: Vec<&str> =
            substring_tokens(r#"{"login":"rickhanlonii","id":"MDQ6VXNlcjI0NDAwODk="}"#).collect();
        assert_eq!(
            tokens,
            vec!["login", "rickhanlonii", "id", "MDQ6VXNlcjI0NDAwODk"]
        );
    }
}
