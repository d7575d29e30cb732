//! The JavaScript and Python examples (`adapters-wasm/examples/policy-js`, `policy-py`):
//! each built with the one line of its README from the registry toolchains, installed
//! with `cm plugin add`, then held to the built-in policy on the golden payloads.
//!
//! Two views, because the chain hides an installed policy behind the built-in one (its
//! denial is final, and where an installed policy has no opinion the built-in decision
//! stands):
//! - each policy alone: every golden pre-tool-use payload parsed by its platform's
//!   built-in adapter, and the call asked of the built-in policy and of the example in
//!   the same host engine `cm hook` uses, under three contexts (live server and no
//!   nudges shown; every nudge shown; no server). The two decisions must be equal,
//!   except where the example leaves a rule it does not implement to the built-in
//!   policy (no opinion, listed in `NOT_IMPLEMENTED`);
//! - through `cm hook`: with the example and, after it, a policy that allows everything
//!   installed, every golden reply the built-in policy words by itself (a redirect, a
//!   nudge, a rewrite) must come out byte for byte as its golden file says: had the
//!   example no opinion, the allow-everything policy would answer instead.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use cm::model::{
    Action, CtxToolNames, Decision, Descriptor, EventKind, ParseInput, PermissionRule,
    PolicyContext, RuleEffect, RuleScope, ToolCall, ToolKind,
};
use cm::plugins::registry::sha256_hex;
use cm::plugins::{Adapter, PluginEngine, PluginKind, Policy, builtin};

use crate::common::golden::{Golden, platforms};
use crate::common::{Sandbox, test_plugin};
use crate::toolchains;

mod extra_calls;

/// One example policy and the toolchain that builds it.
pub struct Example {
    /// Its directory under `adapters-wasm/examples/`.
    pub dir: &'static str,
    /// The id its `describe` gives.
    pub id: &'static str,
    /// The first word of its README's build line.
    tool: &'static str,
    bin_dir: fn() -> Result<PathBuf, String>,
}

pub const JS: Example = Example {
    dir: "policy-js",
    id: "example-js",
    tool: "jco",
    bin_dir: toolchains::jco_bin_dir,
};

pub const PY: Example = Example {
    dir: "policy-py",
    id: "example-py",
    tool: "componentize-py",
    bin_dir: toolchains::componentize_py_bin_dir,
};

/// Calls (`<platform>/<case>`, `extra/<case>`) where the built-in policy decides by a
/// rule the examples leave to it (their answer there must be no opinion). The golden
/// cases need none: every rule they exercise is implemented.
const NOT_IMPLEMENTED: &[&str] = &[
    // Wrappers (`timeout`, `env`, `nice`, …) are looked through by the built-in policy only.
    "extra/timeout-curl",
    // The rarer noisy commands: `git log`, `cat` of a log file, `find` from the top.
    "extra/git-log",
    "extra/cat-log",
    "extra/find-everything",
    // The user's rules applied to the shell code a ctx tool runs.
    "extra/ctx-execute-sudo",
];

/// The permission rule of every golden project (`Golden::project`).
const GOLDEN_DENY_RULE: &str = "Bash(sudo *)";

impl Example {
    pub fn source_dir(&self) -> PathBuf {
        crate::common::repo_root()
            .join("adapters-wasm/examples")
            .join(self.dir)
    }

    /// The build line of the README: its first line that starts with the tool's name.
    pub fn readme_build_line(&self) -> String {
        let readme = self.source_dir().join("README.md");
        let text = std::fs::read_to_string(&readme)
            .unwrap_or_else(|e| panic!("{}: {e}", readme.display()));
        text.lines()
            .find(|line| line.starts_with(&format!("{} ", self.tool)))
            .unwrap_or_else(|| panic!("{}: no line starting with {}", readme.display(), self.tool))
            .to_string()
    }

    /// The component, built once per test process with the README's line (its `-o`
    /// pointed into a temporary directory, so the source tree stays as it is).
    pub fn built(&self) -> &'static Path {
        static JS_BUILT: OnceLock<PathBuf> = OnceLock::new();
        static PY_BUILT: OnceLock<PathBuf> = OnceLock::new();
        let slot = if self.dir == JS.dir {
            &JS_BUILT
        } else {
            &PY_BUILT
        };
        slot.get_or_init(|| self.build())
    }

    fn build(&self) -> PathBuf {
        self.build_as(self.dir, |_| {})
    }

    /// Builds with the README's line as `edit` changes it (a toolchain's other flags),
    /// into `<name>.wasm` in a build directory of its own.
    pub fn build_as(&self, name: &str, edit: impl FnOnce(&mut Vec<String>)) -> PathBuf {
        let line = self.readme_build_line();
        let mut words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        edit(&mut words);
        let out_at = words
            .iter()
            .position(|w| w == "-o")
            .map(|i| i + 1)
            .filter(|i| *i < words.len())
            .unwrap_or_else(|| panic!("{}: the build line has no `-o <file>`: {line}", self.dir));
        let out_dir = build_dir(name);
        let out = out_dir.join(format!("{name}.wasm"));
        words[out_at] = out.to_string_lossy().into_owned();
        let staged = self.staged(&out_dir.join("repo"));
        let bin = (self.bin_dir)().unwrap_or_else(|e| panic!("{e}"));
        let started = Instant::now();
        let output = Command::new(bin.join(&words[0]))
            .args(&words[1..])
            .current_dir(&staged)
            .env("PATH", toolchains::path_with(std::slice::from_ref(&bin)))
            .env("npm_config_cache", toolchains::npm_cache())
            .output()
            .unwrap_or_else(|e| panic!("{}: cannot run {}: {e}", self.dir, words[0]));
        assert!(
            output.status.success(),
            "{}: `{line}` failed:\n{}{}",
            self.dir,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let size = std::fs::metadata(&out).map_or(0, |m| m.len());
        eprintln!(
            "{}: built in {} ms, {size} bytes",
            self.dir,
            started.elapsed().as_millis()
        );
        out
    }
}

/// This process's build directory, `<target tmp>/authoring-<name>-<pid>`; the ones of
/// test processes that have ended are removed (a running one may use its own).
fn build_dir(name: &str) -> PathBuf {
    let parent = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let prefix = format!("authoring-{name}-");
    for entry in std::fs::read_dir(&parent).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = name
            .strip_prefix(&prefix)
            .and_then(|p| p.parse::<i32>().ok());
        // SAFETY: kill with signal 0 only checks that the process exists.
        if pid.is_some_and(|pid| unsafe { libc::kill(pid, 0) } != 0) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    let dir = parent.join(format!("{prefix}{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

impl Example {
    /// A copy of the example beside a copy of the repository's `wit/`, at the same
    /// relative places, so the README's line runs as it is written and the build writes
    /// nothing (a Python `__pycache__`) into the source tree.
    fn staged(&self, root: &Path) -> PathBuf {
        copy_tree(&crate::common::repo_root().join("wit"), &root.join("wit"));
        let dir = root.join("adapters-wasm/examples").join(self.dir);
        copy_tree(&self.source_dir(), &dir);
        dir
    }
}

/// Copies a directory's files, leaving out build outputs.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    let entries = std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    for entry in entries.flatten() {
        let name = entry.file_name();
        let skipped = ["__pycache__", "node_modules"].contains(&name.to_string_lossy().as_ref())
            || name.to_string_lossy().ends_with(".wasm");
        let (source, target) = (entry.path(), to.join(&name));
        if skipped {
            continue;
        }
        if source.is_dir() {
            copy_tree(&source, &target);
        } else {
            std::fs::copy(&source, &target).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
        }
    }
}

/// `cm plugin add` of a component into the sandbox; returns its `added …` line.
pub fn plugin_add(sandbox: &Sandbox, wasm: &Path) -> String {
    let started = Instant::now();
    let output = sandbox
        .cm()
        .args(["plugin", "add"])
        .arg(wasm)
        .output()
        .expect("cm plugin add");
    assert!(
        output.status.success(),
        "cm plugin add {}: {}",
        wasm.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    eprintln!(
        "cm plugin add {}: {} ms",
        wasm.file_name().unwrap_or_default().to_string_lossy(),
        started.elapsed().as_millis()
    );
    // The result line, whatever progress `cm plugin add` prints before it.
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .find(|line| line.starts_with("added "))
        .unwrap_or_else(|| {
            panic!(
                "cm plugin add {}: no `added` line: {stdout}",
                wasm.display()
            )
        })
        .to_string()
}

/// One pre-tool-use call, as the platform's built-in adapter parses it, and the user's
/// rules it is decided under.
struct GoldenCall {
    name: String,
    golden: Golden,
    case: String,
    /// True for a case of `tests/golden/` (it has a golden reply); false for an extra one.
    has_golden_reply: bool,
    call: ToolCall,
    ctx_tools: CtxToolNames,
    rules: Vec<PermissionRule>,
}

/// A platform's built-in adapter, for parsing payloads as `cm hook` does.
struct Parser {
    adapter: Adapter,
    descriptor: Descriptor,
}

impl Parser {
    fn new(engine: &PluginEngine, platform: &str) -> Self {
        let plugin = builtin(PluginKind::Adapter, platform)
            .unwrap_or_else(|| panic!("no built-in adapter {platform}"));
        let component = engine
            .load(plugin.bytes, plugin.sha256)
            .expect("built-in adapter loads");
        let mut adapter = Adapter::instantiate(engine, &component, platform).expect("adapter");
        let descriptor = adapter.describe().expect("describe");
        Self {
            adapter,
            descriptor,
        }
    }

    /// The tool call of a pre-tool-use payload; `None` for any other event.
    fn pre_tool_use(
        &mut self,
        name: &str,
        event: &str,
        payload: &serde_json::Value,
    ) -> Option<ToolCall> {
        let binding = self
            .descriptor
            .events
            .iter()
            .find(|b| b.native.eq_ignore_ascii_case(event))?;
        let parsed = self
            .adapter
            .parse(ParseInput {
                native_event: binding.native.clone(),
                stdin: payload.to_string(),
                env: Vec::new(),
                parent_pid: 1,
            })
            .expect("parse runs")
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let (EventKind::PreToolUse, Some(mut call)) = (parsed.kind, parsed.tool) else {
            return None;
        };
        // As `cm hook` does: one of ours under the registered server name is a ctx tool.
        if call.kind == ToolKind::Mcp
            && self
                .descriptor
                .ctx_tools
                .iter()
                .any(|(_, tool)| tool == call.name)
        {
            call.kind = ToolKind::Ctx;
        }
        Some(call)
    }
}

/// Every pre-tool-use call of every golden platform, with the sandbox's paths, then
/// the extra calls.
fn golden_calls(engine: &PluginEngine, sandbox: &Sandbox) -> Vec<GoldenCall> {
    let mut calls = Vec::new();
    for golden in platforms() {
        let mut parser = Parser::new(engine, golden.platform);
        for case in golden.cases() {
            if !golden.has_json_payload(&case) {
                continue;
            }
            let name = format!("{}/{case}", golden.platform);
            let payload = golden.payload_value(sandbox, &case);
            let event = golden.event_of(&case, &payload);
            let Some(call) = parser.pre_tool_use(&name, &event, &payload) else {
                continue;
            };
            calls.push(GoldenCall {
                name,
                golden,
                case,
                has_golden_reply: true,
                call,
                ctx_tools: parser.descriptor.ctx_tools.clone(),
                rules: vec![rule(GOLDEN_DENY_RULE, RuleEffect::Deny, RuleScope::Project)],
            });
        }
    }
    assert!(calls.len() > 20, "golden pre-tool-use calls not found");
    let claude = Golden {
        platform: "claude-code",
    };
    let mut parser = Parser::new(engine, claude.platform);
    for (case, payload) in extra_calls::payloads(sandbox) {
        let name = format!("extra/{case}");
        let call = parser
            .pre_tool_use(&name, "pretooluse", &payload)
            .unwrap_or_else(|| panic!("{name} is not a pre-tool-use call"));
        calls.push(GoldenCall {
            name,
            golden: claude,
            case: case.to_string(),
            has_golden_reply: false,
            call,
            ctx_tools: parser.descriptor.ctx_tools.clone(),
            rules: extra_calls::rules(),
        });
    }
    calls
}

pub fn rule(pattern: &str, effect: RuleEffect, scope: RuleScope) -> PermissionRule {
    PermissionRule {
        pattern: pattern.to_string(),
        effect,
        scope,
    }
}

/// The context `cm hook` gathers for a call in a golden project.
fn context_for(
    sandbox: &Sandbox,
    call: &GoldenCall,
    server_live: bool,
    nudges: &[&str],
) -> PolicyContext {
    let file_size_bytes = match (call.call.kind, &call.call.path) {
        (ToolKind::Read, Some(path)) => std::fs::metadata(sandbox.project.join(path))
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len()),
        _ => None,
    };
    PolicyContext {
        platform: call.golden.platform.to_string(),
        ctx_tools: call.ctx_tools.clone(),
        server_live,
        rules: call.rules.clone(),
        nudges_shown: nudges.iter().map(|n| n.to_string()).collect(),
        file_size_bytes,
        project_dir: sandbox.project.to_string_lossy().into_owned(),
    }
}

fn policy(engine: &PluginEngine, bytes: &[u8], label: &str) -> Policy {
    let component = engine
        .load(bytes, &sha256_hex(bytes))
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    Policy::instantiate(engine, &component, label).unwrap_or_else(|e| panic!("{label}: {e}"))
}

/// What the golden cases the built-in policy decides by itself look like: the ones the
/// chain check can see (a denial is final and no opinion is the allow-everything policy's).
struct Compared {
    /// Cases where both policies gave one decision other than no opinion.
    decided_alike: usize,
    /// Golden cases whose reply the built-in policy words (not a denial, not no opinion).
    worded_by_builtin: Vec<(Golden, String)>,
}

fn compare_alone(example: &Example, sandbox: &Sandbox) -> Compared {
    let engine =
        PluginEngine::new(Some(cm::paths::cwasm_cache_dir(&sandbox.root))).expect("plugin engine");
    let default = builtin(PluginKind::Policy, "default").expect("built-in policy");
    let mut rust = policy(&engine, default.bytes, "built-in policy");
    let bytes = std::fs::read(example.built()).expect("read the built example");
    let mut guest = policy(&engine, &bytes, example.dir);
    let contexts: [(&str, bool, &[&str]); 3] = [
        ("live server", true, &[]),
        ("every nudge shown", true, &["read", "noisy-output"]),
        ("no server", false, &[]),
    ];
    let mut compared = Compared {
        decided_alike: 0,
        worded_by_builtin: Vec::new(),
    };
    let mut divergences = Vec::new();
    let mut left_alone = std::collections::BTreeSet::new();
    for call in golden_calls(&engine, sandbox) {
        for (label, server_live, nudges) in contexts {
            let context = context_for(sandbox, &call, server_live, nudges);
            let expected = rust.decide(&call.call, &context).expect("built-in decides");
            let actual = guest
                .decide(&call.call, &context)
                .unwrap_or_else(|e| panic!("{} on {}: {e}", example.dir, call.name));
            let left_to_builtin =
                actual.action == Action::NoOpinion && NOT_IMPLEMENTED.contains(&call.name.as_str());
            if actual != expected && left_to_builtin {
                left_alone.insert(call.name.clone());
            }
            if actual != expected && !left_to_builtin {
                divergences.push(format!(
                    "{} ({label}):\n  built-in: {}\n  {}: {}",
                    call.name,
                    describe(&expected),
                    example.dir,
                    describe(&actual)
                ));
                continue;
            }
            if actual == expected && actual.action != Action::NoOpinion {
                compared.decided_alike += 1;
                let chain_shows_it = !matches!(actual.action, Action::Deny(_));
                if label == "live server" && call.has_golden_reply && chain_shows_it {
                    compared
                        .worded_by_builtin
                        .push((call.golden, call.case.clone()));
                }
            }
        }
    }
    assert!(
        divergences.is_empty(),
        "{} decides otherwise than the built-in policy on {} golden call(s):\n{}",
        example.dir,
        divergences.len(),
        divergences.join("\n")
    );
    // A listed call the built-in policy no longer decides (or the example now does) is
    // a stale entry.
    let listed: std::collections::BTreeSet<String> =
        NOT_IMPLEMENTED.iter().map(|n| n.to_string()).collect();
    assert_eq!(
        left_alone, listed,
        "{}: the calls left to the built-in policy are not the listed ones",
        example.dir
    );
    compared
}

fn describe(decision: &Decision) -> String {
    format!("{:?} (nudge {:?})", decision.action, decision.nudge)
}

/// The golden payload of a case with a session id of its own, so no case sees the
/// nudges another one was shown.
fn own_session(golden: &Golden, sandbox: &Sandbox, case: &str) -> serde_json::Value {
    let mut payload = golden.payload_value(sandbox, case);
    if let Some(fields) = payload.as_object_mut() {
        for key in [
            "session_id",
            "conversation_id",
            "sessionId",
            "conversationId",
        ] {
            if let Some(serde_json::Value::String(id)) = fields.get_mut(key) {
                id.push_str(&format!("-{}-{case}", golden.platform));
            }
        }
    }
    payload
}

fn golden_stdout(golden: &Golden, case: &str) -> String {
    let path = golden.dir().join(format!("{case}.stdout"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn example_decides_as_the_builtin_policy(example: &Example) {
    let sandbox = Golden {
        platform: "claude-code",
    }
    .project();
    let added = plugin_add(&sandbox, example.built());
    assert!(
        added.starts_with(&format!("added policy {} ", example.id)),
        "{added}"
    );
    let compared = compare_alone(example, &sandbox);
    eprintln!(
        "{}: {} golden calls decided alike alone, {} replies to check through cm hook",
        example.dir,
        compared.decided_alike,
        compared.worded_by_builtin.len()
    );
    // Deny, redirect, nudge and rewrite rules each decided some golden call.
    assert!(
        compared.decided_alike >= 20,
        "only {} golden calls decided alike",
        compared.decided_alike
    );

    let allow_everything = plugin_add(&sandbox, &test_plugin("always-allow"));
    assert!(
        allow_everything.starts_with("added policy always-allow "),
        "{allow_everything}"
    );
    let _server = sandbox.live_server();
    let mut wrong = Vec::new();
    for (golden, case) in &compared.worded_by_builtin {
        let payload = own_session(golden, &sandbox, case);
        let reply = golden.run_payload(&sandbox, case, &payload);
        if reply != golden_stdout(golden, case) {
            wrong.push(format!("{}/{case}: {reply}", golden.platform));
        }
    }
    assert!(
        compared.worded_by_builtin.len() >= 8,
        "only {} golden replies to check through cm hook",
        compared.worded_by_builtin.len()
    );
    assert!(
        wrong.is_empty(),
        "with {} installed, {} golden replies differ:\n{}",
        example.dir,
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn the_javascript_example_decides_as_the_builtin_policy_on_the_golden_payloads() {
    example_decides_as_the_builtin_policy(&JS);
}

#[test]
fn the_python_example_decides_as_the_builtin_policy_on_the_golden_payloads() {
    example_decides_as_the_builtin_policy(&PY);
}
