//! A host's tool response (string, object or MCP content list) → the text the
//! model saw, plus the error flag and exit code when the host reports them.

use serde_json::{Map, Value};

use crate::json::{first_str, get_bool, get_i64, get_str, to_compact};

/// The flattened result of one tool call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolOutput {
    pub text: String,
    pub is_error: bool,
    pub exit_code: Option<i32>,
}

impl ToolOutput {
    /// The normalized result of the call, with the duration when the host reports one.
    pub fn into_result(self, duration_ms: Option<u64>) -> crate::ToolResult {
        crate::ToolResult {
            output: self.text,
            is_error: self.is_error,
            exit_code: self.exit_code,
            duration_ms,
        }
    }
}

/// Marker appended when a host reports that it interrupted a command.
pub const INTERRUPTED_NOTE: &str = "[command interrupted]";

/// Flattens a tool response the way the model sees it.
///
/// A string that is itself the JSON of one of these shapes (Claude Code passes an MCP
/// result as `"{\"result\":\"…\"}"`, Cursor's `tool_output` is a JSON string) is decoded
/// first, so the text keeps its real newlines; any other string is taken as is.
///
/// Shell shapes (`stdout`/`stderr`) become stdout then stderr; file reads
/// (`file.content`) become the content; MCP results (`content: [{type:text}]`)
/// become their text blocks; plain `output`/`result`/`content` strings are
/// taken as is; anything else is compact JSON so nothing is silently lost.
pub fn tool_output(response: &Value) -> ToolOutput {
    tool_output_within(response, ENCODED_DEPTH_MAX)
}

/// How many times a response may be a JSON string inside a JSON string.
const ENCODED_DEPTH_MAX: usize = 3;

/// The keys of the wrappers hosts put around a tool's text: an encoded object is decoded
/// only when every key is one of these, so a tool that returns JSON data keeps it whole.
const WRAPPER_KEYS: &[&str] = &[
    "result",
    "content",
    "structuredContent",
    "isError",
    "is_error",
    "_meta",
    "output",
    "stdout",
    "stderr",
    "interrupted",
    "isImage",
    "exit_code",
    "exitCode",
    "text",
    "type",
    "llmContent",
    "returnDisplay",
    "error",
    "success",
];

fn tool_output_within(response: &Value, depth: usize) -> ToolOutput {
    match response {
        Value::Null => ToolOutput::default(),
        Value::String(text) => match encoded_wrapper(text).filter(|_| depth > 0) {
            Some(decoded) => tool_output_within(&decoded, depth - 1),
            None => ToolOutput {
                text: text.clone(),
                ..ToolOutput::default()
            },
        },
        Value::Array(items) => ToolOutput {
            text: content_blocks_text(items).unwrap_or_else(|| to_compact(response)),
            ..ToolOutput::default()
        },
        Value::Object(object) => {
            let mut out = object_output(object);
            // `{"result": "<encoded wrapper>"}`: the inner text is the tool's.
            if depth > 0
                && let Some(inner) = encoded_wrapper(&out.text)
            {
                let inner = tool_output_within(&inner, depth - 1);
                out.text = inner.text;
                out.is_error |= inner.is_error;
                out.exit_code = out.exit_code.or(inner.exit_code);
            }
            out
        }
        other => ToolOutput {
            text: to_compact(other),
            ..ToolOutput::default()
        },
    }
}

/// `text` decoded when it is the JSON of a host's wrapper (an object of wrapper keys
/// holding a text, or a list of MCP content blocks); `None` for any other text.
fn encoded_wrapper(text: &str) -> Option<Value> {
    let trimmed = text.trim();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    let value: Value = serde_json::from_str(trimmed).ok()?;
    let is_wrapper = match &value {
        Value::Object(object) => {
            !object.is_empty()
                && object
                    .keys()
                    .all(|key| WRAPPER_KEYS.contains(&key.as_str()))
                && [
                    "result",
                    "content",
                    "output",
                    "stdout",
                    "text",
                    "llmContent",
                ]
                .iter()
                .any(|key| object.contains_key(*key))
        }
        Value::Array(items) => {
            !items.is_empty()
                && items
                    .iter()
                    .all(|item| item.as_object().is_some_and(|o| o.contains_key("type")))
                && content_blocks_text(items).is_some()
        }
        _ => false,
    };
    is_wrapper.then_some(value)
}

fn object_output(object: &Map<String, Value>) -> ToolOutput {
    let exit_code = ["exit_code", "exitCode", "returnCode", "return_code"]
        .iter()
        .find_map(|key| get_i64(object, key))
        .and_then(|code| i32::try_from(code).ok());
    let interrupted = get_bool(object, "interrupted") == Some(true);
    let is_error = ["is_error", "isError"]
        .iter()
        .any(|key| get_bool(object, key) == Some(true))
        || get_bool(object, "success") == Some(false)
        || object.get("error").is_some_and(is_present_error)
        || interrupted
        || exit_code.is_some_and(|code| code != 0);

    let mut text = object_text(object);
    if interrupted {
        push_line(&mut text, INTERRUPTED_NOTE);
    }
    ToolOutput {
        text,
        is_error,
        exit_code,
    }
}

fn object_text(object: &Map<String, Value>) -> String {
    if object.contains_key("stdout") || object.contains_key("stderr") {
        let mut text = get_str(object, "stdout").unwrap_or_default().to_owned();
        if let Some(stderr) = get_str(object, "stderr").filter(|s| !s.is_empty()) {
            push_line(&mut text, stderr);
        }
        return text;
    }
    if let Some(content) = object
        .get("file")
        .and_then(Value::as_object)
        .and_then(|file| get_str(file, "content"))
    {
        return content.to_owned();
    }
    if let Some(text) = object
        .get("content")
        .and_then(Value::as_array)
        .and_then(|items| content_blocks_text(items))
    {
        return text;
    }
    // Gemini CLI: `llmContent` is what the model sees, a string or a list of parts.
    if let Some(text) = object.get("llmContent").and_then(parts_text) {
        return text;
    }
    if let Some(text) = first_str(object, &["output", "result", "content", "text"]) {
        return text.to_owned();
    }
    to_compact(&Value::Object(object.clone()))
}

/// Joins the text of MCP content blocks; `None` when the list holds no text block.
fn content_blocks_text(items: &[Value]) -> Option<String> {
    let texts: Vec<&str> = items
        .iter()
        .filter_map(Value::as_object)
        .filter(|block| get_str(block, "type") == Some("text"))
        .filter_map(|block| get_str(block, "text"))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// A string, a `{text}` part, or a list of them (Gemini's `PartListUnion`); `None`
/// when there is no text at all.
fn parts_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Object(part) => get_str(part, "text").map(str::to_owned),
        Value::Array(parts) => {
            let texts: Vec<String> = parts.iter().filter_map(parts_text).collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

fn is_present_error(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(false) => false,
        Value::String(text) => !text.is_empty(),
        _ => true,
    }
}

fn push_line(text: &mut String, line: &str) {
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(line);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bash_response_is_stdout_then_stderr() {
        let out = tool_output(&json!({
            "stdout": "built 3 crates", "stderr": "warning: unused", "interrupted": false, "isImage": false
        }));
        assert_eq!(out.text, "built 3 crates\nwarning: unused");
        assert!(!out.is_error);
        assert_eq!(out.exit_code, None);
    }

    #[test]
    fn interrupted_bash_is_marked_and_an_error() {
        let out = tool_output(&json!({"stdout": "partial\n", "stderr": "", "interrupted": true}));
        assert_eq!(out.text, format!("partial\n{INTERRUPTED_NOTE}"));
        assert!(out.is_error);
    }

    #[test]
    fn read_response_is_the_file_content() {
        let out = tool_output(&json!({
            "type": "text",
            "file": {"filePath": "/p/a.txt", "content": "line 1\nline 2", "numLines": 2, "startLine": 1, "totalLines": 2}
        }));
        assert_eq!(out.text, "line 1\nline 2");
    }

    #[test]
    fn mcp_content_blocks_are_joined() {
        let blocks = json!([{"type": "text", "text": "a"}, {"type": "image", "data": "..."}, {"type": "text", "text": "b"}]);
        assert_eq!(tool_output(&blocks).text, "a\nb");
        let wrapped = json!({"content": blocks, "isError": true});
        let out = tool_output(&wrapped);
        assert_eq!(out.text, "a\nb");
        assert!(out.is_error);
    }

    #[test]
    fn strings_exit_codes_and_unknown_shapes() {
        assert_eq!(tool_output(&json!("plain")).text, "plain");
        assert_eq!(tool_output(&Value::Null).text, "");
        let failed = tool_output(&json!({"output": "boom", "exit_code": 2}));
        assert_eq!(failed.text, "boom");
        assert_eq!(failed.exit_code, Some(2));
        assert!(failed.is_error);
        let odd = tool_output(&json!({"filenames": ["a", "b"], "numFiles": 2}));
        assert_eq!(odd.text, r#"{"filenames":["a","b"],"numFiles":2}"#);
        assert!(!odd.is_error);
        assert_eq!(tool_output(&json!(17)).text, "17");
        assert_eq!(tool_output(&json!([1, 2])).text, "[1,2]");
    }

    #[test]
    fn gemini_llm_content_is_the_output() {
        let shell = tool_output(&json!({
            "llmContent": "Command: ls\nOutput: a.txt", "returnDisplay": "a.txt", "error": null
        }));
        assert_eq!(shell.text, "Command: ls\nOutput: a.txt");
        assert!(!shell.is_error);
        let parts =
            tool_output(&json!({"llmContent": [{"text": "a"}, {"inlineData": {}}, {"text": "b"}]}));
        assert_eq!(parts.text, "a\nb");
        let failed = tool_output(&json!({
            "llmContent": "Error: no such file", "error": {"message": "no such file", "type": "file_not_found"}
        }));
        assert_eq!(failed.text, "Error: no such file");
        assert!(failed.is_error);
    }

    #[test]
    fn encoded_mcp_results_are_decoded_to_their_text() {
        // Claude Code: an MCP result arrives as the JSON string of `{"result": …}`.
        let claude = json!("{\"result\":\"line 1\\nline 2\"}");
        assert_eq!(tool_output(&claude).text, "line 1\nline 2");
        // Cursor: `tool_output` is the JSON string of the MCP content list or result.
        let blocks = json!(r#"[{"type":"text","text":"a\nb"},{"type":"text","text":"c"}]"#);
        assert_eq!(tool_output(&blocks).text, "a\nb\nc");
        let result = json!(r#"{"content":[{"type":"text","text":"x\ny"}],"isError":true}"#);
        let out = tool_output(&result);
        assert_eq!(out.text, "x\ny");
        assert!(out.is_error);
        // A wrapper object whose result is itself an encoded content list.
        let nested = json!({"result": r#"[{"type":"text","text":"deep\ntext"}]"#});
        assert_eq!(tool_output(&nested).text, "deep\ntext");
    }

    #[test]
    fn json_that_a_tool_returned_is_kept_whole() {
        let data = r#"{"items":[1,2],"result":"ok"}"#;
        assert_eq!(tool_output(&json!(data)).text, data);
        assert_eq!(tool_output(&json!("[1,2]")).text, "[1,2]");
        assert_eq!(tool_output(&json!("{not json")).text, "{not json");
        assert_eq!(tool_output(&json!({"result": "[1,2]"})).text, "[1,2]");
    }

    #[test]
    fn error_fields_count_only_when_set() {
        assert!(!tool_output(&json!({"result": "ok", "error": null})).is_error);
        assert!(!tool_output(&json!({"result": "ok", "error": ""})).is_error);
        assert!(tool_output(&json!({"error": "denied"})).is_error);
        assert!(tool_output(&json!({"success": false})).is_error);
    }
}
