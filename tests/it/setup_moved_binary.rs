//! A `cm` that moved (an npm or host-plugin update puts it at a new path) rewrites its
//! own entries in place, for every host at once: set up every agent with the binary at
//! path A, then with a copy at path B. Every file must then be exactly what A wrote with
//! A's path replaced by B's — same position, nothing doubled, nothing appended, the
//! user's own entries untouched —, a third run must change nothing, and `--remove` must
//! leave only the user's files, byte for byte. Covers every form
//! setup writes: command strings, `{command, args}` servers, OpenCode's and KiloCode's
//! argv arrays, Codex's TOML, Claude Code's served `mcp_tool` hooks, the statusline,
//! whole shim files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::Sandbox;
use crate::common::setup_files::{cm_at, stdout, write};
use crate::hook_served::{fake_claude, path_with};

/// The user's own files (path, text, a part of it setup must keep as it is).
const USER_FILES: &[(&str, &str, &str)] = &[
    (
        ".claude/settings.json",
        r#"{
  // the user's own hook
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh"}]}]}
}
"#,
        r#"{"type": "command", "command": "./lint.sh"}"#,
    ),
    (
        ".config/opencode/opencode.json",
        r#"{
  "mcp": {"github": {"type": "remote", "url": "https://api.githubcopilot.com/mcp/"}}
}
"#,
        r#""github": {"type": "remote", "url": "https://api.githubcopilot.com/mcp/"}"#,
    ),
    (
        ".codex/config.toml",
        "# mine\nmodel = \"o4-mini\"\n\n[mcp_servers.other]\ncommand = \"other-mcp\" # keep\n",
        "command = \"other-mcp\" # keep\n",
    ),
];

/// Every agent id `cm` knows, from the one-line refusal of an unknown one.
fn every_agent(sandbox: &Sandbox) -> Vec<String> {
    let out = sandbox
        .cm()
        .args(["setup", "--agents", "no-such-agent", "--dry-run"])
        .output()
        .expect("cm setup");
    let err = String::from_utf8_lossy(&out.stderr);
    let known = err
        .split("known agents: ")
        .nth(1)
        .unwrap_or_else(|| panic!("no agent list in: {err}"));
    let ids: Vec<String> = known.trim().split(", ").map(str::to_owned).collect();
    assert_eq!(ids.len(), 18, "{ids:?}");
    ids
}

/// `cm setup` for every agent with the binary at `cm`; its output.
fn setup_with(sandbox: &Sandbox, cm: &Path, bin: &Path, agents: &[String]) -> String {
    let out = sandbox
        .command(cm)
        .env("PATH", path_with(bin))
        .env("XDG_CONFIG_HOME", sandbox.home.join(".config"))
        .args(["setup", "--project", "--statusline", "--yes", "--agents"])
        .arg(agents.join(","))
        .output()
        .expect("cm setup");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
}

/// Every file under `dirs`, by path, with its text; Codex's `trusted_hash` values (a
/// hash of the hook's command, so they follow the path) masked.
fn snapshot(dirs: &[&Path]) -> BTreeMap<PathBuf, String> {
    let mut files = BTreeMap::new();
    let mut stack: Vec<PathBuf> = dirs.iter().map(|d| d.to_path_buf()).collect();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                let masked: Vec<String> = text
                    .split_inclusive('\n')
                    .map(|line| match line.split_once("trusted_hash = ") {
                        Some((head, _)) => format!("{head}trusted_hash = <hash>\n"),
                        None => line.to_owned(),
                    })
                    .collect();
                files.insert(path, masked.concat());
            }
        }
    }
    files
}

/// The files each agent's plan touches, read from setup's plan output (`Name (id):`
/// headings, then one indented line per file).
fn files_per_agent(plan: &str, home: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut per = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in plan.lines() {
        if !line.starts_with(' ') && line.ends_with("):") {
            current = line
                .rsplit_once(" (")
                .map(|(_, id)| id.trim_end_matches("):").to_owned());
        } else if let (Some(id), Some(file)) = (&current, line.strip_prefix("  "))
            && !file.starts_with(' ')
        {
            let file = file.split(" (new file)").next().unwrap_or(file).trim();
            let path = match file.strip_prefix("~/") {
                Some(rest) => home.join(rest),
                None => PathBuf::from(file),
            };
            per.entry(id.clone()).or_insert_with(Vec::new).push(path);
        }
    }
    per
}

#[test]
fn every_hosts_entries_follow_the_binary_to_its_new_path_in_place() {
    let sandbox = Sandbox::new();
    for (path, text, _) in USER_FILES {
        write(&sandbox.home.join(path), text);
    }
    // A Claude Code with in-server hooks, so its `mcp_tool` entries are written too.
    let bin = fake_claude(&sandbox, "2.1.332");
    let agents = every_agent(&sandbox);
    let a = cm_at(
        &sandbox
            .root
            .join("npm-a/node_modules/@context-mode/cm-x/bin"),
    );
    let b = cm_at(
        &sandbox
            .root
            .join("npm-b/node_modules/@context-mode/cm-x/bin"),
    );
    let (a_text, b_text) = (a.display().to_string(), b.display().to_string());

    let plan = setup_with(&sandbox, &a, &bin, &agents);
    let dirs = [sandbox.home.as_path(), sandbox.project.as_path()];
    let at_a = snapshot(&dirs);
    let per_agent = files_per_agent(&plan, &sandbox.home);
    for id in &agents {
        let files = per_agent.get(id).cloned().unwrap_or_default();
        assert!(
            files
                .iter()
                .any(|f| at_a.get(f).is_some_and(|t| t.contains(&a_text))),
            "{id}: no file of its plan names {a_text}: {files:?}\n{plan}"
        );
    }
    for (path, _, part) in USER_FILES {
        let kept = &at_a[&sandbox.home.join(path)];
        assert!(kept.contains(part), "{path}: {kept}");
    }

    let moved = setup_with(&sandbox, &b, &bin, &agents);
    let at_b = snapshot(&dirs);
    assert_eq!(
        at_a.keys().collect::<Vec<_>>(),
        at_b.keys().collect::<Vec<_>>(),
        "the move added or removed files"
    );
    for (path, before) in &at_a {
        let expected = before.replace(&a_text, &b_text);
        assert_eq!(
            at_b[path],
            expected,
            "{} is not A's file with B's path\n{moved}",
            path.display()
        );
    }

    let again = setup_with(&sandbox, &b, &bin, &agents);
    assert_eq!(snapshot(&dirs), at_b, "a second run at B wrote something");
    assert!(
        !again.contains("backed up"),
        "a second run at B had changes:\n{again}"
    );

    // `--remove` after the move takes out what both runs wrote: the user's files are
    // back to their bytes, every other file setup made is gone.
    let out = sandbox
        .command(&b)
        .env("XDG_CONFIG_HOME", sandbox.home.join(".config"))
        .args(["setup", "--remove", "--yes"])
        .output()
        .expect("cm setup --remove");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut left = snapshot(&dirs);
    left.remove(&bin.join("claude"));
    let users: BTreeMap<PathBuf, String> = USER_FILES
        .iter()
        .map(|(path, text, _)| (sandbox.home.join(path), text.to_string()))
        .collect();
    assert_eq!(left, users, "{}", stdout(&out));
}

/// The rows `cm doctor --json --agents <agents>` gives, as (name, status, detail, fix).
fn doctor(sandbox: &Sandbox, agents: &str) -> (Vec<(String, String, String, String)>, bool) {
    let out = sandbox
        .cm()
        .env("CONTEXT_MODE_DOCTOR_BUDGET_MS", "60000")
        .env("XDG_CONFIG_HOME", sandbox.home.join(".config"))
        .args(["doctor", "--json", "--agents", agents])
        .output()
        .expect("cm doctor");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("doctor json");
    let text = |row: &serde_json::Value, key: &str| row[key].as_str().unwrap_or("").to_owned();
    let rows = report["checks"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| {
            (
                text(row, "name"),
                text(row, "status"),
                text(row, "detail"),
                text(row, "fix"),
            )
        })
        .collect();
    (rows, out.status.success())
}

#[test]
fn doctor_names_the_file_whose_entries_run_a_cm_that_is_gone() {
    let sandbox = Sandbox::new();
    let gone = cm_at(&sandbox.root.join("old-plugin/bin"));
    let gone_text = gone.display().to_string();
    let out = sandbox
        .command(&gone)
        .env("XDG_CONFIG_HOME", sandbox.home.join(".config"))
        .args([
            "setup",
            "--yes",
            "--agents",
            "claude-code,opencode,codex,pi",
        ])
        .output()
        .expect("cm setup");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_file(&gone).expect("remove the old cm");

    let (rows, ok) = doctor(&sandbox, "claude-code,opencode,codex,pi");
    assert!(!ok, "doctor exits 1 on a failed row");
    for (id, file) in [
        ("claude-code", "~/.claude/settings.json"),
        ("claude-code", "~/.claude.json"),
        ("opencode", "~/.config/opencode/opencode.json"),
        ("codex", "~/.codex/config.toml"),
        // The JS shims OpenCode and Pi load keep the path as a string constant.
        ("opencode", "~/.config/opencode/plugins/context-mode.js"),
        ("pi", "~/.pi/agent/extensions/context-mode.js"),
    ] {
        let row = rows
            .iter()
            .find(|(name, _, detail, _)| {
                name == &format!("{id} cm path") && detail.starts_with(&format!("{file} runs "))
            })
            .unwrap_or_else(|| panic!("no {id} cm path row for {file}: {rows:#?}"));
        assert_eq!(row.1, "FAIL", "{row:?}");
        assert!(
            row.2
                .contains(&format!("runs {gone_text}, which no longer exists")),
            "{row:?}"
        );
        assert_eq!(row.3, format!("cm setup --agents {id}"), "{row:?}");
    }

    // The fix it names puts the rows away.
    let fixed = sandbox
        .cm()
        .env("XDG_CONFIG_HOME", sandbox.home.join(".config"))
        .args([
            "setup",
            "--yes",
            "--agents",
            "claude-code,opencode,codex,pi",
        ])
        .output()
        .expect("cm setup");
    assert!(
        fixed.status.success(),
        "{}",
        String::from_utf8_lossy(&fixed.stderr)
    );
    let (rows, _) = doctor(&sandbox, "claude-code,opencode,codex,pi");
    let left: Vec<_> = rows.iter().filter(|r| r.0.ends_with(" cm path")).collect();
    assert!(left.is_empty(), "{left:#?}");
}
