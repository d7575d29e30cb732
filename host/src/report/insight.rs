//! `cm insight` / `ctx_insight`: one self-contained HTML file about a project — kept-out
//! bytes per day and per tool, the largest sources, hook latency, journal categories.
//! Inline CSS and SVG only: no script, no external asset, no address of any kind.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::math::{count, human_micros, kept_out_bytes, percent_text, thousands};
use super::stats::{HookLine, ToolLine, Totals, hook_lines};
use super::svg::{Column, Row, columns, escape, rows};
use crate::limits::{HOOK_LATENCY_RUNS_PER_EVENT, INSIGHT_DAYS, INSIGHT_TOP_SOURCES};
use crate::store::{CategoryCount, DayStats, SourceSize, Store, StoreError};

const DAY_MS: i64 = 86_400_000;

/// Everything the report shows.
#[derive(Debug, Clone, Default)]
pub struct InsightData {
    pub project_dir: String,
    pub generated_at_ms: i64,
    pub totals: Totals,
    pub tools: Vec<ToolLine>,
    /// One entry per day of the last INSIGHT_DAYS days, oldest first (empty days included).
    pub days: Vec<DayStats>,
    pub sources: Vec<SourceSize>,
    pub source_count: u64,
    pub source_bytes: u64,
    pub hook_runs_us: Vec<u64>,
    pub hooks: Vec<HookLine>,
    pub categories: Vec<CategoryCount>,
}

/// Reads the report's data from the project store (absent: a project never used).
pub fn gather(
    store: Option<&Store>,
    project_dir: &Path,
    now_ms: i64,
) -> Result<InsightData, StoreError> {
    let today = now_ms.div_euclid(DAY_MS);
    let first_day = today - INSIGHT_DAYS as i64 + 1;
    let mut data = InsightData {
        project_dir: project_dir.display().to_string(),
        generated_at_ms: now_ms,
        ..InsightData::default()
    };
    let mut measured: Vec<DayStats> = Vec::new();
    if let Some(store) = store {
        data.tools = store
            .tool_stats_summary(None)?
            .into_iter()
            .map(ToolLine::from)
            .collect();
        measured = store.stats_per_day(first_day * DAY_MS)?;
        data.sources = store.largest_sources(INSIGHT_TOP_SOURCES)?;
        (data.source_count, data.source_bytes) = store.source_totals()?;
        let runs = store.hook_durations(HOOK_LATENCY_RUNS_PER_EVENT)?;
        data.hook_runs_us = runs.iter().map(|r| r.duration_us).collect();
        data.hooks = hook_lines(runs);
        data.categories = store.journal_category_counts()?;
    }
    data.totals = Totals::of(&data.tools);
    data.days = (first_day..=today)
        .map(|day| {
            measured
                .iter()
                .find(|m| m.day == day)
                .cloned()
                .unwrap_or(DayStats {
                    day,
                    calls: 0,
                    raw_bytes: 0,
                    returned_bytes: 0,
                })
        })
        .collect();
    Ok(data)
}

/// Renders the report and writes it (temp file, then rename) to `path`.
pub fn write(path: &Path, data: &InsightData) -> std::io::Result<PathBuf> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp-{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, render(data))?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;
    Ok(path.to_path_buf())
}

/// Two lines about the report's content, for the tool reply and the terminal.
pub fn summary(data: &InsightData) -> String {
    let t = &data.totals;
    let savings = if t.is_unmeasured() {
        "No tool output measured yet in this project.".to_string()
    } else {
        format!(
            "{} of {} raw kept out of the context ({}) over {} in this project.",
            crate::human::bytes(t.kept_out_bytes),
            crate::human::bytes(t.raw_bytes),
            percent_text(t.raw_bytes, t.returned_bytes),
            count(t.calls, "call")
        )
    };
    let journal: u64 = data.categories.iter().map(|c| c.rows).sum();
    format!(
        "{savings}\n{} indexed ({}); {}; {} timed.",
        count(data.source_count, "source"),
        crate::human::bytes(data.source_bytes),
        count(journal, "journal row"),
        count(data.hook_runs_us.len() as u64, "hook run")
    )
}

/// The whole page.
pub fn render(data: &InsightData) -> String {
    let generated =
        crate::timestamp::rfc3339_utc(u64::try_from(data.generated_at_ms / 1000).unwrap_or(0));
    let mut page = String::with_capacity(32 * 1024);
    let _ = write!(
        page,
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>context-mode insight · {project}</title>
<style>{STYLE}</style></head>
<body><main>
<header><h1>context-mode insight</h1>
<p class="sub">{project} · generated {generated} · read from the local database; nothing here leaves this machine</p></header>
"#,
        project = escape(&data.project_dir),
    );
    cards(&mut page, data);
    section(
        &mut page,
        "Kept out per day",
        &per_day_hint(),
        per_day(data),
    );
    section(
        &mut page,
        "Per tool",
        "Bytes the tools measured raw: the green part stayed out of the context, the grey part was returned.",
        per_tool(data),
    );
    section(
        &mut page,
        "Largest indexed sources",
        &format!(
            "The {INSIGHT_TOP_SOURCES} largest of {} sources ({} in all).",
            thousands(data.source_count),
            crate::human::bytes(data.source_bytes)
        ),
        top_sources(data),
    );
    section(
        &mut page,
        "Hook latency",
        &format!(
            "Whole hook runs (the last {} of each event at most), by duration.",
            thousands(HOOK_LATENCY_RUNS_PER_EVENT as u64)
        ),
        hook_latency(data),
    );
    section(
        &mut page,
        "Session journal",
        "Rows the hooks journalled, per category, all sessions.",
        journal(data),
    );
    page.push_str("</main></body></html>\n");
    page
}

const STYLE: &str = "
:root{--fg:#1d2433;--muted:#5b6475;--line:#e3e7ee;--kept:#2f9e6b;--ret:#9aa3b2;--bar:#3b6fd8;--bg:#f6f8fb}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}
main{max-width:1080px;margin:0 auto;padding:28px 24px 48px}
h1{margin:0 0 4px;font-size:26px}
h2{margin:0 0 4px;font-size:18px}
.sub,.hint{color:var(--muted);margin:0 0 14px;overflow-wrap:anywhere}
.cards{display:grid;grid-template-columns:repeat(4,1fr);gap:14px;margin:18px 0}
.card,section{background:#fff;border:1px solid var(--line);border-radius:10px}
.card{padding:14px 16px}
.card .value{font-size:24px;font-weight:650}
.card .what{color:var(--muted);font-size:13px}
section{padding:18px 20px;margin:0 0 16px}
.chart{width:100%;height:auto;display:block}
.chart .grid{stroke:var(--line)}
.chart .axis,.chart .note{fill:var(--muted);font-size:12px}
.chart .label{fill:var(--fg);font-size:13px}
.chart .bar{fill:var(--bar)}
.chart .kept{fill:var(--kept)}
.chart .returned{fill:var(--ret)}
.empty{color:var(--muted);font-style:italic;margin:6px 0}
table{border-collapse:collapse;margin-top:12px;font-size:13px}
th,td{padding:4px 14px 4px 0;text-align:left}
td.n,th.n{text-align:right}
";

fn cards(page: &mut String, data: &InsightData) {
    let t = &data.totals;
    let share = if t.is_unmeasured() {
        "n/a".to_string()
    } else {
        percent_text(t.raw_bytes, t.returned_bytes)
    };
    page.push_str(r#"<div class="cards">"#);
    for (value, what) in [
        (
            crate::human::bytes(t.kept_out_bytes),
            "kept out of the context",
        ),
        (share, "of raw output kept out"),
        (
            format!("≈ {}", thousands(t.kept_out_tokens)),
            "tokens kept out",
        ),
        (thousands(t.calls), "tool calls measured"),
    ] {
        let _ = write!(
            page,
            r#"<div class="card"><div class="value">{}</div><div class="what">{}</div></div>"#,
            escape(&value),
            escape(what)
        );
    }
    page.push_str("</div>\n");
}

fn section(page: &mut String, title: &str, hint: &str, body: Option<String>) {
    let body = body.unwrap_or_else(|| r#"<p class="empty">Nothing recorded yet.</p>"#.into());
    let _ = writeln!(
        page,
        r#"<section><h2>{}</h2><p class="hint">{}</p>{body}</section>"#,
        escape(title),
        escape(hint)
    );
}

fn per_day_hint() -> String {
    format!("Bytes kept out of the context per day, the last {INSIGHT_DAYS} days (UTC).")
}

fn per_day(data: &InsightData) -> Option<String> {
    if data.days.iter().all(|d| d.calls == 0) {
        return None;
    }
    let cols: Vec<Column> = data
        .days
        .iter()
        .map(|d| {
            let date = day_date(d.day);
            let kept = kept_out_bytes(d.raw_bytes, d.returned_bytes);
            Column {
                label: date.get(5..).unwrap_or(&date).to_string(),
                value: kept,
                tooltip: format!(
                    "{date}: {} kept out of {} raw, {} calls",
                    crate::human::bytes(kept),
                    crate::human::bytes(d.raw_bytes),
                    thousands(d.calls)
                ),
            }
        })
        .collect();
    Some(columns(
        "Bytes kept out per day",
        &cols,
        crate::human::bytes,
    ))
}

/// `YYYY-MM-DD` of a day number.
fn day_date(day: i64) -> String {
    let secs = u64::try_from(day.saturating_mul(86_400)).unwrap_or(0);
    crate::timestamp::rfc3339_utc(secs)
        .get(..10)
        .unwrap_or_default()
        .to_string()
}

fn per_tool(data: &InsightData) -> Option<String> {
    if data
        .tools
        .iter()
        .all(|t| t.raw_bytes == 0 && t.returned_bytes == 0)
    {
        return None;
    }
    let chart: Vec<Row> = data
        .tools
        .iter()
        .map(|t| {
            let kept = kept_out_bytes(t.raw_bytes, t.returned_bytes);
            Row {
                label: t.tool.clone(),
                segments: vec![(kept, "kept"), (t.returned_bytes, "returned")],
                note: format!(
                    "{} · {}",
                    percent_text(t.raw_bytes, t.returned_bytes),
                    count(t.calls, "call")
                ),
                tooltip: format!(
                    "{}: {} raw, {} returned, {} calls, {} cache hits",
                    t.tool,
                    crate::human::bytes(t.raw_bytes),
                    crate::human::bytes(t.returned_bytes),
                    thousands(t.calls),
                    thousands(t.cache_hits)
                ),
            }
        })
        .collect();
    Some(rows("Bytes per tool, kept out and returned", &chart))
}

fn top_sources(data: &InsightData) -> Option<String> {
    if data.sources.is_empty() {
        return None;
    }
    let chart: Vec<Row> = data
        .sources
        .iter()
        .map(|s| Row {
            label: s.label.clone(),
            segments: vec![(s.bytes, "bar")],
            note: format!(
                "{} · {}",
                crate::human::bytes(s.bytes),
                count(s.chunk_count, "chunk")
            ),
            tooltip: format!(
                "{} ({}): {}, {}",
                s.label,
                s.kind,
                crate::human::bytes(s.bytes),
                count(s.chunk_count, "chunk")
            ),
        })
        .collect();
    Some(rows("Largest indexed sources", &chart))
}

/// Histogram buckets of hook durations: upper bound (exclusive) in µs, and label.
const LATENCY_BUCKETS: &[(u64, &str)] = &[
    (1_000, "< 1 ms"),
    (2_000, "1–2 ms"),
    (5_000, "2–5 ms"),
    (10_000, "5–10 ms"),
    (20_000, "10–20 ms"),
    (50_000, "20–50 ms"),
    (100_000, "50–100 ms"),
    (500_000, "0.1–0.5 s"),
    (u64::MAX, "≥ 0.5 s"),
];

fn hook_latency(data: &InsightData) -> Option<String> {
    if data.hook_runs_us.is_empty() {
        return None;
    }
    let mut counts = vec![0u64; LATENCY_BUCKETS.len()];
    for &us in &data.hook_runs_us {
        let bucket = LATENCY_BUCKETS
            .iter()
            .position(|(upper, _)| us < *upper)
            .unwrap_or(LATENCY_BUCKETS.len() - 1);
        counts[bucket] += 1;
    }
    let cols: Vec<Column> = LATENCY_BUCKETS
        .iter()
        .zip(&counts)
        .map(|((_, label), &runs)| Column {
            label: (*label).to_string(),
            value: runs,
            tooltip: format!("{label}: {}", count(runs, "run")),
        })
        .collect();
    let mut html = columns("Hook runs by duration", &cols, thousands);
    html.push_str(
        r#"<table><tr><th>platform</th><th>event</th><th class="n">runs</th><th class="n">p50</th><th class="n">p95</th><th class="n">max</th></tr>"#,
    );
    for h in &data.hooks {
        let _ = write!(
            html,
            r#"<tr><td>{}</td><td>{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td></tr>"#,
            escape(&h.platform),
            escape(&h.event),
            thousands(h.runs),
            escape(&human_micros(h.p50_us)),
            escape(&human_micros(h.p95_us)),
            escape(&human_micros(h.max_us))
        );
    }
    html.push_str("</table>");
    Some(html)
}

fn journal(data: &InsightData) -> Option<String> {
    if data.categories.is_empty() {
        return None;
    }
    let chart: Vec<Row> = data
        .categories
        .iter()
        .map(|c| Row {
            label: c.category.clone(),
            segments: vec![(c.rows, "bar")],
            note: count(c.rows, "row"),
            tooltip: format!("{}: {}", c.category, count(c.rows, "row")),
        })
        .collect();
    Some(rows("Journal rows per category", &chart))
}
