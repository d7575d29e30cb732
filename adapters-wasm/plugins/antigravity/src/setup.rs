//! The config edits that register context-mode with the Antigravity IDE:
//!
//! - MCP server: `mcpServers.context-mode` in `~/.gemini/antigravity/mcp_config.json`
//!   (**reference**: install section and platform notes; not agy's
//!   `~/.gemini/config/mcp_config.json`);
//! - instructions (optional): the routing text in the project's `GEMINI.md`, which the
//!   IDE reads natively (**reference**), else in `~/.gemini/GEMINI.md`, its global rules
//!   file (**unverified** here; Gemini CLI reads that file too, so a Gemini CLI user sees
//!   the same routing text, which names the same `ctx_*` tools).

use context_mode_sdk::adapter::{SetupInput, SetupPlan};
use context_mode_sdk::mcp_only::{McpOnlyHost, RoutingFile, mcp_only_plan};

const HOST: McpOnlyHost = McpOnlyHost {
    display_name: "Antigravity IDE",
    settings_file: "~/.gemini/antigravity/mcp_config.json",
    servers_key: "mcpServers",
    env_object: false,
    routing: RoutingFile::ProjectOrGlobal {
        project: "{project}/GEMINI.md",
        global: "~/.gemini/GEMINI.md",
    },
    routing_text: include_str!("../../../../configs/antigravity/GEMINI.md"),
};

pub fn plan(input: &SetupInput) -> SetupPlan {
    mcp_only_plan(&HOST, input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::adapter::EditKind;
    use context_mode_sdk::parse_object;

    fn input(project: Option<&str>) -> SetupInput {
        SetupInput {
            cm_command: "cm".to_owned(),
            project_dir: project.map(str::to_owned),
        }
    }

    #[test]
    fn the_ides_mcp_config_and_gemini_md() {
        let plan = plan(&input(None));
        let server = &plan.edits[0];
        assert_eq!(
            (server.kind, server.file.as_str(), server.optional),
            (
                EditKind::McpServer,
                "~/.gemini/antigravity/mcp_config.json",
                false
            )
        );
        let doc = parse_object(&server.content).unwrap();
        assert_eq!(doc["mcpServers"]["context-mode"]["command"], "cm");
        assert_eq!(doc["mcpServers"]["context-mode"]["args"][0], "serve");
        assert_eq!(plan.edits[1].file, "~/.gemini/GEMINI.md");
        assert!(plan.edits[1].content.contains("instead of `run_command`"));
        assert_eq!(
            super::plan(&input(Some("/p"))).edits[1].file,
            "{project}/GEMINI.md"
        );
    }
}
