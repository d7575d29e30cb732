//! Quill reads `~/.quill/agent.toml`: `[hooks]` maps an event to the command it runs,
//! `[mcp_servers.<name>]` starts an MCP server.

use crate::ADAPTER_ID;
use crate::describe::EVENTS;
use crate::exports::context_mode::plugin::adapter::{
    ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan,
};

const CONFIG_FILE: &str = "~/.quill/agent.toml";

pub fn plan(input: &SetupInput) -> SetupPlan {
    let cm = match input.cm_command.trim() {
        "" => "cm",
        given => given,
    };
    let hooks: String = EVENTS
        .iter()
        .map(|event| {
            let command = format!("{} hook {ADAPTER_ID} {}", shell_word(cm), event.name);
            format!("{} = {}\n", toml_string(event.name), toml_string(&command))
        })
        .collect();
    SetupPlan {
        edits: vec![
            ConfigEdit {
                kind: EditKind::Hooks,
                file: CONFIG_FILE.into(),
                format: ConfigFormat::Toml,
                content: format!("[hooks]\n{hooks}"),
                summary: "Register context-mode's hooks with Quill".into(),
                optional: false,
            },
            ConfigEdit {
                kind: EditKind::McpServer,
                file: CONFIG_FILE.into(),
                format: ConfigFormat::Toml,
                content: format!(
                    "[mcp_servers.context-mode]\ncommand = {}\nargs = [\"serve\"]\n",
                    toml_string(cm)
                ),
                summary: "Register the context-mode MCP server (cm serve) with Quill".into(),
                optional: false,
            },
        ],
    }
}

/// A TOML basic string: JSON's string escapes are valid TOML ones.
fn toml_string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

fn shell_word(word: &str) -> String {
    let safe = word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,~".contains(c));
    if safe {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
