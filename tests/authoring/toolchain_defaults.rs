//! Builds other than the recommended ones, as authors will make them (issue 15, ADR 24):
//! a componentize-py `--stub-wasi` build (17 component instances) installs and runs;
//! a jco build without `--backend-qjs-disable-async` is refused with one line that names
//! the flag.

use crate::common::Sandbox;
use crate::examples_js_py::{JS, PY, plugin_add};

#[test]
fn a_componentize_py_stub_wasi_build_installs_and_runs_in_a_hook() {
    let wasm = PY.build_as("policy-py-stub-wasi", |words| {
        let at = words
            .iter()
            .position(|w| w == "componentize")
            .expect("the build line runs `componentize`");
        words.insert(at + 1, "--stub-wasi".into());
    });
    let sandbox = Sandbox::new();
    let added = plugin_add(&sandbox, &wasm);
    assert!(added.starts_with("added policy example-py"), "{added}");
    // A call reaches it through the real hook, which logs any failure to instantiate it.
    let payload = serde_json::json!({
        "session_id": "5c0ffee0-0000-4000-8000-000000000151",
        "transcript_path": "/tmp/5c0ffee0-0000-4000-8000-000000000151.jsonl",
        "cwd": sandbox.project,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": { "command": "ls" }
    });
    let output = sandbox.hook("claude-code", "pretooluse", payload.to_string().as_bytes());
    assert_eq!(output.status.code(), Some(0));
    assert!(
        sandbox.hook_errors().is_empty(),
        "the stub-wasi build runs in the hook: {:?}",
        sandbox.hook_errors()
    );
}

#[test]
fn a_jco_build_with_async_built_ins_is_refused_naming_the_flag() {
    let wasm = JS.build_as("policy-js-async", |words| {
        words.retain(|w| w != "--backend-qjs-disable-async");
    });
    let sandbox = Sandbox::new();
    let output = sandbox
        .cm()
        .args(["plugin", "add"])
        .arg(&wasm)
        .output()
        .expect("cm plugin add");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let refusal = stderr.lines().last().unwrap_or_default();
    assert!(
        refusal.contains("requires the component model async feature")
            && refusal.contains("`--backend-qjs-disable-async`"),
        "{stderr}"
    );
}
