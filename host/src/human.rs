//! Text a person reads: an error on one line, the first line of a message, a size.
//! Every layer uses these, so one spelling of "12.3 KB" and one rule for "one line"
//! hold across replies, reports and errors.

/// `text` on one line: runs of whitespace and control characters become one space,
/// nothing leads or trails (a client logs a message as one line; a terminal shows no
/// escape sequence from it).
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The first non-empty line of `text`, trimmed (an error's headline without its detail).
pub fn first_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

/// `812 B`, `58.6 KB`, `1.2 MB`, `3.4 GB` (binary multiples).
pub fn bytes(bytes: u64) -> String {
    const KB: f64 = 1024.0;
    let b = bytes as f64;
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KB", b / KB),
        1_048_576..1_073_741_824 => format!("{:.1} MB", b / (KB * KB)),
        _ => format!("{:.1} GB", b / (KB * KB * KB)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_folds_lines_whitespace_and_control_characters() {
        assert_eq!(
            one_line("  error:\n\tcaused by\r\n  x \x1b[31m y  "),
            "error: caused by x [31m y"
        );
        assert_eq!(one_line(""), "");
        assert_eq!(one_line("\n\n"), "");
    }

    #[test]
    fn first_line_skips_blank_lines() {
        assert_eq!(first_line("\n  headline  \ndetail"), "headline");
        assert_eq!(first_line(""), "");
    }

    #[test]
    fn sizes_switch_unit_at_each_binary_multiple() {
        assert_eq!(bytes(1023), "1023 B");
        assert_eq!(bytes(1024), "1.0 KB");
        assert_eq!(bytes(1_048_575), "1024.0 KB");
        assert_eq!(bytes(1_048_576), "1.0 MB");
        assert_eq!(bytes(1_073_741_824), "1.0 GB");
        assert_eq!(bytes(5 * 1_073_741_824 + 1_073_741_824 / 2), "5.5 GB");
    }
}
