//! `cm index` and `cm search` from a terminal: the same project store as `cm serve`.

use crate::common;

use std::process::{Command, Output};

use common::Sandbox;
use serde_json::json;

fn run(mut command: Command, args: &[&str]) -> Output {
    command.args(args).output().expect("run cm")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn docs(sandbox: &Sandbox) {
    sandbox.write(".gitignore", b"drafts/\n");
    sandbox.write(
        "docs/deploy.md",
        b"# Deploy\n\n## Rollback\n\nRun `vicuna rollback` to restore the last release.\n",
    );
    sandbox.write(
        "docs/ops/alerts.md",
        b"# Alerts\n\nThe vicuna pager fires on error budget burn.\n",
    );
    sandbox.write(
        "docs/drafts/wip.md",
        b"# WIP\n\nThe vicuna draft about llamaplan.\n",
    );
}

/// Numbered results in `cm search` output.
fn result_count(text: &str) -> usize {
    text.lines()
        .filter(|l| {
            l.split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
        .count()
}

#[test]
fn a_directory_is_indexed_and_searched_from_the_terminal() {
    let sandbox = Sandbox::new();
    docs(&sandbox);
    let output = run(sandbox.cm(), &["index", "docs"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with("Indexed 2 files under docs (2 chunks"),
        "{text}"
    );
    assert!(
        text.contains("Files: docs/deploy.md, docs/ops/alerts.md"),
        "{text}"
    );
    assert!(
        text.contains("Search: cm search \"…\" --source \"docs\""),
        "a command to type, not a tool call: {text}"
    );
    assert!(
        stderr(&output).is_empty(),
        "no progress line when stderr is not a terminal: {:?}",
        stderr(&output)
    );

    let output = run(sandbox.cm(), &["search", "vicuna rollback"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with("## vicuna rollback\n1. docs/deploy.md › Deploy > Rollback"),
        "{text}"
    );
    assert!(text.contains("restore the last release"), "{text}");

    // Unquoted words are one query; .gitignore kept the draft out.
    let output = run(sandbox.cm(), &["search", "llamaplan", "draft"]);
    assert!(output.status.success());
    assert!(
        stdout(&output).starts_with("## llamaplan draft\nno results"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn source_and_limit_narrow_the_results() {
    let sandbox = Sandbox::new();
    docs(&sandbox);
    assert!(
        run(sandbox.cm(), &["index", "docs", "--source", "handbook"])
            .status
            .success()
    );
    let file = sandbox.write("notes.md", b"# Notes\n\nvicuna notes from the retro.\n");
    let output = run(
        sandbox.cm(),
        &["index", file.to_str().expect("utf-8"), "--source", "retro"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("Indexed \"retro\""),
        "{}",
        stdout(&output)
    );

    let all = stdout(&run(sandbox.cm(), &["search", "vicuna", "--limit", "10"]));
    assert_eq!(result_count(&all), 3, "{all}");
    let one = stdout(&run(sandbox.cm(), &["search", "vicuna", "--limit", "1"]));
    assert_eq!(result_count(&one), 1, "{one}");
    let filtered = stdout(&run(
        sandbox.cm(),
        &["search", "vicuna", "--source", "retro"],
    ));
    assert_eq!(result_count(&filtered), 1, "{filtered}");
    assert!(filtered.contains("1. retro › Notes"), "{filtered}");
    let handbook = stdout(&run(
        sandbox.cm(),
        &["search", "vicuna", "--source", "handbook/ops"],
    ));
    assert_eq!(result_count(&handbook), 1, "{handbook}");
    assert!(
        handbook.contains("1. handbook/ops/alerts.md › Alerts"),
        "{handbook}"
    );
}

#[test]
fn the_terminal_and_the_server_share_one_store() {
    let sandbox = Sandbox::new();
    docs(&sandbox);
    assert!(run(sandbox.cm(), &["index", "docs"]).status.success());
    let mut client = sandbox.live_server();
    let (reply, is_error) =
        client.call_tool("ctx_search", json!({"queries": ["error budget burn"]}));
    assert!(!is_error, "{reply}");
    assert!(reply.contains("1. docs/ops/alerts.md › Alerts"), "{reply}");

    let (reply, is_error) = client.call_tool(
        "ctx_index",
        json!({"content": "# Runbook\n\nThe guanaco failover takes four minutes.\n", "source": "runbook"}),
    );
    assert!(!is_error, "{reply}");
    let output = run(sandbox.cm(), &["search", "guanaco failover"]);
    assert!(
        stdout(&output).contains("1. runbook › Runbook"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn the_project_is_the_env_variable_else_the_working_directory() {
    let sandbox = Sandbox::new();
    docs(&sandbox);
    // From a subdirectory, with the project named: paths are the user's, labels the project's.
    let mut command = sandbox.cm();
    command
        .current_dir(sandbox.project.join("docs"))
        .env("CONTEXT_MODE_PROJECT_DIR", &sandbox.project);
    let output = run(command, &["index", "ops"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("Indexed \"docs/ops/alerts.md\""),
        "{}",
        stdout(&output)
    );

    let mut command = sandbox.cm();
    command
        .current_dir(&sandbox.home)
        .env("CONTEXT_MODE_PROJECT_DIR", &sandbox.project);
    let found = stdout(&run(command, &["search", "pager"]));
    assert!(found.contains("1. docs/ops/alerts.md"), "{found}");

    // Elsewhere, without the variable, it is another project with its own (empty) store.
    let mut command = sandbox.cm();
    command.current_dir(&sandbox.home);
    let elsewhere = stdout(&run(command, &["search", "pager"]));
    assert!(
        elsewhere.contains("no results: the index is empty"),
        "{elsewhere}"
    );
}

#[test]
fn errors_are_one_line_on_stderr_with_a_failing_exit() {
    let sandbox = Sandbox::new();
    let output = run(sandbox.cm(), &["index", "missing-dir"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).is_empty(), "{}", stdout(&output));
    let err = stderr(&output);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("cm: ") && err.contains("missing-dir"),
        "{err}"
    );

    let output = run(sandbox.cm(), &["search"]);
    assert!(!output.status.success());
    assert!(stdout(&output).is_empty());
}

#[test]
fn a_terminal_sees_an_in_place_progress_line() {
    let sandbox = Sandbox::new();
    docs(&sandbox);
    // `script` gives cm a pseudo-terminal as stdin/stdout/stderr.
    let command_line = format!("{} index docs", common::CM);
    let output = Command::new("script")
        .args(["-qec", &command_line, "/dev/null"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &sandbox.home)
        .env("CONTEXT_MODE_DIR", &sandbox.root)
        .current_dir(&sandbox.project)
        .output()
        .expect("run script (util-linux)");
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("\r\x1b[Kindexing: 1 files,"), "{text:?}");
    let summary = text
        .find("Indexed 2 files under docs")
        .expect("summary line");
    let cleared = text[..summary]
        .rfind("\r\x1b[K")
        .expect("progress line cleared");
    assert_eq!(
        cleared + 4,
        summary,
        "the summary replaces the progress line: {text:?}"
    );
}

/// `cm index` goes through the same service as `ctx_index`: the user's Read rules and
/// the project's bounds hold for a person at a terminal as they do for the agent.
#[test]
fn the_rules_and_the_project_bounds_hold_at_the_terminal() {
    let sandbox = Sandbox::new();
    sandbox.write("config/.env.production", b"DB_PASSWORD=okapisecret456\n");
    sandbox.write(
        "config/app.md",
        b"# App\n\nThe app reads the narwhal settings.\n",
    );
    sandbox.project_permissions(json!({"deny": ["Read(**/.env*)"]}));

    let output = run(sandbox.cm(), &["index", "config/.env.production"]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(stdout(&output).is_empty(), "{}", stdout(&output));
    let err = stderr(&output);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("cm: ") && err.contains("Read(**/.env*)"),
        "the refusal names the rule: {err}"
    );

    let output = run(sandbox.cm(), &["index", "config"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("Skipped 1 denied by a permission rule"),
        "{}",
        stdout(&output)
    );
    let leaked = stdout(&run(sandbox.cm(), &["search", "okapisecret456"]));
    assert!(leaked.contains("no results"), "{leaked}");
    let found = stdout(&run(sandbox.cm(), &["search", "narwhal"]));
    assert!(found.contains("1. config/app.md"), "{found}");

    let outside = sandbox.home.join("notes/private.md");
    std::fs::create_dir_all(outside.parent().expect("parent")).expect("mkdir");
    std::fs::write(&outside, "# Private\n\nThe gharial roadmap.\n").expect("write");
    let output = run(sandbox.cm(), &["index", outside.to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(
        stderr(&output).contains("outside the project"),
        "{}",
        stderr(&output)
    );
    let leaked = stdout(&run(sandbox.cm(), &["search", "gharial"]));
    assert!(leaked.contains("no results"), "{leaked}");
}

fn run_with_stdin(mut command: Command, args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cm");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("wait cm")
}

/// `cm purge`: ctx_purge's scopes from a terminal; it shows what goes and asks first
/// (only `y` deletes), `--yes` does not ask, `--dry-run` deletes nothing, and a purge
/// with no scope is a usage error.
#[test]
fn purge_from_the_terminal_asks_first_and_dry_run_deletes_nothing() {
    let sandbox = Sandbox::new();
    docs(&sandbox);
    assert!(
        run(
            sandbox.cm(),
            &["index", "docs/deploy.md", "--source", "deploy-notes"]
        )
        .status
        .success()
    );
    assert!(
        run(
            sandbox.cm(),
            &["index", "docs/ops/alerts.md", "--source", "alerts"]
        )
        .status
        .success()
    );
    let found = |query: &str| stdout(&run(sandbox.cm(), &["search", query]));

    let dry = run(sandbox.cm(), &["purge", "--source", "deploy", "--dry-run"]);
    assert!(dry.status.success(), "{}", stderr(&dry));
    assert!(
        stdout(&dry).starts_with("Would delete from sources matching \"deploy\": 1 source"),
        "{}",
        stdout(&dry)
    );
    assert!(found("rollback").contains("deploy-notes"));

    let declined = run_with_stdin(sandbox.cm(), &["purge", "--source", "deploy"], "n\n");
    assert!(declined.status.success(), "{}", stderr(&declined));
    assert!(stderr(&declined).contains("[y/N]"), "{}", stderr(&declined));
    assert_eq!(stdout(&declined), "Nothing deleted.\n");
    assert!(found("rollback").contains("deploy-notes"));

    let accepted = run_with_stdin(sandbox.cm(), &["purge", "--source", "deploy"], "y\n");
    assert!(accepted.status.success(), "{}", stderr(&accepted));
    assert!(
        stdout(&accepted).starts_with("Deleted from sources matching \"deploy\""),
        "{}",
        stdout(&accepted)
    );
    assert!(!found("rollback").contains("deploy-notes"));

    let all = run(sandbox.cm(), &["purge", "--project", "--yes"]);
    assert!(all.status.success(), "{}", stderr(&all));
    assert!(
        stdout(&all).starts_with("Deleted from the whole project"),
        "{}",
        stdout(&all)
    );
    assert!(!found("pager").contains("alerts"));

    let nothing = run(sandbox.cm(), &["purge"]);
    assert!(!nothing.status.success());
    assert!(
        stderr(&nothing).contains("--source"),
        "{}",
        stderr(&nothing)
    );
}
