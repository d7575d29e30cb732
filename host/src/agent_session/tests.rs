use super::*;

#[test]
fn shells_and_launchers_are_looked_past_and_agents_are_not() {
    for name in ["sh", "bash", "npx", "npm-cli", "cmd", "pwsh"] {
        assert!(is_launcher(name), "{name}");
    }
    for name in ["claude", "node", "codex", "gemini"] {
        assert!(!is_launcher(name), "{name}");
    }
}

#[test]
fn this_process_has_an_agent() {
    let agent = agent_of_this_process().expect("an ancestor");
    assert!(agent.pid > 1);
}

#[test]
fn the_server_follows_what_the_agents_hooks_announce() {
    let dir = tempfile::tempdir().expect("tempdir");
    let agent = AgentProcess {
        pid: 4242,
        started: 99,
    };
    let session = ServerSession::new(dir.path().to_path_buf(), Some(agent), None);
    assert_eq!(session.id(), "pid-4242", "derived before any hook");
    let env = ServerSession::new(
        dir.path().to_path_buf(),
        Some(agent),
        Some("from-env".into()),
    );
    assert_eq!(env.id(), "from-env");
    announce(
        dir.path(),
        agent,
        &Announcement {
            session_id: "s-1".into(),
            platform: "gemini-cli".into(),
            model: Some("gemini-2.5-pro".into()),
        },
    )
    .expect("announce");
    assert_eq!(session.id(), "s-1");
    assert_eq!(env.id(), "s-1", "a later /clear outranks the variable");
    assert_eq!(session.model().as_deref(), Some("gemini-2.5-pro"));
    // Another agent (or the same pid reused later) reads nothing of it.
    let other = AgentProcess {
        pid: 4242,
        started: 100,
    };
    assert_eq!(read(dir.path(), other), None);
    remove_departed(dir.path());
    assert_eq!(
        read(dir.path(), agent),
        None,
        "pid 4242 started at 99 is gone"
    );
}

#[test]
fn the_payload_model_is_read_leniently() {
    assert_eq!(
        payload_model(r#"{"model":"claude-sonnet-4-5"}"#).as_deref(),
        Some("claude-sonnet-4-5")
    );
    assert_eq!(
        payload_model(r#"{"model":{"id":"gpt-5","display_name":"GPT-5"}}"#).as_deref(),
        Some("gpt-5")
    );
    assert_eq!(payload_model(r#"{"model":7}"#), None);
    assert_eq!(payload_model("not json"), None);
}
