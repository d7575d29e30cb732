//! `cargo xtask dist` for this machine's target (dev profile: CI does not pay for LTO),
//! then the packed npm packages installed by the real npm the way users install them
//! (`npm install -g`, `npx`), offline so only the local tarballs are used. The installed
//! launcher must run `cm` (`--version`, `doctor`, an MCP `initialize`), pass exit codes
//! through, and `cm setup` through it must write the native binary into agent configs.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

struct Dist {
    _dir: tempfile::TempDir,
    out: PathBuf,
    launcher: PathBuf,
    platform: PathBuf,
    platform_name: String,
}

/// One dist run shared by every test of this file.
fn dist() -> &'static Dist {
    static DIST: OnceLock<Dist> = OnceLock::new();
    DIST.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("dist");
        let platform_name = host_platform();
        let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args([
                "dist",
                "--profile",
                "dev",
                "--target",
                &platform_name,
                "--out",
            ])
            .arg(&out)
            .output()
            .expect("run xtask");
        assert!(
            output.status.success(),
            "xtask dist failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let version = env!("CARGO_PKG_VERSION");
        let launcher = out.join(format!("npm/context-mode-{version}.tgz"));
        let platform = out.join(format!("npm/context-mode-cm-{platform_name}-{version}.tgz"));
        assert!(launcher.is_file(), "no {}", launcher.display());
        assert!(platform.is_file(), "no {}", platform.display());
        Dist {
            _dir: dir,
            out,
            launcher,
            platform,
            platform_name,
        }
    })
}

fn host_platform() -> String {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    };
    let cpu = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{os}-{cpu}")
}

/// A user's machine: its own HOME, npm prefix and cache; PATH has Node but no `cm`.
struct Machine {
    dir: tempfile::TempDir,
}

impl Machine {
    fn new() -> Machine {
        let machine = Machine {
            dir: tempfile::tempdir().expect("temp dir"),
        };
        std::fs::create_dir_all(machine.home()).expect("home");
        machine
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn prefix(&self) -> PathBuf {
        self.dir.path().join("npm-prefix")
    }

    fn bin(&self, name: &str) -> PathBuf {
        self.prefix().join("bin").join(name)
    }

    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        let path = std::env::join_paths(
            [self.prefix().join("bin"), node_dir()]
                .into_iter()
                .chain(["/usr/bin".into(), "/bin".into()]),
        )
        .expect("PATH");
        command
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.home())
            .env("XDG_CONFIG_HOME", self.home().join(".config"))
            .env("XDG_DATA_HOME", self.home().join(".local/share"))
            .env("XDG_CACHE_HOME", self.home().join(".cache"))
            .env("npm_config_prefix", self.prefix())
            .env("npm_config_cache", self.dir.path().join("npm-cache"))
            .env("npm_config_update_notifier", "false")
            .current_dir(self.home());
        command
    }

    fn npm(&self, args: &[&str], tarballs: &[&Path]) -> Output {
        let output = self
            .command("npm")
            .args(args)
            .args(["--offline", "--no-audit", "--no-fund", "--loglevel=error"])
            .args(tarballs)
            .stdin(Stdio::null())
            .output()
            .expect("run npm");
        assert!(
            output.status.success(),
            "npm {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    fn install_global(&self, tarballs: &[&Path]) {
        self.npm(&["install", "-g"], tarballs);
    }
}

/// The directory of the `node` and `npm` this test runs with.
fn node_dir() -> PathBuf {
    let found = Command::new("sh")
        .args(["-c", "command -v npm"])
        .output()
        .expect("sh");
    let npm = String::from_utf8_lossy(&found.stdout).trim().to_string();
    assert!(
        !npm.is_empty(),
        "npm is not on PATH: the npm install test needs Node.js and npm"
    );
    Path::new(&npm)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn the_archive_holds_the_binary_its_sha256_file_names() {
    let dist = dist();
    let triple_archive = std::fs::read_dir(&dist.out)
        .expect("dist dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".tar.gz"))
        .expect("an archive");
    let check = Command::new("sha256sum")
        .arg("-c")
        .arg(format!(
            "{}.sha256",
            triple_archive
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
        ))
        .current_dir(&dist.out)
        .output()
        .expect("sha256sum");
    assert!(check.status.success(), "{}", stdout(&check));
    let unpacked = tempfile::tempdir().expect("temp dir");
    let untar = Command::new("tar")
        .arg("xzf")
        .arg(&triple_archive)
        .arg("-C")
        .arg(unpacked.path())
        .status()
        .expect("tar");
    assert!(untar.success());
    let folder = triple_archive
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .trim_end_matches(".tar.gz")
        .to_string();
    let version = Command::new(unpacked.path().join(&folder).join("cm"))
        .arg("--version")
        .output()
        .expect("run the unpacked cm");
    assert_eq!(
        stdout(&version).trim(),
        format!("cm {}", env!("CARGO_PKG_VERSION"))
    );
    assert!(unpacked.path().join(&folder).join("README.md").is_file());
}

#[test]
fn a_global_npm_install_runs_cm_through_the_launcher() {
    let dist = dist();
    let machine = Machine::new();
    machine.install_global(&[&dist.launcher, &dist.platform]);
    let native = machine
        .prefix()
        .join("lib/node_modules/@context-mode")
        .join(format!("cm-{}", dist.platform_name))
        .join("bin/cm");
    assert!(
        native.is_file(),
        "npm put no binary at {}",
        native.display()
    );

    for bin in ["cm", "context-mode"] {
        let version = machine
            .command(machine.bin(bin))
            .arg("--version")
            .output()
            .expect("run");
        assert!(version.status.success(), "{bin}: {}", stderr(&version));
        assert_eq!(
            stdout(&version).trim(),
            format!("cm {}", env!("CARGO_PKG_VERSION"))
        );
    }

    // cm's own exit code comes back through Node (clap's usage error is 2).
    let wrong = machine
        .command(machine.bin("cm"))
        .arg("no-such-command")
        .output()
        .expect("run");
    assert_eq!(wrong.status.code(), Some(2), "{}", stderr(&wrong));

    let doctor = machine
        .command(machine.bin("cm"))
        .arg("doctor")
        .output()
        .expect("run doctor");
    let report = stdout(&doctor);
    assert!(doctor.status.success(), "{report}{}", stderr(&doctor));
    let version_row = report
        .lines()
        .find(|l| l.starts_with("version "))
        .unwrap_or_default();
    assert!(version_row.contains("PASS"), "{report}");
    let self_test = report
        .lines()
        .find(|l| l.starts_with("cm serve self-test"))
        .unwrap_or_default();
    assert!(self_test.contains("PASS"), "{report}");
}

#[test]
fn an_mcp_client_gets_initialize_answered_through_the_launcher() {
    let dist = dist();
    let machine = Machine::new();
    machine.install_global(&[&dist.launcher, &dist.platform]);
    let mut server = machine
        .command(machine.bin("cm"))
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn cm serve through the launcher");
    let mut stdin = server.stdin.take().expect("stdin");
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"npm-test","version":"1"}}}}}}"#
    )
    .expect("write initialize");
    let mut lines = BufReader::new(server.stdout.take().expect("stdout")).lines();
    let reply = lines.next().expect("a reply line").expect("read");
    let reply: serde_json::Value = serde_json::from_str(&reply).expect("JSON-RPC reply");
    assert_eq!(reply["id"], 1);
    assert!(reply["result"]["serverInfo"]["name"].is_string(), "{reply}");
    assert!(
        reply["result"]["capabilities"]["tools"].is_object(),
        "{reply}"
    );
    // Closing stdin ends the server, and the launcher with it; nothing else was printed.
    drop(stdin);
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(rest.is_empty(), "stray stdout: {rest:?}");
    let status = server.wait().expect("wait");
    assert!(status.success(), "{status}");
}

#[test]
fn setup_through_the_launcher_writes_the_native_binary_into_the_agents_configs() {
    let dist = dist();
    let machine = Machine::new();
    machine.install_global(&[&dist.launcher, &dist.platform]);
    let setup = machine
        .command(machine.bin("cm"))
        .args(["setup", "--agents", "claude-code,gemini-cli", "--yes"])
        .stdin(Stdio::null())
        .output()
        .expect("run setup");
    assert!(setup.status.success(), "{}", stderr(&setup));
    let native = std::fs::canonicalize(
        machine
            .prefix()
            .join("lib/node_modules/@context-mode")
            .join(format!("cm-{}", dist.platform_name))
            .join("bin/cm"),
    )
    .expect("the native binary");
    let native = native.to_string_lossy().into_owned();
    for config in [".claude/settings.json", ".gemini/settings.json"] {
        let text = std::fs::read_to_string(machine.home().join(config))
            .unwrap_or_else(|e| panic!("setup wrote no {config}: {e}"));
        assert!(
            text.contains(&native),
            "{config} does not name {native}:\n{text}"
        );
        assert!(
            !text.contains("cm.js") && !text.contains(&*machine.bin("cm").to_string_lossy()),
            "{config} names the Node launcher:\n{text}"
        );
    }
}

#[test]
fn npx_runs_cm_from_the_local_tarballs() {
    let dist = dist();
    let machine = Machine::new();
    let launcher = dist.launcher.to_string_lossy().into_owned();
    let platform = dist.platform.to_string_lossy().into_owned();
    let output = machine
        .command("npx")
        .args([
            "--offline",
            "-y",
            "--package",
            &launcher,
            "--package",
            &platform,
        ])
        .args(["--", "cm", "--version"])
        .stdin(Stdio::null())
        .output()
        .expect("run npx");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        stdout(&output).trim(),
        format!("cm {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn without_its_platform_package_the_launcher_says_which_one_in_one_line() {
    let dist = dist();
    let machine = Machine::new();
    machine.install_global(&[&dist.launcher]);
    let output = machine
        .command(machine.bin("cm"))
        .arg("--version")
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).is_empty());
    let message = stderr(&output);
    assert_eq!(message.trim().lines().count(), 1, "{message}");
    assert!(
        message.contains(&format!("@context-mode/cm-{}", dist.platform_name)),
        "{message}"
    );
}

/// The launcher package is also the OpenCode plugin, the Pi package and the OMP plugin
/// (ADR 41): its manifest names the entries each host loads, and each entry is the very
/// file `cm setup` writes, placeholders unfilled.
#[test]
fn the_launcher_package_carries_the_host_plugins_setup_writes() {
    let dist = dist();
    let machine = Machine::new();
    machine.install_global(&[&dist.launcher, &dist.platform]);
    let package = machine.prefix().join("lib/node_modules/context-mode");
    let text = std::fs::read_to_string(package.join("package.json")).expect("package.json");
    let manifest: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(manifest["main"], "plugins/opencode.js", "{manifest}");
    assert_eq!(manifest["pi"]["extensions"][0], "./plugins/pi.js");
    assert_eq!(manifest["omp"]["extensions"][0], "./plugins/omp.js");
    assert!(
        manifest["keywords"]
            .as_array()
            .is_some_and(|k| k.iter().any(|k| k == "pi-package")),
        "{manifest}"
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (entry, source) in [
        ("plugins/opencode.js", "configs/opencode/context-mode.js"),
        ("plugins/pi.js", "configs/pi/context-mode.js"),
        ("plugins/omp.js", "configs/pi/context-mode.js"),
    ] {
        let packed = std::fs::read(package.join(entry)).expect("a packed plugin");
        let written = std::fs::read(root.join(source)).expect("the source");
        assert!(packed == written, "{entry} differs from {source}");
    }
}

/// The package's Pi extension loaded from a folder with no platform package beside it,
/// npm's `cm` (the Node launcher) on PATH ahead of a `node` that only leaves a mark: the
/// extension must find the binary the launcher would run and start it directly, so its
/// `ctx_*` tools register and no Node starts (ADR 41: a hook never pays for Node).
#[test]
fn a_plugin_with_npms_cm_on_path_runs_the_native_binary_without_node() {
    let dist = dist();
    let machine = Machine::new();
    machine.install_global(&[&dist.launcher, &dist.platform]);
    let elsewhere = machine.dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    let plugin = elsewhere.join("pi.js");
    std::fs::copy(
        machine
            .prefix()
            .join("lib/node_modules/context-mode/plugins/pi.js"),
        &plugin,
    )
    .expect("copy the packed extension");
    let driver = elsewhere.join("drive.mjs");
    std::fs::write(&driver, PI_DRIVER).expect("write the driver");
    let trap = machine.dir.path().join("node-trap");
    std::fs::create_dir_all(&trap).expect("mkdir");
    let mark = machine.dir.path().join("node-ran");
    std::fs::write(
        trap.join("node"),
        format!("#!/bin/sh\ntouch '{}'\nexit 1\n", mark.display()),
    )
    .expect("write the trap");
    std::fs::set_permissions(
        trap.join("node"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod the trap");
    let path = std::env::join_paths([
        machine.prefix().join("bin"),
        trap,
        "/usr/bin".into(),
        "/bin".into(),
    ])
    .expect("PATH");
    let output = machine
        .command(node_dir().join("node"))
        .arg(&driver)
        .arg(&plugin)
        .env("PATH", path)
        .stdin(Stdio::null())
        .output()
        .expect("run the driver");
    assert!(output.status.success(), "{}", stderr(&output));
    let seen: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("no JSON ({e}): {}", stdout(&output)));
    let tools = seen["tools"].as_array().cloned().unwrap_or_default();
    assert!(tools.iter().any(|t| t == "ctx_execute"), "{seen}");
    assert!(
        !mark.exists(),
        "the extension started Node (npm's launcher)"
    );
}

/// Imports the extension with a stand-in of Pi's API, waits for its tools, shuts it down
/// and prints what it registered.
const PI_DRIVER: &str = r#"
const { default: extension } = await import(process.argv[2]);
const handlers = {};
const tools = [];
const warnings = [];
await extension({
  on: (event, handler) => { handlers[event] = handler; },
  registerTool: (tool) => tools.push(tool.name),
  logger: { warn: (line) => warnings.push(line) },
});
await handlers.session_shutdown?.();
process.stdout.write(JSON.stringify({ tools, warnings }));
"#;
