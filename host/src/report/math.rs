//! The arithmetic of the savings figures, in integers so a figure is exact and never
//! rounded up: kept-out share, tokens, bars, percentiles, human sizes.

/// Kept-out share in tenths of a percent, floored, by upstream's strict-compression
/// formula (its ADR-0004): avoided = max(0, raw − returned), share = avoided /
/// (avoided + returned). Never negative: a reply larger than what it measured (a
/// formatted reply around a short output, a batch answer with search results) avoided
/// nothing. `None` when nothing raw was measured (no share can honestly be given).
pub fn kept_out_permille(raw_bytes: u64, returned_bytes: u64) -> Option<i64> {
    if raw_bytes == 0 {
        return None;
    }
    let avoided = u128::from(kept_out_bytes(raw_bytes, returned_bytes));
    let without = avoided + u128::from(returned_bytes);
    let permille = avoided * 1_000 / without.max(1);
    Some(i64::try_from(permille).unwrap_or(1_000))
}

/// `98.7%`, `0.0%`; `n/a` when nothing raw was measured.
pub fn percent_text(raw_bytes: u64, returned_bytes: u64) -> String {
    match kept_out_permille(raw_bytes, returned_bytes) {
        None => "n/a".into(),
        Some(permille) => format!("{}.{}%", permille / 10, permille % 10),
    }
}

/// Bytes that stayed out of the context (never negative).
pub fn kept_out_bytes(raw_bytes: u64, returned_bytes: u64) -> u64 {
    raw_bytes.saturating_sub(returned_bytes)
}

/// Tokens ≈ bytes / 4, rounded down.
pub fn tokens(bytes: u64) -> u64 {
    bytes / 4
}

/// A bar of `width` characters: `█` for the kept-out share (floored), `░` for the rest.
pub fn bar(raw_bytes: u64, returned_bytes: u64, width: usize) -> String {
    let filled = if raw_bytes == 0 {
        0
    } else {
        let kept = u128::from(kept_out_bytes(raw_bytes, returned_bytes));
        usize::try_from(kept * width as u128 / u128::from(raw_bytes)).unwrap_or(width)
    };
    let filled = filled.min(width);
    format!("{}{}", "█".repeat(filled), "░".repeat(width - filled))
}

/// `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `1 call`, `1,234 calls`: a count and its noun, plural when it is not one.
pub fn count(n: u64, noun: &str) -> String {
    let plural = if n == 1 { "" } else { "s" };
    format!("{} {noun}{plural}", thousands(n))
}

/// `850 µs`, `3.1 ms`, `1.20 s`.
pub fn human_micros(us: u64) -> String {
    match us {
        0..1_000 => format!("{us} µs"),
        1_000..1_000_000 => format!("{:.1} ms", us as f64 / 1_000.0),
        _ => format!("{:.2} s", us as f64 / 1_000_000.0),
    }
}

/// p50, p95 and max of ascending `sorted` durations (nearest rank below); `None` when empty.
pub fn percentiles(sorted: &[u64]) -> Option<(u64, u64, u64)> {
    let last = sorted.len().checked_sub(1)?;
    let at = |q: usize| sorted[last * q / 100];
    Some((at(50), at(95), sorted[last]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_is_strict_and_floored() {
        assert_eq!(percent_text(20_000, 1_234), "93.8%");
        assert_eq!(percent_text(1_000, 13), "98.7%");
        // 1 − 1/3000 = 99.966…%: floored, never shown as 100.0%.
        assert_eq!(percent_text(3_000, 1), "99.9%");
        assert_eq!(percent_text(5, 5), "0.0%");
        assert_eq!(percent_text(5, 0), "100.0%");
        assert_eq!(percent_text(0, 0), "n/a");
        assert_eq!(percent_text(0, 400), "n/a");
        assert_eq!(kept_out_permille(0, 0), None);
        // A reply larger than what it measured avoided nothing: never a negative share.
        assert_eq!(percent_text(100, 125), "0.0%");
        assert_eq!(percent_text(1_000, 1_001), "0.0%");
        assert_eq!(kept_out_permille(100, 125), Some(0));
    }

    #[test]
    fn tokens_are_a_quarter_of_the_bytes() {
        assert_eq!(tokens(0), 0);
        assert_eq!(tokens(3), 0);
        assert_eq!(tokens(4_001), 1_000);
        assert_eq!(kept_out_bytes(10, 25), 0);
    }

    #[test]
    fn bars_have_a_fixed_width_and_never_overstate() {
        assert_eq!(bar(100, 50, 10), "█████░░░░░");
        assert_eq!(bar(1_000, 1, 10), "█████████░", "99.9% is not a full bar");
        assert_eq!(bar(100, 0, 4), "████");
        assert_eq!(bar(0, 0, 4), "░░░░");
        assert_eq!(bar(100, 300, 4), "░░░░");
        for (raw, returned) in [(7, 3), (u64::MAX, 1), (1, 0)] {
            assert_eq!(bar(raw, returned, 24).chars().count(), 24);
        }
    }

    #[test]
    fn sizes_counts_and_durations_read_well() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(count(1, "chunk"), "1 chunk");
        assert_eq!(count(0, "chunk"), "0 chunks");
        assert_eq!(count(1_500, "call"), "1,500 calls");
        assert_eq!(crate::human::bytes(812), "812 B");
        assert_eq!(crate::human::bytes(60_000), "58.6 KB");
        assert_eq!(crate::human::bytes(1_258_291), "1.2 MB");
        assert_eq!(human_micros(850), "850 µs");
        assert_eq!(human_micros(3_140), "3.1 ms");
        assert_eq!(human_micros(1_200_000), "1.20 s");
    }

    #[test]
    fn percentiles_of_known_runs() {
        let runs: Vec<u64> = (1..=100).map(|n| n * 10).collect();
        assert_eq!(percentiles(&runs), Some((500, 950, 1_000)));
        assert_eq!(percentiles(&[7]), Some((7, 7, 7)));
        assert_eq!(percentiles(&[]), None);
    }
}
