use super::*;
use serde_json::json;

const OURS: &str = r#"{
  "mcpServers": {
    "context-mode": {"type": "stdio", "command": "/new/cm", "args": ["serve"]}
  },
  "hooks": {
    "PreToolUse": [
      {"matcher": "^(Bash|Read)$", "hooks": [{"type": "command", "command": "/new/cm hook gemini-cli BeforeTool"}]}
    ]
  }
}"#;

const USER_JSONC: &str = r#"// Gemini CLI settings
{
  "theme": "dark", // the user's theme
  /* servers the user added */
  "mcpServers": {
    "github": {"command": "gh-mcp", "args": []}
  },
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh"}]}
    ]
  }
}
"#;

fn value(text: &str) -> Value {
    to_value(text).unwrap()
}

#[test]
fn jsonc_keeps_comments_order_and_the_users_entries() {
    let merged = merge(Some(USER_JSONC), OURS).unwrap();
    for kept in [
        "// Gemini CLI settings",
        "// the user's theme",
        "/* servers the user added */",
    ] {
        assert!(merged.text.contains(kept), "{kept} lost:\n{}", merged.text);
    }
    let doc = value(&merged.text);
    assert_eq!(doc["theme"], "dark");
    assert_eq!(doc["mcpServers"]["github"]["command"], "gh-mcp");
    assert_eq!(doc["mcpServers"]["context-mode"]["command"], "/new/cm");
    let pre = doc["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 2);
    assert_eq!(pre[0]["hooks"][0]["command"], "./lint.sh");
    // The user's keys stay first, in their order.
    let theme = merged.text.find("\"theme\"").unwrap();
    let servers = merged.text.find("\"mcpServers\"").unwrap();
    assert!(theme < servers);
    assert_eq!(merged.changes.len(), 2, "{:?}", merged.changes);
}

#[test]
fn a_second_merge_changes_nothing_and_keeps_the_bytes() {
    let first = merge(Some(USER_JSONC), OURS).unwrap();
    let second = merge(Some(&first.text), OURS).unwrap();
    assert!(second.changes.is_empty(), "{:?}", second.changes);
    assert!(second.ops.is_empty());
    assert_eq!(second.text, first.text);
}

#[test]
fn stale_entries_of_ours_are_replaced_not_duplicated() {
    let old = OURS
        .replace("/new/cm", "/old/bin/cm")
        .replace("^(Bash|Read)$", "Bash");
    let first = merge(Some(USER_JSONC), &old).unwrap();
    let second = merge(Some(&first.text), OURS).unwrap();
    let doc = value(&second.text);
    let pre = doc["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 2, "{}", second.text);
    assert_eq!(
        pre[1]["hooks"][0]["command"],
        "/new/cm hook gemini-cli BeforeTool"
    );
    assert_eq!(pre[1]["matcher"], "^(Bash|Read)$");
    assert_eq!(doc["mcpServers"]["context-mode"]["command"], "/new/cm");
    let lines: Vec<String> = second.changes.iter().map(Change::line).collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("\"/old/bin/cm\" → \"/new/cm\"")),
        "{lines:?}"
    );
}

#[test]
fn duplicates_of_ours_collapse_to_one() {
    let entry = json!({"matcher": "x", "hooks": [{"type": "command", "command": "/a/cm hook gemini-cli BeforeTool"}]});
    let user = json!({"hooks": {"PreToolUse": [entry.clone(), entry]}}).to_string();
    let merged = merge(Some(&user), OURS).unwrap();
    let doc = value(&merged.text);
    assert_eq!(doc["hooks"]["PreToolUse"].as_array().unwrap().len(), 1);
}

#[test]
fn unmerge_takes_out_only_what_was_added() {
    let merged = merge(Some(USER_JSONC), OURS).unwrap();
    // The user edits the file after setup.
    let edited = merged.text.replace("\"dark\"", "\"light\"");
    let removed = unmerge(&edited, &merged.ops).unwrap();
    let doc = value(&removed.text);
    assert_eq!(doc, value(&USER_JSONC.replace("\"dark\"", "\"light\"")));
    assert!(removed.text.contains("// the user's theme"));
    assert!(removed.notes.is_empty(), "{:?}", removed.notes);
}

#[test]
fn unmerge_of_a_created_section_keeps_what_the_user_added_to_it() {
    let merged = merge(Some("{}"), OURS).unwrap();
    let mut doc = value(&merged.text);
    doc["mcpServers"]["mine"] = json!({"command": "x"});
    let removed = unmerge(&serde_json::to_string_pretty(&doc).unwrap(), &merged.ops).unwrap();
    assert_eq!(
        value(&removed.text),
        json!({"mcpServers": {"mine": {"command": "x"}}})
    );
}

#[test]
fn a_replaced_scalar_gets_its_previous_value_back() {
    let user = r#"{"statusLine": {"type": "command", "command": "my-status"}}"#;
    let ours = r#"{"statusLine": {"type": "command", "command": "/new/cm statusline"}}"#;
    let merged = merge(Some(user), ours).unwrap();
    let removed = unmerge(&merged.text, &merged.ops).unwrap();
    assert_eq!(value(&removed.text), value(user));
}

#[test]
fn new_and_comment_only_files_and_bad_files() {
    let created = merge(None, OURS).unwrap();
    assert_eq!(value(&created.text), value(OURS));
    let comment_only = merge(Some("// nothing yet\n"), OURS).unwrap();
    assert!(comment_only.text.contains("// nothing yet"));
    assert_eq!(
        value(&comment_only.text)["mcpServers"]["context-mode"]["args"][0],
        "serve"
    );
    assert_eq!(
        merge(Some("[1, 2]"), OURS).unwrap_err(),
        crate::setup::ContentError::NotJsonObject
    );
    assert!(
        merge(Some("{\"a\": "), OURS)
            .unwrap_err()
            .to_string()
            .starts_with("is not valid JSON: ")
    );
}

/// OpenCode's and KiloCode's MCP entry runs an argv array: a `cm` that moved replaces
/// the array in place instead of having its new path appended to the old one.
#[test]
fn an_argv_array_of_an_older_cm_path_is_replaced_whole() {
    let user = r#"{
  "mcp": {
    "github": {"type": "remote", "url": "https://example.com/mcp"},
    "context-mode": {"type": "local", "command": ["/old/path/cm", "serve"], "enabled": true}
  }
}
"#;
    let ours = r#"{"mcp": {"context-mode": {"type": "local", "command": ["/new/path/cm", "serve"], "enabled": true}}}"#;
    let merged = merge(Some(user), ours).unwrap();
    let doc = value(&merged.text);
    assert_eq!(
        doc["mcp"]["context-mode"]["command"],
        json!(["/new/path/cm", "serve"]),
        "{}",
        merged.text
    );
    assert_eq!(doc["mcp"]["github"]["type"], "remote");
    // Same place in the file: only the path changed.
    assert_eq!(merged.text, user.replace("/old/path/cm", "/new/path/cm"));
    assert_eq!(merged.changes.len(), 1, "{:?}", merged.changes);
    assert!(merge(Some(&merged.text), ours).unwrap().changes.is_empty());
    // `--remove` after the move takes the setting back out.
    let removed = unmerge(&merged.text, &merged.ops).unwrap();
    assert_eq!(removed.text, user);
}
