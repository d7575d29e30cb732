//! `cm plugin add | list | remove | verify` against real components built by build.rs.

mod common;

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

#[test]
fn a_component_for_another_contract_version_is_refused() {
    let sandbox = Sandbox::new();
    let path = test_plugin("wrong-version");
    let output = cm_plugin(&sandbox, &["add", path.to_str().expect("utf8")]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("built for the plugin contract context-mode:plugin@0.9.0; this cm accepts context-mode:plugin@0.2.0"),
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
