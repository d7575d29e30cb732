use super::*;

fn json_file(dir: &Path, name: &str, text: &str) -> McpConfigFile {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    McpConfigFile {
        path,
        format: ConfigFormat::Json,
        servers_at: Vec::new(),
    }
}

fn no_env(_: &str) -> Option<String> {
    None
}

#[test]
fn a_users_own_entry_under_another_name_is_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = json_file(
        dir.path(),
        "claude.json",
        r#"{"mcpServers":{"github":{"command":"gh-mcp"},"ctx":{"command":"/opt/cm","args":["serve"]}}}"#,
    );
    let name = registered(dir.path(), "claude-code", Path::new("/p"), &[file], &no_env);
    assert_eq!(name, "ctx");
}

#[test]
fn the_projects_own_scope_wins_and_the_default_is_the_fallback() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = json_file(
        dir.path(),
        "claude.json",
        r#"{"mcpServers":{"context-mode":{"command":"cm","args":["serve"]}},
            "projects":{"/p":{"mcpServers":{"local-ctx":{"command":"cm","args":["serve"]}}}}}"#,
    );
    let files = [file];
    assert_eq!(
        registered(dir.path(), "claude-code", Path::new("/p"), &files, &no_env),
        "local-ctx"
    );
    assert_eq!(
        registered(dir.path(), "claude-code", Path::new("/q"), &files, &no_env),
        "context-mode"
    );
    assert_eq!(
        registered(dir.path(), "claude-code", Path::new("/p"), &[], &no_env),
        MCP_SERVER_NAME
    );
}

#[test]
fn codex_toml_and_the_cache_follows_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    std::fs::write(
        &path,
        "[mcp_servers.ctx-x]\ncommand = \"cm\"\nargs = [\"serve\"]\n",
    )
    .expect("write");
    let files = [McpConfigFile {
        path: path.clone(),
        format: ConfigFormat::Toml,
        servers_at: Vec::new(),
    }];
    assert_eq!(
        registered(dir.path(), "codex", Path::new("/p"), &files, &no_env),
        "ctx-x"
    );
    // A changed file (another size) is read again, not answered from the cache.
    std::fs::write(
        &path,
        "[mcp_servers.other-name]\ncommand = \"cm\"\nargs = [\"serve\"]\n",
    )
    .expect("write");
    assert_eq!(
        registered(dir.path(), "codex", Path::new("/p"), &files, &no_env),
        "other-name"
    );
}

#[test]
fn the_variable_and_a_claude_plugin_name_the_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let env = |name: &str| (name == SERVER_NAME_ENV).then(|| " mine ".to_string());
    assert_eq!(
        registered(dir.path(), "codex", Path::new("/p"), &[], &env),
        "mine"
    );
    let plugin = dir.path().join("plugin");
    std::fs::create_dir_all(plugin.join(".claude-plugin")).expect("mkdir");
    std::fs::write(
        plugin.join(".claude-plugin/plugin.json"),
        r#"{"name":"context-mode"}"#,
    )
    .expect("write");
    std::fs::write(
        plugin.join(".mcp.json"),
        r#"{"mcpServers":{"context-mode":{"command":"cm","args":["serve"]}}}"#,
    )
    .expect("write");
    let root = plugin.display().to_string();
    let env = move |name: &str| (name == "CLAUDE_PLUGIN_ROOT").then(|| root.clone());
    assert_eq!(
        registered(dir.path(), "claude-code", Path::new("/p"), &[], &env),
        "plugin:context-mode:context-mode"
    );
}

/// The repository's own Claude Code plugin (its `.mcp.json` runs `<launcher> serve`).
#[test]
fn the_repositorys_claude_plugin_names_its_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plugin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/claude-code/plugin");
    let root = plugin.display().to_string();
    let env = move |name: &str| (name == "CLAUDE_PLUGIN_ROOT").then(|| root.clone());
    assert_eq!(
        registered(dir.path(), "claude-code", Path::new("/p"), &[], &env),
        "plugin:context-mode:context-mode"
    );
}

#[test]
fn the_plans_own_server_key_and_an_argv_command_are_read() {
    // OpenCode keeps servers under `mcp`, its command an argv array.
    let planned = r#"{"mcp":{"context-mode":{"type":"local","command":["cm","serve"]}}}"#;
    assert_eq!(
        servers_path(planned, ConfigFormat::Json),
        Some(vec!["mcp".to_owned()])
    );
    let openclaw = r#"{"mcp":{"servers":{"context-mode":{"command":"cm","args":["serve"]}}}}"#;
    assert_eq!(
        servers_path(openclaw, ConfigFormat::Json),
        Some(vec!["mcp".to_owned(), "servers".to_owned()])
    );
    assert_eq!(servers_path("{}", ConfigFormat::Json), None);

    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("opencode.json");
    std::fs::write(
        &path,
        r#"{"mcp":{"search":{"type":"remote","url":"http://x"},"ctx":{"type":"local","command":["/opt/bin/cm","serve"]}}}"#,
    )
    .expect("write");
    let files = [McpConfigFile {
        path,
        format: ConfigFormat::Json,
        servers_at: vec!["mcp".to_owned()],
    }];
    assert_eq!(
        registered(dir.path(), "opencode", Path::new("/p"), &files, &no_env),
        "ctx"
    );
}

#[test]
fn the_cached_answer_stands_for_its_plan_until_a_file_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = json_file(
        dir.path(),
        "claude.json",
        r#"{"mcpServers":{"ctx":{"command":"cm","args":["serve"]}}}"#,
    );
    let project = Path::new("/p");
    let files = [file.clone()];
    assert_eq!(
        registered_for(
            dir.path(),
            "claude-code",
            project,
            &files,
            &no_env,
            "plan-a"
        ),
        "ctx"
    );
    // Without asking the adapter for its plan: same plan, same project, same files.
    assert_eq!(
        cached_by_stamps(dir.path(), "claude-code", project, "plan-a").as_deref(),
        Some("ctx")
    );
    // Another plan (another cm, adapter, HOME or variable) or project asks again.
    assert_eq!(
        cached_by_stamps(dir.path(), "claude-code", project, "plan-b"),
        None
    );
    assert_eq!(
        cached_by_stamps(dir.path(), "claude-code", Path::new("/q"), "plan-a"),
        None
    );
    // So does a file that changed since.
    std::fs::write(
        &file.path,
        r#"{"mcpServers":{"renamed-ctx":{"command":"cm","args":["serve"]}}}"#,
    )
    .expect("write");
    assert_eq!(
        cached_by_stamps(dir.path(), "claude-code", project, "plan-a"),
        None
    );
    assert_eq!(
        registered_for(
            dir.path(),
            "claude-code",
            project,
            &files,
            &no_env,
            "plan-a"
        ),
        "renamed-ctx"
    );
}
