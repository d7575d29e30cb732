//! Gemini CLI and Qwen Code with context-mode installed the way their users install it:
//! `gemini extensions install <repository> --consent`, `qwen extensions install
//! <repository>:context-mode --consent`, no `cm setup` (ADR 39). The extensions
//! (`gemini-extension.json` + `hooks/hooks.json`, `qwen-extension.json`, at the repository
//! root, generated from the adapters' setup plans) reach `cm` through the Claude Code
//! plugin's launcher; here `cm` is a link to the built binary in a folder put first on PATH.
//!
//! Both copy the whole source folder into `~/.gemini|.qwen/extensions/<name>`,
//! so the install is from a copy of what git sees of this checkout (tracked and
//! not-ignored files, as a clone has them), not from the checkout with its `target/`.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::checks::{Check, excerpt};
use crate::http::Request;

use crate::agents::Host;

/// What the host names the tools of the extension's MCP server `context-mode`, the same
/// as for a server in its settings: Gemini CLI `mcp_<server>_<tool>`, Qwen Code
/// `mcp__<server>__<tool>`.
fn tool_prefix(host: Host) -> &'static str {
    match host {
        Host::Qwen => "mcp__context-mode__ctx_",
        _ => "mcp_context-mode_ctx_",
    }
}

/// A line of the extension's context file (`configs/gemini-cli/context-mode.md`,
/// `configs/qwen-code/QWEN.md`) that no hook adds.
fn context_file_line(host: Host) -> &'static str {
    match host {
        Host::Qwen => {
            "Web pages and docs: `mcp__context-mode__ctx_fetch_and_index`, then `mcp__context-mode__ctx_search`"
        }
        _ => "Web pages and docs: `ctx_fetch_and_index`, then `ctx_search`",
    }
}

/// Copies the files git sees in this checkout (tracked, or untracked and not ignored)
/// into `dest`: what a clone of the working tree holds.
pub fn copy_checkout(dest: &Path) -> PathBuf {
    let checkout = crate::plugin::checkout();
    let listed = std::process::Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(&checkout)
        .output()
        .expect("run git ls-files");
    assert!(listed.status.success(), "git ls-files failed");
    for name in listed.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = std::str::from_utf8(name).expect("UTF-8 path");
        let from = checkout.join(name);
        if !from.is_file() {
            continue; // deleted in the working tree
        }
        let to = dest.join(name);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::copy(&from, &to).expect("copy");
    }
    dest.to_path_buf()
}

/// One install step: its check's name, the arguments, stdin, what the output must hold.
type Step<'a> = (
    &'static str,
    Vec<&'a str>,
    &'static [u8],
    &'static [&'static str],
);

/// Installs the extension with the host's own commands, one check per command. `run`
/// takes the arguments and what to answer on stdin: Gemini CLI, installing from a local
/// folder, asks whether to trust it, and the user says `y`.
pub fn install(host: Host, source: &Path, run: &dyn Fn(&[&str], &[u8]) -> Output) -> Vec<Check> {
    let source = source.to_str().expect("UTF-8 source path");
    if host == Host::Qwen {
        // `<source>:context-mode`: without a plugin name Qwen Code 0.24.4 finds the Claude
        // Code marketplace first and asks which plugin to install; with it, the
        // `qwen-extension.json` beside it wins.
        let source = format!("{source}:context-mode");
        let steps: [Step; 3] = [
            (
                "qwen extensions install <checkout>:context-mode --consent succeeds",
                vec!["extensions", "install", &source, "--consent"],
                b"",
                &["Extension \"context-mode\" installed successfully"],
            ),
            (
                "qwen extensions list shows context-mode from qwen-extension.json",
                vec!["extensions", "list"],
                b"",
                &[
                    "context-mode (",
                    "Origin: QwenCode",
                    "configs/qwen-code/QWEN.md",
                ],
            ),
            (
                "qwen mcp list shows the extension's server connected",
                vec!["mcp", "list"],
                b"",
                // The server entry names the launcher itself (ADR 43), no `sh`.
                &[
                    "context-mode: ",
                    "/configs/claude-code/plugin/scripts/cm serve",
                    "Connected",
                ],
            ),
        ];
        return run_steps(steps, run);
    }
    let steps: [Step; 3] = [
        (
            "gemini extensions install <checkout> --consent succeeds",
            vec!["extensions", "install", source, "--consent"],
            b"y\n",
            &["Extension \"context-mode\" installed successfully"],
        ),
        (
            "gemini extensions list shows context-mode with its server and context file",
            vec!["extensions", "list"],
            b"",
            &[
                "context-mode (",
                "configs/gemini-cli/context-mode.md",
                "MCP servers:",
            ],
        ),
        (
            "gemini mcp list shows the extension's server connected",
            vec!["mcp", "list"],
            b"",
            &["context-mode (from context-mode)", "Connected"],
        ),
    ];
    run_steps(steps, run)
}

fn run_steps(steps: [Step; 3], run: &dyn Fn(&[&str], &[u8]) -> Output) -> Vec<Check> {
    steps
        .into_iter()
        .map(|(name, args, input, expect)| {
            let output = run(&args, input);
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            let shown = expect.iter().all(|e| text.contains(e));
            Check {
                name,
                failure: (!output.status.success() || !shown).then(|| {
                    format!(
                        "exit {}, expected {expect:?}: {}",
                        output.status,
                        excerpt(&text)
                    )
                }),
            }
        })
        .collect()
}

/// What only the extension form shows: the ctx tools are offered under the name the host
/// gives the extension's server, the redirect names one of them, and the extension's
/// context file reached the model.
pub fn checks(host: Host, requests: &[Request], home: &Path) -> Vec<Check> {
    let mut checks = crate::checks::tool_prefix_checks(requests, tool_prefix(host));
    let context_file = crate::checks::contexts(requests)
        .iter()
        .any(|c| c.contains(context_file_line(host)));
    checks.push(Check {
        name: "the extension's context file reaches the model",
        failure: (!context_file)
            .then(|| format!("no main-loop request holds {:?}", context_file_line(host))),
    });
    checks.push(no_hook_failed_open(home));
    checks
}

/// The launcher found `cm`: no hook failed open with its line.
pub fn no_hook_failed_open(home: &Path) -> Check {
    let log = home.join(".context-mode/hook-errors.log");
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    Check {
        name: "no hook failed open (hook-errors.log is empty)",
        failure: (!logged.trim().is_empty())
            .then(|| format!("{}: {}", log.display(), excerpt(&logged))),
    }
}
