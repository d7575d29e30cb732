//! The four agent configurations: how each is installed, configured before `cm setup`
//! (the model endpoint, and nothing that `cm setup` should do itself), and run
//! non-interactively.

use std::path::Path;
use std::process::Command;

/// The prompt each agent gets; the scripted model ignores it.
pub const PROMPT: &str = "Fetch the e2e fixture, then use context-mode's tools.";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    Claude,
    Gemini,
    Codex,
}

pub struct Agent {
    pub package: &'static str,
    pub version: &'static str,
    pub bin: &'static str,
    pub host: Host,
}

/// Sends MCP tools inline.
pub const CLAUDE_INLINE: Agent = Agent {
    package: "@anthropic-ai/claude-code",
    version: "2.1.197",
    bin: "claude",
    host: Host::Claude,
};
/// Defers MCP tools behind ToolSearch.
pub const CLAUDE_DEFERRED: Agent = Agent {
    package: "@anthropic-ai/claude-code",
    version: "2.1.332",
    bin: "claude",
    host: Host::Claude,
};
pub const GEMINI: Agent = Agent {
    package: "@google/gemini-cli",
    version: "0.61.0",
    bin: "gemini",
    host: Host::Gemini,
};
pub const CODEX: Agent = Agent {
    package: "@openai/codex",
    version: "0.171.0",
    bin: "codex",
    host: Host::Codex,
};

impl Agent {
    pub fn label(&self) -> String {
        format!("{}@{}", self.package, self.version)
    }

    /// Whether the test can make the agent compact non-interactively (ADR 23): Claude
    /// Code with `-p /compact` on the resumed session, Codex on the usage the model
    /// reports. Gemini CLI 0.61 compresses only at a split point between user prompts,
    /// which a one-prompt headless session never has.
    pub fn compacts(&self) -> bool {
        self.host != Host::Gemini
    }

    /// The id `cm setup --agents` takes.
    pub fn setup_id(&self) -> &'static str {
        match self.host {
            Host::Claude => "claude-code",
            Host::Gemini => "gemini-cli",
            Host::Codex => "codex",
        }
    }

    /// `cm setup`'s arguments, as the user runs them in the project: Gemini CLI needs
    /// `--project`, the one way setup trusts the folder (Gemini starts no MCP server in an
    /// untrusted one; without it setup prints a note saying so).
    pub fn setup_args(&self) -> Vec<&'static str> {
        let mut args = vec!["setup", "--agents", self.setup_id(), "--yes"];
        if self.host == Host::Gemini {
            args.push("--project");
        }
        args
    }

    /// What a user has before running `cm setup`: the agent pointed at its model
    /// endpoint (here the scripted server) with an API key, updates and telemetry off.
    pub fn configure(&self, home: &Path, project: &Path, base: &str) {
        match self.host {
            Host::Claude => {}
            Host::Gemini => {
                // Non-interactively Gemini CLI 0.61 needs the auth type chosen in its
                // settings; the fixed model skips the routing classifier's request.
                let settings = serde_json::json!({
                    "security": {"auth": {"selectedType": "gemini-api-key"}},
                    "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
                    "privacy": {"usageStatisticsEnabled": false},
                    "telemetry": {"enabled": false},
                });
                write(&home.join(".gemini/settings.json"), &settings.to_string());
            }
            Host::Codex => {
                let config = format!(
                    "model = \"gpt-5.1-codex\"\nmodel_provider = \"e2e\"\ncheck_for_update_on_startup = false\n\
                     model_context_window = 200000\nmodel_auto_compact_token_limit = 100000\n\n\
                     [model_providers.e2e]\nname = \"scripted model\"\nbase_url = \"{base}/v1\"\n\
                     wire_api = \"responses\"\nenv_key = \"E2E_MODEL_KEY\"\n\n\
                     [projects.\"{}\"]\ntrust_level = \"trusted\"\n",
                    project.display()
                );
                write(&home.join(".codex/config.toml"), &config);
            }
        }
    }

    /// The agent's arguments and variables for a non-interactive run on `prompt`, every
    /// tool allowed (applied after the harness cleared the environment).
    /// `resume` continues an earlier session (Claude Code's `--resume <session id>`).
    pub fn apply(&self, command: &mut Command, base: &str, prompt: &str, resume: Option<&str>) {
        match self.host {
            Host::Claude => {
                if let Some(session) = resume {
                    command.args(["--resume", session]);
                }
                command
                    .args(["-p", prompt, "--output-format", "stream-json", "--verbose"])
                    .arg("--dangerously-skip-permissions")
                    .env("ANTHROPIC_BASE_URL", base)
                    .env("ANTHROPIC_API_KEY", "sk-e2e-scripted")
                    // As root (CI), --dangerously-skip-permissions needs this.
                    .env("IS_SANDBOX", "1")
                    .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                    .env("DISABLE_AUTOUPDATER", "1")
                    .env("DISABLE_TELEMETRY", "1")
                    .env("DISABLE_ERROR_REPORTING", "1");
            }
            Host::Gemini => {
                command
                    .args([
                        "-m",
                        "gemini-2.5-pro",
                        "-p",
                        prompt,
                        "--output-format",
                        "stream-json",
                        "--yolo",
                    ])
                    .env("GOOGLE_GEMINI_BASE_URL", base)
                    .env("GEMINI_API_KEY", "e2e-scripted");
            }
            Host::Codex => {
                command
                    .args(["exec", "--json", "--skip-git-repo-check"])
                    .arg("--dangerously-bypass-approvals-and-sandbox")
                    .arg(prompt)
                    .env("E2E_MODEL_KEY", "e2e-scripted");
            }
        }
    }
}

fn write(path: &Path, contents: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, contents).expect("write agent config");
}
