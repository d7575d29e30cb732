//! The config edits that register context-mode with Gemini CLI, all in the user's
//! `~/.gemini/settings.json` (every project), plus an optional instruction file:
//!
//! - MCP server: `mcpServers.context-mode` runs `cm serve`;
//! - hooks: `hooks.<Event>[{matcher, hooks[]}]`, the tool matchers limited to the
//!   tools whose output can be large and to other MCP servers, never our own tools;
//! - feature: `hooksConfig.enabled`, which Gemini CLI's stable channel needs;
//! - instructions (optional): `~/.gemini/context-mode.md`, loaded like GEMINI.md once
//!   its name is in `context.fileName` (the user's own GEMINI.md stays untouched).

use context_mode_sdk::json::to_pretty;
use context_mode_sdk::serde_json::Value;
use context_mode_sdk::setup::{cm_command, hook_command, tool_matcher};
use context_mode_sdk::{EventKind, JsonObject};

use crate::ADAPTER_ID;
use crate::describe::EVENTS;
use context_mode_sdk::adapter::{ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan};

const SETTINGS: &str = "~/.gemini/settings.json";
const ROUTING_FILE_NAME: &str = "context-mode.md";
const ROUTING_TEXT: &str = include_str!("../../../../configs/gemini-cli/context-mode.md");

/// Built-in tools whose output can be large: the calls the routing policy acts on.
const BEFORE_TOOL_BUILTINS: &[&str] = &[
    "run_shell_command",
    "read_file",
    "read_many_files",
    "grep_search",
    "search_file_content",
    "web_fetch",
];
/// Built-in tools whose results feed the session journal (edits, skills, todos too).
const AFTER_TOOL_BUILTINS: &[&str] = &[
    "run_shell_command",
    "read_file",
    "read_many_files",
    "grep_search",
    "search_file_content",
    "glob",
    "web_fetch",
    "google_web_search",
    "write_file",
    "replace",
    "activate_skill",
    "write_todos",
    "save_memory",
];

fn matcher(kind: EventKind) -> Option<String> {
    match kind {
        EventKind::PreToolUse => Some(other_tools(BEFORE_TOOL_BUILTINS)),
        EventKind::PostToolUse => Some(other_tools(AFTER_TOOL_BUILTINS)),
        // Lifecycle events match every source and trigger without a matcher.
        _ => None,
    }
}

/// `builtins`, or a tool of another MCP server: Gemini names those `mcp_<server>_<tool>`.
fn other_tools(builtins: &[&str]) -> String {
    let ours = crate::describe::ctx_tool_name(MCP_SERVER, "ctx_execute");
    tool_matcher(builtins, "mcp_", &ours)
}

/// The name setup registers the MCP server under.
const MCP_SERVER: &str = "context-mode";

pub fn plan(input: &SetupInput) -> SetupPlan {
    let cm = cm_command(&input.cm_command);
    SetupPlan {
        edits: vec![
            mcp_edit(cm),
            hooks_edit(cm),
            feature_edit(),
            routing_file_edit(),
            routing_context_edit(),
        ],
    }
}

fn json_edit(kind: EditKind, document: JsonObject, summary: &str, optional: bool) -> ConfigEdit {
    ConfigEdit {
        kind,
        file: SETTINGS.to_owned(),
        format: ConfigFormat::Json,
        content: to_pretty(&document.into_value()),
        summary: summary.to_owned(),
        optional,
    }
}

fn mcp_edit(cm: &str) -> ConfigEdit {
    let server = JsonObject::new()
        .put("command", cm)
        .put("args", Value::Array(vec![Value::from("serve")]));
    json_edit(
        EditKind::McpServer,
        JsonObject::new().put("mcpServers", JsonObject::new().put("context-mode", server)),
        "Register the context-mode MCP server (cm serve) for every Gemini CLI project",
        false,
    )
}

fn hooks_edit(cm: &str) -> ConfigEdit {
    let hooks = EVENTS.iter().fold(JsonObject::new(), |hooks, event| {
        let handler = JsonObject::new()
            .put("name", "context-mode")
            .put("type", "command")
            .put("command", hook_command(cm, ADAPTER_ID, event.cli));
        let definition = JsonObject::new()
            .put_opt("matcher", matcher(event.kind))
            .put("hooks", Value::Array(vec![handler.into()]));
        hooks.put(event.name, Value::Array(vec![definition.into()]))
    });
    json_edit(
        EditKind::Hooks,
        JsonObject::new().put("hooks", hooks),
        "Register context-mode hooks for Gemini CLI's BeforeTool, AfterTool, PreCompress, SessionStart and BeforeAgent events",
        false,
    )
}

fn feature_edit() -> ConfigEdit {
    json_edit(
        EditKind::Feature,
        JsonObject::new().put("hooksConfig", JsonObject::new().put("enabled", true)),
        "Turn on Gemini CLI's hook system (off by default on its stable channel)",
        false,
    )
}

fn routing_file_edit() -> ConfigEdit {
    ConfigEdit {
        kind: EditKind::Instructions,
        file: format!("~/.gemini/{ROUTING_FILE_NAME}"),
        format: ConfigFormat::Text,
        content: ROUTING_TEXT.to_owned(),
        summary: "Add context-mode routing instructions for Gemini CLI in every project".to_owned(),
        optional: true,
    }
}

/// Gemini CLI loads every file named in `context.fileName`; GEMINI.md stays first.
fn routing_context_edit() -> ConfigEdit {
    let names = Value::Array(vec![
        Value::from("GEMINI.md"),
        Value::from(ROUTING_FILE_NAME),
    ]);
    json_edit(
        EditKind::Instructions,
        JsonObject::new().put("context", JsonObject::new().put("fileName", names)),
        "Let Gemini CLI load context-mode.md beside GEMINI.md",
        true,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::parse_object;
    use context_mode_sdk::serde_json::Map;

    fn input(cm: &str) -> SetupInput {
        SetupInput {
            cm_command: cm.to_owned(),
            project_dir: None,
        }
    }

    fn doc(edit: &ConfigEdit) -> Map<String, Value> {
        parse_object(&edit.content).unwrap()
    }

    fn edit_of(plan: &SetupPlan, kind: EditKind) -> &ConfigEdit {
        plan.edits.iter().find(|e| e.kind == kind).unwrap()
    }

    fn matches(matcher: &str, tool: &str) -> bool {
        let search = fancy_regex::Regex::new(matcher).unwrap();
        let full = fancy_regex::Regex::new(&format!("^(?:{matcher})$")).unwrap();
        let found = search.is_match(tool).unwrap();
        assert_eq!(found, full.is_match(tool).unwrap(), "{matcher} on {tool}");
        found
    }

    #[test]
    fn every_edit_has_a_kind_and_a_file() {
        let plan = plan(&input("/usr/local/bin/cm"));
        let kinds: Vec<(EditKind, &str, bool)> = plan
            .edits
            .iter()
            .map(|e| (e.kind, e.file.as_str(), e.optional))
            .collect();
        assert_eq!(
            kinds,
            [
                (EditKind::McpServer, SETTINGS, false),
                (EditKind::Hooks, SETTINGS, false),
                (EditKind::Feature, SETTINGS, false),
                (EditKind::Instructions, "~/.gemini/context-mode.md", true),
                (EditKind::Instructions, SETTINGS, true),
            ]
        );
        for edit in &plan.edits {
            assert!(!edit.summary.is_empty() && !edit.summary.contains('\n'));
        }
    }

    #[test]
    fn mcp_server_and_feature_documents() {
        let plan = plan(&input("/opt/cm"));
        let mcp = doc(edit_of(&plan, EditKind::McpServer));
        assert_eq!(mcp["mcpServers"]["context-mode"]["command"], "/opt/cm");
        assert_eq!(mcp["mcpServers"]["context-mode"]["args"][0], "serve");
        let feature = doc(edit_of(&plan, EditKind::Feature));
        assert_eq!(feature["hooksConfig"]["enabled"], true);
    }

    #[test]
    fn hooks_run_cm_for_the_five_events() {
        let plan = plan(&input("/Users/Jane Doe/cm"));
        let hooks = doc(edit_of(&plan, EditKind::Hooks));
        let hooks = hooks["hooks"].as_object().unwrap();
        let events: Vec<&str> = hooks.keys().map(String::as_str).collect();
        assert_eq!(
            events,
            [
                "BeforeTool",
                "AfterTool",
                "PreCompress",
                "SessionStart",
                "BeforeAgent"
            ]
        );
        assert_eq!(
            hooks["BeforeTool"][0]["hooks"][0]["command"],
            r#""/Users/Jane Doe/cm" hook gemini-cli beforetool"#
        );
        assert_eq!(hooks["BeforeTool"][0]["hooks"][0]["type"], "command");
        assert!(hooks["SessionStart"][0].get("matcher").is_none());
        assert_eq!(
            hooks["PreCompress"][0]["hooks"][0]["command"],
            r#""/Users/Jane Doe/cm" hook gemini-cli precompress"#
        );
    }

    #[test]
    fn tool_matchers_never_fire_on_our_tools() {
        let plan = plan(&input("cm"));
        let hooks = doc(edit_of(&plan, EditKind::Hooks));
        let before = hooks["hooks"]["BeforeTool"][0]["matcher"].as_str().unwrap();
        for tool in [
            "run_shell_command",
            "read_file",
            "read_many_files",
            "grep_search",
            "search_file_content",
            "web_fetch",
            "mcp_github_list_issues",
            "mcp_context-mode_status",
            "mcp_context_ctx_x",
        ] {
            assert!(matches(before, tool), "{tool}");
        }
        for tool in [
            "mcp_context-mode_ctx_execute",
            "mcp_context-mode_ctx_search",
            "write_file",
            "activate_skill",
            "run_shell_command_x",
        ] {
            assert!(!matches(before, tool), "{tool}");
        }
        let after = hooks["hooks"]["AfterTool"][0]["matcher"].as_str().unwrap();
        for tool in ["write_file", "replace", "activate_skill", "mcp_x_y"] {
            assert!(matches(after, tool), "{tool}");
        }
        assert!(!matches(after, "mcp_context-mode_ctx_fetch_and_index"));
    }

    #[test]
    fn routing_file_is_ours_and_loaded_beside_gemini_md() {
        let plan = plan(&input("cm"));
        let file = &plan.edits[3];
        assert_eq!(file.format, ConfigFormat::Text);
        assert!(file.content.contains("mcp_context-mode_ctx_*"));
        let names = doc(&plan.edits[4]);
        assert_eq!(names["context"]["fileName"][0], "GEMINI.md");
        assert_eq!(names["context"]["fileName"][1], "context-mode.md");
    }
}
