//! Kimi Code in the harness: `@moonshot-ai/kimi-code` runs on Node 24 (its `engines.node`
//! is `>=22.19.0`; the machine has 20), from the Node OpenClaw's runs already use. The
//! scripted model is the user's own provider in `$KIMI_CODE_HOME/config.toml` (an
//! `openai` provider speaks Chat Completions at `base_url`), so `cm setup` adds its
//! `[[hooks]]` to a config that already holds something. `kimi -p … --output-format
//! stream-json` runs one turn in its "Never Ask" mode (`-p` refuses `--auto`, it is
//! implied); after setup Kimi's own `kimi doctor` validates the config setup wrote.

use std::path::Path;
use std::process::{Command, Output};

use crate::checks::{Check, excerpt};

/// The provider and model alias the config names.
const PROVIDER: &str = "e2e";
const MODEL: &str = "gpt-4.1";

/// What the user has before `cm setup`: the scripted server as their provider and
/// default model, in Kimi's home (`$KIMI_CODE_HOME`, here left unset: `~/.kimi-code`).
pub fn configure(home: &Path, base: &str) {
    let config = format!(
        "default_model = \"{PROVIDER}\"\n\n\
         [providers.{PROVIDER}]\ntype = \"openai\"\nbase_url = \"{base}/v1\"\napi_key = \"sk-e2e-scripted\"\n\n\
         [models.{PROVIDER}]\nprovider = \"{PROVIDER}\"\nmodel = \"{MODEL}\"\nmax_context_size = 128000\n"
    );
    crate::agents::write(&home.join(".kimi-code/config.toml"), &config);
}

/// One non-interactive turn, its events as JSON lines; updates and telemetry off (its
/// telemetry otherwise tries `telemetry-logs.kimi.com` through the harness's proxy).
pub fn apply(command: &mut Command, prompt: &str) {
    command
        .args(["-p", prompt, "--output-format", "stream-json"])
        .env("KIMI_CODE_NO_AUTO_UPDATE", "1")
        .env("KIMI_DISABLE_TELEMETRY", "1");
}

/// Kimi's own validation of the config `cm setup` edited (its parser and schema: the
/// `[[hooks]]` section refuses any key it does not know).
pub fn after_setup(run: &dyn Fn(&[&str]) -> Output) -> Vec<Check> {
    let args = ["doctor"];
    let output = run(&args);
    let name = "Kimi Code's `kimi doctor` accepts the config cm setup wrote";
    let failure = (!output.status.success()).then(|| {
        format!(
            "`kimi doctor` ({}): {}{}",
            output.status,
            excerpt(&String::from_utf8_lossy(&output.stdout)),
            excerpt(&String::from_utf8_lossy(&output.stderr))
        )
    });
    vec![Check { name, failure }]
}
