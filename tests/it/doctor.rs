//! `cm doctor` and `ctx_doctor` black-box: a clean install, a tampered plugin, a missing
//! runtime, a relative data root, and masking of secrets and the home directory.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{McpClient, Sandbox, damage_index_file, test_plugin};
use serde_json::{Value, json};

/// Tests run in parallel on a debug build, where compiling the built-in plugins into an
/// empty cache takes longer than the doctor's budget on an installed release `cm`.
const GENEROUS_BUDGET_MS: &str = "30000";

fn cm(sandbox: &Sandbox) -> std::process::Command {
    let mut command = sandbox.cm();
    command.env("CONTEXT_MODE_DOCTOR_BUDGET_MS", GENEROUS_BUDGET_MS);
    command
}

fn doctor_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "cm doctor --json printed no JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn row<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["name"] == name))
        .unwrap_or_else(|| panic!("no row {name:?} in {report:#}"))
}

fn failures(report: &Value) -> Vec<String> {
    report["checks"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .filter(|r| r["status"] == "FAIL")
                .map(|r| format!("{}: {}", r["name"], r["detail"]))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_clean_install_passes_and_prints_an_aligned_table() {
    let sandbox = Sandbox::new();
    let output = cm(&sandbox)
        .args(["doctor", "--json"])
        .output()
        .expect("cm doctor");
    let report = doctor_json(&output);
    assert_eq!(failures(&report), Vec::<String>::new());
    assert!(output.status.success());
    for name in [
        "version",
        "sqlite + fts5",
        "data root",
        "project database",
        "cm serve self-test",
        "cwasm cache",
        "plugin adapter claude-code",
        "plugin policy default",
        "runtime shell",
    ] {
        assert_eq!(
            row(&report, name)["status"],
            "PASS",
            "{name}: {:#}",
            row(&report, name)
        );
    }
    let self_test = row(&report, "cm serve self-test")["detail"]
        .as_str()
        .unwrap_or("");
    assert!(
        self_test.starts_with("initialize + tools/list in "),
        "{self_test}"
    );
    // No live server in this sandbox: hooks would not redirect, and doctor says so.
    assert_eq!(row(&report, "live server")["status"], "WARN");

    let table = cm(&sandbox).arg("doctor").output().expect("cm doctor");
    assert!(table.status.success());
    let text = String::from_utf8_lossy(&table.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("CHECK "), "{text}");
    let status_column = lines[0].find("STATUS").expect("STATUS header");
    let sqlite = lines
        .iter()
        .find(|l| l.starts_with("sqlite + fts5 "))
        .expect("sqlite row");
    assert_eq!(sqlite.find("PASS"), Some(status_column), "{text}");
    assert!(
        lines.last().is_some_and(|l| l.contains(" 0 failures")),
        "{text}"
    );
}

/// A fresh install's first doctor (nothing compiled yet) waits for the built-in plugins to
/// compile instead of reporting their rows as unanswered; the next run has nothing to wait for.
#[test]
fn the_first_doctor_of_a_fresh_install_waits_for_the_plugins_to_compile() {
    let sandbox = Sandbox::new();
    // Sandboxes start with the built-ins compiled (seeded for speed): a fresh install has not.
    let cache = sandbox.root.join("cache/cwasm");
    if cache.exists() {
        std::fs::remove_dir_all(&cache).expect("empty the cwasm cache");
    }
    let first = sandbox
        .cm()
        .env_remove("CONTEXT_MODE_DOCTOR_BUDGET_MS")
        .args(["doctor", "--json"])
        .output()
        .expect("cm doctor");
    let report = doctor_json(&first);
    let unanswered: Vec<&Value> = report["checks"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .filter(|r| {
                    r["detail"]
                        .as_str()
                        .unwrap_or("")
                        .contains("did not answer")
                })
                .collect()
        })
        .unwrap_or_default();
    assert!(unanswered.is_empty(), "{unanswered:#?}");
    assert_eq!(row(&report, "plugin adapter claude-code")["status"], "PASS");
    let said = String::from_utf8_lossy(&first.stderr).into_owned();
    assert!(said.contains("compiling the built-in plugins"), "{said}");

    let second = sandbox
        .cm()
        .env_remove("CONTEXT_MODE_DOCTOR_BUDGET_MS")
        .args(["doctor", "--json"])
        .output()
        .expect("cm doctor");
    let said = String::from_utf8_lossy(&second.stderr).into_owned();
    assert!(!said.contains("compiling the built-in plugins"), "{said}");
}

#[test]
fn a_live_server_is_seen_and_ctx_doctor_answers_with_the_table() {
    let sandbox = Sandbox::new();
    let mut client = McpClient::spawn(cm(&sandbox));
    let servers = sandbox.root.join("servers");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::fs::read_dir(&servers).map_or(true, |d| d.count() == 0) {
        assert!(std::time::Instant::now() < deadline, "no readiness marker");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let (text, is_error) = client.call_tool("ctx_doctor", json!({}));
    assert!(!is_error, "{text}");
    assert!(
        text.starts_with("| check | status | detail | fix |\n|---|---|---|---|\n"),
        "{text}"
    );
    assert!(text.contains("| live server | PASS |"), "{text}");
    assert!(text.contains("| cm serve self-test | PASS |"), "{text}");
    assert!(!text.contains("| FAIL |"), "{text}");
    client.close();
}

#[test]
fn a_tampered_plugin_fails_with_the_remove_command() {
    let sandbox = Sandbox::new();
    let plugin = test_plugin("decide-by-rule");
    let added = cm(&sandbox)
        .args(["plugin", "add"])
        .arg(&plugin)
        .output()
        .expect("cm plugin add");
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );

    let before = doctor_json(
        &cm(&sandbox)
            .args(["doctor", "--json"])
            .output()
            .expect("doctor"),
    );
    let name = "plugin policy ask-before-push (installed)";
    assert_eq!(
        row(&before, name)["status"],
        "PASS",
        "{:#}",
        row(&before, name)
    );

    let stored = std::fs::read_dir(sandbox.root.join("plugins"))
        .expect("plugins dir")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "wasm"))
        .expect("installed .wasm");
    let mut bytes = std::fs::read(&stored).expect("read plugin");
    bytes.extend_from_slice(b"tampered");
    std::fs::write(&stored, bytes).expect("tamper");

    let output = cm(&sandbox)
        .args(["doctor", "--json"])
        .output()
        .expect("doctor");
    assert_eq!(output.status.code(), Some(1));
    let report = doctor_json(&output);
    let tampered = row(&report, name);
    assert_eq!(tampered["status"], "FAIL");
    assert!(
        tampered["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("file changed since install")),
        "{tampered:#}"
    );
    assert_eq!(
        tampered["fix"],
        "cm plugin remove ask-before-push   # then cm plugin add <its .wasm> to install it again"
    );
    // The built-ins are unaffected.
    assert_eq!(row(&report, "plugin policy default")["status"], "PASS");
}

/// A `PATH` of one directory holding only `bash` (the shell runtime, also what the
/// self-test's server needs nothing more than).
fn path_with_only_bash(dir: &Path) -> std::ffi::OsString {
    let bash = ["/bin/bash", "/usr/bin/bash"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("bash on this machine");
    std::os::unix::fs::symlink(bash, dir.join("bash")).expect("symlink bash");
    dir.as_os_str().to_os_string()
}

#[test]
fn a_missing_runtime_warns_with_its_install_command() {
    let sandbox = Sandbox::new();
    let bin = tempfile::tempdir().expect("bin dir");
    let output = cm(&sandbox)
        .env("PATH", path_with_only_bash(bin.path()))
        .args(["doctor", "--json"])
        .output()
        .expect("doctor");
    let report = doctor_json(&output);
    assert_eq!(failures(&report), Vec::<String>::new());
    assert!(output.status.success(), "warnings alone exit 0");
    let ruby = row(&report, "runtime ruby");
    assert_eq!(ruby["status"], "WARN");
    assert!(
        ruby["detail"]
            .as_str()
            .is_some_and(|d| d.contains("ruby not found on PATH")),
        "{ruby:#}"
    );
    // No package manager on this PATH: the platform's usual one (apt on Linux).
    let expected = if cfg!(target_os = "macos") {
        "brew install ruby"
    } else {
        "sudo apt-get install -y ruby"
    };
    assert_eq!(ruby["fix"], expected);
    let shell = row(&report, "runtime shell");
    assert_eq!(shell["status"], "PASS", "{shell:#}");
    assert!(
        shell["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("bash ")),
        "{shell:#}"
    );
    assert_eq!(row(&report, "cm serve self-test")["status"], "PASS");
}

#[test]
fn a_relative_data_root_fails_but_every_other_check_still_runs() {
    let sandbox = Sandbox::new();
    let output = cm(&sandbox)
        .env("CONTEXT_MODE_DIR", "relative/data")
        .arg("doctor")
        .output()
        .expect("doctor");
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8_lossy(&output.stdout);
    let root_line = text
        .lines()
        .find(|l| l.starts_with("data root "))
        .unwrap_or_else(|| panic!("no data root row:\n{text}"));
    assert!(root_line.contains(" FAIL "), "{root_line}");
    let fix = format!(
        "export CONTEXT_MODE_DIR={}/relative/data   # or: unset CONTEXT_MODE_DIR",
        sandbox.project.display()
    );
    assert!(
        root_line.ends_with(&fix),
        "{root_line}\nexpected fix: {fix}"
    );
    for other in ["sqlite + fts5 ", "runtime shell ", "plugin policy default "] {
        let line = text
            .lines()
            .find(|l| l.starts_with(other))
            .unwrap_or_else(|| panic!("no {other:?} row:\n{text}"));
        assert!(line.contains(" PASS "), "{line}");
    }
}

#[test]
fn secrets_in_env_paths_and_the_hook_log_never_show_and_home_is_tilde() {
    let sandbox = Sandbox::new();
    let planted = "pl4nted-s3cret-value";
    let shaped = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    let root = sandbox.home.join(planted).join(shaped).join("data");
    std::fs::create_dir_all(&root).expect("mkdir root");
    let log_secret = "hunter2-password-value";
    let now = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .expect("date");
    let stamp = String::from_utf8_lossy(&now.stdout).trim().to_string();
    std::fs::write(
        root.join("hook-errors.log"),
        format!(
            "{stamp} claude-code pretooluse: request failed password={log_secret} in {}\n",
            root.display()
        ),
    )
    .expect("write log");

    for args in [&["doctor"][..], &["doctor", "--json"][..]] {
        let output = cm(&sandbox)
            .env("CONTEXT_MODE_DIR", &root)
            .env("MY_SERVICE_TOKEN", planted)
            .args(args)
            .output()
            .expect("doctor");
        let text = String::from_utf8_lossy(&output.stdout);
        for secret in [planted, shaped, log_secret] {
            assert!(!text.contains(secret), "{args:?} shows {secret}:\n{text}");
        }
        assert!(
            !text.contains(&sandbox.home.display().to_string()),
            "{text}"
        );
        assert!(text.contains("~/[REDACTED]/[REDACTED]/data"), "{text}");
    }
    let report = doctor_json(
        &cm(&sandbox)
            .env("CONTEXT_MODE_DIR", &root)
            .env("MY_SERVICE_TOKEN", planted)
            .args(["doctor", "--json"])
            .output()
            .expect("doctor"),
    );
    let log = row(&report, "hook errors");
    assert_eq!(log["status"], "WARN");
    assert!(
        log["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("1 in the last 24 h; last: ")
                && d.contains("password=[REDACTED]")),
        "{log:#}"
    );
}

#[test]
fn a_client_that_spawns_cm_serve_sees_ctx_doctor_listed() {
    let sandbox = Sandbox::new();
    let mut client = McpClient::spawn(sandbox.cm());
    let tools = client.request("tools/list", json!({}));
    let doctor = tools["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "ctx_doctor"))
        .cloned()
        .expect("ctx_doctor listed");
    assert_eq!(doctor["annotations"]["readOnlyHint"], true);
    assert_eq!(doctor["annotations"]["destructiveHint"], false);
    assert_eq!(doctor["annotations"]["idempotentHint"], true);
    assert_eq!(doctor["annotations"]["openWorldHint"], false);
    client.close();
}

/// `cm setup` for Claude Code in the sandbox's HOME, then doctor's rows for it.
fn set_up_claude_code(sandbox: &Sandbox) {
    let out = sandbox
        .cm()
        .args(["setup", "--agents", "claude-code", "--yes"])
        .output()
        .expect("cm setup");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_agent_set_up_passes_and_a_hook_registered_twice_fails_with_its_fix() {
    let sandbox = Sandbox::new();
    set_up_claude_code(&sandbox);
    let report = doctor_json(&cm(&sandbox).args(["doctor", "--json"]).output().unwrap());
    assert_eq!(row(&report, "claude-code hooks")["status"], "PASS");
    assert_eq!(row(&report, "claude-code mcp-server")["status"], "PASS");
    assert_eq!(failures(&report), Vec::<String>::new());

    // The user (or an older installer) registered our PreToolUse hook a second time.
    let settings_path = sandbox.home.join(".claude/settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings_path).unwrap()).unwrap();
    let groups = settings["hooks"]["PreToolUse"].as_array_mut().unwrap();
    let again = groups[0].clone();
    groups.push(again);
    std::fs::write(
        &settings_path,
        serde_json::to_string_pretty(&settings).unwrap(),
    )
    .unwrap();

    let output = cm(&sandbox).args(["doctor", "--json"]).output().unwrap();
    assert!(!output.status.success(), "a FAIL row exits non-zero");
    let report = doctor_json(&output);
    let duplicate = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "claude-code hooks" && r["status"] == "FAIL")
        .unwrap_or_else(|| panic!("no failing hooks row in {report:#}"));
    let detail = duplicate["detail"].as_str().unwrap();
    assert!(detail.contains("pretooluse registered 2 times"), "{detail}");
    let fix = duplicate["fix"].as_str().unwrap();
    assert!(fix.contains("cm setup --agents claude-code"), "{fix}");

    // The fix it names does fix it.
    set_up_claude_code(&sandbox);
    let report = doctor_json(&cm(&sandbox).args(["doctor", "--json"]).output().unwrap());
    assert_eq!(failures(&report), Vec::<String>::new());
}

#[test]
fn an_installed_agent_without_context_mode_is_a_warning_with_the_setup_command() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.home.join(".claude")).unwrap();
    let report = doctor_json(&cm(&sandbox).args(["doctor", "--json"]).output().unwrap());
    let hooks = row(&report, "claude-code hooks");
    assert_eq!(hooks["status"], "WARN", "{hooks}");
    assert_eq!(hooks["fix"], "cm setup --agents claude-code");
}

#[test]
fn an_unreadable_settings_file_fails_naming_it_and_an_unknown_strict_value_warns() {
    let sandbox = Sandbox::new();
    // Comments and trailing commas are settings as Claude Code reads them: no row fails.
    sandbox.write(
        ".claude/settings.local.json",
        b"{ // mine\n \"permissions\": {\"allow\": [\"Bash(ls)\",],},}\n",
    );
    sandbox.write(
        ".claude/settings.json",
        b"{\n  \"permissions\": {\"deny\": [\"Bash(rm *)\"]\n",
    );
    let output = cm(&sandbox)
        .env("CTX_FETCH_STRICT", "maybe")
        .args(["doctor", "--json"])
        .output()
        .expect("doctor");
    let report = doctor_json(&output);
    let settings = sandbox.project.join(".claude/settings.json");
    let name = format!("permission settings {}", settings.display());
    let broken = row(&report, &name);
    assert_eq!(broken["status"], "FAIL", "{broken}");
    let detail = broken["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("line 2 column 18"), "{detail}");
    assert!(detail.contains("denied"), "{detail}");
    assert_eq!(
        failures(&report),
        vec![format!("{:?}: {:?}", name, detail)],
        "only the broken file fails"
    );
    let strict = row(&report, "CTX_FETCH_STRICT");
    assert_eq!(strict["status"], "WARN", "{strict}");
    assert!(
        strict["detail"]
            .as_str()
            .is_some_and(|d| d.contains("\"maybe\"") && d.contains("strict mode is on")),
        "{strict}"
    );
}

/// A project store filled through `cm index`, in a data root whose path needs quoting.
fn indexed_store(sandbox: &Sandbox, root: &Path) -> std::path::PathBuf {
    let saga: String = (0..600)
        .map(|i| format!("## Chapter {i}\n\nThe walrusHerd{i} crossed the tundra{i}.\n\n"))
        .collect();
    sandbox.write("docs/saga.md", saga.as_bytes());
    let output = cm(sandbox)
        .env("CONTEXT_MODE_DIR", root)
        .args(["index", "docs/saga.md"])
        .output()
        .expect("cm index");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let projects = root.join("projects");
    let dir = std::fs::read_dir(&projects)
        .expect("projects")
        .flatten()
        .next()
        .expect("one project")
        .path();
    dir.join("context.db")
}

#[test]
fn a_damaged_index_file_is_named_its_fix_pastes_and_context_db_is_left_alone() {
    for name in ["context.words.db", "context.substrings.db"] {
        let sandbox = Sandbox::new();
        let root = sandbox.home.join("data dir's");
        let db = indexed_store(&sandbox, &root);
        let index_file = db.with_file_name(name);
        damage_index_file(&index_file);

        let doctor = || {
            let output = cm(&sandbox)
                .env("CONTEXT_MODE_DIR", &root)
                .args(["doctor", "--json"])
                .output()
                .expect("doctor");
            doctor_json(&output)
        };
        let report = doctor();
        let database = row(&report, "project database");
        assert_eq!(database["status"], "FAIL", "{name}: {database:#}");
        let detail = database["detail"].as_str().unwrap_or_default();
        assert!(detail.contains(name), "{name}: {detail}");
        assert!(
            detail.contains("context.db itself is intact"),
            "{name}: {detail}"
        );
        let fix = database["fix"].as_str().unwrap_or_default();
        assert!(fix.starts_with("rm -f -- "), "{name}: {fix}");
        assert!(fix.contains(name), "{name}: {fix}");
        assert!(
            !fix.contains("mv ") && !fix.contains(".bad"),
            "{name}: {fix}"
        );
        let other = if name == "context.words.db" {
            "context.substrings.db"
        } else {
            "context.words.db"
        };
        assert!(
            !fix.contains(other) && !detail.contains(other),
            "{name}: {fix}"
        );

        // Pasted into a shell as printed (home shown as ~), it removes exactly that file.
        let pasted = std::process::Command::new("sh")
            .arg("-c")
            .arg(fix)
            .env("HOME", &sandbox.home)
            .output()
            .expect("sh");
        assert!(pasted.status.success(), "{fix}: {pasted:?}");
        assert!(!index_file.exists(), "{fix} left {}", index_file.display());
        assert!(db.exists() && db.with_file_name(other).exists());

        let report = doctor();
        let database = row(&report, "project database");
        assert_eq!(database["status"], "PASS", "{name}: {database:#}");
        let found = cm(&sandbox)
            .env("CONTEXT_MODE_DIR", &root)
            .args(["search", "walrusHerd17"])
            .output()
            .expect("cm search");
        let text = String::from_utf8_lossy(&found.stdout);
        assert!(text.contains("saga"), "{name}: {text}");
    }
}

/// The index file is rebuilt by cm itself when a search meets the damage; doctor then
/// passes without anyone running its fix.
#[test]
fn a_search_that_meets_the_damage_repairs_it_and_doctor_passes() {
    let sandbox = Sandbox::new();
    let root = sandbox.root.clone();
    let db = indexed_store(&sandbox, &root);
    damage_index_file(&db.with_file_name("context.substrings.db"));
    let found = cm(&sandbox)
        .args(["search", "rusHerd17"])
        .output()
        .expect("cm search");
    let text = String::from_utf8_lossy(&found.stdout);
    assert!(found.status.success() && text.contains("saga"), "{text}");
    let output = cm(&sandbox)
        .args(["doctor", "--json"])
        .output()
        .expect("doctor");
    let report = doctor_json(&output);
    let database = row(&report, "project database");
    assert_eq!(database["status"], "PASS", "{database:#}");
}

/// Unmounts the file system mounted at `0` when dropped.
struct Mounted(std::path::PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

/// A data root on a full disk (a 64 KiB tmpfs, filled up): the row says there is no
/// space and the fix frees some or moves the data root; `chmod` would not help. Mounting
/// needs root (CAP_SYS_ADMIN): elsewhere the test says so and passes, the cause and fix
/// themselves being unit-tested in `doctor::data_root`.
#[cfg(target_os = "linux")]
#[test]
fn a_data_root_on_a_full_disk_names_the_cause_and_a_fix_that_helps() {
    use std::io::Write;
    let sandbox = Sandbox::new();
    let disk = tempfile::tempdir().expect("tempdir");
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
        .arg(disk.path())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: cannot mount a tmpfs here (needs root)");
        return;
    }
    let _unmount = Mounted(disk.path().to_path_buf());
    let mut fill = std::fs::File::create(disk.path().join("fill")).expect("fill");
    while fill.write_all(&[0u8; 4096]).is_ok() {}
    drop(fill);
    let output = cm(&sandbox)
        .env("CONTEXT_MODE_DIR", disk.path())
        .args(["doctor", "--json"])
        .output()
        .expect("cm doctor");
    let report = doctor_json(&output);
    let root = row(&report, "data root");
    assert_eq!(root["status"], "FAIL", "{root:#}");
    let detail = root["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("no space left on its disk"), "{root:#}");
    let fix = root["fix"].as_str().unwrap_or_default();
    assert!(
        fix.starts_with("free space on the disk of ") && fix.contains("CONTEXT_MODE_DIR="),
        "{root:#}"
    );
    assert!(!fix.contains("chmod"), "{root:#}");
}
