//! A whole Claude Code session played through `cm hook` processes: what the model gets
//! back after a compaction, and sessions that share a project without mixing.

use crate::common;

use common::Sandbox;
use serde_json::{Value, json};

const SESSION: &str = "5d0c2a8e-7f3b-4c11-9e2a-61b4f0d3c7aa";
const OTHER: &str = "a1f9e3b2-0c4d-4e5f-8a6b-7c8d9e0f1a2b";
const FIXED_ERROR: &str =
    "thread 'dates::leap_year' panicked at src/dates.rs:41: assertion failed: left == right";
const OPEN_ERROR: &str = "error TS2339: Property 'foo' does not exist on type 'Api'.";
const LAST_REQUEST: &str =
    "Now fix the Api.foo type error in web/src/main.ts and finish the open tasks.";

/// One `cm hook claude-code <event>` call, with its payload.
struct Call {
    event: &'static str,
    payload: Value,
}

struct Script<'a> {
    sandbox: &'a Sandbox,
    session: &'a str,
    calls: Vec<Call>,
    tool_uses: u32,
}

impl<'a> Script<'a> {
    fn new(sandbox: &'a Sandbox, session: &'a str) -> Self {
        Script {
            sandbox,
            session,
            calls: Vec::new(),
            tool_uses: 0,
        }
    }

    fn base(&self, hook_event_name: &str) -> Value {
        json!({
            "session_id": self.session,
            "transcript_path": format!("/home/dev/.claude/projects/-home-dev-app/{}.jsonl", self.session),
            "cwd": self.sandbox.project.to_string_lossy(),
            "permission_mode": "default",
            "hook_event_name": hook_event_name,
        })
    }

    fn push(&mut self, event: &'static str, hook_event_name: &str, extra: Value) {
        let mut payload = self.base(hook_event_name);
        if let (Some(payload), Some(extra)) = (payload.as_object_mut(), extra.as_object()) {
            payload.extend(extra.clone());
        }
        self.calls.push(Call { event, payload });
    }

    fn session_start(&mut self, source: &str) {
        self.push(
            "sessionstart",
            "SessionStart",
            json!({ "source": source, "model": "claude-sonnet-4-5-20250929" }),
        );
    }

    fn prompt(&mut self, text: &str) {
        self.push(
            "userpromptsubmit",
            "UserPromptSubmit",
            json!({ "prompt": text }),
        );
    }

    fn stop(&mut self) {
        self.push("stop", "Stop", json!({ "stop_hook_active": false }));
    }

    fn pre(&mut self, tool: &str, input: Value) -> String {
        self.tool_uses += 1;
        let id = format!("toolu_01{:022}", self.tool_uses);
        self.push(
            "pretooluse",
            "PreToolUse",
            json!({ "tool_name": tool, "tool_input": input, "tool_use_id": id }),
        );
        id
    }

    /// A call that ran: its pre-tool-use and its post-tool-use.
    fn ran(&mut self, tool: &str, input: Value, response: Value) {
        let id = self.pre(tool, input.clone());
        self.push(
            "posttooluse",
            "PostToolUse",
            json!({ "tool_name": tool, "tool_input": input, "tool_use_id": id, "tool_response": response }),
        );
    }

    fn bash(&mut self, command: &str, stdout: &str, stderr: &str, exit_code: i32) {
        let mut response =
            json!({ "stdout": stdout, "stderr": stderr, "interrupted": false, "isImage": false });
        if exit_code != 0 {
            response["exit_code"] = json!(exit_code);
            response["is_error"] = json!(true);
        }
        self.ran(
            "Bash",
            json!({ "command": command, "description": command }),
            response,
        );
    }

    fn path(&self, relative: &str) -> String {
        self.sandbox
            .project
            .join(relative)
            .to_string_lossy()
            .into_owned()
    }

    fn read(&mut self, relative: &str, content: &str) {
        let path = self.path(relative);
        self.ran(
            "Read",
            json!({ "file_path": path }),
            json!({ "type": "text", "file": { "filePath": path, "content": content } }),
        );
    }

    fn edit(&mut self, relative: &str, old: &str, new: &str) {
        let path = self.path(relative);
        self.ran(
            "Edit",
            json!({ "file_path": path, "old_string": old, "new_string": new }),
            json!({ "filePath": path, "oldString": old, "newString": new }),
        );
    }

    fn write(&mut self, relative: &str, content: &str) {
        let path = self.path(relative);
        self.ran(
            "Write",
            json!({ "file_path": path, "content": content }),
            json!({ "type": "create", "filePath": path, "content": content }),
        );
    }

    fn todos(&mut self, items: &[(&str, &str)]) {
        let todos: Vec<Value> = items
            .iter()
            .map(|(content, status)| json!({ "content": content, "status": status, "activeForm": content }))
            .collect();
        self.ran(
            "TodoWrite",
            json!({ "todos": todos }),
            json!({ "oldTodos": [], "newTodos": todos }),
        );
    }

    /// Runs every call so far as its own `cm hook` process and returns their stdouts.
    fn play(&mut self) -> Vec<String> {
        let calls = std::mem::take(&mut self.calls);
        calls
            .iter()
            .map(|call| {
                let out = self.sandbox.hook(
                    "claude-code",
                    call.event,
                    call.payload.to_string().as_bytes(),
                );
                assert_eq!(out.status.code(), Some(0), "{}: {:?}", call.event, out);
                String::from_utf8(out.stdout).expect("utf-8 stdout")
            })
            .collect()
    }
}

/// The additionalContext of a hook reply, if it has one.
fn additional_context(stdout: &str) -> Option<String> {
    let reply: Value = serde_json::from_str(stdout).ok()?;
    reply["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .map(String::from)
}

/// The bug-fix session, up to (not including) the compaction.
fn bug_fix_session(script: &mut Script) {
    script.session_start("startup");
    script.prompt("Fix the leap-year bug in the date parser and make the tests pass.");
    script.read(
        "src/dates.rs",
        "pub fn is_leap(y: i32) -> bool { y % 4 == 0 }",
    );
    script.todos(&[
        ("Fix leap-year parsing", "in_progress"),
        ("Add a leap-year test", "pending"),
        ("Update the changelog", "pending"),
    ]);
    script.bash(
        "cargo test -p parser",
        "running 12 tests\ntest dates::leap_year ... FAILED\ntest result: FAILED. 11 passed; 1 failed",
        FIXED_ERROR,
        101,
    );
    script.edit(
        "src/dates.rs",
        "y % 4 == 0",
        "y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)",
    );
    script.bash(
        "cargo test -p parser",
        "running 12 tests\ntest result: ok. 12 passed; 0 failed",
        "",
        0,
    );
    script.stop();
    script.prompt("Good. Use pnpm instead of npm for the web part.");
    script.bash(
        "cd web && pnpm install",
        "Packages: +312\nDone in 4.1s",
        "",
        0,
    );
    script.write("web/src/api.ts", "export class Api {}\n");
    script.bash(
        "cd web && pnpm run build",
        "> web@1.0.0 build\n> tsc -p .\n",
        &format!("src/main.ts(3,5): {OPEN_ERROR}"),
        2,
    );
    // The user rejects this one: a pre-tool-use and never a post-tool-use.
    script.pre(
        "Bash",
        json!({ "command": "rm -rf web/node_modules", "description": "Clean install" }),
    );
    script.prompt("No, keep node_modules. Commit what works so far.");
    script.bash(
        "git add -A && git commit -m 'Fix leap-year parsing'",
        "[main 4f1c2d9] Fix leap-year parsing\n 2 files changed, 9 insertions(+)",
        "",
        0,
    );
    script.ran(
        "Task",
        json!({ "description": "Survey Api.foo callers", "prompt": "Find every caller of Api.foo in web/ with file and line.", "subagent_type": "Explore" }),
        json!({ "content": [{ "type": "text", "text": "Found 3 callers: web/src/a.ts:12, web/src/b.ts:40, web/src/main.ts:3" }] }),
    );
    script.read("CLAUDE.md", "# Rules\nRun cargo test before committing.\n");
    script.todos(&[
        ("Fix leap-year parsing", "completed"),
        ("Add a leap-year test", "completed"),
        ("Update the changelog", "pending"),
    ]);
    script.stop();
    script.prompt(LAST_REQUEST);
    script.read(
        "web/src/main.ts",
        "import { Api } from './api';\nconst api = new Api();\napi.foo();\n",
    );
    script.read(
        "web/package.json",
        "{\"name\":\"web\",\"scripts\":{\"build\":\"tsc -p .\"}}",
    );
    script.bash("node --version", "v22.3.0", "", 0);
    script.bash("git status --short", " M web/src/main.ts", "", 0);
    script.stop();
}

/// Plays the session through a compaction and returns (all stdouts, the context the
/// model gets after it).
fn compacted_session(sandbox: &Sandbox) -> (usize, String) {
    let mut script = Script::new(sandbox, SESSION);
    bug_fix_session(&mut script);
    script.push(
        "precompact",
        "PreCompact",
        json!({ "trigger": "auto", "custom_instructions": "" }),
    );
    script.session_start("compact");
    let count = script.calls.len();
    let outputs = script.play();
    let context = outputs
        .last()
        .and_then(|stdout| additional_context(stdout))
        .expect("session start after compact injects context");
    (count, context)
}

#[test]
fn after_a_compaction_the_model_gets_the_work_in_progress_back() {
    let sandbox = Sandbox::new();
    let (calls, context) = compacted_session(&sandbox);
    assert!(calls >= 40, "only {calls} hook calls");
    eprintln!(
        "{calls} hook calls; context after compaction ({} B):\n{context}",
        context.len()
    );
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );

    assert!(
        context.len() <= 2_048,
        "{} bytes:\n{context}",
        context.len()
    );
    for expected in [
        LAST_REQUEST,           // the last request
        "src/dates.rs",         // an edited file
        "web/src/api.ts",       // a written file
        "Update the changelog", // the open task
        "pnpm instead of npm",  // the decision
        OPEN_ERROR,             // the unresolved error
        "ctx_resume",
    ] {
        assert!(
            context.contains(expected),
            "{expected:?} missing from:\n{context}"
        );
    }
    assert!(
        !context.contains("Add a leap-year test"),
        "a completed task is not open:\n{context}"
    );
    assert!(
        !context.contains("panicked"),
        "the fixed error is not listed as open:\n{context}"
    );
}

#[test]
fn the_same_session_gives_the_same_bytes_in_a_fresh_sandbox() {
    let first = Sandbox::new();
    let second = Sandbox::new();
    let (_, a) = compacted_session(&first);
    let (_, b) = compacted_session(&second);
    // Paths are shown relative to the project, so not even the sandbox path differs.
    assert_eq!(a, b);
    assert!(!a.contains(&*first.project.to_string_lossy()), "{a}");
}

#[test]
fn startup_injects_the_routing_block_and_a_prompt_matches_earlier_history() {
    let sandbox = Sandbox::new();
    let mut script = Script::new(&sandbox, SESSION);
    script.session_start("startup");
    let startup = script.play();
    let routing = additional_context(&startup[0]).expect("routing block on startup");
    assert!(
        routing.contains("mcp__context-mode__ctx_execute("),
        "{routing}"
    );
    assert!(routing.len() <= 1_536, "{} bytes", routing.len());

    let mut script = Script::new(&sandbox, SESSION);
    bug_fix_session(&mut script);
    script.push(
        "precompact",
        "PreCompact",
        json!({ "trigger": "manual", "custom_instructions": "" }),
    );
    script.session_start("compact");
    script.prompt("Why did the leap-year test fail before?");
    let outputs = script.play();
    let matched = outputs
        .last()
        .and_then(|stdout| additional_context(stdout))
        .expect("the prompt gets matching history");
    assert!(matched.len() <= 1_024, "{} bytes", matched.len());
    assert!(matched.contains("leap"), "{matched}");
}

#[test]
fn two_sessions_in_one_project_keep_separate_journals() {
    let sandbox = Sandbox::new();
    let mut first = Script::new(&sandbox, SESSION);
    let mut second = Script::new(&sandbox, OTHER);
    first.session_start("startup");
    second.session_start("startup");
    first.prompt("Rename the parser module to chrono_lite.");
    second.prompt("Document the fetch cache in docs/cache.md.");
    first.play();
    second.play();
    first.edit("src/parser.rs", "mod parser", "mod chrono_lite");
    second.write("docs/cache.md", "# Fetch cache\nEntries live 24 h.\n");
    first.play();
    second.play();
    first.push(
        "precompact",
        "PreCompact",
        json!({ "trigger": "auto", "custom_instructions": "" }),
    );
    second.push(
        "precompact",
        "PreCompact",
        json!({ "trigger": "auto", "custom_instructions": "" }),
    );
    first.session_start("compact");
    second.session_start("compact");
    let first_context = first
        .play()
        .last()
        .and_then(|s| additional_context(s))
        .expect("first");
    let second_context = second
        .play()
        .last()
        .and_then(|s| additional_context(s))
        .expect("second");

    assert!(first_context.contains("chrono_lite"), "{first_context}");
    assert!(first_context.contains("src/parser.rs"), "{first_context}");
    assert!(!first_context.contains("cache.md"), "{first_context}");
    assert!(second_context.contains("docs/cache.md"), "{second_context}");
    assert!(!second_context.contains("chrono_lite"), "{second_context}");
    assert!(!second_context.contains("parser.rs"), "{second_context}");
}

#[test]
fn ctx_resume_reads_the_journal_the_hooks_wrote() {
    let sandbox = Sandbox::new();
    compacted_session(&sandbox);
    let mut client = sandbox.live_server();
    let (state, is_error) = client.call_tool("ctx_resume", json!({}));
    assert!(!is_error, "{state}");
    assert!(state.len() <= 2_048, "{} bytes", state.len());
    assert!(state.contains("TS2339"), "{state}");
    assert!(state.contains("Update the changelog"), "{state}");

    let seq = state
        .split('#')
        .skip(1)
        .find_map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<u64>().ok()
        })
        .expect("the state block points at rows by #seq");
    let (row, is_error) = client.call_tool("ctx_resume", json!({ "seq": seq.to_string() }));
    assert!(!is_error, "{row}");
    assert!(row.starts_with(&format!("#{seq} ")), "{row}");

    let (missing, is_error) = client.call_tool("ctx_resume", json!({ "seq": 999_999 }));
    assert!(!is_error, "{missing}");
    assert!(missing.contains("No journal row #999999"), "{missing}");
}

#[test]
fn a_broken_journal_fails_open_with_one_logged_line_per_call() {
    let sandbox = Sandbox::new();
    // A file where the projects directory should be: no store can be opened.
    std::fs::write(sandbox.root.join("projects"), b"not a directory").expect("write");
    let mut script = Script::new(&sandbox, SESSION);
    script.session_start("startup");
    script.prompt("Fix the leap-year bug.");
    script.read(
        "src/dates.rs",
        "pub fn is_leap(y: i32) -> bool { y % 4 == 0 }",
    );
    script.push(
        "precompact",
        "PreCompact",
        json!({ "trigger": "auto", "custom_instructions": "" }),
    );
    script.session_start("compact");
    script.stop();
    let calls = script.calls.len();
    let outputs = script.play();

    let routing = additional_context(&outputs[0]).expect("startup still gets the routing block");
    assert!(routing.contains("ctx_execute"), "{routing}");
    for stdout in &outputs[1..] {
        assert!(additional_context(stdout).is_none(), "{stdout}");
    }
    let errors = sandbox.hook_errors();
    assert_eq!(errors.len(), calls, "{errors:#?}");
    assert!(
        errors
            .iter()
            .all(|line| line.contains("journal: cannot open the project store")),
        "{errors:#?}"
    );
}

#[test]
fn a_call_the_policy_denies_is_not_journalled_as_run_or_rejected() {
    let sandbox = Sandbox::new();
    sandbox.project_permissions(json!({ "deny": ["Bash(sudo *)"] }));
    let mut script = Script::new(&sandbox, SESSION);
    script.prompt("Clean up the build directory.");
    script.pre(
        "Bash",
        json!({ "command": "sudo rm -rf /var/cache/app", "description": "Clean" }),
    );
    script.bash("rm -rf build", "", "", 0);
    script.push(
        "precompact",
        "PreCompact",
        json!({ "trigger": "auto", "custom_instructions": "" }),
    );
    script.session_start("compact");
    let outputs = script.play();
    assert!(
        outputs[1].contains("\"permissionDecision\":\"deny\""),
        "{}",
        outputs[1]
    );
    let context = outputs
        .last()
        .and_then(|s| additional_context(s))
        .expect("state");
    assert!(
        context.contains("Clean up the build directory."),
        "{context}"
    );
    assert!(!context.contains("sudo"), "{context}");
}

/// One `cm hook gemini-cli <event>` call with Gemini's common fields; its stdout.
fn gemini_hook(sandbox: &Sandbox, event: &str, session: &str, extra: Value) -> String {
    let mut payload = json!({
        "session_id": session,
        "transcript_path": "",
        "cwd": sandbox.project.to_string_lossy(),
        "hook_event_name": event,
        "timestamp": "2026-12-01T10:00:00.000Z",
    });
    if let (Some(p), Some(e)) = (payload.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    let out = sandbox.hook(
        "gemini-cli",
        &event.to_ascii_lowercase(),
        payload.to_string().as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{event}: {out:?}");
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Claude Code 2.1.332 passes its session to MCP servers as `CLAUDE_CODE_SESSION_ID`.
#[test]
fn the_server_takes_claude_codes_session_variable() {
    let sandbox = Sandbox::new();
    let mut command = sandbox.cm();
    command.env("CLAUDE_CODE_SESSION_ID", SESSION);
    let mut client = common::McpClient::spawn(command);
    let (reply, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "seq 1 3000"}),
    );
    assert!(!is_error, "{reply}");
    let (stats, _) = client.call_tool("ctx_stats", json!({}));
    assert!(
        stats.contains(&format!("This session · {SESSION}")),
        "{stats}"
    );
}

/// Gemini CLI's hooks get `session_id`; the server it starts gets no session at all.
/// Both run under the same agent process, so the server takes the session the agent's
/// hooks announced, and follows it when the session changes.
#[test]
fn a_server_told_no_session_takes_the_one_its_agents_hooks_announced() {
    let sandbox = Sandbox::new();
    let gemini = |event: &str, session: &str, extra: Value| {
        gemini_hook(&sandbox, event, session, extra);
    };
    gemini("SessionStart", SESSION, json!({"source": "startup"}));
    let mut client = sandbox.live_server();
    let (_, is_error) = client.call_tool(
        "ctx_index",
        json!({"content": "# Notes\nThe deploy key rotates every Tuesday.", "source": "notes"}),
    );
    assert!(!is_error);
    let (found, _) = client.call_tool("ctx_search", json!({"queries": ["deploy key rotates"]}));
    assert!(found.contains("this session"), "{found}");
    let (stats, _) = client.call_tool("ctx_stats", json!({}));
    assert!(
        stats.contains(&format!("This session · {SESSION}")),
        "{stats}"
    );
    // A new session of the same agent (/clear, a new chat): the server follows it.
    gemini("SessionStart", OTHER, json!({"source": "clear"}));
    let (found, _) = client.call_tool("ctx_search", json!({"queries": ["deploy key rotates"]}));
    assert!(found.contains("earlier session"), "{found}");
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
}

/// Gemini CLI fires no SessionStart after PreCompress: the block saved at compaction
/// comes back on the next BeforeAgent, once, within 2,048 bytes.
#[test]
fn gemini_gets_the_state_block_back_on_the_next_before_agent_once() {
    let sandbox = Sandbox::new();
    let gemini = |event: &str, extra: Value| gemini_hook(&sandbox, event, SESSION, extra);
    gemini("SessionStart", json!({"source": "startup"}));
    gemini("BeforeAgent", json!({"prompt": LAST_REQUEST}));
    for n in 0..30 {
        let command = format!("cat src/module_{n}.rs");
        gemini(
            "AfterTool",
            json!({"tool_name": "read_file", "tool_input": {"absolute_path": format!("{}/src/module_{n}.rs", sandbox.project.display())},
                   "tool_response": {"llmContent": command, "returnDisplay": "", "error": null}}),
        );
    }
    gemini("PreCompress", json!({"trigger": "auto"}));
    let context = additional_context(&gemini("BeforeAgent", json!({"prompt": "go on"})))
        .expect("the state block comes back");
    assert!(context.contains("## Session state"), "{context}");
    assert!(context.contains("Api.foo"), "the last request: {context}");
    assert!(context.len() <= 2_048, "{} B:\n{context}", context.len());
    let again = additional_context(&gemini("BeforeAgent", json!({"prompt": "and then?"})));
    assert!(
        again
            .as_deref()
            .is_none_or(|c| !c.contains("## Session state")),
        "given once: {again:?}"
    );
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
}

/// VS Code Copilot fires no SessionStart after a compaction and its UserPromptSubmit
/// carries no context; its tool results do. The state block saved at PreCompact comes
/// back on the next PostToolUse, once (ADR 25).
#[test]
fn vscode_gets_the_state_block_back_on_the_next_tool_result_once() {
    let sandbox = Sandbox::new();
    let vscode = |event: &str, extra: Value| {
        let mut payload = json!({
            "timestamp": "2026-12-01T10:00:00.000Z",
            "cwd": sandbox.project.to_string_lossy(),
            "sessionId": SESSION,
            "hookEventName": event,
            "transcript_path": "",
        });
        if let (Some(p), Some(e)) = (payload.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        let out = sandbox.hook(
            "vscode-copilot",
            &event.to_ascii_lowercase(),
            payload.to_string().as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0), "{event}: {out:?}");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let terminal = |command: &str, output: &str| {
        json!({"tool_name": "run_in_terminal", "tool_use_id": "call_1",
               "tool_input": {"command": command, "explanation": "", "isBackground": false},
               "tool_response": output})
    };
    vscode("SessionStart", json!({"source": "new"}));
    vscode("UserPromptSubmit", json!({"prompt": LAST_REQUEST}));
    vscode(
        "PostToolUse",
        terminal("cargo test", "test result: FAILED. 3 passed; 1 failed"),
    );
    vscode("PreCompact", json!({"trigger": "auto"}));
    let prompt = vscode("UserPromptSubmit", json!({"prompt": "go on"}));
    assert!(!prompt.contains("## Session state"), "{prompt}");
    let context = additional_context(&vscode("PostToolUse", terminal("git status", "clean")))
        .expect("the state block comes back on the tool result");
    assert!(context.contains("## Session state"), "{context}");
    assert!(context.contains("Api.foo"), "the last request: {context}");
    let again = additional_context(&vscode("PostToolUse", terminal("ls", "src")));
    assert!(
        again
            .as_deref()
            .is_none_or(|c| !c.contains("## Session state")),
        "given once: {again:?}"
    );
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
}
