//! Inline SVG charts for the insight report, drawn in Rust: no script, no external file,
//! no namespace URL (an `<svg>` inside HTML5 needs none). Every text is escaped.

use std::fmt::Write as _;

/// Text for HTML element content and attribute values: `& < > " '` escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(ch),
        }
    }
    out
}

/// The first `max` characters of `text`, with `…` when cut.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Width of every chart's coordinate system (it scales to the page).
const WIDTH: u32 = 1000;

/// One column of a column chart.
pub struct Column {
    pub label: String,
    pub value: u64,
    pub tooltip: String,
}

/// A column chart: one column per entry, a value axis with three grid lines.
pub fn columns(aria: &str, cols: &[Column], axis: fn(u64) -> String) -> String {
    let (height, left, bottom, top) = (240u32, 70u32, 36u32, 14u32);
    let plot_w = WIDTH - left - 10;
    let plot_h = height - bottom - top;
    let max = cols.iter().map(|c| c.value).max().unwrap_or(0).max(1);
    let mut svg = open_svg(aria, height);
    for step in 0..=2u32 {
        // A grid line sits at its own (rounded-down) value, so its label never lies.
        let value = max * u64::from(step) / 2;
        let y = top + plot_h - (u128::from(plot_h) * u128::from(value) / u128::from(max)) as u32;
        let _ = write!(
            svg,
            r#"<line class="grid" x1="{left}" y1="{y}" x2="{}" y2="{y}"/><text class="axis" x="{}" y="{}" text-anchor="end">{}</text>"#,
            WIDTH - 10,
            left - 8,
            y + 4,
            escape(&axis(value))
        );
    }
    let n = cols.len().max(1) as u32;
    let slot = plot_w / n;
    let bar_w = (slot * 7 / 10).max(1);
    let label_every = n.div_ceil(10).max(1);
    for (i, col) in cols.iter().enumerate() {
        let i = i as u32;
        let h = (u128::from(plot_h) * u128::from(col.value) / u128::from(max)) as u32;
        let x = left + slot * i + (slot - bar_w) / 2;
        let y = top + plot_h - h;
        let _ = write!(
            svg,
            r#"<rect class="bar" x="{x}" y="{y}" width="{bar_w}" height="{h}" data-value="{}"><title>{}</title></rect>"#,
            col.value,
            escape(&col.tooltip)
        );
        if i.is_multiple_of(label_every) {
            let _ = write!(
                svg,
                r#"<text class="axis" x="{}" y="{}" text-anchor="middle">{}</text>"#,
                x + bar_w / 2,
                height - bottom + 18,
                escape(&col.label)
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

/// One row of a bar chart: stacked segments (value, CSS class), a label and a note.
pub struct Row {
    pub label: String,
    pub segments: Vec<(u64, &'static str)>,
    pub note: String,
    pub tooltip: String,
}

/// A horizontal bar chart: one row per entry, lengths relative to the largest row.
pub fn rows(aria: &str, rows: &[Row]) -> String {
    let (row_h, label_w, note_w) = (30u32, 300u32, 190u32);
    let height = row_h * rows.len().max(1) as u32 + 8;
    let bar_area = WIDTH - label_w - note_w - 20;
    let max = rows
        .iter()
        .map(|r| r.segments.iter().map(|s| s.0).sum::<u64>())
        .max()
        .unwrap_or(0)
        .max(1);
    let mut svg = open_svg(aria, height);
    for (i, row) in rows.iter().enumerate() {
        let y = 4 + row_h * i as u32;
        let _ = write!(
            svg,
            r#"<g><title>{}</title><text class="label" x="{}" y="{}" text-anchor="end">{}</text>"#,
            escape(&row.tooltip),
            label_w - 10,
            y + 19,
            escape(&clip(&row.label, 40))
        );
        let mut x = label_w;
        for (value, class) in &row.segments {
            let w = (u128::from(bar_area) * u128::from(*value) / u128::from(max)) as u32;
            let _ = write!(
                svg,
                r#"<rect class="{class}" x="{x}" y="{}" width="{w}" height="{}" data-value="{value}"/>"#,
                y + 4,
                row_h - 10
            );
            x += w;
        }
        let _ = write!(
            svg,
            r#"<text class="note" x="{}" y="{}">{}</text></g>"#,
            x + 8,
            y + 19,
            escape(&row.note)
        );
    }
    svg.push_str("</svg>");
    svg
}

fn open_svg(aria: &str, height: u32) -> String {
    format!(
        r#"<svg class="chart" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{}">"#,
        escape(aria)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_user_text_is_escaped() {
        assert_eq!(
            escape(r#"<script>alert("x") & 'y'</script>"#),
            "&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;"
        );
        assert_eq!(escape("plain ünïcode"), "plain ünïcode");
        let chart = rows(
            "sources",
            &[Row {
                label: "<img src=x onerror=alert(1)>".into(),
                segments: vec![(10, "bar")],
                note: "\"quoted\"".into(),
                tooltip: "a & b".into(),
            }],
        );
        assert!(!chart.contains("<img"), "{chart}");
        assert!(
            chart.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{chart}"
        );
        assert!(chart.contains("&quot;quoted&quot;") && chart.contains("a &amp; b"));
    }

    #[test]
    fn columns_scale_to_the_largest_value() {
        let chart = columns(
            "per day",
            &[
                Column {
                    label: "a".into(),
                    value: 50,
                    tooltip: "a".into(),
                },
                Column {
                    label: "b".into(),
                    value: 100,
                    tooltip: "b".into(),
                },
            ],
            |v| v.to_string(),
        );
        // Plot height 190: the largest column fills it, the half one is half as tall.
        assert!(
            chart.contains(r#"height="190" data-value="100""#),
            "{chart}"
        );
        assert!(chart.contains(r#"height="95" data-value="50""#), "{chart}");
        assert!(!chart.contains("xmlns") && !chart.contains("http"));
    }

    #[test]
    fn clipping_counts_characters() {
        assert_eq!(clip("ünïcode", 10), "ünïcode");
        assert_eq!(clip("ünïcode", 4), "ünï…");
    }
}
