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

/// The host's install command and its listing, one check each (`run` takes the
/// arguments and runs the host's binary).
pub fn install(host: Host, run: &dyn Fn(&[&str]) -> Output) -> Vec<Check> {
    match host {
        Host::OpenCode(_) => {
            let steps: [(&'static str, Vec<&str>); 2] = [
                (
                    "opencode plugin context-mode -g succeeds",
                    vec!["plugin", "context-mode", "-g"],
                ),
                (
                    "opencode mcp list shows the package's context-mode server",
                    vec!["mcp", "list"],
                ),
            ];
            run_steps(run, &steps, |stdout| stdout.contains("context-mode"))
        }
        Host::Pi => {
            let steps: [(&'static str, Vec<&str>); 2] = [
                (
                    "pi install npm:context-mode succeeds",
                    vec!["install", "npm:context-mode"],
                ),
                ("pi list shows npm:context-mode", vec!["list"]),
            ];
            run_steps(run, &steps, |stdout| stdout.contains("npm:context-mode"))
        }
        Host::Omp => {
            let steps: [(&'static str, Vec<&str>); 2] = [
                (
                    "omp plugin install context-mode succeeds",
                    vec!["plugin", "install", "context-mode"],
                ),
                ("omp plugin list shows context-mode", vec!["plugin", "list"]),
            ];
            run_steps(run, &steps, |stdout| stdout.contains("context-mode@"))
        }
        other => panic!("{other:?} has no npm package install"),
    }
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
