//! OpenCode hook behaviour beyond one golden reply (each golden case runs in
//! `hook_goldens`).

use crate::common;

use common::golden::Golden;

const OPENCODE: Golden = Golden {
    platform: "opencode",
};

/// A user who registered `cm serve` under their own name in `opencode.json` (`mcp`,
/// with OpenCode's argv `command`) is told the tool names OpenCode shows for it.
#[test]
fn redirects_name_the_tools_under_the_server_name_in_opencode_json() {
    let sandbox = OPENCODE.project();
    let _server = sandbox.live_server();
    let reply = OPENCODE.run(&sandbox, "curl");
    assert!(
        reply.contains("redirected to context-mode_ctx_execute("),
        "{reply}"
    );
    let config = sandbox.home.join(".config/opencode");
    std::fs::create_dir_all(&config).expect("mkdir");
    std::fs::write(
        config.join("opencode.json"),
        r#"{"mcp":{"search":{"type":"remote","url":"http://127.0.0.1:9"},"ctx":{"type":"local","command":["/opt/bin/cm","serve"]}}}"#,
    )
    .expect("write opencode.json");
    let reply = OPENCODE.run(&sandbox, "curl");
    assert!(reply.contains("redirected to ctx_ctx_execute("), "{reply}");
    assert!(!reply.contains("context-mode_ctx_"), "{reply}");
}
