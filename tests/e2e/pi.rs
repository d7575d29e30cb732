//! Pi and OMP (Oh My Pi): each pointed at the scripted model as a custom provider of the
//! OpenAI Chat Completions kind, run in print mode with JSON events on stdout. Neither
//! spawns hook commands or MCP servers for context-mode: `cm setup` writes the
//! context-mode extension, the host's own extension loader imports it, and the
//! extension forwards the events to `cm hook` and the `ctx_*` tools to `cm serve`.

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::Command;

/// The custom provider both hosts get, and the model the scripted server answers as.
const PROVIDER: &str = "e2e";
const MODEL: &str = "gpt-4.1";

/// OMP's `bin` is `#!/usr/bin/env bun` (engines: bun >= 1.3.14); Bun comes from npm
/// (`bun`, whose postinstall places the platform's executable) into the same cache.
const BUN: (&str, &str) = ("bun", "1.4.5");

/// `models.json` (Pi) / `models.yml` (OMP, which reads JSON as YAML): one provider at
/// the scripted server.
fn models(base: &str) -> String {
    serde_json::json!({
        "providers": {
            PROVIDER: {
                "baseUrl": format!("{base}/v1"),
                "api": "openai-completions",
                "apiKey": "sk-e2e-scripted",
                "models": [{"id": MODEL}],
            }
        }
    })
    .to_string()
}

pub fn configure_pi(home: &Path, base: &str) {
    write(&home.join(".pi/agent/models.json"), &models(base));
}

pub fn configure_omp(home: &Path, base: &str) {
    write(&home.join(".omp/agent/models.yml"), &models(base));
}

/// Print mode, the JSON event stream on stdout; startup network operations
/// (version check, package updates) and install telemetry off.
pub fn apply_pi(command: &mut Command, prompt: &str) {
    command
        .args([
            "-p",
            "--mode",
            "json",
            "--provider",
            PROVIDER,
            "--model",
            MODEL,
        ])
        .arg(prompt)
        .env("PI_OFFLINE", "1")
        .env("PI_TELEMETRY", "0");
}

/// Print mode without the title request; Bun on PATH ahead of everything else.
pub fn apply_omp(command: &mut Command, prompt: &str) {
    // The PATH the harness gave the command (one without `cm` when the test says so).
    let given = command
        .get_envs()
        .find(|(name, _)| *name == "PATH")
        .and_then(|(_, value)| value.map(OsStr::to_owned));
    let path = given.unwrap_or_else(|| std::env::var_os("PATH").unwrap_or_default());
    command
        .args(["-p", "--mode", "json", "--no-title"])
        .arg(format!("--model={PROVIDER}/{MODEL}"))
        .arg(prompt)
        .env("PATH", with_bun(&path));
}

/// `path` with Bun's folder first: OMP runs on Bun and installs plugins with `bun install`.
pub fn with_bun(path: &OsStr) -> OsString {
    let bun =
        crate::install::installed(BUN.0, BUN.1, BUN.0).unwrap_or_else(|line| panic!("{line}"));
    let bin_dir = bun.parent().expect("bun's bin dir").to_owned();
    let mut dirs = vec![bin_dir];
    dirs.extend(std::env::split_paths(path));
    std::env::join_paths(dirs).expect("PATH")
}

fn write(path: &Path, contents: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, contents).expect("write agent config");
}
