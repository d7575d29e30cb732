//! The config edits that register context-mode with Cursor, for one project
//! (`{project}/.cursor/…`) or for every project (`~/.cursor/…`):
//!
//! - MCP server: `.cursor/mcp.json` `mcpServers.context-mode`;
//! - hooks: `.cursor/hooks.json`, version 1, flat `{command, matcher}` entries per
//!   event; the tool matchers skip our own tools (`MCP:ctx_*`);
//! - instructions (optional, project only: Cursor keeps user rules in its settings,
//!   not in files): `.cursor/rules/context-mode.mdc` with `alwaysApply: true`.

use context_mode_sdk::json::to_pretty;
use context_mode_sdk::serde_json::Value;
use context_mode_sdk::setup::{cm_command, escape, hook_command, not_starting_with};
use context_mode_sdk::{EventKind, JsonObject};

use crate::ADAPTER_ID;
use crate::describe::EVENTS;
use context_mode_sdk::adapter::{ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan};

const RULES_TEXT: &str = include_str!("../../../../configs/cursor/context-mode.mdc");

const PRE_TOOL_BUILTINS: &[&str] = &["Shell", "Read", "Grep", "Glob", "WebFetch", "Task"];
const POST_TOOL_BUILTINS: &[&str] = &[
    "Shell", "Read", "Grep", "Glob", "WebFetch", "Task", "Write", "Edit", "Delete",
];

/// Cursor names MCP tools `MCP:<tool>` in hooks: match every one but `ctx_*`.
fn tool_matcher(builtins: &[&str]) -> String {
    let names: Vec<String> = builtins.iter().map(|name| escape(name)).collect();
    format!(
        "^({})$|^MCP:{}.*$",
        names.join("|"),
        not_starting_with("ctx_")
    )
}

fn matcher(kind: EventKind) -> Option<String> {
    match kind {
        EventKind::PreToolUse => Some(tool_matcher(PRE_TOOL_BUILTINS)),
        EventKind::PostToolUse => Some(tool_matcher(POST_TOOL_BUILTINS)),
        _ => None,
    }
}

pub fn plan(input: &SetupInput) -> SetupPlan {
    let cm = cm_command(&input.cm_command);
    let base = if input.project_dir.is_some() {
        "{project}/.cursor"
    } else {
        "~/.cursor"
    };
    let mut edits = vec![mcp_edit(cm, base), hooks_edit(cm, base)];
    if input.project_dir.is_some() {
        edits.push(rules_edit());
    }
    SetupPlan { edits }
}

fn scope(base: &str) -> &'static str {
    if base.starts_with('~') {
        "every project"
    } else {
        "this project"
    }
}

fn mcp_edit(cm: &str, base: &str) -> ConfigEdit {
    let server = JsonObject::new()
        .put("command", cm)
        .put("args", Value::Array(vec![Value::from("serve")]));
    let document =
        JsonObject::new().put("mcpServers", JsonObject::new().put("context-mode", server));
    ConfigEdit {
        kind: EditKind::McpServer,
        file: format!("{base}/mcp.json"),
        format: ConfigFormat::Json,
        content: to_pretty(&document.into_value()),
        summary: format!(
            "Register the context-mode MCP server (cm serve) with Cursor for {}",
            scope(base)
        ),
        optional: false,
    }
}

fn hooks_edit(cm: &str, base: &str) -> ConfigEdit {
    let hooks = EVENTS.iter().fold(JsonObject::new(), |hooks, event| {
        let entry = JsonObject::new()
            .put("command", hook_command(cm, ADAPTER_ID, event.cli))
            .put_opt("matcher", matcher(event.kind));
        hooks.put(event.name, Value::Array(vec![entry.into()]))
    });
    let document = JsonObject::new().put("version", 1).put("hooks", hooks);
    ConfigEdit {
        kind: EditKind::Hooks,
        file: format!("{base}/hooks.json"),
        format: ConfigFormat::Json,
        content: to_pretty(&document.into_value()),
        summary: format!(
            "Register context-mode hooks for Cursor's preToolUse, postToolUse, stop and afterAgentResponse events for {}",
            scope(base)
        ),
        optional: false,
    }
}

fn rules_edit() -> ConfigEdit {
    ConfigEdit {
        kind: EditKind::Instructions,
        file: "{project}/.cursor/rules/context-mode.mdc".to_owned(),
        format: ConfigFormat::Text,
        content: RULES_TEXT.to_owned(),
        summary: "Add a Cursor rule with context-mode's routing instructions to this project"
            .to_owned(),
        optional: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::parse_object;

    fn input(cm: &str, project: Option<&str>) -> SetupInput {
        SetupInput {
            cm_command: cm.to_owned(),
            project_dir: project.map(str::to_owned),
        }
    }

    fn matches(matcher: &str, tool: &str) -> bool {
        let search = fancy_regex::Regex::new(matcher).unwrap();
        let full = fancy_regex::Regex::new(&format!("^(?:{matcher})$")).unwrap();
        let found = search.is_match(tool).unwrap();
        assert_eq!(found, full.is_match(tool).unwrap(), "{matcher} on {tool}");
        found
    }

    #[test]
    fn project_plan_has_mcp_hooks_and_rules() {
        let plan = plan(&input("/opt/cm", Some("/home/dev/app")));
        let files: Vec<(EditKind, &str, bool)> = plan
            .edits
            .iter()
            .map(|e| (e.kind, e.file.as_str(), e.optional))
            .collect();
        assert_eq!(
            files,
            [
                (EditKind::McpServer, "{project}/.cursor/mcp.json", false),
                (EditKind::Hooks, "{project}/.cursor/hooks.json", false),
                (
                    EditKind::Instructions,
                    "{project}/.cursor/rules/context-mode.mdc",
                    true
                ),
            ]
        );
        let mcp = parse_object(&plan.edits[0].content).unwrap();
        assert_eq!(mcp["mcpServers"]["context-mode"]["command"], "/opt/cm");
        assert_eq!(mcp["mcpServers"]["context-mode"]["args"][0], "serve");
        let rules = &plan.edits[2].content;
        assert!(rules.starts_with("---\ndescription: "));
        assert!(rules.contains("\nalwaysApply: true\n---\n"));
    }

    #[test]
    fn global_plan_has_no_rules_file() {
        let plan = plan(&input("cm", None));
        let files: Vec<&str> = plan.edits.iter().map(|e| e.file.as_str()).collect();
        assert_eq!(files, ["~/.cursor/mcp.json", "~/.cursor/hooks.json"]);
    }

    #[test]
    fn hooks_json_is_version_1_with_flat_entries() {
        let plan = plan(&input("/Users/Jane Doe/cm", None));
        let doc = parse_object(&plan.edits[1].content).unwrap();
        assert_eq!(doc["version"], 1);
        let hooks = doc["hooks"].as_object().unwrap();
        let events: Vec<&str> = hooks.keys().map(String::as_str).collect();
        assert_eq!(
            events,
            ["preToolUse", "postToolUse", "stop", "afterAgentResponse"]
        );
        assert_eq!(
            hooks["preToolUse"][0]["command"],
            r#""/Users/Jane Doe/cm" hook cursor pretooluse"#
        );
        assert!(hooks["stop"][0].get("matcher").is_none());
    }

    #[test]
    fn matchers_skip_our_mcp_tools() {
        let plan = plan(&input("cm", None));
        let doc = parse_object(&plan.edits[1].content).unwrap();
        let pre = doc["hooks"]["preToolUse"][0]["matcher"].as_str().unwrap();
        for tool in [
            "Shell",
            "Read",
            "Grep",
            "MCP:list_issues",
            "MCP:context7_docs",
        ] {
            assert!(matches(pre, tool), "{tool}");
        }
        for tool in ["MCP:ctx_execute", "MCP:ctx_search", "Write", "Shellx"] {
            assert!(!matches(pre, tool), "{tool}");
        }
        let post = doc["hooks"]["postToolUse"][0]["matcher"].as_str().unwrap();
        assert!(matches(post, "Write") && !matches(post, "MCP:ctx_index"));
    }
}
