//! `<root>/hook-errors.log`: one line per hook failure, appended.

use std::io::Write;
use std::path::Path;

use crate::limits::HOOK_ERROR_LINE_MAX_BYTES;

/// Appends one line; a failure to log is itself silent (the hook must not fail).
pub fn append(root: Option<&Path>, platform: &str, event: &str, message: &str) {
    let Some(root) = root else {
        return;
    };
    let line = format!(
        "{} {platform} {event}: {}\n",
        crate::timestamp::rfc3339_utc(crate::timestamp::now_ms() / 1_000),
        one_line(message)
    );
    let _ = std::fs::create_dir_all(root);
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(crate::paths::hook_errors_log(root))
    {
        // One write call per line, so concurrent hooks never interleave inside a line.
        let _ = file.write_all(line.as_bytes());
    }
}

/// One line of at most `HOOK_ERROR_LINE_MAX_BYTES`: a runaway message cannot grow the log.
fn one_line(message: &str) -> String {
    let mut flat = crate::human::one_line(message);
    if flat.len() > HOOK_ERROR_LINE_MAX_BYTES {
        let mut cut = HOOK_ERROR_LINE_MAX_BYTES;
        while !flat.is_char_boundary(cut) {
            cut -= 1;
        }
        flat.truncate(cut);
        flat.push('…');
    }
    flat
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_exactly_one_flat_line() {
        let root = tempfile::tempdir().expect("tempdir");
        append(
            Some(root.path()),
            "claude-code",
            "pretooluse",
            "first\nsecond",
        );
        append(Some(root.path()), "claude-code", "stop", "x");
        let log = std::fs::read_to_string(crate::paths::hook_errors_log(root.path())).expect("log");
        let lines: Vec<_> = log.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].ends_with("claude-code pretooluse: first second"));
    }
}
