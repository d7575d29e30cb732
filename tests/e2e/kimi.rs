//! Kimi Code in the harness: `@moonshot-ai/kimi-code` runs on Node 24 (its `engines.node`
//! is `>=22.19.0`; the machine has 20), from the Node OpenClaw's runs already use. The
//! scripted model is the user's own provider in `$KIMI_CODE_HOME/config.toml` (an
//! `openai` provider speaks Chat Completions at `base_url`), so `cm setup` adds its
//! `[[hooks]]` to a config that already holds something. `kimi -p … --output-format
//! stream-json` runs one turn in its "Never Ask" mode (`-p` refuses `--auto`, it is
//! implied); after setup Kimi's own `kimi doctor` validates the config setup wrote.
//! It compacts within that turn on the usage the script reports; the state block comes
//! back with the prompt of a resumed run (`-S <session id>`).

use std::path::Path;
use std::process::{Command, Output};

use crate::checks::{Check, excerpt};

/// The provider and model alias the config names.
const PROVIDER: &str = "e2e";
const MODEL: &str = "gpt-4.1";

/// What the user has before `cm setup`: the scripted server as their provider and
/// default model, in Kimi's home (`$KIMI_CODE_HOME`, here left unset: `~/.kimi-code`).
pub fn configure(home: &Path, base: &str) {
    crate::agents::write(&home.join(".kimi-code/config.toml"), &user_config(base));
}

fn user_config(base: &str) -> String {
    format!(
        "default_model = \"{PROVIDER}\"\n\n\
         [providers.{PROVIDER}]\ntype = \"openai\"\nbase_url = \"{base}/v1\"\napi_key = \"sk-e2e-scripted\"\n\n\
         [models.{PROVIDER}]\nprovider = \"{PROVIDER}\"\nmodel = \"{MODEL}\"\nmax_context_size = 128000\n"
    )
}

/// The scripted server's base URL as the config names it (`base_url = "<base>/v1"`).
fn provider_base(config: &str) -> String {
    config
        .lines()
        .find_map(|l| l.strip_prefix("base_url = \""))
        .and_then(|rest| rest.strip_suffix("/v1\""))
        .unwrap_or_default()
        .to_owned()
}

/// One non-interactive turn, its events as JSON lines; updates and telemetry off (its
/// telemetry otherwise tries `telemetry-logs.kimi.com` through the harness's proxy).
/// `resume` continues an earlier session (`-S <session id>`).
pub fn apply(command: &mut Command, prompt: &str, resume: Option<&str>) {
    if let Some(session) = resume {
        command.args(["-S", session]);
    }
    command
        .args(["-p", prompt, "--output-format", "stream-json"])
        .env("KIMI_CODE_NO_AUTO_UPDATE", "1")
        .env("KIMI_DISABLE_TELEMETRY", "1");
}

/// What `cm setup` did to the user's config, then Kimi's own validation of it (its
/// parser and schema: the `[[hooks]]` section refuses any key it does not know).
pub fn after_setup(home: &Path, run: &dyn Fn(&[&str]) -> Output) -> Vec<Check> {
    let args = ["doctor"];
    let output = run(&args);
    let doctor = Check {
        name: "Kimi Code's `kimi doctor` accepts the config cm setup wrote",
        failure: (!output.status.success()).then(|| {
            format!(
                "`kimi doctor` ({}): {}{}",
                output.status,
                excerpt(&String::from_utf8_lossy(&output.stdout)),
                excerpt(&String::from_utf8_lossy(&output.stderr))
            )
        }),
    };
    vec![layout_check(home), doctor]
}

/// The user's config comes first, untouched, and our `[[hooks]]` after it.
fn layout_check(home: &Path) -> Check {
    let name = "cm setup adds its [[hooks]] after the user's config.toml";
    let text = std::fs::read_to_string(home.join(".kimi-code/config.toml")).unwrap_or_default();
    let user = user_config(&provider_base(&text));
    let failure = match text.strip_prefix(&user) {
        Some(rest) if rest.starts_with("\n[[hooks]]\n") => None,
        _ => Some(format!("config.toml is: {}", excerpt(&text))),
    };
    Check { name, failure }
}
