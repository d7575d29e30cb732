//! The setup plan of a host of the OpenCode family, from where the host keeps its
//! configuration:
//!
//! - MCP server: `mcp.context-mode = {type: "local", command: [cm, "serve"]}` in the
//!   global config file (**verified**: the shape both CLIs read, and the server
//!   connected in the real sessions). Not the native `ctx_*` plugin tools upstream's
//!   npm plugin registers: see docs/adr/0028;
//! - hooks: the shim as a file of its own in the global config folder's `plugins/`,
//!   which the host loads at start without any config entry (**verified**: both
//!   loaders glob `{plugin,plugins}/*.{ts,js}` in every config folder, and loaded this
//!   file). No `plugin` array entry: that is for npm packages and `file://` specs, and a
//!   second path to the same file would load it twice;
//! - instructions (optional): `AGENTS.md` in the global config folder (every project)
//!   or the project's `AGENTS.md` (this project), the rules files both hosts read.

use serde_json::Value;

use crate::JsonObject;
use crate::adapter::{ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan};
use crate::json::to_pretty;
use crate::setup::cm_command;

/// The name setup registers the MCP server under.
pub const MCP_SERVER: &str = "context-mode";

/// Where one host of the family keeps its configuration.
pub struct OpenCodeHost {
    pub platform: &'static str,
    pub display_name: &'static str,
    /// The global config folder, e.g. `{env:XDG_CONFIG_HOME|~/.config}/opencode`.
    pub dir: &'static str,
    /// The config file in it, e.g. `opencode.json`.
    pub file: &'static str,
    /// The routing instructions (`configs/opencode/AGENTS.md`).
    pub routing_text: &'static str,
}

/// The plan of `host`; `shim` is the template of `configs/opencode/context-mode.js`.
pub fn opencode_setup_plan(host: &OpenCodeHost, shim: &str, input: &SetupInput) -> SetupPlan {
    let cm = cm_command(&input.cm_command);
    SetupPlan {
        edits: vec![
            mcp_edit(host, cm),
            plugin_edit(host, shim, cm),
            routing_edit(host, input.project_dir.is_some()),
        ],
    }
}

fn mcp_edit(host: &OpenCodeHost, cm: &str) -> ConfigEdit {
    let server = JsonObject::new()
        .put("type", "local")
        .put("command", Value::Array(vec![cm.into(), "serve".into()]))
        .put("enabled", true);
    let document = JsonObject::new().put("mcp", JsonObject::new().put(MCP_SERVER, server));
    ConfigEdit {
        kind: EditKind::McpServer,
        file: format!("{}/{}", host.dir, host.file),
        format: ConfigFormat::Json,
        content: to_pretty(&document.into_value()),
        summary: format!(
            "Register the context-mode MCP server (cm serve) with {} for every project",
            host.display_name
        ),
        optional: false,
    }
}

fn plugin_edit(host: &OpenCodeHost, shim: &str, cm: &str) -> ConfigEdit {
    ConfigEdit {
        kind: EditKind::Hooks,
        file: format!("{}/plugins/context-mode.js", host.dir),
        format: ConfigFormat::Text,
        content: super::shim_source(shim, cm, host.platform),
        summary: format!(
            "Add the context-mode plugin that hands {}'s tool, prompt, compaction and system-prompt events to cm hook",
            host.display_name
        ),
        optional: false,
    }
}

fn routing_edit(host: &OpenCodeHost, for_project: bool) -> ConfigEdit {
    let (file, scope) = if for_project {
        ("{project}/AGENTS.md".to_owned(), "this project")
    } else {
        (format!("{}/AGENTS.md", host.dir), "every project")
    };
    ConfigEdit {
        kind: EditKind::Instructions,
        file,
        format: ConfigFormat::Text,
        content: host.routing_text.to_owned(),
        summary: format!(
            "Add context-mode routing instructions to {}'s AGENTS.md for {scope}",
            host.display_name
        ),
        optional: true,
    }
}
