//! What every MCP-only host shares (Zed, Antigravity IDE): no hook events, so `parse`
//! refuses every event name and `render` has nothing to say; the setup plan is one MCP
//! server entry in the host's settings file plus the optional routing file the model
//! reads, which is the host's only enforcement.

use serde_json::Value;

use crate::adapter::{
    ConfigEdit, ConfigFormat, Descriptor, EditKind, ParseError, ParseInput, Rendered, Reply,
    SetupInput, SetupPlan,
};
use crate::json::{JsonObject, to_pretty};
use crate::setup::cm_command;
use crate::{HostEvent, NormalizedEvent, strings};

/// An MCP-only host's events: none (`cm hook <id> …` has nothing to answer).
pub const NO_EVENTS: &[HostEvent] = &[];

/// The server name setup registers.
const SERVER_NAME: &str = "context-mode";

/// Who the host is, for an MCP-only adapter's `describe`: found by its MCP client
/// names (`cm serve`) and its file markers (`cm setup`); no events. `env_vars` are the
/// path variables its `{env:NAME|~/dir}` file names read (a per-OS settings folder).
pub struct McpOnlyIdentity {
    pub id: &'static str,
    pub display_name: &'static str,
    /// The adapter crate's version (`env!("CARGO_PKG_VERSION")` of the adapter).
    pub version: &'static str,
    pub client_names: &'static [&'static str],
    pub file_markers: &'static [&'static str],
    pub env_vars: &'static [&'static str],
}

/// The descriptor of an MCP-only host.
pub fn mcp_only_descriptor(host: &McpOnlyIdentity) -> Descriptor {
    Descriptor {
        id: host.id.to_owned(),
        display_name: host.display_name.to_owned(),
        version: host.version.to_owned(),
        client_names: strings(host.client_names),
        env_markers: Vec::new(),
        file_markers: strings(host.file_markers),
        events: Vec::new(),
        env_vars: strings(host.env_vars),
    }
}

/// `parse` of a host without hooks: every event name is unknown to it.
pub fn parse_no_event(input: &ParseInput) -> Result<NormalizedEvent, ParseError> {
    Err(ParseError::UnknownEvent(input.native_event.clone()))
}

/// `render` of a host without hooks: nothing on stdout, exit 0.
pub fn render_nothing(_reply: &Reply) -> Rendered {
    Rendered {
        stdout: String::new(),
        stderr: String::new(),
        exit_code: 0,
    }
}

/// Where the routing text goes, per host.
pub enum RoutingFile {
    /// Read only from the project root (Zed's `AGENTS.md`); without a project setup
    /// prints `without_project` as a step.
    ProjectOnly {
        project: &'static str,
        without_project: &'static str,
    },
    /// A project file, else a file read for every project.
    ProjectOrGlobal {
        project: &'static str,
        global: &'static str,
    },
}

/// One MCP-only host, as its setup plan needs it.
pub struct McpOnlyHost {
    pub display_name: &'static str,
    /// The settings file that holds the server entry, `~/`-relative.
    pub settings_file: &'static str,
    /// The object of that file the servers are keyed in (`mcpServers`, `context_servers`).
    pub servers_key: &'static str,
    /// The host's documented server shape has an `env` object (Zed's custom servers).
    pub env_object: bool,
    pub routing: RoutingFile,
    pub routing_text: &'static str,
}

/// The host's plan: its MCP server entry (required) and its routing file (optional).
pub fn mcp_only_plan(host: &McpOnlyHost, input: &SetupInput) -> SetupPlan {
    SetupPlan {
        edits: vec![
            server_edit(host, cm_command(&input.cm_command)),
            routing_edit(host, input.project_dir.is_some()),
        ],
    }
}

fn server_edit(host: &McpOnlyHost, cm: &str) -> ConfigEdit {
    let mut server = JsonObject::new()
        .put("command", cm)
        .put("args", Value::Array(vec![Value::from("serve")]));
    if host.env_object {
        server = server.put("env", JsonObject::new());
    }
    let document =
        JsonObject::new().put(host.servers_key, JsonObject::new().put(SERVER_NAME, server));
    ConfigEdit {
        kind: EditKind::McpServer,
        file: host.settings_file.to_owned(),
        format: ConfigFormat::Json,
        content: to_pretty(&document.into_value()),
        summary: format!(
            "Register the context-mode MCP server (cm serve) with {} ({} has no hooks: the ctx_* tools and the routing file are all it gets)",
            host.display_name, host.display_name
        ),
        optional: false,
    }
}

fn routing_edit(host: &McpOnlyHost, for_project: bool) -> ConfigEdit {
    let (file, content, summary) = match (&host.routing, for_project) {
        (RoutingFile::ProjectOnly { project, .. }, true)
        | (RoutingFile::ProjectOrGlobal { project, .. }, true) => (
            *project,
            host.routing_text.to_owned(),
            format!(
                "Add context-mode routing instructions for {} in this project",
                host.display_name
            ),
        ),
        (RoutingFile::ProjectOrGlobal { global, .. }, false) => (
            *global,
            host.routing_text.to_owned(),
            format!(
                "Add context-mode routing instructions for {} in every project",
                host.display_name
            ),
        ),
        (
            RoutingFile::ProjectOnly {
                without_project, ..
            },
            false,
        ) => (
            "",
            (*without_project).to_owned(),
            format!(
                "add context-mode routing instructions for {}, which reads them only from a project",
                host.display_name
            ),
        ),
    };
    ConfigEdit {
        kind: EditKind::Instructions,
        file: file.to_owned(),
        format: ConfigFormat::Text,
        content,
        summary,
        optional: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EventKind;
    use crate::adapter::Verdict;
    use crate::parse_object;

    const HOST: McpOnlyHost = McpOnlyHost {
        display_name: "Editor",
        settings_file: "~/.config/editor/settings.json",
        servers_key: "context_servers",
        env_object: true,
        routing: RoutingFile::ProjectOnly {
            project: "{project}/AGENTS.md",
            without_project: "run it in a project",
        },
        routing_text: "use ctx_execute",
    };

    fn input(cm: &str, project: Option<&str>) -> SetupInput {
        SetupInput {
            cm_command: cm.to_owned(),
            project_dir: project.map(str::to_owned),
        }
    }

    #[test]
    fn every_event_is_unknown_and_nothing_is_rendered() {
        let parsed = parse_no_event(&ParseInput {
            native_event: "pretooluse".to_owned(),
            stdin: "{}".to_owned(),
            env: Vec::new(),
            parent_pid: 1,
        });
        assert!(matches!(parsed, Err(ParseError::UnknownEvent(name)) if name == "pretooluse"));
        let rendered = render_nothing(&Reply::new(
            EventKind::PreToolUse,
            "pretooluse",
            Verdict::Allow,
        ));
        assert_eq!(
            (rendered.stdout.as_str(), rendered.stderr.as_str()),
            ("", "")
        );
        assert_eq!(rendered.exit_code, 0);
    }

    #[test]
    fn the_server_entry_and_the_routing_file() {
        let plan = mcp_only_plan(&HOST, &input("/Users/Jane Doe/cm", Some("/p")));
        let server = parse_object(&plan.edits[0].content).unwrap();
        let entry = &server["context_servers"]["context-mode"];
        assert_eq!(entry["command"], "/Users/Jane Doe/cm");
        assert_eq!(entry["args"], serde_json::json!(["serve"]));
        assert_eq!(entry["env"], serde_json::json!({}));
        assert_eq!(plan.edits[0].kind, EditKind::McpServer);
        assert!(!plan.edits[0].optional);
        assert_eq!(plan.edits[1].file, "{project}/AGENTS.md");
        assert_eq!(plan.edits[1].content, "use ctx_execute");
        assert!(plan.edits[1].optional);

        let without = mcp_only_plan(&HOST, &input("cm", None));
        assert_eq!(without.edits[1].file, "");
        assert_eq!(without.edits[1].content, "run it in a project");

        let global = McpOnlyHost {
            servers_key: "mcpServers",
            env_object: false,
            routing: RoutingFile::ProjectOrGlobal {
                project: "{project}/GEMINI.md",
                global: "~/.gemini/GEMINI.md",
            },
            ..HOST
        };
        let plan = mcp_only_plan(&global, &input("cm", None));
        let server = parse_object(&plan.edits[0].content).unwrap();
        assert!(server["mcpServers"]["context-mode"].get("env").is_none());
        assert_eq!(plan.edits[1].file, "~/.gemini/GEMINI.md");
        let plan = mcp_only_plan(&global, &input("cm", Some("/p")));
        assert_eq!(plan.edits[1].file, "{project}/GEMINI.md");
    }
}
