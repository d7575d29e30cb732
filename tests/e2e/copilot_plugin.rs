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
    checks.push(holds_the_bundle(&home.join(INSTALLED)));
    checks
}

/// The installed copy holds the bundle and its launcher.
fn holds_the_bundle(installed: &Path) -> Check {
    let missing: Vec<&str> = [
        "hooks.json",
        ".mcp.json",
        "scripts/cm",
        ".github/plugin/plugin.json",
    ]
    .into_iter()
    .filter(|f| !installed.join(f).is_file())
    .collect();
    Check {
        name: "the installed copy holds the bundle and its launcher",
        failure: (!missing.is_empty())
            .then(|| format!("{} lacks {missing:?}", installed.display())),
    }
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

/// `cm upgrade`, `cm doctor` and `cm setup` beside the plugin (`cm` takes the arguments,
/// run as the user runs it): upgrade names the plugin's update command; doctor passes the
/// plugin without asking for `cm setup`; after `cm setup --agents copilot-cli` it fails,
/// naming the double registration and the fix.
pub fn cm_checks(cm: &dyn Fn(&[&str]) -> Output, update: &str) -> Vec<Check> {
    let upgrade = cm(&["upgrade"]);
    let said = String::from_utf8_lossy(&upgrade.stdout).into_owned();
    let upgrade_check = Check {
        name: "cm upgrade names the plugin's update command",
        failure: (!said.contains(&format!(
            "GitHub Copilot CLI plugin installed; update it with:\n  {update}\n"
        )))
        .then(|| format!("no {update:?} in: {}", excerpt(&said))),
    };
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
        upgrade_check,
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

/// The repository as a git marketplace on 127.0.0.1: what git sees of this checkout,
/// committed into a bare repository under `dir`, served by `git http-backend` (Copilot
/// CLI clones a marketplace with `git clone --depth 1`, which git's "dumb" HTTP cannot
/// answer). Returns the server (stops with the test) and the repository's URL.
pub fn git_marketplace(dir: &Path) -> (crate::http::Server, String) {
    let work = crate::extension::copy_checkout(&dir.join("marketplace-work"));
    let git = |args: &[&str], at: &Path| {
        let output = std::process::Command::new("git")
            .args(args)
            .current_dir(at)
            .output()
            .expect("run git");
        assert!(
            output.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    git(&["init", "-q", "-b", "main"], &work);
    git(&["add", "-A"], &work);
    git(
        &[
            "-c",
            "user.name=e2e",
            "-c",
            "user.email=e2e@127.0.0.1",
            "commit",
            "-q",
            "-m",
            "the checkout",
        ],
        &work,
    );
    let served = dir.join("served");
    std::fs::create_dir_all(&served).expect("mkdir");
    git(
        &["clone", "-q", "--bare", ".", "../served/context-mode.git"],
        &work,
    );
    let handler = move |request: &crate::http::Request| http_backend(&served, request);
    let server = crate::http::Server::start(std::sync::Arc::new(handler));
    let url = format!("{}/context-mode.git", server.base());
    (server, url)
}

/// One request answered by `git http-backend` as a CGI program.
fn http_backend(root: &Path, request: &crate::http::Request) -> crate::http::Reply {
    use std::io::Write;
    let (path, query) = request
        .target
        .split_once('?')
        .unwrap_or((request.target.as_str(), ""));
    let mut command = std::process::Command::new("git");
    command
        .arg("http-backend")
        .env("GIT_PROJECT_ROOT", root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("REQUEST_METHOD", &request.method)
        .env("PATH_INFO", path)
        .env("QUERY_STRING", query)
        .env("CONTENT_LENGTH", request.body.len().to_string())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    if request.method == "POST" {
        // The request's own headers are not recorded; these are the ones git sends.
        command.env("CONTENT_TYPE", "application/x-git-upload-pack-request");
        if request.body.starts_with(&[0x1f, 0x8b]) {
            command.env("HTTP_CONTENT_ENCODING", "gzip");
        }
    }
    let Ok(mut child) = command.spawn() else {
        return crate::http::Reply::text(500, "cannot run git http-backend");
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(&request.body);
    }
    let Ok(output) = child.wait_with_output() else {
        return crate::http::Reply::text(500, "git http-backend failed");
    };
    // CGI: header lines, an empty line, the body.
    let out = output.stdout;
    let Some(split) = out.windows(4).position(|w| w == b"\r\n\r\n") else {
        return crate::http::Reply::text(500, "git http-backend wrote no header");
    };
    let head = String::from_utf8_lossy(&out[..split]).to_ascii_lowercase();
    let status = head
        .lines()
        .find_map(|l| l.strip_prefix("status: "))
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(200);
    let content_type = if head.contains("x-git-upload-pack-advertisement") {
        "application/x-git-upload-pack-advertisement"
    } else if head.contains("x-git-upload-pack-result") {
        "application/x-git-upload-pack-result"
    } else {
        "text/plain"
    };
    crate::http::Reply {
        status,
        content_type,
        body: out[split + 4..].to_vec(),
    }
}

/// `copilot plugin marketplace add <url>` + `copilot plugin install
/// context-mode@context-mode` + `copilot plugin list`, one check each, and one that the
/// copy Copilot CLI made of the plugin holds the bundle with its launcher.
pub fn install_from_marketplace(
    run: &dyn Fn(&[&str]) -> Output,
    home: &Path,
    url: &str,
) -> Vec<Check> {
    let steps: [(&'static str, Vec<&str>); 3] = [
        (
            "copilot plugin marketplace add <git URL on 127.0.0.1> succeeds",
            vec!["plugin", "marketplace", "add", url],
        ),
        (
            "copilot plugin install context-mode@context-mode succeeds",
            vec!["plugin", "install", "context-mode@context-mode"],
        ),
        (
            "copilot plugin list shows context-mode@context-mode installed",
            vec!["plugin", "list"],
        ),
    ];
    let mut checks = crate::plugin::run_steps(run, &steps, |stdout| {
        stdout.contains("Installed plugins:") && stdout.contains("context-mode@context-mode (v")
    });
    checks.push(holds_the_bundle(
        &home.join(".copilot/installed-plugins/context-mode/context-mode"),
    ));
    checks
}
