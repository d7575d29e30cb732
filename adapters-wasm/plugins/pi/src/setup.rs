//! The config edits that register context-mode with Pi (`pi_wire::pi_setup_plan`):
//!
//! - hooks (and tools): the extension `configs/pi/context-mode.js`, written whole to
//!   `<agent dir>/extensions/context-mode.js`, where Pi's loader imports every `*.js` /
//!   `*.ts` file at startup (**verified**: `discoverExtensionsInDir` in
//!   `dist/core/extensions/loader.js`; the agent dir is `PI_CODING_AGENT_DIR`, else
//!   `~/.pi/agent`). It registers the events and the native `ctx_*` tools, so there is
//!   no MCP entry to write: Pi reads no `mcp.json` (upstream's `~/.pi/agent/mcp.json`
//!   only works with a third-party MCP extension installed);
//! - instructions (optional): the routing text in `<agent dir>/AGENTS.md` (global) or
//!   the project's `AGENTS.md`, both of which Pi loads at startup (**verified**: README,
//!   "Context Files").

use context_mode_sdk::pi_wire::{PiHost, pi_setup_plan};

use crate::ADAPTER_ID;
use crate::describe::CLIENT_NAME;
use context_mode_sdk::adapter::{SetupInput, SetupPlan};

const HOST: PiHost = PiHost {
    adapter: ADAPTER_ID,
    display_name: "Pi",
    client_name: CLIENT_NAME,
    extension_file: "{env:PI_CODING_AGENT_DIR|~/.pi/agent}/extensions/context-mode.js",
    global_agents_md: "{env:PI_CODING_AGENT_DIR|~/.pi/agent}/AGENTS.md",
    routing_text: include_str!("../../../../configs/pi/AGENTS.md"),
};
const SHIM: &str = include_str!("../../../../configs/pi/context-mode.js");

pub fn plan(input: &SetupInput) -> SetupPlan {
    pi_setup_plan(&HOST, SHIM, input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::adapter::EditKind;

    fn input(cm: &str, project: Option<&str>) -> SetupInput {
        SetupInput {
            cm_command: cm.to_owned(),
            project_dir: project.map(str::to_owned),
        }
    }

    #[test]
    fn the_extension_and_the_optional_routing_file() {
        let plan = plan(&input("/Users/Jane Doe/cm", None));
        let kinds: Vec<(EditKind, &str, bool)> = plan
            .edits
            .iter()
            .map(|e| (e.kind, e.file.as_str(), e.optional))
            .collect();
        assert_eq!(
            kinds,
            [
                (EditKind::Hooks, HOST.extension_file, false),
                (EditKind::Instructions, HOST.global_agents_md, true),
            ]
        );
        let shim = &plan.edits[0].content;
        assert!(
            shim.contains("const CM = \"/Users/Jane Doe/cm\";"),
            "{shim}"
        );
        assert!(shim.contains("const ADAPTER = \"pi\";"));
        assert!(shim.contains("const CLIENT = \"pi-coding-agent\";"));
        assert!(!shim.contains("__CM__") && !shim.contains("__ADAPTER__"));
        assert!(plan.edits[1].content.contains("`ctx_execute`"));
        let project = super::plan(&input("cm", Some("/home/dev/app")));
        assert_eq!(project.edits[1].file, "{project}/AGENTS.md");
        assert!(project.edits[0].content.contains("const CM = \"cm\";"));
    }

    #[test]
    fn the_shim_registers_every_event_the_descriptor_declares() {
        let shim = &plan(&input("cm", None)).edits[0].content;
        for event in crate::describe::EVENTS {
            assert!(
                shim.contains(&format!("pi.on(\"{}\"", event.cli))
                    && shim.contains(&format!("hook(\"{}\"", event.cli)),
                "{}",
                event.cli
            );
        }
    }
}
