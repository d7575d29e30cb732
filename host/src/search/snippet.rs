//! Snippets: windows of a chunk around the matched terms, within a byte budget, cut
//! at line or word boundaries and never inside a character.

use crate::chunk::floor_char_boundary;

const GAP: &str = " … ";
/// Windows per snippet at most: several query terms far apart each get one.
const MAX_WINDOWS: usize = 3;
/// Occurrences of one needle looked at: every one a chunk can hold, so a rare term
/// behind many common ones still gets its window.
const MAX_HITS_PER_NEEDLE: usize = crate::limits::MAX_CHUNK_BYTES;

/// Byte offsets of the needles in `haystack_lower` (an ASCII-lowercased text), per needle.
pub fn find_all(haystack_lower: &str, needles: &[String]) -> Vec<Vec<usize>> {
    needles
        .iter()
        .map(|needle| {
            if needle.is_empty() {
                return Vec::new();
            }
            haystack_lower
                .match_indices(needle.as_str())
                .take(MAX_HITS_PER_NEEDLE)
                .map(|(i, _)| i)
                .collect()
        })
        .collect()
}

/// The smallest span (bytes, from the first hit's start to the last hit's start) that
/// contains a hit of every non-empty list, and where it starts.
pub fn tightest_span(hits: &[Vec<usize>]) -> Option<(usize, usize)> {
    let lists: Vec<&Vec<usize>> = hits.iter().filter(|h| !h.is_empty()).collect();
    if lists.is_empty() {
        return None;
    }
    let mut merged: Vec<(usize, usize)> = lists
        .iter()
        .enumerate()
        .flat_map(|(list, positions)| positions.iter().map(move |&p| (p, list)))
        .collect();
    merged.sort_unstable();
    let mut counts = vec![0usize; lists.len()];
    let mut covered = 0;
    let mut best: Option<(usize, usize)> = None;
    let mut left = 0;
    for right in 0..merged.len() {
        let list = merged[right].1;
        counts[list] += 1;
        if counts[list] == 1 {
            covered += 1;
        }
        while covered == lists.len() {
            let span = merged[right].0 - merged[left].0;
            if best.is_none_or(|(_, s)| span < s) {
                best = Some((merged[left].0, span));
            }
            let out = merged[left].1;
            counts[out] -= 1;
            if counts[out] == 0 {
                covered -= 1;
            }
            left += 1;
        }
    }
    best
}

/// A snippet of `content` of at most `max_bytes`, made of windows around the needle hits.
pub fn make_snippet(content: &str, needles: &[String], max_bytes: usize) -> String {
    let content = content.trim();
    if content.len() <= max_bytes {
        return content.to_string();
    }
    let lower = content.to_ascii_lowercase();
    let hits = find_all(&lower, needles);
    let mut anchors: Vec<usize> = Vec::new();
    if let Some((start, span)) = tightest_span(&hits)
        && span < max_bytes / 2
    {
        anchors.push(start + span / 2);
    } else {
        let mut firsts: Vec<usize> = hits.iter().filter_map(|h| h.first().copied()).collect();
        firsts.sort_unstable();
        firsts.dedup();
        anchors = firsts.into_iter().take(MAX_WINDOWS).collect();
    }
    if anchors.is_empty() {
        return head(content, max_bytes);
    }
    let separators = GAP.len() * (anchors.len() + 1);
    let per_window = max_bytes.saturating_sub(separators) / anchors.len();
    let mut windows: Vec<(usize, usize)> = anchors
        .iter()
        .map(|&anchor| window_around(content, anchor, per_window))
        .collect();
    windows.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (start, end) in windows {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    let mut out = String::with_capacity(max_bytes);
    for (i, &(start, end)) in merged.iter().enumerate() {
        if start > 0 || i > 0 {
            out.push_str(GAP.trim_start());
        }
        out.push_str(content[start..end].trim());
        if i + 1 == merged.len() && end < content.len() {
            out.push_str(GAP.trim_end());
        }
    }
    if out.len() > max_bytes {
        out.truncate(floor_char_boundary(&out, max_bytes));
    }
    out
}

/// `[start, end)` of about `size` bytes centred on `anchor`, moved to a line start when
/// one is close, else to a word start, and to char boundaries.
fn window_around(content: &str, anchor: usize, size: usize) -> (usize, usize) {
    let before = size / 3;
    let mut start = floor_char_boundary(content, anchor.saturating_sub(before));
    let slack = &content[start..floor_char_boundary(content, anchor)];
    if let Some(nl) = slack.find('\n') {
        if nl < before / 2 {
            start += nl + 1;
        }
    } else if start > 0
        && let Some(space) = slack.find(' ')
    {
        start += space + 1;
    }
    let mut end = floor_char_boundary(content, start + size);
    if end < content.len() {
        let tail = &content[start..end];
        if let Some(cut) = tail.rfind('\n').filter(|&c| c > size * 2 / 3) {
            end = start + cut;
        } else if let Some(cut) = tail.rfind(' ').filter(|&c| c > size * 2 / 3) {
            end = start + cut;
        }
    }
    (start, end)
}

fn head(content: &str, max_bytes: usize) -> String {
    let room = max_bytes.saturating_sub(GAP.trim_end().len());
    let mut end = floor_char_boundary(content, room);
    if let Some(cut) = content[..end]
        .rfind(['\n', ' '])
        .filter(|&c| c > room * 2 / 3)
    {
        end = cut;
    }
    format!("{}{}", content[..end].trim_end(), GAP.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needles(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn short_content_is_whole() {
        assert_eq!(
            make_snippet("  short text  ", &needles(&["text"]), 800),
            "short text"
        );
    }

    #[test]
    fn windows_surround_far_apart_terms_within_budget() {
        let filler = "lorem ipsum dolor sit amet ".repeat(60);
        let content = format!("{filler}ALPHA marker here. {filler}BETA marker there. {filler}");
        let snippet = make_snippet(&content, &needles(&["alpha", "beta"]), 400);
        assert!(snippet.len() <= 400, "{}", snippet.len());
        assert!(
            snippet.contains("ALPHA") && snippet.contains("BETA"),
            "{snippet}"
        );
        assert!(snippet.contains('…'));
    }

    #[test]
    fn multibyte_text_is_never_cut_inside_a_character() {
        let content = "数据库连接失败，请检查配置。".repeat(200);
        for budget in [50, 101, 333, 800] {
            let snippet = make_snippet(&content, &needles(&["配置"]), budget);
            assert!(snippet.len() <= budget);
            assert!(snippet.contains("配置"));
        }
    }

    #[test]
    fn tightest_span_finds_the_closest_cluster() {
        let hits = vec![vec![10, 500, 900], vec![40, 880], vec![905]];
        assert_eq!(tightest_span(&hits), Some((880, 25)));
    }
}
