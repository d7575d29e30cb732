//! Redaction of secrets before anything reaches the journal or the index: values of
//! secret-named keys (JSON, `key=value`, `Key: value`, `--flag value`), credentials in
//! `Authorization` schemes and URLs, private key PEM blocks and well-known token shapes.
//!
//! Hand-written scanners rather than regular expressions: every pass is one linear walk
//! over the bytes, all patterns are ASCII, and spans start and end on ASCII bytes, so a
//! cut never splits a UTF-8 character. Redaction runs on whole texts *before* they are
//! cut to size, so a cut can never leave half a token behind.

/// What a secret becomes.
pub const REDACTED: &str = "[REDACTED]";

/// `text` with every recognised secret replaced by [`REDACTED`].
pub fn redact(text: &str) -> String {
    let text = replace_spans(text, &pem_spans(text));
    let text = replace_spans(&text, &pair_spans(&text));
    let text = replace_spans(&text, &scheme_spans(&text));
    let text = replace_spans(&text, &url_credential_spans(&text));
    replace_spans(&text, &tokens::token_spans(&text))
}

mod tokens;

fn replace_spans(text: &str, spans: &[(usize, usize)]) -> String {
    if spans.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for &(start, end) in spans {
        if start < at || end <= start {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str(REDACTED);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// Private key blocks, `-----BEGIN … PRIVATE KEY …-----` through the matching END line
/// (or the end of the text when it was cut off).
fn pem_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("-----BEGIN ") {
        let start = from + found;
        let label_start = start + "-----BEGIN ".len();
        let Some(label_len) = text[label_start..].find("-----") else {
            break;
        };
        let label = &text[label_start..label_start + label_len];
        let after_header = label_start + label_len + 5;
        if !label.contains("PRIVATE KEY") || label.contains('\n') {
            from = after_header;
            continue;
        }
        let footer = format!("-----END {label}-----");
        let end = text[after_header..]
            .find(&footer)
            .map_or(text.len(), |at| after_header + at + footer.len());
        spans.push((start, end));
        from = end;
    }
    spans
}

/// Lowercase words of a key name: `clientSecret`, `CLIENT-SECRET`, `client.secret`
/// all become `["client", "secret"]`.
fn key_words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in key.chars() {
        if matches!(c, '_' | '-' | '.') {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            previous_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && previous_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        current.push(c.to_ascii_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

const SECRET_WORDS: &[&str] = &[
    "authorization",
    "token",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "cookie",
    "credential",
    "credentials",
    "apikey",
    "privatekey",
];
const SECRET_SUFFIXES: &[&str] = &["token", "secret", "password", "passwd"];
const SECRET_PAIRS: &[(&str, &str)] = &[
    ("api", "key"),
    ("private", "key"),
    ("client", "secret"),
    ("access", "key"),
    ("secret", "key"),
    ("signing", "key"),
    ("encryption", "key"),
];
/// A last word that makes the key metadata about a secret, not the secret itself.
const METADATA_WORDS: &[&str] = &[
    "count", "type", "len", "length", "limit", "usage", "id", "url", "uri", "file", "path", "name",
    "expires", "expiry", "ttl", "endpoint", "env", "header",
];

/// Whether a key name holds a secret value.
pub fn is_secret_key(key: &str) -> bool {
    let words = key_words(key.trim_start_matches('-'));
    if words
        .last()
        .is_some_and(|w| METADATA_WORDS.contains(&w.as_str()))
    {
        return false;
    }
    words.iter().any(|w| {
        SECRET_WORDS.contains(&w.as_str()) || SECRET_SUFFIXES.iter().any(|s| w.ends_with(s))
    }) || words
        .windows(2)
        .any(|pair| SECRET_PAIRS.contains(&(pair[0].as_str(), pair[1].as_str())))
}

/// A cheap test before the full key analysis: most words of a text contain none of these.
fn might_be_secret_key(key: &[u8]) -> bool {
    const NEEDLES: &[&[u8]] = &[
        b"auth",
        b"token",
        b"secret",
        b"passw",
        b"passphrase",
        b"cookie",
        b"credential",
        b"key",
    ];
    key.len() >= 3
        && NEEDLES
            .iter()
            .any(|n| key.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n)))
}

/// Values of secret-named keys.
fn pair_spans(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !is_ident(bytes[i]) || (i > 0 && is_ident(bytes[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        let key = &text[start..i];
        if !might_be_secret_key(key.as_bytes()) || !is_secret_key(key) {
            continue;
        }
        if let Some(span) = value_span(text, start, i, key) {
            i = span.1;
            spans.push(span);
        }
    }
    spans
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Separator {
    /// `=`, `=>`, `:=` and a flag's space: the value is one word.
    Assign,
    /// `:` (YAML, headers, JSON): an unquoted value runs to the end of the line.
    Colon,
}

fn value_span(text: &str, key_start: usize, key_end: usize, key: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut j = key_end;
    // The key's own closing quote: `"password"`, `'password'`, or `\"password\"` inside a JSON string.
    if key_start > 0
        && matches!(bytes[key_start - 1], b'"' | b'\'')
        && bytes.get(j) == Some(&bytes[key_start - 1])
    {
        j += 1;
    } else if bytes.get(j) == Some(&b'\\') && bytes.get(j + 1) == Some(&b'"') {
        j += 2;
    }
    let before_space = j;
    while matches!(bytes.get(j), Some(b' ' | b'\t')) {
        j += 1;
    }
    let separator = match (bytes.get(j), bytes.get(j + 1)) {
        (Some(b'='), Some(b'=')) => return None,
        (Some(b'='), Some(b'>')) => {
            j += 2;
            Separator::Assign
        }
        (Some(b'='), _) => {
            j += 1;
            Separator::Assign
        }
        (Some(b':'), Some(b'=')) => {
            j += 2;
            Separator::Assign
        }
        (Some(b':'), Some(b':')) => return None,
        (Some(b':'), _) => {
            j += 1;
            Separator::Colon
        }
        _ if key.starts_with("--") && j > before_space => Separator::Assign,
        _ => return None,
    };
    while matches!(bytes.get(j), Some(b' ' | b'\t')) {
        j += 1;
    }
    let first = *bytes.get(j)?;
    match first {
        b'"' | b'\'' => {
            let inner = j + 1;
            let mut k = inner;
            while k < bytes.len() && bytes[k] != first && bytes[k] != b'\n' {
                if bytes[k] == b'\\' && first == b'"' {
                    k += 1;
                }
                k += 1;
            }
            let end = k.min(bytes.len());
            non_empty(text, inner, end)
        }
        b'\\' if bytes.get(j + 1) == Some(&b'"') => {
            let inner = j + 2;
            let end = text[inner..]
                .find("\\\"")
                .map_or(text.len(), |at| inner + at);
            non_empty(text, inner, end)
        }
        b'$' | b'{' | b'[' | b'\n' | b'\r' => None,
        _ => {
            let words = key_words(key.trim_start_matches('-'));
            let authorization = words.iter().any(|w| w == "authorization");
            let mut start = j;
            if authorization && let Some(scheme_end) = auth_scheme_end(bytes, j) {
                start = scheme_end;
                if bytes.get(start) == Some(&b'$') {
                    return None;
                }
                let end = scan(bytes, start, |b| {
                    !b.is_ascii_whitespace() && !matches!(b, b'"' | b'\'' | b'\\' | b',')
                });
                return non_empty(text, start, end);
            }
            let end = match separator {
                Separator::Assign => scan(bytes, start, |b| {
                    !b.is_ascii_whitespace()
                        && !matches!(
                            b,
                            b'&' | b';'
                                | b','
                                | b'"'
                                | b'\''
                                | b'}'
                                | b')'
                                | b']'
                                | b'\\'
                                | b'<'
                                | b'>'
                        )
                }),
                Separator::Colon => {
                    let end = scan(bytes, start, |b| {
                        !matches!(b, b'\n' | b'\r' | b'"' | b'\'' | b',' | b'}' | b']' | b'\\')
                    });
                    start + text[start..end].trim_end().len()
                }
            };
            let value = &text[start..end];
            if matches!(value, "null" | "true" | "false" | "None") {
                return None;
            }
            non_empty(text, start, end)
        }
    }
}

fn non_empty(text: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let value = text.get(start..end)?;
    (!value.is_empty() && !text[start..].starts_with(REDACTED)).then_some((start, end))
}

pub(super) fn scan(bytes: &[u8], from: usize, keep: impl Fn(u8) -> bool) -> usize {
    let mut k = from;
    while k < bytes.len() && keep(bytes[k]) {
        k += 1;
    }
    k
}

/// After an `Authorization` value's scheme word (`Bearer `, `Basic `, …): where the
/// credential starts.
fn auth_scheme_end(bytes: &[u8], at: usize) -> Option<usize> {
    const SCHEMES: &[&[u8]] = &[b"bearer", b"basic", b"token", b"digest", b"bot", b"apikey"];
    for scheme in SCHEMES {
        let end = at + scheme.len();
        if bytes.len() > end && bytes[at..end].eq_ignore_ascii_case(scheme) && bytes[end] == b' ' {
            return Some(scan(bytes, end, |b| b == b' '));
        }
    }
    None
}

fn is_credential_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'~' | b'+' | b'/' | b'=' | b'-')
}

/// `Bearer <token>` and `Basic <base64>` anywhere, header name or not.
fn scheme_spans(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    for (scheme, base64_only) in [("bearer ", false), ("basic ", true)] {
        let mut i = 0;
        while i + scheme.len() < bytes.len() {
            let boundary = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
            if !boundary || !bytes[i..i + scheme.len()].eq_ignore_ascii_case(scheme.as_bytes()) {
                i += 1;
                continue;
            }
            let start = scan(bytes, i + scheme.len(), |b| b == b' ');
            let end = scan(bytes, start, is_credential_byte);
            let token = &text[start..end];
            let plain_word = token.bytes().all(|b| b.is_ascii_lowercase());
            let shaped = if base64_only {
                token.len().is_multiple_of(4)
                    && token
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
            } else {
                true
            };
            if token.len() >= 8 && !plain_word && shaped && token != REDACTED {
                spans.push((start, end));
            }
            i = end.max(i + 1);
        }
    }
    spans.sort_unstable();
    spans
}

/// The password of `scheme://user:password@host`.
fn url_credential_spans(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("://") {
        let start = from + found + 3;
        let end = scan(bytes, start, |b| {
            !b.is_ascii_whitespace() && !matches!(b, b'/' | b'@' | b'"' | b'\'' | b'?' | b'#')
        });
        if bytes.get(end) == Some(&b'@')
            && let Some(colon) = text[start..end].find(':')
        {
            let password_start = start + colon + 1;
            if password_start < end && !text[password_start..end].starts_with('$') {
                spans.push((password_start, end));
            }
        }
        from = end.max(start);
    }
    spans
}

#[cfg(test)]
mod tests;
