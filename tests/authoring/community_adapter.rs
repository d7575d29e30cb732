//! A community adapter for an agent host `cm` has never heard of ("Quill", made up:
//! its own hook event names, stdin, reply shape and config file), written the way an
//! author would: `cm plugin new adapter --lang rust` outside the clone, the modules
//! that differ replaced by tests/authoring/community-adapter/, built with cargo and
//! installed with `cm plugin add`. The same `cm` binary then sets Quill up, checks it
//! and answers its hooks: no rebuild of `cm`.

use std::path::Path;
use std::process::Stdio;

use serde_json::json;

use crate::common::{CM, Sandbox, repo_root};
use crate::rust_project::{NewProject, build, hook_json, install, new_rust_project};

/// The one reply Quill has for "go on", also what a failed hook must answer.
const PROCEED: &str = r#"{"verdict":"proceed"}"#;

#[test]
fn a_community_adapter_sets_up_and_answers_its_host_without_a_rebuild_of_cm() {
    let sandbox = Sandbox::new();
    let project = new_rust_project(&sandbox, "adapter", "quill-adapter", "quill");
    overlay_community_sources(&project);
    let wasm = build(&project);
    let added = install(&sandbox, &wasm);
    assert!(
        added
            .lines()
            .any(|line| line.starts_with("added adapter quill 0.1.0")),
        "{added}"
    );

    // cm setup writes Quill's own config file with the hook commands and the server.
    let setup = sandbox
        .cm()
        .args(["setup", "--agents", "quill", "--yes"])
        .stdin(Stdio::null())
        .output()
        .expect("run cm setup");
    let setup_out = String::from_utf8_lossy(&setup.stdout);
    assert!(
        setup.status.success(),
        "{setup_out}{}",
        String::from_utf8_lossy(&setup.stderr)
    );
    let config_path = sandbox.home.join(".quill/agent.toml");
    let config_text = std::fs::read_to_string(&config_path)
        .unwrap_or_else(|e| panic!("{}: {e}; setup said: {setup_out}", config_path.display()));
    let config: toml::Table = config_text.parse().expect("agent.toml is TOML");
    let cm = Path::new(CM).canonicalize().expect("cm path");
    let cm = cm.to_str().expect("UTF-8 path");
    for event in ["before-action", "after-action", "turn-complete"] {
        assert_eq!(
            config["hooks"][event].as_str(),
            Some(format!("{cm} hook quill {event}").as_str()),
            "{config_text}"
        );
    }
    let server = &config["mcp_servers"]["context-mode"];
    assert_eq!(server["command"].as_str(), Some(cm), "{config_text}");
    assert_eq!(
        server["args"].as_array().map(Vec::as_slice),
        Some(&[toml::Value::from("serve")][..])
    );

    // cm doctor lists the installed adapter and finds both registrations in place.
    let doctor = sandbox
        .cm()
        .arg("doctor")
        .stdin(Stdio::null())
        .output()
        .expect("run cm doctor");
    let report = String::from_utf8_lossy(&doctor.stdout);
    for row in [
        "plugin adapter quill (installed)",
        "quill hooks",
        "quill mcp-server",
    ] {
        let line = report
            .lines()
            .find(|line| line.starts_with(row))
            .unwrap_or_else(|| panic!("no `{row}` row in cm doctor:\n{report}"));
        assert!(line.contains(" PASS "), "{line}\n{report}");
    }

    // A curl through Quill's pre-tool event: halted in Quill's shape, with the redirect
    // the built-in policy gives any host, naming the tools as Quill shows them.
    let _server = sandbox.live_server();
    let curl = json!({
        "conversation": "quill-c1",
        "workspace": sandbox.project,
        "action": { "type": "terminal", "params": { "cmdline": "curl https://example.com/api" } },
    });
    let reply = hook_json(&sandbox.hook("quill", "before-action", curl.to_string().as_bytes()));
    assert_eq!(reply["verdict"], "halt", "{reply}");
    let expected = builtin_redirect_of_curl(&sandbox).replace("ctx_", "context-mode/ctx_");
    assert_eq!(reply["note"].as_str(), Some(expected.as_str()), "{reply}");

    // Stdin that is not Quill's JSON fails open: exit 0 and Quill's "proceed".
    for broken in [&b"{\"conversation\": "[..], b"[1, 2]", b""] {
        let out = sandbox.hook("quill", "before-action", broken);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(String::from_utf8_lossy(&out.stdout), PROCEED);
    }
}

/// Lays tests/authoring/community-adapter/src/ over the project; every file there must
/// replace a template file of the same name and change it (only the differences are kept).
fn overlay_community_sources(project: &NewProject) {
    let overlay = repo_root().join("tests/authoring/community-adapter/src");
    let entries = std::fs::read_dir(&overlay).expect("the community adapter's sources");
    let mut replaced = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let target = project.dir.join("src").join(&name);
        let ours = std::fs::read(entry.path()).expect("read overlay file");
        let template = std::fs::read(&target)
            .unwrap_or_else(|e| panic!("the template has no src/{name:?} to replace: {e}"));
        assert_ne!(ours, template, "{name:?} is the template's own; drop it");
        std::fs::write(&target, ours).expect("write overlay file");
        replaced.push(name.to_string_lossy().into_owned());
    }
    replaced.sort();
    assert_eq!(
        replaced,
        ["describe.rs", "parse.rs", "render.rs", "setup.rs"]
    );
}

/// The reason the built-in policy gives for the same curl through a built-in adapter
/// that names our tools bare (Cursor).
fn builtin_redirect_of_curl(sandbox: &Sandbox) -> String {
    let payload = json!({
        "conversation_id": "cursor-c1",
        "hook_event_name": "preToolUse",
        "workspace_roots": [sandbox.project],
        "tool_name": "Shell",
        "tool_input": { "command": "curl https://example.com/api", "cwd": sandbox.project },
    });
    let reply = hook_json(&sandbox.hook("cursor", "pretooluse", payload.to_string().as_bytes()));
    assert_eq!(reply["permission"], "deny", "{reply}");
    let reason = reply["agent_message"].as_str().unwrap_or_default();
    assert!(reason.starts_with("redirected to ctx_execute("), "{reason}");
    reason.to_owned()
}
