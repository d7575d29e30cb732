//! Golden hook cases: a host's payload from `tests/golden/<platform>/<case>.stdin.json`
//! piped into `cm hook <platform> <event>` (the event named by the payload's
//! `hook_event_name`), the reply compared byte for byte with `<case>.stdout`.
//! `UPDATE_GOLDEN=1` rewrites the expected files; review the diff.

use std::path::PathBuf;

use super::{Sandbox, repo_root};

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

    /// With a live `cm serve`, the reply to one case must equal its golden file.
    pub fn live_case(&self, case: &str) {
        let sandbox = self.project();
        let _server = sandbox.live_server();
        self.assert_golden(case, &self.run(&sandbox, case));
    }
}

/// One `#[test]` per golden case, each against a live server.
#[macro_export]
macro_rules! golden_cases {
    ($golden:expr; $($test:ident: $case:literal;)*) => {
        $(#[test] fn $test() { $golden.live_case($case); })*
    };
}
