//! The `context-mode` npm package as the OpenCode plugin, the Pi package and the OMP
//! plugin (ADR 41), installed with each host's own command from a registry on 127.0.0.1
//! (`crate::registry`) serving the tarballs `cargo xtask dist` packs from this build:
//! `opencode plugin context-mode -g`, `pi install npm:context-mode`, `omp plugin install
//! context-mode`. No `cm setup`, and no `cm` on PATH: the hooks and the `ctx_*` tools
//! must reach the platform package's binary the package found by itself.

use std::ffi::OsString;
use std::path::Path;
use std::process::Output;

use crate::agents::Host;
use crate::checks::{Check, excerpt};
use crate::plugin::run_steps;

/// The variables every host command of the session gets: npm (Pi, OpenCode) and Bun
/// (OMP) take the registry from `npm_config_registry`; `npm_config_offline` undoes the
/// `offline=true` the OpenCode harness writes into `~/.npmrc`; a `npm install -g` (Pi's
/// install) goes into `prefix`, whose `bin/` is not on PATH.
pub fn env(registry: &str, prefix: &Path) -> Vec<(&'static str, OsString)> {
    vec![
        ("npm_config_registry", registry.into()),
        ("npm_config_offline", "false".into()),
        ("npm_config_prefix", prefix.into()),
        ("npm_config_update_notifier", "false".into()),
    ]
}

/// The host's install command, its update command and its listing, one check each
/// (`run` takes the arguments and runs the host's binary): the lines the README gives.
/// OpenCode's listing is `mcp list`, which shows the server the plugin adds, so only when
/// the package has a `cm` to serve; its update is the install again with `-f`, and OMP's
/// for an npm plugin `plugin install --force` (what `omp plugin upgrade` tells to run).
pub fn install(host: Host, run: &dyn Fn(&[&str]) -> Output, with_cm: bool) -> Vec<Check> {
    let (mut steps, listed): (Vec<(&'static str, Vec<&str>)>, &str) = match host {
        Host::OpenCode(_) => (
            vec![
                (
                    "opencode plugin context-mode -g succeeds",
                    vec!["plugin", "context-mode", "-g"],
                ),
                (
                    "opencode plugin context-mode -g -f (the update) succeeds",
                    vec!["plugin", "context-mode", "-g", "-f"],
                ),
            ],
            "context-mode",
        ),
        Host::Pi => (
            vec![
                (
                    "pi install npm:context-mode succeeds",
                    vec!["install", "npm:context-mode"],
                ),
                (
                    "pi update --extensions succeeds",
                    vec!["update", "--extensions"],
                ),
                ("pi list shows npm:context-mode", vec!["list"]),
            ],
            "npm:context-mode",
        ),
        Host::Omp => (
            vec![
                (
                    "omp plugin install context-mode succeeds",
                    vec!["plugin", "install", "context-mode"],
                ),
                (
                    "omp plugin install context-mode --force (the update) succeeds",
                    vec!["plugin", "install", "context-mode", "--force"],
                ),
                ("omp plugin list shows context-mode", vec!["plugin", "list"]),
            ],
            "context-mode@",
        ),
        other => panic!("{other:?} has no npm package install"),
    };
    if with_cm && matches!(host, Host::OpenCode(_)) {
        steps.push((
            "opencode mcp list shows the package's context-mode server",
            vec!["mcp", "list"],
        ));
    }
    run_steps(run, &steps, |stdout| stdout.contains(listed))
}

/// After the session: the host's remove command, and its listing no longer shows the
/// package. OpenCode 1.18.33 has no remove command (the README says to take the entry
/// out of `plugin` in its config), so nothing is run for it.
pub fn remove(host: Host, run: &dyn Fn(&[&str]) -> Output) -> Vec<Check> {
    let (steps, gone): (Vec<(&'static str, Vec<&str>)>, &str) = match host {
        Host::Pi => (
            vec![
                (
                    "pi remove npm:context-mode succeeds",
                    vec!["remove", "npm:context-mode"],
                ),
                ("pi list no longer shows npm:context-mode", vec!["list"]),
            ],
            "npm:context-mode",
        ),
        Host::Omp => (
            vec![
                (
                    "omp plugin uninstall context-mode succeeds",
                    vec!["plugin", "uninstall", "context-mode"],
                ),
                (
                    "omp plugin list no longer shows context-mode",
                    vec!["plugin", "list"],
                ),
            ],
            "context-mode@",
        ),
        _ => return Vec::new(),
    };
    run_steps(run, &steps, |stdout| !stdout.contains(gone))
}

/// What only the package form shows: no hook found `cm` missing (the package resolved
/// its platform package with nothing on PATH).
pub fn checks(home: &Path, path: &std::ffi::OsStr) -> Vec<Check> {
    let log = home.join(".context-mode/hook-errors.log");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let on_path = std::env::split_paths(path).find(|d| d.join("cm").exists());
    vec![
        Check {
            name: "no cm is on the host's PATH",
            failure: on_path.map(|d| format!("{} holds a cm", d.display())),
        },
        Check {
            name: "no hook of the package reported cm missing",
            failure: text
                .contains("cm is not installed")
                .then(|| format!("{}: {}", log.display(), excerpt(&text))),
        },
    ]
}

/// The one line the package gives when it finds no `cm`, as the plugin launcher gives it
/// (`configs/claude-code/plugin/scripts/cm`).
const INSTALL_LINE: &str = "context-mode: cm is not installed (not on PATH, no npm package @context-mode/cm-*); install it with: npm install -g context-mode";

/// The package installed without its platform package and no `cm` anywhere: the session
/// went on as without context-mode, each hook left the install line in
/// `hook-errors.log` under the host's adapter id, and the tools' side said it too, where
/// the host keeps a plugin's log: stderr (Pi; OpenCode's `--print-logs`), OMP's
/// `~/.omp/logs/omp.<date>.<pid>.log`.
pub fn without_cm_checks(
    host: Host,
    requests: &[crate::http::Request],
    home: &Path,
    output: &Output,
) -> Vec<Check> {
    let adapter = match host {
        Host::OpenCode(_) => "opencode",
        Host::Pi => "pi",
        Host::Omp => "omp",
        other => panic!("{other:?} has no npm package install"),
    };
    let shell = crate::checks::result_of_call(requests, crate::script::SHELL);
    let log = home.join(".context-mode/hook-errors.log");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let logged = text
        .lines()
        .any(|l| l.contains(&format!(" {adapter} ")) && l.ends_with(INSTALL_LINE));
    let mut said = String::from_utf8_lossy(&output.stderr).into_owned();
    for file in crate::served::files_under(&home.join(".omp/logs")) {
        said += &std::fs::read_to_string(file).unwrap_or_default();
    }
    vec![
        Check {
            name: "the shell curl runs as without context-mode",
            failure: match shell {
                Ok(text) if text.contains(crate::model::FIXTURE_BODY.trim()) => None,
                Ok(text) => Some(format!(
                    "the shell result is not the fixture: {}",
                    excerpt(&text)
                )),
                Err(e) => Some(e),
            },
        },
        Check {
            name: "the host finishes the session",
            failure: (!output.status.success()).then(|| format!("exit {}", output.status)),
        },
        Check {
            name: "the hooks fail open with the install line in hook-errors.log",
            failure: (!logged).then(|| format!("{}: {}", log.display(), excerpt(&text))),
        },
        Check {
            name: "the tools' side says how to install cm",
            failure: (!said.contains(INSTALL_LINE)).then(|| excerpt(&said)),
        },
    ]
}
