//! Claude Code with context-mode installed the way its users install it: `claude plugin
//! marketplace add <this checkout>` + `claude plugin install context-mode@context-mode`,
//! no `cm setup`. The plugin (`configs/claude-code/plugin/`, generated from the adapter's
//! setup plan) reaches `cm` through its launcher; here `cm` is a link to the built binary
//! in a folder put first on PATH. Its tools are then `mcp__plugin_context-mode_context-mode__…`,
//! and the redirects, the routing block and the served hooks must all use that server.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::checks::{Check, excerpt};
use crate::http::Request;

/// What Claude Code 2.1.332 names our tools when the plugin registers the server.
pub const TOOL_PREFIX: &str = "mcp__plugin_context-mode_context-mode__";

/// The routing skill as Claude Code lists a plugin's skill (`<plugin>:<skill>`), and the
/// first words of its description (`skills/context-mode/SKILL.md`).
const SKILL: &str = "context-mode:context-mode";
const SKILL_DESCRIPTION_START: &str = "When to route tool output through context-mode";

/// The repository checkout the marketplace is added from.
pub fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("repository root")
        .to_path_buf()
}

/// `path` with a folder holding only `cm` (a link to the built binary) first.
pub fn path_with_cm(dir: &Path, path: &OsStr) -> OsString {
    let bin = dir.join("cm-on-path");
    std::fs::create_dir_all(&bin).expect("mkdir");
    let link = bin.join("cm");
    if !link.exists() {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_cm"), &link).expect("link cm");
    }
    std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(path))).expect("PATH")
}

/// `path` without any folder that holds a `cm`.
pub fn path_without_cm(path: &OsStr) -> OsString {
    let kept = std::env::split_paths(path).filter(|dir| !dir.join("cm").exists());
    std::env::join_paths(kept).expect("PATH")
}

/// Adds the marketplace and installs the plugin with Claude Code's own commands (`run`
/// takes the arguments), one check per command.
pub fn install(run: &dyn Fn(&[&str]) -> Output) -> Vec<Check> {
    let checkout = checkout();
    let checkout = checkout.to_str().expect("UTF-8 checkout path");
    let steps: [(&'static str, Vec<&str>); 4] = [
        (
            "claude plugin validate <checkout> passes",
            vec!["plugin", "validate", checkout],
        ),
        (
            "claude plugin marketplace add <checkout> succeeds",
            vec!["plugin", "marketplace", "add", checkout],
        ),
        (
            "claude plugin install context-mode@context-mode succeeds",
            vec!["plugin", "install", "context-mode@context-mode"],
        ),
        (
            "claude plugin list shows context-mode enabled",
            vec!["plugin", "list"],
        ),
    ];
    steps
        .into_iter()
        .map(|(name, args)| {
            let output = run(&args);
            let stdout = String::from_utf8_lossy(&output.stdout);
            let listed = args[1] != "list"
                || (stdout.contains("context-mode@context-mode") && stdout.contains("enabled"));
            Check {
                name,
                failure: (!output.status.success() || !listed).then(|| {
                    format!(
                        "exit {}: {}{}",
                        output.status,
                        excerpt(&stdout),
                        excerpt(&String::from_utf8_lossy(&output.stderr))
                    )
                }),
            }
        })
        .collect()
}

/// What only the plugin form shows: the redirect, the offered tools and the routing block
/// name the plugin's server, and its tool hooks were answered by that server.
pub fn checks(requests: &[Request], home: &Path) -> Vec<Check> {
    let mut checks = Vec::new();
    let shell = crate::checks::result_of_call(requests, crate::script::SHELL);
    checks.push(Check {
        name: "the redirect names the plugin-form ctx tool",
        failure: match &shell {
            Ok(text) if text.contains(&format!("redirected to {TOOL_PREFIX}ctx_")) => None,
            Ok(text) => Some(format!(
                "no \"redirected to {TOOL_PREFIX}ctx_…\" in: {}",
                excerpt(text)
            )),
            Err(e) => Some(e.clone()),
        },
    });
    let offered = crate::checks::offered_names(requests);
    let ours: Vec<&String> = offered.iter().filter(|n| n.contains("ctx_")).collect();
    checks.push(Check {
        name: "the ctx tools are offered under the plugin's server only",
        failure: (ours.is_empty() || ours.iter().any(|n| !n.starts_with(TOOL_PREFIX)))
            .then(|| format!("ctx tools offered: {ours:?}")),
    });
    let routing = crate::checks::routing_block(requests);
    checks.push(Check {
        name: "the routing block names the plugin-form tools",
        failure: match routing {
            Some(text) if text.contains(&format!("{TOOL_PREFIX}ctx_")) => None,
            Some(text) => Some(format!("no {TOOL_PREFIX}ctx_… in: {}", excerpt(&text))),
            None => Some("no routing block reached the model".to_owned()),
        },
    });
    let skill_listed = crate::checks::contexts(requests)
        .iter()
        .any(|c| c.contains(SKILL) && c.contains(SKILL_DESCRIPTION_START));
    checks.push(Check {
        name: "the plugin's routing skill is listed to the model",
        failure: (!skill_listed).then(|| format!("no main-loop request lists the skill {SKILL}")),
    });
    checks.extend(crate::served::plugin_served_checks(home));
    checks
}

/// The line the launcher gives when it finds no `cm` (`configs/claude-code/plugin/scripts/cm`).
const INSTALL_LINE: &str = "install it with: npm install -g context-mode";

/// With no `cm` anywhere: the session went on as without hooks, every hook Claude Code ran
/// succeeded, each command hook left the launcher's line in `hook-errors.log`, and the
/// server entry said the same (Claude Code keeps a failed server's stderr in its MCP log).
pub fn without_cm_checks(requests: &[Request], home: &Path, output: &Output) -> Vec<Check> {
    let mut checks = crate::served::went_on_checks(requests, output);
    checks.push(crate::checks::hook_replies_check(&output.stdout));
    let log = home.join(".context-mode/hook-errors.log");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let logged = |event: &str| {
        text.lines()
            .any(|l| l.contains(&format!("claude-code {event}: ")) && l.contains(INSTALL_LINE))
    };
    checks.push(Check {
        name: "the command hooks fail open with the install line in hook-errors.log",
        failure: (!["sessionstart", "userpromptsubmit", "stop"]
            .iter()
            .all(|e| logged(e)))
        .then(|| format!("{}: {}", log.display(), excerpt(&text))),
    });
    // Claude Code 2.1.332 keeps a server's stderr in
    // `~/.cache/claude-cli-nodejs/<project>/mcp-logs-<server>/<time>.jsonl`.
    let said = crate::served::files_under(&home.join(".cache/claude-cli-nodejs"))
        .into_iter()
        .filter(|p| {
            p.parent()
                .and_then(Path::file_name)
                .is_some_and(|d| d == "mcp-logs-plugin-context-mode-context-mode")
        })
        .find(|p| {
            std::fs::read_to_string(p)
                .map(|t| t.contains(INSTALL_LINE))
                .unwrap_or(false)
        });
    if let Some(path) = &said {
        println!("e2e: the server entry's line is in {}", path.display());
    }
    checks.push(Check {
        name: "the MCP server entry says how to install cm",
        failure: said.is_none().then(|| {
            "Claude Code's log of the plugin's server does not hold the launcher's line".to_owned()
        }),
    });
    checks
}
