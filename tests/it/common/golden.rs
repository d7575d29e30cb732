//! Golden hook cases: a host's payload from `tests/golden/<platform>/<case>.stdin.json`
//! piped into `cm hook <platform> <event>` (the event named by the payload's
//! `hook_event_name`), the reply compared byte for byte with `<case>.stdout`.
//! `UPDATE_GOLDEN=1` rewrites the expected files; review the diff.
//!
//! Cases are found by directory (`hook_goldens`): every platform directory, every
//! `<case>.stdin.json` in it, each in a fresh project with a live server. A case named
//! `<base>-after` (when `<base>` exists too) runs right after `<base>` in the same
//! project: it is the reply to the next event of the same session.

use std::path::PathBuf;

use super::{Sandbox, repo_root};

#[derive(Clone, Copy)]
pub struct Golden {
    pub platform: &'static str,
}

impl Golden {
    pub fn dir(&self) -> PathBuf {
        repo_root().join("tests/golden").join(self.platform)
    }

    /// A sandbox with the files the payloads refer to and the user's deny rule.
    pub fn project(&self) -> Sandbox {
        let sandbox = Sandbox::new();
        let line = "2026-11-30T04:00:00Z INFO request served in 12 ms path=/api/items status=200\n";
        sandbox.write(
            "big.txt",
            line.repeat(50 * 1024 / line.len() + 1).as_bytes(),
        );
        sandbox.write("small.txt", b"just a few bytes\n");
        sandbox.project_permissions(serde_json::json!({ "deny": ["Bash(sudo *)"] }));
        sandbox
    }

    pub fn payload_value(&self, sandbox: &Sandbox, case: &str) -> serde_json::Value {
        let path = self.dir().join(format!("{case}.stdin.json"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let text = text.replace("__PROJECT__", &sandbox.project.to_string_lossy());
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// Runs one case; returns stdout with the project path put back as `__PROJECT__`.
    pub fn run(&self, sandbox: &Sandbox, case: &str) -> String {
        self.run_payload(sandbox, case, &self.payload_value(sandbox, case))
    }

    /// Runs a payload (its event from `hook_event_name`), checking the hook contract.
    pub fn run_payload(
        &self,
        sandbox: &Sandbox,
        case: &str,
        payload: &serde_json::Value,
    ) -> String {
        let event = payload["hook_event_name"]
            .as_str()
            .unwrap_or_else(|| panic!("{case}: no hook_event_name"))
            .to_ascii_lowercase();
        let output = sandbox.hook(self.platform, &event, payload.to_string().as_bytes());
        assert_eq!(
            output.status.code(),
            Some(0),
            "{case}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(output.stderr.is_empty(), "{case}: stray stderr");
        assert!(
            sandbox.hook_errors().is_empty(),
            "{case}: {:?}",
            sandbox.hook_errors()
        );
        let stdout = String::from_utf8(output.stdout).expect("UTF-8 stdout");
        if !stdout.is_empty() {
            serde_json::from_str::<serde_json::Value>(&stdout)
                .unwrap_or_else(|e| panic!("{case}: stdout is not JSON ({e}): {stdout}"));
        }
        stdout.replace(&*sandbox.project.to_string_lossy(), "__PROJECT__")
    }

    pub fn assert_golden(&self, case: &str, actual: &str) {
        let path = self.dir().join(format!("{case}.stdout"));
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&path, actual).expect("write golden");
            return;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (run with UPDATE_GOLDEN=1 to create it)",
                path.display()
            )
        });
        assert_eq!(
            actual,
            expected,
            "reply of {case} differs from {}",
            path.display()
        );
    }
}

/// Every platform with goldens: the directories of `tests/golden/`, sorted.
pub fn platforms() -> Vec<Golden> {
    let dir = repo_root().join("tests/golden");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    names.sort();
    names
        .into_iter()
        // The harness names platforms `&'static str`; a test process has a handful.
        .map(|name| Golden {
            platform: Box::leak(name.into_boxed_str()),
        })
        .collect()
}

impl Golden {
    /// Every case of the platform: the `<case>` of each `<case>.stdin.json`, sorted.
    pub fn cases(&self) -> Vec<String> {
        let dir = self.dir();
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let mut cases: Vec<String> = entries
            .flatten()
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter_map(|name| name.strip_suffix(".stdin.json").map(str::to_owned))
            .collect();
        cases.sort();
        cases
    }

    /// The case that must run before `case` in the same project, if any (`<base>-after`).
    pub fn runs_after(&self, case: &str) -> Option<String> {
        let base = case.strip_suffix("-after")?;
        self.dir()
            .join(format!("{base}.stdin.json"))
            .is_file()
            .then(|| base.to_owned())
    }

    /// One discovered case against a live server: its predecessor first when it has
    /// one, then the case, its reply compared with its golden file.
    pub fn discovered_case(&self, case: &str) {
        let sandbox = self.project();
        let _server = sandbox.live_server();
        if let Some(base) = self.runs_after(case) {
            self.run(&sandbox, &base);
        }
        self.assert_golden(case, &self.run(&sandbox, case));
    }
}
