//! GitHub Copilot CLI with context-mode installed as its users install the plugin:
//! `copilot plugin install <repository>:configs/copilot-cli` from GitHub, here the same
//! folder of this checkout (`copilot plugin install <checkout>/configs/copilot-cli`), no
//! `cm setup` (ADR 40). Both forms copy only that folder, to
//! `~/.copilot/installed-plugins/_direct/copilot-cli/`, so the session runs the copy: its
//! `hooks.json`, its `.mcp.json` and the launcher copied into it (`scripts/cm`). `cm` is a
//! link to the built binary in a folder put first on PATH. No network: a local folder is
//! installed without git or GitHub.

use std::path::Path;
use std::process::Output;

use crate::checks::{Check, excerpt};
use crate::http::Request;

/// What Copilot CLI 1.0.102 names the tools of the plugin's server `context-mode`: as
/// for a server in `mcp-config.json`, `<server>-<tool>`.
const TOOL_PREFIX: &str = "context-mode-ctx_";
/// Where a local-folder install copies the bundle (`_direct/<folder name>`).
const INSTALLED: &str = ".copilot/installed-plugins/_direct/copilot-cli";

/// `copilot plugin install <checkout>/configs/copilot-cli` + `copilot plugin list`, one
/// check each, and one that the installed copy holds the bundle with its launcher.
pub fn install(run: &dyn Fn(&[&str]) -> Output, home: &Path) -> Vec<Check> {
    let bundle = crate::plugin::checkout().join("configs/copilot-cli");
    let bundle = bundle.to_str().expect("UTF-8 checkout path");
    let steps: [(&'static str, Vec<&str>); 2] = [
        (
            "copilot plugin install <checkout>/configs/copilot-cli succeeds",
            vec!["plugin", "install", bundle],
        ),
        (
            "copilot plugin list shows context-mode installed",
            vec!["plugin", "list"],
        ),
    ];
    let mut checks = crate::plugin::run_steps(run, &steps, |stdout| {
        stdout.contains("Installed plugins:") && stdout.contains("context-mode (v")
    });
    let installed = home.join(INSTALLED);
    let missing: Vec<&str> = [
        "hooks.json",
        ".mcp.json",
        "scripts/cm",
        ".github/plugin/plugin.json",
    ]
    .into_iter()
    .filter(|f| !installed.join(f).is_file())
    .collect();
    checks.push(Check {
        name: "the installed copy holds the bundle and its launcher",
        failure: (!missing.is_empty())
            .then(|| format!("{} lacks {missing:?}", installed.display())),
    });
    checks
}

/// What only the plugin form shows: the ctx tools and the redirect name the plugin's
/// server, the server and the hooks (both started in the plugin's folder) keep the one
/// project's store, and no hook failed open.
pub fn checks(requests: &[Request], home: &Path) -> Vec<Check> {
    let mut checks = crate::checks::tool_prefix_checks(requests, TOOL_PREFIX);
    // The server starts in the plugin's folder: only the `${PWD}` of its entry keeps it
    // on the session's project.
    checks.push(crate::plugin::one_project_check(home));
    checks.push(crate::extension::no_hook_failed_open(home));
    // Copilot CLI lists a plugin's skills to the model by name and description.
    let skill_listed = crate::checks::contexts(requests)
        .iter()
        .any(|c| c.contains(crate::plugin::SKILL_DESCRIPTION_START));
    checks.push(Check {
        name: "the plugin's routing skill is listed to the model",
        failure: (!skill_listed).then(|| {
            format!(
                "no main-loop request holds {:?}",
                crate::plugin::SKILL_DESCRIPTION_START
            )
        }),
    });
    checks
}

/// `cm doctor` and `cm setup` beside the plugin (`cm` takes the arguments, run as the
/// user runs it): doctor passes the plugin without asking for `cm setup`; after `cm
/// setup --agents copilot-cli` it fails, naming the double registration and the fix.
pub fn doctor_checks(cm: &dyn Fn(&[&str]) -> Output) -> Vec<Check> {
    let row = |cm: &dyn Fn(&[&str]) -> Output| -> Result<(String, String), String> {
        let output = cm(&["doctor", "--agents", "copilot-cli", "--json"]);
        let report: serde_json::Value =
            serde_json::from_slice(&output.stdout).map_err(|e| format!("doctor --json: {e}"))?;
        let rows = report["checks"].as_array().cloned().unwrap_or_default();
        rows.iter()
            .find(|c| c["name"] == "copilot-cli plugin")
            .map(|c| {
                (
                    c["status"].as_str().unwrap_or_default().to_owned(),
                    c["detail"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .ok_or(format!("no copilot-cli plugin row among {rows:?}"))
    };
    let alone = row(cm);
    let setup = cm(&["setup", "--agents", "copilot-cli", "--yes"]);
    let both = row(cm);
    vec![
        Check {
            name: "cm doctor passes the installed plugin without asking for cm setup",
            failure: match alone {
                Ok((status, detail))
                    if status == "PASS" && detail.contains("installed as a Copilot CLI plugin") =>
                {
                    None
                }
                other => Some(format!("{other:?}")),
            },
        },
        Check {
            name: "after cm setup too, cm doctor fails on the double registration",
            failure: match both {
                Ok((status, detail))
                    if setup.status.success()
                        && status == "FAIL"
                        && detail.contains("every hook runs twice") =>
                {
                    None
                }
                other => Some(format!("setup exit {}: {other:?}", setup.status)),
            },
        },
    ]
}

/// With no `cm` anywhere: the session went on as without hooks, each hook left the
/// launcher's line in `hook-errors.log` (and answered nothing), and the server entry said
/// the same on stderr, which Copilot CLI keeps in its log (`~/.copilot/logs/`).
pub fn without_cm_checks(requests: &[Request], home: &Path, output: &Output) -> Vec<Check> {
    let mut checks = crate::served::went_on_checks(requests, output);
    let log = home.join(".context-mode/hook-errors.log");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let unlogged: Vec<&str> = [
        "sessionstart",
        "userpromptsubmit",
        "pretooluse",
        "posttooluse",
        "stop",
    ]
    .into_iter()
    .filter(|event| {
        !text.lines().any(|l| {
            l.contains(&format!("copilot-cli {event}: ")) && l.contains(crate::plugin::INSTALL_LINE)
        })
    })
    .collect();
    checks.push(Check {
        name: "the hooks fail open with the install line in hook-errors.log",
        failure: (!unlogged.is_empty()).then(|| {
            format!(
                "no line for {unlogged:?} in {}: {}",
                log.display(),
                excerpt(&text)
            )
        }),
    });
    let said = crate::served::files_under(&home.join(".copilot/logs"))
        .into_iter()
        .find(|p| {
            std::fs::read_to_string(p)
                .map(|t| t.contains(crate::plugin::INSTALL_LINE))
                .unwrap_or(false)
        });
    if let Some(path) = &said {
        println!("e2e: the server entry's line is in {}", path.display());
    }
    checks.push(Check {
        name: "the MCP server entry says how to install cm",
        failure: said
            .is_none()
            .then(|| "Copilot CLI's logs do not hold the launcher's line".to_owned()),
    });
    checks
}
