//! Golden hook cases: a host's payload from `tests/golden/<platform>/<case>.stdin.json`
//! piped into `cm hook <platform> <event>`, the reply compared byte for byte with
//! `<case>.stdout`, and with `<case>.stderr` and `<case>.exit` when the host reads those
//! (Kiro blocks with exit code 2 and the reason on stderr); without them stderr must be
//! empty and the exit code 0. The event is `<case>.event` when that file exists (hosts
//! that name it only on the command line), else the payload's `hook_event_name`.
//! `<case>.stdin.txt` is stdin sent as is, for input that is not JSON (it needs an
//! `.event`). `UPDATE_GOLDEN=1` rewrites the expected files; review the diff.
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
        for (path, contents) in project_files() {
            sandbox.write(path, &contents);
        }
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
        self.run_case(sandbox, case).stdout
    }

    /// Runs one case and checks its stderr and exit code against the case's files.
    fn run_case(&self, sandbox: &Sandbox, case: &str) -> Ran {
        if !self.has_json_payload(case) {
            let raw = self.dir().join(format!("{case}.stdin.txt"));
            let text = std::fs::read_to_string(&raw).expect("read raw stdin");
            let event = self
                .sidecar(case, "event")
                .unwrap_or_else(|| panic!("{case}: a .stdin.txt case needs {case}.event"));
            let ran = self.hook(sandbox, case, event.trim(), text.as_bytes());
            self.check_channels(case, &ran);
            return ran;
        }
        let payload = self.payload_value(sandbox, case);
        let event = self.event_of(case, &payload);
        let ran = self.hook(sandbox, case, &event, payload.to_string().as_bytes());
        self.check_channels(case, &ran);
        assert!(
            sandbox.hook_errors().is_empty(),
            "{case}: {:?}",
            sandbox.hook_errors()
        );
        ran
    }

    /// Runs a payload (its event from `<case>.event` or `hook_event_name`), checking the
    /// hook contract: stdout empty or JSON, stderr and the exit code as the case's files
    /// say (else empty and 0). Never rewrites golden files.
    pub fn run_payload(
        &self,
        sandbox: &Sandbox,
        case: &str,
        payload: &serde_json::Value,
    ) -> String {
        let event = self.event_of(case, payload);
        let ran = self.hook(sandbox, case, &event, payload.to_string().as_bytes());
        let (stderr, exit) = self.expected_channels(case);
        assert_eq!(ran.exit_code, exit, "{case}: {}", ran.stderr);
        assert_eq!(ran.stderr, stderr, "{case}: stderr");
        assert!(
            sandbox.hook_errors().is_empty(),
            "{case}: {:?}",
            sandbox.hook_errors()
        );
        ran.stdout
    }

    /// True when the case's stdin is a JSON payload (`<case>.stdin.json`), not raw text.
    pub fn has_json_payload(&self, case: &str) -> bool {
        self.dir().join(format!("{case}.stdin.json")).is_file()
    }

    /// The `cm hook` event of a case: its `.event` file, else the payload's `hook_event_name`.
    pub fn event_of(&self, case: &str, payload: &serde_json::Value) -> String {
        self.sidecar(case, "event")
            .map(|event| event.trim().to_owned())
            .or_else(|| payload["hook_event_name"].as_str().map(str::to_owned))
            .unwrap_or_else(|| panic!("{case}: no {case}.event and no hook_event_name"))
            .to_ascii_lowercase()
    }

    pub fn sidecar(&self, case: &str, extension: &str) -> Option<String> {
        std::fs::read_to_string(self.dir().join(format!("{case}.{extension}"))).ok()
    }

    fn hook(&self, sandbox: &Sandbox, case: &str, event: &str, stdin: &[u8]) -> Ran {
        let output = sandbox.hook(self.platform, event, stdin);
        let project = sandbox.project.to_string_lossy();
        let stdout = String::from_utf8(output.stdout).expect("UTF-8 stdout");
        if !stdout.is_empty() {
            serde_json::from_str::<serde_json::Value>(&stdout)
                .unwrap_or_else(|e| panic!("{case}: stdout is not JSON ({e}): {stdout}"));
        }
        Ran {
            stdout: stdout.replace(&*project, "__PROJECT__"),
            stderr: String::from_utf8_lossy(&output.stderr).replace(&*project, "__PROJECT__"),
            exit_code: output.status.code().unwrap_or(-1),
        }
    }

    /// stderr and the exit code: as `<case>.stderr` / `<case>.exit` say, else empty and 0.
    fn check_channels(&self, case: &str, ran: &Ran) {
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            self.write_or_remove(
                case,
                "stderr",
                (!ran.stderr.is_empty()).then_some(&ran.stderr),
            );
            let exit = ran.exit_code.to_string();
            self.write_or_remove(case, "exit", (ran.exit_code != 0).then_some(&exit));
            return;
        }
        let (stderr, exit) = self.expected_channels(case);
        assert_eq!(
            ran.stderr, stderr,
            "{case}: stderr differs from {case}.stderr"
        );
        assert_eq!(ran.exit_code, exit, "{case}: exit code ({})", ran.stderr);
    }

    /// The stderr and exit code a case expects: its files, else empty and 0.
    pub fn expected_channels(&self, case: &str) -> (String, i32) {
        let stderr = self.sidecar(case, "stderr").unwrap_or_default();
        let exit = self
            .sidecar(case, "exit")
            .map_or(0, |code| code.trim().parse().expect("exit code"));
        (stderr, exit)
    }

    fn write_or_remove(&self, case: &str, extension: &str, content: Option<&String>) {
        let path = self.dir().join(format!("{case}.{extension}"));
        match content {
            Some(text) => std::fs::write(&path, text).expect("write golden"),
            None => {
                let _ = std::fs::remove_file(&path);
            }
        }
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

/// The files every case's project holds (relative path, contents): those the payloads
/// refer to and the user's deny rule. Also used by the Wine harness (`tests/wine/`).
pub fn project_files() -> Vec<(&'static str, Vec<u8>)> {
    let line = "2026-11-30T04:00:00Z INFO request served in 12 ms path=/api/items status=200\n";
    let settings = serde_json::json!({ "permissions": { "deny": ["Bash(sudo *)"] } });
    vec![
        (
            "big.txt",
            line.repeat(50 * 1024 / line.len() + 1).into_bytes(),
        ),
        ("small.txt", b"just a few bytes\n".to_vec()),
        (".claude/settings.json", settings.to_string().into_bytes()),
    ]
}

/// One hook run's channels, the project path put back as `__PROJECT__`.
struct Ran {
    stdout: String,
    stderr: String,
    exit_code: i32,
}

/// Directories of `tests/golden/` whose goldens are not hook cases: the Seatbelt
/// profiles (`host/src/sandbox/seatbelt.rs`, checked by its unit tests).
pub const NOT_HOOK_PLATFORMS: &[&str] = &["seatbelt"];

/// Every platform with goldens: the directories of `tests/golden/` but
/// [`NOT_HOOK_PLATFORMS`], sorted.
pub fn platforms() -> Vec<Golden> {
    let dir = repo_root().join("tests/golden");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| !NOT_HOOK_PLATFORMS.contains(&name.as_str()))
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
            .filter_map(|name| {
                name.strip_suffix(".stdin.json")
                    .or_else(|| name.strip_suffix(".stdin.txt"))
                    .map(str::to_owned)
            })
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
            .then_some(())
            .or_else(|| {
                self.dir()
                    .join(format!("{base}.stdin.txt"))
                    .is_file()
                    .then_some(())
            })
            .is_some()
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
