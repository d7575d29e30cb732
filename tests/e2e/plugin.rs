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
pub const SKILL_DESCRIPTION_START: &str = "When to route tool output through context-mode";

/// The plugin's launcher, from the repository root.
const PLUGIN_LAUNCHER: &str = "configs/claude-code/plugin/scripts/cm";

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
    run_steps(run, &steps, |stdout| {
        stdout.contains("context-mode@context-mode") && stdout.contains("enabled")
    })
}

/// Runs each step (`run` takes the arguments), one check each: it must succeed, and a
/// `… list` step's output must satisfy `listed`.
pub fn run_steps(
    run: &dyn Fn(&[&str]) -> Output,
    steps: &[(&'static str, Vec<&str>)],
    listed: impl Fn(&str) -> bool,
) -> Vec<Check> {
    steps
        .iter()
        .map(|(name, args)| {
            let output = run(args);
            let stdout = String::from_utf8_lossy(&output.stdout);
            let listed = args.last() != Some(&"list") || listed(&stdout);
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
    let mut checks = crate::checks::tool_prefix_checks(requests, &format!("{TOOL_PREFIX}ctx_"));
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
pub const INSTALL_LINE: &str = "install it with: npm install -g context-mode";

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

/// `cargo xtask dist --profile dev` for this machine into `dir/dist`: the packed tarballs
/// of the launcher package and this machine's platform package. `path` is the PATH the
/// `node` that names the platform comes from.
pub fn dist_tarballs(dir: &Path, path: &OsStr) -> Vec<PathBuf> {
    let out = dir.join("dist");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // This machine's npm platform, as Node names it (the launcher's own lookup).
    let node = std::process::Command::new("node")
        .args(["-p", "process.platform + '-' + process.arch"])
        .env("PATH", path)
        .output()
        .expect("run node");
    let platform = String::from_utf8_lossy(&node.stdout).trim().to_owned();
    // xtask built, then run directly, both without the variables cargo gives this test
    // (`CARGO_MANIFEST_DIR`, `CARGO_PKG_*`, `OUT_DIR`, …): ring's build script tracks
    // `CARGO_MANIFEST_DIR`, so a nested `cargo build` seeing another value than `cargo
    // test` did would rebuild `cm` into target/debug/ on every run, and back after.
    let as_the_shell = |command: &mut std::process::Command| {
        for (name, _) in std::env::vars_os() {
            let name = name.to_string_lossy().into_owned();
            let ours = ["CARGO_HOME", "CARGO_TARGET_DIR"].contains(&name.as_str())
                || name.starts_with("CARGO_BUILD_");
            if (name.starts_with("CARGO_") && !ours) || name == "OUT_DIR" {
                command.env_remove(&name);
            }
        }
        command.current_dir(checkout());
    };
    let mut build = std::process::Command::new(&cargo);
    build.args(["build", "-q", "-p", "xtask"]);
    as_the_shell(&mut build);
    let built = build.output().expect("run cargo build -p xtask");
    assert!(
        built.status.success(),
        "cargo build -p xtask failed: {}",
        String::from_utf8_lossy(&built.stderr)
    );
    let xtask = checkout().join("target/debug/xtask");
    let mut dist = std::process::Command::new(&xtask);
    dist.args(["dist", "--profile", "dev", "--target"])
        .arg(&platform)
        .arg("--out")
        .arg(&out);
    as_the_shell(&mut dist);
    let dist = dist.output().expect("run xtask dist");
    assert!(
        dist.status.success(),
        "cargo xtask dist --profile dev failed: {}",
        String::from_utf8_lossy(&dist.stderr)
    );
    // The launcher package and this machine's platform package.
    std::fs::read_dir(out.join("npm"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "tgz"))
        .collect()
}

/// `cargo xtask dist --profile dev` for this machine (the `cm` this test binary was built
/// with, packed as ADR 36's npm packages) into `dir`, then `npm install -g` of the launcher
/// and platform tarballs into `prefix`, offline; one check for the install. `path` is the
/// agent's PATH, which must not reach any `cm`.
pub fn npm_install_dist(dir: &Path, prefix: &Path, path: &OsStr) -> Vec<Check> {
    let tarballs = dist_tarballs(dir, path);
    let install = std::process::Command::new("npm")
        .args([
            "install",
            "-g",
            "--offline",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
        ])
        .args(&tarballs)
        .env("PATH", path)
        .env("npm_config_prefix", prefix)
        .env("npm_config_cache", dir.join("npm-cache"))
        .env("npm_config_update_notifier", "false")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run npm");
    let binary = std::fs::read_dir(prefix.join("lib/node_modules/@context-mode"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin/cm"))
        .find(|p| p.is_file());
    let on_path = std::env::split_paths(path).find(|d| d.join("cm").exists());
    let skips_node = launcher_skips_node(dir, prefix, path);
    vec![
        Check {
            name: "npm install -g of the packed launcher and platform packages succeeds",
            failure: (!install.status.success() || binary.is_none()).then(|| {
                format!(
                    "exit {} installing {tarballs:?}, platform binary {binary:?}: {}",
                    install.status,
                    excerpt(&String::from_utf8_lossy(&install.stderr))
                )
            }),
        },
        Check {
            name: "no cm is on the agent's PATH",
            failure: on_path.map(|d| format!("{} holds a cm", d.display())),
        },
        Check {
            name: "with npm's cm on PATH the plugin's launcher runs the binary without Node",
            failure: skips_node.err(),
        },
    ]
}

/// The plugin's launcher with the npm prefix's `bin/` first on PATH (where `cm` is npm's
/// JavaScript launcher) and a `node` before the real one that only leaves a mark: `cm
/// --version` must answer and the mark must not be there.
fn launcher_skips_node(dir: &Path, prefix: &Path, path: &OsStr) -> Result<(), String> {
    let trap = dir.join("node-trap");
    let mark = dir.join("node-ran");
    std::fs::create_dir_all(&trap).map_err(|e| e.to_string())?;
    let node = trap.join("node");
    std::fs::write(
        &node,
        format!("#!/bin/sh\ntouch '{}'\nexit 1\n", mark.display()),
    )
    .map_err(|e| e.to_string())?;
    std::fs::set_permissions(&node, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .map_err(|e| e.to_string())?;
    let dirs = [prefix.join("bin"), trap].into_iter();
    let path = std::env::join_paths(dirs.chain(std::env::split_paths(path))).expect("PATH");
    let output = std::process::Command::new("sh")
        .arg(checkout().join(PLUGIN_LAUNCHER))
        .arg("--version")
        .env("PATH", path)
        .output()
        .map_err(|e| e.to_string())?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    match (version.starts_with("cm "), mark.exists()) {
        (true, false) => Ok(()),
        (_, ran) => Err(format!(
            "--version printed {version:?} (stderr {}), node ran: {ran}",
            excerpt(&String::from_utf8_lossy(&output.stderr))
        )),
    }
}

/// What Codex 0.171.0 names the tools of the plugin's MCP server (`context-mode`): its
/// namespace `mcp__context_mode` joined to the tool's name.
pub const CODEX_TOOL_PREFIX: &str = "mcp__context_mode__";

/// Codex: `codex plugin marketplace add <checkout>` + `codex plugin add
/// context-mode@context-mode` + `codex plugin list`, one check each; then the user's
/// one-time step, trusting the plugin's hooks, done the way Codex records it: a
/// `[hooks.state."context-mode@context-mode:hooks/hooks.json:<event>:<group>:<handler>"]
/// trusted_hash` per hook of the installed plugin in `config.toml`.
pub fn install_codex(run: &dyn Fn(&[&str]) -> Output, home: &Path) -> Vec<Check> {
    let checkout = checkout();
    let checkout = checkout.to_str().expect("UTF-8 checkout path");
    let steps: [(&'static str, Vec<&str>); 3] = [
        (
            "codex plugin marketplace add <checkout> succeeds",
            vec!["plugin", "marketplace", "add", checkout],
        ),
        (
            "codex plugin add context-mode@context-mode succeeds",
            vec!["plugin", "add", "context-mode@context-mode"],
        ),
        (
            "codex plugin list shows the Codex bundle installed and enabled",
            vec!["plugin", "list"],
        ),
    ];
    // The marketplace Codex read, and the plugin's source: ours, not the Claude Code
    // plugin that `.claude-plugin/marketplace.json` lists.
    let mut checks = run_steps(run, &steps, |stdout| {
        stdout.contains(".agents/plugins/marketplace.json")
            && stdout.contains("installed, enabled")
            && stdout.contains("configs/codex/plugin")
    });
    let trusted = trust_codex_plugin_hooks(home);
    checks.push(Check {
        name: "the installed plugin's hooks are found and trusted in config.toml",
        failure: trusted.err(),
    });
    checks
}

/// Appends a trusted hash for every hook of the installed plugin's `hooks/hooks.json`.
fn trust_codex_plugin_hooks(home: &Path) -> Result<(), String> {
    let cache = home.join(".codex/plugins/cache/context-mode/context-mode");
    let hooks_file = crate::served::files_under(&cache)
        .into_iter()
        .find(|p| p.ends_with("hooks/hooks.json"))
        .ok_or(format!("no hooks/hooks.json under {}", cache.display()))?;
    let text = std::fs::read_to_string(&hooks_file).map_err(|e| e.to_string())?;
    let hooks_json: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let hooks = cm::setup::trust::codex_plugin_hooks(
        "context-mode@context-mode",
        "hooks/hooks.json",
        &hooks_json,
    );
    if hooks.len() < 6 {
        return Err(format!("{} hooks in {}", hooks.len(), hooks_file.display()));
    }
    let config = home.join(".codex/config.toml");
    let mut text = std::fs::read_to_string(&config).map_err(|e| e.to_string())?;
    text.push('\n');
    text.push_str(&cm::setup::trust::codex_trust_toml(&hooks));
    std::fs::write(&config, text).map_err(|e| e.to_string())
}

/// The server and the hooks work for one project, the session's: a server started in
/// the plugin's folder would keep a second store (`~/.context-mode/projects/<key>/`).
pub fn one_project_check(home: &Path) -> Check {
    let stores: Vec<String> = std::fs::read_dir(home.join(".context-mode/projects"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    Check {
        name: "the server and the hooks keep the one project's store",
        failure: (stores.len() != 1).then(|| format!("project stores: {stores:?}")),
    }
}

/// What only the Codex plugin shows: the redirect and the offered tools name the plugin's
/// server as Codex names it (no `cm setup` ran, so the hooks that redirected are the
/// plugin's), and its server kept no store of its own beside the project's.
pub fn codex_checks(requests: &[Request], home: &Path) -> Vec<Check> {
    let one_project = one_project_check(home);
    let shell = crate::checks::result_of_call(requests, crate::script::SHELL);
    let offered = crate::checks::offered_names(requests);
    let ours: Vec<&String> = offered.iter().filter(|n| n.contains("ctx_")).collect();
    vec![
        one_project,
        Check {
            name: "the redirect names the ctx tool as Codex names the plugin's tools",
            failure: match &shell {
                Ok(text) if text.contains(&format!("redirected to {CODEX_TOOL_PREFIX}ctx_")) => {
                    None
                }
                Ok(text) => Some(format!(
                    "no \"redirected to {CODEX_TOOL_PREFIX}ctx_…\" in: {}",
                    excerpt(text)
                )),
                Err(e) => Some(e.clone()),
            },
        },
        Check {
            name: "the ctx tools are offered under the plugin's server",
            failure: (ours.is_empty() || ours.iter().any(|n| !n.starts_with(CODEX_TOOL_PREFIX)))
                .then(|| format!("ctx tools offered: {ours:?}")),
        },
    ]
}
