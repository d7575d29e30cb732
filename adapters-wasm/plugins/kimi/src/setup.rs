//! The config edits that register context-mode with Kimi Code CLI:
//!
//! - MCP server: `mcpServers.context-mode` in `~/.kimi-code/mcp.json` (**verified**:
//!   `docs/en/customization/mcp.md`, user level, `command` + `args` = a stdio server);
//! - hooks: one `[[hooks]]` array table per event in `~/.kimi-code/config.toml`
//!   (**verified**: `externalHooks/configSection.ts` accepts exactly `event`, `matcher`,
//!   `command`, `timeout` and refuses the whole file on any other key, so nothing else
//!   is written; `timeout` is left at its 30-second default). The matchers are
//!   JavaScript regexes tested with `RegExp.test` (a search, hence anchored) and never
//!   fire on our own `mcp__context-mode__ctx_*` tools;
//! - instructions (optional): `~/.kimi-code/AGENTS.md`, Kimi's global instruction file,
//!   or the project's `AGENTS.md` (**verified**: `docs/en/customization/agents.md`).
//!
//! `KIMI_CODE_HOME` moves `~/.kimi-code`; the files are named
//! `{env:KIMI_CODE_HOME|~/.kimi-code}/…`, which the host resolves.
//!
//! The older Python `kimi-cli` reads `~/.kimi/config.toml` with the same `[[hooks]]`
//! keys; this plan writes only Kimi Code's files.

use context_mode_sdk::json::to_pretty;
use context_mode_sdk::serde_json::Value;
use context_mode_sdk::setup::toml_string;
use context_mode_sdk::setup::{cm_command, hook_command, tool_matcher};
use context_mode_sdk::{EventKind, JsonObject};

use crate::ADAPTER_ID;
use crate::describe::EVENTS;
use context_mode_sdk::adapter::{ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan};

const CONFIG: &str = "{env:KIMI_CODE_HOME|~/.kimi-code}/config.toml";
const MCP_JSON: &str = "{env:KIMI_CODE_HOME|~/.kimi-code}/mcp.json";
const GLOBAL_AGENTS_MD: &str = "{env:KIMI_CODE_HOME|~/.kimi-code}/AGENTS.md";
const ROUTING_TEXT: &str = include_str!("../../../../configs/kimi/AGENTS.md");

/// The built-in tools whose output can be large: the calls the routing policy acts on.
const PRE_TOOL_BUILTINS: &[&str] = &["Bash", "Read", "Grep", "Glob", "FetchURL"];
/// The same plus the tools whose calls the session journal records.
const POST_TOOL_BUILTINS: &[&str] = &[
    "Bash",
    "Read",
    "Grep",
    "Glob",
    "FetchURL",
    "WebSearch",
    "Write",
    "Edit",
    "Agent",
    "Skill",
];

/// The name setup registers the MCP server under.
const MCP_SERVER: &str = "context-mode";

fn matcher(kind: EventKind) -> Option<String> {
    let builtins = match kind {
        EventKind::PreToolUse => PRE_TOOL_BUILTINS,
        EventKind::PostToolUse => POST_TOOL_BUILTINS,
        // Lifecycle events: no matcher matches every source and trigger.
        _ => return None,
    };
    let ours = crate::describe::ctx_tool_name(MCP_SERVER, "ctx_execute");
    Some(tool_matcher(builtins, "mcp__", &ours))
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
        file: MCP_JSON.to_owned(),
        format: ConfigFormat::Json,
        content: to_pretty(
            &JsonObject::new()
                .put("mcpServers", JsonObject::new().put(MCP_SERVER, server))
                .into_value(),
        ),
        summary: "Register the context-mode MCP server (cm serve) with Kimi Code".to_owned(),
        optional: false,
    }
}

fn hooks_edit(cm: &str) -> ConfigEdit {
    let mut content = String::new();
    for event in EVENTS {
        content.push_str("[[hooks]]\n");
        content.push_str(&format!("event = {}\n", toml_string(event.name)));
        if let Some(matcher) = matcher(event.kind) {
            content.push_str(&format!("matcher = {}\n", toml_string(&matcher)));
        }
        content.push_str(&format!(
            "command = {}\n\n",
            toml_string(&hook_command(cm, ADAPTER_ID, event.cli))
        ));
    }
    ConfigEdit {
        kind: EditKind::Hooks,
        file: CONFIG.to_owned(),
        format: ConfigFormat::Toml,
        content,
        summary: "Register context-mode hooks for Kimi Code's tool, prompt, compaction, session-start and stop events".to_owned(),
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
            "Add context-mode routing instructions to Kimi Code's AGENTS.md for {scope}"
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

    /// Kimi tests a matcher with `new RegExp(matcher).test(name)`: a search.
    fn matches(matcher: &str, tool: &str) -> bool {
        fancy_regex::Regex::new(matcher)
            .unwrap()
            .is_match(tool)
            .unwrap()
    }

    /// The `[[hooks]]` tables as (event, matcher, command), read back line by line.
    fn hooks(content: &str) -> Vec<(String, Option<String>, String)> {
        let unquote = |line: &str, key: &str| {
            line.strip_prefix(&format!("{key} = \""))
                .and_then(|rest| rest.strip_suffix('"'))
                .map(|text| text.replace("\\\\", "\\").replace("\\\"", "\""))
        };
        content
            .split("[[hooks]]\n")
            .filter(|table| !table.trim().is_empty())
            .map(|table| {
                let mut fields = (String::new(), None, String::new());
                for line in table.lines() {
                    if let Some(event) = unquote(line, "event") {
                        fields.0 = event;
                    } else if let Some(matcher) = unquote(line, "matcher") {
                        fields.1 = Some(matcher);
                    } else if let Some(command) = unquote(line, "command") {
                        fields.2 = command;
                    } else {
                        assert!(line.is_empty(), "only the four keys Kimi allows: {line}");
                    }
                }
                fields
            })
            .collect()
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
                (EditKind::McpServer, MCP_JSON, ConfigFormat::Json, false),
                (EditKind::Hooks, CONFIG, ConfigFormat::Toml, false),
                (
                    EditKind::Instructions,
                    GLOBAL_AGENTS_MD,
                    ConfigFormat::Text,
                    true
                ),
            ]
        );
        let project = super::plan(&input("cm", Some("/home/dev/app")));
        assert_eq!(project.edits[2].file, "{project}/AGENTS.md");
        let mcp = parse_object(&plan.edits[0].content).unwrap();
        assert_eq!(mcp["mcpServers"]["context-mode"]["command"], "cm");
        assert_eq!(mcp["mcpServers"]["context-mode"]["args"][0], "serve");
    }

    #[test]
    fn one_hooks_table_per_event_with_only_kimis_keys() {
        let plan = plan(&input(r#"/Users/Jane "J" Doe/cm"#, None));
        let tables = hooks(&plan.edits[1].content);
        let events: Vec<&str> = tables.iter().map(|t| t.0.as_str()).collect();
        assert_eq!(
            events,
            [
                "PreToolUse",
                "PostToolUse",
                "PostToolUseFailure",
                "PreCompact",
                "SessionStart",
                "UserPromptSubmit",
                "Stop"
            ]
        );
        assert_eq!(
            tables[0].2,
            r#""/Users/Jane \"J\" Doe/cm" hook kimi pretooluse"#
        );
        assert!(tables[4].1.is_none() && tables[6].1.is_none());
        assert_eq!(toml_string("a\\b\u{1}"), "\"a\\\\b\\u0001\"");
    }

    #[test]
    fn tool_matchers_skip_our_tools() {
        let plan = plan(&input("cm", None));
        let tables = hooks(&plan.edits[1].content);
        let pre = tables[0].1.as_deref().unwrap();
        for tool in [
            "Bash",
            "Read",
            "Grep",
            "FetchURL",
            "mcp__github__create_issue",
            "mcp__context-mode__status",
        ] {
            assert!(matches(pre, tool), "{tool}");
        }
        for tool in [
            "mcp__context-mode__ctx_execute",
            "mcp__context-mode__ctx_batch_execute",
            "Write",
            "BashX",
            "XBash",
        ] {
            assert!(!matches(pre, tool), "{tool}");
        }
        let post = tables[1].1.as_deref().unwrap();
        assert!(matches(post, "Edit") && matches(post, "Agent"));
        assert!(!matches(post, "mcp__context-mode__ctx_search"));
    }

    #[test]
    fn routing_text_names_kimis_tool_spelling() {
        let plan = plan(&input("cm", None));
        assert!(plan.edits[2].content.contains("mcp__context-mode__ctx_*"));
    }
}
