//! What each call offers to permission rules: the shell commands it runs, the
//! file it reads or edits, the URLs it fetches. For context-mode's own tools
//! this comes from their JSON input (`ctx_execute` code, `ctx_batch_execute`
//! commands, `ctx_execute_file` / `ctx_index` paths, `ctx_fetch_and_index` URLs).

use serde_json::Value;

use crate::embedded::{self, Language};
use crate::rules::{Subjects, path};
use crate::shell::{self, ShellCommand};
use context_mode_sdk::policy::{ToolCall, ToolKind};

/// The ctx tool a call names (`ctx_execute` for `mcp__…__ctx_execute`).
pub fn ctx_tool(call: &ToolCall) -> Option<String> {
    let tool = call
        .mcp_tool
        .clone()
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| {
            call.name
                .rsplit("__")
                .next()
                .unwrap_or(&call.name)
                .to_string()
        });
    tool.starts_with("ctx_").then_some(tool)
}

/// The tool input as a JSON object, or `Null` when it is not valid JSON.
pub fn input(call: &ToolCall) -> Value {
    serde_json::from_str(&call.input_json).unwrap_or(Value::Null)
}

fn string_field<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input.get(key).and_then(Value::as_str)
}

/// The first of `keys` holding a string: hosts name the path field differently.
fn first_string(input: &Value, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|key| string_field(input, key))
        .map(str::to_string)
}

/// The shell command of a shell call: the normalized field, else the input's `command`.
pub fn shell_line(call: &ToolCall) -> Option<String> {
    call.command
        .clone()
        .or_else(|| string_field(&input(call), "command").map(str::to_string))
}

pub fn collect(call: &ToolCall, project_dir: &str) -> Subjects {
    let mut subjects = Subjects::default();
    let input = input(call);
    match call.kind {
        ToolKind::Shell => {
            if let Some(line) = shell_line(call) {
                subjects.shell = shell::split(&line);
            }
        }
        ToolKind::Read | ToolKind::Grep => {
            let given = call
                .path
                .clone()
                .or_else(|| first_string(&input, &["file_path", "path", "notebook_path"]));
            subjects.read_path = given
                .filter(|p| !p.trim().is_empty())
                .map(|p| path::normalize(&p, project_dir));
        }
        ToolKind::Edit => {
            let given = call
                .path
                .clone()
                .or_else(|| first_string(&input, &["file_path", "path", "notebook_path"]));
            subjects.edit_path = given
                .filter(|p| !p.trim().is_empty())
                .map(|p| path::normalize(&p, project_dir));
        }
        ToolKind::WebFetch => {
            subjects.urls.extend(
                call.url
                    .clone()
                    .or_else(|| string_field(&input, "url").map(str::to_string)),
            );
        }
        ToolKind::Agent => {
            subjects.agent_type = string_field(&input, "subagent_type").map(str::to_string);
        }
        ToolKind::Ctx => collect_ctx(call, &input, project_dir, &mut subjects),
        // Another server's fetch tool reaches the same pages as WebFetch, so
        // `WebFetch(domain:…)` deny and ask rules cover it too.
        ToolKind::Mcp => subjects
            .urls
            .extend(crate::routing::fetch_tool::fetch_tool_url(call, &input)),
        ToolKind::WebSearch | ToolKind::Other => {}
    }
    subjects
}

fn collect_ctx(call: &ToolCall, input: &Value, project_dir: &str, subjects: &mut Subjects) {
    let Some(tool) = ctx_tool(call) else { return };
    match tool.as_str() {
        "ctx_execute" | "ctx_execute_file" => {
            subjects.shell = code_commands(
                string_field(input, "language"),
                string_field(input, "code").unwrap_or(""),
            );
            if tool == "ctx_execute_file" {
                subjects.read_path = file_path(call, input, project_dir);
            }
        }
        "ctx_batch_execute" | "ctx_batch" => {
            subjects.shell = batch_commands(input.get("commands"))
                .iter()
                .flat_map(|c| shell::split(c))
                .collect();
        }
        "ctx_index" => subjects.read_path = file_path(call, input, project_dir),
        "ctx_fetch_and_index" => {
            // `url` and `requests` are each a string, a list, or JSON text of either;
            // a request is `{url, source}` or a bare URL (as the host decodes them).
            for field in ["url", "requests"] {
                let items = lenient_list(input.get(field))
                    .unwrap_or_else(|| input.get(field).cloned().into_iter().collect::<Vec<_>>());
                subjects
                    .urls
                    .extend(items.iter().filter_map(|item| match item {
                        Value::String(url) => Some(url.clone()),
                        Value::Object(_) => string_field(item, "url").map(str::to_string),
                        _ => None,
                    }));
            }
        }
        _ => {}
    }
}

/// The path a ctx tool reads: the host's canonical `path`, else the input's, made absolute.
fn file_path(call: &ToolCall, input: &Value, project_dir: &str) -> Option<String> {
    let given = call
        .path
        .clone()
        .or_else(|| string_field(input, "path").map(str::to_string))?;
    (!given.trim().is_empty()).then(|| path::normalize(&given, project_dir))
}

/// The shell commands `code` runs: itself for shell (or no language), the
/// embedded spawning calls for other languages.
pub fn code_commands(language: Option<&str>, code: &str) -> Vec<ShellCommand> {
    let language = language
        .and_then(Language::from_name)
        .unwrap_or(Language::Shell);
    embedded::shell_commands(language, code)
        .iter()
        .flat_map(|line| shell::split(line))
        .collect()
}

/// `commands: [{label, command}]`, bare strings, or a JSON array sent as a string.
fn batch_commands(commands: Option<&Value>) -> Vec<String> {
    let Some(items) = lenient_list(commands) else {
        return commands
            .and_then(Value::as_str)
            .map(|s| vec![s.to_string()])
            .unwrap_or_default();
    };
    items
        .iter()
        .filter_map(|item| match item {
            Value::String(command) => Some(command.clone()),
            Value::Object(fields) => fields
                .get("command")
                .and_then(Value::as_str)
                .map(str::to_string),
            _ => None,
        })
        .collect()
}

/// A JSON array, also when an agent sent it as a JSON string, and a single object
/// (or JSON text of one) as a list of one — the shapes the host accepts
/// (`host/src/lenient.rs`), so a hook sees the commands the server will run.
fn lenient_list(value: Option<&Value>) -> Option<Vec<Value>> {
    match value? {
        Value::Array(items) => Some(items.clone()),
        Value::String(text) if text.trim_start().starts_with(['[', '{']) => {
            match serde_json::from_str(text.trim()) {
                Ok(Value::Array(items)) => Some(items),
                Ok(object @ Value::Object(_)) => Some(vec![object]),
                _ => None,
            }
        }
        Value::Object(_) => Some(vec![value?.clone()]),
        _ => None,
    }
}
