//! Rows from tool calls: pending markers, failures (with constraints and retry loops),
//! error → fix pairs, files, tasks, plans, skills, sub-agents, MCP counts, references
//! and slow calls. Shell commands are read by [`super::shell`].

use serde_json::Value;

use super::Category;
use super::extract::{Extracted, NewEntry};
use super::redact::redact;
use super::text::{
    clean, clip, cut, fields, fingerprint, first_chars, one_line, relative_path, seq_list, tail,
    with_fields,
};
use super::view::JournalView;
use crate::human::first_line;
use crate::limits::{JOURNAL_SUMMARY_MAX_BYTES, SLOW_CALL_MS, SUBAGENT_EXCERPT_CHARS};
use crate::model::{ToolCall, ToolKind, ToolResult};

/// How a pending-call row's summary starts.
pub const PENDING_PREFIX: &str = "pending: ";
/// Output redacted and excerpted from each end when it is larger than this.
const OUTPUT_WINDOW_BYTES: usize = 64 * 1024;
/// Bytes of a failing call's output kept from each end.
const ERROR_EXCERPT_BYTES: usize = 768;
/// Bytes of a call shown in a summary.
const CALL_SUMMARY_BYTES: usize = 120;

/// The call in a few words, redacted: the command of a shell call, the tool and path
/// of a file call, and so on.
pub fn describe_call(tool: &ToolCall, project_dir: Option<&str>) -> String {
    let text = match tool.kind {
        ToolKind::Shell => tool.command.clone().unwrap_or_else(|| tool.name.clone()),
        ToolKind::Read | ToolKind::Edit => match edited_paths(tool).first() {
            Some(path) => format!("{} {}", tool.name, relative_path(path, project_dir)),
            None => tool.name.clone(),
        },
        ToolKind::WebFetch => format!("{} {}", tool.name, tool.url.as_deref().unwrap_or("")),
        ToolKind::Grep => format!("{} {}", tool.name, tool.pattern.as_deref().unwrap_or("")),
        ToolKind::Mcp | ToolKind::Ctx => mcp_display(tool),
        ToolKind::Agent => format!("{}: {}", tool.name, agent_description(tool, &input(tool))),
        ToolKind::WebSearch | ToolKind::Other => tool.name.clone(),
    };
    clip(&one_line(&redact(&text)), CALL_SUMMARY_BYTES)
}

/// What makes two calls "the same call" for error → fix and retry loops: the program
/// and subcommand of a shell command, the path of a file call, the MCP tool.
pub fn like_key(tool: &ToolCall, project_dir: Option<&str>) -> String {
    match tool.kind {
        ToolKind::Shell => format!(
            "shell:{}",
            super::shell::main_command(tool.command.as_deref().unwrap_or(""))
        ),
        ToolKind::Read | ToolKind::Edit => {
            let kind = if tool.kind == ToolKind::Read {
                "read"
            } else {
                "edit"
            };
            let path = edited_paths(tool).into_iter().next().unwrap_or_default();
            format!("{kind}:{}", relative_path(&path, project_dir))
        }
        ToolKind::WebFetch => format!("fetch:{}", tool.url.as_deref().unwrap_or("")),
        ToolKind::Mcp | ToolKind::Ctx => format!("mcp:{}", mcp_display(tool)),
        _ => format!("tool:{}", tool.name),
    }
}

/// The arguments of a shell call as short word hashes (no text of the command is kept):
/// two calls are similar when they share [`like_key`] and one's arguments include the
/// other's (`cargo test -p a` and `cargo test -p a dates::leap`, not `cargo check -p a`
/// and `cargo check -p b`).
pub fn call_args(tool: &ToolCall) -> String {
    if tool.kind != ToolKind::Shell {
        return String::new();
    }
    let (_, words) = super::shell::main_call(&redact(tool.command.as_deref().unwrap_or("")));
    let mut hashes: Vec<String> = words
        .iter()
        .map(|w| crate::store::content_hash(w)[..8].to_string())
        .collect();
    hashes.sort_unstable();
    hashes.dedup();
    hashes.truncate(32);
    hashes.join(" ")
}

/// Whether two [`call_args`] values are of similar calls.
fn similar_args(a: &str, b: &str) -> bool {
    let a: Vec<&str> = a.split_whitespace().collect();
    let b: Vec<&str> = b.split_whitespace().collect();
    a.iter().all(|w| b.contains(w)) || b.iter().all(|w| a.contains(w))
}

/// Unresolved errors of calls similar to this one, oldest first.
fn similar_errors<'a>(
    view: &JournalView<'a>,
    like: &str,
    args: &str,
) -> Vec<&'a crate::store::JournalEntry> {
    view.unresolved_errors_like(like)
        .into_iter()
        .filter(|r| similar_args(fields(&r.data).get("args").copied().unwrap_or(""), args))
        .collect()
}

fn input(tool: &ToolCall) -> Value {
    serde_json::from_str(&tool.input_json).unwrap_or(Value::Null)
}

pub(super) fn input_str<'a>(input: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| input.get(k).and_then(Value::as_str))
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

fn mcp_display(tool: &ToolCall) -> String {
    match (&tool.mcp_server, &tool.mcp_tool) {
        (Some(server), Some(name)) => format!("{server}.{name}"),
        (None, Some(name)) => name.clone(),
        _ => tool.name.clone(),
    }
}

/// The files a read or edit call names (an `apply_patch` names several).
pub fn edited_paths(tool: &ToolCall) -> Vec<String> {
    if let Some(path) = tool.path.as_deref().filter(|p| !p.trim().is_empty()) {
        return vec![path.to_string()];
    }
    let input = input(tool);
    if let Some(path) = input_str(
        &input,
        &[
            "file_path",
            "path",
            "notebook_path",
            "filePath",
            "target_file",
            "file",
        ],
    ) {
        return vec![path.to_string()];
    }
    let patch = input_str(&input, &["input", "patch", "command"]).unwrap_or(&tool.input_json);
    patch
        .lines()
        .filter_map(|line| {
            [
                "*** Update File: ",
                "*** Add File: ",
                "*** Delete File: ",
                "*** Move to: ",
            ]
            .iter()
            .find_map(|p| line.trim().strip_prefix(p))
        })
        .map(|p| p.trim().to_string())
        .collect()
}

/// A pre-tool-use: the call is pending until its post-tool-use arrives.
pub fn pending(tool: &ToolCall, project_dir: Option<&str>, out: &mut Extracted) {
    out.push(
        NewEntry::new(
            Category::Pending,
            format!("{PENDING_PREFIX}{}", describe_call(tool, project_dir)),
        )
        .data(with_fields(
            &[
                ("call", fingerprint(&tool.name, &tool.input_json)),
                ("like", like_key(tool, project_dir)),
                ("tool", tool.name.clone()),
            ],
            "",
        )),
    );
}

/// The pending row a post-tool-use answers: the same call, else a similar call, else
/// the oldest pending call of the same tool (a policy may have rewritten the input in
/// between).
fn answered_pending(tool: &ToolCall, like: &str, view: &JournalView<'_>) -> Option<i64> {
    let call = fingerprint(&tool.name, &tool.input_json);
    let pending = view.pending();
    pending
        .iter()
        .rev()
        .find(|r| fields(&r.data).get("call") == Some(&call.as_str()))
        .or_else(|| {
            pending
                .iter()
                .find(|r| fields(&r.data).get("like") == Some(&like))
        })
        .or_else(|| {
            pending
                .iter()
                .find(|r| fields(&r.data).get("tool") == Some(&tool.name.as_str()))
        })
        .map(|r| r.seq)
}

/// Output text worth keeping, redacted: whole when small, else both ends.
fn redacted_output(output: &str) -> String {
    if output.len() <= 2 * OUTPUT_WINDOW_BYTES {
        return clean(&redact(output));
    }
    format!(
        "{}\n…\n{}",
        clean(&redact(cut(output, OUTPUT_WINDOW_BYTES))),
        clean(&redact(tail(output, OUTPUT_WINDOW_BYTES)))
    )
}

/// A post-tool-use.
pub fn post(
    tool: &ToolCall,
    outcome: Option<&ToolResult>,
    project_dir: Option<&str>,
    view: &JournalView<'_>,
    out: &mut Extracted,
) {
    let output = outcome.map_or("", |o| o.output.as_str());
    let call = describe_call(tool, project_dir);
    let like = like_key(tool, project_dir);
    if let Some(seq) = answered_pending(tool, &like, view) {
        out.retire.push(seq);
    }
    let args = call_args(tool);
    if outcome.is_some_and(|o| failed(tool, o)) {
        failure(tool, outcome, &call, (&like, &args), view, out);
    } else {
        let resolved = similar_errors(view, &like, &args);
        if !resolved.is_empty() {
            let seqs: Vec<i64> = resolved.iter().map(|r| r.seq).collect();
            let refs: Vec<String> = seqs.iter().map(|s| format!("#{s}")).collect();
            out.push(
                NewEntry::new(
                    Category::Fix,
                    clip(
                        &format!("fixed: {call} succeeded after error {}", refs.join(", ")),
                        JOURNAL_SUMMARY_MAX_BYTES,
                    ),
                )
                .data(with_fields(
                    &[("fixes", seq_list(&seqs)), ("like", like.clone())],
                    cut(
                        &redacted_output(cut(output, 4 * ERROR_EXCERPT_BYTES)),
                        ERROR_EXCERPT_BYTES,
                    ),
                )),
            );
        }
        success(tool, output, project_dir, view, out);
    }
    if let Some(ms) = outcome
        .and_then(|o| o.duration_ms)
        .filter(|ms| *ms > SLOW_CALL_MS)
    {
        out.push(NewEntry::new(
            Category::Slow,
            format!("slow call ({:.1} s): {call}", ms as f64 / 1000.0),
        ));
    }
}

/// Whether a call failed. `grep`, `diff` and `test` exit 1 to say "no match" /
/// "different" / "false": not failures.
fn failed(tool: &ToolCall, outcome: &ToolResult) -> bool {
    let nonzero = outcome.exit_code.is_some_and(|c| c != 0);
    if !(outcome.is_error || nonzero) {
        return false;
    }
    if tool.kind == ToolKind::Shell && outcome.exit_code == Some(1) {
        let main = super::shell::main_command(tool.command.as_deref().unwrap_or(""));
        let program = main.split(' ').next().unwrap_or("");
        if matches!(
            program,
            "grep" | "rg" | "egrep" | "fgrep" | "ag" | "diff" | "cmp" | "test" | "["
        ) {
            return false;
        }
    }
    true
}

/// The line of an output that says what went wrong.
pub fn error_line(output: &str) -> &str {
    const SIGNS: &[&str] = &[
        "error",
        "failed",
        "failure",
        "panicked",
        "exception",
        "fatal",
        "denied",
        "not found",
        "cannot",
        "can't",
        "unable",
        "no such",
        "invalid",
        "refused",
        "timed out",
        "timeout",
    ];
    let lines: Vec<&str> = output
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.iter().any(|l| l.starts_with("Traceback")) {
        return lines.last().copied().unwrap_or("");
    }
    lines
        .iter()
        .find(|l| {
            let lower = l.to_lowercase();
            SIGNS.iter().any(|s| lower.contains(s))
        })
        .or(lines.last())
        .copied()
        .unwrap_or("")
}

const CONSTRAINT_SIGNS: &[&str] = &[
    "not supported",
    "unsupported",
    "permission denied",
    "operation not permitted",
    "read-only file system",
    "not allowed",
    "access denied",
    "eacces",
    "eperm",
];

fn failure(
    tool: &ToolCall,
    outcome: Option<&ToolResult>,
    call: &str,
    (like, args): (&str, &str),
    view: &JournalView<'_>,
    out: &mut Extracted,
) {
    let output = redacted_output(outcome.map_or("", |o| o.output.as_str()));
    let exit = outcome
        .and_then(|o| o.exit_code)
        .map(|c| format!(" (exit {c})"))
        .unwrap_or_default();
    let line = one_line(error_line(&output));
    let excerpt = if output.len() > 2 * ERROR_EXCERPT_BYTES {
        format!(
            "{}\n…\n{}",
            cut(&output, ERROR_EXCERPT_BYTES),
            tail(&output, ERROR_EXCERPT_BYTES)
        )
    } else {
        output.clone()
    };
    out.push(
        NewEntry::new(
            Category::Error,
            clip(
                &format!("{call} failed{exit}: {line}"),
                JOURNAL_SUMMARY_MAX_BYTES,
            ),
        )
        .data(with_fields(
            &[
                ("call", fingerprint(&tool.name, &tool.input_json)),
                ("like", like.to_string()),
                ("args", args.to_string()),
            ],
            &format!(
                "{}\n\n{excerpt}",
                clip(&one_line(&redact(&tool.input_json)), 600)
            ),
        )),
    );
    if let Some(line) = output.lines().map(str::trim).find(|l| {
        let lower = l.to_lowercase();
        CONSTRAINT_SIGNS.iter().any(|s| lower.contains(s))
    }) {
        out.push(NewEntry::new(
            Category::Constraint,
            clip(&one_line(line), JOURNAL_SUMMARY_MAX_BYTES),
        ));
    }
    let earlier = similar_errors(view, like, args);
    let count = earlier.len() + 1;
    if count >= 3 {
        let first = earlier[0].seq.to_string();
        if let Some(old) = view.category(Category::Retry).rev().find(|r| {
            let f = fields(&r.data);
            f.get("like") == Some(&like) && f.get("first") == Some(&first.as_str())
        }) {
            out.retire.push(old.seq);
        }
        out.push(
            NewEntry::new(
                Category::Retry,
                clip(
                    &format!("retry loop: {call} failed {count} times in a row (first #{first})"),
                    JOURNAL_SUMMARY_MAX_BYTES,
                ),
            )
            .data(with_fields(
                &[
                    ("like", like.to_string()),
                    ("first", first),
                    ("count", count.to_string()),
                ],
                "",
            )),
        );
    }
}

fn success(
    tool: &ToolCall,
    output: &str,
    project_dir: Option<&str>,
    view: &JournalView<'_>,
    out: &mut Extracted,
) {
    let input = input(tool);
    match tool.kind {
        ToolKind::Read => {
            for path in edited_paths(tool) {
                let shown = relative_path(&path, project_dir);
                out.push(NewEntry::new(Category::FileRead, format!("read {shown}")).refresh());
                if is_rules_file(&shown) {
                    let hash = crate::store::content_hash(output);
                    out.push(
                        NewEntry::new(Category::Rules, format!("rules file {shown}"))
                            .data(with_fields(&[("hash", hash[..16].to_string())], "")),
                    );
                }
            }
        }
        ToolKind::Edit => {
            let name = tool.name.to_ascii_lowercase();
            let creates = name.contains("write")
                || name.starts_with("create")
                || tool.input_json.contains("*** Add File: ");
            let (category, verb) = if creates {
                (Category::FileWrite, "wrote")
            } else {
                (Category::FileEdit, "edited")
            };
            for path in edited_paths(tool) {
                let shown = relative_path(&path, project_dir);
                out.push(NewEntry::new(category, format!("{verb} {shown}")).refresh());
            }
        }
        ToolKind::Shell => {
            super::shell::rows(tool.command.as_deref().unwrap_or(""), output, view, out);
        }
        ToolKind::Agent => {
            let prompt = tool
                .prompt
                .clone()
                .or_else(|| input_str(&input, &["prompt"]).map(str::to_string))
                .unwrap_or_default();
            let kind = input_str(&input, &["subagent_type", "agent", "type"])
                .map(|k| format!(" ({k})"))
                .unwrap_or_default();
            out.push(
                NewEntry::new(
                    Category::Subagent,
                    clip(
                        &format!("sub-agent{kind}: {}", agent_description(tool, &input)),
                        JOURNAL_SUMMARY_MAX_BYTES,
                    ),
                )
                .data(format!(
                    "prompt: {}\n\nresult: {}",
                    first_chars(&clean(&redact(&prompt)), SUBAGENT_EXCERPT_CHARS),
                    first_chars(&redacted_output(output), SUBAGENT_EXCERPT_CHARS)
                )),
            );
        }
        ToolKind::Mcp => {
            let display = clip(&mcp_display(tool), 120);
            let like = format!("mcp:{display}");
            let previous = view
                .category(Category::Mcp)
                .rev()
                .find(|r| fields(&r.data).get("like") == Some(&like.as_str()));
            let count = previous
                .and_then(|r| {
                    fields(&r.data)
                        .get("count")
                        .and_then(|c| c.parse::<u64>().ok())
                })
                .unwrap_or(0)
                + 1;
            if let Some(previous) = previous {
                out.retire.push(previous.seq);
            }
            out.push(
                NewEntry::new(Category::Mcp, format!("mcp {display} ×{count}")).data(with_fields(
                    &[("like", like), ("count", count.to_string())],
                    "",
                )),
            );
        }
        ToolKind::WebFetch => {
            if let Some(url) = tool.url.as_deref().filter(|u| !u.is_empty()) {
                out.push(NewEntry::new(
                    Category::Reference,
                    format!("reference {}", clip(&redact(url), 300)),
                ));
            }
        }
        ToolKind::WebSearch => {
            if let Some(query) = input_str(&input, &["query", "q"]) {
                out.push(NewEntry::new(
                    Category::Reference,
                    clip(
                        &format!("web search \"{}\"", one_line(&redact(query))),
                        JOURNAL_SUMMARY_MAX_BYTES,
                    ),
                ));
            }
        }
        ToolKind::Other => super::tasks::other_tool(tool, &input, output, out),
        ToolKind::Grep | ToolKind::Ctx => {}
    }
}

fn agent_description(tool: &ToolCall, input: &Value) -> String {
    input_str(input, &["description"])
        .map(str::to_string)
        .or_else(|| tool.prompt.as_deref().map(|p| first_line(p).to_string()))
        .map(|d| one_line(&redact(&d)))
        .unwrap_or_default()
}

/// Rules files: what agents read as project instructions.
pub fn is_rules_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let names = crate::search::MEMORY_FILE_NAMES
        .iter()
        .map(|n| n.rsplit('/').next().unwrap_or(n));
    let named = names
        .into_iter()
        .any(|n| n == name && n != "guidelines.md" && n != "repo.md");
    let in_rules_dir = [
        ".cursor/rules/",
        ".github/instructions/",
        ".kiro/steering/",
        ".clinerules/",
        ".windsurf/rules/",
    ]
    .iter()
    .any(|dir| path.contains(dir))
        && (name.ends_with(".md") || name.ends_with(".mdc"));
    named
        || in_rules_dir
        || path.ends_with(".junie/guidelines.md")
        || path.ends_with(".openhands/microagents/repo.md")
}
