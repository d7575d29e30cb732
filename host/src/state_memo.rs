//! What a small state file said when this process last read or wrote it, kept with the
//! file's stamp (size, modification time and identity), so `cm serve`, which reads the
//! same few state files on every hook it answers, reads one again only after it
//! changed: one `stat` instead of open, read and close. Every writer of these files
//! replaces them by rename (`platform::fs::replace_state_file`), which gives the file a
//! new identity, so a change by another process is seen even within one timestamp tick.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::UNIX_EPOCH;

/// The files one memo keeps: a server reads a handful (its agent's announcement, one
/// server-name cache per platform).
const MEMO_FILES_MAX: usize = 16;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified_ns: Option<u128>,
    identity: Option<(u64, u64)>,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok()?;
        Some(Stamp {
            len: meta.len(),
            modified_ns: meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map(|d| d.as_nanos()),
            identity: crate::platform::fs::file_identity(&meta),
        })
    }
}

/// Parsed state files by path, each with the stamp it was read or written under.
pub struct StateMemo<T> {
    entries: Mutex<Vec<(PathBuf, Stamp, T)>>,
}

impl<T: Clone> Default for StateMemo<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Clone> StateMemo<T> {
    pub const fn new() -> Self {
        StateMemo {
            entries: Mutex::new(Vec::new()),
        }
    }

    /// The file's parsed contents: remembered while its stamp is the same, else read and
    /// parsed again. `None` when the file is missing or does not parse.
    pub fn read(&self, path: &Path, parse: impl FnOnce(&[u8]) -> Option<T>) -> Option<T> {
        // Stamped before reading: a file replaced in between is read again next time.
        let stamp = Stamp::of(path)?;
        if let Some(value) = self.remembered(path, &stamp) {
            return Some(value);
        }
        let value = parse(&std::fs::read(path).ok()?)?;
        self.remember_stamped(path, stamp, value.clone());
        Some(value)
    }

    /// Remembers what this process just wrote to `path`.
    pub fn wrote(&self, path: &Path, value: T) {
        if let Some(stamp) = Stamp::of(path) {
            self.remember_stamped(path, stamp, value);
        }
    }

    fn remembered(&self, path: &Path, stamp: &Stamp) -> Option<T> {
        let entries = self.entries.lock().ok()?;
        entries
            .iter()
            .find(|(p, s, _)| p == path && s == stamp)
            .map(|(.., value)| value.clone())
    }

    fn remember_stamped(&self, path: &Path, stamp: Stamp, value: T) {
        let Ok(mut entries) = self.entries.lock() else {
            return;
        };
        entries.retain(|(p, ..)| p != path);
        if entries.len() >= MEMO_FILES_MAX {
            entries.remove(0);
        }
        entries.push((path.to_path_buf(), stamp, value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replace(dir: &Path, path: &Path, text: &str) {
        let tmp = dir.join(".tmp");
        std::fs::write(&tmp, text).unwrap();
        crate::platform::fs::replace_state_file(&tmp, path).unwrap();
    }

    fn parse(bytes: &[u8]) -> Option<String> {
        String::from_utf8(bytes.to_vec()).ok()
    }

    /// A file another process replaces with text of the same length, at once, is read
    /// again: the memo never answers with what the file said before.
    #[test]
    fn a_replaced_file_is_read_again_even_within_one_tick() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        let memo = StateMemo::<String>::new();
        replace(dir.path(), &path, "one");
        assert_eq!(memo.read(&path, parse).as_deref(), Some("one"));
        for text in ["two", "six", "ten"] {
            replace(dir.path(), &path, text);
            assert_eq!(memo.read(&path, parse).as_deref(), Some(text));
        }
    }

    /// An unchanged file is not read again (the parser is not called), and what this
    /// process wrote is remembered as written.
    #[test]
    fn an_unchanged_file_is_answered_from_memory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        let memo = StateMemo::<String>::new();
        replace(dir.path(), &path, "kept");
        assert_eq!(memo.read(&path, parse).as_deref(), Some("kept"));
        assert_eq!(
            memo.read(&path, |_| panic!("read again")).as_deref(),
            Some("kept")
        );
        replace(dir.path(), &path, "mine");
        memo.wrote(&path, "mine".to_owned());
        assert_eq!(
            memo.read(&path, |_| panic!("read again")).as_deref(),
            Some("mine")
        );
        std::fs::remove_file(&path).unwrap();
        assert_eq!(memo.read(&path, parse), None);
    }
}
