//! `cm setup` picks how Claude Code's tool events reach `cm` by the installed version
//! (ADR 27): `mcp_tool` entries answered by the running `cm serve` from 2.1.197 on, a
//! `cm hook` process before that or when `claude` is not found. A Claude Code upgrade (or
//! downgrade) followed by `cm setup` swaps the entries in place, never doubling a hook,
//! `cm doctor` says which is active, and `--remove` takes either kind out.

use serde_json::Value;

use crate::common::Sandbox;
use crate::common::setup_files::{hook_command, jsonc, stdout, write};
use crate::hook_served::{fake_claude, path_with};

const USER_SETTINGS: &str = r#"{
  // the user's own hook stays untouched
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh"}]}]}
}
"#;

fn cm_with_claude(sandbox: &Sandbox, version: Option<&str>, args: &[&str]) -> String {
    let mut command = sandbox.cm();
    if let Some(version) = version {
        command.env("PATH", path_with(&fake_claude(sandbox, version)));
    } else {
        let _ = std::fs::remove_file(sandbox.home.join("bin/claude"));
    }
    let output = command.args(args).output().expect("run cm");
    assert!(
        output.status.success() || args[0] == "doctor",
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout(&output)
}

fn hooks(sandbox: &Sandbox) -> Value {
    jsonc(&sandbox.home.join(".claude/settings.json"))["hooks"].clone()
}

/// The handlers of ours under `event`: their `type`s.
fn our_types(hooks: &Value, event: &str) -> Vec<String> {
    hooks[event]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|group| group["hooks"].as_array().cloned().unwrap_or_default())
        .filter(|h| {
            h["tool"] == "ctx_hook"
                || h["command"]
                    .as_str()
                    .is_some_and(|c| c.contains(" hook claude-code "))
        })
        .map(|h| h["type"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn doctor_hooks_row(sandbox: &Sandbox, version: Option<&str>) -> String {
    let report = cm_with_claude(sandbox, version, &["doctor", "--agents", "claude-code"]);
    // A row's detail wraps onto indented lines below it.
    let mut lines = report
        .lines()
        .skip_while(|l| !l.starts_with("claude-code hooks"));
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("no hooks row: {report}"));
    let wrapped = lines.take_while(|l| l.starts_with(' ')).map(str::trim);
    std::iter::once(first.trim())
        .chain(wrapped)
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_installed_claude_code_decides_and_a_rerun_swaps_the_entries_in_place() {
    let sandbox = Sandbox::new();
    write(&sandbox.home.join(".claude/settings.json"), USER_SETTINGS);
    let setup = ["setup", "--agents", "claude-code", "--yes"];

    cm_with_claude(&sandbox, Some("2.1.196"), &setup);
    let before = hooks(&sandbox);
    for event in [
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "SessionStart",
    ] {
        assert_eq!(our_types(&before, event), ["command"], "{event}: {before}");
    }
    let row = doctor_hooks_row(&sandbox, Some("2.1.196"));
    assert!(row.contains("PASS"), "{row}");
    assert!(
        row.contains(
            "a cm hook process per tool call (2.1.196 (Claude Code) has no in-server hooks)"
        ),
        "{row}"
    );

    // Claude Code upgraded: the tool events move to the server, the rest stay commands.
    cm_with_claude(&sandbox, Some("2.1.332"), &setup);
    let after = hooks(&sandbox);
    for event in ["PreToolUse", "PostToolUse", "PostToolUseFailure"] {
        assert_eq!(our_types(&after, event), ["mcp_tool"], "{event}: {after}");
    }
    for (event, cli) in [
        ("SessionStart", "sessionstart"),
        ("PreCompact", "precompact"),
    ] {
        assert_eq!(our_types(&after, event), ["command"], "{event}");
        assert_eq!(
            after[event][0]["hooks"][0]["command"],
            hook_command("claude-code", cli)
        );
    }
    let user_hook = &after["PreToolUse"][0]["hooks"][0];
    assert_eq!(user_hook["command"], "./lint.sh", "{after}");
    let row = doctor_hooks_row(&sandbox, Some("2.1.332"));
    assert!(row.contains("PASS"), "{row}");
    assert!(
        row.contains("tool events answered in-server by cm serve (2.1.332 (Claude Code))"),
        "{row}"
    );
    let report = cm_with_claude(
        &sandbox,
        Some("2.1.332"),
        &["doctor", "--agents", "claude-code"],
    );
    assert!(!report.contains("registered 2 times"), "{report}");

    // Setup run again on the same version changes nothing.
    let again = cm_with_claude(&sandbox, Some("2.1.332"), &setup);
    assert_eq!(hooks(&sandbox), after, "{again}");

    // Back to an older Claude Code (or none on PATH): command hooks again, once each.
    cm_with_claude(&sandbox, None, &setup);
    let back = hooks(&sandbox);
    for event in ["PreToolUse", "PostToolUse", "PostToolUseFailure"] {
        assert_eq!(our_types(&back, event), ["command"], "{event}: {back}");
    }
    assert!(
        doctor_hooks_row(&sandbox, None).contains("Claude Code did not say its version"),
        "doctor names why"
    );

    // Served entries are taken out by --remove like command ones.
    cm_with_claude(&sandbox, Some("2.1.332"), &setup);
    cm_with_claude(
        &sandbox,
        Some("2.1.332"),
        &["setup", "--remove", "--agents", "claude-code", "--yes"],
    );
    let removed = hooks(&sandbox);
    for event in ["PreToolUse", "PostToolUse", "SessionStart"] {
        assert!(our_types(&removed, event).is_empty(), "{event}: {removed}");
    }
    assert_eq!(removed["PreToolUse"][0]["hooks"][0]["command"], "./lint.sh");
}
