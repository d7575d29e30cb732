//! The config edits that register context-mode with OpenCode, in its global config
//! folder (`plan` says what each edit is and why): `opencode.json`'s `mcp`, the
//! plugin in `plugins/`, and optionally `AGENTS.md`.

use context_mode_sdk::adapter::{SetupInput, SetupPlan};
use context_mode_sdk::opencode_wire::{OpenCodeHost, opencode_setup_plan};

use crate::ADAPTER_ID;
use crate::describe::CONFIG_DIR;

const HOST: OpenCodeHost = OpenCodeHost {
    platform: ADAPTER_ID,
    display_name: "OpenCode",
    dir: CONFIG_DIR,
    file: "opencode.json",
    routing_text: include_str!("../../../../configs/opencode/AGENTS.md"),
};
/// The plugin both hosts of the family load, before the plan fills it in.
const SHIM: &str = include_str!("../../../../configs/opencode/context-mode.js");

pub fn plan(input: &SetupInput) -> SetupPlan {
    opencode_setup_plan(&HOST, SHIM, input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::adapter::{ConfigFormat, EditKind};
    use context_mode_sdk::parse_object;

    fn input(cm: &str, project: Option<&str>) -> SetupInput {
        SetupInput {
            cm_command: cm.to_owned(),
            project_dir: project.map(str::to_owned),
        }
    }

    #[test]
    fn mcp_server_plugin_and_routing_file() {
        let plan = plan(&input("/usr/local/bin/cm", None));
        let files: Vec<(EditKind, ConfigFormat, &str, bool)> = plan
            .edits
            .iter()
            .map(|e| (e.kind, e.format, e.file.as_str(), e.optional))
            .collect();
        assert_eq!(
            files,
            [
                (
                    EditKind::McpServer,
                    ConfigFormat::Json,
                    "{env:XDG_CONFIG_HOME|~/.config}/opencode/opencode.json",
                    false
                ),
                (
                    EditKind::Hooks,
                    ConfigFormat::Text,
                    "{env:XDG_CONFIG_HOME|~/.config}/opencode/plugins/context-mode.js",
                    false
                ),
                (
                    EditKind::Instructions,
                    ConfigFormat::Text,
                    "{env:XDG_CONFIG_HOME|~/.config}/opencode/AGENTS.md",
                    true
                ),
            ]
        );
        let doc = parse_object(&plan.edits[0].content).unwrap();
        assert_eq!(
            doc["mcp"]["context-mode"],
            context_mode_sdk::serde_json::json!({
                "type": "local", "command": ["/usr/local/bin/cm", "serve"], "enabled": true
            })
        );
        let shim = &plan.edits[1].content;
        assert!(shim.contains(r#"const CM = "/usr/local/bin/cm";"#));
        assert!(shim.contains(r#"const PLATFORM = "opencode";"#));
        assert!(plan.edits[2].content.contains("context-mode_ctx_execute"));
        let project = super::plan(&input("cm", Some("/home/dev/app")));
        assert_eq!(project.edits[2].file, "{project}/AGENTS.md");
    }

    #[test]
    fn the_shim_names_cm_and_the_platform_and_every_event() {
        use context_mode_sdk::opencode_wire::{OPENCODE_EVENTS, shim_source};
        let shim = shim_source(SHIM, "/opt/my tools/cm", "opencode");
        assert!(shim.contains(r#"const CM = "/opt/my tools/cm";"#), "{shim}");
        assert!(shim.contains(r#"const PLATFORM = "opencode";"#));
        assert!(!shim.contains("__CM_"));
        for event in OPENCODE_EVENTS {
            assert!(
                shim.contains(&format!("forward(\"{}\")", event.cli)),
                "{}",
                event.cli
            );
        }
        let quoted = shim_source(SHIM, r#"C:\cm "x".exe"#, "kilo");
        assert!(
            quoted.contains(r#"const CM = "C:\\cm \"x\".exe";"#),
            "{quoted}"
        );
    }
}
