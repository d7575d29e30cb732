//! Host tool name + input JSON → a normalized `tool-call`, and the way back for
//! rewrites (the complete input with one field replaced).

use serde_json::{Map, Value};

use crate::json::{first_str, get_str, to_compact};
use crate::tool_name::parse_tool_name;
use crate::types::{ToolCall, ToolKind};

/// Field names hosts use for a shell command line.
/// `CommandLine`: Antigravity CLI's `run_command` (unverified, ADR 25).
pub const COMMAND_KEYS: &[&str] = &["command", "cmd", "CommandLine"];
/// Field names hosts use for a file path.
pub const PATH_KEYS: &[&str] = &[
    "file_path",
    "path",
    "absolute_path",
    "filePath",
    "notebook_path",
    "target_file",
    // Antigravity CLI's `view_file` (unverified, ADR 25).
    "AbsolutePath",
];
/// Field names that mean "only part of the file".
const RANGE_KEYS: &[&str] = &[
    "offset",
    "limit",
    "start_line",
    "end_line",
    "startLine",
    "endLine",
    "line_range",
    "view_range",
    "lines",
    "StartLine",
    "EndLine",
];
const URL_KEYS: &[&str] = &["url", "uri", "Url"];
/// Field names for a sub-agent's instructions.
pub const PROMPT_KEYS: &[&str] = &["prompt", "task"];
const PATTERN_KEYS: &[&str] = &["pattern", "query", "regex", "Query"];
/// Shells whose `-c` script is the real command in an argv-style command.
const SHELLS: &[&str] = &["bash", "sh", "zsh", "dash", "fish", "pwsh", "powershell"];

/// The tool input as an object: an object as is, a string holding a JSON
/// object parsed, anything else empty (hosts that send no input).
pub fn input_object(input: &Value) -> Map<String, Value> {
    match input {
        Value::Object(object) => object.clone(),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => object,
            _ => Map::new(),
        },
        _ => Map::new(),
    }
}

/// The call of a hook payload that names it the common way: `tool_name` and
/// `tool_input` (an object, or a string holding one). The error is the reason,
/// for the adapter to prefix with its event name.
pub fn payload_tool_call(payload: &Map<String, Value>) -> Result<ToolCall, String> {
    let name = crate::json::get_str(payload, "tool_name")
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .ok_or_else(|| "stdin has no \"tool_name\" string".to_owned())?;
    let input = payload.get("tool_input").unwrap_or(&Value::Null);
    Ok(build_tool_call(name, input))
}

impl ToolCall {
    /// A call with only a name and a kind, the other fields empty (tests fill them in).
    pub fn new(name: &str, kind: ToolKind) -> ToolCall {
        ToolCall {
            name: name.to_owned(),
            kind,
            input_json: "{}".to_owned(),
            command: None,
            path: None,
            has_range: false,
            url: None,
            prompt: None,
            pattern: None,
            mcp_server: None,
            mcp_tool: None,
        }
    }
}

/// Builds the normalized call. Fields are filled for the kinds the WIT names
/// them for (command for shell, path for read/edit, ...), from the first of
/// the common field names that holds a value.
pub fn build_tool_call(name: &str, input: &Value) -> ToolCall {
    let parsed = parse_tool_name(name);
    let object = input_object(input);
    let kind = parsed.kind;
    let wants = |kinds: &[ToolKind]| kinds.contains(&kind);

    ToolCall {
        name: name.to_owned(),
        kind,
        input_json: to_compact(&Value::Object(object.clone())),
        command: wants(&[ToolKind::Shell])
            .then(|| command_line(&object))
            .flatten(),
        path: wants(&[ToolKind::Read, ToolKind::Edit])
            .then(|| first_path(&object))
            .flatten(),
        has_range: kind == ToolKind::Read && has_range(&object),
        url: wants(&[ToolKind::WebFetch])
            .then(|| first_str(&object, URL_KEYS).map(str::to_owned))
            .flatten(),
        prompt: wants(&[ToolKind::Agent])
            .then(|| first_str(&object, PROMPT_KEYS).map(str::to_owned))
            .flatten(),
        pattern: wants(&[ToolKind::Grep, ToolKind::WebSearch])
            .then(|| first_str(&object, PATTERN_KEYS).map(str::to_owned))
            .flatten(),
        mcp_server: parsed.mcp_server,
        mcp_tool: parsed.mcp_tool,
    }
}

/// The command line: a string field, or an argv list (`["bash","-lc","…"]`
/// gives the script; other lists are joined with shell quoting).
fn command_line(object: &Map<String, Value>) -> Option<String> {
    COMMAND_KEYS.iter().find_map(|key| match object.get(*key)? {
        Value::String(text) if !text.trim().is_empty() => Some(text.clone()),
        Value::Array(items) => argv_command(items),
        _ => None,
    })
}

fn argv_command(items: &[Value]) -> Option<String> {
    let argv: Vec<&str> = items.iter().map(Value::as_str).collect::<Option<_>>()?;
    match argv.as_slice() {
        [] => None,
        [shell, flag, script]
            if is_shell(shell) && flag.starts_with('-') && flag.ends_with('c') =>
        {
            Some((*script).to_owned())
        }
        args => Some(
            args.iter()
                .map(|arg| shell_quote(arg))
                .collect::<Vec<_>>()
                .join(" "),
        ),
    }
}

fn is_shell(program: &str) -> bool {
    let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
    let base = base.strip_suffix(".exe").unwrap_or(base);
    SHELLS.contains(&base)
}

fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

fn first_path(object: &Map<String, Value>) -> Option<String> {
    if let Some(path) = first_str(object, PATH_KEYS) {
        return Some(path.to_owned());
    }
    // read_many_files-style inputs: the first of a `paths` list.
    object
        .get("paths")
        .and_then(Value::as_array)
        .and_then(|paths| paths.iter().find_map(Value::as_str))
        .map(str::to_owned)
}

fn has_range(object: &Map<String, Value>) -> bool {
    RANGE_KEYS
        .iter()
        .any(|key| object.get(*key).is_some_and(|value| !value.is_null()))
}

/// The complete input object with one field replaced: the first of `keys`
/// already present, else the first of `keys` added. Other fields and their
/// order are kept, so the host runs the same call with only that change.
pub fn replace_input_field(input_json: &str, keys: &[&str], value: &str) -> Value {
    let mut object = match serde_json::from_str::<Value>(input_json) {
        Ok(Value::Object(object)) => object,
        _ => Map::new(),
    };
    let key = keys
        .iter()
        .find(|key| object.contains_key(**key))
        .or(keys.first())
        .copied();
    if let Some(key) = key {
        object.insert(key.to_owned(), Value::String(value.to_owned()));
    }
    Value::Object(object)
}

/// The string field `key` of an input, for adapters that need one raw value.
pub fn input_str(input_json: &str, key: &str) -> Option<String> {
    match serde_json::from_str::<Value>(input_json) {
        Ok(Value::Object(object)) => get_str(&object, key).map(str::to_owned),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payload_names_its_call_or_says_why_not() {
        let payload =
            crate::parse_object(r#"{"tool_name":" Bash ","tool_input":{"command":"git status"}}"#)
                .unwrap();
        let call = payload_tool_call(&payload).unwrap();
        assert_eq!(call.kind, ToolKind::Shell);
        assert_eq!(call.command.as_deref(), Some("git status"));
        let nameless = crate::parse_object(r#"{"tool_name":"  ","tool_input":{}}"#).unwrap();
        assert_eq!(
            payload_tool_call(&nameless).unwrap_err(),
            "stdin has no \"tool_name\" string"
        );
    }
    use serde_json::json;

    #[test]
    fn bash_call_carries_its_command_and_full_input() {
        let input = json!({"command": "curl https://example.com/api", "description": "Fetch API", "timeout": 120000});
        let call = build_tool_call("Bash", &input);
        assert_eq!(call.kind, ToolKind::Shell);
        assert_eq!(
            call.command.as_deref(),
            Some("curl https://example.com/api")
        );
        assert_eq!(
            call.input_json,
            r#"{"command":"curl https://example.com/api","description":"Fetch API","timeout":120000}"#
        );
        assert_eq!(call.path, None);
        assert!(!call.has_range);
    }

    #[test]
    fn argv_commands_become_command_lines() {
        let script = build_tool_call(
            "shell",
            &json!({"command": ["bash", "-lc", "ls -la | wc -l"]}),
        );
        assert_eq!(script.command.as_deref(), Some("ls -la | wc -l"));
        let argv = build_tool_call(
            "container.exec",
            &json!({"cmd": ["git", "commit", "-m", "it's done"]}),
        );
        assert_eq!(
            argv.command.as_deref(),
            Some(r"git commit -m 'it'\''s done'")
        );
        let empty = build_tool_call("shell", &json!({"command": []}));
        assert_eq!(empty.command, None);
        let mixed = build_tool_call("shell", &json!({"command": ["ls", 3]}));
        assert_eq!(mixed.command, None);
    }

    #[test]
    fn read_calls_know_path_and_range() {
        let whole = build_tool_call("Read", &json!({"file_path": "/p/big.txt"}));
        assert_eq!(whole.kind, ToolKind::Read);
        assert_eq!(whole.path.as_deref(), Some("/p/big.txt"));
        assert!(!whole.has_range);
        let ranged = build_tool_call(
            "Read",
            &json!({"file_path": "/p/big.txt", "offset": 100, "limit": 50}),
        );
        assert!(ranged.has_range);
        let null_range =
            build_tool_call("read_file", &json!({"absolute_path": "a", "offset": null}));
        assert_eq!(null_range.path.as_deref(), Some("a"));
        assert!(!null_range.has_range);
        let many = build_tool_call("read_many_files", &json!({"paths": ["x.md", "y.md"]}));
        assert_eq!(many.path.as_deref(), Some("x.md"));
    }

    #[test]
    fn fields_follow_the_kind() {
        let fetch = build_tool_call(
            "WebFetch",
            &json!({"url": "https://docs.rs", "prompt": "summarize"}),
        );
        assert_eq!(fetch.url.as_deref(), Some("https://docs.rs"));
        assert_eq!(
            fetch.prompt, None,
            "a fetch prompt is not a sub-agent prompt"
        );
        let task = build_tool_call(
            "Task",
            &json!({"description": "d", "prompt": "find x", "subagent_type": "general-purpose"}),
        );
        assert_eq!(task.kind, ToolKind::Agent);
        assert_eq!(task.prompt.as_deref(), Some("find x"));
        let grep = build_tool_call("Grep", &json!({"pattern": "fn main", "path": "src"}));
        assert_eq!(grep.pattern.as_deref(), Some("fn main"));
        assert_eq!(grep.path, None);
        let search = build_tool_call("WebSearch", &json!({"query": "rust wasm"}));
        assert_eq!(search.pattern.as_deref(), Some("rust wasm"));
        let edit = build_tool_call(
            "Edit",
            &json!({"file_path": "src/a.rs", "old_string": "a", "new_string": "b"}),
        );
        assert_eq!(edit.path.as_deref(), Some("src/a.rs"));
    }

    #[test]
    fn mcp_calls_carry_server_and_tool() {
        let call = build_tool_call(
            "mcp__plugin_context-mode_context-mode__ctx_execute",
            &json!({"language": "shell", "code": "ls"}),
        );
        assert_eq!(call.kind, ToolKind::Ctx);
        assert_eq!(call.mcp_tool.as_deref(), Some("ctx_execute"));
        assert_eq!(call.command, None);
    }

    #[test]
    fn missing_or_odd_input_is_an_empty_object() {
        assert_eq!(build_tool_call("Bash", &Value::Null).input_json, "{}");
        assert_eq!(build_tool_call("Bash", &json!([1])).input_json, "{}");
        let from_string = build_tool_call("Bash", &json!("{\"command\":\"ls\"}"));
        assert_eq!(from_string.command.as_deref(), Some("ls"));
        assert_eq!(
            build_tool_call("Bash", &json!({"command": "  "})).command,
            None
        );
    }

    #[test]
    fn replace_keeps_every_other_field_in_order() {
        let input = r#"{"description":"d","command":"gradle build","timeout":5}"#;
        let updated = replace_input_field(input, COMMAND_KEYS, "gradle build | tail -30");
        assert_eq!(
            to_compact(&updated),
            r#"{"description":"d","command":"gradle build | tail -30","timeout":5}"#
        );
        let cmd = replace_input_field(r#"{"cmd":"ls"}"#, COMMAND_KEYS, "ls -1");
        assert_eq!(to_compact(&cmd), r#"{"cmd":"ls -1"}"#);
        let added = replace_input_field("not json", PROMPT_KEYS, "p");
        assert_eq!(to_compact(&added), r#"{"prompt":"p"}"#);
        assert_eq!(input_str(input, "description").as_deref(), Some("d"));
        assert_eq!(input_str("[]", "description"), None);
    }
}
