//! The config edits that register context-mode with Zed:
//!
//! - MCP server: `context_servers.context-mode` = `{command, args: ["serve"], env: {}}`
//!   in `settings.json` of Zed's settings folder (`~/.config/zed/`, on Windows
//!   `%APPDATA%\Zed\`; **verified**: Zed's docs, "As Custom Servers";
//!   Zed reloads context servers when the file is saved). The file is JSONC with the
//!   user's comments, which the merge keeps;
//! - instructions (optional): the routing text in the project's `AGENTS.md`, one of the
//!   rules files the Zed agent reads from a project root (**verified**: Zed's docs,
//!   "Rules"). Zed keeps no global rules file (its Rules Library lives in its own
//!   database), so without a project setup prints the step instead.

use context_mode_sdk::adapter::{SetupInput, SetupPlan};
use context_mode_sdk::mcp_only::{McpOnlyHost, RoutingFile, mcp_only_plan};

const HOST: McpOnlyHost = McpOnlyHost {
    display_name: "Zed",
    settings_file: "{env:APPDATA|~/.config}/zed/settings.json",
    servers_key: "context_servers",
    env_object: true,
    routing: RoutingFile::ProjectOnly {
        project: "{project}/AGENTS.md",
        without_project: "Zed reads routing rules only from a project: run `cm setup --agents zed --routing --project` in each project, or paste configs/zed/AGENTS.md into a rule of Zed's Rules Library.",
    },
    routing_text: include_str!("../../../../configs/zed/AGENTS.md"),
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
            cm_command: "/opt/cm".to_owned(),
            project_dir: project.map(str::to_owned),
        }
    }

    #[test]
    fn context_servers_entry_and_the_project_rules_file() {
        let plan = plan(&input(Some("/home/dev/app")));
        assert_eq!(plan.edits.len(), 2);
        let server = &plan.edits[0];
        assert_eq!(
            (server.kind, server.file.as_str()),
            (
                EditKind::McpServer,
                "{env:APPDATA|~/.config}/zed/settings.json"
            )
        );
        let doc = parse_object(&server.content).unwrap();
        assert_eq!(doc["context_servers"]["context-mode"]["command"], "/opt/cm");
        assert_eq!(doc["context_servers"]["context-mode"]["args"][0], "serve");
        let rules = &plan.edits[1];
        assert_eq!(
            (rules.kind, rules.file.as_str(), rules.optional),
            (EditKind::Instructions, "{project}/AGENTS.md", true)
        );
        assert!(
            rules
                .content
                .contains("`ctx_execute` instead of the `terminal` tool")
        );
        let printed = super::plan(&input(None));
        assert_eq!(printed.edits[1].file, "");
        assert!(printed.edits[1].content.contains("--project"));
    }
}
