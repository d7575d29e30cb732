//! The config edits that register context-mode with KiloCode, in its global config
//! folder: `kilo.json`'s `mcp` (**verified**: read from `~/.config/kilo/kilo.json`;
//! **reference**: `kilo.json`), the shared plugin in `plugins/`, and optionally
//! `AGENTS.md` (the OpenCode adapter's `plan` says what each edit is and why).

use context_mode_sdk::adapter::{SetupInput, SetupPlan};
use context_mode_sdk::opencode_wire::{OpenCodeHost, opencode_setup_plan};

use crate::ADAPTER_ID;
use crate::describe::CONFIG_DIR;

const HOST: OpenCodeHost = OpenCodeHost {
    platform: ADAPTER_ID,
    display_name: "KiloCode",
    dir: CONFIG_DIR,
    file: "kilo.json",
    routing_text: include_str!("../../../../configs/opencode/AGENTS.md"),
};
const SHIM: &str = include_str!("../../../../configs/opencode/context-mode.js");

pub fn plan(input: &SetupInput) -> SetupPlan {
    opencode_setup_plan(&HOST, SHIM, input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kilo_json_and_the_plugin_name_kilo() {
        let plan = plan(&SetupInput {
            cm_command: "/usr/local/bin/cm".to_owned(),
            project_dir: None,
        });
        let files: Vec<&str> = plan.edits.iter().map(|e| e.file.as_str()).collect();
        assert_eq!(
            files,
            [
                "{env:XDG_CONFIG_HOME|~/.config}/kilo/kilo.json",
                "{env:XDG_CONFIG_HOME|~/.config}/kilo/plugins/context-mode.js",
                "{env:XDG_CONFIG_HOME|~/.config}/kilo/AGENTS.md",
            ]
        );
        assert!(plan.edits[0].content.contains("\"mcp\""));
        assert!(
            plan.edits[1]
                .content
                .contains(r#"const PLATFORM = "kilo";"#)
        );
    }
}
