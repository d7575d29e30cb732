//! Hooks the running `cm serve` answers (ADR 27): the `mcp_tool` entries `cm setup`
//! writes for Claude Code 2.1.197 and later, fed every Claude Code tool golden the way
//! Claude Code fills them (its `${path}` interpolation), must get exactly the bytes
//! `cm hook` prints for that golden; the journal and hook timings go through the
//! server's store; a call that cannot be answered gets the allow reply and a log line.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::golden::Golden;
use crate::common::setup_files::{jsonc, write};
use crate::common::{McpClient, Sandbox};

const CLAUDE: Golden = Golden {
    platform: "claude-code",
};

/// The tool events setup hands to the server.
const SERVED_EVENTS: [(&str, &str); 3] = [
    ("PreToolUse", "pretooluse"),
    ("PostToolUse", "posttooluse"),
    ("PostToolUseFailure", "posttoolusefailure"),
];

/// A stand-in `claude` on PATH that says it is `version` (`cm setup` asks it).
pub fn fake_claude(sandbox: &Sandbox, version: &str) -> std::path::PathBuf {
    let bin = sandbox.home.join("bin");
    let script = bin.join("claude");
    write(
        &script,
        &format!("#!/bin/sh\n[ \"$1\" = --version ] && echo '{version} (Claude Code)'\n"),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    bin
}

/// PATH with `bin` first.
pub fn path_with(bin: &Path) -> std::ffi::OsString {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(std::env::split_paths(&rest)))
        .expect("PATH")
}

/// The `input` templates of the `mcp_tool` entries `cm setup` writes for a Claude Code
/// that supports them, by `cm hook` event name.
fn served_templates() -> BTreeMap<&'static str, Value> {
    let sandbox = Sandbox::new();
    let bin = fake_claude(&sandbox, "2.1.332");
    let output = sandbox
        .cm()
        .env("PATH", path_with(&bin))
        .args(["setup", "--agents", "claude-code", "--yes"])
        .output()
        .expect("cm setup");
    assert!(output.status.success(), "{output:?}");
    let settings = jsonc(&sandbox.home.join(".claude/settings.json"));
    SERVED_EVENTS
        .iter()
        .map(|(name, cli)| {
            let handler = &settings["hooks"][*name][0]["hooks"][0];
            assert_eq!(handler["type"], "mcp_tool", "{name}: {handler}");
            assert_eq!(handler["tool"], "ctx_hook");
            assert_eq!(handler["server"], "context-mode");
            (*cli, handler["input"].clone())
        })
        .collect()
}

/// Claude Code's interpolation of an `mcp_tool` hook's input (2.1.332): in every string,
/// each `${a.b}` becomes the hook payload's value at that path: "" when absent or null,
/// JSON text for an object or array, the text of anything else.
fn interpolate(template: &Value, payload: &Value) -> Value {
    match template {
        Value::String(text) => {
            let mut out = String::new();
            let mut rest = text.as_str();
            while let Some(start) = rest.find("${") {
                let Some(end) = rest[start..].find('}') else {
                    break;
                };
                out.push_str(&rest[..start]);
                let path = &rest[start + 2..start + end];
                let value = path
                    .split('.')
                    .try_fold(payload, |value, key| value.get(key));
                out.push_str(&match value {
                    None | Some(Value::Null) => String::new(),
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                });
                rest = &rest[start + end + 1..];
            }
            out.push_str(rest);
            Value::String(out)
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|i| interpolate(i, payload)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), interpolate(v, payload)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn served_reply(server: &mut McpClient, sandbox: &Sandbox, arguments: &Value) -> String {
    let (text, is_error) = server.call_tool("ctx_hook", arguments.clone());
    assert!(!is_error, "ctx_hook answered an error: {text}");
    text.replace(&*sandbox.project.to_string_lossy(), "__PROJECT__")
}

#[test]
fn every_claude_code_tool_golden_gets_the_command_hooks_bytes_in_server() {
    let templates = served_templates();
    let mut compared = 0;
    for case in CLAUDE.cases() {
        if !CLAUDE.has_json_payload(&case) {
            continue;
        }
        let sandbox = CLAUDE.project();
        let payload = CLAUDE.payload_value(&sandbox, &case);
        let Some(template) = templates.get(CLAUDE.event_of(&case, &payload).as_str()) else {
            continue;
        };
        let mut server = sandbox.live_server();
        if let Some(base) = CLAUDE.runs_after(&case) {
            let base_payload = CLAUDE.payload_value(&sandbox, &base);
            match templates.get(CLAUDE.event_of(&base, &base_payload).as_str()) {
                Some(base_template) => {
                    served_reply(
                        &mut server,
                        &sandbox,
                        &interpolate(base_template, &base_payload),
                    );
                }
                None => {
                    CLAUDE.run(&sandbox, &base);
                }
            }
        }
        let reply = served_reply(&mut server, &sandbox, &interpolate(template, &payload));
        let golden = std::fs::read_to_string(CLAUDE.dir().join(format!("{case}.stdout")))
            .expect("golden stdout");
        assert_eq!(
            reply, golden,
            "{case}: the served reply differs from the command hook's"
        );
        assert!(
            sandbox.hook_errors().is_empty(),
            "{case}: {:?}",
            sandbox.hook_errors()
        );
        compared += 1;
    }
    assert!(compared >= 10, "only {compared} tool goldens compared");
}

#[test]
fn the_hook_tool_is_answered_but_never_listed() {
    let sandbox = Sandbox::new();
    let mut server = sandbox.live_server();
    let listed = server.request("tools/list", json!({}));
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"ctx_execute"), "{names:?}");
    assert!(!names.contains(&"ctx_hook"), "{names:?}");
}

#[test]
fn a_served_redirect_is_journaled_and_timed_through_the_server() {
    let templates = served_templates();
    let sandbox = Sandbox::new();
    let mut server = sandbox.live_server();
    let payload = json!({
        "session_id": "served-1",
        "transcript_path": "",
        "cwd": sandbox.project,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "curl -s https://example.com/big.json"},
        "tool_use_id": "toolu_1"
    });
    let reply = served_reply(
        &mut server,
        &sandbox,
        &interpolate(&templates["pretooluse"], &payload),
    );
    let reply: Value = serde_json::from_str(&reply).expect("JSON reply");
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"], "deny",
        "{reply}"
    );
    let reason = reply["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .expect("reason");
    assert!(
        reason.contains("ctx_fetch_and_index") || reason.contains("ctx_execute"),
        "{reason}"
    );
    let (stats, _) = server.call_tool("ctx_stats", json!({}));
    assert!(stats.contains("pretooluse (served)"), "{stats}");
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
}

#[test]
fn a_call_that_cannot_be_answered_gets_the_allow_reply_and_one_log_line() {
    let sandbox = Sandbox::new();
    let mut server = sandbox.live_server();
    let (text, is_error) = server.call_tool(
        "ctx_hook",
        json!({"platform": "no-such-agent", "event": "pretooluse", "payload": {}}),
    );
    assert!(!is_error);
    assert_eq!(text, "");
    let (text, is_error) = server.call_tool(
        "ctx_hook",
        json!({"platform": "claude-code", "event": "pretooluse", "payload": {"cm_payload": "interpolated", "tool_input": "{not json"}}),
    );
    assert!(!is_error);
    assert_eq!(text, "", "the allow reply of Claude Code is no output");
    let errors = sandbox.hook_errors();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].contains("no-such-agent pretooluse: unknown platform"),
        "{errors:?}"
    );
    assert!(
        errors[1].contains("claude-code pretooluse: bad stdin"),
        "{errors:?}"
    );
    // The server is still there for the next call.
    let (text, _) = server.call_tool("ctx_stats", json!({}));
    assert!(!text.is_empty());
}

/// Golden cases a burst mixes: redirects, the user's deny rule, allows, a Read, a
/// PostToolUse; none needs another case run before it.
const BURST_CASES: [&str; 8] = [
    "curl",
    "sudo-chain",
    "git-status",
    "read-large",
    "webfetch",
    "grep",
    "read-small",
    "posttooluse-bash",
];

/// Sends `calls` served hooks at once (each in a session of its own, named after `tag`,
/// as the goldens were made) and returns each reply with the golden it must equal.
fn burst(
    server: &mut McpClient,
    sandbox: &Sandbox,
    templates: &BTreeMap<&'static str, Value>,
    calls: usize,
    tag: &str,
) -> Vec<(String, String, String)> {
    let mut sent = Vec::new();
    for i in 0..calls {
        let case = BURST_CASES[i % BURST_CASES.len()];
        let mut payload = CLAUDE.payload_value(sandbox, case);
        // The session is the transcript's (Claude Code keeps it across a resume).
        payload["session_id"] = json!(format!("{tag}-{i}"));
        payload["transcript_path"] = json!(format!("/tmp/{tag}-{i}.jsonl"));
        let template = &templates[CLAUDE.event_of(case, &payload).as_str()];
        let id = server.start_tool_call("ctx_hook", interpolate(template, &payload));
        sent.push((id, case));
    }
    let ids: Vec<u64> = sent.iter().map(|(id, _)| *id).collect();
    let replies = server.tool_replies(&ids);
    sent.iter()
        .map(|(id, case)| {
            let (_, text, is_error) = replies
                .iter()
                .find(|(reply_id, _, _)| reply_id == id)
                .expect("every call answered");
            assert!(!is_error, "{case}: ctx_hook answered an error: {text}");
            let golden = std::fs::read_to_string(CLAUDE.dir().join(format!("{case}.stdout")))
                .expect("golden stdout");
            let reply = text.replace(&*sandbox.project.to_string_lossy(), "__PROJECT__");
            ((*case).to_owned(), reply, golden)
        })
        .collect()
}

#[test]
fn a_burst_of_parallel_first_hooks_on_a_fresh_server_gets_every_right_reply() {
    let templates = served_templates();
    let sandbox = CLAUDE.project();
    // A fresh server: the burst is its first work, sent right after the handshake, while
    // it warms its adapter and policy chain in the background.
    let mut server = sandbox.live_server();
    for (case, reply, golden) in burst(&mut server, &sandbox, &templates, 16, "first") {
        assert_eq!(reply, golden, "{case}: a first served hook of a burst");
    }
    // The same burst on the now warm server: the instances loaded for it answer again.
    for (case, reply, golden) in burst(&mut server, &sandbox, &templates, 16, "warm") {
        assert_eq!(reply, golden, "{case}: a warm served hook of a burst");
    }
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
}

#[test]
fn a_served_hook_sent_during_a_large_index_gets_its_right_reply() {
    let templates = served_templates();
    let sandbox = CLAUDE.project();
    // A tree large enough that indexing it is still running when the hook arrives.
    let paragraph = "The ingest worker retries a failed batch with backoff; see retry_policy \
                     and the dead-letter queue for batches that exhaust their attempts.\n";
    for i in 0..400 {
        sandbox.write(
            &format!("tree/dir{}/notes{i}.md", i % 20),
            format!("# Notes {i}\n\n{}", paragraph.repeat(60)).as_bytes(),
        );
    }
    let mut server = sandbox.live_server();
    let index = server.start_tool_call("ctx_index", json!({"path": "tree"}));
    let mut sent = Vec::new();
    for case in ["curl", "sudo-chain", "git-status", "posttooluse-bash"] {
        let payload = CLAUDE.payload_value(&sandbox, case);
        let template = &templates[CLAUDE.event_of(case, &payload).as_str()];
        sent.push((
            server.start_tool_call("ctx_hook", interpolate(template, &payload)),
            case,
        ));
    }
    let search = server.start_tool_call("ctx_search", json!({"queries": ["retry_policy"]}));
    let mut ids: Vec<u64> = sent.iter().map(|(id, _)| *id).collect();
    ids.extend([index, search]);
    let replies = server.tool_replies(&ids);
    for (id, case) in &sent {
        let (_, text, is_error) = replies
            .iter()
            .find(|(reply_id, _, _)| reply_id == id)
            .expect("every call answered");
        assert!(!is_error, "{case}: {text}");
        let golden = std::fs::read_to_string(CLAUDE.dir().join(format!("{case}.stdout")))
            .expect("golden stdout");
        assert_eq!(
            text.replace(&*sandbox.project.to_string_lossy(), "__PROJECT__"),
            golden,
            "{case}: a served hook during an index"
        );
    }
    let (_, indexed, is_error) = replies
        .iter()
        .find(|(reply_id, _, _)| *reply_id == index)
        .expect("the index answered");
    assert!(!is_error, "{indexed}");
    assert!(indexed.starts_with("Indexed 400 files"), "{indexed}");
    let (_, searched, is_error) = replies
        .iter()
        .find(|(reply_id, _, _)| *reply_id == search)
        .expect("the search answered");
    assert!(!is_error, "{searched}");
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
}
