//! Host tool names → normalized `tool-kind`, shared by every adapter so that the
//! same tool is classified the same way whichever agent runs it.

use crate::types::ToolKind;

/// context-mode's own MCP tools. A bare name from this list is ours even when
/// the host shows MCP tools without a server prefix (Cursor, Codex, Pi).
pub const CTX_TOOLS: &[&str] = &[
    "ctx_execute",
    "ctx_execute_file",
    "ctx_batch_execute",
    "ctx_batch",
    "ctx_index",
    "ctx_search",
    "ctx_fetch_and_index",
    "ctx_resume",
    "ctx_stats",
    "ctx_doctor",
    "ctx_upgrade",
    "ctx_purge",
    "ctx_insight",
];

/// Built-in tool names of the supported hosts, compared case-insensitively.
const BUILTIN_KINDS: &[(ToolKind, &[&str])] = &[
    (
        ToolKind::Shell,
        &[
            "bash",
            "run_shell_command",
            "shell",
            "shell_command",
            "exec_command",
            "local_shell",
            "container.exec",
            "run_in_terminal",
            "execute_bash",
            // Antigravity CLI, Kiro.
            "run_command",
        ],
    ),
    (
        ToolKind::Read,
        // `view_file`: Antigravity CLI; `fs_read`: Kiro; `readfile`: Kimi Code.
        &[
            "read",
            "read_file",
            "read_many_files",
            "view",
            "view_file",
            "fs_read",
            "readfile",
        ],
    ),
    (
        ToolKind::Grep,
        &[
            "grep",
            "glob",
            "ls",
            "grep_search",
            "search_file_content",
            "grep_files",
            "find",
            // VS Code Copilot, Antigravity CLI.
            "list_dir",
            "file_search",
        ],
    ),
    (
        ToolKind::Edit,
        &[
            "edit",
            "write",
            "multiedit",
            "notebookedit",
            "apply_patch",
            "write_file",
            "replace",
            "edit_file",
            // Copilot CLI, VS Code Copilot, Kiro, Kimi Code.
            "create",
            "create_file",
            "replace_string_in_file",
            "multi_replace_string_in_file",
            "insert_edit_into_file",
            "fs_write",
            "writefile",
            "strreplacefile",
        ],
    ),
    // `fetch_webpage`: VS Code Copilot; `read_url_content`: Antigravity CLI; `fetchurl`: Kimi.
    (
        ToolKind::WebFetch,
        &[
            "webfetch",
            "web_fetch",
            "fetch",
            "fetch_webpage",
            "read_url_content",
            "fetchurl",
        ],
    ),
    (
        ToolKind::WebSearch,
        &[
            "websearch",
            "google_web_search",
            "web_search",
            "search_web",
            "searchweb",
        ],
    ),
    (ToolKind::Agent, &["task", "agent", "runsubagent"]),
];

/// A tool name split into its kind and, for MCP tools, server and tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedToolName {
    pub kind: ToolKind,
    pub mcp_server: Option<String>,
    pub mcp_tool: Option<String>,
}

impl ParsedToolName {
    fn builtin(kind: ToolKind) -> Self {
        Self {
            kind,
            mcp_server: None,
            mcp_tool: None,
        }
    }

    fn mcp(server: Option<&str>, tool: &str) -> Self {
        let server = server.filter(|s| !s.is_empty());
        let kind = if is_ctx_tool(server, tool) {
            ToolKind::Ctx
        } else {
            ToolKind::Mcp
        };
        Self {
            kind,
            mcp_server: server.map(str::to_owned),
            mcp_tool: Some(tool.to_owned()).filter(|t| !t.is_empty()),
        }
    }
}

/// The normalized kind of a host tool name.
pub fn tool_kind(name: &str) -> ToolKind {
    parse_tool_name(name).kind
}

/// True when `name` is one of context-mode's own tools under any host's naming.
pub fn is_ctx_tool_name(name: &str) -> bool {
    tool_kind(name) == ToolKind::Ctx
}

/// Classifies a host tool name.
///
/// MCP spellings understood: `mcp__<server>__<tool>` (Claude Code, Codex, Qwen,
/// Kimi), `mcp_<server>_<tool>` (Gemini CLI), `MCP:<tool>` (Cursor), `mcp:<server>:<tool>` (Zed),
/// `<server>_<tool>` / `<server>/<tool>` / `@<server>/<tool>` for the
/// `context-mode` server (OpenCode, Copilot, Antigravity CLI, Kiro), and a
/// bare `ctx_*` name of ours.
pub fn parse_tool_name(name: &str) -> ParsedToolName {
    let name = name.trim();
    if let Some(rest) = strip_prefix_ignore_case(name, "mcp__") {
        return match rest.split_once("__") {
            Some((server, tool)) => ParsedToolName::mcp(Some(server), tool),
            None => ParsedToolName::mcp(Some(rest), ""),
        };
    }
    // Gemini CLI: `mcp_<server>_<tool>`, the server being everything up to the first
    // `_` (its own `parseMcpToolName` splits the same way).
    if let Some(rest) = name.strip_prefix("mcp_")
        && let Some((server, tool)) = rest.split_once('_')
        && !server.is_empty()
        && !tool.is_empty()
    {
        return ParsedToolName::mcp(Some(server), tool);
    }
    if let Some(tool) = name.strip_prefix("MCP:") {
        return ParsedToolName::mcp(None, tool.trim());
    }
    if let Some(rest) = name.strip_prefix("mcp:") {
        return match rest.split_once(':') {
            Some((server, tool)) => ParsedToolName::mcp(Some(server), tool),
            None => ParsedToolName::mcp(None, rest),
        };
    }
    // VS Code and JetBrains Copilot show MCP tools as `f1e_<tool>` (no server name).
    if let Some(tool) = name.strip_prefix("f1e_") {
        return ParsedToolName::mcp(None, tool);
    }
    if let Some(parsed) = ours_with_server_prefix(name) {
        return parsed;
    }
    if CTX_TOOLS.contains(&name) {
        return ParsedToolName::mcp(None, name);
    }
    let lower = name.to_ascii_lowercase();
    BUILTIN_KINDS
        .iter()
        .find(|(_, names)| names.contains(&lower.as_str()))
        .map(|(kind, _)| ParsedToolName::builtin(*kind))
        .unwrap_or_else(|| ParsedToolName::builtin(ToolKind::Other))
}

/// `context-mode_ctx_x`, `context-mode/ctx_x`, `@context-mode/ctx_x`.
fn ours_with_server_prefix(name: &str) -> Option<ParsedToolName> {
    let unprefixed = name.strip_prefix('@').unwrap_or(name);
    let (server, tool) = ["/", "_"].iter().find_map(|sep| {
        let (server, tool) = unprefixed.split_once(sep)?;
        is_our_server(server).then_some((server, tool))
    })?;
    tool.starts_with("ctx_")
        .then(|| ParsedToolName::mcp(Some(server), tool))
}

fn is_ctx_tool(server: Option<&str>, tool: &str) -> bool {
    if !tool.starts_with("ctx_") {
        return false;
    }
    match server {
        Some(server) => is_our_server(server),
        // Without a server name only our exact tool names are trusted.
        None => CTX_TOOLS.contains(&tool),
    }
}

/// Claude Code names a plugin's server `plugin_<plugin>_<server>`, so match by containment.
fn is_our_server(server: &str) -> bool {
    let lower = server.to_ascii_lowercase();
    lower.contains("context-mode") || lower.contains("context_mode")
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(name: &str) -> ToolKind {
        tool_kind(name)
    }

    #[test]
    fn tools_of_the_copilot_kiro_kimi_and_antigravity_hosts() {
        for (name, expected) in [
            ("run_command", ToolKind::Shell),
            ("view_file", ToolKind::Read),
            ("fs_read", ToolKind::Read),
            ("ReadFile", ToolKind::Read),
            ("list_dir", ToolKind::Grep),
            ("file_search", ToolKind::Grep),
            ("create", ToolKind::Edit),
            ("replace_string_in_file", ToolKind::Edit),
            ("fs_write", ToolKind::Edit),
            ("StrReplaceFile", ToolKind::Edit),
            ("fetch_webpage", ToolKind::WebFetch),
            ("read_url_content", ToolKind::WebFetch),
            ("FetchURL", ToolKind::WebFetch),
            ("search_web", ToolKind::WebSearch),
            ("SearchWeb", ToolKind::WebSearch),
            ("runSubagent", ToolKind::Agent),
            ("f1e_ctx_execute", ToolKind::Ctx),
            ("f1e_list_issues", ToolKind::Mcp),
            ("context-mode/ctx_search", ToolKind::Ctx),
        ] {
            assert_eq!(kind(name), expected, "{name}");
        }
    }

    #[test]
    fn shell_tools_of_every_host_are_shell() {
        for name in [
            "Bash",
            "run_shell_command",
            "shell",
            "shell_command",
            "exec_command",
            "local_shell",
            "container.exec",
            "run_in_terminal",
            "execute_bash",
            "Shell",
        ] {
            assert_eq!(kind(name), ToolKind::Shell, "{name}");
        }
    }

    #[test]
    fn builtin_families_map_to_their_kind() {
        let cases: &[(&[&str], ToolKind)] = &[
            (
                &["Read", "read_file", "read_many_files", "view"],
                ToolKind::Read,
            ),
            (
                &[
                    "Grep",
                    "Glob",
                    "LS",
                    "grep_search",
                    "search_file_content",
                    "grep_files",
                    "glob",
                    "find",
                ],
                ToolKind::Grep,
            ),
            (
                &[
                    "Edit",
                    "Write",
                    "MultiEdit",
                    "NotebookEdit",
                    "apply_patch",
                    "write_file",
                    "replace",
                    "edit_file",
                ],
                ToolKind::Edit,
            ),
            (&["WebFetch", "web_fetch", "fetch"], ToolKind::WebFetch),
            (
                &["WebSearch", "google_web_search", "web_search"],
                ToolKind::WebSearch,
            ),
            (&["Task", "Agent"], ToolKind::Agent),
        ];
        for (names, expected) in cases {
            for name in *names {
                assert_eq!(kind(name), *expected, "{name}");
            }
        }
    }

    #[test]
    fn unknown_tools_are_other() {
        for name in ["TodoWrite", "ExitPlanMode", "", "Bashful", "readme"] {
            assert_eq!(kind(name), ToolKind::Other, "{name}");
        }
    }

    #[test]
    fn gemini_spelling_splits_at_the_first_underscore() {
        let parsed = parse_tool_name("mcp_github_list_issues");
        assert_eq!(parsed.kind, ToolKind::Mcp);
        assert_eq!(parsed.mcp_server.as_deref(), Some("github"));
        assert_eq!(parsed.mcp_tool.as_deref(), Some("list_issues"));
        assert_eq!(kind("mcp_context-mode_ctx_execute"), ToolKind::Ctx);
        assert_eq!(kind("mcp_context-mode_status"), ToolKind::Mcp);
    }

    #[test]
    fn claude_mcp_names_split_into_server_and_tool() {
        let parsed = parse_tool_name("mcp__github__list_issues");
        assert_eq!(parsed.kind, ToolKind::Mcp);
        assert_eq!(parsed.mcp_server.as_deref(), Some("github"));
        assert_eq!(parsed.mcp_tool.as_deref(), Some("list_issues"));
    }

    #[test]
    fn our_tools_are_ctx_under_plugin_and_standalone_names() {
        for name in [
            "mcp__plugin_context-mode_context-mode__ctx_execute",
            "mcp__context-mode__ctx_search",
            "mcp__context_mode__ctx_batch_execute",
        ] {
            assert_eq!(kind(name), ToolKind::Ctx, "{name}");
        }
        let parsed = parse_tool_name("mcp__plugin_context-mode_context-mode__ctx_execute");
        assert_eq!(
            parsed.mcp_server.as_deref(),
            Some("plugin_context-mode_context-mode")
        );
        assert_eq!(parsed.mcp_tool.as_deref(), Some("ctx_execute"));
    }

    #[test]
    fn ctx_prefix_on_another_server_is_plain_mcp() {
        assert_eq!(kind("mcp__other__ctx_execute"), ToolKind::Mcp);
        assert_eq!(kind("mcp__context-mode__status"), ToolKind::Mcp);
    }

    #[test]
    fn cursor_mcp_names() {
        let ours = parse_tool_name("MCP:ctx_execute");
        assert_eq!(ours.kind, ToolKind::Ctx);
        assert_eq!(ours.mcp_server, None);
        assert_eq!(ours.mcp_tool.as_deref(), Some("ctx_execute"));
        assert_eq!(kind("MCP:list_issues"), ToolKind::Mcp);
        assert_eq!(kind("MCP:ctx_made_up"), ToolKind::Mcp);
    }

    #[test]
    fn other_hosts_spellings_of_our_tools() {
        for name in [
            "context-mode_ctx_execute",
            "context-mode/ctx_search",
            "@context-mode/ctx_index",
            "mcp:context-mode:ctx_stats",
            "ctx_fetch_and_index",
        ] {
            assert_eq!(kind(name), ToolKind::Ctx, "{name}");
        }
        assert_eq!(kind("mcp:github:list"), ToolKind::Mcp);
        assert_eq!(kind("ctx_not_ours"), ToolKind::Other);
    }

    #[test]
    fn server_without_tool_is_mcp_without_tool() {
        let parsed = parse_tool_name("mcp__lonely");
        assert_eq!(parsed.kind, ToolKind::Mcp);
        assert_eq!(parsed.mcp_server.as_deref(), Some("lonely"));
        assert_eq!(parsed.mcp_tool, None);
    }

    #[test]
    fn non_ascii_names_do_not_panic() {
        assert_eq!(kind("mçp__x"), ToolKind::Other);
        assert_eq!(kind("é"), ToolKind::Other);
        assert!(!is_ctx_tool_name("ツール"));
    }
}
