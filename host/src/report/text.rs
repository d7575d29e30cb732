//! The stats report as text, for `ctx_stats` and `cm stats`.

use std::fmt::Write as _;

use super::math::{bar, count, human_micros, percent_text, thousands};
use super::stats::{AllProjects, HookLine, Scope, StatsReport, ToolLine, Totals};
use crate::limits::{HOOK_LATENCY_RUNS_PER_EVENT, STATS_BAR_WIDTH_CHARS, STATS_TOP_PROJECTS};

/// Width of the name column of tool rows (`ctx_fetch_and_index` fits).
const TOOL_COLUMN: usize = 20;

/// What a scope says when it has measured nothing.
pub fn unmeasured_line(scope: &str) -> String {
    format!("No tool output measured yet {scope} — savings appear after the first ctx_* call.")
}

pub fn render(report: &StatsReport) -> String {
    let mut out = format!("context-mode stats · {}\n", report.project_dir);
    let session_title = match &report.session_id {
        Some(id) => format!("This session · {id}"),
        None => "This session".to_string(),
    };
    scope(&mut out, &session_title, "in this session", &report.session);
    if let Some(cost) = &report.session_cost {
        let _ = writeln!(out, "  {}", super::prices::line(cost));
    }
    scope(
        &mut out,
        "This project, all time",
        "in this project",
        &report.project,
    );
    all_projects(&mut out, &report.all_projects);
    out.truncate(out.trim_end().len());
    out
}

fn scope(out: &mut String, title: &str, where_: &str, scope: &Scope) {
    let _ = writeln!(out, "\n{title}");
    let totals = &scope.totals;
    if totals.is_unmeasured() {
        let _ = writeln!(out, "  {}", unmeasured_line(where_));
    } else {
        summary(out, totals);
        tool_table(out, &scope.tools);
    }
    if let Some(hooks) = &scope.hooks {
        hook_table(out, hooks);
    }
}

/// The scope's bar and its sentence.
fn summary(out: &mut String, t: &Totals) {
    let _ = writeln!(
        out,
        "  kept out  {}  {}",
        bar(t.raw_bytes, t.returned_bytes, STATS_BAR_WIDTH_CHARS),
        percent_text(t.raw_bytes, t.returned_bytes)
    );
    let _ = writeln!(
        out,
        "  {} of {} raw stayed out of the context (≈ {} tokens); {} returned; {}",
        crate::human::bytes(t.kept_out_bytes),
        crate::human::bytes(t.raw_bytes),
        thousands(t.kept_out_tokens),
        crate::human::bytes(t.returned_bytes),
        count(t.calls, "call")
    );
}

fn tool_table(out: &mut String, tools: &[ToolLine]) {
    // Rows of hook savings name the other server's tool: the column grows to fit them.
    let width = tools
        .iter()
        .map(|t| t.tool.chars().count())
        .max()
        .unwrap_or(0)
        .max(TOOL_COLUMN);
    let _ = writeln!(
        out,
        "  {:<width$} {:>6} {:>10} {:>10} {:>9}",
        "tool", "calls", "raw", "returned", "kept out"
    );
    for t in tools {
        let _ = writeln!(
            out,
            "  {:<width$} {:>6} {:>10} {:>10} {:>9}  {}",
            t.tool,
            thousands(t.calls),
            crate::human::bytes(t.raw_bytes),
            crate::human::bytes(t.returned_bytes),
            percent_text(t.raw_bytes, t.returned_bytes),
            bar(t.raw_bytes, t.returned_bytes, STATS_BAR_WIDTH_CHARS)
        );
    }
    for t in tools.iter().filter(|t| t.tool == "ctx_fetch_and_index") {
        let _ = writeln!(
            out,
            "  ctx_fetch_and_index cache hits: {} of {} calls answered from the index without a request",
            thousands(t.cache_hits),
            thousands(t.calls),
        );
    }
}

fn hook_table(out: &mut String, hooks: &[HookLine]) {
    if hooks.is_empty() {
        let _ = writeln!(out, "  No hook runs timed yet.");
        return;
    }
    let _ = writeln!(
        out,
        "  hook latency (the last {} runs of each event at most)",
        thousands(HOOK_LATENCY_RUNS_PER_EVENT as u64)
    );
    let _ = writeln!(
        out,
        "  {:<16} {:<20} {:>6} {:>9} {:>9} {:>9}",
        "platform", "event", "runs", "p50", "p95", "max"
    );
    for h in hooks {
        let _ = writeln!(
            out,
            "  {:<16} {:<20} {:>6} {:>9} {:>9} {:>9}",
            h.platform,
            h.event,
            thousands(h.runs),
            human_micros(h.p50_us),
            human_micros(h.p95_us),
            human_micros(h.max_us)
        );
    }
}

fn all_projects(out: &mut String, all: &AllProjects) {
    let listed = all.projects.len();
    let title = format!("All projects ({})", count(listed as u64, "database"));
    let _ = writeln!(out, "\n{title}");
    if all.scope.totals.is_unmeasured() {
        let _ = writeln!(out, "  {}", unmeasured_line("in any project"));
    } else {
        summary(out, &all.scope.totals);
        tool_table(out, &all.scope.tools);
        let _ = writeln!(
            out,
            "  {:<44} {:>6} {:>10} {:>9}",
            "project", "calls", "raw", "kept out"
        );
        for p in all.projects.iter().take(STATS_TOP_PROJECTS) {
            let _ = writeln!(
                out,
                "  {:<44} {:>6} {:>10} {:>9}",
                shorten_start(&p.name, 44),
                thousands(p.totals.calls),
                crate::human::bytes(p.totals.raw_bytes),
                percent_text(p.totals.raw_bytes, p.totals.returned_bytes)
            );
        }
        let rest = &all.projects[listed.min(STATS_TOP_PROJECTS)..];
        if !rest.is_empty() {
            let calls: u64 = rest.iter().map(|p| p.totals.calls).sum();
            let raw: u64 = rest.iter().map(|p| p.totals.raw_bytes).sum();
            let _ = writeln!(
                out,
                "  … and {} more: {} calls, {} raw",
                rest.len(),
                thousands(calls),
                crate::human::bytes(raw)
            );
        }
    }
    if let Some(hooks) = &all.scope.hooks {
        hook_table(out, hooks);
    }
    for skipped in &all.unreadable {
        let _ = writeln!(
            out,
            "  skipped {}: {}",
            skipped.db,
            crate::human::one_line(&skipped.reason)
        );
    }
}

/// The end of `text` within `max` characters: a path's last part names the project.
fn shorten_start(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let tail: String = text.chars().skip(count - (max - 1)).collect();
    format!("…{tail}")
}
