//! The report as a terminal table (`cm doctor`) and as a markdown table (`ctx_doctor`).

use super::{Report, Status};

/// Width the detail column wraps at in the terminal table.
const DETAIL_WIDTH_CHARS: usize = 64;

/// Aligned columns check | status | detail | fix; long details wrap inside their column.
pub fn render_table(report: &Report) -> String {
    let name_width = report
        .checks
        .iter()
        .map(|c| c.name.chars().count())
        .chain(std::iter::once("CHECK".len()))
        .max()
        .unwrap_or(5);
    let wrapped: Vec<Vec<String>> = report
        .checks
        .iter()
        .map(|c| wrap(&c.detail, DETAIL_WIDTH_CHARS))
        .collect();
    let detail_width = wrapped
        .iter()
        .flatten()
        .map(|l| l.chars().count())
        .chain(std::iter::once("DETAIL".len()))
        .max()
        .unwrap_or(6);
    let mut out = String::new();
    let mut line = |name: &str, status: &str, detail: &str, fix: &str| {
        let text = format!("{name:<name_width$}  {status:<6}  {detail:<detail_width$}  {fix}");
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line("CHECK", "STATUS", "DETAIL", "FIX");
    for (check, lines) in report.checks.iter().zip(&wrapped) {
        let fix = check.fix.as_deref().unwrap_or("");
        for (i, detail) in lines.iter().enumerate() {
            if i == 0 {
                line(&check.name, check.status.label(), detail, fix);
            } else {
                line("", "", detail, "");
            }
        }
    }
    out.push_str(&summary(report));
    out.push('\n');
    out
}

/// A markdown table for the agent.
pub fn render_markdown(report: &Report) -> String {
    let mut out = String::from("| check | status | detail | fix |\n|---|---|---|---|\n");
    for check in &report.checks {
        let fix = check
            .fix
            .as_deref()
            .map(|f| format!("`{}`", f.replace('`', "'")))
            .unwrap_or_default();
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            cell(&check.name),
            check.status.label(),
            cell(&check.detail),
            cell(&fix)
        ));
    }
    out.push('\n');
    out.push_str(&summary(report));
    out
}

fn summary(report: &Report) -> String {
    let count = |s: Status| report.checks.iter().filter(|c| c.status == s).count();
    format!(
        "cm {}: {} passed, {} warnings, {} failures ({} ms)",
        report.version,
        count(Status::Pass),
        count(Status::Warn),
        count(Status::Fail),
        report.elapsed_ms
    )
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// Greedy word wrap; a word longer than the width gets a line of its own.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
        let needed =
            current.chars().count() + usize::from(!current.is_empty()) + word.chars().count();
        if !current.is_empty() && needed > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() || lines.is_empty() {
        lines.push(current);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::Check;

    fn report() -> Report {
        Report {
            version: "9.9.9".into(),
            checks: vec![
                Check::pass("version", "cm 9.9.9"),
                Check::warn(
                    "runtime ruby",
                    "not available: none of ruby found on PATH, so ctx_execute cannot run ruby code here at all",
                    Some("sudo apt-get install -y ruby".into()),
                ),
                Check::fail("x|y", "a | b", None),
            ],
            elapsed_ms: 12,
        }
    }

    #[test]
    fn the_table_aligns_columns_and_wraps_long_details() {
        let table = render_table(&report());
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(
            lines[0],
            "CHECK         STATUS  DETAIL                                                            FIX"
        );
        assert!(
            lines[2].starts_with(
                "runtime ruby  WARN    not available: none of ruby found on PATH, so ctx_execute"
            ),
            "{}",
            lines[2]
        );
        assert!(
            lines[2].ends_with("  sudo apt-get install -y ruby"),
            "{}",
            lines[2]
        );
        assert_eq!(lines[3].trim_start(), "run ruby code here at all");
        assert_eq!(lines[3].find("run ruby"), lines[2].find("not available"));
        assert_eq!(
            lines.last().copied(),
            Some("cm 9.9.9: 1 passed, 1 warnings, 1 failures (12 ms)")
        );
    }

    #[test]
    fn markdown_escapes_pipes_and_quotes_fixes() {
        let md = render_markdown(&report());
        assert!(md.contains("| runtime ruby | WARN | not available"), "{md}");
        assert!(md.contains("| `sudo apt-get install -y ruby` |"), "{md}");
        assert!(md.contains("| x\\|y | FAIL | a \\| b |  |"), "{md}");
    }
}
