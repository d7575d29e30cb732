//! Real processes: deadlines, process groups, background runs, bounded capture,
//! the environment scrub, temp-dir cleanup, batches, and the cost of a trivial run.

use crate::platform::fs::Canonical as _;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::limits;
use crate::platform::child::group_alive;
use crate::sandbox::{
    BatchCommand, BatchOptions, CommandStatus, ExecOutcome, ExecRequest, Runtimes, Sandbox,
    render_markdown,
};

/// Background logs go to the temp dir, never to the user's data root.
fn sandbox() -> Sandbox {
    Sandbox::new(Arc::new(Runtimes::detect()))
        .with_background_root(std::env::temp_dir().join("cm-test-background"))
}

async fn run(
    sandbox: &Sandbox,
    project: &Path,
    language: &str,
    code: &str,
    timeout_ms: u64,
    background: bool,
) -> ExecOutcome {
    sandbox
        .execute(ExecRequest {
            language,
            code,
            project_dir: project,
            cwd: None,
            timeout_ms: Some(timeout_ms),
            background,
            file: None,
        })
        .await
        .unwrap_or_else(|e| panic!("{language}: {e}"))
}

/// A `sleep` argument no other process on the machine uses.
fn unique_sleep() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{}.{:09}", 5000 + std::process::id() % 1000, nanos)
}

/// Live (non-zombie) processes whose command line contains `marker`.
/// Waits (bounded) until no live process names `marker`; fails with `what` otherwise.
async fn gone_within_5s(marker: &str, what: &str) {
    let waited = Instant::now();
    while !live_processes_with(marker).is_empty() {
        assert!(waited.elapsed() < Duration::from_secs(5), "{what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn live_processes_with(marker: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let state = stat
                .rfind(')')
                .and_then(|i| stat[i + 1..].split_whitespace().next());
            String::from_utf8_lossy(&cmdline).contains(marker) && !matches!(state, Some("Z") | None)
        })
        .collect()
}

/// Directory of the script, from the `$0` a shell script printed first.
fn script_dir(stdout: &str) -> PathBuf {
    let first = stdout.lines().next().expect("script path line");
    Path::new(first).parent().expect("script dir").to_path_buf()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_script_times_out_near_its_deadline() {
    let project = tempfile::tempdir().expect("tempdir");
    let started = Instant::now();
    let outcome = run(
        &sandbox(),
        project.path(),
        "shell",
        "echo \"$0\"; sleep 30",
        600,
        false,
    )
    .await;
    let elapsed = started.elapsed();
    assert!(outcome.timed_out && outcome.is_error(), "{outcome:?}");
    assert!(!outcome.backgrounded);
    assert!(elapsed >= Duration::from_millis(600), "{elapsed:?}");
    assert!(elapsed < Duration::from_millis(600 + 1_500), "{elapsed:?}");
    assert!(
        !script_dir(&outcome.stdout).exists(),
        "temp dir left after timeout"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partial_output_survives_the_timeout() {
    let project = tempfile::tempdir().expect("tempdir");
    let sandbox = sandbox();
    let shell = run(
        &sandbox,
        project.path(),
        "sh",
        "echo first; echo oops >&2; sleep 30; echo never",
        700,
        false,
    )
    .await;
    assert!(shell.timed_out);
    assert_eq!(
        (shell.stdout.as_str(), shell.stderr.as_str()),
        ("first\n", "oops\n")
    );
    if sandbox.runtimes().resolve("python").is_ok() {
        let python = run(
            &sandbox,
            project.path(),
            "python",
            "import time\nprint('before')\ntime.sleep(30)",
            1_500,
            false,
        )
        .await;
        assert!(python.timed_out);
        assert_eq!(
            python.stdout, "before\n",
            "python must not buffer: {python:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grandchildren_die_with_the_group() {
    let project = tempfile::tempdir().expect("tempdir");
    let marker = unique_sleep();
    let code = format!("sleep {marker} & sleep {marker} & echo $$; wait");
    let outcome = run(&sandbox(), project.path(), "bash", &code, 800, false).await;
    assert!(outcome.timed_out);
    let pgid: u32 = outcome
        .stdout
        .trim()
        .parse()
        .expect("the shell printed its pid");
    assert!(
        !group_alive(pgid),
        "process group {pgid} still has live members"
    );
    assert_eq!(live_processes_with(&marker), Vec::<u32>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_ignoring_sigterm_get_sigkill_after_the_grace() {
    let project = tempfile::tempdir().expect("tempdir");
    let marker = unique_sleep();
    let code = format!("trap '' TERM\nsleep {marker} &\necho ready\nwait");
    let started = Instant::now();
    let outcome = run(&sandbox(), project.path(), "bash", &code, 500, false).await;
    let elapsed = started.elapsed();
    assert!(
        outcome.timed_out && outcome.stdout == "ready\n",
        "{outcome:?}"
    );
    assert!(
        elapsed >= Duration::from_millis(500 + limits::EXEC_KILL_GRACE_MS),
        "{elapsed:?}"
    );
    assert_eq!(live_processes_with(&marker), Vec::<u32>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leftovers_holding_the_output_are_stopped_after_exit() {
    let project = tempfile::tempdir().expect("tempdir");
    let marker = unique_sleep();
    let started = Instant::now();
    let outcome = run(
        &sandbox(),
        project.path(),
        "bash",
        &format!("sleep {marker} &\necho done"),
        30_000,
        false,
    )
    .await;
    assert_eq!(
        (outcome.exit_code, outcome.stdout.as_str()),
        (Some(0), "done\n")
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(live_processes_with(&marker), Vec::<u32>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_call_kills_its_group_and_removes_its_temp_dir() {
    let project = tempfile::tempdir().expect("tempdir");
    let marker = unique_sleep();
    let temp_root = std::env::temp_dir();
    let before: Vec<PathBuf> = exec_dirs(&temp_root);
    let sandbox = sandbox();
    let code = format!("sleep {marker}");
    let call = run(&sandbox, project.path(), "shell", &code, 30_000, false);
    // The MCP client cancelled the request: the future is dropped mid-run.
    let abandoned = tokio::time::timeout(Duration::from_millis(500), call).await;
    assert!(
        abandoned.is_err(),
        "the call should still have been running"
    );
    gone_within_5s(&marker, "abandoned process survived").await;
    let leaked: Vec<PathBuf> = exec_dirs(&temp_root)
        .into_iter()
        .filter(|d| !before.contains(d))
        .collect();
    // Other tests create temp dirs concurrently; ours held a script naming the marker.
    for dir in leaked {
        let script = std::fs::read_to_string(dir.join("script.sh")).unwrap_or_default();
        assert!(
            !script.contains(&marker),
            "temp dir {} left behind",
            dir.display()
        );
    }
}

/// The drop path (a cancelled request) reaches processes that left the group too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_call_kills_descendants_that_left_the_group() {
    let project = tempfile::tempdir().expect("tempdir");
    let marker = unique_sleep();
    let code = format!("( setsid sleep {marker} >/dev/null 2>&1 & )\nsleep {marker}");
    let sandbox = sandbox();
    let call = run(&sandbox, project.path(), "shell", &code, 30_000, false);
    let abandoned = tokio::time::timeout(Duration::from_millis(800), call).await;
    assert!(
        abandoned.is_err(),
        "the call should still have been running"
    );
    gone_within_5s(&marker, "a setsid grandchild survived the abandoned call").await;
}

fn exec_dirs(root: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(root)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("cm-exec-"))
                })
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_processes_keep_running_and_never_block() {
    let project = tempfile::tempdir().expect("tempdir");
    let sandbox = sandbox();
    let marker = unique_sleep();
    // It prints far more than a pipe buffer after the call returns, then idles.
    let code = format!("echo started\nsleep 0.8\nseq 1 200000\nexec sleep {marker}");
    let outcome = run(&sandbox, project.path(), "shell", &code, 400, true).await;
    assert!(
        outcome.backgrounded && outcome.timed_out && !outcome.is_error(),
        "{outcome:?}"
    );
    assert_eq!(outcome.stdout, "started\n");
    let background = outcome.background.clone().expect("background info");
    assert!(group_alive(background.pid));
    assert_eq!(sandbox.background_processes(), vec![background.pid]);

    let waited = Instant::now();
    loop {
        let log = std::fs::read_to_string(&background.stdout_log).unwrap_or_default();
        if log.ends_with("\n200000\n") && !live_processes_with(&marker).is_empty() {
            break;
        }
        assert!(
            waited.elapsed() < Duration::from_secs(20),
            "background output stalled"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    sandbox.terminate_background();
    let waited = Instant::now();
    while group_alive(background.pid) {
        assert!(
            waited.elapsed() < Duration::from_secs(5),
            "background group survived SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    if let Some(dir) = background.stdout_log.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_script_that_finishes_in_time_is_an_ordinary_run() {
    let project = tempfile::tempdir().expect("tempdir");
    let outcome = run(
        &sandbox(),
        project.path(),
        "shell",
        "echo quick; exit 4",
        10_000,
        true,
    )
    .await;
    assert!(!outcome.backgrounded && !outcome.timed_out);
    assert_eq!(
        (outcome.exit_code, outcome.stdout.as_str()),
        (Some(4), "quick\n")
    );
    assert!(outcome.background.is_none());
}

fn vm_hwm_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmHWM")
}

/// Set in the child process that really drains 2 GB, so its peak RSS is its own and not
/// that of the other tests running in parallel in this process.
const TWO_GB_CHILD_ENV: &str = "CM_TEST_TWO_GB_CHILD";

#[test]
fn two_gigabytes_of_output_keep_memory_bounded() {
    let output = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "sandbox::tests::process::two_gigabytes_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(TWO_GB_CHILD_ENV, "1")
        .output()
        .expect("run the child test");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "child failed: {stderr}");
    assert!(
        stderr.contains("2 GB of stdout drained"),
        "the child did not run: {stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_gigabytes_child() {
    if std::env::var_os(TWO_GB_CHILD_ENV).is_none() {
        return;
    }
    let project = tempfile::tempdir().expect("tempdir");
    let before_kb = vm_hwm_kb();
    let started = Instant::now();
    let outcome = run(
        &sandbox(),
        project.path(),
        "shell",
        "yes 'a log line' | head -c 2000000000",
        300_000,
        false,
    )
    .await;
    let elapsed = started.elapsed();
    let growth_kb = vm_hwm_kb().saturating_sub(before_kb);
    eprintln!("2 GB of stdout drained in {elapsed:?}; peak RSS grew {growth_kb} KiB");
    assert_eq!(outcome.exit_code, Some(0), "{:?}", outcome.stderr);
    assert_eq!(outcome.stdout_total_bytes, 2_000_000_000);
    assert!(
        outcome.stdout.len() <= limits::EXEC_CAPTURE_MAX_BYTES + 100,
        "{}",
        outcome.stdout.len()
    );
    assert!(outcome.stdout.starts_with("a log line\na log line\n"));
    assert!(outcome.stdout.contains("bytes of output omitted"));
    assert!(growth_kb < 64 * 1024, "peak RSS grew {growth_kb} KiB");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_injection_variables_never_reach_the_child() {
    let project = tempfile::tempdir().expect("tempdir");
    let hook = project.path().join("bash_env.sh");
    std::fs::write(&hook, "echo INJECTED-BY-BASH-ENV\n").expect("write hook");
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    env.extend([
        (
            "NODE_OPTIONS".into(),
            "--require /nonexistent/inject.js".into(),
        ),
        ("BASH_ENV".into(), hook.clone().into_os_string()),
        ("LD_PRELOAD".into(), "/nonexistent/inject.so".into()),
        ("PERL5OPT".into(), "-Mnonexistent::Inject".into()),
        (
            "BASH_FUNC_echo%%".into(),
            "() { builtin echo hijacked; }".into(),
        ),
        ("CM_TEST_KEPT".into(), "kept".into()),
    ]);
    let sandbox = Sandbox::new(Arc::new(Runtimes::detect())).with_base_env(env);
    let outcome = run(
        &sandbox,
        project.path(),
        "bash",
        "echo start; env | cut -d= -f1 | sort",
        30_000,
        false,
    )
    .await;
    assert_eq!(outcome.exit_code, Some(0), "{outcome:?}");
    let names: Vec<&str> = outcome.stdout.lines().collect();
    assert_eq!(names.first(), Some(&"start"), "{}", outcome.stdout);
    for scrubbed in [
        "NODE_OPTIONS",
        "BASH_ENV",
        "LD_PRELOAD",
        "PERL5OPT",
        "BASH_FUNC_echo%%",
    ] {
        assert!(!names.contains(&scrubbed), "{scrubbed} reached the child");
    }
    assert!(
        names.contains(&"CM_TEST_KEPT") && names.contains(&"PATH") && names.contains(&"NO_COLOR")
    );
    if sandbox.runtimes().resolve("node").is_ok() {
        let node = run(
            &sandbox,
            project.path(),
            "node",
            "console.log(process.env.NODE_OPTIONS ?? 'unset')",
            30_000,
            false,
        )
        .await;
        assert_eq!(node.stdout, "unset\n", "{node:?}");
    }
    if sandbox.runtimes().resolve("perl").is_ok() {
        let perl = run(
            &sandbox,
            project.path(),
            "perl",
            "print defined $ENV{PERL5OPT} ? 'set' : 'unset'",
            30_000,
            false,
        )
        .await;
        assert_eq!(perl.stdout, "unset", "{perl:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_temp_dir_is_private_and_removed_after_success_and_error() {
    let project = tempfile::tempdir().expect("tempdir");
    let sandbox = sandbox();
    let code = "echo \"$0\"; stat -c %a \"$(dirname \"$0\")\"";
    let ok = run(&sandbox, project.path(), "shell", code, 30_000, false).await;
    assert_eq!(ok.stdout.lines().nth(1), Some("700"), "{ok:?}");
    assert!(!script_dir(&ok.stdout).exists());
    let failed = run(
        &sandbox,
        project.path(),
        "shell",
        "echo \"$0\"; exit 3",
        30_000,
        false,
    )
    .await;
    assert_eq!(failed.exit_code, Some(3));
    assert!(failed.is_error());
    assert!(!script_dir(&failed.stdout).exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripts_run_in_the_project_or_a_cwd_inside_it() {
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(project.path().join("sub")).expect("mkdir");
    let sandbox = sandbox();
    let canonical = project.path().canonical().expect("canonical");
    let mut request = ExecRequest {
        language: "shell",
        code: "pwd -P",
        project_dir: project.path(),
        cwd: Some("sub"),
        timeout_ms: Some(30_000),
        background: false,
        file: None,
    };
    let inside = sandbox.execute(request.clone()).await.expect("runs");
    assert_eq!(
        inside.stdout.trim(),
        canonical.join("sub").to_string_lossy()
    );
    request.cwd = Some("../..");
    let refused = sandbox.execute(request).await.err().map(|e| e.to_string());
    assert_eq!(
        refused.as_deref(),
        Some("cwd ../.. is outside the project directory")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_shares_one_budget_and_reports_in_order() {
    let project = tempfile::tempdir().expect("tempdir");
    let commands = vec![
        BatchCommand::new(Some("greeting"), "echo hello; echo warning >&2"),
        BatchCommand::new(Some("failing"), "exit 3"),
        BatchCommand::new(Some("slow"), "echo begun; sleep 30"),
        BatchCommand::new(None, "echo never"),
    ];
    let started = Instant::now();
    let results = sandbox()
        .execute_batch(
            &commands,
            BatchOptions {
                project_dir: project.path(),
                cwd: None,
                timeout_ms: Some(1_500),
                concurrency: Some(1),
            },
        )
        .await
        .expect("batch runs");
    assert!(started.elapsed() < Duration::from_millis(1_500 + limits::EXEC_KILL_GRACE_MS + 1_000));
    let labels: Vec<&str> = results.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["greeting", "failing", "slow", "echo never"]);
    let markdown = render_markdown(&results);
    assert_eq!(
        markdown.matches("\n## ").count() + usize::from(markdown.starts_with("## ")),
        4
    );
    assert!(
        markdown.starts_with(
            "## greeting\n\nhello\nwarning\n\n## failing\n\n(no output)\n[exit code 3]\n"
        ),
        "{markdown}"
    );
    assert!(
        markdown.contains("## slow\n\nbegun\n[timed out after"),
        "{markdown}"
    );
    assert!(
        markdown.ends_with(
            "## echo never\n\n[skipped: the batch's time budget ran out before it started]\n\n"
        ),
        "{markdown}"
    );
    assert!(matches!(results[3].status, CommandStatus::Skipped));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_concurrency_runs_commands_side_by_side() {
    let project = tempfile::tempdir().expect("tempdir");
    let commands: Vec<BatchCommand> = (0..4)
        .map(|i| BatchCommand::new(Some(&format!("c{i}")), &format!("sleep 1; echo {i}")))
        .collect();
    let started = Instant::now();
    let results = sandbox()
        .execute_batch(
            &commands,
            BatchOptions {
                project_dir: project.path(),
                cwd: None,
                timeout_ms: Some(20_000),
                concurrency: Some(4),
            },
        )
        .await
        .expect("batch runs");
    let elapsed = started.elapsed();
    assert!(
        elapsed < Duration::from_millis(2_500),
        "4 × 1 s at concurrency 4 took {elapsed:?}"
    );
    for (i, result) in results.iter().enumerate() {
        match &result.status {
            CommandStatus::Ran(outcome) => assert_eq!(outcome.stdout, format!("{i}\n")),
            other => panic!("{other:?}"),
        }
    }
}

/// Back-to-back runs on one sandbox each get their own output (nothing carried over from
/// the run before). Its latency is a benchmark (docs/BENCHMARKS.md), not asserted here.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn back_to_back_trivial_runs_each_print_their_own_output() {
    let project = tempfile::tempdir().expect("tempdir");
    let sandbox = sandbox();
    for i in 0..20 {
        let outcome = run(
            &sandbox,
            project.path(),
            "shell",
            &format!("echo hi{i}"),
            30_000,
            false,
        )
        .await;
        assert_eq!(outcome.stdout, format!("hi{i}\n"));
    }
}
