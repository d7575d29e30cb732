use super::*;

/// The key and hash Codex 0.171.0 itself reported (`codex app-server`, `hooks/list`)
/// for this hooks.json at /tmp/cxh/home/hooks.json.
#[test]
fn codex_hook_key_and_hash_match_what_codex_reports() {
    let hooks: Value = serde_json::from_str(
        r#"{"hooks":{"PreToolUse":[{"matcher":"^Bash$","hooks":[{"type":"command","command":"cm hook codex pretooluse"}]}]}}"#,
    )
    .expect("json");
    let found = codex_hooks(Path::new("/tmp/cxh/home/hooks.json"), &hooks);
    assert_eq!(
        found,
        [CodexHook {
            key: "/tmp/cxh/home/hooks.json:pre_tool_use:0:0".into(),
            hash: "sha256:b2d28e125b1f662aebdace69f31643911a127b77779dfd57d2dc7cc5c0804cc6".into(),
        }]
    );
    let config: toml::Table = format!(
        "[hooks.state.\"{}\"]\ntrusted_hash = \"{}\"\n",
        found[0].key, found[0].hash
    )
    .parse()
    .expect("toml");
    assert!(untrusted(&found, &config).is_empty());
    assert_eq!(untrusted(&found, &toml::Table::new()).len(), 1);
}

#[test]
fn gemini_trust_follows_the_longest_rule() {
    let home = tempfile::tempdir().expect("tempdir");
    let project = home.path().join("work/app");
    std::fs::create_dir_all(&project).expect("mkdir");
    std::fs::create_dir_all(home.path().join(".gemini")).expect("mkdir");
    assert!(!gemini_trusts(home.path(), &project));
    let work = home.path().join("work").canonical().expect("canon");
    let rules = json!({ work.display().to_string(): "TRUST_FOLDER" });
    std::fs::write(
        home.path().join(".gemini/trustedFolders.json"),
        rules.to_string(),
    )
    .expect("write");
    assert!(gemini_trusts(home.path(), &project));
    let app = project.canonical().expect("canon");
    let rules = json!({ work.display().to_string(): "TRUST_FOLDER", app.display().to_string(): "DO_NOT_TRUST" });
    std::fs::write(
        home.path().join(".gemini/trustedFolders.json"),
        rules.to_string(),
    )
    .expect("write");
    assert!(!gemini_trusts(home.path(), &project));
}
