//! `cm plugin add | list | remove | verify` against real components built by build.rs.

use crate::common;

use common::{Sandbox, test_plugin};

fn git_status(sandbox: &Sandbox) -> Vec<u8> {
    serde_json::json!({
        "session_id": "9a1d2c3b-0000-4000-8000-000000000001",
        "transcript_path": "/tmp/9a1d2c3b-0000-4000-8000-000000000001.jsonl",
        "cwd": sandbox.project,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": { "command": "git status" }
    })
    .to_string()
    .into_bytes()
}

fn cm_plugin(sandbox: &Sandbox, args: &[&str]) -> std::process::Output {
    sandbox
        .cm()
        .arg("plugin")
        .args(args)
        .output()
        .expect("cm plugin")
}

fn decision(output: &std::process::Output) -> Option<String> {
    if output.stdout.is_empty() {
        return None;
    }
    let reply: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON reply");
    reply["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .map(String::from)
}

#[test]
fn an_installed_policy_changes_a_decision_and_remove_restores_it() {
    let sandbox = Sandbox::new();
    assert_eq!(
        decision(&sandbox.hook("claude-code", "pretooluse", &git_status(&sandbox))),
        None
    );

    let path = test_plugin("decide-by-rule");
    let added = cm_plugin(&sandbox, &["add", path.to_str().expect("utf8 path")]);
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let said = String::from_utf8_lossy(&added.stdout);
    assert!(
        said.starts_with("added policy ask-before-push 1.2.3"),
        "{said}"
    );

    let listed = String::from_utf8_lossy(&cm_plugin(&sandbox, &["list"]).stdout).to_string();
    assert!(
        listed.contains("ask-before-push") && listed.contains("built-in"),
        "{listed}"
    );

    let output = sandbox.hook("claude-code", "pretooluse", &git_status(&sandbox));
    assert_eq!(decision(&output).as_deref(), Some("ask"));

    let removed = cm_plugin(&sandbox, &["remove", "ask-before-push"]);
    assert!(removed.status.success());
    assert_eq!(
        decision(&sandbox.hook("claude-code", "pretooluse", &git_status(&sandbox))),
        None
    );
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
}

/// What the `legacy` test adapter (built for contract 0.2.0) rendered for one command.
fn legacy_hook(sandbox: &Sandbox, command: &str) -> serde_json::Value {
    let output = sandbox.hook("legacy", "pretooluse", command.as_bytes());
    assert_eq!(output.status.code(), Some(0));
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {} / {:?}",
            String::from_utf8_lossy(&output.stdout),
            sandbox.hook_errors()
        )
    })
}

#[test]
fn plugins_built_for_contract_0_2_0_still_load_and_decide() {
    let sandbox = Sandbox::new();
    for plugin in ["legacy-adapter-v0-2", "decide-by-rule-v0-2"] {
        let path = test_plugin(plugin);
        let added = cm_plugin(&sandbox, &["add", path.to_str().expect("utf8 path")]);
        assert!(
            added.status.success(),
            "{plugin}: {}",
            String::from_utf8_lossy(&added.stderr)
        );
    }
    let listed = String::from_utf8_lossy(&cm_plugin(&sandbox, &["list"]).stdout).to_string();
    let row = |id: &str| {
        listed
            .lines()
            .find(|line| line.split_whitespace().nth(1) == Some(id))
            .map(|line| line.split_whitespace().nth(3).unwrap_or("").to_string())
    };
    assert_eq!(row("legacy").as_deref(), Some("0.2.0"), "{listed}");
    assert_eq!(
        row("ask-before-push-v0-2").as_deref(),
        Some("0.2.0"),
        "{listed}"
    );
    assert_eq!(row("claude-code").as_deref(), Some("0.4.0"), "{listed}");
    // A record written before the registry kept the version: the component says it.
    let registry = sandbox.root.join("plugins/registry.json");
    let mut records: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&registry).expect("registry")).expect("JSON");
    for plugin in records["plugins"].as_array_mut().expect("plugins") {
        assert!(
            plugin
                .as_object_mut()
                .expect("record")
                .remove("contract")
                .is_some()
        );
    }
    std::fs::write(&registry, records.to_string()).expect("write registry");
    let relisted = String::from_utf8_lossy(&cm_plugin(&sandbox, &["list"]).stdout).to_string();
    assert_eq!(relisted, listed);

    // The 0.2.0 adapter parses and renders; the 0.2.0 policy decides, told the ctx-tool
    // prefix the 0.2.0 adapter described.
    assert_eq!(
        legacy_hook(&sandbox, "git status"),
        serde_json::json!({
            "verdict": "ask",
            "reason": "team rule: confirm `git status` first, or run it in mcp__legacy__ctx_execute"
        })
    );
    assert_eq!(
        legacy_hook(&sandbox, "pwd"),
        serde_json::json!({ "verdict": "no-opinion", "reason": null })
    );
    // The built-in 0.3.0 policy judges a 0.2.0 adapter's call by the user's rules, and
    // names the tools as the 0.2.0 adapter's host does.
    sandbox.project_permissions(serde_json::json!({ "deny": ["Bash(rm -rf *)"] }));
    let denied = legacy_hook(&sandbox, "rm -rf build");
    assert_eq!(denied["verdict"], "deny", "{denied}");
    let _server = sandbox.live_server();
    let redirected = legacy_hook(&sandbox, "curl -s https://example.com/docs");
    assert_eq!(redirected["verdict"], "redirect", "{redirected}");
    assert!(
        redirected["reason"]
            .as_str()
            .is_some_and(|r| r.contains("mcp__legacy__ctx_fetch_and_index")),
        "{redirected}"
    );
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
}

#[test]
fn a_component_for_another_contract_version_is_refused() {
    let sandbox = Sandbox::new();
    let path = test_plugin("wrong-version");
    let output = cm_plugin(&sandbox, &["add", path.to_str().expect("utf8")]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("built for the plugin contract context-mode:plugin@0.9.0; this cm accepts context-mode:plugin@0.2.0 or @0.3.0 or @0.4.0 — rebuild it against wit/ of this cm"),
        "{stderr}"
    );
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
}

#[test]
fn a_component_of_another_world_is_refused() {
    let sandbox = Sandbox::new();
    let path = test_plugin("wrong-world");
    let output = cm_plugin(&sandbox, &["add", path.to_str().expect("utf8")]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("is not a context-mode plugin: it exports [test:greeter/greet@1.0.0]"),
        "{stderr}"
    );
}

#[test]
fn a_core_module_and_a_text_file_are_refused() {
    let sandbox = Sandbox::new();
    let module = sandbox.write("core.wasm", b"\0asm\x01\0\0\0");
    let output = cm_plugin(&sandbox, &["add", module.to_str().expect("utf8")]);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("is a core wasm module, not a component")
    );
    let text = sandbox.write("notes.wasm", b"hello");
    let output = cm_plugin(&sandbox, &["add", text.to_str().expect("utf8")]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("is not a wasm file"));
}

#[test]
fn a_tampered_plugin_is_reported_and_not_loaded() {
    let sandbox = Sandbox::new();
    let path = test_plugin("decide-by-rule");
    assert!(
        cm_plugin(&sandbox, &["add", path.to_str().expect("utf8")])
            .status
            .success()
    );
    assert!(cm_plugin(&sandbox, &["verify"]).status.success());

    let installed = std::fs::read_dir(sandbox.root.join("plugins"))
        .expect("plugins dir")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "wasm"))
        .expect("installed file");
    let mut bytes = std::fs::read(&installed).expect("read");
    bytes.extend_from_slice(b"\0tampered");
    std::fs::write(&installed, bytes).expect("tamper");

    let verify = cm_plugin(&sandbox, &["verify"]);
    assert!(!verify.status.success());
    assert!(String::from_utf8_lossy(&verify.stdout).contains("TAMPERED policy ask-before-push"));

    let output = sandbox.hook("claude-code", "pretooluse", &git_status(&sandbox));
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(decision(&output), None, "the tampered policy must not run");
    let log = sandbox.hook_errors();
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].contains("ask-before-push failed its hash check"),
        "{log:?}"
    );
}

#[test]
fn an_installed_adapter_overrides_the_built_in_one_until_removed() {
    let sandbox = Sandbox::new();
    let path = test_plugin("override-adapter");
    let added = cm_plugin(&sandbox, &["add", path.to_str().expect("utf8")]);
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    assert!(String::from_utf8_lossy(&added.stdout).contains("overriding the built-in one"));

    let output = sandbox.hook("claude-code", "pretooluse", &git_status(&sandbox));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        r#"{"overridden":true,"event":"pretooluse"}"#
    );

    assert!(
        cm_plugin(&sandbox, &["remove", "claude-code"])
            .status
            .success()
    );
    let output = sandbox.hook("claude-code", "pretooluse", &git_status(&sandbox));
    assert!(
        output.stdout.is_empty(),
        "the built-in adapter answers again"
    );
}

/// The adapter that asks for `AWS_SECRET_ACCESS_KEY` and prints whatever it was given.
const SECRET_ADAPTER: &str = "secret-env-adapter";

#[test]
fn an_adapter_asking_for_a_secret_variable_is_refused_by_add() {
    let sandbox = Sandbox::new();
    let path = test_plugin(SECRET_ADAPTER);
    let output = cm_plugin(&sandbox, &["add", path.to_str().expect("utf8")]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "asks for the environment variable AWS_SECRET_ACCESS_KEY, which looks like a secret"
        ),
        "{stderr}"
    );
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    let listed = String::from_utf8_lossy(&cm_plugin(&sandbox, &["list"]).stdout).to_string();
    assert!(
        !listed.contains("installed#"),
        "nothing was installed: {listed}"
    );
}

#[test]
fn list_shows_the_variables_each_adapter_reads() {
    let sandbox = Sandbox::new();
    let path = test_plugin("override-adapter");
    assert!(
        cm_plugin(&sandbox, &["add", path.to_str().expect("utf8")])
            .status
            .success()
    );
    let listed = String::from_utf8_lossy(&cm_plugin(&sandbox, &["list"]).stdout).to_string();
    let line = |needle: &str| {
        listed
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle} line: {listed}"))
            .to_string()
    };
    assert!(
        line("installed#").ends_with(" CLAUDE_PROJECT_DIR,CLAUDE_SESSION_ID"),
        "{listed}"
    );
    // The built-in adapters pass the same rule and show what they read.
    assert!(
        line("codex ").ends_with(" CODEX_THREAD_ID,CODEX_HOME"),
        "{listed}"
    );
    assert!(line("policy   default").ends_with(" -"), "{listed}");
    // Every built-in adapter (one per golden platform directory, plus the MCP-only
    // hosts, which have no payloads) is described: no `?`.
    let built_in: Vec<&str> = listed
        .lines()
        .filter(|l| l.starts_with("adapter") && l.contains(" built-in "))
        .filter_map(|l| l.split_whitespace().last())
        .collect();
    let platforms = crate::common::golden::platforms().len();
    let mcp_only = ["zed", "antigravity"];
    for id in mcp_only {
        assert!(
            listed
                .lines()
                .any(|l| l.starts_with(&format!("adapter  {id} "))),
            "{listed}"
        );
    }
    assert_eq!(built_in.len(), platforms + mcp_only.len(), "{listed}");
    assert!(built_in.iter().all(|vars| !vars.contains('?')), "{listed}");
    assert!(
        built_in.iter().filter(|vars| **vars != "-").count() >= 4,
        "{listed}"
    );
}

#[test]
fn an_adapter_installed_by_hand_never_receives_a_secret() {
    use sha2::Digest;
    let sandbox = Sandbox::new();
    // Fills the `.cwasm` cache with the built-in adapter and policy first: the hook below
    // also compiles the planted adapter, and three cold compiles on a loaded machine can
    // outlast the hook's watchdog.
    let _ = sandbox.hook("claude-code", "pretooluse", &git_status(&sandbox));
    let _ = std::fs::remove_file(sandbox.root.join("hook-errors.log"));
    // Installed the way an older cm, or a hand copy, would leave it: past `cm plugin add`.
    let bytes = std::fs::read(test_plugin(SECRET_ADAPTER)).expect("test adapter");
    let sha256 = hex::encode(sha2::Sha256::digest(&bytes));
    let dir = sandbox.root.join("plugins");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join(format!("{sha256}.wasm")), &bytes).expect("copy");
    let registry = serde_json::json!({"format": 1, "plugins": [{
        "id": "claude-code", "kind": "adapter", "version": "6.6.6", "sha256": sha256,
        "file": format!("{sha256}.wasm"), "order": 0, "size_bytes": 0, "mtime_ns": 0
    }]});
    std::fs::write(dir.join("registry.json"), registry.to_string()).expect("registry");

    let secret = "wJalrXUtnFEMI-K7MDENG-not-a-real-key";
    let mut command = sandbox.cm();
    command.env("AWS_SECRET_ACCESS_KEY", secret);
    let output = sandbox.hook_with(command, "claude-code", "pretooluse", &git_status(&sandbox));
    assert_eq!(output.status.code(), Some(0));
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!printed.contains(secret), "the secret leaked: {printed}");
    let log = sandbox.hook_errors();
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].contains("AWS_SECRET_ACCESS_KEY") && log[0].contains("using the built-in adapter"),
        "{log:?}"
    );
}

/// `cm plugin add <path>`, killed (and the test failed) if it has not finished in 20 s.
fn add_with_watchdog(sandbox: &Sandbox, path: &std::path::Path) -> std::process::Output {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let mut child = sandbox
        .cm()
        .args(["plugin", "add"])
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cm plugin add");
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().expect("try_wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("cm plugin add {} still ran after 20 s", path.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

fn assert_refused(output: &std::process::Output, why: &str) {
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(why), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
}

#[test]
fn a_fifo_is_refused_without_waiting_for_a_writer() {
    let sandbox = Sandbox::new();
    let fifo = sandbox.project.join("plugin.wasm");
    let c_path = std::ffi::CString::new(fifo.to_str().expect("utf8")).expect("no NUL");
    // SAFETY: a valid NUL-terminated path; mkfifo has no other preconditions.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0, "mkfifo");
    assert_refused(
        &add_with_watchdog(&sandbox, &fifo),
        "not a regular file (a FIFO)",
    );
}

#[test]
fn a_device_is_refused_without_reading_it() {
    let sandbox = Sandbox::new();
    assert_refused(
        &add_with_watchdog(&sandbox, std::path::Path::new("/dev/zero")),
        "not a regular file (a device)",
    );
}

#[test]
fn a_file_over_the_size_limit_is_refused() {
    let sandbox = Sandbox::new();
    let big = sandbox.project.join("huge.wasm");
    // Sparse: one byte over the 64 MiB limit without writing 64 MiB.
    std::fs::File::create(&big)
        .and_then(|f| f.set_len(64 * 1024 * 1024 + 1))
        .expect("sparse file");
    assert_refused(
        &add_with_watchdog(&sandbox, &big),
        "larger than the 64 MiB a plugin file may be",
    );
}

/// `cm plugin list | head -1`: a reader that goes away before the command prints ends it
/// as it ends `ls` (SIGPIPE on Unix), never with a panic and exit 101.
#[test]
fn a_closed_stdout_ends_a_listing_command_quietly() {
    let sandbox = Sandbox::new();
    for args in [&["plugin", "list"][..], &["stats"], &["doctor"]] {
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let output = sandbox
            .cm()
            .args(args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .expect("run cm");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "cm {args:?}: {stderr}");
        assert_ne!(output.status.code(), Some(101), "cm {args:?}: {stderr}");
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            let sigpipe = 13;
            assert_eq!(
                output.status.signal(),
                Some(sigpipe),
                "cm {args:?}: {stderr}"
            );
        }
    }
}
