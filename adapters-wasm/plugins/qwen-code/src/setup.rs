//! The config edits that register context-mode with Qwen Code, all in the user's
//! `~/.qwen/settings.json` (every project), plus an optional instruction file:
//!
//! - MCP server: `mcpServers.context-mode` runs `cm serve`;
//! - hooks: `hooks.<Event>[{matcher, hooks[]}]` (Claude Code's shape; Qwen Code's hooks
//!   guide). Hooks are on by default since they left the experimental flag (0.24.4
//!   reads no `enableHooks` / `hooksConfig` setting; `disableAllHooks` turns them off),
//!   so no feature flag is written. The tool matchers start with `^`, so Qwen compiles
//!   them as one regular expression, and name the runtime ids of the tools whose output
//!   can be large, plus every other server's `mcp__` tools, never our own;
//! - instructions (optional): `QWEN.md` (Qwen's default context file name), the global
//!   `~/.qwen/QWEN.md` or the project's `{project}/QWEN.md`, merged as a marked block.

use context_mode_sdk::json::to_pretty;
use context_mode_sdk::serde_json::Value;
use context_mode_sdk::setup::{cm_command, hook_command, tool_matcher};
use context_mode_sdk::{EventKind, JsonObject};

use crate::ADAPTER_ID;
use crate::describe::{EVENTS, ctx_tool_name};
use context_mode_sdk::adapter::{ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan};

const SETTINGS: &str = "~/.qwen/settings.json";
const ROUTING_TEXT: &str = include_str!("../../../../configs/qwen-code/QWEN.md");
/// The name setup registers the MCP server under.
const MCP_SERVER: &str = "context-mode";

/// Built-in tools whose calls the routing policy acts on (runtime ids).
const PRE_TOOL_BUILTINS: &[&str] = &[
    "run_shell_command",
    "read_file",
    "grep_search",
    "glob",
    "web_fetch",
    "web_search",
];
/// Built-in tools whose results feed the session journal (edits, agents, todos too).
const POST_TOOL_BUILTINS: &[&str] = &[
    "run_shell_command",
    "read_file",
    "grep_search",
    "glob",
    "list_directory",
    "web_fetch",
    "web_search",
    "write_file",
    "edit",
    "notebook_edit",
    "agent",
    "skill",
    "todo_write",
    "save_memory",
    "exit_plan_mode",
];

fn matcher(kind: EventKind) -> String {
    let ours = ctx_tool_name(MCP_SERVER, "ctx_execute");
    match kind {
        EventKind::PreToolUse => tool_matcher(PRE_TOOL_BUILTINS, "mcp__", &ours),
        EventKind::PostToolUse => tool_matcher(POST_TOOL_BUILTINS, "mcp__", &ours),
        // Empty matches every source and trigger of the lifecycle events.
        _ => String::new(),
    }
}

pub fn plan(input: &SetupInput) -> SetupPlan {
    let cm = cm_command(&input.cm_command);
    SetupPlan {
        edits: vec![
            mcp_edit(cm),
            hooks_edit(cm),
            routing_edit(input.project_dir.is_some()),
        ],
    }
}

fn mcp_edit(cm: &str) -> ConfigEdit {
    let server = JsonObject::new()
        .put("command", cm)
        .put("args", Value::Array(vec![Value::from("serve")]));
    ConfigEdit {
        kind: EditKind::McpServer,
        file: SETTINGS.to_owned(),
        format: ConfigFormat::Json,
        content: to_pretty(
            &JsonObject::new()
                .put("mcpServers", JsonObject::new().put(MCP_SERVER, server))
                .into_value(),
        ),
        summary: "Register the context-mode MCP server (cm serve) for every Qwen Code project"
            .to_owned(),
        optional: false,
    }
}

fn hooks_edit(cm: &str) -> ConfigEdit {
    let hooks = EVENTS.iter().fold(JsonObject::new(), |hooks, event| {
        let handler = JsonObject::new()
            .put("type", "command")
            .put("command", hook_command(cm, ADAPTER_ID, event.cli))
            .put("name", "context-mode");
        let group = JsonObject::new()
            .put("matcher", matcher(event.kind))
            .put("hooks", Value::Array(vec![handler.into()]));
        hooks.put(event.name, Value::Array(vec![group.into()]))
    });
    ConfigEdit {
        kind: EditKind::Hooks,
        file: SETTINGS.to_owned(),
        format: ConfigFormat::Json,
        content: to_pretty(&JsonObject::new().put("hooks", hooks).into_value()),
        summary: "Register context-mode hooks for Qwen Code's tool, prompt, compaction, session-start and stop events".to_owned(),
        optional: false,
    }
}

fn routing_edit(for_project: bool) -> ConfigEdit {
    let (file, scope) = if for_project {
        ("{project}/QWEN.md", "this project")
    } else {
        ("~/.qwen/QWEN.md", "every project")
    };
    ConfigEdit {
        kind: EditKind::Instructions,
        file: file.to_owned(),
        format: ConfigFormat::Text,
        content: ROUTING_TEXT.to_owned(),
        summary: format!(
            "Add context-mode routing instructions to Qwen Code's QWEN.md for {scope}"
        ),
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

    /// Qwen compiles a matcher starting with `^` as a JavaScript regex and tests it
    /// unanchored; fancy-regex reads the same syntax.
    fn matches(matcher: &str, tool: &str) -> bool {
        fancy_regex::Regex::new(matcher)
            .unwrap()
            .is_match(tool)
            .unwrap()
    }

    #[test]
    fn everything_goes_to_settings_json_and_qwen_md() {
        let plan = plan(&input("/usr/local/bin/cm", None));
        let files: Vec<(EditKind, &str, bool)> = plan
            .edits
            .iter()
            .map(|e| (e.kind, e.file.as_str(), e.optional))
            .collect();
        assert_eq!(
            files,
            [
                (EditKind::McpServer, "~/.qwen/settings.json", false),
                (EditKind::Hooks, "~/.qwen/settings.json", false),
                (EditKind::Instructions, "~/.qwen/QWEN.md", true),
            ]
        );
        let mcp = parse_object(&plan.edits[0].content).unwrap();
        assert_eq!(
            mcp["mcpServers"]["context-mode"]["command"],
            "/usr/local/bin/cm"
        );
        assert_eq!(mcp["mcpServers"]["context-mode"]["args"][0], "serve");
        assert!(
            plan.edits[2]
                .content
                .contains("mcp__context-mode__ctx_execute")
        );
        let project = plan_for_project();
        assert_eq!(project.edits[2].file, "{project}/QWEN.md");
    }

    fn plan_for_project() -> SetupPlan {
        plan(&input("cm", Some("/home/dev/app")))
    }

    #[test]
    fn hooks_cover_seven_events_in_claude_shape() {
        let plan = plan(&input("/Users/Jane Doe/cm", None));
        let doc = parse_object(&plan.edits[1].content).unwrap();
        let hooks = doc["hooks"].as_object().unwrap();
        let events: Vec<&str> = hooks.keys().map(String::as_str).collect();
        assert_eq!(
            events,
            [
                "PreToolUse",
                "PostToolUse",
                "PostToolUseFailure",
                "UserPromptSubmit",
                "PreCompact",
                "SessionStart",
                "Stop"
            ]
        );
        assert_eq!(
            hooks["PreToolUse"][0]["hooks"][0]["command"],
            r#""/Users/Jane Doe/cm" hook qwen-code pretooluse"#
        );
        assert_eq!(hooks["Stop"][0]["hooks"][0]["type"], "command");
        assert_eq!(hooks["SessionStart"][0]["matcher"], "");
        assert!(doc.get("hooksConfig").is_none() && doc.get("tools").is_none());
    }

    #[test]
    fn tool_matchers_skip_our_own_tools() {
        let plan = plan(&input("cm", None));
        let doc = parse_object(&plan.edits[1].content).unwrap();
        let pre = doc["hooks"]["PreToolUse"][0]["matcher"].as_str().unwrap();
        assert!(pre.starts_with('^'));
        for tool in [
            "run_shell_command",
            "read_file",
            "grep_search",
            "web_fetch",
            "mcp__github__list_issues",
        ] {
            assert!(matches(pre, tool), "{tool}");
        }
        for tool in [
            "mcp__context-mode__ctx_execute",
            "mcp__context-mode__ctx_search",
            "write_file",
            "read_file_x",
        ] {
            assert!(!matches(pre, tool), "{tool}");
        }
        let post = doc["hooks"]["PostToolUse"][0]["matcher"].as_str().unwrap();
        for tool in [
            "write_file",
            "edit",
            "agent",
            "todo_write",
            "mcp__github__x",
        ] {
            assert!(matches(post, tool), "{tool}");
        }
        assert!(!matches(post, "mcp__context-mode__ctx_index"));
    }
}
