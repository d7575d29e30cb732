//! What a merge did, in two forms: changes a person reads (path, before → after) and
//! operations recorded in the manifest so `--remove` can take out exactly them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::limits::SETUP_PREVIEW_MAX_CHARS;

/// One recorded operation on one file, format-neutral (JSON and TOML alike).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum Op {
    /// A key set to `value`; `previous` is what it held before (none: the key was new).
    SetKey {
        path: Vec<String>,
        value: Value,
        previous: Option<Value>,
    },
    /// An entry appended to (or replacing a stale entry of ours in) the array at `path`.
    AddEntry { path: Vec<String>, entry: Value },
    /// A whole text file written by setup.
    WholeFile,
    /// Our marked block appended to (or refreshed in) a text file the user owns;
    /// `separator` is what was put between their text and the block.
    TextBlock { separator: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Add,
    Replace,
    Remove,
}

/// One change, for the plan shown before applying.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub kind: ChangeKind,
    /// Dotted key path; `[]` marks an array entry (`hooks.PreToolUse[]`).
    pub path: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

impl Change {
    pub fn add(path: String, after: &Value) -> Self {
        Change {
            kind: ChangeKind::Add,
            path,
            before: None,
            after: Some(compact(after)),
        }
    }

    pub fn replace(path: String, before: &Value, after: &Value) -> Self {
        Change {
            kind: ChangeKind::Replace,
            path,
            before: Some(compact(before)),
            after: Some(compact(after)),
        }
    }

    pub fn remove(path: String, before: &Value) -> Self {
        Change {
            kind: ChangeKind::Remove,
            path,
            before: Some(compact(before)),
            after: None,
        }
    }

    /// One line: `+ path = value`, `~ path: before → after`, `- path value`.
    pub fn line(&self) -> String {
        let before = self.before.as_deref().unwrap_or("");
        let after = self.after.as_deref().unwrap_or("");
        match self.kind {
            ChangeKind::Add => format!("+ {} = {after}", self.path),
            ChangeKind::Replace => format!("~ {}: {before} → {after}", self.path),
            ChangeKind::Remove => format!("- {} {before}", self.path),
        }
    }
}

/// A merged file: its new text, what changed and what to record.
#[derive(Debug, Default)]
pub struct MergeOutcome {
    pub text: String,
    pub changes: Vec<Change>,
    pub ops: Vec<Op>,
    /// What was left in place, and why (only when removing).
    pub notes: Vec<String>,
}

/// A value on one line, cut (at a character boundary) when long.
pub fn compact(value: &Value) -> String {
    let text = match value {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    };
    if text.chars().count() <= SETUP_PREVIEW_MAX_CHARS {
        return text;
    }
    let cut: String = text.chars().take(SETUP_PREVIEW_MAX_CHARS).collect();
    format!("{cut}…")
}

/// `a.b.c` for a key path, with `[]` for array entries.
pub fn dotted(path: &[String]) -> String {
    path.join(".")
}

pub fn entry_path(path: &[String]) -> String {
    format!("{}[]", dotted(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_values_are_cut_on_one_line() {
        let long = json!({"k": "x".repeat(500)});
        let text = compact(&long);
        assert!(text.ends_with('…'));
        assert_eq!(text.chars().count(), SETUP_PREVIEW_MAX_CHARS + 1);
        let change = Change::replace("a.b".into(), &json!("/old/cm"), &json!("/new/cm"));
        assert_eq!(change.line(), r#"~ a.b: "/old/cm" → "/new/cm""#);
    }
}
