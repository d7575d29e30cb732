//! `{{id}}`: a context-mode platform adapter, for an agent host that runs a command on
//! each of its hook events with a JSON object on stdin and reads a JSON reply from
//! stdout. context-mode runs `cm hook {{id}} <event>`; this adapter turns the host's
//! JSON into context-mode's normalized event (`parse`) and context-mode's verdict back
//! into the host's reply (`render`), and says which config file registers the hooks
//! and the MCP server (`setup`).
//!
//! Out of the box it speaks for a made-up host described in README.md: change the four
//! modules to your host's event names, payloads, reply shape and config file.
//! It runs sandboxed: no files, no environment beyond `env-vars`, no network, no clock.

// The contract: wit/plugin.wit, world `adapter-plugin`.
wit_bindgen::generate!({ world: "adapter-plugin", path: "wit" });

mod describe;
mod parse;
mod render;
mod setup;

use context_mode::plugin::types::NormalizedEvent;
use exports::context_mode::plugin::adapter::{
    Descriptor, Guest, ParseError, ParseInput, Rendered, Reply, SetupInput, SetupPlan,
};

/// The host's id: `cm hook {{id}} <event>`, `cm setup --agents {{id}}`. An adapter with
/// the id of a built-in one (e.g. `claude-code`) replaces it once installed.
pub const ADAPTER_ID: &str = "{{id}}";

struct Plugin;

impl Guest for Plugin {
    fn describe() -> Descriptor {
        describe::descriptor()
    }

    fn ctx_tool_name(server_name: String, tool: String) -> String {
        describe::ctx_tool_name(&server_name, &tool)
    }

    fn parse(input: ParseInput) -> Result<NormalizedEvent, ParseError> {
        parse::parse(&input)
    }

    fn render(reply: Reply) -> Rendered {
        render::render(&reply)
    }

    fn setup(input: SetupInput) -> SetupPlan {
        setup::plan(&input)
    }

    /// A plan that depends on the installed host's version names the program whose
    /// `--version` prints it (a bare name on PATH); this one does not.
    fn host_version_command() -> Option<String> {
        None
    }

    fn setup_for_version(input: SetupInput, _host_version: String) -> SetupPlan {
        setup::plan(&input)
    }
}

export!(Plugin);
