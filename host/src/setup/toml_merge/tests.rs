use super::*;

const CODEX_USER: &str = r#"# Codex configuration
model = "o4-mini"

# the user's own server
[mcp_servers.other]
command = "other-mcp"
args = ["--stdio"]   # keep this comment

[features]
web_search = true
"#;

const CODEX_OURS: &str = r#"[mcp_servers.context-mode]
command = "/new/cm"
args = ["serve"]

[features]
hooks = true
"#;

#[test]
fn codex_config_keeps_comments_blank_lines_and_other_servers() {
    let merged = merge(Some(CODEX_USER), CODEX_OURS).unwrap();
    let text = &merged.text;
    for kept in [
        "# Codex configuration\nmodel = \"o4-mini\"\n\n# the user's own server\n[mcp_servers.other]",
        "args = [\"--stdio\"]   # keep this comment",
        "[features]\nweb_search = true\nhooks = true\n",
    ] {
        assert!(text.contains(kept), "{kept:?} not in:\n{text}");
    }
    let doc = to_value(text).unwrap();
    assert_eq!(doc["mcp_servers"]["other"]["command"], "other-mcp");
    assert_eq!(doc["mcp_servers"]["context-mode"]["command"], "/new/cm");
    assert_eq!(doc["mcp_servers"]["context-mode"]["args"][0], "serve");
    assert_eq!(doc["features"]["hooks"], true);
    assert!(text.contains("\n\n[mcp_servers.context-mode]"), "{text}");
    assert_eq!(merged.changes.len(), 2, "{:?}", merged.changes);
}

#[test]
fn a_second_merge_changes_nothing() {
    let first = merge(Some(CODEX_USER), CODEX_OURS).unwrap();
    let second = merge(Some(&first.text), CODEX_OURS).unwrap();
    assert!(second.changes.is_empty(), "{:?}", second.changes);
    assert_eq!(second.text, first.text);
}

#[test]
fn a_stale_cm_path_is_replaced_and_the_feature_flag_switched_on() {
    let stale = CODEX_USER.replace("web_search = true", "hooks = false")
        + "\n[mcp_servers.context-mode]\ncommand = \"/old/cm\" # ours, old\nargs = [\"serve\"]\n";
    let merged = merge(Some(&stale), CODEX_OURS).unwrap();
    let doc = to_value(&merged.text).unwrap();
    assert_eq!(doc["mcp_servers"]["context-mode"]["command"], "/new/cm");
    assert_eq!(doc["features"]["hooks"], true);
    assert!(
        merged.text.contains("command = \"/new/cm\" # ours, old"),
        "{}",
        merged.text
    );
    let removed = unmerge(&merged.text, &merged.ops).unwrap();
    assert_eq!(to_value(&removed.text).unwrap()["features"]["hooks"], false);
}

#[test]
fn unmerge_restores_the_users_document() {
    let merged = merge(Some(CODEX_USER), CODEX_OURS).unwrap();
    let removed = unmerge(&merged.text, &merged.ops).unwrap();
    assert_eq!(
        to_value(&removed.text).unwrap(),
        to_value(CODEX_USER).unwrap()
    );
    assert!(removed.text.contains("# keep this comment"));
    assert!(!removed.text.contains("context-mode"));
}

#[test]
fn new_file_and_array_entries() {
    let created = merge(None, CODEX_OURS).unwrap();
    assert_eq!(
        to_value(&created.text).unwrap(),
        to_value(CODEX_OURS).unwrap()
    );
    let user = "notify = [\"/old/cm hook codex stop\", \"say done\"]\n";
    let ours = "notify = [\"/new/cm hook codex stop\"]\n";
    let merged = merge(Some(user), ours).unwrap();
    assert_eq!(
        to_value(&merged.text).unwrap()["notify"],
        serde_json::json!(["/new/cm hook codex stop", "say done"])
    );
    assert!(
        merge(Some("a = "), ours)
            .unwrap_err()
            .to_string()
            .starts_with("is not valid TOML: ")
    );
}

/// An argv array naming an older `cm` is replaced whole, where it stood, not appended to.
#[test]
fn an_argv_array_of_an_older_cm_path_is_replaced_whole() {
    let user =
        "# mine\n[mcp.context-mode]\ncommand = [\"/old/cm\", \"serve\"] # ours\n\n[other]\nx = 1\n";
    let ours = "[mcp.context-mode]\ncommand = [\"/new/cm\", \"serve\"]\n";
    let merged = merge(Some(user), ours).unwrap();
    assert_eq!(merged.text, user.replace("/old/cm", "/new/cm"));
    assert!(merge(Some(&merged.text), ours).unwrap().changes.is_empty());
}

/// Kimi Code's `[[hooks]]` into a config that already has tables of the user's: every
/// new table goes after them, each after a blank line, none between the user's tables
/// (found by the real Kimi Code 2.1.0 run, where the first one landed inside them).
#[test]
fn a_new_array_of_tables_goes_after_the_users_tables() {
    let user = "default_model = \"e2e\"\n\n[providers.e2e]\ntype = \"openai\"\n\n[models.e2e]\nprovider = \"e2e\"\n";
    let ours = "[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"cm hook kimi pretooluse\"\n\n[[hooks]]\nevent = \"Stop\"\ncommand = \"cm hook kimi stop\"\n";
    let merged = merge(Some(user), ours).unwrap();
    assert_eq!(
        merged.text,
        format!("{user}\n{ours}"),
        "merged:\n{}",
        merged.text
    );
    assert!(merge(Some(&merged.text), ours).unwrap().changes.is_empty());
}
