//! `cm setup` for Claude Code, driven like a user would: a temp HOME with the user's own
//! config, the real `cm`, and the files compared before and after.

use crate::common;
use crate::common::setup_files::{cm_path, stdout};

use std::path::{Path, PathBuf};
use std::process::Output;

use common::Sandbox;
use serde_json::{Value, json};

const USER_CLAUDE_JSON: &str = r#"{
  "numStartups": 12,
  "mcpServers": {
    "github": {"type": "stdio", "command": "gh-mcp", "args": ["--read-only"]}
  },
  "projects": {"/work/app": {"allowedTools": []}}
}
"#;

const USER_SETTINGS: &str = r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(git:*)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./scripts/lint.sh"}]}
    ]
  }
}
"#;

struct Home {
    sandbox: Sandbox,
}

impl Home {
    fn with_user_config() -> Self {
        let sandbox = Sandbox::new();
        std::fs::create_dir_all(sandbox.home.join(".claude")).unwrap();
        std::fs::write(sandbox.home.join(".claude.json"), USER_CLAUDE_JSON).unwrap();
        std::fs::write(settings(&sandbox), USER_SETTINGS).unwrap();
        Home { sandbox }
    }

    fn setup(&self, args: &[&str]) -> Output {
        self.sandbox
            .cm()
            .arg("setup")
            .args(args)
            .output()
            .expect("run cm setup")
    }

    fn read(&self, path: &Path) -> Vec<u8> {
        std::fs::read(path).unwrap_or_default()
    }

    fn claude_json(&self) -> PathBuf {
        self.sandbox.home.join(".claude.json")
    }

    fn settings(&self) -> PathBuf {
        settings(&self.sandbox)
    }
}

fn settings(sandbox: &Sandbox) -> PathBuf {
    sandbox.home.join(".claude/settings.json")
}

fn json_of(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("valid JSON")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Every `command` string in the settings' hooks.
fn hook_commands(settings: &Value) -> Vec<String> {
    let mut found = Vec::new();
    for groups in settings["hooks"].as_object().unwrap().values() {
        for group in groups.as_array().unwrap() {
            for hook in group["hooks"].as_array().unwrap() {
                found.push(hook["command"].as_str().unwrap().to_owned());
            }
        }
    }
    found
}

#[test]
fn apply_keeps_the_users_config_and_adds_ours_then_a_second_run_changes_nothing() {
    let home = Home::with_user_config();
    let out = home.setup(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("Claude Code (claude-code):"), "{text}");
    assert!(text.contains("+ mcpServers.context-mode = "), "{text}");
    assert!(text.contains("backed up 2 file(s) to "), "{text}");

    let claude = json_of(&home.read(&home.claude_json()));
    let cm = cm_path();
    assert_eq!(claude["numStartups"], 12);
    assert_eq!(claude["mcpServers"]["github"]["args"][0], "--read-only");
    assert_eq!(claude["projects"]["/work/app"], json!({"allowedTools": []}));
    assert_eq!(
        claude["mcpServers"]["context-mode"],
        json!({"type": "stdio", "command": cm, "args": ["serve"]})
    );

    let settings = json_of(&home.read(&home.settings()));
    assert_eq!(settings["model"], "opus");
    assert_eq!(settings["permissions"]["allow"][0], "Bash(git:*)");
    let commands = hook_commands(&settings);
    assert!(commands.contains(&"./scripts/lint.sh".to_owned()));
    for event in [
        "pretooluse",
        "posttooluse",
        "userpromptsubmit",
        "precompact",
        "sessionstart",
        "stop",
    ] {
        let ours = format!("{cm} hook claude-code {event}");
        assert_eq!(commands.iter().filter(|c| **c == ours).count(), 1, "{ours}");
    }
    // The user's hook group stays first.
    assert_eq!(settings["hooks"]["PreToolUse"][0]["matcher"], "Bash");
    // The routing file and status line are only added on request.
    assert!(!home.sandbox.home.join(".claude/rules").exists());
    assert!(settings.get("statusLine").is_none());

    let before = (home.read(&home.claude_json()), home.read(&home.settings()));
    let backups = std::fs::read_dir(home.sandbox.root.join("backups"))
        .unwrap()
        .count();
    let again = home.setup(&[]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stdout(&again).contains("Claude Code (claude-code): no changes"),
        "{}",
        stdout(&again)
    );
    assert_eq!(
        (home.read(&home.claude_json()), home.read(&home.settings())),
        before
    );
    assert_eq!(
        std::fs::read_dir(home.sandbox.root.join("backups"))
            .unwrap()
            .count(),
        backups
    );
}

#[test]
fn dry_run_writes_nothing() {
    let home = Home::with_user_config();
    let out = home.setup(&["--dry-run", "--routing", "--statusline"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("dry run: nothing was changed"), "{text}");
    assert!(
        text.contains("~/.claude/rules/context-mode.md (new file)"),
        "{text}"
    );
    assert!(text.contains("+ statusLine = "), "{text}");
    assert_eq!(home.read(&home.claude_json()), USER_CLAUDE_JSON.as_bytes());
    assert_eq!(home.read(&home.settings()), USER_SETTINGS.as_bytes());
    assert!(!home.sandbox.home.join(".claude/rules").exists());
    assert!(!home.sandbox.root.join("backups").exists());
}

#[test]
fn a_failure_mid_way_restores_every_file_byte_for_byte() {
    let home = Home::with_user_config();
    // The routing file is written last; its parent is a regular file, so that write fails
    // after settings.json and .claude.json were already written.
    let blocker = home.sandbox.home.join(".claude/rules");
    std::fs::write(&blocker, b"not a directory").unwrap();
    let out = home.setup(&["--routing"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("cannot write") && err.contains("every file was restored"),
        "{err}"
    );
    assert_eq!(home.read(&home.claude_json()), USER_CLAUDE_JSON.as_bytes());
    assert_eq!(home.read(&home.settings()), USER_SETTINGS.as_bytes());
    assert_eq!(std::fs::read(&blocker).unwrap(), b"not a directory");
    assert!(!home.sandbox.root.join("setup/manifest.json").exists());
}

#[test]
fn remove_restores_the_original_bytes_and_deletes_created_files() {
    let home = Home::with_user_config();
    let out = home.setup(&["--routing", "--statusline"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rules = home.sandbox.home.join(".claude/rules/context-mode.md");
    assert!(rules.is_file());
    let removed = home.setup(&["--remove"]);
    assert!(removed.status.success(), "{}", stderr(&removed));
    assert_eq!(home.read(&home.claude_json()), USER_CLAUDE_JSON.as_bytes());
    assert_eq!(home.read(&home.settings()), USER_SETTINGS.as_bytes());
    assert!(!rules.exists());
    let again = home.setup(&["--remove"]);
    assert!(
        stdout(&again).contains("nothing to remove"),
        "{}",
        stdout(&again)
    );
}

#[test]
fn remove_after_the_user_edited_takes_out_only_ours() {
    let home = Home::with_user_config();
    assert!(home.setup(&[]).status.success());
    let mut claude = json_of(&home.read(&home.claude_json()));
    claude["mcpServers"]["added-later"] = json!({"command": "later"});
    std::fs::write(
        home.claude_json(),
        serde_json::to_string_pretty(&claude).unwrap(),
    )
    .unwrap();
    let out = home.setup(&["--remove"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut expected = json_of(USER_CLAUDE_JSON.as_bytes());
    expected["mcpServers"]["added-later"] = json!({"command": "later"});
    assert_eq!(json_of(&home.read(&home.claude_json())), expected);
    assert_eq!(home.read(&home.settings()), USER_SETTINGS.as_bytes());
}

#[test]
fn a_stale_cm_path_is_replaced_not_duplicated() {
    let home = Home::with_user_config();
    // An older install of cm at another path ran setup first.
    let old_dir = home.sandbox.home.join("old-install/bin");
    std::fs::create_dir_all(&old_dir).unwrap();
    let old_cm = old_dir.join("cm");
    std::fs::copy(common::CM, &old_cm).unwrap();
    let out = std::process::Command::new(&old_cm)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home.sandbox.home)
        .env("CONTEXT_MODE_DIR", &home.sandbox.root)
        .args(["setup", "--statusline"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let old = old_cm.canonicalize().unwrap().display().to_string();
    assert!(
        hook_commands(&json_of(&home.read(&home.settings())))
            .contains(&format!("{old} hook claude-code stop"))
    );

    let out = home.setup(&["--statusline"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("\"{old}\" → \"{}\"", cm_path())),
        "{}",
        stdout(&out)
    );
    let settings = json_of(&home.read(&home.settings()));
    let commands = hook_commands(&settings);
    assert!(
        commands.iter().all(|c| !c.contains("old-install")),
        "{commands:?}"
    );
    assert_eq!(commands.len(), 1 + 7, "{commands:?}");
    assert_eq!(
        settings["statusLine"]["command"],
        format!("{} statusline", cm_path())
    );
    let claude = json_of(&home.read(&home.claude_json()));
    assert_eq!(claude["mcpServers"]["context-mode"]["command"], cm_path());

    // Remove after the refresh still gives back the user's files exactly.
    assert!(home.setup(&["--remove"]).status.success());
    assert_eq!(home.read(&home.claude_json()), USER_CLAUDE_JSON.as_bytes());
    assert_eq!(home.read(&home.settings()), USER_SETTINGS.as_bytes());
}

#[test]
fn agent_selection_errors_are_one_clear_line() {
    let sandbox = Sandbox::new();
    let out = sandbox
        .cm()
        .args(["setup", "--agents", "emacs"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("unknown agent \"emacs\"; known agents: ") && err.contains("claude-code"),
        "{err}"
    );
    let out = sandbox.cm().arg("setup").output().unwrap();
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("no agent detected") && err.contains("--agents"),
        "{err}"
    );
    // Picking the agent explicitly works without its marker directory.
    let out = sandbox
        .cm()
        .args(["setup", "--agents", "claude-code"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(sandbox.home.join(".claude.json").is_file());
}

#[test]
fn routing_goes_to_the_project_only_with_project() {
    let home = Home::with_user_config();
    let out = home.setup(&[
        "--routing",
        "--project",
        home.sandbox.project.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        home.sandbox
            .project
            .join(".claude/rules/context-mode.md")
            .is_file()
    );
    assert!(!home.sandbox.home.join(".claude/rules").exists());
}

#[test]
fn inspect_sees_what_setup_did() {
    let home = Home::with_user_config();
    let cm = cm_path();
    let before = cm::setup::inspect(&home.sandbox.root, &home.sandbox.home, &cm).unwrap();
    let claude = before.iter().find(|a| a.id == "claude-code").unwrap();
    assert!(claude.detected);
    assert!(
        claude
            .edits
            .iter()
            .all(|e| e.state == cm::setup::EditState::Missing)
    );
    assert_eq!(
        claude.edits[0].fix.as_deref(),
        Some("cm setup --agents claude-code")
    );
    assert!(home.setup(&[]).status.success());
    let after = cm::setup::inspect(&home.sandbox.root, &home.sandbox.home, &cm).unwrap();
    let claude = after.iter().find(|a| a.id == "claude-code").unwrap();
    assert!(
        claude
            .edits
            .iter()
            .all(|e| e.state == cm::setup::EditState::Applied),
        "{:?}",
        claude.edits
    );
    // A duplicated hook is reported with its event and count.
    let mut settings = json_of(&home.read(&home.settings()));
    let stop = settings["hooks"]["Stop"][0].clone();
    settings["hooks"]["Stop"].as_array_mut().unwrap().push(stop);
    std::fs::write(home.settings(), settings.to_string()).unwrap();
    let dup = cm::setup::inspect(&home.sandbox.root, &home.sandbox.home, &cm).unwrap();
    let claude = dup.iter().find(|a| a.id == "claude-code").unwrap();
    assert_eq!(claude.duplicates.len(), 1, "{:?}", claude.duplicates);
    assert_eq!(claude.duplicates[0].event, "stop");
    assert_eq!(claude.duplicates[0].count, 2);
    assert_eq!(claude.duplicates[0].key, "hooks.Stop[].hooks[].command");
    // Setup itself collapses the duplicate.
    assert!(home.setup(&[]).status.success());
    let fixed = cm::setup::inspect(&home.sandbox.root, &home.sandbox.home, &cm).unwrap();
    assert!(fixed.iter().all(|a| a.duplicates.is_empty()));
}
