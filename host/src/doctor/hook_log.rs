//! `hook-errors.log`: hooks fail open and leave one line there; recent lines mean the
//! agent has been running without routing for some calls.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::Check;
use crate::limits::{DOCTOR_HOOK_ERRORS_WINDOW_MS, DOCTOR_HOOK_LOG_TAIL_BYTES};

const NAME: &str = "hook errors";

pub fn check(root: Option<&Path>) -> Check {
    let Some(root) = root else {
        return Check::warn(NAME, "not checked: no usable data root", None);
    };
    let path = crate::paths::hook_errors_log(root);
    let tail = match read_tail(&path) {
        Ok(Some(tail)) => tail,
        Ok(None) => return Check::pass(NAME, "none logged"),
        Err(err) => {
            return Check::warn(NAME, format!("cannot read {}: {err}", path.display()), None);
        }
    };
    let now_secs = crate::timestamp::now_ms() / 1_000;
    let since = crate::timestamp::rfc3339_utc(
        now_secs.saturating_sub(DOCTOR_HOOK_ERRORS_WINDOW_MS / 1_000),
    );
    let (recent, last) = recent_errors(&tail, &since);
    let hours = DOCTOR_HOOK_ERRORS_WINDOW_MS / 3_600_000;
    match last {
        None => Check::pass(NAME, format!("none in the last {hours} h")),
        Some(last) => Check::warn(
            NAME,
            format!("{recent} in the last {hours} h; last: {last}"),
            Some(format!("tail -n 20 {}", super::shell_path(&path))),
        ),
    }
}

/// The end of the log (whole lines only), or `None` when there is no log.
fn read_tail(path: &Path) -> std::io::Result<Option<String>> {
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    let start = len.saturating_sub(DOCTOR_HOOK_LOG_TAIL_BYTES);
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    // A read that started mid-file starts mid-line: drop that partial line.
    Ok(Some(if start > 0 {
        text.split_once('\n')
            .map(|(_, rest)| rest.to_string())
            .unwrap_or_default()
    } else {
        text
    }))
}

/// How many lines are stamped at or after `since` (RFC 3339 UTC sorts as text), and the
/// last of them.
fn recent_errors<'a>(log: &'a str, since: &str) -> (usize, Option<&'a str>) {
    let recent: Vec<&str> = log
        .lines()
        .map(str::trim)
        .filter(|line| {
            line.split_whitespace()
                .next()
                .is_some_and(|stamp| stamp.len() == since.len() && stamp >= since)
        })
        .collect();
    (recent.len(), recent.last().copied())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::Status;

    #[test]
    fn old_lines_pass_recent_ones_warn_with_the_last_line() {
        let root = tempfile::tempdir().expect("tempdir");
        assert_eq!(check(Some(root.path())).status, Status::Pass);
        std::fs::write(
            crate::paths::hook_errors_log(root.path()),
            "2001-01-01T00:00:00Z claude-code stop: ancient\n",
        )
        .expect("write");
        assert_eq!(check(Some(root.path())).status, Status::Pass);
        let now = crate::timestamp::rfc3339_utc(crate::timestamp::now_ms() / 1_000);
        let log =
            std::fs::read_to_string(crate::paths::hook_errors_log(root.path())).expect("read");
        std::fs::write(
            crate::paths::hook_errors_log(root.path()),
            format!(
                "{log}{now} claude-code pretooluse: boom one\n{now} claude-code stop: boom two\n"
            ),
        )
        .expect("write");
        let row = check(Some(root.path()));
        assert_eq!(row.status, Status::Warn);
        assert!(
            row.detail.starts_with("2 in the last 24 h; last: "),
            "{}",
            row.detail
        );
        assert!(
            row.detail.ends_with("claude-code stop: boom two"),
            "{}",
            row.detail
        );
        assert!(
            row.fix
                .as_deref()
                .is_some_and(|f| f.starts_with("tail -n 20 "))
        );
    }
}
