//! The config edits that register context-mode with OMP:
//!
//! - hooks (and tools): the extension Pi gets too (`configs/pi/context-mode.js`, with
//!   this adapter's id), written whole to `~/.omp/agent/extensions/context-mode.js`;
//!   OMP's native provider imports every `*.js` / `*.ts` file there (**verified**:
//!   `discovery/builtin.ts`, `extensibility/extensions/loader.ts` of 18.2.3, and a
//!   probe). The path is fixed: OMP would honour `PI_CODING_AGENT_DIR`, but a user who
//!   sets it does so for Pi, and an OMP extension in Pi's directory would run under Pi.
//!   No MCP entry: OMP reads `~/.omp/agent/mcp.json`, but mounts every MCP tool as an
//!   `xd://` device the model does not see declared; the extension's native tools are
//!   declared on every request (docs/adr/0030);
//! - instructions (optional): the routing text in `~/.omp/agent/AGENTS.md` (global)
//!   or the project's `AGENTS.md` (**verified**: `discovery/builtin.ts` and
//!   `discovery/agents-md.ts`).

use context_mode_sdk::pi_wire::shim_source;
use context_mode_sdk::setup::cm_command;

use crate::ADAPTER_ID;
use crate::describe::CLIENT_NAME;
use context_mode_sdk::adapter::{ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan};

const EXTENSION_FILE: &str = "~/.omp/agent/extensions/context-mode.js";
const GLOBAL_AGENTS_MD: &str = "~/.omp/agent/AGENTS.md";
const PROJECT_AGENTS_MD: &str = "{project}/AGENTS.md";
const SHIM: &str = include_str!("../../../../configs/pi/context-mode.js");
const ROUTING_TEXT: &str = include_str!("../../../../configs/omp/AGENTS.md");

pub fn plan(input: &SetupInput) -> SetupPlan {
    let cm = cm_command(&input.cm_command);
    let (routing_file, scope) = if input.project_dir.is_some() {
        (PROJECT_AGENTS_MD, "this project")
    } else {
        (GLOBAL_AGENTS_MD, "every project")
    };
    SetupPlan {
        edits: vec![
            ConfigEdit {
                kind: EditKind::Hooks,
                file: EXTENSION_FILE.to_owned(),
                format: ConfigFormat::Text,
                content: shim_source(SHIM, cm, ADAPTER_ID, CLIENT_NAME),
                summary:
                    "Install the context-mode extension (its hooks and the ctx_* tools) into OMP"
                        .to_owned(),
                optional: false,
            },
            ConfigEdit {
                kind: EditKind::Instructions,
                file: routing_file.to_owned(),
                format: ConfigFormat::Text,
                content: ROUTING_TEXT.to_owned(),
                summary: format!("Add context-mode's routing rules to OMP's AGENTS.md for {scope}"),
                optional: true,
            },
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_lives_under_omp_never_under_pi() {
        let plan = plan(&SetupInput {
            cm_command: "/opt/cm".to_owned(),
            project_dir: None,
        });
        assert_eq!(plan.edits[0].file, EXTENSION_FILE);
        assert_eq!(plan.edits[0].kind, EditKind::Hooks);
        let shim = &plan.edits[0].content;
        assert!(shim.contains("const ADAPTER = \"omp\";"));
        assert!(shim.contains("const CLIENT = \"omp-coding-agent\";"));
        assert!(shim.contains("const CM = \"/opt/cm\";"));
        assert!(plan.edits.iter().all(|e| !e.file.contains(".pi/")));
        assert_eq!(
            (plan.edits[1].file.as_str(), plan.edits[1].optional),
            (GLOBAL_AGENTS_MD, true)
        );
        assert!(plan.edits[1].content.contains("`eval`"));
        let project = super::plan(&SetupInput {
            cm_command: "cm".to_owned(),
            project_dir: Some("/home/dev/app".to_owned()),
        });
        assert_eq!(project.edits[1].file, PROJECT_AGENTS_MD);
    }
}
