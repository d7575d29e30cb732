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
