//! Helpers the black-box setup tests share: files, the `cm` path, the hook commands setup
//! writes, and what a host's config says about our entries.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use super::{CM, Sandbox};

pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn jsonc(path: &Path) -> Value {
    let text = read(path);
    let parsed = jsonc_parser::parse_to_ast(&text, &Default::default(), &Default::default())
        .unwrap_or_else(|e| panic!("{} is not JSONC: {e}", path.display()));
    parsed.value.map(Value::from).unwrap_or(Value::Null)
}

pub fn cm_path() -> String {
    Path::new(CM).canonicalize().unwrap().display().to_string()
}

/// `<cm> hook <agent> <event>`, quoted the way a shell needs it.
pub fn hook_command(agent: &str, event: &str) -> String {
    let cm = cm_path();
    let cm = if cm.contains(' ') {
        format!("\"{cm}\"")
    } else {
        cm
    };
    format!("{cm} hook {agent} {event}")
}

/// Every `command` under `hooks.<event>`, whether flat (Cursor) or grouped (Gemini, Codex).
pub fn commands_of(hooks: &Value, event: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in hooks[event].as_array().into_iter().flatten() {
        if let Some(command) = entry["command"].as_str() {
            found.push(command.to_owned());
        }
        for hook in entry["hooks"].as_array().into_iter().flatten() {
            found.push(hook["command"].as_str().unwrap_or_default().to_owned());
        }
    }
    found
}

pub fn assert_ours_once(hooks: &Value, event: &str, command: &str) {
    let commands = commands_of(hooks, event);
    assert_eq!(
        commands.iter().filter(|c| *c == command).count(),
        1,
        "{event}: {commands:?}"
    );
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn assert_serve(server: &Value) {
    assert_eq!(server["command"], cm_path(), "{server}");
    assert_eq!(server["args"], json!(["serve"]), "{server}");
}

/// `cm setup <args>` with `env`, which must succeed.
pub fn setup(sandbox: &Sandbox, env: &[(&str, &Path)], args: &[&str]) -> Output {
    let mut command = sandbox.cm();
    command.arg("setup").args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().expect("run cm setup");
    assert!(
        out.status.success(),
        "cm setup {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Applies, checks a second run changes nothing (same bytes), removes, and checks every
/// file is back to its original bytes or gone.
pub struct Round<'a> {
    pub sandbox: &'a Sandbox,
    pub env: Vec<(&'a str, &'a Path)>,
    pub display: &'a str,
    /// (file, its bytes before setup or none when setup creates it).
    pub files: Vec<(PathBuf, Option<String>)>,
}

impl Round<'_> {
    pub fn apply(&self, args: &[&str]) -> String {
        let out = setup(self.sandbox, &self.env, args);
        assert!(stdout(&out).contains("registered"), "{}", stdout(&out));
        for (path, _) in &self.files {
            assert!(path.is_file(), "{} was not written", path.display());
        }
        stdout(&out)
    }

    pub fn second_run_changes_nothing(&self, args: &[&str]) {
        let before: Vec<String> = self.files.iter().map(|(p, _)| read(p)).collect();
        let out = setup(self.sandbox, &self.env, args);
        assert!(
            stdout(&out).contains(&format!("{}: no changes", self.display)),
            "{}",
            stdout(&out)
        );
        let after: Vec<String> = self.files.iter().map(|(p, _)| read(p)).collect();
        assert_eq!(before, after);
    }

    pub fn remove_restores_everything(&self) {
        let out = setup(self.sandbox, &self.env, &["--remove"]);
        assert!(
            stdout(&out).contains("removed context-mode from"),
            "{}",
            stdout(&out)
        );
        for (path, original) in &self.files {
            match original {
                Some(text) => assert_eq!(&read(path), text, "{}", path.display()),
                None => assert!(!path.exists(), "{} is still there", path.display()),
            }
        }
    }
}

/// `cm doctor --json --agents <id>`: the status of each of the named rows.
pub fn doctor_rows(sandbox: &Sandbox, env: &[(&str, &Path)], id: &str) -> Vec<(String, String)> {
    let mut command = sandbox.cm();
    command
        .env("CONTEXT_MODE_DOCTOR_BUDGET_MS", "60000")
        .args(["doctor", "--json", "--agents", id]);
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().expect("cm doctor");
    let report: Value = serde_json::from_slice(&out.stdout).expect("doctor json");
    report["checks"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|row| {
            row["name"]
                .as_str()
                .is_some_and(|n| n.starts_with(&format!("{id} ")))
        })
        .map(|row| {
            (
                row["name"].as_str().unwrap_or_default().to_owned(),
                row["status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// A copy of the built `cm` at `dir/cm` (a hard link where the file system allows: only
/// the path matters to setup and upgrade, and `cm` canonicalises symlinks away), by its
/// canonical path.
pub fn cm_at(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).expect("mkdir");
    let target = dir.join(format!("cm{}", std::env::consts::EXE_SUFFIX));
    if std::fs::hard_link(CM, &target).is_err() {
        std::fs::copy(CM, &target).expect("copy cm");
    }
    target.canonicalize().expect("canonical cm")
}
