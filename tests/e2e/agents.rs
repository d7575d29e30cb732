//! The agent configurations: how each is installed, configured before `cm setup`
//! (the model endpoint, and nothing that `cm setup` should do itself), and run
//! non-interactively.

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, Output};

use crate::checks::Check;

/// The prompt each agent gets; the scripted model ignores it.
pub const PROMPT: &str = "Fetch the e2e fixture, then use context-mode's tools.";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    Claude,
    Gemini,
    Codex,
    Copilot,
    Qwen,
    Pi,
    Omp,
    OpenCode(crate::opencode::Fork),
    OpenClaw,
    Kimi,
}

pub struct Agent {
    pub package: &'static str,
    pub version: &'static str,
    pub bin: &'static str,
    pub host: Host,
    /// `cm setup` runs with the agent's own executable on PATH, as it is for a user who
    /// installed it, so a plan that depends on the agent's version sees it: Claude Code
    /// 2.1.197 and later then get the tool hooks the server answers (ADR 27).
    pub setup_sees_agent: bool,
}

/// Sends MCP tools inline.
pub const CLAUDE_INLINE: Agent = Agent {
    package: "@anthropic-ai/claude-code",
    version: "2.1.197",
    bin: "claude",
    host: Host::Claude,
    setup_sees_agent: false,
};
/// Defers MCP tools behind ToolSearch; set up as a user with `claude` on PATH is, so its
/// tool events are answered by the running `cm serve` (ADR 27). The 2.1.197 line keeps
/// command hooks (setup does not see that `claude`), so both transports run for real.
pub const CLAUDE_DEFERRED: Agent = Agent {
    package: "@anthropic-ai/claude-code",
    version: "2.1.332",
    bin: "claude",
    host: Host::Claude,
    setup_sees_agent: true,
};
pub const GEMINI: Agent = Agent {
    package: "@google/gemini-cli",
    version: "0.61.0",
    bin: "gemini",
    host: Host::Gemini,
    setup_sees_agent: false,
};
pub const CODEX: Agent = Agent {
    package: "@openai/codex",
    version: "0.171.0",
    bin: "codex",
    host: Host::Codex,
    setup_sees_agent: false,
};

/// GitHub Copilot CLI: an npm loader whose optionalDependencies carry the platform's
/// single-file executable (`@github/copilot-linux-x64`, ~190 MB), which unpacks its
/// JavaScript into `~/.cache/copilot/pkg` of the HOME it runs in.
pub const COPILOT: Agent = Agent {
    package: "@github/copilot",
    version: "1.0.102",
    bin: "copilot",
    host: Host::Copilot,
    setup_sees_agent: false,
};
/// Qwen Code (a Gemini CLI fork); its package says `engines.node >= 22`, but 0.24.4 runs
/// on the machine's Node 20 (checked: `--version`, `mcp list` and a headless session).
pub const QWEN: Agent = Agent {
    package: "@qwen-code/qwen-code",
    version: "0.24.4",
    bin: "qwen",
    host: Host::Qwen,
    setup_sees_agent: false,
};

/// OpenClaw: the gateway's embedded agent, one turn per `openclaw agent --local` (ADR 29).
pub const OPENCLAW: Agent = Agent {
    package: "openclaw",
    version: "2026.9.6",
    bin: "openclaw",
    host: Host::OpenClaw,
    setup_sees_agent: false,
};

/// Kimi Code, on Node 24 (`crate::kimi`).
pub const KIMI: Agent = Agent {
    package: "@moonshot-ai/kimi-code",
    version: "2.1.0",
    bin: "kimi",
    host: Host::Kimi,
    setup_sees_agent: false,
};

/// OpenCode and KiloCode: npm loaders whose optionalDependencies carry the platform's
/// Bun-compiled executable (~180 MB each); both speak Chat Completions to the
/// OpenAI-compatible provider their config names (`crate::opencode`).
pub const OPENCODE: Agent = Agent {
    package: "opencode-ai",
    version: "1.18.33",
    bin: "opencode",
    host: Host::OpenCode(crate::opencode::Fork::OpenCode),
    setup_sees_agent: false,
};
/// 7.7.7, not the newer 7.8.1: the registry holds no 7.8.1 of the platform packages
/// (`@kilocode/cli-linux-x64`), so 7.8.1's install fails.
pub const KILO: Agent = Agent {
    package: "@kilocode/cli",
    version: "7.7.7",
    bin: "kilo",
    host: Host::OpenCode(crate::opencode::Fork::Kilo),
    setup_sees_agent: false,
};

/// Pi Coding Agent, on Node.
pub const PI: Agent = Agent {
    package: "@mariozechner/pi-coding-agent",
    version: "0.73.1",
    bin: "pi",
    host: Host::Pi,
    setup_sees_agent: false,
};
/// OMP (Oh My Pi), a Pi fork on Bun. 18.3.4 is the newest release, but the registry
/// lacks its `@oh-my-pi/omp-stats@18.3.4`; 18.2.3 is the newest whose dependencies all exist.
pub const OMP: Agent = Agent {
    package: "@oh-my-pi/pi-coding-agent",
    version: "18.2.3",
    bin: "omp",
    host: Host::Omp,
    setup_sees_agent: false,
};

/// The model name both OpenAI-compatible clients send (Copilot CLI knows it, so it
/// configures tool calling and token limits for it).
const CHAT_MODEL: &str = "gpt-4.1";

impl Agent {
    pub fn label(&self) -> String {
        format!("{}@{}", self.package, self.version)
    }

    /// Whether the test can make the agent compact non-interactively (ADR 23): Claude
    /// Code and Copilot CLI with `-p /compact` on the resumed session, Codex on the
    /// usage the model reports. Gemini CLI 0.61 compresses only at a split point between user prompts,
    /// which a one-prompt headless session never has.
    pub fn compacts(&self) -> bool {
        matches!(
            self.host,
            Host::Claude | Host::Codex | Host::Copilot | Host::Kimi
        )
    }

    /// Compacts within its first run on the usage the model reports, and brings the state
    /// back only with the next prompt: a resumed run shows what the model gets (Kimi
    /// Code, which reads no reply of PreCompact or SessionStart).
    pub fn compacts_then_resumes(&self) -> bool {
        self.host == Host::Kimi
    }

    /// Compacts through `/compact` as the prompt of a resumed session (`--resume`), the
    /// next resumed run showing what the model gets: Claude Code, and Copilot CLI, whose
    /// `--resume=<id> -p /compact` fires preCompact (`trigger: "manual"`) and asks the
    /// model for a "detailed summary of the conversation so far", and whose next
    /// resumed run fires sessionStart with `source: "resume"`.
    pub fn compacts_on_resume(&self) -> bool {
        matches!(self.host, Host::Claude | Host::Copilot)
    }

    /// The agent's own MCP listing, run after `cm setup`, and what it prints for a server
    /// it connected to. Qwen Code's `mcp list` connects to each server (as
    /// `mcp-test-client`) and prints `✓ context-mode: … - Connected`; Copilot CLI's
    /// lists the configuration only (`context-mode (local)`); its connection shows in the
    /// session's own output (`checks::session_mcp_check`).
    pub fn mcp_list(&self) -> Option<(&'static [&'static str], &'static str)> {
        match self.host {
            Host::Qwen => Some((&["mcp", "list"], "Connected")),
            Host::Copilot => Some((&["mcp", "list"], "context-mode")),
            _ => None,
        }
    }

    /// The id `cm setup --agents` takes.
    pub fn setup_id(&self) -> &'static str {
        match self.host {
            Host::Claude => "claude-code",
            Host::Gemini => "gemini-cli",
            Host::Codex => "codex",
            Host::Copilot => "copilot-cli",
            Host::Qwen => "qwen-code",
            Host::Pi => "pi",
            Host::Omp => "omp",
            Host::OpenCode(crate::opencode::Fork::OpenCode) => "opencode",
            Host::OpenCode(crate::opencode::Fork::Kilo) => "kilo",
            Host::OpenClaw => "openclaw",
            Host::Kimi => "kimi",
        }
    }

    /// The PATH the agent and its install run with: the machine's, with the Node the
    /// agent needs first when it is not the machine's (OpenClaw wants Node 24).
    pub fn path(&self) -> Result<OsString, String> {
        let inherited = std::env::var_os("PATH").unwrap_or_default();
        match self.host {
            Host::OpenClaw | Host::Kimi => crate::openclaw::path(&inherited),
            _ => Ok(inherited),
        }
    }

    /// Checks run after `cm setup` on what it left in `home`, and with the agent's own CLI
    /// (`run` takes its arguments).
    pub fn after_setup(&self, home: &Path, run: &dyn Fn(&[&str]) -> Output) -> Vec<Check> {
        match self.host {
            Host::OpenClaw => crate::openclaw::after_setup(run),
            Host::Kimi => crate::kimi::after_setup(home, run),
            _ => Vec::new(),
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
            // Copilot CLI's BYOK provider is configured by environment alone (`apply`).
            Host::Copilot => {}
            Host::Qwen => {
                // The OpenAI-compatible auth type (OPENAI_* variables in `apply`). Off:
                // updates, usage statistics (sent to an aliyuncs.com host otherwise), and
                // the background memory-extraction agent, whose requests offer the shell
                // tool too and would look like the main loop.
                let settings = serde_json::json!({
                    "security": {"auth": {"selectedType": "openai"}},
                    "general": {"enableAutoUpdate": false},
                    "privacy": {"usageStatisticsEnabled": false},
                    "memory": {"enableManagedAutoMemory": false},
                    "telemetry": {"enabled": false},
                });
                write(&home.join(".qwen/settings.json"), &settings.to_string());
            }
            Host::Pi => crate::pi::configure_pi(home, base),
            Host::Omp => crate::pi::configure_omp(home, base),
            Host::OpenCode(fork) => crate::opencode::configure(fork, home, base),
            Host::OpenClaw => crate::openclaw::configure(home, project, base, CHAT_MODEL),
            Host::Kimi => crate::kimi::configure(home, base),
        }
    }

    /// The agent's arguments and variables for a non-interactive run on `prompt`, every
    /// tool allowed (applied after the harness cleared the environment).
    /// `resume` continues an earlier session (`--resume <session id>`).
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
            Host::Copilot => {
                // `--resume` takes an optional value, so only in its `=` form.
                if let Some(session) = resume {
                    command.arg(format!("--resume={session}"));
                }
                // JSONL output (the session id, the MCP status events), except for
                // `/compact`: with `--output-format json` 1.0.102 finishes the compaction
                // in a second and then waits 60 s before exiting ("a waited send timed
                // out after 60000ms … the event poll loop may be wedged"), in text mode
                // it exits at once.
                command.args(["-p", prompt, "--allow-all-tools", "--no-auto-update"]);
                // A shell exports the folder it starts `copilot` in; the plugin's server
                // entry names the project by it (`${PWD}`, ADR 40).
                if let Some(dir) = command.get_current_dir().map(Path::to_path_buf) {
                    command.env("PWD", dir);
                }
                if prompt != "/compact" {
                    command.args(["--output-format", "json"]);
                }
                // BYOK: no GitHub authentication; COPILOT_OFFLINE turns off GitHub auth,
                // telemetry, web tools, the GitHub MCP server and auto-update.
                command
                    .env("COPILOT_PROVIDER_BASE_URL", format!("{base}/v1"))
                    .env("COPILOT_PROVIDER_API_KEY", "sk-e2e-scripted")
                    .env("COPILOT_MODEL", CHAT_MODEL)
                    .env("COPILOT_OFFLINE", "true");
            }
            Host::Qwen => {
                command
                    .args(["--output-format", "stream-json", "--yolo"])
                    .arg(prompt)
                    .env("OPENAI_BASE_URL", format!("{base}/v1"))
                    .env("OPENAI_API_KEY", "sk-e2e-scripted")
                    .env("OPENAI_MODEL", CHAT_MODEL)
                    .env("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1");
            }
            Host::Pi => crate::pi::apply_pi(command, prompt),
            Host::Omp => crate::pi::apply_omp(command, prompt),
            Host::OpenCode(fork) => crate::opencode::apply(fork, command, prompt),
            Host::OpenClaw => crate::openclaw::apply(command, prompt),
            Host::Kimi => crate::kimi::apply(command, prompt, resume),
        }
    }
}

pub(crate) fn write(path: &Path, contents: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, contents).expect("write agent config");
}
