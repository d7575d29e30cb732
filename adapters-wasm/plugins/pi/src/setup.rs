//! The config edits that register context-mode with Pi:
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

use context_mode_sdk::pi_wire::shim_source;
use context_mode_sdk::setup::cm_command;

use crate::ADAPTER_ID;
use crate::describe::CLIENT_NAME;
use context_mode_sdk::adapter::{ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan};

const EXTENSION_FILE: &str = "{env:PI_CODING_AGENT_DIR|~/.pi/agent}/extensions/context-mode.js";
const GLOBAL_AGENTS_MD: &str = "{env:PI_CODING_AGENT_DIR|~/.pi/agent}/AGENTS.md";
const PROJECT_AGENTS_MD: &str = "{project}/AGENTS.md";
const SHIM: &str = include_str!("../../../../configs/pi/context-mode.js");
const ROUTING_TEXT: &str = include_str!("../../../../configs/pi/AGENTS.md");

pub fn plan(input: &SetupInput) -> SetupPlan {
    let cm = cm_command(&input.cm_command);
    SetupPlan {
        edits: vec![
            ConfigEdit {
                kind: EditKind::Hooks,
                file: EXTENSION_FILE.to_owned(),
                format: ConfigFormat::Text,
                content: shim_source(SHIM, cm, ADAPTER_ID, CLIENT_NAME),
                summary:
                    "Install the context-mode extension (its hooks and the ctx_* tools) into Pi"
                        .to_owned(),
                optional: false,
            },
            routing_edit(input.project_dir.is_some()),
        ],
    }
}

fn routing_edit(for_project: bool) -> ConfigEdit {
    let (file, scope) = if for_project {
        (PROJECT_AGENTS_MD, "this project")
    } else {
        (GLOBAL_AGENTS_MD, "every project")
    };
    ConfigEdit {
        kind: EditKind::Instructions,
        file: file.to_owned(),
        format: ConfigFormat::Text,
        content: ROUTING_TEXT.to_owned(),
        summary: format!("Add context-mode's routing rules to Pi's AGENTS.md for {scope}"),
        optional: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                (EditKind::Hooks, EXTENSION_FILE, false),
                (EditKind::Instructions, GLOBAL_AGENTS_MD, true),
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
        assert_eq!(project.edits[1].file, PROJECT_AGENTS_MD);
        assert!(project.edits[0].content.contains("const CM = \"cm\";"));
    }

    #[test]
    fn the_shim_registers_every_event_the_descriptor_declares() {
        let shim = &plan(&input("cm", None)).edits[0].content;
        for event in context_mode_sdk::pi_wire::PI_EVENTS {
            assert!(
                shim.contains(&format!("pi.on(\"{}\"", event.cli))
                    && shim.contains(&format!("hook(\"{}\"", event.cli)),
                "{}",
                event.cli
            );
        }
    }
}
