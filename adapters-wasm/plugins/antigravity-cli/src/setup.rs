//! The config edits that register context-mode with Antigravity CLI (`agy`), in its
//! global customization root `~/.gemini/config/`:
//!
//! - MCP server: `mcpServers.context-mode` in `~/.gemini/config/mcp_config.json`
//!   (**reference**: agy's global MCP profile, not the IDE's
//!   `~/.gemini/antigravity/mcp_config.json`);
//! - hooks: `~/.gemini/config/hooks.json`, whose top-level keys are hook *names*, each
//!   holding `{<Event>: [{matcher, hooks: [{type: "command", command}]}]}`
//!   (**third-party live test**: safe-chains' install, agy 1.1.2; the reference names the
//!   file and the three events). PreToolUse is bounded to the tools upstream routes
//!   (`run_command`, `view_file`, `grep_search`, `web_fetch`, `read_url_content`) by one
//!   anchored regex alternation: an exact name and `"*"` are live-tested, the regex is
//!   **unverified** (agy's Gemini CLI lineage matches by regex with `*` as match-all,
//!   which is what the live test saw). Not `"*"`: agy fails closed when a hook fails,
//!   so a broken `cm` would put every tool call to the user. One group per event,
//!   because `cm setup` keeps one entry per hook command in a file. PostToolUse takes
//!   every tool (`"*"`), Stop has no matcher;
//! - instructions (optional): a rule file, `~/.gemini/config/rules/context-mode.md` or
//!   the project's `.agents/rules/context-mode.md` (**unverified**: the customization
//!   roots are live-tested for `hooks.json`; upstream's agy bundle ships its rule as
//!   `rules/context-mode.md`).
//!
//! agy exposes MCP tools as Gemini function declarations and silently drops a tool
//! whose schema has `const` or `additionalProperties` (**reference**); the host serves
//! the portable schema subset (host/src/mcp/tools/portable.rs), nothing to do here.

use context_mode_sdk::json::to_pretty;
use context_mode_sdk::serde_json::Value;
use context_mode_sdk::setup::{cm_command, hook_command};
use context_mode_sdk::{EventKind, JsonObject};

use crate::ADAPTER_ID;
use crate::describe::EVENTS;
use context_mode_sdk::adapter::{ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan};

const MCP_CONFIG: &str = "~/.gemini/config/mcp_config.json";
const HOOKS: &str = "~/.gemini/config/hooks.json";
const GLOBAL_RULE: &str = "~/.gemini/config/rules/context-mode.md";
const PROJECT_RULE: &str = "{project}/.agents/rules/context-mode.md";
const ROUTING_TEXT: &str = include_str!("../../../../configs/antigravity-cli/context-mode.md");

/// The name of our hook set in `hooks.json`, and of the MCP server.
const NAME: &str = "context-mode";

/// The tools upstream's bounded PreToolUse routes.
const PRE_TOOL_MATCHERS: &[&str] = &[
    "run_command",
    "view_file",
    "grep_search",
    "web_fetch",
    "read_url_content",
];

fn matcher(kind: EventKind) -> Option<String> {
    match kind {
        EventKind::PreToolUse => Some(format!("^({})$", PRE_TOOL_MATCHERS.join("|"))),
        EventKind::PostToolUse => Some("*".to_owned()),
        _ => None,
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
        file: MCP_CONFIG.to_owned(),
        format: ConfigFormat::Json,
        content: to_pretty(
            &JsonObject::new()
                .put("mcpServers", JsonObject::new().put(NAME, server))
                .into_value(),
        ),
        summary: "Register the context-mode MCP server (cm serve) with Antigravity CLI".to_owned(),
        optional: false,
    }
}

fn hooks_edit(cm: &str) -> ConfigEdit {
    let events = EVENTS.iter().fold(JsonObject::new(), |events, event| {
        let handler: Value = JsonObject::new()
            .put("type", "command")
            .put("command", hook_command(cm, ADAPTER_ID, event.cli))
            .into();
        let group = JsonObject::new()
            .put_opt("matcher", matcher(event.kind))
            .put("hooks", Value::Array(vec![handler]));
        events.put(event.name, Value::Array(vec![group.into()]))
    });
    ConfigEdit {
        kind: EditKind::Hooks,
        file: HOOKS.to_owned(),
        format: ConfigFormat::Json,
        content: to_pretty(&JsonObject::new().put(NAME, events).into_value()),
        summary: "Register context-mode hooks for Antigravity CLI's PreToolUse, PostToolUse and Stop events".to_owned(),
        optional: false,
    }
}

fn routing_edit(for_project: bool) -> ConfigEdit {
    let (file, scope) = if for_project {
        (PROJECT_RULE, "this project")
    } else {
        (GLOBAL_RULE, "every project")
    };
    ConfigEdit {
        kind: EditKind::Instructions,
        file: file.to_owned(),
        format: ConfigFormat::Text,
        content: ROUTING_TEXT.to_owned(),
        summary: format!("Add a context-mode routing rule to Antigravity CLI for {scope}"),
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

    #[test]
    fn every_edit_has_a_kind_and_a_file() {
        let plan = plan(&input("cm", None));
        let kinds: Vec<(EditKind, &str, bool)> = plan
            .edits
            .iter()
            .map(|e| (e.kind, e.file.as_str(), e.optional))
            .collect();
        assert_eq!(
            kinds,
            [
                (EditKind::McpServer, MCP_CONFIG, false),
                (EditKind::Hooks, HOOKS, false),
                (EditKind::Instructions, GLOBAL_RULE, true),
            ]
        );
        assert_eq!(
            super::plan(&input("cm", Some("/p"))).edits[2].file,
            PROJECT_RULE
        );
        let mcp = parse_object(&plan.edits[0].content).unwrap();
        assert_eq!(mcp["mcpServers"]["context-mode"]["command"], "cm");
    }

    #[test]
    fn one_named_hook_set_with_bounded_pre_tool_use() {
        let plan = plan(&input("/Users/Jane Doe/cm", None));
        let doc = parse_object(&plan.edits[1].content).unwrap();
        assert_eq!(doc.len(), 1);
        let set = doc["context-mode"].as_object().unwrap();
        let events: Vec<&str> = set.keys().map(String::as_str).collect();
        assert_eq!(events, ["PreToolUse", "PostToolUse", "Stop"]);
        for event in ["PreToolUse", "PostToolUse", "Stop"] {
            assert_eq!(set[event].as_array().unwrap().len(), 1, "{event}");
        }
        assert_eq!(
            set["PreToolUse"][0]["matcher"],
            "^(run_command|view_file|grep_search|web_fetch|read_url_content)$"
        );
        assert_eq!(
            set["PreToolUse"][0]["hooks"][0]["command"],
            r#""/Users/Jane Doe/cm" hook antigravity-cli pretooluse"#
        );
        assert_eq!(set["PreToolUse"][0]["hooks"][0]["type"], "command");
        assert_eq!(set["PostToolUse"][0]["matcher"], "*");
        assert!(set["Stop"][0].get("matcher").is_none());
        assert_eq!(
            set["Stop"][0]["hooks"][0]["command"],
            r#""/Users/Jane Doe/cm" hook antigravity-cli stop"#
        );
    }

    #[test]
    fn rule_names_agys_tool_spelling() {
        let plan = plan(&input("cm", None));
        assert!(plan.edits[2].content.contains("context-mode/ctx_"));
    }
}
