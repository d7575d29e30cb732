//! Turning a response body into text: which bodies are text at all, and which charset
//! decodes them (BOM, then the Content-Type `charset`, then an HTML `<meta>`, then UTF-8).

use encoding_rs::{Encoding, UTF_8};

/// Bytes of the body start searched for an HTML `<meta charset>` and for NUL bytes.
const SNIFF_BYTES: usize = 1024;

/// Content types that are certainly not text; refused from the headers, before the body.
pub fn is_binary_content_type(content_type: &str) -> bool {
    let mime = mime_of(content_type);
    let (kind, sub) = mime.split_once('/').unwrap_or((mime.as_str(), ""));
    match kind {
        "image" | "audio" | "video" | "font" | "model" => !sub.ends_with("+xml"),
        "application" => {
            matches!(
                sub,
                "octet-stream"
                    | "pdf"
                    | "zip"
                    | "gzip"
                    | "x-gzip"
                    | "x-tar"
                    | "x-bzip2"
                    | "x-xz"
                    | "zstd"
                    | "x-7z-compressed"
                    | "x-rar-compressed"
                    | "vnd.rar"
                    | "wasm"
                    | "x-executable"
                    | "x-msdownload"
                    | "java-archive"
                    | "msword"
                    | "vnd.ms-excel"
            ) || sub.starts_with("vnd.openxmlformats")
        }
        _ => false,
    }
}

/// A body with NUL bytes near its start (and no UTF-16 BOM) is binary whatever its label says.
pub fn looks_binary(body: &[u8]) -> bool {
    if Encoding::for_bom(body).is_some_and(|(enc, _)| enc != UTF_8) {
        return false;
    }
    body[..body.len().min(SNIFF_BYTES)].contains(&0)
}

/// The media type without parameters, lowercased: `text/html; charset=x` → `text/html`.
pub fn mime_of(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Decode `body` to text. `truncated` bodies may end inside a character; that partial
/// character is dropped instead of becoming a replacement mark.
pub fn decode_body(body: &[u8], content_type: &str, truncated: bool) -> String {
    let encoding = Encoding::for_bom(body)
        .map(|(enc, _)| enc)
        .or_else(|| charset_param(content_type).and_then(|l| Encoding::for_label(l.as_bytes())))
        .or_else(|| {
            is_html(content_type)
                .then(|| meta_charset(body))
                .flatten()
                .and_then(|l| Encoding::for_label(l.as_bytes()))
        })
        .unwrap_or(UTF_8);
    let body = if truncated && encoding == UTF_8 {
        without_partial_utf8_tail(body)
    } else {
        body
    };
    let (text, _, _) = encoding.decode(body);
    text.into_owned()
}

fn is_html(content_type: &str) -> bool {
    let mime = mime_of(content_type);
    mime.is_empty() || mime == "text/html" || mime == "application/xhtml+xml"
}

fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        (name.trim().eq_ignore_ascii_case("charset"))
            .then(|| value.trim().trim_matches(['"', '\'']).to_string())
            .filter(|v| !v.is_empty())
    })
}

/// `<meta charset="x">` or `<meta http-equiv=… content="text/html; charset=x">` near the start.
fn meta_charset(body: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&body[..body.len().min(SNIFF_BYTES)]).to_ascii_lowercase();
    let mut rest = head.as_str();
    while let Some(at) = rest.find("<meta") {
        rest = &rest[at + 5..];
        let tag = &rest[..rest.find('>').unwrap_or(rest.len())];
        if let Some(pos) = tag.find("charset=") {
            let value = tag[pos + 8..].trim_start_matches(['"', '\'', ' ']);
            let end = value
                .find(|c: char| !(c.is_ascii_alphanumeric() || "-_:.".contains(c)))
                .unwrap_or(value.len());
            if end > 0 {
                return Some(value[..end].to_string());
            }
        }
    }
    None
}

fn without_partial_utf8_tail(body: &[u8]) -> &[u8] {
    match std::str::from_utf8(body) {
        Err(err) if err.error_len().is_none() => &body[..err.valid_up_to()],
        _ => body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charset_from_header_meta_and_bom() {
        assert_eq!(
            decode_body(b"caf\xe9", "text/plain; charset=ISO-8859-1", false),
            "café"
        );
        let html = b"<html><head><meta charset=\"windows-1252\"></head>caf\xe9";
        assert!(decode_body(html, "text/html", false).ends_with("café"));
        let equiv =
            b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\">\xe9";
        assert!(decode_body(equiv, "text/html", false).ends_with('é'));
        assert_eq!(decode_body(b"\xff\xfeh\0i\0", "text/plain", false), "hi");
        assert_eq!(
            decode_body("naïve".as_bytes(), "text/plain", false),
            "naïve"
        );
    }

    #[test]
    fn invalid_utf8_is_lossy_and_a_cut_character_is_dropped() {
        assert_eq!(decode_body(b"a\xffb", "text/plain", false), "a\u{fffd}b");
        let cut = &"añ".as_bytes()[..2];
        assert_eq!(decode_body(cut, "text/plain", true), "a");
    }

    #[test]
    fn binary_types_and_bodies() {
        assert!(is_binary_content_type("image/png"));
        assert!(is_binary_content_type("Application/PDF"));
        assert!(!is_binary_content_type("image/svg+xml"));
        assert!(!is_binary_content_type("application/json; charset=utf-8"));
        assert!(!is_binary_content_type("text/html"));
        assert!(!is_binary_content_type(""));
        assert!(looks_binary(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"));
        assert!(!looks_binary(b"\xff\xfeh\0i\0"));
        assert!(!looks_binary(b"plain text"));
    }
}
