//! The sandbox through the real MCP server (`cm serve` over stdio): languages, output
//! shaping, failures, timeouts (every descendant stopped), background runs (bounded
//! logs under the data root, removed), batches, the environment, lenient inputs and
//! stats.
//! Permission rules inside the sandbox are in `mcp_sandbox_rules.rs`.

use crate::common;
use crate::sandbox_support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{McpClient, Sandbox};
use sandbox_support::{StatsRow, fixture, on_path, project_db, source_label, stats_rows};
use serde_json::json;

const CAP: usize = 16_384;

/// (404 lines, 5xx lines, sum of the bytes column) of the access-log fixture,
/// computed here, independently of any runtime.
fn access_log_answer() -> String {
    let text = String::from_utf8(fixture("access.log")).expect("utf-8 log");
    let (mut not_found, mut server_errors, mut bytes) = (0u64, 0u64, 0u64);
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let status: u64 = fields[8].parse().expect("status");
        not_found += u64::from(status == 404);
        server_errors += u64::from(status >= 500);
        bytes += fields[9].parse::<u64>().expect("bytes");
    }
    format!("404={not_found} 5xx={server_errors} bytes={bytes}")
}

/// Every language computes the same answer over `logs/access.log` in its own way.
const LANGUAGE_PROGRAMS: &[(&str, &[&str], &str)] = &[
    (
        "shell",
        &["bash"],
        r#"awk '$9==404{n++} $9>=500{m++} {b+=$10} END{printf "404=%d 5xx=%d bytes=%d\n", n, m, b}' logs/access.log"#,
    ),
    (
        "python",
        &["python3", "python"],
        r#"n = m = b = 0
for line in open("logs/access.log"):
    f = line.split()
    n += f[8] == "404"
    m += int(f[8]) >= 500
    b += int(f[9])
print(f"404={n} 5xx={m} bytes={b}")"#,
    ),
    (
        "javascript",
        &["node", "bun", "deno"],
        r#"const fs = require("node:fs");
let n = 0, m = 0, b = 0;
for (const line of fs.readFileSync("logs/access.log", "utf8").split("\n").filter(Boolean)) {
  const f = line.split(/\s+/);
  if (f[8] === "404") n++;
  if (Number(f[8]) >= 500) m++;
  b += Number(f[9]);
}
console.log(`404=${n} 5xx=${m} bytes=${b}`);"#,
    ),
    (
        "perl",
        &["perl"],
        r#"my ($n, $m, $b) = (0, 0, 0);
open(my $fh, "<", "logs/access.log") or die "open: $!";
while (<$fh>) { my @f = split; $n++ if $f[8] == 404; $m++ if $f[8] >= 500; $b += $f[9]; }
print "404=$n 5xx=$m bytes=$b\n";"#,
    ),
    (
        "rust",
        &["rustc"],
        r#"let text = std::fs::read_to_string("logs/access.log").unwrap();
let (mut n, mut m, mut b) = (0u64, 0u64, 0u64);
for line in text.lines() {
    let f: Vec<&str> = line.split_whitespace().collect();
    let status: u64 = f[8].parse().unwrap();
    if status == 404 { n += 1; }
    if status >= 500 { m += 1; }
    b += f[9].parse::<u64>().unwrap();
}
println!("404={n} 5xx={m} bytes={b}");"#,
    ),
];

/// Languages with the programs that run them; the first one with none on PATH is "absent".
const ABSENT_CANDIDATES: &[(&str, &[&str])] = &[
    ("csharp", &["dotnet-script", "dotnet"]),
    ("elixir", &["elixir"]),
    ("r", &["Rscript"]),
    ("php", &["php"]),
    ("ruby", &["ruby"]),
    ("go", &["go"]),
];

#[test]
fn each_language_computes_the_known_answer_over_a_fixture() {
    let sandbox = Sandbox::new();
    sandbox.write("logs/access.log", &fixture("access.log"));
    let expected = access_log_answer();
    let mut command = sandbox.cm();
    // rustup finds its toolchains through the real HOME, which the sandbox replaced.
    let real_home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    for (variable, default) in [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")] {
        match (std::env::var_os(variable), &real_home) {
            (Some(value), _) => command.env(variable, value),
            (None, Some(home)) => command.env(variable, home.join(default)),
            (None, None) => &mut command,
        };
    }
    if let Some(toolchain) = std::env::var_os("RUSTUP_TOOLCHAIN") {
        command.env("RUSTUP_TOOLCHAIN", toolchain);
    }
    let mut client = McpClient::spawn(command);
    for (language, programs, code) in LANGUAGE_PROGRAMS {
        let (text, is_error) =
            client.call_tool("ctx_execute", json!({"language": language, "code": code}));
        if programs.iter().any(|p| on_path(p)) {
            assert!(!is_error, "{language}: {text}");
            assert_eq!(text.trim(), expected, "{language}");
        } else {
            assert!(is_error, "{language} has no runtime here: {text}");
            assert!(
                text.starts_with(&format!("{language} is not available here")),
                "{text}"
            );
        }
    }
}

#[test]
fn an_absent_runtime_names_the_available_ones() {
    let Some((absent, _)) = ABSENT_CANDIDATES
        .iter()
        .find(|(_, programs)| programs.iter().all(|p| !on_path(p)))
    else {
        eprintln!("every candidate runtime is installed here; nothing to check");
        return;
    };
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": absent, "code": "print 1"}),
    );
    assert!(is_error, "{text}");
    let prefix = format!("{absent} is not available here; available: ");
    assert!(text.starts_with(&prefix), "{text}");
    let available: Vec<&str> = text[prefix.len()..]
        .split([',', ' '])
        .filter(|s| !s.is_empty())
        .collect();
    assert!(available.contains(&"shell"), "{text}");
    assert!(!available.contains(absent), "{text}");
    assert_eq!(text.lines().count(), 1, "one line: {text}");
}

#[test]
fn small_output_returns_whole_and_never_echoes_the_code() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    // 4,000 bytes exactly: under the replace trigger, so the reply is the output itself.
    let code = "# code-marker-7f3a: must never come back\nfor i in range(100):\n    print(f'{i:04d}' + 'x' * 35)";
    let (text, is_error) =
        client.call_tool("ctx_execute", json!({"language": "python", "code": code}));
    assert!(!is_error, "{text}");
    let expected: String = (0..100)
        .map(|i| format!("{i:04}{}\n", "x".repeat(35)))
        .collect();
    assert_eq!(expected.len(), 4_000);
    assert_eq!(text, expected);
    assert!(!text.contains("code-marker-7f3a"));
}

/// A generated log: 3,000 INFO lines and two rare lines the tests look for.
const BIG_LOG_PY: &str = r#"# code-marker-big: never echoed
for i in range(3000):
    if i == 1234:
        print("2026-02-23T10:20:34Z ERROR disk quota exceeded on volume vol-7731 (tenant acme)")
    elif i == 2500:
        print("2026-02-23T10:41:40Z WARN certificate for host-4242.internal expires in 3 days")
    else:
        print(f"2026-02-23T10:00:00Z INFO request {i} served in {i % 97} ms by worker-{i % 8}")"#;

#[test]
fn large_output_with_intent_returns_the_matching_part_and_search_finds_the_rest() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "python", "code": BIG_LOG_PY, "intent": "disk quota exceeded"}),
    );
    assert!(!is_error, "{text}");
    assert!(text.len() <= CAP, "{} bytes", text.len());
    assert!(
        text.contains("vol-7731"),
        "the matching line comes back: {text}"
    );
    assert!(text.contains("Searchable terms:"), "{text}");
    assert!(!text.contains("code-marker-big"));
    let label = source_label(&text).unwrap_or_else(|| panic!("no source label: {text}"));
    assert!(
        !text.contains("host-4242"),
        "the unrelated rare line stays out: {text}"
    );
    let lines_back = text
        .lines()
        .filter(|l| l.contains(" INFO request "))
        .count();
    assert!(
        lines_back < 300,
        "{lines_back} of 2,998 INFO lines came back"
    );

    let (found, is_error) = client.call_tool(
        "ctx_search",
        json!({"queries": ["certificate expires host-4242"], "source": label}),
    );
    assert!(!is_error, "{found}");
    assert!(
        found.contains("host-4242.internal expires in 3 days"),
        "{found}"
    );
}

#[test]
fn large_output_without_intent_is_previewed_with_one_search_line() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let code = "for i in range(2000):\n    print(f'row {i:05d} value {i * 7919 % 10007}')";
    let (text, is_error) =
        client.call_tool("ctx_execute", json!({"language": "python", "code": code}));
    assert!(!is_error, "{text}");
    assert!(text.len() <= CAP, "{} bytes", text.len());
    assert!(text.contains("row 00000 value 0"), "head: {text}");
    assert!(text.contains("row 01999 value"), "tail: {text}");
    assert!(!text.contains("row 01000 value"), "the middle stays out");
    assert!(text.contains("omitted"), "{text}");
    assert_eq!(text.matches("ctx_search(").count(), 1, "{text}");
    let label = source_label(&text).unwrap_or_else(|| panic!("no source label: {text}"));
    let (found, _) = client.call_tool(
        "ctx_search",
        json!({"queries": ["row 01000"], "source": label}),
    );
    assert!(
        found.contains(&format!("row 01000 value {}", 1000 * 7919 % 10007)),
        "{found}"
    );
}

#[test]
fn medium_output_without_intent_returns_whole_up_to_the_cap() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "seq 1 2500"}),
    );
    assert!(!is_error, "{text}");
    let expected: String = (1..=2500).map(|i| format!("{i}\n")).collect();
    assert!(expected.len() > 4_096 && expected.len() <= CAP);
    assert_eq!(text, expected);
}

#[test]
fn a_failing_script_reports_exit_code_stdout_and_stderr_tail() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let code = "import sys\n# code-marker-fail\nprint('partial result 41')\nsys.stderr.write('x' * 5000 + '\\nboom: config missing\\n')\nsys.exit(3)";
    let (text, is_error) =
        client.call_tool("ctx_execute", json!({"language": "python", "code": code}));
    assert!(is_error, "{text}");
    assert!(text.contains("exit code 3"), "{text}");
    assert!(text.contains("partial result 41"), "{text}");
    assert!(text.contains("boom: config missing"), "stderr tail: {text}");
    assert!(
        text.len() < 5_000,
        "only the tail of stderr: {} bytes",
        text.len()
    );
    assert!(!text.contains("code-marker-fail"));
}

#[test]
fn a_timeout_stops_the_script_and_returns_its_partial_output() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let started = Instant::now();
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "echo started-42\nsleep 30\necho never-printed", "timeout": 1000}),
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(is_error, "{text}");
    assert!(text.contains("timed out"), "{text}");
    assert!(text.contains("started-42"), "{text}");
    assert!(!text.contains("never-printed"), "{text}");
}

#[test]
fn batch_runs_plain_commands_concurrently_and_answers_queries() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    // A barrier instead of a stopwatch: each command checks in, then waits (up to
    // 20 s) until all three have. Run one after another, the first would give up
    // alone and exit 3; run at once, all three meet whatever the load.
    let barrier = sandbox.project.join("barrier");
    std::fs::create_dir_all(&barrier).unwrap();
    let wait = |name: &str| {
        format!(
            "touch {dir}/{name}; i=0; while [ $(ls {dir} | wc -l) -lt 3 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; \
             if [ $(ls {dir} | wc -l) -ge 3 ]; then echo {name}-met; else echo {name}-alone; exit 3; fi",
            dir = barrier.display()
        )
    };
    let (text, is_error) = client.call_tool(
        "ctx_batch_execute",
        json!({
            "commands": [
                format!("{}; echo alpha-ready; seq 1 800 | sed 's/^/alpha line /'", wait("alpha")),
                format!("{}; echo beta: checksum mismatch in chunk 17; seq 1 800 | sed 's/^/beta line /'", wait("beta")),
                {"label": "gamma", "command": format!("{}; echo gamma-done", wait("gamma"))}
            ],
            "concurrency": 3,
            "queries": ["checksum mismatch", "gamma-done"]
        }),
    );
    assert!(!is_error, "{text}");
    assert!(
        !text.contains("exit 3"),
        "the three commands ran at once: {text}"
    );
    assert!(text.len() <= CAP, "{} bytes", text.len());
    assert!(
        text.contains("checksum mismatch in chunk 17"),
        "query answered: {text}"
    );
    assert!(text.contains("gamma-done"), "second query answered: {text}");
    assert!(text.contains("- gamma: exit 0"), "{text}");
    assert!(
        !text.contains("alpha line 400\n"),
        "bulk output stays out: {text}"
    );
}

#[test]
fn batch_budget_skips_commands_that_would_start_too_late() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let (text, _) = client.call_tool(
        "ctx_batch_execute",
        json!({
            "commands": [
                {"label": "first", "command": "echo first-ran"},
                {"label": "slow", "command": "sleep 5; echo slow-finished"},
                {"label": "third", "command": "touch third-ran"}
            ],
            "timeout": 1500
        }),
    );
    assert!(text.contains("- first: exit 0"), "{text}");
    assert!(text.contains("- slow: timed out"), "{text}");
    assert!(text.contains("- third: skipped"), "{text}");
    assert!(text.contains("first-ran"), "{text}");
    assert!(!text.contains("slow-finished"), "{text}");
    assert!(
        !sandbox.project.join("third-ran").exists(),
        "the skipped command never ran"
    );
}

#[test]
fn code_injection_variables_do_not_reach_the_child() {
    let sandbox = Sandbox::new();
    let bash_env = sandbox.write("bash_env.sh", b"touch bash-env-ran\n");
    let mut command = sandbox.cm();
    command
        .env("NODE_OPTIONS", "--require /nonexistent/inject.js")
        .env("BASH_ENV", &bash_env)
        .env("LD_PRELOAD", "/nonexistent/inject.so")
        .env("PYTHONSTARTUP", "/nonexistent/startup.py")
        .env("GH_TOKEN_FOR_TEST", "kept-credential");
    let mut client = McpClient::spawn(command);
    let code = r#"for v in NODE_OPTIONS BASH_ENV LD_PRELOAD PYTHONSTARTUP GH_TOKEN_FOR_TEST; do
  eval "printf '%s=[%s]\n' $v \"\${$v-absent}\""
done"#;
    let (text, is_error) =
        client.call_tool("ctx_execute", json!({"language": "shell", "code": code}));
    assert!(!is_error, "{text}");
    for scrubbed in ["NODE_OPTIONS", "BASH_ENV", "LD_PRELOAD", "PYTHONSTARTUP"] {
        assert!(text.contains(&format!("{scrubbed}=[absent]")), "{text}");
    }
    assert!(
        text.contains("GH_TOKEN_FOR_TEST=[kept-credential]"),
        "the user's env is kept: {text}"
    );
    assert!(
        !sandbox.project.join("bash-env-ran").exists(),
        "BASH_ENV was not sourced"
    );

    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "javascript", "code": "console.log(JSON.stringify(process.env.NODE_OPTIONS ?? null))"}),
    );
    if on_path("node") {
        assert!(
            !is_error,
            "node starts although NODE_OPTIONS named a missing file: {text}"
        );
        assert_eq!(text.trim(), "null");
    }
}

#[test]
fn lenient_inputs_are_accepted() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "echo lenient-ok", "timeout": "5000", "background": "false"}),
    );
    assert!(!is_error, "{text}");
    assert_eq!(text.trim(), "lenient-ok");

    let (text, is_error) = client.call_tool(
        "ctx_batch_execute",
        json!({
            "commands": "[{\"label\": \"one\", \"command\": \"echo needle-one\"}, \"echo needle-two\"]",
            "concurrency": "2",
            "timeout": "20000",
            "queries": "needle-two"
        }),
    );
    assert!(!is_error, "{text}");
    assert!(text.contains("- one: exit 0"), "{text}");
    assert!(text.contains("needle-two"), "{text}");

    let (text, is_error) = client.call_tool(
        "ctx_batch_execute",
        json!({"commands": "echo bare-string-command"}),
    );
    assert!(!is_error, "{text}");
    assert!(text.contains("bare-string-command"), "{text}");
}

#[test]
fn stats_record_raw_and_returned_bytes_per_call() {
    let sandbox = Sandbox::new();
    let log = fixture("access.log");
    sandbox.write("access.log", &log);
    let mut client = sandbox.live_server();

    let (small, _) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "echo hello"}),
    );
    let (big, _) = client.call_tool(
        "ctx_execute",
        json!({"language": "python", "code": BIG_LOG_PY, "intent": "disk quota exceeded"}),
    );
    let (over_file, _) = client.call_tool(
        "ctx_execute_file",
        json!({"path": "access.log", "language": "shell", "code": "grep -c '\" 404 ' \"$FILE_CONTENT_PATH\""}),
    );
    let (failed, _) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "echo out-part; echo err-part >&2; exit 4"}),
    );
    let (batch, _) = client.call_tool(
        "ctx_batch_execute",
        json!({"commands": ["seq 1 1000", "echo done"]}),
    );
    let status = client.close();
    assert!(status.success());

    let big_raw: u64 = {
        let mut total = 0u64;
        for i in 0..3000u64 {
            total += match i {
                1234 => "2026-02-23T10:20:34Z ERROR disk quota exceeded on volume vol-7731 (tenant acme)\n".len(),
                2500 => "2026-02-23T10:41:40Z WARN certificate for host-4242.internal expires in 3 days\n".len(),
                _ => format!("2026-02-23T10:00:00Z INFO request {i} served in {} ms by worker-{}\n", i % 97, i % 8).len(),
            } as u64;
        }
        total
    };
    let seq_bytes: u64 = (1..=1000)
        .map(|i: u64| i.to_string().len() as u64 + 1)
        .sum::<u64>()
        + "done\n".len() as u64;
    let rows = stats_rows(&project_db(&sandbox));
    let expected = vec![
        StatsRow {
            tool: "ctx_execute".into(),
            raw_bytes: 6,
            returned_bytes: small.len() as u64,
        },
        StatsRow {
            tool: "ctx_execute".into(),
            raw_bytes: big_raw,
            returned_bytes: big.len() as u64,
        },
        StatsRow {
            tool: "ctx_execute_file".into(),
            raw_bytes: log.len() as u64 + over_file.len() as u64,
            returned_bytes: over_file.len() as u64,
        },
        // A reply larger than the output it measured (18 B of output in a 52 B failure
        // report; the batch's output with its headers) kept nothing out: raw is stored
        // as avoided + returned (ADR 0021), never below what was returned.
        StatsRow {
            tool: "ctx_execute".into(),
            raw_bytes: 18u64.max(failed.len() as u64),
            returned_bytes: failed.len() as u64,
        },
        StatsRow {
            tool: "ctx_batch_execute".into(),
            raw_bytes: seq_bytes.max(batch.len() as u64),
            returned_bytes: batch.len() as u64,
        },
    ];
    assert_eq!(rows, expected);
    assert!(
        big.len() * 20 < big_raw as usize,
        "large output is mostly kept out"
    );
}

/// Whether `pid` is a live process (a zombie waiting to be reaped is not).
fn process_alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next());
        !matches!(state, Some("Z" | "X") | None)
    })
}

#[test]
fn a_cancelled_execution_is_killed_and_the_server_goes_on() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let pid_file = sandbox.project.join("sleeper.pid");
    // No timeout of its own below the default (minutes): only the cancellation can end it.
    client.send(&json!({"jsonrpc": "2.0", "id": "run-1", "method": "tools/call", "params": {
        "name": "ctx_execute",
        "arguments": {"language": "shell", "code": "echo $$ > sleeper.pid.tmp && mv sleeper.pid.tmp sleeper.pid\nsleep 300"}
    }}));
    let deadline = Instant::now() + Duration::from_secs(30);
    let pid: i32 = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            break pid;
        }
        assert!(Instant::now() < deadline, "the script never started");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(process_alive(pid));
    client.notify(
        "notifications/cancelled",
        json!({"requestId": "run-1", "reason": "user pressed escape"}),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while process_alive(pid) {
        assert!(
            Instant::now() < deadline,
            "pid {pid} still runs after the cancellation"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "echo served-after-cancel"}),
    );
    assert!(!is_error, "{text}");
    assert!(text.contains("served-after-cancel"), "{text}");
}

#[test]
fn control_characters_in_output_reach_the_model_visible_not_raw() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "printf 'a\\000b\\007c\\r\\n\\033[31mred\\033[0m\\tend\\n'"}),
    );
    assert!(!is_error, "{text}");
    assert!(
        !text.contains(|c: char| c.is_control() && c != '\n' && c != '\t'),
        "{text:?}"
    );
    assert!(text.contains("a\u{2400}b\u{2407}c\nred\tend"), "{text:?}");
}

/// Whether `pid` is a live (non-zombie) process whose command line contains `marker`
/// (so a reused pid never counts).
fn alive_with(pid: u32, marker: &str) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat
        .rfind(')')
        .and_then(|i| stat[i + 1..].split_whitespace().next());
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    !matches!(state, None | Some("Z") | Some("X"))
        && String::from_utf8_lossy(&cmdline).contains(marker)
}

/// Waits (up to a generous bound) until `done` holds; false if it never did.
fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(15);
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// The pid a script wrote into `name` in the project.
fn pid_file(sandbox: &Sandbox, name: &str) -> u32 {
    let path = sandbox.project.join(name);
    assert!(
        eventually(|| std::fs::read_to_string(&path).is_ok_and(|t| t.ends_with('\n'))),
        "{name} was never written"
    );
    let text = std::fs::read_to_string(&path).expect("pid file");
    text.trim()
        .parse()
        .unwrap_or_else(|e| panic!("{name}: {text:?}: {e}"))
}

/// Kills what a failed assertion would otherwise leave running for minutes.
struct Reap(Vec<u32>);

impl Drop for Reap {
    fn drop(&mut self) {
        for pid in &self.0 {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .stderr(std::process::Stdio::null())
                .status();
        }
    }
}

#[test]
fn a_timeout_stops_descendants_that_left_the_process_group() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    // setsid: a new session; the subshell: a double fork, its sleep re-parented.
    let code = "setsid sleep 300.1 >/dev/null 2>&1 & echo $! > setsid.pid\n\
                ( setsid sleep 300.2 >/dev/null 2>&1 & echo $! > double.pid )\n\
                sleep 60";
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": code, "timeout": 1500}),
    );
    assert!(is_error && text.contains("timed out"), "{text}");
    let pids = vec![
        (pid_file(&sandbox, "setsid.pid"), "300.1"),
        (pid_file(&sandbox, "double.pid"), "300.2"),
    ];
    let _reap = Reap(pids.iter().map(|(pid, _)| *pid).collect());
    for (pid, marker) in pids {
        assert!(
            eventually(|| !alive_with(pid, marker)),
            "sleep {marker} (pid {pid}) survived the timeout"
        );
    }
}

#[test]
fn a_timeout_stops_a_python_child_that_called_setsid() {
    if !on_path("python3") {
        eprintln!("skipped: no python3");
        return;
    }
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let code = r#"import os, sys, time
pid = os.fork()
if pid == 0:
    os.setsid()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    with open("py.pid.tmp", "w") as f:
        f.write(f"{os.getpid()}\n")
    os.rename("py.pid.tmp", "py.pid")
    time.sleep(300)
    os._exit(0)
time.sleep(60)
"#;
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "python", "code": code, "timeout": 3000}),
    );
    assert!(is_error && text.contains("timed out"), "{text}");
    let pid = pid_file(&sandbox, "py.pid");
    let _reap = Reap(vec![pid]);
    assert!(
        eventually(|| !alive_with(pid, "python")),
        "the setsid python child (pid {pid}) survived the timeout"
    );
}

/// `path` in a background reply: "… output continues in <path>)".
fn background_log(reply: &str) -> PathBuf {
    let start = reply
        .find("output continues in ")
        .unwrap_or_else(|| panic!("not a background reply: {reply}"))
        + "output continues in ".len();
    let end = reply[start..]
        .find(")\n")
        .map_or(reply.len(), |i| start + i);
    PathBuf::from(&reply[start..end])
}

fn cm_bg_dirs(tmp: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(tmp)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.to_string_lossy().contains("cm-bg-"))
                .collect()
        })
        .unwrap_or_default()
}

/// The bound on one background log: head + tail (limits.rs) and the omission line.
const BACKGROUND_LOG_BOUND_BYTES: u64 = 2 * 1024 * 1024 + 100;

#[test]
fn background_output_is_a_bounded_log_under_the_data_root_kept_until_the_server_exits() {
    let sandbox = Sandbox::new();
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut command = sandbox.cm();
    command.env("TMPDIR", tmp.path());
    let mut client = McpClient::spawn(command);
    // 20 MB of `yes`, then a marker, then it waits for the test to release it.
    let code = "yes | head -c 20000000\necho END-OF-OUTPUT\n\
                while [ ! -e release ]; do sleep 0.05; done";
    let (reply, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": code, "background": true, "timeout": 300}),
    );
    assert!(!is_error, "{reply}");
    let log = background_log(&reply);
    assert!(
        log.starts_with(sandbox.root.join("background")),
        "{} is not under the data root",
        log.display()
    );
    assert!(
        eventually(|| std::fs::read_to_string(&log).is_ok_and(|t| t.ends_with("END-OF-OUTPUT\n"))),
        "the log never showed the end of the output"
    );
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(
        (text.len() as u64) <= BACKGROUND_LOG_BOUND_BYTES,
        "{} bytes",
        text.len()
    );
    assert!(text.starts_with("y\ny\ny\n"), "{:?}", &text[..20]);
    assert!(text.contains("bytes of output omitted"), "no omission line");
    assert_eq!(cm_bg_dirs(tmp.path()), Vec::<PathBuf>::new());

    sandbox.write("release", b"");
    let dir = log.parent().expect("log dir").to_path_buf();
    // Once the run has ended, its log is still there to read (a crashed dev server's
    // last words are what the agent needs)...
    let (reply, _) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "sleep 0.5; echo waited"}),
    );
    assert!(reply.contains("waited"), "{reply}");
    let text = std::fs::read_to_string(&log).expect("log of a finished run");
    assert!(
        text.ends_with("END-OF-OUTPUT\n"),
        "{:?}",
        &text[text.len() - 20..]
    );
    // ...and the server removes it when it exits.
    assert!(client.close().success());
    assert!(
        !dir.exists(),
        "{} was not removed at server exit",
        dir.display()
    );
}

/// Starts `code` with `background: true`; returns the pid it wrote into `pid_name`
/// and the run's log directory.
fn start_background(
    client: &mut McpClient,
    sandbox: &Sandbox,
    code: &str,
    pid_name: &str,
) -> (u32, PathBuf) {
    let (reply, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": code, "background": true, "timeout": 500}),
    );
    assert!(!is_error && reply.contains("still running"), "{reply}");
    let dir = background_log(&reply).parent().expect("dir").to_path_buf();
    (pid_file(sandbox, pid_name), dir)
}

#[test]
fn the_server_stops_its_background_runs_with_their_descendants_when_it_exits() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let code = "setsid sleep 300.3 >/dev/null 2>&1 & echo $! > bg.pid\nsleep 60";
    let (pid, dir) = start_background(&mut client, &sandbox, code, "bg.pid");
    let _reap = Reap(vec![pid]);
    assert!(alive_with(pid, "300.3"), "the background run is running");
    assert!(client.close().success());
    assert!(
        eventually(|| !alive_with(pid, "300.3")),
        "a background descendant (pid {pid}) outlived the server"
    );
    assert!(!dir.exists(), "{} left behind", dir.display());
}

#[test]
fn background_logs_of_a_killed_server_are_removed_at_the_next_start() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let code = "echo $$ > leader.pid\nexec sleep 60";
    let (leader, dir) = start_background(&mut client, &sandbox, code, "leader.pid");
    let _reap = Reap(vec![leader]);
    let _ = std::process::Command::new("kill")
        .args(["-KILL", &client.pid().to_string()])
        .status();
    drop(client);
    assert!(dir.exists(), "a killed server cannot clean up");

    let _next = sandbox.live_server();
    assert!(
        eventually(|| !dir.exists()),
        "{} survived the next server start",
        dir.display()
    );
}

/// `ctx_batch` is 2.0's name of `ctx_batch_execute`: listed beside it (a host lets the
/// model call only listed tools), same reply, and 2.0's plain-string commands.
#[test]
fn ctx_batch_is_listed_and_runs_2_0_string_commands() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let listed = client.request("tools/list", json!({}));
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"ctx_batch") && names.contains(&"ctx_batch_execute"),
        "{names:?}"
    );
    let arguments =
        json!({"commands": ["echo alpaca-first", "echo vicuna-second"], "queries": ["vicuna"]});
    let (batch, is_error) = client.call_tool("ctx_batch", arguments.clone());
    assert!(!is_error, "{batch}");
    assert!(batch.contains("vicuna-second"), "{batch}");
    let (execute, is_error) = client.call_tool("ctx_batch_execute", arguments);
    assert!(!is_error, "{execute}");
    assert!(execute.contains("vicuna-second"), "{execute}");
}
