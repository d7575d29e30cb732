//! The config edits that register context-mode with Codex CLI:
//!
//! - MCP server: `[mcp_servers.context-mode]` in `~/.codex/config.toml`;
//! - feature: `[features] hooks = true` in the same file (the canonical key;
//!   `codex_hooks` is its deprecated alias; recent releases default it on);
//! - hooks: `~/.codex/hooks.json` (`hooks.<Event>[{matcher, hooks[]}]`), the tool
//!   matchers written without lookahead because Codex matches with Rust's `regex`;
//! - instructions (optional): AGENTS.md, the only instruction file Codex loads.
//!
//! `CODEX_HOME` moves `~/.codex`: the files are named `{env:CODEX_HOME|~/.codex}/…`,
//! which the host resolves (the variable is declared in the descriptor's `env-vars`;
//! see docs/adr/0008).

use context_mode_sdk::json::to_pretty;
use context_mode_sdk::serde_json::Value;
use context_mode_sdk::setup::toml_string;
use context_mode_sdk::setup::{cm_command, hook_command, tool_matcher};
use context_mode_sdk::{EventKind, JsonObject};

use crate::ADAPTER_ID;
use crate::describe::EVENTS;
use context_mode_sdk::adapter::{ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan};

const CONFIG: &str = "{env:CODEX_HOME|~/.codex}/config.toml";
const HOOKS: &str = "{env:CODEX_HOME|~/.codex}/hooks.json";
const GLOBAL_AGENTS_MD: &str = "{env:CODEX_HOME|~/.codex}/AGENTS.md";
const ROUTING_TEXT: &str = include_str!("../../../../configs/codex/AGENTS.md");

/// Codex's shell tools (hooks see most as `Bash`), plus its file reader and grep.
const PRE_TOOL_BUILTINS: &[&str] = &[
    "Bash",
    "shell",
    "shell_command",
    "exec_command",
    "local_shell",
    "container.exec",
    "read_file",
    "grep_files",
];
/// The same plus `apply_patch`, whose edits the session journal records.
const POST_TOOL_BUILTINS: &[&str] = &[
    "Bash",
    "shell",
    "shell_command",
    "exec_command",
    "local_shell",
    "container.exec",
    "read_file",
    "grep_files",
    "apply_patch",
];

fn matcher(kind: EventKind) -> Option<String> {
    match kind {
        EventKind::PreToolUse => Some(other_tools(PRE_TOOL_BUILTINS)),
        EventKind::PostToolUse => Some(other_tools(POST_TOOL_BUILTINS)),
        _ => None,
    }
}

/// `builtins`, or a tool of another MCP server: Codex names ours
/// `mcp__context_mode__ctx_*` (hyphen → underscore), the others `mcp__<server>__<tool>`.
fn other_tools(builtins: &[&str]) -> String {
    let ours = crate::describe::ctx_tool_name(MCP_SERVER, "ctx_execute");
    tool_matcher(builtins, "mcp__", &ours)
}

/// The name setup registers the MCP server under.
const MCP_SERVER: &str = "context-mode";

pub fn plan(input: &SetupInput) -> SetupPlan {
    let cm = cm_command(&input.cm_command);
    SetupPlan {
        edits: vec![
            mcp_edit(cm),
            feature_edit(),
            hooks_edit(cm),
            routing_edit(input.project_dir.is_some()),
        ],
    }
}

fn mcp_edit(cm: &str) -> ConfigEdit {
    ConfigEdit {
        kind: EditKind::McpServer,
        file: CONFIG.to_owned(),
        format: ConfigFormat::Toml,
        content: format!(
            "[mcp_servers.context-mode]\ncommand = {}\nargs = [\"serve\"]\n",
            toml_string(cm)
        ),
        summary: "Register the context-mode MCP server (cm serve) with Codex CLI".to_owned(),
        optional: false,
    }
}

fn feature_edit() -> ConfigEdit {
    ConfigEdit {
        kind: EditKind::Feature,
        file: CONFIG.to_owned(),
        format: ConfigFormat::Toml,
        content: "[features]\nhooks = true\n".to_owned(),
        summary: "Turn on Codex CLI's lifecycle hooks".to_owned(),
        optional: false,
    }
}

fn hooks_edit(cm: &str) -> ConfigEdit {
    let hooks = EVENTS.iter().fold(JsonObject::new(), |hooks, event| {
        let handler = JsonObject::new()
            .put("type", "command")
            .put("command", hook_command(cm, ADAPTER_ID, event.cli));
        let group = JsonObject::new()
            .put_opt("matcher", matcher(event.kind))
            .put("hooks", Value::Array(vec![handler.into()]));
        hooks.put(event.name, Value::Array(vec![group.into()]))
    });
    ConfigEdit {
        kind: EditKind::Hooks,
        file: HOOKS.to_owned(),
        format: ConfigFormat::Json,
        content: to_pretty(&JsonObject::new().put("hooks", hooks).into_value()),
        summary: "Register context-mode hooks for Codex CLI's tool, prompt, compaction, session-start and stop events".to_owned(),
        optional: false,
    }
}

fn routing_edit(for_project: bool) -> ConfigEdit {
    let (file, scope) = if for_project {
        ("{project}/AGENTS.md", "this project")
    } else {
        (GLOBAL_AGENTS_MD, "every project")
    };
    ConfigEdit {
        kind: EditKind::Instructions,
        file: file.to_owned(),
        format: ConfigFormat::Text,
        content: ROUTING_TEXT.to_owned(),
        summary: format!(
            "Add context-mode routing instructions to Codex CLI's AGENTS.md for {scope}"
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

    fn matches(matcher: &str, tool: &str) -> bool {
        let search = fancy_regex::Regex::new(matcher).unwrap();
        let full = fancy_regex::Regex::new(&format!("^(?:{matcher})$")).unwrap();
        let found = search.is_match(tool).unwrap();
        assert_eq!(found, full.is_match(tool).unwrap(), "{matcher} on {tool}");
        found
    }

    #[test]
    fn every_edit_has_a_kind_and_a_file() {
        let plan = plan(&input("cm", None));
        let kinds: Vec<(EditKind, &str, ConfigFormat, bool)> = plan
            .edits
            .iter()
            .map(|e| (e.kind, e.file.as_str(), e.format, e.optional))
            .collect();
        assert_eq!(
            kinds,
            [
                (EditKind::McpServer, CONFIG, ConfigFormat::Toml, false),
                (EditKind::Feature, CONFIG, ConfigFormat::Toml, false),
                (EditKind::Hooks, HOOKS, ConfigFormat::Json, false),
                (
                    EditKind::Instructions,
                    GLOBAL_AGENTS_MD,
                    ConfigFormat::Text,
                    true
                ),
            ]
        );
        let project = super::plan(&input("cm", Some("/home/dev/app")));
        assert_eq!(project.edits[3].file, "{project}/AGENTS.md");
    }

    #[test]
    fn toml_documents() {
        let plan = plan(&input(r#"/Users/Jane "J" Doe/cm"#, None));
        assert_eq!(
            plan.edits[0].content,
            "[mcp_servers.context-mode]\ncommand = \"/Users/Jane \\\"J\\\" Doe/cm\"\nargs = [\"serve\"]\n"
        );
        assert_eq!(plan.edits[1].content, "[features]\nhooks = true\n");
        assert_eq!(toml_string("a\\b\u{1}"), "\"a\\\\b\\u0001\"");
    }

    #[test]
    fn hooks_cover_six_events() {
        let plan = plan(&input("/usr/local/bin/cm", None));
        let doc = parse_object(&plan.edits[2].content).unwrap();
        let hooks = doc["hooks"].as_object().unwrap();
        let events: Vec<&str> = hooks.keys().map(String::as_str).collect();
        assert_eq!(
            events,
            [
                "PreToolUse",
                "PostToolUse",
                "PreCompact",
                "SessionStart",
                "UserPromptSubmit",
                "Stop"
            ]
        );
        assert_eq!(
            hooks["PreToolUse"][0]["hooks"][0]["command"],
            "/usr/local/bin/cm hook codex pretooluse"
        );
        assert_eq!(hooks["Stop"][0]["hooks"][0]["type"], "command");
        assert!(hooks["SessionStart"][0].get("matcher").is_none());
    }

    #[test]
    fn tool_matchers_skip_our_tools_without_lookahead() {
        let plan = plan(&input("cm", None));
        let doc = parse_object(&plan.edits[2].content).unwrap();
        let pre = doc["hooks"]["PreToolUse"][0]["matcher"].as_str().unwrap();
        assert!(!pre.contains("(?!"), "Rust's regex has no lookahead: {pre}");
        for tool in [
            "Bash",
            "shell",
            "exec_command",
            "container.exec",
            "grep_files",
            "mcp__github__list_issues",
            "mcp__context_mode__status",
        ] {
            assert!(matches(pre, tool), "{tool}");
        }
        for tool in [
            "mcp__context_mode__ctx_execute",
            "mcp__context_mode__ctx_batch_execute",
            "apply_patch",
            "containerXexec",
        ] {
            assert!(!matches(pre, tool), "{tool}");
        }
        let post = doc["hooks"]["PostToolUse"][0]["matcher"].as_str().unwrap();
        assert!(matches(post, "apply_patch"));
        assert!(!matches(post, "mcp__context_mode__ctx_search"));
    }

    #[test]
    fn routing_text_names_codex_tool_spelling() {
        let plan = plan(&input("cm", None));
        assert!(plan.edits[3].content.contains("mcp__context_mode__ctx_*"));
    }
}
