//! The config edits `cm setup --agents {{id}}` applies: this host reads one file,
//! `~/.{{id}}/config.json`, with its hook commands and its MCP servers:
//!
//! ```json
//! {"hooks": {"pre-tool": ["cm hook {{id}} pre-tool"], …},
//!  "mcpServers": {"context-mode": {"command": "cm", "args": ["serve"]}}}
//! ```
//!
//! `cm setup` merges each edit key by key into the user's file (arrays: entries added
//! when missing), backs the file up first and can take the edits out again
//! (`cm setup --remove`); `cm doctor` checks both edits are still in place.

use serde_json::{Value, json};

use crate::ADAPTER_ID;
use crate::describe::EVENTS;
use crate::exports::context_mode::plugin::adapter::{
    ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan,
};

/// `~/` is the user's home; `{project}/` would be the project of `cm setup --project`.
fn config_file() -> String {
    format!("~/.{ADAPTER_ID}/config.json")
}

pub fn plan(input: &SetupInput) -> SetupPlan {
    let cm = match input.cm_command.trim() {
        "" => "cm",
        given => given,
    };
    SetupPlan {
        edits: vec![hooks_edit(cm), mcp_edit(cm)],
    }
}

fn hooks_edit(cm: &str) -> ConfigEdit {
    let hooks: serde_json::Map<String, Value> = EVENTS
        .iter()
        .map(|event| {
            let command = format!("{} hook {ADAPTER_ID} {}", shell_word(cm), event.name);
            (event.name.to_owned(), json!([command]))
        })
        .collect();
    ConfigEdit {
        kind: EditKind::Hooks,
        file: config_file(),
        format: ConfigFormat::Json,
        content: json!({ "hooks": hooks }).to_string(),
        summary: format!("Register context-mode's hooks with {ADAPTER_ID}"),
        optional: false,
    }
}

fn mcp_edit(cm: &str) -> ConfigEdit {
    // The server name is what `ctx_tool_name` gets as `server`.
    let server = json!({ "command": cm, "args": ["serve"] });
    ConfigEdit {
        kind: EditKind::McpServer,
        file: config_file(),
        format: ConfigFormat::Json,
        content: json!({ "mcpServers": { "context-mode": server } }).to_string(),
        summary: format!("Register the context-mode MCP server (cm serve) with {ADAPTER_ID}"),
        optional: false,
    }
}

/// The `cm` path as one word of a shell command line (hosts run hooks through a shell):
/// bare when safe, else double-quoted.
fn shell_word(word: &str) -> String {
    let safe = word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,~".contains(c));
    if safe {
        return word.to_owned();
    }
    let mut quoted = String::from('"');
    for c in word.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    quoted
}
