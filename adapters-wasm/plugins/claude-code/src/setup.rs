//! The config edits that register context-mode with Claude Code.
//!
//! - hooks: `~/.claude/settings.json` (`hooks.<Event>[{matcher, hooks[]}]`);
//! - MCP server: `~/.claude.json` `mcpServers` — the user-scope file Claude
//!   Code reads servers from (`settings.json` has no `mcpServers`);
//! - routing instructions: a file of our own under `.claude/rules/`, which
//!   Claude Code loads like CLAUDE.md, so the user's CLAUDE.md is never rewritten;
//! - status line (optional): `statusLine` in `~/.claude/settings.json`.
//!
//! From Claude Code 2.1.197 on (the first release whose settings schema has the
//! `mcp_tool` hook type; 2.1.196 has none) the tool events are answered by the running
//! `cm serve` instead of a `cm hook` process per call (ADR 27): their entries are
//! `{"type": "mcp_tool", "server": "context-mode", "tool": "ctx_hook", "input": …}`.
//! Claude Code interpolates `${field}` in the input's strings from the hook's JSON
//! (objects as JSON text), so the payload is rebuilt field by field and marked, and
//! `parse` turns it back into the payload a command hook reads. SessionStart fires before
//! the MCP servers connect, and the prompt, compaction and stop events are rare, so they
//! stay command hooks.

use context_mode_sdk::claude_wire::{PAYLOAD_FORM_INTERPOLATED, PAYLOAD_FORM_KEY};
use context_mode_sdk::json::to_pretty;
use context_mode_sdk::serde_json::Value;
use context_mode_sdk::setup::{cm_command, hook_command, shell_word};
use context_mode_sdk::{EventKind, JsonObject};

use crate::ADAPTER_ID;
use crate::describe::EVENTS;
use context_mode_sdk::adapter::{ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan};

const ROUTING_TEXT: &str = include_str!("../../../../configs/claude-code/routing.md");

/// Built-in tools whose calls the routing policy acts on.
const PRE_TOOL_BUILTINS: &str = "Bash|Read|Grep|Glob|WebFetch|WebSearch|Task|Agent";
/// Built-in tools whose results feed the session journal (edits, tasks, plans too).
const POST_TOOL_BUILTINS: &str = "Bash|Read|Grep|Glob|WebFetch|WebSearch|Task|Agent|Edit|Write|MultiEdit|NotebookEdit|TodoWrite|ExitPlanMode|Skill";
/// Every MCP tool except our own (plugin and standalone spellings): hooking our
/// own tools would make every ctx call fire the hook on itself.
const OTHER_MCP_TOOLS: &str = "^mcp__(?!(plugin_context-mode_context-mode|context-mode)__ctx_).*$";

/// The tool-name regex for a tool event. Anchored both ends so it means the
/// same whether Claude Code tests it as a search or as a full match.
fn tool_matcher(builtins: &str) -> String {
    format!("^({builtins})$|{OTHER_MCP_TOOLS}")
}

fn matcher(kind: EventKind) -> String {
    match kind {
        EventKind::PreToolUse => tool_matcher(PRE_TOOL_BUILTINS),
        EventKind::PostToolUse => tool_matcher(POST_TOOL_BUILTINS),
        // Empty matches every trigger/source of the non-tool events.
        _ => String::new(),
    }
}

/// The first Claude Code release with `mcp_tool` hooks.
const IN_SERVER_HOOKS_SINCE: (u64, u64, u64) = (2, 1, 197);

/// The name setup registers the MCP server under (`mcp_edit`), which an `mcp_tool`
/// hook names.
const MCP_SERVER: &str = "context-mode";

/// The server's hook tool, which tools/list does not show (ADR 27).
const HOOK_TOOL: &str = "ctx_hook";

/// How long Claude Code waits for the server's answer before going on without it
/// (its default is ten minutes); `cm hook`'s own budget.
const IN_SERVER_HOOK_TIMEOUT_SECS: u64 = 5;

/// The hook payload's fields, each interpolated by Claude Code from its JSON; an absent
/// one becomes "". `cm_payload` marks the form for `parse`.
const PAYLOAD_FIELDS: &[&str] = &[
    "hook_event_name",
    "session_id",
    "transcript_path",
    "cwd",
    "permission_mode",
    "agent_id",
    "agent_type",
    "tool_name",
    "tool_input",
    "tool_use_id",
    "tool_response",
    "duration_ms",
    "error",
];

/// How the tool events reach `cm`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HookTransport {
    /// A `cm hook` process per call.
    Command,
    /// The running `cm serve` answers (`mcp_tool` hooks).
    InServer,
}

pub fn plan(input: &SetupInput) -> SetupPlan {
    plan_with(input, HookTransport::Command)
}

/// The plan for the Claude Code version `claude --version` printed
/// (`2.1.332 (Claude Code)`).
pub fn plan_for_version(input: &SetupInput, host_version: &str) -> SetupPlan {
    let transport = match release(host_version) {
        Some(version) if version >= IN_SERVER_HOOKS_SINCE => HookTransport::InServer,
        _ => HookTransport::Command,
    };
    plan_with(input, transport)
}

/// `major.minor.patch` from the first word of a version line.
fn release(line: &str) -> Option<(u64, u64, u64)> {
    let word = line.split_whitespace().next()?;
    let core = word.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|part| part.parse::<u64>().ok());
    let version = (parts.next()??, parts.next()??, parts.next()??);
    parts.next().is_none().then_some(version)
}

fn plan_with(input: &SetupInput, transport: HookTransport) -> SetupPlan {
    let cm = cm_command(&input.cm_command);
    let edits = vec![
        hooks_edit(cm, transport),
        mcp_edit(cm),
        routing_edit(input.project_dir.is_some()),
        status_line_edit(cm),
    ];
    SetupPlan { edits }
}

fn hooks_edit(cm: &str, transport: HookTransport) -> ConfigEdit {
    let hooks = EVENTS.iter().fold(JsonObject::new(), |hooks, event| {
        let in_server = transport == HookTransport::InServer
            && matches!(event.kind, EventKind::PreToolUse | EventKind::PostToolUse);
        let handler = if in_server {
            in_server_handler(event.cli)
        } else {
            JsonObject::new()
                .put("type", "command")
                .put("command", hook_command(cm, ADAPTER_ID, event.cli))
        };
        let group = JsonObject::new()
            .put("matcher", matcher(event.kind))
            .put("hooks", Value::Array(vec![handler.into()]));
        hooks.put(event.name, Value::Array(vec![group.into()]))
    });
    ConfigEdit {
        kind: EditKind::Hooks,
        file: "~/.claude/settings.json".to_owned(),
        format: ConfigFormat::Json,
        content: to_pretty(&JsonObject::new().put("hooks", hooks).into_value()),
        summary: "Register context-mode hooks for Claude Code's tool, prompt, compaction, session-start and stop events".to_owned(),
        optional: false,
    }
}

/// An `mcp_tool` hook entry: `ctx_hook` of our server with the payload rebuilt from
/// Claude Code's interpolation.
fn in_server_handler(event: &str) -> JsonObject {
    let payload = PAYLOAD_FIELDS
        .iter()
        .fold(JsonObject::new(), |payload, field| {
            payload.put(field, format!("${{{field}}}"))
        })
        .put(PAYLOAD_FORM_KEY, PAYLOAD_FORM_INTERPOLATED);
    let input = JsonObject::new()
        .put("platform", ADAPTER_ID)
        .put("event", event)
        .put("payload", payload);
    JsonObject::new()
        .put("type", "mcp_tool")
        .put("server", MCP_SERVER)
        .put("tool", HOOK_TOOL)
        .put("input", input)
        .put("timeout", IN_SERVER_HOOK_TIMEOUT_SECS)
}

fn mcp_edit(cm: &str) -> ConfigEdit {
    let server = JsonObject::new()
        .put("type", "stdio")
        .put("command", cm)
        .put("args", Value::Array(vec![Value::from("serve")]));
    let document = JsonObject::new().put("mcpServers", JsonObject::new().put(MCP_SERVER, server));
    ConfigEdit {
        kind: EditKind::McpServer,
        file: "~/.claude.json".to_owned(),
        format: ConfigFormat::Json,
        content: to_pretty(&document.into_value()),
        summary: "Register the context-mode MCP server (cm serve) for every Claude Code project"
            .to_owned(),
        optional: false,
    }
}

fn routing_edit(for_project: bool) -> ConfigEdit {
    let (file, scope) = if for_project {
        ("{project}/.claude/rules/context-mode.md", "this project")
    } else {
        ("~/.claude/rules/context-mode.md", "every project")
    };
    ConfigEdit {
        kind: EditKind::Instructions,
        file: file.to_owned(),
        format: ConfigFormat::Text,
        content: ROUTING_TEXT.to_owned(),
        summary: format!(
            "Add context-mode routing instructions to Claude Code's rules for {scope}"
        ),
        optional: true,
    }
}

/// Claude Code runs the status-line command with the session's JSON on stdin
/// and shows the first line it prints.
fn status_line_edit(cm: &str) -> ConfigEdit {
    let status_line = JsonObject::new()
        .put("type", "command")
        .put("command", format!("{} statusline", shell_word(cm)));
    ConfigEdit {
        kind: EditKind::StatusLine,
        file: "~/.claude/settings.json".to_owned(),
        format: ConfigFormat::Json,
        content: to_pretty(
            &JsonObject::new()
                .put("statusLine", status_line)
                .into_value(),
        ),
        summary: "Show context-mode's kept-out bytes in Claude Code's status line".to_owned(),
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

    /// The first edit of a file (the hooks edit before the status line's).
    fn edit<'a>(plan: &'a SetupPlan, file: &str) -> &'a ConfigEdit {
        plan.edits
            .iter()
            .find(|e| e.file == file)
            .unwrap_or_else(|| panic!("no edit for {file}"))
    }

    /// Claude Code evaluates matchers as JavaScript regexes; fancy-regex has
    /// the same lookahead syntax. Checked both as a search and as a full match.
    fn matcher_accepts(matcher: &str, tool: &str) -> bool {
        let search = fancy_regex::Regex::new(matcher).unwrap();
        let full = fancy_regex::Regex::new(&format!("^(?:{matcher})$")).unwrap();
        let found = search.is_match(tool).unwrap();
        assert_eq!(found, full.is_match(tool).unwrap(), "{matcher} on {tool}");
        found
    }

    #[test]
    fn hooks_cover_seven_events_with_the_cm_command() {
        let plan = plan(&input("/usr/local/bin/cm", None));
        let hooks_edit = edit(&plan, "~/.claude/settings.json");
        assert_eq!(hooks_edit.format, ConfigFormat::Json);
        assert!(!hooks_edit.optional);
        let doc = parse_object(&hooks_edit.content).unwrap();
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
            "/usr/local/bin/cm hook claude-code pretooluse"
        );
        assert_eq!(hooks["PreToolUse"][0]["hooks"][0]["type"], "command");
        assert_eq!(
            hooks["Stop"][0]["hooks"][0]["command"],
            "/usr/local/bin/cm hook claude-code stop"
        );
        assert_eq!(hooks["SessionStart"][0]["matcher"], "");
    }

    #[test]
    fn releases_from_2_1_197_on_get_the_tool_events_answered_in_server() {
        let hooks_of = |version: &str| {
            let plan = plan_for_version(&input("cm", None), version);
            parse_object(&edit(&plan, "~/.claude/settings.json").content).unwrap()["hooks"].clone()
        };
        for version in [
            "2.1.197 (Claude Code)",
            "2.1.332 (Claude Code)",
            "2.2.0",
            "3.0.1-beta",
        ] {
            let hooks = hooks_of(version);
            for event in ["PreToolUse", "PostToolUse", "PostToolUseFailure"] {
                let handler = &hooks[event][0]["hooks"][0];
                assert_eq!(handler["type"], "mcp_tool", "{version} {event}");
                assert_eq!(handler["server"], "context-mode");
                assert_eq!(handler["tool"], "ctx_hook");
                assert_eq!(handler["timeout"], 5);
                assert_eq!(handler["input"]["platform"], "claude-code");
                let payload = &handler["input"]["payload"];
                assert_eq!(payload["tool_input"], "${tool_input}");
                assert_eq!(payload[PAYLOAD_FORM_KEY], PAYLOAD_FORM_INTERPOLATED);
            }
            assert_eq!(
                hooks["PreToolUse"][0]["hooks"][0]["input"]["event"],
                "pretooluse"
            );
            // The same matchers as the command hooks: our own tools never fire them.
            assert_eq!(
                hooks["PreToolUse"][0]["matcher"],
                matcher(EventKind::PreToolUse).as_str()
            );
            for event in ["SessionStart", "UserPromptSubmit", "PreCompact", "Stop"] {
                assert_eq!(hooks[event][0]["hooks"][0]["type"], "command", "{event}");
            }
        }
        for older in [
            "2.1.196 (Claude Code)",
            "2.0.77",
            "1.0.93",
            "",
            "unknown",
            "2.1",
        ] {
            let hooks = hooks_of(older);
            assert_eq!(
                hooks["PreToolUse"][0]["hooks"][0]["type"], "command",
                "{older:?}"
            );
            assert_eq!(hooks, hooks_of_plain(), "{older:?}");
        }
    }

    fn hooks_of_plain() -> Value {
        let plan = plan(&input("cm", None));
        parse_object(&edit(&plan, "~/.claude/settings.json").content).unwrap()["hooks"].clone()
    }

    #[test]
    fn tool_matchers_skip_our_own_tools() {
        let plan = plan(&input("cm", None));
        let doc = parse_object(&edit(&plan, "~/.claude/settings.json").content).unwrap();
        let pre = doc["hooks"]["PreToolUse"][0]["matcher"].as_str().unwrap();
        for tool in [
            "Bash",
            "Read",
            "Grep",
            "Glob",
            "WebFetch",
            "WebSearch",
            "Task",
            "Agent",
            "mcp__github__list_issues",
        ] {
            assert!(matcher_accepts(pre, tool), "{tool}");
        }
        for tool in [
            "mcp__plugin_context-mode_context-mode__ctx_execute",
            "mcp__context-mode__ctx_search",
            "Edit",
            "TodoWrite",
            "BashOutput",
        ] {
            assert!(!matcher_accepts(pre, tool), "{tool}");
        }
        let post = doc["hooks"]["PostToolUse"][0]["matcher"].as_str().unwrap();
        for tool in ["Edit", "Write", "TodoWrite", "Bash", "mcp__github__x"] {
            assert!(matcher_accepts(post, tool), "{tool}");
        }
        assert!(!matcher_accepts(post, "mcp__context-mode__ctx_execute"));
    }

    #[test]
    fn mcp_server_goes_to_claude_json() {
        let plan = plan(&input("/opt/cm/bin/cm", None));
        let doc = parse_object(&edit(&plan, "~/.claude.json").content).unwrap();
        let server = &doc["mcpServers"]["context-mode"];
        assert_eq!(server["command"], "/opt/cm/bin/cm");
        assert_eq!(server["args"][0], "serve");
        assert_eq!(server["type"], "stdio");
    }

    #[test]
    fn routing_file_is_optional_and_scoped() {
        let global = plan(&input("cm", None));
        let rules = edit(&global, "~/.claude/rules/context-mode.md");
        assert!(rules.optional);
        assert_eq!(rules.format, ConfigFormat::Text);
        assert!(rules.content.contains("ctx_execute"));
        let project = plan(&input("cm", Some("/home/dev/app")));
        assert!(edit(&project, "{project}/.claude/rules/context-mode.md").optional);
    }

    #[test]
    fn every_edit_says_what_it_registers() {
        let plan = plan(&input("cm", None));
        let kinds: Vec<EditKind> = plan.edits.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [
                EditKind::Hooks,
                EditKind::McpServer,
                EditKind::Instructions,
                EditKind::StatusLine
            ]
        );
        let status = &plan.edits[3];
        assert!(status.optional);
        assert_eq!(status.file, "~/.claude/settings.json");
        let doc = parse_object(&status.content).unwrap();
        assert_eq!(doc["statusLine"]["command"], "cm statusline");
        assert_eq!(doc["statusLine"]["type"], "command");
    }

    #[test]
    fn cm_paths_with_spaces_are_quoted_for_the_shell() {
        let plan = plan(&input("/Users/Jane Doe/bin/cm", None));
        let doc = parse_object(&edit(&plan, "~/.claude/settings.json").content).unwrap();
        assert_eq!(
            doc["hooks"]["Stop"][0]["hooks"][0]["command"],
            r#""/Users/Jane Doe/bin/cm" hook claude-code stop"#
        );
        assert_eq!(shell_word(r#"a"b$c"#), r#""a\"b\$c""#);
        let mcp = parse_object(&edit(&plan, "~/.claude.json").content).unwrap();
        assert_eq!(
            mcp["mcpServers"]["context-mode"]["command"],
            "/Users/Jane Doe/bin/cm"
        );
    }

    #[test]
    fn blank_cm_command_falls_back_to_cm_and_plans_are_deterministic() {
        let a = plan(&input("  ", None));
        let b = plan(&input("  ", None));
        let doc = parse_object(&edit(&a, "~/.claude.json").content).unwrap();
        assert_eq!(doc["mcpServers"]["context-mode"]["command"], "cm");
        let contents = |p: &SetupPlan| {
            p.edits
                .iter()
                .map(|e| e.content.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(contents(&a), contents(&b));
    }
}
