//! The JavaScript and Python templates of `cm plugin new`: each written by the real
//! command, built untouched with the build line of its `template.toml` (the README's)
//! and its language's own toolchain from the registry (npm installs the project's
//! pinned jco; componentize-py comes from the toolchain cache), installed with
//! `cm plugin add`, and run once by `cm hook`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::{Value, json};

use crate::common::{Sandbox, repo_root};
use crate::examples_js_py::plugin_add;
use crate::toolchains;

#[derive(Clone, Copy)]
struct Template {
    kind: &'static str,
    lang: &'static str,
    id: &'static str,
}

/// What `template.toml` says, its placeholders replaced.
struct Settings {
    build: String,
    output: String,
}

impl Template {
    fn folder(&self) -> PathBuf {
        repo_root()
            .join("adapters-wasm/templates")
            .join(format!("{}-{}", self.lang, self.kind))
    }

    fn settings(&self) -> Settings {
        let path = self.folder().join("template.toml");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let table: toml::Table =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let field = |key: &str| {
            table
                .get(key)
                .and_then(toml::Value::as_str)
                .unwrap_or_else(|| panic!("{}: no `{key}` string", path.display()))
                .replace("{{id}}", self.id)
                .replace("{{id_snake}}", &self.id.replace('-', "_"))
        };
        Settings {
            build: field("build"),
            output: field("output"),
        }
    }

    /// `cm plugin new <kind> --lang <lang> <dir> --id <id>` into the sandbox's home.
    fn new_project(&self, sandbox: &Sandbox) -> PathBuf {
        let dir = sandbox.home.join("projects").join(self.id);
        let output = sandbox
            .cm()
            .args(["plugin", "new", self.kind, "--lang", self.lang])
            .arg(&dir)
            .args(["--id", self.id])
            .output()
            .expect("cm plugin new");
        assert!(
            output.status.success(),
            "cm plugin new {} --lang {}: {}",
            self.kind,
            self.lang,
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            dir.join("wit/plugin.wit").is_file(),
            "no wit/plugin.wit in the project"
        );
        dir
    }

    /// Runs the build line in the project, as a user would from its README.
    fn build(&self, project: &Path) -> PathBuf {
        let settings = self.settings();
        let readme = std::fs::read_to_string(project.join("README.md")).expect("README.md");
        assert!(
            readme.lines().any(|line| line == settings.build),
            "README.md does not carry the build line `{}`",
            settings.build
        );
        // npm fetches jco itself (package.json pins it); componentize-py is the user's.
        let mut tools = Vec::new();
        if self.lang == "python" {
            tools.push(toolchains::componentize_py_bin_dir().unwrap_or_else(|e| panic!("{e}")));
        }
        let started = Instant::now();
        let output = Command::new("sh")
            .args(["-c", &settings.build])
            .current_dir(project)
            .env("PATH", toolchains::path_with(&tools))
            .env("npm_config_cache", toolchains::npm_cache())
            .env("npm_config_prefer_offline", "true")
            .env("npm_config_audit", "false")
            .env("npm_config_fund", "false")
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
            .expect("sh");
        assert!(
            output.status.success(),
            "{}-{}: `{}` failed:\n{}{}",
            self.lang,
            self.kind,
            settings.build,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let wasm = project.join(&settings.output);
        let size = std::fs::metadata(&wasm)
            .unwrap_or_else(|e| panic!("{}: {e}", wasm.display()))
            .len();
        eprintln!(
            "{}-{}: built in {} ms, {size} bytes",
            self.lang,
            self.kind,
            started.elapsed().as_millis()
        );
        wasm
    }

    /// Writes, builds and installs the template; returns the sandbox it is installed in.
    fn installed(&self) -> Sandbox {
        let sandbox = Sandbox::new();
        let project = self.new_project(&sandbox);
        let wasm = self.build(&project);
        let added = plugin_add(&sandbox, &wasm);
        assert!(
            added.starts_with(&format!("added {} {} ", self.kind, self.id)),
            "{added}"
        );
        sandbox
    }
}

fn reply_json(output: &std::process::Output, what: &str) -> Value {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{what}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{what}: stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// A policy template's one rule: a force push asks, anything else is left to the
/// built-in policy (which has no opinion on `git status`).
fn policy_template_asks_on_a_force_push(template: Template) {
    let sandbox = template.installed();
    let payload = |command: &str| {
        json!({
            "session_id": format!("templates-{}", template.id),
            "cwd": sandbox.project,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": { "command": command }
        })
        .to_string()
    };
    let forced = sandbox.hook(
        "claude-code",
        "pretooluse",
        payload("git push --force origin main").as_bytes(),
    );
    let reply = reply_json(&forced, "git push --force");
    let output = &reply["hookSpecificOutput"];
    assert_eq!(output["permissionDecision"], "ask", "{reply}");
    assert_eq!(
        output["permissionDecisionReason"],
        format!(
            "{}: `git push --force origin main` rewrites the remote's history; confirm it",
            template.id
        ),
        "{reply}"
    );
    let plain = sandbox.hook(
        "claude-code",
        "pretooluse",
        payload("git status").as_bytes(),
    );
    // The reply of "no opinion" from everyone: Claude Code's empty stdout.
    assert!(
        plain.stdout.is_empty(),
        "git status: {}",
        String::from_utf8_lossy(&plain.stdout)
    );
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
}

/// An adapter template speaks for its made-up host: with a live server, a `curl` on
/// `pre-tool` is blocked in the host's reply shape with the redirect to ctx_execute
/// named as the host names MCP tools; `stop` answers "no opinion" (`{}`).
fn adapter_template_answers_in_its_hosts_reply_shape(template: Template) {
    let sandbox = template.installed();
    let _server = sandbox.live_server();
    let payload = json!({
        "session_id": format!("templates-{}", template.id),
        "cwd": sandbox.project,
        "tool": { "name": "shell", "input": { "command": "curl https://example.com/api" } }
    })
    .to_string();
    let blocked = sandbox.hook(template.id, "pre-tool", payload.as_bytes());
    let reply = reply_json(&blocked, "pre-tool curl");
    assert_eq!(reply["decision"], "block", "{reply}");
    let reason = reply["reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with(
            "redirected to mcp__context-mode__ctx_execute(language: \"shell\", code: \"curl https://example.com/api\")"
        ),
        "{reply}"
    );
    let stop = sandbox.hook(
        template.id,
        "stop",
        json!({ "session_id": format!("templates-{}", template.id), "cwd": sandbox.project })
            .to_string()
            .as_bytes(),
    );
    assert_eq!(reply_json(&stop, "stop"), json!({}));
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
}

#[test]
fn the_js_policy_template_builds_installs_and_asks_on_a_force_push() {
    policy_template_asks_on_a_force_push(Template {
        kind: "policy",
        lang: "js",
        id: "force-push-js",
    });
}

#[test]
fn the_python_policy_template_builds_installs_and_asks_on_a_force_push() {
    policy_template_asks_on_a_force_push(Template {
        kind: "policy",
        lang: "python",
        id: "force-push-py",
    });
}

#[test]
fn the_js_adapter_template_builds_installs_and_answers_its_host() {
    adapter_template_answers_in_its_hosts_reply_shape(Template {
        kind: "adapter",
        lang: "js",
        id: "made-up-js",
    });
}

#[test]
fn the_python_adapter_template_builds_installs_and_answers_its_host() {
    adapter_template_answers_in_its_hosts_reply_shape(Template {
        kind: "adapter",
        lang: "python",
        id: "made-up-py",
    });
}
