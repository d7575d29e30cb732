//! Size-bounded cutting: at the last blank line in the window, else the last line end,
//! else a character boundary. Never inside a UTF-8 character.

/// The largest index ≤ `at` that is a char boundary of `text`.
pub fn floor_char_boundary(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    let mut i = at;
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Cuts `text` into consecutive pieces of at most `max` bytes (at least one character
/// each, so a `max` smaller than a character still makes progress). Concatenating the
/// pieces gives `text` back.
pub fn split_to_fit(text: &str, max: usize) -> Vec<&str> {
    let mut pieces = Vec::with_capacity(text.len() / max.max(1) + 1);
    let mut rest = text;
    while rest.len() > max {
        let cut = best_cut(rest, max);
        pieces.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    if !rest.is_empty() {
        pieces.push(rest);
    }
    pieces
}

/// Where to end the next piece of `rest` (longer than `max`). A cut that would leave a
/// piece under a quarter of `max` is only taken when nothing better exists, so a short
/// paragraph before a long one does not become a chunk of its own for no reason.
fn best_cut(rest: &str, max: usize) -> usize {
    let end = floor_char_boundary(rest, max);
    if end == 0 {
        // `max` is smaller than the first character: take the character whole.
        return rest.chars().next().map_or(rest.len(), char::len_utf8);
    }
    let window = &rest.as_bytes()[..end];
    let useful = end / 4;
    let blank = last_blank_line_end(window);
    let line = window.iter().rposition(|&b| b == b'\n').map(|p| p + 1);
    match (blank, line) {
        (Some(b), _) if b >= useful => b,
        (_, Some(l)) if l >= useful => l,
        (Some(b), _) => b,
        (_, Some(l)) => l,
        _ => end,
    }
}

/// End (exclusive) of the last blank line — a `\n` followed by optional spaces and `\n`.
fn last_blank_line_end(window: &[u8]) -> Option<usize> {
    let mut i = window.len();
    while i > 0 {
        i -= 1;
        if window[i] != b'\n' {
            continue;
        }
        let mut j = i;
        while j > 0 && matches!(window[j - 1], b' ' | b'\t') {
            j -= 1;
        }
        if j > 0 && window[j - 1] == b'\n' {
            return Some(i + 1);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefers_blank_lines_then_line_ends() {
        let para = "word ".repeat(30);
        let text = format!("{para}\n\n{para}\n{para}\n");
        let pieces = split_to_fit(&text, 200);
        assert_eq!(pieces[0], format!("{para}\n\n"));
        assert_eq!(pieces.concat(), text);
        assert!(pieces.iter().all(|p| p.len() <= 200));
    }

    #[test]
    fn a_huge_line_is_cut_at_char_boundaries() {
        let text = "日本語テキスト".repeat(20_000); // ~420 KB, no line breaks
        let pieces = split_to_fit(&text, 4096);
        assert!(pieces.len() > 100);
        assert!(pieces.iter().all(|p| p.len() <= 4096 && !p.is_empty()));
        assert_eq!(pieces.concat(), text);
    }

    #[test]
    fn tiny_max_still_progresses() {
        assert_eq!(split_to_fit("é€", 1), vec!["é", "€"]);
    }
}
