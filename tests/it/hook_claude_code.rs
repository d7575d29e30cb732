//! Claude Code hook behaviour beyond one golden reply (each golden case runs in
//! `hook_goldens`): the once-per-session nudge and what holds without a live server.
//! Replies are compared with `tests/golden/claude-code/<case>.stdout`; regenerate after
//! an intended change with `UPDATE_GOLDEN=1 cargo test -p cm --test it hook_` and review
//! the diff.

use crate::common;

use common::golden::Golden;

const CLAUDE: Golden = Golden {
    platform: "claude-code",
};

#[test]
fn grep_nudges_once_then_stays_silent_in_the_same_session() {
    let sandbox = CLAUDE.project();
    let _server = sandbox.live_server();
    let first = CLAUDE.run(&sandbox, "grep");
    CLAUDE.assert_golden("grep", &first);
    assert!(
        first.contains("additionalContext"),
        "first grep gets the nudge: {first}"
    );
    assert_eq!(
        CLAUDE.run(&sandbox, "grep"),
        "",
        "second grep of the session is silent"
    );
}

#[test]
fn without_a_live_server_redirects_pass_through() {
    let sandbox = CLAUDE.project();
    for case in [
        "webfetch",
        "mcp-fetch",
        "curl",
        "python-requests",
        "gradlew",
        "read-large",
        "task-launch",
        "grep",
    ] {
        assert_eq!(
            CLAUDE.run(&sandbox, case),
            "",
            "{case} must pass through with no live server"
        );
    }
}

#[test]
fn without_a_live_server_security_denials_still_apply() {
    let sandbox = CLAUDE.project();
    let reply = CLAUDE.run(&sandbox, "sudo-chain");
    CLAUDE.assert_golden("sudo-chain", &reply);
}

/// The redirect names our tools as Claude Code shows them for the way we are
/// registered: a user's own `mcpServers` entry under another name, a marketplace
/// plugin (`plugin:<plugin>:<server>`), or `CONTEXT_MODE_SERVER_NAME`.
#[test]
fn redirects_name_the_tools_under_the_registered_server_name() {
    let sandbox = CLAUDE.project();
    let _server = sandbox.live_server();
    std::fs::write(
        sandbox.home.join(".claude.json"),
        r#"{"mcpServers":{"my ctx":{"type":"stdio","command":"/opt/bin/cm","args":["serve"]}}}"#,
    )
    .expect("write ~/.claude.json");
    let reply = CLAUDE.run(&sandbox, "curl");
    assert!(
        reply.contains("redirected to mcp__my_ctx__ctx_execute(")
            && reply.contains("select:mcp__my_ctx__ctx_execute"),
        "{reply}"
    );
    assert!(!reply.contains("mcp__context-mode__"), "{reply}");

    let plugin = sandbox.home.join("plugins/cm");
    std::fs::create_dir_all(plugin.join(".claude-plugin")).expect("mkdir");
    std::fs::write(
        plugin.join(".claude-plugin/plugin.json"),
        r#"{"name":"context-mode","mcpServers":{"context-mode":{"command":"cm","args":["serve"]}}}"#,
    )
    .expect("write plugin.json");
    let payload = CLAUDE.payload_value(&sandbox, "curl").to_string();
    let mut command = sandbox.cm();
    command.env("CLAUDE_PLUGIN_ROOT", &plugin);
    let output = sandbox.hook_with(command, "claude-code", "pretooluse", payload.as_bytes());
    let reply = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(
        reply.contains("redirected to mcp__plugin_context-mode_context-mode__ctx_execute("),
        "{reply}"
    );

    let mut command = sandbox.cm();
    command.env("CONTEXT_MODE_SERVER_NAME", "ctx.dev");
    let output = sandbox.hook_with(command, "claude-code", "pretooluse", payload.as_bytes());
    let reply = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(
        reply.contains("redirected to mcp__ctx_dev__ctx_execute("),
        "{reply}"
    );
}

/// `CONTEXT_MODE_EXTERNAL_MCP_NUDGE_EVERY`: a call of another MCP server's tool gets
/// the large-payload tip on the 1st, (N+1)th… call of the session (default 10).
#[test]
fn external_mcp_calls_get_the_tip_every_nth_call() {
    // Each cadence in its own sandbox: one data root, one session count.
    let calls = |every: Option<&str>, n: usize| -> Vec<String> {
        let sandbox = CLAUDE.project();
        let _server = sandbox.live_server();
        // A first hook compiles the adapters into this sandbox's cache, uncounted.
        CLAUDE.run(&sandbox, "stop");
        let mut payload = CLAUDE.payload_value(&sandbox, "curl");
        payload["tool_name"] = "mcp__github__list_issues".into();
        payload["tool_input"] = serde_json::json!({ "repo": "x/y" });
        (0..n)
            .map(|_| {
                let mut command = sandbox.cm();
                if let Some(every) = every {
                    command.env("CONTEXT_MODE_EXTERNAL_MCP_NUDGE_EVERY", every);
                }
                let output = sandbox.hook_with(
                    command,
                    "claude-code",
                    "pretooluse",
                    payload.to_string().as_bytes(),
                );
                assert_eq!(output.status.code(), Some(0));
                String::from_utf8(output.stdout).expect("UTF-8")
            })
            .collect()
    };
    let replies = calls(None, 11);
    assert!(
        replies[0].contains("another MCP server's tool")
            && replies[0].contains("mcp__context-mode__ctx_index(content, source)"),
        "{}",
        replies[0]
    );
    assert!(replies[1..10].iter().all(String::is_empty), "{replies:?}");
    assert!(
        replies[10].contains("another MCP server's tool"),
        "{}",
        replies[10]
    );
    let shown =
        |replies: Vec<String>| -> Vec<bool> { replies.iter().map(|r| !r.is_empty()).collect() };
    assert_eq!(shown(calls(Some("2"), 4)), [true, false, true, false]);
    // Out of range means the default.
    assert_eq!(shown(calls(Some("0"), 3)), [true, false, false]);
}
