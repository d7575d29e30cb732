//! The config edits that register context-mode with OMP (`pi_wire::pi_setup_plan`):
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

use context_mode_sdk::pi_wire::{PiHost, pi_setup_plan};

use crate::ADAPTER_ID;
use crate::describe::CLIENT_NAME;
use context_mode_sdk::adapter::{SetupInput, SetupPlan};

const HOST: PiHost = PiHost {
    adapter: ADAPTER_ID,
    display_name: "OMP",
    client_name: CLIENT_NAME,
    extension_file: "~/.omp/agent/extensions/context-mode.js",
    global_agents_md: "~/.omp/agent/AGENTS.md",
    routing_text: include_str!("../../../../configs/omp/AGENTS.md"),
};
const SHIM: &str = include_str!("../../../../configs/pi/context-mode.js");

pub fn plan(input: &SetupInput) -> SetupPlan {
    pi_setup_plan(&HOST, SHIM, input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::adapter::EditKind;

    #[test]
    fn the_extension_lives_under_omp_never_under_pi() {
        let plan = plan(&SetupInput {
            cm_command: "/opt/cm".to_owned(),
            project_dir: None,
        });
        assert_eq!(
            (plan.edits[0].kind, plan.edits[0].file.as_str()),
            (EditKind::Hooks, HOST.extension_file)
        );
        let shim = &plan.edits[0].content;
        assert!(shim.contains("const ADAPTER = \"omp\";"));
        assert!(shim.contains("const CLIENT = \"omp-coding-agent\";"));
        assert!(shim.contains("const CM = \"/opt/cm\";"));
        assert!(plan.edits.iter().all(|e| !e.file.contains(".pi/")));
        assert_eq!(
            (plan.edits[1].file.as_str(), plan.edits[1].optional),
            (HOST.global_agents_md, true)
        );
        assert!(plan.edits[1].content.contains("`eval`"));
    }
}
