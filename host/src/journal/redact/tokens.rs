//! Well-known token formats (GitHub, GitLab, AWS, Slack, OpenAI/Anthropic, Stripe,
//! Google, npm) and JWTs, found wherever they stand as words of their own.

use super::scan;

/// A token format: its prefix, the bytes its body is made of and the body's length.
struct Shape {
    prefix: &'static str,
    body: fn(u8) -> bool,
    min: usize,
    /// Exactly `min` bytes (AWS key ids), not at least.
    exact: bool,
}

fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}
fn alnum_underscore(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
fn alnum_dash(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}
fn alnum_dash_underscore(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_')
}
fn upper_digit(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}

const SHAPES: &[Shape] = &[
    Shape {
        prefix: "ghp_",
        body: alnum,
        min: 20,
        exact: false,
    },
    Shape {
        prefix: "gho_",
        body: alnum,
        min: 20,
        exact: false,
    },
    Shape {
        prefix: "ghs_",
        body: alnum,
        min: 20,
        exact: false,
    },
    Shape {
        prefix: "ghu_",
        body: alnum,
        min: 20,
        exact: false,
    },
    Shape {
        prefix: "ghr_",
        body: alnum,
        min: 20,
        exact: false,
    },
    Shape {
        prefix: "github_pat_",
        body: alnum_underscore,
        min: 20,
        exact: false,
    },
    Shape {
        prefix: "glpat-",
        body: alnum_dash_underscore,
        min: 20,
        exact: false,
    },
    Shape {
        prefix: "AKIA",
        body: upper_digit,
        min: 16,
        exact: true,
    },
    Shape {
        prefix: "ASIA",
        body: upper_digit,
        min: 16,
        exact: true,
    },
    Shape {
        prefix: "AGPA",
        body: upper_digit,
        min: 16,
        exact: true,
    },
    Shape {
        prefix: "AIDA",
        body: upper_digit,
        min: 16,
        exact: true,
    },
    Shape {
        prefix: "AROA",
        body: upper_digit,
        min: 16,
        exact: true,
    },
    Shape {
        prefix: "xoxb-",
        body: alnum_dash,
        min: 10,
        exact: false,
    },
    Shape {
        prefix: "xoxp-",
        body: alnum_dash,
        min: 10,
        exact: false,
    },
    Shape {
        prefix: "xoxa-",
        body: alnum_dash,
        min: 10,
        exact: false,
    },
    Shape {
        prefix: "xoxo-",
        body: alnum_dash,
        min: 10,
        exact: false,
    },
    Shape {
        prefix: "xoxs-",
        body: alnum_dash,
        min: 10,
        exact: false,
    },
    Shape {
        prefix: "xoxr-",
        body: alnum_dash,
        min: 10,
        exact: false,
    },
    Shape {
        prefix: "xapp-",
        body: alnum_dash,
        min: 10,
        exact: false,
    },
    Shape {
        prefix: "sk-",
        body: alnum_dash_underscore,
        min: 20,
        exact: false,
    },
    Shape {
        prefix: "sk_live_",
        body: alnum,
        min: 16,
        exact: false,
    },
    Shape {
        prefix: "sk_test_",
        body: alnum,
        min: 16,
        exact: false,
    },
    Shape {
        prefix: "rk_live_",
        body: alnum,
        min: 16,
        exact: false,
    },
    Shape {
        prefix: "AIza",
        body: alnum_dash_underscore,
        min: 30,
        exact: false,
    },
    Shape {
        prefix: "npm_",
        body: alnum,
        min: 36,
        exact: false,
    },
];

/// Well-known token formats and JWTs, standing as words of their own.
pub(super) fn token_spans(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if i > 0 && bytes[i - 1].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        if let Some(end) = shape_end(bytes, i).or_else(|| jwt_end(bytes, i)) {
            spans.push((i, end));
            i = end;
        } else {
            i += 1;
        }
    }
    spans
}

fn shape_end(bytes: &[u8], at: usize) -> Option<usize> {
    for shape in SHAPES {
        let prefix = shape.prefix.as_bytes();
        if !bytes[at..].starts_with(prefix) {
            continue;
        }
        let body_start = at + prefix.len();
        let end = scan(bytes, body_start, shape.body);
        let len = end - body_start;
        let fits = if shape.exact {
            len == shape.min && !bytes.get(end).is_some_and(|b| b.is_ascii_alphanumeric())
        } else {
            len >= shape.min
        };
        if fits {
            return Some(end);
        }
    }
    None
}

/// `eyJ…` header `.` `eyJ…` payload `.` signature (possibly empty).
fn jwt_end(bytes: &[u8], at: usize) -> Option<usize> {
    if !bytes[at..].starts_with(b"eyJ") {
        return None;
    }
    let header_end = scan(bytes, at, alnum_dash_underscore);
    if header_end - at < 10 || bytes.get(header_end) != Some(&b'.') {
        return None;
    }
    let payload_start = header_end + 1;
    let payload_end = scan(bytes, payload_start, alnum_dash_underscore);
    if payload_end - payload_start < 10 || bytes.get(payload_end) != Some(&b'.') {
        return None;
    }
    Some(scan(bytes, payload_end + 1, alnum_dash_underscore))
}
