//! The user's `permissions.deny` holds on every path to the same effect (issue 12,
//! items 3, 4, 5, 8, 9 and `CTX_FETCH_STRICT`), through the real `cm serve` and
//! `cm hook`: a followed symlink is judged by its target, a batch command is checked
//! in the shape it runs, a fetch by the host it dials, settings are read as Claude Code
//! reads them (and an unreadable file fails closed), a local allow does not undo a
//! project deny, and a server started in a deleted directory confines to nothing.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{CM, McpClient, Sandbox};
use serde_json::json;

fn assert_denied(text: &str, is_error: bool, what: &str) {
    assert!(is_error, "{what}: {text}");
    assert!(text.starts_with("denied"), "{what}: {text}");
    assert_eq!(text.lines().count(), 1, "{what}: {text}");
    assert!(!text.contains("stack backtrace"), "{what}: {text}");
}

/// A directory whose removal proves a command ran.
fn marker(sandbox: &Sandbox) -> std::path::PathBuf {
    sandbox.write("x/keep.txt", b"still here\n");
    sandbox.project.join("x")
}

#[test]
fn a_followed_symlink_is_judged_by_the_file_it_points_to() {
    let sandbox = Sandbox::new();
    sandbox.write(".env", b"TOKEN=zetasecret\n");
    sandbox.write("sub/readme.md", b"# Readme\nthe quokka handbook\n");
    std::os::unix::fs::symlink("../.env", sandbox.project.join("sub/envlink")).expect("symlink");
    sandbox.project_permissions(json!({"deny": ["Read(./.env)"]}));
    let mut client = sandbox.live_server();

    let (text, is_error) = client.call_tool(
        "ctx_index",
        json!({"path": "sub", "followSymlinks": true, "source": "sub"}),
    );
    assert!(!is_error, "{text}");
    let (found, _) = client.call_tool("ctx_search", json!({"queries": ["quokka handbook"]}));
    assert!(
        found.contains("quokka"),
        "the walk indexed the readme: {found}"
    );
    let (leaked, _) = client.call_tool("ctx_search", json!({"queries": ["zetasecret"]}));
    assert!(
        !leaked.contains("TOKEN"),
        "Read(./.env) kept .env out even through sub/envlink: {leaked}"
    );
}

#[test]
fn batch_commands_are_checked_in_the_shape_they_run() {
    let sandbox = Sandbox::new();
    let x = marker(&sandbox);
    sandbox.project_permissions(json!({"deny": ["Bash(rm *)"]}));
    let mut client = sandbox.live_server();
    let object = json!({"label": "a", "command": "rm -rf x"}).to_string();
    for commands in [
        json!(object),
        json!(format!("   {object}")),
        json!(format!("\n{object}\n")),
        json!(json!(["rm -rf x"]).to_string()),
        json!({"label": "a", "command": "rm -rf x"}),
        json!("rm -rf x"),
        json!(["echo fine", {"command": "rm -rf x"}]),
    ] {
        let (text, is_error) =
            client.call_tool("ctx_batch_execute", json!({ "commands": commands }));
        assert_denied(&text, is_error, &commands.to_string());
        assert!(text.contains("rm -rf x"), "{text}");
        assert!(x.exists(), "{commands} ran `rm -rf x`");
    }
    // The same shapes still run what is allowed.
    let fine = json!({"label": "a", "command": "echo batch-ran"}).to_string();
    let (text, is_error) = client.call_tool("ctx_batch_execute", json!({ "commands": fine }));
    assert!(!is_error && text.contains("batch-ran"), "{text}");
}

#[test]
fn code_is_checked_as_the_language_that_runs_it_whatever_alias_names_it() {
    let sandbox = Sandbox::new();
    let x = marker(&sandbox);
    sandbox.project_permissions(json!({"deny": ["Bash(rm *)"]}));
    let mut client = sandbox.live_server();
    // Read as shell text, this line holds no `rm` command; read as JavaScript, it runs one.
    let code = "const { execFileSync } = require(\"child_process\");\nexecFileSync(\"rm\", [\"-rf\", \"x\"]);";
    for language in ["nodejs", "NodeJS", "cjs", "mjs", "javascript"] {
        let (text, is_error) =
            client.call_tool("ctx_execute", json!({"language": language, "code": code}));
        assert_denied(&text, is_error, language);
        assert!(x.exists(), "{language} ran `rm -rf x`");
    }
}

/// An HTTP server on 127.0.0.1 that answers every request with a small page and
/// counts them.
struct CountingHttp {
    port: u16,
    hits: Arc<AtomicUsize>,
}

impl CountingHttp {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let hits = Arc::new(AtomicUsize::new(0));
        let counter = hits.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                counter.fetch_add(1, Ordering::SeqCst);
                let mut reader = BufReader::new(stream);
                let mut request = String::new();
                let _ = reader.read_line(&mut request);
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let mut stream = reader.into_inner();
                // `/hop` sends the client on to the loopback address by its number.
                if request.starts_with("GET /hop ") {
                    let _ = write!(
                        stream,
                        "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:{port}/p\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    );
                    continue;
                }
                let body = "<html><body><h1>Local</h1><p>wombat page</p></body></html>";
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        CountingHttp { port, hits }
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

#[test]
fn a_fetch_is_checked_on_every_url_by_the_host_it_dials() {
    let http = CountingHttp::start();
    let sandbox = Sandbox::new();
    sandbox.project_permissions(json!({"deny": ["WebFetch(domain:127.0.0.1)"]}));
    let mut client = sandbox.live_server();
    let port = http.port;
    let plain = format!("http://127.0.0.1:{port}/p");
    for arguments in [
        json!({"url": plain}),
        json!({"url": [plain]}),
        json!({"url": json!([plain]).to_string()}),
        json!({"requests": [plain]}),
        json!({"requests": plain}),
        json!({"requests": json!({"url": plain}).to_string()}),
        json!({"url": format!("http://2130706433:{port}/p")}),
        json!({"url": format!("http://0x7f.1:{port}/p")}),
        json!({"url": format!("http://0177.0.0.1:{port}/p")}),
        json!({"url": format!("http://127.1:{port}/p")}),
        json!({"url": format!("http://[::ffff:127.0.0.1]:{port}/p")}),
        json!({"url": "https://example.invalid/", "requests": [format!("http://127.1:{port}/q")]}),
    ] {
        let (text, is_error) = client.call_tool("ctx_fetch_and_index", arguments.clone());
        assert_denied(&text, is_error, &arguments.to_string());
        assert!(text.contains("WebFetch(domain:127.0.0.1)"), "{text}");
        assert_eq!(http.hits(), 0, "{arguments} reached the server");
    }
}

#[test]
fn a_redirect_is_checked_like_the_url_it_leads_to() {
    let http = CountingHttp::start();
    let sandbox = Sandbox::new();
    sandbox.project_permissions(json!({"deny": ["WebFetch(domain:127.0.0.1)"]}));
    let mut client = sandbox.live_server();
    let (text, is_error) = client.call_tool(
        "ctx_fetch_and_index",
        json!({"url": format!("http://localhost:{}/hop", http.port)}),
    );
    assert!(is_error, "{text}");
    assert!(
        text.contains(&format!(
            "redirect to http://127.0.0.1:{}/p refused",
            http.port
        )) && text.contains("WebFetch(domain:127.0.0.1)"),
        "{text}"
    );
    assert_eq!(http.hits(), 1, "only the redirect itself was fetched");
}

#[test]
fn strict_fetch_mode_takes_every_on_word_and_is_strict_on_an_unknown_one() {
    let http = CountingHttp::start();
    let url = format!("http://127.0.0.1:{}/p", http.port);
    for value in ["on", " ON ", "yes", "True", "1", "strict-please"] {
        let sandbox = Sandbox::new();
        let mut command = sandbox.cm();
        command.env("CTX_FETCH_STRICT", value).arg("serve");
        let mut client = McpClient::spawn_with_stderr(&mut command, "claude-code", Stdio::null());
        let (text, is_error) = client.call_tool("ctx_fetch_and_index", json!({ "url": url }));
        assert!(is_error, "CTX_FETCH_STRICT={value:?}: {text}");
        assert!(
            text.contains("loopback"),
            "CTX_FETCH_STRICT={value:?}: {text}"
        );
        assert_eq!(http.hits(), 0, "CTX_FETCH_STRICT={value:?} fetched {url}");
    }
    let sandbox = Sandbox::new();
    let mut command = sandbox.cm();
    command.env("CTX_FETCH_STRICT", "off").arg("serve");
    let mut client = McpClient::spawn_with_stderr(&mut command, "claude-code", Stdio::null());
    let (text, is_error) = client.call_tool("ctx_fetch_and_index", json!({ "url": url }));
    assert!(!is_error, "off is off: {text}");
    assert_eq!(http.hits(), 1);
}

/// A Claude Code PreToolUse payload for `tool` in the sandbox's project.
fn pre_tool_use(sandbox: &Sandbox, tool: &str, input: serde_json::Value) -> Vec<u8> {
    json!({
        "session_id": "rules-every-path",
        "transcript_path": "/nonexistent/transcript.jsonl",
        "cwd": sandbox.project,
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": input,
    })
    .to_string()
    .into_bytes()
}

/// The hook's permission decision and reason ("" and "" for the empty allow reply).
fn hook_decision(sandbox: &Sandbox, tool: &str, input: serde_json::Value) -> (String, String) {
    let output = sandbox.hook(
        "claude-code",
        "PreToolUse",
        &pre_tool_use(sandbox, tool, input),
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    if output.stdout.is_empty() {
        return (String::new(), String::new());
    }
    let reply: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON reply");
    let specific = &reply["hookSpecificOutput"];
    (
        specific["permissionDecision"]
            .as_str()
            .unwrap_or("")
            .to_string(),
        specific["permissionDecisionReason"]
            .as_str()
            .unwrap_or("")
            .to_string(),
    )
}

#[test]
fn settings_with_comments_and_trailing_commas_keep_their_rules() {
    let sandbox = Sandbox::new();
    let x = marker(&sandbox);
    sandbox.write(
        ".claude/settings.json",
        br#"{
  // the team's guard rails
  "permissions": {
    "deny": [
      "Bash(rm *)", /* never */
    ],
  },
}
"#,
    );
    let text = assert_rm_denied_both_ways(&sandbox, &x);
    assert!(text.contains("Bash(rm *)"), "{text}");
}

/// `rm -rf x` is refused by `ctx_execute` (and `x` is still there) and by the hook;
/// returns the server's refusal.
fn assert_rm_denied_both_ways(sandbox: &Sandbox, x: &std::path::Path) -> String {
    let mut client = sandbox.live_server();
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "rm -rf x"}),
    );
    assert_denied(&text, is_error, "ctx_execute");
    assert!(x.exists(), "rm ran despite the deny rule");
    let (decision, reason) = hook_decision(sandbox, "Bash", json!({"command": "rm -rf x"}));
    assert_eq!(decision, "deny", "{reason}");
    assert!(reason.contains("Bash(rm *)"), "{reason}");
    text
}

#[test]
fn an_unparseable_settings_file_fails_closed_and_names_itself() {
    let sandbox = Sandbox::new();
    let x = marker(&sandbox);
    sandbox.write(
        ".claude/settings.json",
        b"{\n  \"permissions\": {\n    \"deny\": [Bash(rm *)]\n  }\n}\n",
    );
    let settings = sandbox.project.join(".claude/settings.json");
    let mut client = sandbox.live_server();
    for (tool, arguments) in [
        (
            "ctx_execute",
            json!({"language": "shell", "code": "rm -rf x"}),
        ),
        ("ctx_batch_execute", json!({"commands": ["echo hi"]})),
        ("ctx_index", json!({"path": "x"})),
        ("ctx_fetch_and_index", json!({"url": "http://127.0.0.1:9/"})),
    ] {
        let (text, is_error) = client.call_tool(tool, arguments);
        assert_denied(&text, is_error, tool);
        assert!(
            text.contains(&*settings.to_string_lossy()),
            "{tool} names the file: {text}"
        );
        assert!(text.contains("line 3 column"), "{tool} says where: {text}");
    }
    assert!(x.exists(), "rm ran while the rules were unknown");

    let (decision, reason) = hook_decision(&sandbox, "Bash", json!({"command": "ls"}));
    assert_eq!(decision, "deny", "{reason}");
    assert!(reason.contains(&*settings.to_string_lossy()), "{reason}");
    // The agent may still read and repair the file it is told to fix.
    let (decision, reason) = hook_decision(
        &sandbox,
        "Edit",
        json!({"file_path": settings, "old_string": "[B", "new_string": "[\"B"}),
    );
    assert_eq!(decision, "", "{reason}");
}

#[test]
fn a_local_allow_does_not_undo_a_project_deny() {
    let sandbox = Sandbox::new();
    let x = marker(&sandbox);
    sandbox.project_permissions(json!({"deny": ["Bash(rm *)"]}));
    sandbox.write(
        ".claude/settings.local.json",
        json!({"permissions": {"allow": ["Bash(rm -rf x)", "Bash(rm:*)"]}})
            .to_string()
            .as_bytes(),
    );
    let text = assert_rm_denied_both_ways(&sandbox, &x);
    assert!(
        text.contains("in permissions.deny of .claude/settings.json"),
        "{text}"
    );
}

/// `sh` started in a new directory that removes it, then execs `cm <args>`: a process
/// whose working directory no longer exists, as when an agent is started from one.
fn in_deleted_directory(sandbox: &Sandbox, args: &str) -> Command {
    let gone = sandbox.home.join("gone");
    std::fs::create_dir_all(&gone).expect("mkdir");
    let mut command = Command::new("sh");
    command.env_clear();
    // The sandbox's environment for `cm`, handed on through the shell.
    for (name, value) in sandbox.cm().get_envs() {
        if let Some(value) = value {
            command.env(name, value);
        }
    }
    command
        .env("CM", CM)
        .env("GONE", &gone)
        .current_dir(&gone)
        .args(["-c", &format!("rmdir \"$GONE\" && exec \"$CM\" {args}")]);
    command
}

#[test]
fn a_server_started_in_a_deleted_directory_refuses_instead_of_confining_to_root() {
    let sandbox = Sandbox::new();
    let hostname = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
    let mut command = in_deleted_directory(&sandbox, "serve");
    let mut client = McpClient::spawn_with_stderr(&mut command, "claude-code", Stdio::null());
    for (tool, arguments) in [
        (
            "ctx_execute_file",
            json!({"path": "/etc/hostname", "language": "shell", "code": "cat \"$FILE_CONTENT_PATH\""}),
        ),
        ("ctx_index", json!({"path": "/etc/hostname"})),
        (
            "ctx_execute",
            json!({"language": "shell", "code": "cat /etc/hostname"}),
        ),
        ("ctx_search", json!({"queries": ["anything"]})),
    ] {
        let (text, is_error) = client.call_tool(tool, arguments);
        assert!(is_error, "{tool}: {text}");
        assert!(
            text.contains("working directory") && text.contains("no longer exists"),
            "{tool} says why: {text}"
        );
        assert_eq!(text.lines().count(), 1, "{tool}: {text}");
        if !hostname.trim().is_empty() {
            assert!(!text.contains(hostname.trim()), "{tool} read it: {text}");
        }
    }
}

#[test]
fn a_hook_started_in_a_deleted_directory_allows_and_logs_why() {
    let sandbox = Sandbox::new();
    let gone = sandbox.home.join("gone");
    let payload = json!({
        "session_id": "rules-every-path",
        "transcript_path": "/nonexistent/transcript.jsonl",
        "cwd": gone,
        "hook_event_name": "PreToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": "/etc/hostname"},
    })
    .to_string();
    let command = in_deleted_directory(&sandbox, "hook claude-code PreToolUse");
    let mut child = {
        let mut command = command;
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(payload.as_bytes())
        .expect("write");
    let output = child.wait_with_output().expect("wait");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(
        output.stdout.is_empty(),
        "the allow reply: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    let errors = sandbox.hook_errors().join("\n");
    assert!(errors.contains("no longer exists"), "{errors}");
    assert!(!errors.contains("stack backtrace"), "{errors}");
}
