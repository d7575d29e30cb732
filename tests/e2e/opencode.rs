//! OpenCode and KiloCode (an OpenCode fork): how each is pointed at the scripted model
//! and run non-interactively. Both load `cm setup`'s plugin from their global config
//! folder's `plugins/` through their own plugin loader, so the redirected `curl` and the
//! routing block in the system prompt are the shim at work in the real host.
//!
//! What a user has before `cm setup`: the host's config file naming an OpenAI-compatible
//! provider (`@ai-sdk/openai-compatible`, bundled in both binaries: nothing is installed
//! for it) whose `baseURL` is the scripted server. Two things would otherwise reach for
//! the network and are turned off the way a user without it would: the models.dev
//! catalogue (`OPENCODE_DISABLE_MODELS_FETCH` / `KILO_DISABLE_MODELS_FETCH`), and the
//! `@opencode-ai/plugin` (`@kilocode/plugin`) package both install into every config
//! folder at start and whose install a plugin's loading waits for: `~/.npmrc` says
//! `offline=true`, so that install fails at once instead of after its retries.

use std::path::Path;
use std::process::Command;

/// Which of the two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fork {
    OpenCode,
    Kilo,
}

/// The provider id the config names; the model is `e2e/gpt-4.1`.
const PROVIDER: &str = "e2e";
const MODEL: &str = "gpt-4.1";

impl Fork {
    fn config_file(self) -> &'static str {
        match self {
            Fork::OpenCode => ".config/opencode/opencode.json",
            Fork::Kilo => ".config/kilo/kilo.json",
        }
    }

    fn no_models_fetch(self) -> &'static str {
        match self {
            Fork::OpenCode => "OPENCODE_DISABLE_MODELS_FETCH",
            Fork::Kilo => "KILO_DISABLE_MODELS_FETCH",
        }
    }
}

pub fn configure(fork: Fork, home: &Path, base: &str) {
    let config = serde_json::json!({
        "autoupdate": false,
        "share": "disabled",
        "model": format!("{PROVIDER}/{MODEL}"),
        "provider": {
            PROVIDER: {
                "npm": "@ai-sdk/openai-compatible",
                "name": "scripted model",
                "options": {"baseURL": format!("{base}/v1"), "apiKey": "sk-e2e-scripted"},
                "models": {MODEL: {"name": MODEL, "tool_call": true}},
            }
        },
    });
    write(&home.join(fork.config_file()), &config.to_string());
    write(&home.join(".npmrc"), "offline=true\n");
}

/// `run --format json` prints one JSON event per line; `--auto` approves every tool.
pub fn apply(fork: Fork, command: &mut Command, prompt: &str) {
    command
        .args(["run", "--format", "json", "--auto", "--print-logs"])
        .arg(prompt)
        .env(fork.no_models_fetch(), "1");
}

fn write(path: &Path, contents: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, contents).expect("write agent config");
}
