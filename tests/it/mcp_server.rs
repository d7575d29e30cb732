//! `cm serve` over real stdio: handshake, tool list, readiness marker, clean exit.

use crate::common;

use common::{McpClient, Sandbox};

fn markers(sandbox: &Sandbox) -> usize {
    std::fs::read_dir(sandbox.root.join("servers"))
        .map(|d| {
            d.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn answers_initialize_and_exits_when_stdin_closes() {
    let sandbox = Sandbox::new();
    let client = sandbox.live_server();
    let info = &client.initialize_reply;
    assert_eq!(info["serverInfo"]["name"], "context-mode", "{info}");
    assert!(info["capabilities"]["tools"].is_object(), "{info}");
    assert_eq!(markers(&sandbox), 1, "a live server has a readiness marker");
    let status = client.close();
    assert!(status.success(), "{status:?}");
    assert_eq!(markers(&sandbox), 0, "the marker is removed on exit");
}

#[test]
fn lists_only_ctx_tools_with_schemas() {
    let sandbox = Sandbox::new();
    let mut client = McpClient::spawn(sandbox.cm());
    let listed = client.request("tools/list", serde_json::json!({}));
    let tools = listed["tools"].as_array().expect("tools array");
    for tool in tools {
        let name = tool["name"].as_str().expect("name");
        assert!(name.starts_with("ctx_"), "{name}");
        assert_eq!(tool["inputSchema"]["type"], "object", "{name}");
    }
}

#[test]
fn a_malformed_line_gets_an_error_not_a_crash() {
    let sandbox = Sandbox::new();
    let mut client = McpClient::spawn(sandbox.cm());
    client.send(&serde_json::json!("not a request"));
    let listed = client.request("tools/list", serde_json::json!({}));
    assert!(listed["tools"].is_array(), "server still answers: {listed}");
}

/// An agent ends its session with SIGTERM (Claude Code: SIGINT, then SIGTERM, then SIGKILL
/// a few seconds apart): the server must leave on each, marker removed, exit status 0.
#[test]
fn sigterm_and_sigint_remove_the_marker_and_end_the_server() {
    for signal in [libc::SIGTERM, libc::SIGINT] {
        for _ in 0..5 {
            let sandbox = Sandbox::new();
            let mut client = sandbox.live_server();
            assert_eq!(markers(&sandbox), 1);
            // SAFETY: sending a signal to our own child.
            unsafe { libc::kill(client.pid() as i32, signal) };
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            let status = loop {
                if let Some(status) = client.try_wait() {
                    break status;
                }
                assert!(
                    std::time::Instant::now() < deadline,
                    "cm serve still runs 10 s after signal {signal}"
                );
                std::thread::sleep(std::time::Duration::from_millis(10));
            };
            assert!(status.success(), "signal {signal}: {status:?}");
            assert_eq!(markers(&sandbox), 0, "marker left behind after {signal}");
        }
    }
}

#[test]
fn a_message_over_the_size_limit_gets_an_error_and_the_server_goes_on() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    // 33 MB of content: over MCP_MESSAGE_MAX_BYTES (32 MiB) once framed.
    let content = "x".repeat(33 * 1024 * 1024);
    let reply = client.request(
        "tools/call",
        serde_json::json!({"name": "ctx_index", "arguments": {"content": content}}),
    );
    let message = reply["message"].as_str().unwrap_or_default();
    assert!(message.contains("message over"), "{reply}");
    let (text, is_error) = client.call_tool(
        "ctx_index",
        serde_json::json!({"content": "# After\n\nstill answering", "source": "after"}),
    );
    assert!(!is_error, "{text}");
    assert!(text.contains("Indexed"), "{text}");
    assert!(client.close().success());
}

#[test]
fn indexed_control_characters_are_visible_in_search_snippets() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let (text, is_error) = client.call_tool(
        "ctx_index",
        serde_json::json!({"content": "# Bells\n\nthe bell\u{7} rings\u{0} at noon", "source": "bells"}),
    );
    assert!(!is_error, "{text}");
    let (text, is_error) = client.call_tool(
        "ctx_search",
        serde_json::json!({"queries": ["bell rings noon"]}),
    );
    assert!(!is_error, "{text}");
    assert!(text.contains("noon"), "{text}");
    assert!(!text.contains(['\u{0}', '\u{7}']), "{text:?}");
}

/// The `tools/list` reply exactly as `cm serve` writes it, byte for byte: names,
/// descriptions, schemas and annotations are what agents cache and models read, so a
/// change to how a tool is registered must not change a byte of it. Set
/// `UPDATE_GOLDEN=1` to rewrite the golden after a deliberate change.
#[test]
fn the_tool_list_is_byte_identical_to_its_golden() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;

    let sandbox = Sandbox::new();
    let mut child = sandbox
        .cm()
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn cm serve");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    for message in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"golden","version":"1.0.0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#,
    ] {
        writeln!(stdin, "{message}").expect("write");
    }
    stdin.flush().expect("flush");
    let listed = loop {
        let mut line = String::new();
        let read = stdout.read_line(&mut line).expect("read");
        assert!(
            read > 0,
            "cm serve closed stdout before answering tools/list"
        );
        if line.starts_with(r#"{"jsonrpc":"2.0","id":2,"#) {
            break line;
        }
    };
    drop(stdin);
    let _ = child.wait();
    let golden = common::repo_root().join("tests/golden/tools-list.json");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(golden.parent().expect("parent")).expect("mkdir");
        std::fs::write(&golden, &listed).expect("write golden");
    }
    let expected = std::fs::read_to_string(&golden).expect("tests/golden/tools-list.json");
    assert!(
        listed == expected,
        "tools/list differs from {}:\n got: {listed}\nwant: {expected}",
        golden.display()
    );
}

/// How the agent ends the session in each case below.
#[derive(Debug, Clone, Copy)]
enum Ending {
    Signal(i32),
    StdinEof,
}

fn end(client: &mut McpClient, ending: Ending) {
    match ending {
        // SAFETY: sending a signal to our own child.
        Ending::Signal(signal) => unsafe {
            libc::kill(client.pid() as i32, signal);
        },
        Ending::StdinEof => client.close_stdin(),
    }
}

fn alive(pid: i32) -> bool {
    // A zombie is dead: only its parent (or init) has not reaped it yet.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        })
        .unwrap_or(false)
}

/// The agent leaves while `ctx_execute` runs a long command: whichever way it leaves
/// (SIGINT, SIGTERM, stdin closed), the server exits 0 well before the agent's SIGKILL,
/// writes nothing more to stdout, kills the command, and leaves the store readable by
/// the next server. The bound is a liveness bound, not a benchmark.
#[test]
fn the_server_exits_cleanly_on_each_ending_while_a_call_runs() {
    let bound = std::time::Duration::from_secs(5);
    for ending in [
        Ending::Signal(libc::SIGINT),
        Ending::Signal(libc::SIGTERM),
        Ending::StdinEof,
    ] {
        let sandbox = Sandbox::new();
        let mut client = sandbox.live_server();
        let (text, is_error) = client.call_tool(
            "ctx_index",
            serde_json::json!({"content": "# Kept\n\nthe ledger survives shutdown", "source": "kept"}),
        );
        assert!(!is_error, "{text}");
        let pid_file = sandbox.project.join("child.pid");
        client.start_tool_call(
            "ctx_execute",
            serde_json::json!({"language": "shell",
                "code": format!("echo $$ > {}; exec sleep 120", pid_file.display())}),
        );
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let child = loop {
            let pid = std::fs::read_to_string(&pid_file)
                .ok()
                .and_then(|s| s.trim().parse::<i32>().ok());
            if let Some(pid) = pid {
                break pid;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the command never started"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        end(&mut client, ending);
        let Some((status, rest)) = client.wait_exit(bound) else {
            panic!("{ending:?}: cm serve still runs {bound:?} later");
        };
        assert!(status.success(), "{ending:?}: {status:?}");
        assert_eq!(rest, "", "{ending:?}: wrote to stdout while leaving");
        assert!(
            !alive(child),
            "{ending:?}: the command {child} outlived the server"
        );
        assert_eq!(markers(&sandbox), 0, "{ending:?}: marker left behind");
        let mut next = sandbox.live_server();
        let (text, _) = next.call_tool(
            "ctx_search",
            serde_json::json!({"queries": ["ledger survives"]}),
        );
        assert!(text.contains("ledger survives"), "{ending:?}: {text}");
    }
}

/// A signal that arrives before the handshake is complete (initialize answered, no
/// `notifications/initialized` yet) ends the server the same way: exit 0, not the
/// signal's default action.
#[test]
fn a_signal_before_the_handshake_is_a_clean_exit() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let sandbox = Sandbox::new();
        let mut client = McpClient::start(sandbox.cm().arg("serve"), std::process::Stdio::null());
        let reply = client.request(
            "initialize",
            serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}),
        );
        end(&mut client, Ending::Signal(signal));
        let Some((status, _)) = client.wait_exit(std::time::Duration::from_secs(5)) else {
            panic!("still running after signal {signal}");
        };
        assert!(
            status.success(),
            "signal {signal}: {status:?} (initialize: {reply})"
        );
    }
}

/// Upstream 2.0's `CONTEXT_MODE_DATA_DIR` moves the data root when `CONTEXT_MODE_DIR` is
/// unset (`~` is HOME); with both set, `CONTEXT_MODE_DIR` wins.
#[test]
fn the_2_0_data_dir_variable_moves_the_data_root() {
    let sandbox = Sandbox::new();
    for (value, root) in [
        ("~/ctx-data".to_string(), sandbox.home.join("ctx-data")),
        (
            sandbox.home.join("abs-data").display().to_string(),
            sandbox.home.join("abs-data"),
        ),
    ] {
        let mut command = sandbox.cm();
        command
            .env_remove("CONTEXT_MODE_DIR")
            .env("CONTEXT_MODE_DATA_DIR", &value);
        let mut client = McpClient::spawn(command);
        let (text, is_error) = client.call_tool(
            "ctx_index",
            serde_json::json!({"content": "# Moved\n\nthe root moved", "source": "moved"}),
        );
        assert!(!is_error, "{text}");
        assert!(client.close().success());
        assert!(
            root.join("projects").is_dir(),
            "{value}: nothing under {}",
            root.display()
        );
    }
    let mut command = sandbox.cm();
    command.env("CONTEXT_MODE_DATA_DIR", sandbox.home.join("loser"));
    let client = McpClient::spawn(command);
    assert!(client.close().success());
    assert!(
        !sandbox.home.join("loser").exists(),
        "CONTEXT_MODE_DIR must win"
    );
}

/// A client that closes stdin right after its last request (`printf … | cm serve`)
/// still gets the reply of a call that ends within moments.
#[test]
fn a_quick_call_before_stdin_closes_is_still_answered() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    // The first call detects the host and the runtimes (adapters compiled on a cold
    // cache, every runtime probed): not quick.
    let (text, _) = client.call_tool(
        "ctx_execute",
        serde_json::json!({"language": "shell", "code": "echo warm"}),
    );
    assert!(text.contains("warm"), "{text}");
    client.start_tool_call(
        "ctx_execute",
        serde_json::json!({"language": "shell", "code": "echo last-words"}),
    );
    client.close_stdin();
    let Some((status, rest)) = client.wait_exit(std::time::Duration::from_secs(10)) else {
        panic!("cm serve still runs after stdin closed");
    };
    assert!(status.success(), "{status:?}");
    assert!(
        rest.contains("last-words"),
        "no reply after stdin closed: {rest:?}"
    );
}
