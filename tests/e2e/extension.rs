//! Gemini CLI with context-mode installed the way its users install it: `gemini
//! extensions install <repository> --consent`, no `cm setup` (ADR 40). The extension
//! (`gemini-extension.json` and `hooks/hooks.json` at the repository root, generated from
//! the gemini-cli adapter's setup plan) reaches `cm` through the Claude Code plugin's
//! launcher; here `cm` is a link to the built binary in a folder put first on PATH.
//!
//! Gemini CLI 0.61.0 copies the whole source folder into `~/.gemini/extensions/<name>`,
//! so the install is from a copy of what git sees of this checkout (tracked and
//! not-ignored files, as a clone has them), not from the checkout with its `target/`.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::checks::{Check, excerpt};
use crate::http::Request;

/// What Gemini CLI names the tools of the extension's MCP server `context-mode`
/// (`mcp_<server>_<tool>`, the same as for a server in settings.json).
pub const TOOL_PREFIX: &str = "mcp_context-mode_ctx_";

/// A line of the extension's context file (`configs/gemini-cli/context-mode.md`) that
/// no hook adds.
const CONTEXT_FILE_LINE: &str = "Web pages and docs: `ctx_fetch_and_index`, then `ctx_search`";

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

/// Installs the extension with Gemini CLI's own commands, one check per command. `run`
/// takes the arguments and what to answer on stdin: installing from a local folder asks
/// whether to trust it, and the user says `y`.
pub fn install(source: &Path, run: &dyn Fn(&[&str], &[u8]) -> Output) -> Vec<Check> {
    let source = source.to_str().expect("UTF-8 source path");
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

/// What only the extension form shows: the ctx tools are offered under the name Gemini
/// gives the extension's server, the redirect names one of them, and the extension's
/// context file reached the model.
pub fn checks(requests: &[Request], home: &Path) -> Vec<Check> {
    let mut checks = crate::checks::tool_prefix_checks(requests, TOOL_PREFIX);
    let context_file = crate::checks::contexts(requests)
        .iter()
        .any(|c| c.contains(CONTEXT_FILE_LINE));
    checks.push(Check {
        name: "the extension's context file reaches the model",
        failure: (!context_file)
            .then(|| format!("no main-loop request holds {CONTEXT_FILE_LINE:?}")),
    });
    // The launcher found `cm`: no hook failed open with its line.
    let log = home.join(".context-mode/hook-errors.log");
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    checks.push(Check {
        name: "no hook failed open (hook-errors.log is empty)",
        failure: (!logged.trim().is_empty())
            .then(|| format!("{}: {}", log.display(), excerpt(&logged))),
    });
    checks
}
