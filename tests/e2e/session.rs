//! One scripted session: a throw-away HOME and project, `cm setup`, the agent run on the
//! scripted model, then every check (`checks`) read from the recorded requests. All
//! checks run and all failures are reported together, with the agent's output tail and
//! a summary of the requests, so one run shows everything that is wrong.

use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::agents::{Agent, Host, PROMPT};
use crate::checks::{
    Check, checks as checks_of, compaction_check, excerpt, hook_replies_check, mcp_list_check,
    session_mcp_check,
};
use crate::http::Request;
use crate::model::{self, Provider, Script};
use crate::script;

/// A guard, not an assertion: an agent still running after this is stopped and the test
/// fails saying so (a scripted session takes seconds).
const AGENT_RUN_LIMIT: Duration = Duration::from_secs(180);

pub struct Session {
    pub label: String,
    pub version: String,
    pub took: Duration,
    pub output: Output,
    pub requests: Vec<Request>,
    pub checks: Vec<Check>,
}

/// What the harness does to the setup before the agent runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variation {
    /// What `cm setup` left.
    AsSetUp,
    /// The MCP server entry points at a program that does not exist, so the server the
    /// hooks are handed to never starts (ADR 27: the agent must go on as without hooks).
    ServerGone,
    /// The MCP server entry is a stand-in that connects and lists no tools but never
    /// answers a tool call: a hung server (the agent must go on once the hook times out).
    ServerSilent,
    /// No `cm setup`: the repository's plugin installed with the agent's own commands
    /// (`claude plugin marketplace add` + `claude plugin install`; Codex's `codex plugin
    /// marketplace add` + `codex plugin add` and its hooks trusted), `cm` on PATH
    /// (`crate::plugin`).
    InstalledAsPlugin,
    /// No `cm setup`: the repository served as a git marketplace on 127.0.0.1 and the
    /// plugin installed from it (`copilot plugin marketplace add <url>` + `copilot plugin
    /// install context-mode@context-mode`), `cm` on PATH (`crate::copilot_plugin`).
    InstalledFromMarketplace,
    /// The plugin installed the same way with no `cm` anywhere: none on PATH, an empty npm
    /// global prefix. The session must go on as without hooks (ADR 38).
    PluginWithoutCm,
    /// The plugin installed the same way, `cm` from the npm packages `cargo xtask dist`
    /// packs, installed with `npm install -g` into a prefix whose `bin/` is not on PATH:
    /// the launcher finds the platform package through `npm root -g`.
    PluginFromNpm,
    /// No `cm setup`: the repository installed as a Gemini CLI or Qwen Code extension with
    /// `gemini|qwen extensions install <checkout> --consent`, `cm` on PATH (`crate::extension`).
    InstalledAsExtension,
    /// No `cm setup`: the `context-mode` npm package, packed from this build and served
    /// by a registry on 127.0.0.1, installed with the host's own command (OpenCode, Pi,
    /// OMP), no `cm` on PATH (`crate::npm_plugins`, ADR 41).
    InstalledFromNpm,
    /// The same with the registry serving the launcher package only (its platform package
    /// missing, as on a platform without one): the session must go on as without
    /// context-mode, each hook leaving the install line in `hook-errors.log`.
    InstalledFromNpmWithoutCm,
}

/// Runs `agent` end to end and returns what happened; `assert_all` turns it into a verdict.
pub fn run(agent: &Agent) -> Session {
    run_with(agent, Variation::AsSetUp)
}

pub fn run_with(agent: &Agent, variation: Variation) -> Session {
    run_script(agent, variation, Script::Tour)
}

/// Runs `agent` on `scripted`: the tour's checks, the fail-open ones for a variation of
/// the tour, the parallel script's own (`parallel::checks`) whatever the variation.
pub fn run_script(agent: &Agent, variation: Variation, scripted: Script) -> Session {
    let path = agent.path().unwrap_or_else(|line| panic!("{line}"));
    let executable = crate::install::installed_on(agent.package, agent.version, agent.bin, &path)
        .unwrap_or_else(|line| panic!("{line}"));
    let dir = tempfile::tempdir().expect("tempdir");
    let canon = |p: PathBuf| {
        std::fs::create_dir_all(&p).expect("mkdir");
        p.canonicalize().expect("canonicalize")
    };
    let home = canon(dir.path().join("home"));
    let project = canon(dir.path().join("project"));
    let server = model::start(scripted, &project);
    let base = server.base();
    let from_marketplace = variation == Variation::InstalledFromMarketplace;
    let as_plugin = variation == Variation::InstalledAsPlugin || from_marketplace;
    let as_extension = variation == Variation::InstalledAsExtension;
    let from_npm = variation == Variation::PluginFromNpm;
    let without_cm = variation == Variation::PluginWithoutCm || from_npm;
    let package_without_cm = variation == Variation::InstalledFromNpmWithoutCm;
    let as_package = variation == Variation::InstalledFromNpm || package_without_cm;
    let path = if as_plugin || as_extension {
        crate::plugin::path_with_cm(dir.path(), &path)
    } else if without_cm || as_package {
        crate::plugin::path_without_cm(&path)
    } else {
        path
    };
    let path = if as_package && agent.host == Host::Omp {
        crate::pi::with_bun(&path)
    } else {
        path
    };
    let npm_prefix = dir.path().join("npm-prefix");
    let registry = as_package.then(|| {
        let mut tarballs = crate::plugin::dist_tarballs(dir.path(), &path);
        if package_without_cm {
            // `context-mode-cm-<platform>-<version>.tgz`: the platform package.
            tarballs.retain(|t| !t.to_string_lossy().contains("context-mode-cm-"));
        }
        crate::registry::Registry::start(&tarballs)
    });
    let package_env = registry
        .as_ref()
        .map(|r| crate::npm_plugins::env(&r.url(), &npm_prefix))
        .unwrap_or_default();
    let npm_installed = if from_npm {
        crate::plugin::npm_install_dist(dir.path(), &npm_prefix, &path)
    } else {
        Vec::new()
    };

    let version = capture(plain(
        Command::new(&executable).arg("--version"),
        &home,
        &project,
        &base,
        &path,
    ));
    // The first line: Copilot CLI adds "Run 'copilot update' to check for updates."
    let version = String::from_utf8_lossy(&version.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned();
    println!("e2e: {} reports version {version:?}", agent.label());

    agent.configure(&home, &project, &base);
    let run_agent = |args: &[&str]| {
        let command = &mut Command::new(&executable);
        plain(command, &home, &project, &base, &path).envs(package_env.iter().cloned());
        capture(command.args(args))
    };
    let installed = if as_extension {
        let source = crate::extension::copy_checkout(&dir.path().join("checkout"));
        crate::extension::install(agent.host, &source, &|args: &[&str], input: &[u8]| {
            let command = &mut Command::new(&executable);
            capture_with(
                plain(command, &home, &project, &base, &path).args(args),
                input,
            )
        })
    } else if as_package {
        crate::npm_plugins::install(agent.host, &run_agent, !package_without_cm)
    } else if as_plugin || without_cm {
        let mut checks = npm_installed;
        if agent.host == Host::Codex {
            checks.extend(crate::plugin::install_codex(&run_agent, &home));
        } else if from_marketplace {
            let (_git, url) = crate::copilot_plugin::git_marketplace(dir.path());
            checks.extend(crate::copilot_plugin::install_from_marketplace(
                &run_agent, &home, &url,
            ));
        } else if agent.host == Host::Copilot {
            checks.extend(crate::copilot_plugin::install(&run_agent, &home));
        } else {
            checks.extend(crate::plugin::install(&run_agent));
        }
        checks
    } else {
        set_up(agent, &executable, &home, &project, &base, &path);
        Vec::new()
    };

    match variation {
        Variation::AsSetUp
        | Variation::InstalledAsPlugin
        | Variation::InstalledFromMarketplace
        | Variation::PluginWithoutCm
        | Variation::PluginFromNpm
        | Variation::InstalledAsExtension
        | Variation::InstalledFromNpm
        | Variation::InstalledFromNpmWithoutCm => {}
        Variation::ServerGone => crate::served::point_server_nowhere(&home),
        Variation::ServerSilent => crate::served::point_server_at_a_silent_one(&home),
    }
    if scripted == Script::ParallelFirstTurn {
        crate::parallel::prepare(&project);
    }

    let listed = agent
        .mcp_list()
        .map(|(args, expect)| (args, expect, run_agent(args)));
    let after_setup = agent.after_setup(&home, &run_agent);

    let started = Instant::now();
    let run = |prompt: &str, resume: Option<&str>| {
        let mut command = Command::new(&executable);
        plain(&mut command, &home, &project, &base, &path).envs(package_env.iter().cloned());
        if without_cm {
            // `npm root -g` answers this prefix's folder: empty, or the npm packages.
            command.env("npm_config_prefix", &npm_prefix);
        }
        agent.apply(&mut command, &base, prompt, resume);
        capture(&mut command)
    };
    let mut output = run(PROMPT, None);
    let took = started.elapsed();
    if scripted == Script::Tour && agent.compacts_on_resume() {
        // Claude Code and Copilot CLI do not compact on their own within a `-p` turn;
        // `/compact` on the resumed session does, and the next resumed run shows what
        // the model gets.
        let id = session_id(&output.stdout);
        for (label, prompt) in [
            ("/compact", "/compact"),
            ("the run after it", script::AFTER_COMPACTION_PROMPT),
        ] {
            let more = run(prompt, id.as_deref());
            output.stdout.extend(format!("\n[e2e: {label}]\n").bytes());
            output.stdout.extend(&more.stdout);
            output.stderr.extend(&more.stderr);
        }
    }
    if scripted == Script::Tour && agent.compacts_then_resumes() {
        let id = session_id(&output.stdout);
        let more = run(script::AFTER_COMPACTION_PROMPT, id.as_deref());
        output.stdout.extend(b"\n[e2e: the resumed run]\n");
        output.stdout.extend(&more.stdout);
        output.stderr.extend(&more.stderr);
    }
    let removed = if as_package && !package_without_cm {
        crate::npm_plugins::remove(agent.host, &run_agent)
    } else {
        Vec::new()
    };
    let requests = server.requests();
    let checks = if scripted == Script::ParallelFirstTurn {
        crate::parallel::checks(&requests, &base, &project, &home, &output)
    } else if package_without_cm {
        let mut checks = installed;
        checks.extend(crate::npm_plugins::without_cm_checks(
            agent.host, &requests, &home, &output,
        ));
        checks
    } else if without_cm && !from_npm {
        let mut checks = installed;
        if agent.host == Host::Copilot {
            checks.extend(crate::copilot_plugin::without_cm_checks(
                &requests, &home, &output,
            ));
        } else {
            checks.extend(crate::plugin::without_cm_checks(&requests, &home, &output));
        }
        checks
    } else if !matches!(
        variation,
        Variation::AsSetUp
            | Variation::InstalledAsPlugin
            | Variation::InstalledFromMarketplace
            | Variation::PluginFromNpm
            | Variation::InstalledAsExtension
            | Variation::InstalledFromNpm
    ) {
        crate::served::fail_open_checks(&requests, &home, &output)
    } else {
        let mut checks = installed;
        checks.extend(checks_of(&requests));
        checks.extend(after_setup);
        if agent.compacts() {
            checks.push(compaction_check(&requests));
        }
        if agent.host == Host::Claude {
            checks.push(hook_replies_check(&output.stdout));
        }
        if as_plugin && agent.host == Host::Codex {
            checks.extend(crate::plugin::codex_checks(&requests, &home));
        } else if as_plugin && agent.host == Host::Copilot {
            checks.extend(crate::copilot_plugin::checks(&requests, &home));
            let update = if from_marketplace {
                "copilot plugin update context-mode@context-mode"
            } else {
                "copilot plugin update context-mode"
            };
            let cm = |args: &[&str]| {
                let command = &mut Command::new(env!("CARGO_BIN_EXE_cm"));
                capture(plain(command, &home, &project, &base, &path).args(args))
            };
            checks.extend(crate::copilot_plugin::cm_checks(&cm, update));
        } else if as_plugin || from_npm {
            checks.extend(crate::plugin::checks(&requests, &home));
        } else if as_extension {
            checks.extend(crate::extension::checks(agent.host, &requests, &home));
        } else if as_package {
            checks.extend(crate::npm_plugins::checks(&home, &path));
            checks.extend(removed);
        } else if agent.setup_sees_agent && agent.host == Host::Claude {
            checks.extend(crate::served::served_checks(&home, &project));
        }
        if let Some((args, expect, listing)) = listed {
            checks.push(mcp_list_check(agent.bin, args, expect, &listing));
            checks.push(session_mcp_check(&output.stdout));
        }
        checks
    };
    drop(dir);
    Session {
        label: agent.label(),
        version,
        took,
        output,
        requests,
        checks,
    }
}

/// `cm setup --agents <agent>` as the user runs it; panics with its output when it fails.
fn set_up(agent: &Agent, executable: &Path, home: &Path, project: &Path, base: &str, path: &OsStr) {
    let mut setup = Command::new(env!("CARGO_BIN_EXE_cm"));
    plain(&mut setup, home, project, base, path).args(agent.setup_args());
    if agent.setup_sees_agent {
        setup.env("PATH", crate::served::path_with_agent(executable, path));
    }
    let setup = capture(&mut setup);
    assert!(
        setup.status.success(),
        "cm setup --agents {} failed:\n{}{}",
        agent.setup_id(),
        String::from_utf8_lossy(&setup.stdout),
        String::from_utf8_lossy(&setup.stderr)
    );
}

/// A command with only what a user's shell would give it: PATH (`Agent::path`), the throw-away HOME,
/// the project as working directory, and every proxy pointed at the scripted server so
/// no request an agent makes can leave the machine.
fn plain<'a>(
    command: &'a mut Command,
    home: &Path,
    project: &Path,
    base: &str,
    path: &OsStr,
) -> &'a mut Command {
    command
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .env("NO_COLOR", "1")
        .current_dir(project);
    for proxy in [
        "HTTPS_PROXY",
        "HTTP_PROXY",
        "ALL_PROXY",
        "https_proxy",
        "http_proxy",
        "all_proxy",
    ] {
        command.env(proxy, base);
    }
    command
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env("no_proxy", "127.0.0.1,localhost")
}

/// The first `session_id` of a stream-json output (Claude Code), or `sessionId` of a
/// JSONL line (Copilot CLI's closing `result`).
fn session_id(stdout: &[u8]) -> Option<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find_map(|v| {
            v["session_id"]
                .as_str()
                .or_else(|| v["sessionId"].as_str())
                .map(str::to_owned)
        })
}

/// Runs to completion (stdin closed), stopped at `AGENT_RUN_LIMIT`.
fn capture(command: &mut Command) -> Output {
    capture_with(command, b"")
}

/// Runs to completion with `input` on stdin, then stdin closed.
fn capture_with(command: &mut Command, input: &[u8]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        // An agent that exits without reading it closes the pipe: not an error here.
        let _ = stdin.write_all(input);
    }
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let deadline = Instant::now() + AGENT_RUN_LIMIT;
    let status = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            break child.wait().expect("wait");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = err.join().unwrap_or_default();
    if Instant::now() > deadline {
        stderr.extend(format!("\n[e2e: stopped after {AGENT_RUN_LIMIT:?}]\n").bytes());
    }
    Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr,
    }
}

impl Session {
    /// Quiet on success; on failure every failed check, the agent's output tail and the
    /// recorded requests.
    pub fn assert_all(&self) {
        let failed: Vec<&Check> = self.checks.iter().filter(|c| c.failure.is_some()).collect();
        println!(
            "e2e: {} ({}) scripted session took {:.1} s, {} requests",
            self.label,
            self.version,
            self.took.as_secs_f64(),
            self.requests.len()
        );
        if failed.is_empty() {
            return;
        }
        let mut report = format!(
            "{}: {} of {} checks failed\n",
            self.label,
            failed.len(),
            self.checks.len()
        );
        for check in &failed {
            report += &format!(
                "  FAIL {}: {}\n",
                check.name,
                check.failure.as_deref().unwrap_or_default()
            );
        }
        for check in self.checks.iter().filter(|c| c.failure.is_none()) {
            report += &format!("  ok   {}\n", check.name);
        }
        report += &format!("agent exit: {}\n", self.output.status);
        report += &format!(
            "--- agent stdout (tail) ---\n{}\n",
            tail(&self.output.stdout)
        );
        report += &format!(
            "--- agent stderr (tail) ---\n{}\n",
            tail(&self.output.stderr)
        );
        report += "--- recorded requests ---\n";
        for request in &self.requests {
            report += &format!("{}\n", summary(request));
        }
        panic!("{report}");
    }
}

fn tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(25);
    lines[start..]
        .iter()
        .map(|l| match l.char_indices().nth(600) {
            Some((at, _)) => format!("{}…", &l[..at]),
            None => (*l).to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn summary(request: &Request) -> String {
    let head = format!("{} {}", request.method, request.target);
    let Some((provider, body)) = Provider::of(request).zip(request.json()) else {
        return head;
    };
    let exchange = provider.read(&body);
    let mut line = format!("{head}: {} tools", exchange.offered.len());
    if let Some(call) = exchange.calls.last() {
        line += &format!(
            "; last call {} {} → {}",
            call.id,
            call.name,
            call.result
                .as_deref()
                .map(excerpt)
                .unwrap_or_else(|| "(no result)".to_owned())
        );
    }
    line
}
