//! `cm setup` for VS Code Copilot and JetBrains Copilot, driven like a user would: a
//! project holding the user's own `.vscode/mcp.json` (comments, another server), Copilot
//! instructions and another hooks file, the real `cm`, and the files compared before,
//! after, on a second run and after `--remove`. Both hosts' files are the project's;
//! JetBrains' MCP server is a step setup prints, and its hooks are VS Code's file.

use crate::common;
use crate::common::setup_files::{jsonc, read};

use std::path::{Path, PathBuf};
use std::process::Output;

use common::Sandbox;
use serde_json::{Value, json};

const USER_MCP: &str = r#"{
  // Issue tracker, added by hand.
  "servers": {
    "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}
  },
  "inputs": []
}
"#;

const USER_INSTRUCTIONS: &str = "# Team conventions\n\nRun `make check` before every commit.\n";

const USER_HOOKS: &str = r#"{"hooks": {"PostToolUse": [{"type": "command", "command": "./format.sh"}]}}
"#;

/// (VS Code event name, `cm hook` event) for every event the hooks file registers.
const EVENTS: [(&str, &str); 8] = [
    ("PreToolUse", "pretooluse"),
    ("PostToolUse", "posttooluse"),
    ("UserPromptSubmit", "userpromptsubmit"),
    ("PreCompact", "precompact"),
    ("SessionStart", "sessionstart"),
    ("SubagentStart", "subagentstart"),
    ("SubagentStop", "subagentstop"),
    ("Stop", "stop"),
];

fn setup(sandbox: &Sandbox, args: &[&str]) -> String {
    let out: Output = sandbox
        .cm()
        .arg("setup")
        .args(args)
        .output()
        .expect("run cm setup");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "cm setup {args:?}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn cm_path() -> String {
    Path::new(common::CM)
        .canonicalize()
        .expect("cm")
        .display()
        .to_string()
}

/// The command every entry of the shared hooks file runs for `event`.
fn hook_command(event: &str) -> String {
    let cm = cm_path();
    let cm = if cm.contains(' ') {
        format!("\"{cm}\"")
    } else {
        cm
    };
    format!("{cm} hook vscode-copilot {event}")
}

/// Each event has exactly our one entry, in VS Code's flat format.
fn assert_hooks_once(hooks_file: &Path) {
    let doc = jsonc(hooks_file);
    for (name, event) in EVENTS {
        assert_eq!(
            doc["hooks"][name],
            json!([{"type": "command", "command": hook_command(event)}]),
            "{name} in {}",
            read(hooks_file)
        );
    }
}

/// Every file under `dir`, sorted (to show nothing else was written).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// `cm doctor --json --agents <id>` run in the project: (row name, status) of the agent's
/// rows, sorted.
fn doctor_rows(sandbox: &Sandbox, id: &str) -> Vec<(String, String)> {
    let out = sandbox
        .cm()
        .args(["doctor", "--json", "--agents", id])
        .output()
        .expect("run cm doctor");
    let report: Value = serde_json::from_slice(&out.stdout).expect("doctor json");
    let mut rows: Vec<(String, String)> = report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|row| {
            row["name"]
                .as_str()
                .is_some_and(|n| n.starts_with(&format!("{id} ")))
        })
        .map(|row| {
            (
                row["name"].as_str().unwrap_or_default().to_owned(),
                row["status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    rows.sort();
    rows
}

struct Project {
    sandbox: Sandbox,
    dir: String,
    hooks: PathBuf,
    mcp: PathBuf,
    instructions: PathBuf,
    user_hooks: PathBuf,
}

impl Project {
    /// A project with the user's own MCP servers, instructions and hooks file.
    fn with_user_files() -> Self {
        let sandbox = Sandbox::new();
        let project = sandbox.project.clone();
        let this = Project {
            dir: project.to_str().expect("utf-8 path").to_owned(),
            hooks: project.join(".github/hooks/context-mode.json"),
            mcp: project.join(".vscode/mcp.json"),
            instructions: project.join(".github/copilot-instructions.md"),
            user_hooks: project.join(".github/hooks/format.json"),
            sandbox,
        };
        write(&this.mcp, USER_MCP);
        write(&this.instructions, USER_INSTRUCTIONS);
        write(&this.user_hooks, USER_HOOKS);
        this
    }

    fn setup(&self, agent: &str, extra: &[&str]) -> String {
        let mut args = vec!["--agents", agent, "--project", &self.dir];
        args.extend_from_slice(extra);
        setup(&self.sandbox, &args)
    }
}

#[test]
fn vscode_registers_in_the_project_keeps_the_users_files_and_removes_to_the_same_bytes() {
    let project = Project::with_user_files();
    let said = project.setup("vscode-copilot", &["--routing"]);
    assert!(said.contains("registered"), "{said}");

    assert_hooks_once(&project.hooks);
    let text = read(&project.mcp);
    assert!(text.contains("// Issue tracker, added by hand."), "{text}");
    let mcp = jsonc(&project.mcp);
    assert_eq!(
        mcp["servers"]["github"]["url"],
        "https://api.githubcopilot.com/mcp/"
    );
    assert_eq!(
        mcp["servers"]["context-mode"],
        json!({"type": "stdio", "command": cm_path(), "args": ["serve"]})
    );
    assert_eq!(mcp["inputs"], json!([]));
    let routing = read(&common::repo_root().join("configs/vscode-copilot/copilot-instructions.md"));
    assert_eq!(
        read(&project.instructions),
        format!(
            "{USER_INSTRUCTIONS}\n<!-- context-mode:begin -->\n{routing}<!-- context-mode:end -->\n"
        )
    );
    assert_eq!(read(&project.user_hooks), USER_HOOKS);
    assert!(
        files_under(&project.sandbox.home).is_empty(),
        "nothing outside the project: {:?}",
        files_under(&project.sandbox.home)
    );

    let before = [&project.hooks, &project.mcp, &project.instructions].map(|p| read(p));
    let again = project.setup("vscode-copilot", &["--routing"]);
    assert!(
        again.contains("VS Code Copilot (vscode-copilot): no changes"),
        "{again}"
    );
    assert_eq!(
        before,
        [&project.hooks, &project.mcp, &project.instructions].map(|p| read(p))
    );

    // `cm doctor` in the project shows both registrations (ADR 25: project files count).
    assert_eq!(
        doctor_rows(&project.sandbox, "vscode-copilot"),
        [
            ("vscode-copilot hooks".to_owned(), "PASS".to_owned()),
            ("vscode-copilot mcp-server".to_owned(), "PASS".to_owned()),
        ]
    );

    let removed = setup(&project.sandbox, &["--remove"]);
    assert!(removed.contains("removed context-mode from"), "{removed}");
    assert!(!project.hooks.exists());
    let after = doctor_rows(&project.sandbox, "vscode-copilot");
    assert!(
        after.len() == 2 && after.iter().all(|(_, status)| status == "WARN"),
        "{after:?}"
    );
    assert_eq!(read(&project.mcp), USER_MCP);
    assert_eq!(read(&project.instructions), USER_INSTRUCTIONS);
    assert_eq!(read(&project.user_hooks), USER_HOOKS);
}

#[test]
fn jetbrains_writes_the_shared_hooks_and_prints_the_mcp_steps_instead_of_writing_them() {
    let project = Project::with_user_files();
    let said = project.setup("jetbrains-copilot", &[]);
    let cm = cm_path();
    for line in [
        "by hand: register the context-mode MCP server (cm serve) in the JetBrains IDE's settings"
            .to_owned(),
        format!(
            "GitHub Copilot plugin: Settings > Tools > GitHub Copilot > Model Context Protocol (MCP) > Configure, then add under \"servers\" in the mcp.json it opens: \"context-mode\": {{\"type\": \"stdio\", \"command\": {}, \"args\": [\"serve\"]}}",
            Value::from(cm.as_str())
        ),
        format!(
            "JetBrains AI Assistant: Settings > Tools > AI Assistant > Model Context Protocol (MCP) > Add, name context-mode, command {cm}, arguments serve"
        ),
    ] {
        assert!(said.contains(&line), "missing {line:?} in:\n{said}");
    }
    // Only the hooks file is written: the user's MCP file, instructions (no --routing)
    // and home are as they were.
    assert_hooks_once(&project.hooks);
    assert_eq!(read(&project.mcp), USER_MCP);
    assert_eq!(read(&project.instructions), USER_INSTRUCTIONS);
    assert!(files_under(&project.sandbox.home).is_empty());
    let again = project.setup("jetbrains-copilot", &[]);
    assert!(
        again.contains("JetBrains Copilot (jetbrains-copilot): no changes"),
        "{again}"
    );
    // Doctor checks the hooks file in the project; the MCP server it cannot see (the
    // IDE keeps it), so there is no row for it rather than a false warning.
    assert_eq!(
        doctor_rows(&project.sandbox, "jetbrains-copilot"),
        [("jetbrains-copilot hooks".to_owned(), "PASS".to_owned())]
    );

    // The same project set up for VS Code too: one set of entries serves both IDEs, so
    // neither runs a hook twice.
    let hooks = read(&project.hooks);
    project.setup("vscode-copilot", &[]);
    assert_eq!(read(&project.hooks), hooks);
    assert_hooks_once(&project.hooks);
    assert_eq!(
        files_under(&project.sandbox.project.join(".github/hooks")),
        [project.hooks.clone(), project.user_hooks.clone()]
    );
}

#[test]
fn without_a_project_nothing_is_written_and_setup_says_why() {
    let sandbox = Sandbox::new();
    let said = setup(&sandbox, &["--agents", "vscode-copilot,jetbrains-copilot"]);
    assert!(
        said.contains("{project}/.github/hooks/context-mode.json: needs --project (skipped)"),
        "{said}"
    );
    assert!(
        said.contains("{project}/.vscode/mcp.json: needs --project (skipped)"),
        "{said}"
    );
    assert!(files_under(&sandbox.project).is_empty());
    assert!(files_under(&sandbox.home).is_empty());
}

/// The agent host a real `cm serve` detects for `client_name` with `env` set (it logs
/// it on the first tool call).
fn detected(client_name: &str, env: &[(&str, &str)]) -> Option<String> {
    let sandbox = Sandbox::new();
    let log_path = sandbox.root.join("serve.log");
    let log = std::fs::File::create(&log_path).expect("log file");
    let mut command = sandbox.cm();
    command.env("CM_LOG", "info").envs(env.iter().copied());
    let mut client = common::McpClient::spawn_with_stderr(
        command.arg("serve"),
        client_name,
        std::process::Stdio::from(log),
    );
    let (text, _) = client.call_tool("ctx_search", json!({"queries": ["anything"]}));
    assert!(!text.is_empty());
    assert!(client.close().success());
    let log = read(&log_path);
    log.lines().find_map(|line| {
        let rest = &line[line.find("agent host ")? + "agent host ".len()..];
        rest.split_whitespace().next().map(str::to_owned)
    })
}

#[test]
fn detection_by_client_name_then_by_vscode_pid_last() {
    for (client, env, platform) in [
        ("Visual Studio Code", &[][..], "vscode-copilot"),
        ("Visual Studio Code - Insiders", &[], "vscode-copilot"),
        ("Code - OSS", &[], "vscode-copilot"),
        ("IntelliJ IDEA", &[], "jetbrains-copilot"),
        ("PyCharm", &[], "jetbrains-copilot"),
        // Cursor is a VS Code fork and sets VSCODE_PID too: its client name decides.
        ("cursor-vscode", &[("VSCODE_PID", "4242")], "cursor"),
        // An unknown client in a VS Code terminal: the marker, asked after the others.
        (
            "some-mcp-client",
            &[("VSCODE_PID", "4242")],
            "vscode-copilot",
        ),
        (
            "some-mcp-client",
            &[("VSCODE_PID", "4242"), ("CURSOR_TRACE_ID", "t")],
            "cursor",
        ),
    ] {
        assert_eq!(
            detected(client, env).as_deref(),
            Some(platform),
            "{client} {env:?}"
        );
    }
}
