//! The config edits that register context-mode with KiloCode, in its global config
//! folder: `kilo.json`'s `mcp` (**verified**: read from `~/.config/kilo/kilo.json`;
//! **reference**: `kilo.json`), the shared plugin in `plugins/`, and optionally
//! `AGENTS.md` (the OpenCode adapter's `plan` says what each edit is and why).

use context_mode_sdk::adapter::{SetupInput, SetupPlan};

use crate::ADAPTER_ID;
use crate::describe::CONFIG_DIR;
use crate::plan::HostConfig;

const HOST: HostConfig = HostConfig {
    platform: ADAPTER_ID,
    display_name: "KiloCode",
    dir: CONFIG_DIR,
    file: "kilo.json",
};

pub fn plan(input: &SetupInput) -> SetupPlan {
    crate::plan::plan(&HOST, input)
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
