//! The config edits that register context-mode with Kiro CLI:
//!
//! - MCP server: `mcpServers.context-mode` in `~/.kiro/settings/mcp.json` (**verified
//!   (docs)**: kiro.dev/docs/cli/chat/configuration, the global MCP file; **reference**);
//! - hooks: Kiro CLI defines hooks only in an agent configuration file (**verified
//!   (docs)**: "Hooks are defined in the agent configuration file"; custom agents live in
//!   `~/.kiro/agents/`). The built-in default agent has no file to edit, so setup
//!   writes its own agent, `~/.kiro/agents/context-mode.json`: every tool (`"tools":
//!   ["*"]`), the servers of `mcp.json` (`includeMcpJson`, **unverified**: Kiro's
//!   configuration reference as summarised by third parties; Q CLI called it
//!   `useLegacyMcpJson`), the steering files as resources, and the `hooks` object
//!   (`preToolUse` / `postToolUse` entries of `{matcher, command}`, **verified**).
//!   Upstream's `.kiro/hooks/context-mode.json` is not a place Kiro CLI reads hooks
//!   from (`.kiro/hooks/` holds the IDE's `*.kiro.hook` files);
//! - feature (a step the user takes, printed by setup): the agent applies to sessions
//!   started with `kiro-cli chat --agent context-mode`, or to every session once it is
//!   the default (`kiro-cli settings chat.defaultAgent context-mode`, **verified** in the
//!   Q CLI docs; setup does not change the user's default agent behind their back);
//! - instructions (optional): a steering file, `~/.kiro/steering/context-mode.md` or
//!   the project's `.kiro/steering/context-mode.md` (**verified (docs)**: steering
//!   scopes). Upstream's `KIRO.md` at the project root is not a file Kiro loads by
//!   itself.
//!
//! Matchers are globs, not regexes (**verified (source)**: `hook_matches_tool`: an
//! exact name, a `*`/`?` glob, `@server` for a whole MCP server, `*` for every tool),
//! so the lookahead regex upstream wrote matches nothing. One glob cannot name the
//! four tools (`execute_bash`, `shell`, `fs_read`, `read`) without also taking others,
//! and `cm setup` keeps one entry per hook command in a file (a second one is reported
//! by `cm doctor` as the hook running twice), so both hooks match `*`: `cm` answers an
//! uninteresting tool with exit 0 and no output in a few milliseconds, and a failing
//! hook never blocks in Kiro (only exit 2 does).

use context_mode_sdk::JsonObject;
use context_mode_sdk::json::to_pretty;
use context_mode_sdk::serde_json::Value;
use context_mode_sdk::setup::{cm_command, hook_command};

use crate::ADAPTER_ID;
use crate::describe::EVENTS;
use context_mode_sdk::adapter::{ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan};

const MCP_JSON: &str = "~/.kiro/settings/mcp.json";
const AGENT_NAME: &str = "context-mode";
const AGENT_FILE: &str = "~/.kiro/agents/context-mode.json";
const GLOBAL_STEERING: &str = "~/.kiro/steering/context-mode.md";
const PROJECT_STEERING: &str = "{project}/.kiro/steering/context-mode.md";
const ROUTING_TEXT: &str = include_str!("../../../../configs/kiro/context-mode.md");

/// Every tool (see the module comment); the policy acts on shells, reads and greps.
const MATCHER: &str = "*";

/// The name setup registers the MCP server under.
const MCP_SERVER: &str = "context-mode";

pub fn plan(input: &SetupInput) -> SetupPlan {
    let cm = cm_command(&input.cm_command);
    SetupPlan {
        edits: vec![
            mcp_edit(cm),
            agent_edit(cm),
            default_agent_step(),
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
        file: MCP_JSON.to_owned(),
        format: ConfigFormat::Json,
        content: to_pretty(
            &JsonObject::new()
                .put("mcpServers", JsonObject::new().put(MCP_SERVER, server))
                .into_value(),
        ),
        summary: "Register the context-mode MCP server (cm serve) with Kiro CLI".to_owned(),
        optional: false,
    }
}

fn agent_edit(cm: &str) -> ConfigEdit {
    let hooks = EVENTS.iter().fold(JsonObject::new(), |hooks, event| {
        let entry = JsonObject::new()
            .put("matcher", MATCHER)
            .put("command", hook_command(cm, ADAPTER_ID, event.cli));
        hooks.put(event.name, Value::Array(vec![entry.into()]))
    });
    let resources = [
        "file://AGENTS.md",
        "file://README.md",
        "file://.kiro/steering/**/*.md",
        "file://~/.kiro/steering/**/*.md",
    ];
    let agent = JsonObject::new()
        .put("name", AGENT_NAME)
        .put(
            "description",
            "Kiro's tools with context-mode's hooks: large output goes through the ctx_* tools",
        )
        .put("tools", Value::Array(vec![Value::from("*")]))
        .put("includeMcpJson", true)
        .put(
            "resources",
            Value::Array(resources.iter().map(|r| Value::from(*r)).collect()),
        )
        .put("hooks", hooks);
    ConfigEdit {
        kind: EditKind::Hooks,
        file: AGENT_FILE.to_owned(),
        format: ConfigFormat::Json,
        content: to_pretty(&agent.into_value()),
        summary: "Add the context-mode agent with context-mode's preToolUse and postToolUse hooks to Kiro CLI".to_owned(),
        optional: false,
    }
}

/// Kiro runs an agent's hooks only in that agent's sessions.
fn default_agent_step() -> ConfigEdit {
    ConfigEdit {
        kind: EditKind::Feature,
        file: String::new(),
        format: ConfigFormat::Text,
        content: format!(
            "Start Kiro CLI with `kiro-cli chat --agent {AGENT_NAME}`, or make it the default:\n`kiro-cli settings chat.defaultAgent {AGENT_NAME}`\n"
        ),
        summary: format!("Kiro CLI runs the hooks in sessions of the {AGENT_NAME} agent"),
        optional: false,
    }
}

fn routing_edit(for_project: bool) -> ConfigEdit {
    let (file, scope) = if for_project {
        (PROJECT_STEERING, "this project")
    } else {
        (GLOBAL_STEERING, "every project")
    };
    ConfigEdit {
        kind: EditKind::Instructions,
        file: file.to_owned(),
        format: ConfigFormat::Text,
        content: ROUTING_TEXT.to_owned(),
        summary: format!("Add a context-mode steering file to Kiro for {scope}"),
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
                (EditKind::McpServer, MCP_JSON, false),
                (EditKind::Hooks, AGENT_FILE, false),
                (EditKind::Feature, "", false),
                (EditKind::Instructions, GLOBAL_STEERING, true),
            ]
        );
        let project = super::plan(&input("cm", Some("/home/dev/app")));
        assert_eq!(project.edits[3].file, PROJECT_STEERING);
        assert!(
            plan.edits[2]
                .content
                .contains("chat.defaultAgent context-mode")
        );
        let mcp = parse_object(&plan.edits[0].content).unwrap();
        assert_eq!(mcp["mcpServers"]["context-mode"]["args"][0], "serve");
    }

    #[test]
    fn the_agent_carries_glob_matched_hooks() {
        let plan = plan(&input("/Users/Jane Doe/cm", None));
        let agent = parse_object(&plan.edits[1].content).unwrap();
        assert_eq!(agent["name"], "context-mode");
        assert_eq!(agent["tools"][0], "*");
        let hooks = agent["hooks"].as_object().unwrap();
        let events: Vec<&str> = hooks.keys().map(String::as_str).collect();
        assert_eq!(events, ["preToolUse", "postToolUse"]);
        for event in ["preToolUse", "postToolUse"] {
            assert_eq!(hooks[event].as_array().unwrap().len(), 1, "{event}");
            assert_eq!(hooks[event][0]["matcher"], "*", "{event}");
        }
        assert_eq!(
            hooks["preToolUse"][0]["command"],
            r#""/Users/Jane Doe/cm" hook kiro pretooluse"#
        );
        assert_eq!(
            hooks["postToolUse"][0]["command"],
            r#""/Users/Jane Doe/cm" hook kiro posttooluse"#
        );
    }

    #[test]
    fn steering_text_names_kiros_tool_spelling() {
        let plan = plan(&input("cm", None));
        assert!(plan.edits[3].content.contains("@context-mode/ctx_"));
    }
}
