//! Bounded output capture: the first half of the budget is kept as the head, the
//! last half as a rolling tail, everything in between is only counted. A child
//! printing gigabytes costs at most `max_bytes` of memory, and the end of a long
//! log (where the error usually is) is still there.

/// Head + rolling tail of one output stream.
#[derive(Debug)]
pub struct Capture {
    head: Vec<u8>,
    head_max: usize,
    /// Ring buffer; `tail_start` is the oldest byte once it is full.
    tail: Vec<u8>,
    tail_max: usize,
    tail_start: usize,
    total: u64,
}

impl Capture {
    /// A capture that keeps at most `max_bytes` in memory, half head, half tail.
    pub fn new(max_bytes: usize) -> Capture {
        let head_max = max_bytes / 2;
        Capture::with_head_and_tail(head_max, max_bytes - head_max)
    }

    /// A capture that keeps the first `head_max` and the last `tail_max` bytes.
    pub fn with_head_and_tail(head_max: usize, tail_max: usize) -> Capture {
        Capture {
            head: Vec::new(),
            head_max,
            tail: Vec::new(),
            tail_max,
            tail_start: 0,
            total: 0,
        }
    }

    /// Bytes seen so far, kept or not.
    pub fn total_bytes(&self) -> u64 {
        self.total
    }

    pub fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let head_room = self.head_max - self.head.len();
        if head_room > 0 {
            let take = head_room.min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        if bytes.is_empty() || self.tail_max == 0 {
            return;
        }
        if bytes.len() >= self.tail_max {
            self.tail.clear();
            self.tail
                .extend_from_slice(&bytes[bytes.len() - self.tail_max..]);
            self.tail_start = 0;
            return;
        }
        let room = self.tail_max - self.tail.len();
        let appended = room.min(bytes.len());
        self.tail.extend_from_slice(&bytes[..appended]);
        let mut rest = &bytes[appended..];
        while !rest.is_empty() {
            let n = (self.tail_max - self.tail_start).min(rest.len());
            self.tail[self.tail_start..self.tail_start + n].copy_from_slice(&rest[..n]);
            self.tail_start = (self.tail_start + n) % self.tail_max;
            rest = &rest[n..];
        }
    }

    /// The captured text: whole when nothing was dropped; otherwise the head and
    /// the tail, each cut at a character boundary, around a line saying how many
    /// bytes were left out. Invalid UTF-8 becomes U+FFFD.
    pub fn render(&self) -> String {
        let tail = self.tail_in_order();
        let kept = (self.head.len() + tail.len()) as u64;
        let omitted = self.total - kept;
        if omitted == 0 {
            let mut all = self.head.clone();
            all.extend_from_slice(&tail);
            return String::from_utf8_lossy(&all).into_owned();
        }
        let head = &self.head[..utf8_prefix_end(&self.head)];
        let tail = &tail[utf8_suffix_start(&tail)..];
        let omitted = omitted + (self.head.len() - head.len()) as u64;
        let mut out = String::from_utf8_lossy(head).into_owned();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("[… {omitted} bytes of output omitted …]\n"));
        out.push_str(&String::from_utf8_lossy(tail));
        out
    }

    fn tail_in_order(&self) -> Vec<u8> {
        let mut ordered = Vec::with_capacity(self.tail.len());
        ordered.extend_from_slice(&self.tail[self.tail_start..]);
        ordered.extend_from_slice(&self.tail[..self.tail_start]);
        ordered
    }
}

/// End of the longest prefix that does not stop inside a multi-byte character.
fn utf8_prefix_end(bytes: &[u8]) -> usize {
    let len = bytes.len();
    // Look back over at most 3 continuation bytes for the start of the last character.
    for back in 1..=len.min(4) {
        let byte = bytes[len - back];
        if byte & 0b1100_0000 == 0b1000_0000 {
            continue;
        }
        let width = match byte {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if back >= width { len } else { len - back };
    }
    len
}

/// Start of the longest suffix that does not begin inside a multi-byte character.
fn utf8_suffix_start(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take(3)
        .position(|b| b & 0b1100_0000 != 0b1000_0000)
        .unwrap_or(bytes.len().min(3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_output_is_returned_whole() {
        let mut capture = Capture::new(16);
        capture.push(b"hello ");
        capture.push(b"world\n");
        assert_eq!(capture.render(), "hello world\n");
        assert_eq!(capture.total_bytes(), 12);
    }

    #[test]
    fn output_exactly_at_the_budget_loses_nothing() {
        let mut capture = Capture::new(10);
        for chunk in [&b"0123"[..], b"456", b"789"] {
            capture.push(chunk);
        }
        assert_eq!(capture.render(), "0123456789");
    }

    #[test]
    fn large_output_keeps_head_and_tail_and_counts_the_rest() {
        let mut capture = Capture::new(40);
        for i in 0..1000 {
            capture.push(format!("line {i:04}\n").as_bytes());
        }
        let text = capture.render();
        assert!(text.starts_with("line 0000\nline 0001\n"), "{text}");
        assert!(text.ends_with("line 0998\nline 0999\n"), "{text}");
        assert!(
            text.contains("[… 9960 bytes of output omitted …]"),
            "{text}"
        );
        assert_eq!(capture.total_bytes(), 10_000);
    }

    #[test]
    fn one_huge_chunk_keeps_its_own_end() {
        let mut capture = Capture::new(8);
        let chunk: Vec<u8> = (b'a'..=b'z').collect();
        capture.push(&chunk);
        let text = capture.render();
        assert!(text.starts_with("abcd\n"), "{text}");
        assert!(text.ends_with("wxyz"), "{text}");
    }

    #[test]
    fn cuts_never_split_a_character() {
        let mut capture = Capture::new(8);
        // "é" is 2 bytes, "€" is 3: the head end (byte 4) and the tail start fall mid-character.
        capture.push("aé€bbbbbbbbbb€é".as_bytes());
        let text = capture.render();
        assert!(!text.contains('\u{FFFD}'), "{text:?}");
        assert!(text.starts_with("aé\n"), "{text:?}");
        assert!(text.ends_with("é"), "{text:?}");
    }
}
