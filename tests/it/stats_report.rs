//! Savings reports end to end: a real `cm serve` runs ctx_execute / ctx_index calls of
//! known sizes, then ctx_stats, `cm stats`, `cm stats --json` and `cm statusline` must
//! all show the figures computed here from what was sent and received. Hooks journal
//! into the same project without changing them. ctx_insight / `cm insight` write an
//! HTML report that headless Chromium renders to a non-blank screenshot.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use common::{McpClient, Sandbox};
use serde_json::{Value, json};

/// Raw and returned bytes of the calls a test made, as the server must have counted them.
#[derive(Default, Debug, Clone, Copy)]
struct Sent {
    calls: u64,
    raw: u64,
    returned: u64,
}

impl Sent {
    fn add(&mut self, raw: usize, returned: usize) {
        self.calls += 1;
        self.raw += raw as u64;
        self.returned += returned as u64;
    }

    /// 1 − returned / raw, floored to a tenth of a percent.
    fn percent(&self) -> String {
        let permille = (self.raw - self.returned) * 1000 / self.raw;
        format!("{}.{}%", permille / 10, permille % 10)
    }

    fn kept_human(&self) -> String {
        let kept = self.raw - self.returned;
        assert!((1024..1_048_576).contains(&kept), "the test sends KBs");
        format!("{:.1} KB", kept as f64 / 1024.0)
    }
}

fn call(client: &mut McpClient, tool: &str, arguments: Value) -> String {
    let (text, is_error) = client.call_tool(tool, arguments);
    assert!(!is_error, "{tool} failed: {text}");
    text
}

/// Three calls of known raw size: 20,000 bytes of shell output (indexed, a preview
/// returned), 5 bytes returned whole, and indexed content.
fn measured_session(client: &mut McpClient) -> Sent {
    let mut sent = Sent::default();
    let reply = call(
        client,
        "ctx_execute",
        json!({"language": "shell", "code": "head -c 20000 /dev/zero | tr '\\0' a"}),
    );
    assert!(reply.len() < 20_000, "large output is not returned whole");
    sent.add(20_000, reply.len());
    let reply = call(
        client,
        "ctx_execute",
        json!({"language": "shell", "code": "printf hello"}),
    );
    assert_eq!(reply, "hello");
    sent.add(5, 5);
    let content =
        "# Runbook\n\n## Restart\n\nRestart the worker with `systemctl restart zyx-worker`.\n"
            .repeat(40);
    let reply = call(
        client,
        "ctx_index",
        json!({"content": content, "source": "runbook"}),
    );
    sent.add(content.len(), reply.len());
    sent
}

fn cm_stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "cm failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("utf-8 stdout")
}

fn statusline(sandbox: &Sandbox, stdin: &[u8]) -> String {
    let mut child = sandbox
        .cm()
        .arg("statusline")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cm statusline");
    let mut pipe = child.stdin.take().expect("stdin");
    pipe.write_all(stdin).expect("write stdin");
    drop(pipe);
    cm_stdout(&child.wait_with_output().expect("wait"))
}

fn session_part(report: &str) -> &str {
    report
        .split("This project, all time")
        .next()
        .expect("a session part")
}

#[test]
fn stats_show_exactly_what_the_calls_measured() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let empty = call(&mut client, "ctx_stats", json!({}));
    assert!(
        empty.contains(
            "No tool output measured yet in this session — savings appear after the first ctx_* call."
        ),
        "{empty}"
    );
    assert!(
        !empty.contains('█'),
        "no bar before anything was measured: {empty}"
    );

    let sent = measured_session(&mut client);
    let report = call(&mut client, "ctx_stats", json!({}));
    let session = session_part(&report);
    let kept_line = format!("  {}\n", sent.percent());
    // Told no session by the host, and no hook announced one: the id derived from the
    // agent process (here the test), which the hooks would derive too (ADR 0021).
    assert!(session.contains("This session · pid-"), "{report}");
    assert!(
        session.contains("  kept out  ") && session.contains(&kept_line),
        "expected {kept_line:?}: {report}"
    );
    assert!(
        session.contains(&format!(" returned; {} calls\n", sent.calls)),
        "{report}"
    );
    let tokens = (sent.raw - sent.returned) / 4;
    let tokens_text = format!("(≈ {},{:03} tokens)", tokens / 1000, tokens % 1000);
    assert!(session.contains(&tokens_text), "{tokens_text}: {report}");
    assert!(
        session.contains("  ctx_execute               2    19.5 KB"),
        "{report}"
    );
    // ctx_stats is about the numbers and does not add to them.
    let again = call(&mut client, "ctx_stats", json!({}));
    assert_eq!(session_part(&again), session);
    client.close();

    // The CLI reports the session that measured last: the server's.
    let cli = cm_stdout(&sandbox.cm().arg("stats").output().expect("cm stats"));
    assert_eq!(session_part(&cli), session);
    let json: Value = serde_json::from_str(&cm_stdout(
        &sandbox
            .cm()
            .args(["stats", "--json"])
            .output()
            .expect("cm stats --json"),
    ))
    .expect("JSON");
    let totals = &json["session"]["totals"];
    assert_eq!(totals["calls"], json!(sent.calls));
    assert_eq!(totals["raw_bytes"], json!(sent.raw));
    assert_eq!(totals["returned_bytes"], json!(sent.returned));
    assert!(
        json["session_id"]
            .as_str()
            .is_some_and(|s| s.starts_with("pid-")),
        "{json}"
    );
    let server_session = json["session_id"].as_str().unwrap_or_default().to_string();
    assert_eq!(
        json["all_projects"]["projects"][0]["name"],
        json!(sandbox.project.display().to_string())
    );

    let expected = format!(
        "context-mode: {} kept out ({}) · {} calls\n",
        sent.kept_human(),
        sent.percent(),
        sent.calls
    );
    let status = |session: &str| {
        json!({
            "session_id": session,
            "cwd": "/",
            "workspace": {"current_dir": "/", "project_dir": sandbox.project},
        })
        .to_string()
    };
    assert_eq!(
        statusline(&sandbox, status(&server_session).as_bytes()),
        expected
    );
    // The agent's session is shown, not the one that measured last: a new one has nothing.
    assert_eq!(
        statusline(&sandbox, status("a-new-claude-session").as_bytes()),
        "context-mode: no tool output measured yet\n"
    );
    // Without stdin JSON the project is the working directory.
    assert_eq!(statusline(&sandbox, b""), expected);
    assert_eq!(statusline(&sandbox, b"{not json"), expected);
}

/// A short Claude Code session through `cm hook`: start, a prompt with pasted data, a
/// compaction, a stop. Each run journals and records its duration.
fn journalling_hooks(sandbox: &Sandbox) {
    let base = |event: &str| {
        json!({
            "session_id": "hook-session",
            "transcript_path": "/home/dev/.claude/projects/x/hook-session.jsonl",
            "cwd": sandbox.project,
            "hook_event_name": event,
        })
    };
    let mut prompt = base("UserPromptSubmit");
    prompt["prompt"] = json!(format!(
        "Fix the build.\n{}",
        "pasted log line\n".repeat(200)
    ));
    let mut start = base("SessionStart");
    start["source"] = json!("startup");
    for (event, payload) in [
        ("sessionstart", start),
        ("userpromptsubmit", prompt),
        ("precompact", base("PreCompact")),
        ("stop", base("Stop")),
    ] {
        let out = sandbox.hook("claude-code", event, payload.to_string().as_bytes());
        assert!(out.status.success(), "hook {event}");
    }
}

#[test]
fn journalling_hooks_leave_the_savings_unchanged() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    measured_session(&mut client);
    client.close();
    let before = cm_stdout(
        &sandbox
            .cm()
            .args(["stats", "--json"])
            .output()
            .expect("stats"),
    );

    journalling_hooks(&sandbox);
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );

    let after = cm_stdout(
        &sandbox
            .cm()
            .args(["stats", "--json"])
            .output()
            .expect("stats"),
    );
    let (before, after): (Value, Value) = (
        serde_json::from_str(&before).expect("json"),
        serde_json::from_str(&after).expect("json"),
    );
    for scope in ["session", "project"] {
        assert_eq!(before[scope]["totals"], after[scope]["totals"], "{scope}");
        assert_eq!(before[scope]["tools"], after[scope]["tools"], "{scope}");
    }
    assert_eq!(before["session_id"], after["session_id"]);
    assert_eq!(
        before["all_projects"]["scope"]["totals"],
        after["all_projects"]["scope"]["totals"]
    );
}

#[test]
fn statusline_never_fails_and_never_waits_for_a_silent_stdin() {
    let sandbox = Sandbox::new();
    assert_eq!(
        statusline(&sandbox, b""),
        "context-mode: no tool output measured yet\n"
    );
    let broken = sandbox
        .cm()
        .env("CONTEXT_MODE_DIR", "relative/dir")
        .arg("statusline")
        .stdin(Stdio::null())
        .output()
        .expect("statusline");
    assert!(broken.status.success());
    assert_eq!(
        String::from_utf8_lossy(&broken.stdout),
        "context-mode: stats unavailable\n"
    );
    assert!(
        broken.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&broken.stderr)
    );

    // A pipe that is never written to or closed: the line still comes.
    let mut child = sandbox
        .cm()
        .arg("statusline")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let _held_open = child.stdin.take();
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        assert!(Instant::now() < deadline, "cm statusline waited on stdin");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success());
}

/// The insight file named on the first line of a reply or of `cm insight`'s output.
fn report_path(first_line: &str) -> PathBuf {
    PathBuf::from(first_line.trim_start_matches("Insight report: ").trim())
}

#[test]
fn insight_report_is_self_contained_and_renders() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let sent = measured_session(&mut client);
    call(
        &mut client,
        "ctx_index",
        json!({"content": "# Notes <b>bold</b>\n\nsome text\n".repeat(30), "source": "<script>x</script> notes"}),
    );
    journalling_hooks(&sandbox);
    let reply = call(&mut client, "ctx_insight", json!({}));
    client.close();
    let lines: Vec<&str> = reply.lines().collect();
    assert_eq!(lines.len(), 3, "path and a two-line summary: {reply}");
    assert!(lines[0].starts_with("Insight report: "), "{reply}");
    let path = report_path(lines[0]);
    assert!(
        path.starts_with(sandbox.root.join("insight")),
        "{}",
        path.display()
    );
    assert!(
        lines[1].contains(&format!("over {} calls", sent.calls + 1)),
        "{reply}"
    );

    let cli = cm_stdout(&sandbox.cm().arg("insight").output().expect("cm insight"));
    assert_eq!(report_path(cli.lines().next().unwrap_or("")), path);
    let opened = sandbox
        .cm()
        .env("PATH", "/nonexistent")
        .args(["insight", "--open"])
        .output()
        .expect("cm insight --open");
    assert!(opened.status.success(), "no opener is not a failure");

    let html = std::fs::read_to_string(&path).expect("report");
    assert_eq!(html.matches("<svg").count(), 5, "five charts");
    assert!(html.contains("data-value="), "charts carry data");
    assert!(html.contains("ctx_execute") && html.contains("runbook"));
    assert!(html.contains("&lt;script&gt;x&lt;/script&gt; notes"));
    assert!(
        html.contains("sessionstart") && html.contains("userpromptsubmit"),
        "hook latency table"
    );
    for banned in ["http://", "https://", "src=", "<link", "<script", "url("] {
        assert!(!html.contains(banned), "{banned} in the report");
    }
    screenshot(&path);
}

/// Renders the report in headless Chromium and checks the picture is not blank.
fn screenshot(html: &Path) {
    let Some(chromium) = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .map(Path::new)
        .find(|p| p.exists())
    else {
        eprintln!(
            "SKIPPED screenshot: no chromium at /usr/bin/chromium (apt-get install chromium)"
        );
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let png = std::env::var_os("CM_INSIGHT_SCREENSHOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| dir.path().join("insight.png"));
    let output = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.path().join("profile").display()
        ))
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1200,1600")
        .arg(format!("file://{}", html.display()))
        .env("HOME", dir.path())
        .stdin(Stdio::null())
        .output()
        .expect("run chromium");
    assert!(
        png.exists(),
        "chromium wrote no screenshot: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let bytes = std::fs::read(&png).expect("png");
    assert!(
        bytes.len() > 20_000,
        "a {} B screenshot is too small",
        bytes.len()
    );
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("png header");
    let mut pixels = vec![0; reader.output_buffer_size().expect("buffer size")];
    let frame = reader.next_frame(&mut pixels).expect("png frame");
    assert_eq!((frame.width, frame.height), (1200, 1600));
    let channels = frame.line_size / frame.width as usize;
    let mut colours = std::collections::HashSet::new();
    for pixel in pixels[..frame.buffer_size()].chunks(channels) {
        colours.insert(pixel.to_vec());
        if colours.len() > 50 {
            break;
        }
    }
    assert!(colours.len() > 50, "the screenshot is nearly one colour");
}

/// A Claude Code SessionStart hook of this agent, naming `model`.
fn session_start_with_model(sandbox: &Sandbox, session: &str, model: &str) {
    let payload = json!({
        "session_id": session,
        "transcript_path": format!("/tmp/{session}.jsonl"),
        "cwd": sandbox.project,
        "hook_event_name": "SessionStart",
        "source": "startup",
        "model": model,
    });
    let out = sandbox.hook(
        "claude-code",
        "sessionstart",
        payload.to_string().as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0));
}

/// Replies larger than what they measured (a short output in a formatted reply) never
/// give a negative share (upstream's ADR-0004 strict formula); the session's savings
/// are priced at the model the agent's hooks named.
#[test]
fn shares_are_never_negative_and_savings_are_priced_at_the_agents_model() {
    let sandbox = Sandbox::new();
    session_start_with_model(&sandbox, "priced-session", "claude-sonnet-4-5-20250929");
    let mut client = sandbox.live_server();
    for code in ["echo hi", "printf 'a\\nb\\n'", "true"] {
        call(
            &mut client,
            "ctx_execute",
            json!({"language": "shell", "code": code}),
        );
    }
    let stats = call(&mut client, "ctx_stats", json!({}));
    let negative = stats
        .split_whitespace()
        .any(|word| word.starts_with('-') && word.ends_with('%'));
    assert!(!negative, "a negative share:\n{stats}");
    assert!(
        !stats.contains("≈ $"),
        "nothing kept out, nothing saved:\n{stats}"
    );

    call(
        &mut client,
        "ctx_execute",
        json!({"language": "shell", "code": "head -c 400000 /dev/zero | tr '\\0' a"}),
    );
    let stats = call(&mut client, "ctx_stats", json!({}));
    assert!(stats.contains("This session · priced-session"), "{stats}");
    let cost = stats
        .lines()
        .find(|l| l.contains("≈ $"))
        .unwrap_or_else(|| panic!("no cost line:\n{stats}"));
    assert!(
        cost.contains("claude-sonnet-4-5-20250929 input at $3.00 per million tokens"),
        "{cost}"
    );
    // ≈ 99,000 tokens kept out at $3 per million: about thirty cents.
    assert!(cost.contains("≈ $0.2") || cost.contains("≈ $0.3"), "{cost}");
}

#[test]
fn an_unknown_model_shows_no_cost_line_unless_the_user_prices_it() {
    let sandbox = Sandbox::new();
    session_start_with_model(&sandbox, "local-session", "my-local-llama");
    let big = json!({"language": "shell", "code": "head -c 40000 /dev/zero | tr '\\0' a"});
    let mut client = sandbox.live_server();
    call(&mut client, "ctx_execute", big.clone());
    let stats = call(&mut client, "ctx_stats", json!({}));
    assert!(!stats.contains("≈ $"), "{stats}");
    drop(client);

    std::fs::write(
        sandbox.root.join("prices.json"),
        r#"{"my-local-llama": 0.5}"#,
    )
    .expect("prices file");
    let mut client = sandbox.live_server();
    let stats = call(&mut client, "ctx_stats", json!({}));
    let cost = stats
        .lines()
        .find(|l| l.contains("≈ $"))
        .unwrap_or_default();
    assert!(
        cost.contains("my-local-llama input at $0.50 per million tokens"),
        "{stats}"
    );
}
