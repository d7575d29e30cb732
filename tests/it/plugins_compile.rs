//! Plugins are compiled at `cm plugin add`, by `cm plugin compile`, `cm upgrade` and in
//! the background — never by a hook beyond a small one (issue 15, ADR 24): a large
//! plugin with no compiled entry (the cache wiped, or a `cm` update that changed the
//! engine key) is skipped for that call while the built-in rules still decide, and a
//! detached compile makes it live again. Imports cm does not provide load as traps.

use crate::common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::{Sandbox, test_plugin};
use serde_json::{Value, json};

fn add(sandbox: &Sandbox, plugin: &str) -> std::process::Output {
    let added = sandbox
        .cm()
        .args(["plugin", "add"])
        .arg(test_plugin(plugin))
        .output()
        .expect("cm plugin add");
    assert!(
        added.status.success(),
        "{plugin}: {}",
        String::from_utf8_lossy(&added.stderr)
    );
    added
}

fn bash(sandbox: &Sandbox, command: &str) -> Vec<u8> {
    json!({
        "session_id": "5c0ffee0-0000-4000-8000-000000000015",
        "transcript_path": "/tmp/5c0ffee0-0000-4000-8000-000000000015.jsonl",
        "cwd": sandbox.project,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": { "command": command }
    })
    .to_string()
    .into_bytes()
}

/// The Claude Code reply's permission decision (`""` for no opinion).
fn decision(sandbox: &Sandbox, command: &str) -> (String, Value) {
    let output = sandbox.hook("claude-code", "pretooluse", &bash(sandbox, command));
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stderr.is_empty(), "stray stderr");
    // No opinion is an empty reply: Claude Code goes on as without the hook.
    let reply: Value = if output.stdout.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&output.stdout).expect("a JSON reply")
    };
    let decision = reply["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    (decision, reply)
}

/// The compiled cache entries of installed (non-built-in) plugins.
fn installed_entries(sandbox: &Sandbox, sha256: &str) -> Vec<PathBuf> {
    std::fs::read_dir(sandbox.root.join("cache/cwasm"))
        .map(|dir| {
            dir.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(sha256) && n.ends_with(".cwasm"))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn installed_sha256(sandbox: &Sandbox, id: &str) -> String {
    let registry: Value = serde_json::from_slice(
        &std::fs::read(sandbox.root.join("plugins/registry.json")).expect("registry"),
    )
    .expect("registry JSON");
    registry["plugins"]
        .as_array()
        .and_then(|plugins| plugins.iter().find(|p| p["id"] == id))
        .and_then(|p| p["sha256"].as_str())
        .expect("installed")
        .to_string()
}

#[test]
fn a_large_plugin_without_a_compiled_entry_is_skipped_then_compiled_in_the_background() {
    let sandbox = Sandbox::new();
    sandbox.project_permissions(json!({ "deny": ["Bash(sudo *)"] }));
    let added = add(&sandbox, "large-policy");
    let stderr = String::from_utf8_lossy(&added.stderr);
    assert!(
        stderr.starts_with("compiling ") && stderr.contains("(1.0 MB)"),
        "a large plugin's compile is announced: {stderr}"
    );
    let sha256 = installed_sha256(&sandbox, "large-policy");
    assert_eq!(
        installed_entries(&sandbox, &sha256).len(),
        1,
        "add compiled it"
    );
    assert_eq!(decision(&sandbox, "git push origin main").0, "ask");

    // What a `cm` update with a new engine key, or a wiped cache, leaves behind.
    for entry in installed_entries(&sandbox, &sha256) {
        std::fs::remove_file(entry).expect("remove the compiled entry");
    }
    let (first, reply) = decision(&sandbox, "sudo rm -rf /");
    assert_eq!(first, "deny", "the user's rules still decide: {reply}");
    let errors = sandbox.hook_errors().join("\n");
    assert!(
        errors.contains("large-policy skipped: it is not compiled for this cm yet"),
        "the skip is logged: {errors}"
    );

    // The detached compile writes the entry; then the plugin decides again.
    let deadline = Instant::now() + Duration::from_secs(60);
    while installed_entries(&sandbox, &sha256).is_empty() {
        assert!(
            Instant::now() < deadline,
            "no background compile wrote the entry"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The entry is renamed into place whole; the lock is released right after.
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(decision(&sandbox, "git push origin main").0, "ask");
}

#[test]
fn cm_plugin_compile_fills_what_is_missing_and_says_so() {
    let sandbox = Sandbox::new();
    add(&sandbox, "large-policy");
    let sha256 = installed_sha256(&sandbox, "large-policy");
    for entry in installed_entries(&sandbox, &sha256) {
        std::fs::remove_file(entry).expect("remove the compiled entry");
    }
    let compiled = sandbox
        .cm()
        .args(["plugin", "compile"])
        .output()
        .expect("cm plugin compile");
    let stdout = String::from_utf8_lossy(&compiled.stdout);
    assert!(compiled.status.success(), "{stdout}");
    assert!(
        stdout.contains("compiled policy large-policy in"),
        "{stdout}"
    );
    assert_eq!(installed_entries(&sandbox, &sha256).len(), 1);

    let again = sandbox
        .cm()
        .args(["plugin", "compile"])
        .output()
        .expect("cm plugin compile");
    assert_eq!(
        String::from_utf8_lossy(&again.stdout).trim(),
        "every plugin is compiled for this cm"
    );
}

#[test]
fn an_import_cm_does_not_provide_loads_as_a_trap_and_is_named() {
    let sandbox = Sandbox::new();
    let added = add(&sandbox, "vendor-import");
    let stdout = String::from_utf8_lossy(&added.stdout);
    assert!(
        stdout.contains(
            "note: it imports acme:vendor/telemetry@1.0.0, which cm does not give plugins"
        ),
        "{stdout}"
    );

    // Calls that do not use the import decide.
    let (denied, reply) = decision(&sandbox, "rm -rf /srv/www");
    assert_eq!(denied, "deny", "{reply}");
    assert!(reply.to_string().contains("/srv is not yours"), "{reply}");
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );

    // A call that uses it fails that plugin call only, with a line that names it.
    let (used, reply) = decision(&sandbox, "telemetry ping");
    assert_ne!(used, "allow", "the plugin's allow never came: {reply}");
    let errors = sandbox.hook_errors().join("\n");
    assert!(
        errors.contains(
            "plugin policy vendor-import called acme:vendor/telemetry@1.0.0, which cm does not give plugins"
        ),
        "{errors}"
    );
}

#[test]
fn cm_upgrade_and_cm_serve_compile_what_a_new_cm_is_missing() {
    let sandbox = Sandbox::new();
    add(&sandbox, "large-policy");
    let sha256 = installed_sha256(&sandbox, "large-policy");
    let wipe = || {
        for entry in installed_entries(&sandbox, &sha256) {
            std::fs::remove_file(entry).expect("remove the compiled entry");
        }
    };

    wipe();
    let upgraded = sandbox.cm().arg("upgrade").output().expect("cm upgrade");
    let stdout = String::from_utf8_lossy(&upgraded.stdout);
    assert!(upgraded.status.success(), "{stdout}");
    assert!(
        stdout.contains("plugin policy large-policy: compiled in"),
        "{stdout}"
    );
    assert_eq!(installed_entries(&sandbox, &sha256).len(), 1);

    wipe();
    let server = sandbox.live_server();
    let deadline = Instant::now() + Duration::from_secs(60);
    while installed_entries(&sandbox, &sha256).is_empty() {
        assert!(
            Instant::now() < deadline,
            "cm serve did not start the compile"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(server);
}
