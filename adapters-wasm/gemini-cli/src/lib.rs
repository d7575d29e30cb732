//! The Gemini CLI platform adapter: Gemini CLI's hook JSON ⇄ context-mode's
//! normalized events and replies, plus the config edits that register
//! context-mode with Gemini CLI. Pure: no file, environment or clock access.

mod bindings {
    wit_bindgen::generate!({
        world: "adapter-plugin",
        path: "../../wit/plugin@0.3.0",
        with: { "context-mode:plugin/types@0.3.0": context_mode_sdk::types },
        additional_derives: [PartialEq],
    });
}

mod describe;
#[cfg(test)]
mod golden_inputs;
mod parse;
mod render;
mod setup;

use bindings::exports::context_mode::plugin::adapter::{
    Descriptor, Guest, ParseError, ParseInput, Rendered, Reply, SetupInput, SetupPlan,
};
use context_mode_sdk::NormalizedEvent;

/// The adapter id: `cm hook gemini-cli <event>`.
pub const ADAPTER_ID: &str = "gemini-cli";

// Only the wasm build exports the component; native builds run the unit tests.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
struct GeminiCli;

impl Guest for GeminiCli {
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
}

#[cfg(target_arch = "wasm32")]
bindings::export!(GeminiCli with_types_in bindings);
